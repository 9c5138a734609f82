"""A model seat's decisions as a replay keeps them, for ``arena replay --decisions``.

The table writes a ``decision`` line for each attempt of a seat whose agent reports its
calls (model seats): the outcome, the rejection's detail and the call's report, with the
prompt, the raw reply and the reasoning that only the replay keeps. This module pairs
each attempt with the request it answered and with the reply the table read from it (the
``from_agent`` message between the request and the decision line, if any), groups the
attempts of one request into one :class:`Decision`, and says it all for a developer
debugging a model: the prompt as sent (a seat's system prompt once, since it rarely
changes; a retry's conversation only from where it differs from the attempt before),
what the model answered and thought, what the table read and why it said no, and what
each call cost.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from arena.errors import ConfigError
from arena.games.registry import DEFAULT_GAME, get_game
from arena.replay_round import RecordedRound
from arena.sinks.model_figures import duration, money

__all__ = ["Attempt", "Decision", "decisions_in", "describe_decisions"]

_FILLED: Final = frozenset({"type", "player_id", "request_id"})


@dataclass
class Attempt:
    """One call of a model seat for one request, and what the table made of it."""

    number: int
    """From 0, as the table counts (shown from 1)."""
    outcome: str
    """``accepted`` or the rejection's category (illegal, unparsable, timeout ...)."""
    detail: str | None
    report: dict[str, Any]
    parsed: dict[str, Any] | None
    """The reply the table read from the model's text (a ``from_agent`` message), if any."""
    late: bool = False
    line: int = 0

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data: the report's fields, then what the table made of it."""
        return {
            "attempt": self.number,
            "outcome": self.outcome,
            "detail": self.detail,
            "parsed": self.parsed,
            "late": self.late,
            "line": self.line,
            **self.report,
        }


@dataclass
class Decision:
    """The attempts of one seat at one request, in order."""

    table: str
    round: int
    seat: int
    player: str
    request_type: str | None
    request_id: str | None
    attempts: list[Attempt] = field(default_factory=list)

    @property
    def accepted(self) -> bool:
        """Whether the table used one of the model's replies (else it fell back)."""
        return bool(self.attempts) and self.attempts[-1].outcome == "accepted"

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON data for ``--json``."""
        return {
            "table": self.table,
            "round": self.round,
            "seat": self.seat,
            "player": self.player,
            "request": {"type": self.request_type, "request_id": self.request_id},
            "accepted": self.accepted,
            "attempts": [attempt.to_dict() for attempt in self.attempts],
        }


def decisions_in(rounds: Iterable[RecordedRound]) -> list[Decision]:
    """Every model decision of the rounds, in file order within each round."""
    found: list[Decision] = []
    for recorded in rounds:
        if recorded.decisions:
            found.extend(_round_decisions(recorded))
    return found


def _request_test(game: object) -> Callable[[object], bool]:
    """Whether a message type is a request of the game a round's header names
    (``Game.requests``); for a game the arena does not know, whether it is named as the
    protocol names requests (``..._REQUEST``)."""
    try:
        return frozenset(get_game(str(game)).requests).__contains__
    except ConfigError:
        return lambda kind: isinstance(kind, str) and kind.endswith("_REQUEST")


def _round_decisions(recorded: RecordedRound) -> list[Decision]:
    """Walk the round's lines in order: a request opens a seat's attempt, a reply is
    what the table read, a decision line closes the attempt (a new request id, or an
    attempt number that does not go up, starts a new decision)."""
    players = list(recorded.header.get("players", ()))
    is_request = _request_test(recorded.header.get("game", DEFAULT_GAME))
    requests: dict[int, dict[str, Any]] = {}
    replies: dict[int, tuple[dict[str, Any], bool]] = {}
    latest: dict[int, Decision] = {}
    found: list[Decision] = []
    for number, line in recorded.lines:
        kind, seat = line["kind"], line.get("seat")
        if kind == "message" and isinstance(seat, int):
            message = line["message"]
            if line["dir"] == "from_agent":
                replies[seat] = (message, bool(line.get("late")))
            elif is_request(message.get("type")):
                requests[seat] = message
                replies.pop(seat, None)
        elif kind == "decision":
            assert isinstance(seat, int)  # checked as the replay was read
            request = requests.get(seat, {})
            request_id = line.get("request_id", request.get("request_id"))
            decision = latest.get(seat)
            if (
                decision is None
                or decision.request_id != request_id
                or line["attempt"] <= decision.attempts[-1].number
            ):
                request_type = request.get("type")
                if request.get("request_id") != request_id:
                    request_type = None  # the request line is not there (an edited file)
                player = players[seat] if seat < len(players) else f"seat {seat}"
                decision = Decision(
                    recorded.table, recorded.round, seat, player, request_type, request_id
                )
                latest[seat] = decision
                found.append(decision)
            reply, late = replies.pop(seat, (None, False))
            attempt = Attempt(
                line["attempt"], line["outcome"], line["detail"], line["report"], reply, late
            )
            attempt.line = number
            decision.attempts.append(attempt)
    return found


# ─── said for a person ──────────────────────────────────────────────────────────────────


def describe_decisions(
    decisions: list[Decision], *, source: str, full: bool = False
) -> Iterator[str]:
    """The decisions as text: one block per decision, one section per attempt, and a
    closing count. ``full`` repeats what is otherwise shown once (a seat's system
    prompt, the start of a retry's conversation)."""
    seen_system: dict[tuple[str, int], str] = {}
    for decision in decisions:
        yield from _decision_lines(decision, seen_system, full=full)
        yield ""
    yield _totals(decisions, source)


def _decision_lines(
    decision: Decision, seen_system: dict[tuple[str, int], str], *, full: bool
) -> Iterator[str]:
    first = decision.attempts[0].report
    request = decision.request_type or "request"
    if decision.request_id:
        request = f"{request} {decision.request_id}"
    yield (
        f"=== table {decision.table} · round {decision.round} · seat {decision.seat} "
        f"({decision.player}) · {request} · {first['provider']} {first['model']}"
    )
    previous: Attempt | None = None
    for attempt in decision.attempts:
        yield from _attempt_lines(decision, attempt, previous, seen_system, full=full)
        previous = attempt
    used = len(decision.attempts)
    tries = f"{used} attempt{'s' if used != 1 else ''}"
    if decision.accepted:
        verdict = "legal at the first try" if used == 1 else f"accepted at attempt {used}"
    else:
        verdict = "no reply was used: the table fell back"
    yield f"  → {verdict} ({tries}, {_figures([a.report for a in decision.attempts])})"


def _attempt_lines(
    decision: Decision,
    attempt: Attempt,
    previous_attempt: Attempt | None,
    seen_system: dict[tuple[str, int], str],
    *,
    full: bool,
) -> Iterator[str]:
    report = attempt.report
    previous = [] if previous_attempt is None else list(previous_attempt.report["prompt"])
    outcome = "accepted" if attempt.outcome == "accepted" else f"rejected ({attempt.outcome})"
    if attempt.detail:
        outcome = f"{outcome}: {attempt.detail}"
    yield f"  --- attempt {attempt.number + 1}: {outcome}"
    yield f"      {_figures([report])}"
    if report.get("error"):
        yield f"      provider error: {report['error']}"
    if report.get("notice"):
        yield f"      notice: {json.dumps(report['notice'], ensure_ascii=False)}"
    prompt: list[dict[str, Any]] = list(report["prompt"])
    shown = prompt
    count = len(previous)
    messages = f"{count} message{'s' if count != 1 else ''}"
    if not full and previous and prompt == previous and previous_attempt is not None:
        # no answer came to continue from (a timeout, a failed call): asked afresh
        yield (
            f"    ▸ prompt: the same {messages} as attempt {attempt.number}, sent again: "
            f"that attempt got no answer to continue from ({previous_attempt.outcome})"
        )
        shown = []
    elif not full and previous and prompt[:count] == previous:
        yield f"    ▸ prompt: the {messages} of attempt {attempt.number}, then:"
        shown = prompt[count:]
    for message in shown:
        yield from _message_lines(message, (decision.table, decision.seat), seen_system, full)
    if report.get("reasoning"):
        yield "    ▸ reasoning (the replay's only: never shown to viewers or agents)"
        yield from _indented(report["reasoning"])
    if report.get("raw_text") is None:
        yield "    ▸ raw reply: none (the call gave no text)"
    else:
        yield "    ▸ raw reply"
        yield from _indented(report["raw_text"] or "(empty)")
    yield from _parsed_lines(attempt)


def _message_lines(
    message: dict[str, Any],
    seat: tuple[str, int],
    seen_system: dict[tuple[str, int], str],
    full: bool,
) -> Iterator[str]:
    role = str(message.get("role", "?"))
    content = message.get("content")
    text = (
        content if isinstance(content, str) else json.dumps(content, ensure_ascii=False, indent=2)
    )
    if role == "system" and not full:
        if seen_system.get(seat) == text:
            size = f"{len(text):,} characters"
            yield f"    ▸ system: as before for this seat ({size}; --full shows it)"
            return
        seen_system[seat] = text
    yield f"    ▸ {role}"
    yield from _indented(text)


def _parsed_lines(attempt: Attempt) -> Iterator[str]:
    parsed = attempt.parsed
    if parsed is None:
        yield "    ▸ parsed: nothing (the table read no reply from this text)"
        return
    late = " (late: never used)" if attempt.late else ""
    if "invalid_reply" in parsed:
        yield f"    ▸ parsed: not a reply{late}: {parsed['invalid_reply']}"
        return
    # the adapter fills player_id and request_id itself: what the model chose is the rest
    body = {k: v for k, v in parsed.items() if v is not None and k not in _FILLED}
    text = json.dumps(body, ensure_ascii=False)
    yield f"    ▸ parsed: {parsed.get('type', 'reply')}{late} {text}"


def _indented(text: str) -> Iterator[str]:
    for line in text.splitlines() or [""]:
        yield f"      {line}".rstrip()


def _figures(reports: list[dict[str, Any]]) -> str:
    """``812 ms · 1,204 tokens in, 35 out (12 reasoning) · cost 0.00021``, summed."""
    latency = sum(float(r["latency_ms"]) for r in reports)
    tokens_in = sum(int(r["input_tokens"]) for r in reports)
    tokens_out = sum(int(r["output_tokens"]) for r in reports)
    reasoning = sum(int(r["reasoning_tokens"]) for r in reports)
    parts = [duration(latency)]
    tokens = f"{tokens_in:,} tokens in, {tokens_out:,} out"
    if reasoning:
        tokens += f" ({reasoning:,} reasoning)"
    if any(r.get("estimated") for r in reports):
        tokens += " (estimated)"
    parts.append(tokens)
    costs = [r["cost"] for r in reports if r.get("cost") is not None]
    if costs:
        parts.append(f"cost {money(sum(costs))}")
    retries = sum(int(r.get("provider_retries") or 0) for r in reports)
    if retries:
        parts.append(f"{retries} provider retr{'ies' if retries != 1 else 'y'}")
    return " · ".join(parts)


def _totals(decisions: list[Decision], source: str) -> str:
    attempts = sum(len(d.attempts) for d in decisions)
    seats = len({(d.table, d.seat) for d in decisions})
    first = sum(1 for d in decisions if d.accepted and len(d.attempts) == 1)
    later = sum(1 for d in decisions if d.accepted and len(d.attempts) > 1)
    fell = len(decisions) - first - later
    return (
        f"{source}: {len(decisions)} model decision{'s' if len(decisions) != 1 else ''} "
        f"({attempts} attempt{'s' if attempts != 1 else ''}) by {seats} seat"
        f"{'s' if seats != 1 else ''}: {first} legal at the first try, {later} after a "
        f"retry, {fell} fell back"
    )
