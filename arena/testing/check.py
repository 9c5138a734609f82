"""Running a game's hard positions through one agent, timed as the table times it.

The positions and the judge are the game's (:class:`~arena.testing.base.CheckPositions`,
named by ``Game.check_positions``; Dou Dizhu's are :mod:`arena.games.ddz.positions`):
this runner knows no game.

Each request goes through :func:`~arena.table.calls.run_call` on a real clock, as a
table calls an agent, with one difference: a table cancels a call at the seat's
deadline, but the check lets it run a while longer (the deadline again, at most
:data:`LATE_GRACE_MAX_S` more) so that a reply that comes late is measured ("0.35 s past
the 2 s deadline"). A late reply is late however it got there, never judged legal; each
position is still asked once. Notifications go out as the table sends them, under the
deadline, and a failure there is logged, never fatal. An agent in another program (a
``subprocess`` or ``http`` seat) is called the same way: its methods return the reply's
text, which the judge reads as the table does.

An agent may report the lines it received that answered no request (a reply to a
notification, a second reply to one request, lines before any request) as an ``int``
attribute named ``stale_replies`` (:data:`STALE_REPLIES`; ``SubprocessAgent`` keeps
one). If that count grows during the check, beyond the replies that may be late ones to
calls given up, the report fails with ``extra_lines``: in a match such a line can be
taken as the answer to the next request.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.agents.base import Agent, answerer, lists_legal_moves
from arena.errors import AgentReplyError, ConfigError, error_text
from arena.games.base import Game, GameRules
from arena.games.registry import DEFAULT_GAME, get_game
from arena.logs import get_logger
from arena.table.calls import CallTiming, run_call
from arena.table.clock import Clock, MonotonicClock
from arena.table.settings import TableSettings
from arena.testing.base import CheckPositions, Judgement, Position, Verdict
from protocol import REJECT_REASONS, Message, RejectReason, ReplyRejected

__all__ = [
    "LATE_GRACE_MAX_S",
    "STALE_REPLIES",
    "AgentCheckReport",
    "PositionResult",
    "check_agent",
    "check_positions",
    "column_header",
    "result_line",
    "stale_replies_of",
]

log = get_logger(__name__)

_NOTIFY_TIMEOUT_S: Final = TableSettings().notify_timeout_s
"""The table's wait for a notification, by default."""

_REPLY_SHOWN = 300
"""Characters of a reply kept in the report: enough to see what came back."""

LATE_GRACE_MAX_S: Final = 10.0
"""How long past the deadline the check still waits for a reply, at most: it waits the
deadline again, up to this, so a late reply is measured and the check stays bounded."""

STALE_REPLIES: Final = "stale_replies"
"""The optional ``int`` attribute in which an agent counts the lines it received that
answered no request (and so threw away)."""

_SETTLE_S: Final = 0.2
"""After the last position, how long lines still on their way get to be counted."""

_ON_PURPOSE = (
    "rejected on purpose by arena agent check, to see a retry: answer the same request again"
)


@dataclass(frozen=True, slots=True)
class PositionResult:
    """How an agent answered one position."""

    position: str
    request: str
    """The request's type, one of its game's (``Game.requests``): ``PLAY_REQUEST``."""
    verdict: Verdict
    detail: str
    elapsed_s: float
    """From the call to its reply (or to the deadline, for a call cancelled there)."""
    reply: str | None
    """The reply as it came (JSON text, shortened), None when there was none."""

    @property
    def ok(self) -> bool:
        """Whether the answer was legal and on time."""
        return self.verdict == "legal"

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (``arena agent check --json``)."""
        return {
            "position": self.position,
            "request": self.request,
            "verdict": self.verdict,
            "detail": self.detail,
            "elapsed_s": round(self.elapsed_s, 4),
            "reply": self.reply,
        }


@dataclass(frozen=True, slots=True)
class AgentCheckReport:
    """Every position's result for one agent; :attr:`passed` when all were legal and the
    agent sent nothing that answered no request."""

    agent: str
    timeout_s: float
    results: tuple[PositionResult, ...]
    extra_lines: int | None = None
    """Lines the agent sent during the check that answered no request (None: the agent
    does not count them, see :data:`STALE_REPLIES`)."""

    @property
    def passed(self) -> bool:
        """Whether every position got a legal answer on time, and no line came extra."""
        return all(result.ok for result in self.results) and not self.extra_lines

    @property
    def problems(self) -> tuple[str, ...]:
        """What failed besides the positions, in words (empty when nothing did)."""
        if not self.extra_lines:
            return ()
        count = self.extra_lines
        lines = "line that" if count == 1 else "lines that"
        return (
            f"the program wrote {count} {lines} answered no request: a reply to a "
            "notification, two replies to one request, or a line before any request? In "
            "a match such a line can be taken as the answer to the next request",
        )

    @property
    def failures(self) -> tuple[PositionResult, ...]:
        """The positions answered wrongly, late or not at all."""
        return tuple(result for result in self.results if not result.ok)

    def result(self, position: str) -> PositionResult:
        """The result of the position of that name (a KeyError if it was not asked)."""
        return {result.position: result for result in self.results}[position]

    def summary(self) -> str:
        """One line: ``passed: 12 of 12 positions legal and on time``, or what failed."""
        total = len(self.results)
        if self.passed:
            return f"{self.agent}: passed: {total} of {total} positions legal and on time"
        parts = []
        if self.failures:
            counts = Counter(result.verdict for result in self.failures)
            kinds = ", ".join(f"{verdict} {count}" for verdict, count in sorted(counts.items()))
            parts.append(f"{len(self.failures)} of {total} positions ({kinds})")
        if self.extra_lines:
            parts.append(f"{self.extra_lines} extra line{'' if self.extra_lines == 1 else 's'}")
        return f"{self.agent}: FAILED: {'; '.join(parts)}"

    def as_text(self) -> str:
        """A table for people: one line per position (name, verdict, time, detail), a line
        for each other problem (``extra lines: ...``), then the summary line."""
        width = max((len(result.position) for result in self.results), default=8)
        lines = [column_header(width)]
        lines.extend(result_line(result, width) for result in self.results)
        lines.extend(self.closing_lines())
        return "\n".join(lines)

    def closing_lines(self) -> list[str]:
        """What :meth:`as_text` prints after the positions: each other problem, then the
        summary line (``arena agent check`` prints the positions as they are judged)."""
        lines = [f"extra lines: {problem}" for problem in self.problems]
        lines.append(self.summary())
        return lines

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``arena agent check --json``)."""
        return {
            "agent": self.agent,
            "timeout_s": self.timeout_s,
            "passed": self.passed,
            "results": [result.to_dict() for result in self.results],
            "extra_lines": self.extra_lines,
            "problems": list(self.problems),
        }


def column_header(width: int) -> str:
    """The heading of :meth:`AgentCheckReport.as_text`'s table, its first column
    ``width`` characters wide."""
    return f"{'position':<{width}}  {'verdict':<9}  {'time':>7}  detail"


def result_line(result: PositionResult, width: int) -> str:
    """One position's line of :meth:`AgentCheckReport.as_text`'s table."""
    return (
        f"{result.position:<{width}}  {result.verdict:<9}  "
        f"{result.elapsed_s:>6.3f}s  {result.detail}"
    )


def check_positions(game: Game | None = None) -> CheckPositions:
    """The positions ``arena agent check`` asks at a table of ``game`` (the default
    game when None), with the game's judge; a ConfigError for a game that has none."""
    played = game if game is not None else get_game(DEFAULT_GAME)
    if played.check_positions is None:
        raise ConfigError(f"{played.title} (game = {played.name!r}) has no agent check positions")
    found: CheckPositions = played.check_positions()
    return found


async def check_agent(
    agent: Agent,
    *,
    timeout_s: float,
    notify_timeout_s: float = _NOTIFY_TIMEOUT_S,
    game: Game | None = None,
    rules: GameRules | None = None,
    positions: Sequence[Position] | None = None,
    clock: Clock | None = None,
    stale_replies_before: int | None = None,
    on_result: Callable[[PositionResult], None] | None = None,
) -> AgentCheckReport:
    """Ask ``agent`` every position of ``game`` (the default game when None) once (the retry
    position twice) and judge each reply with the game's judge.

    ``timeout_s`` is the seat's deadline, ``notify_timeout_s`` the table's wait for a
    notification (at most the deadline); ``rules`` (the game's default rules when None)
    decide which moves are legal (a game's positions may be the same under every rule
    variant); ``positions`` are the game's unless given. The agent is neither
    opened nor closed here: the caller owns its lifecycle. ``stale_replies_before`` is
    :func:`stale_replies_of` the agent before it was opened, so that lines a program
    writes as it starts count as extra too (default: the count as the check begins).
    ``on_result`` is called with each position's result as soon as it is judged: a model
    takes seconds a call, so a caller can show each verdict as it comes, and keep those
    already paid for if the check is stopped.
    """
    played = game if game is not None else get_game(DEFAULT_GAME)
    kit = check_positions(played)
    rules = played.default_rules() if rules is None else played.parse_rules(rules)
    asked = kit.positions if positions is None else positions
    clock = clock or MonotonicClock()
    before = stale_replies_of(agent) if stale_replies_before is None else stale_replies_before
    results = []
    given_up = 0  # calls that got no reply: their replies may still come, and be discarded
    notify_s = min(timeout_s, notify_timeout_s)
    listing = lists_legal_moves(agent)  # its requests list the moves, as a table's do
    for position in asked:
        situation = position.build(agent.name, max(1, int(timeout_s * 1000)), rules)
        request = situation.request
        if listing:
            request = kit.listed(request, rules)
        for note in situation.notifications:
            await _notify(agent, note, notify_s, clock)
        result = await _ask(agent, position, request, timeout_s, clock, (played, kit, rules))
        given_up += _unanswered(result)
        if position.retry:
            await _notify(agent, _rejection(request, result), notify_s, clock)
            again = await _ask(agent, position, request, timeout_s, clock, (played, kit, rules))
            given_up += _unanswered(again)
            first = f"first answer {result.verdict}, rejected"
            result = _with_detail(again, f"{again.detail} (retry; {first})")
        results.append(result)
        if on_result is not None:
            on_result(result)
    extra = None
    if before is not None:
        await asyncio.sleep(_SETTLE_S)  # a second reply to the last request may be on its way
        after = stale_replies_of(agent)
        if after is not None:
            extra = max(0, after - before - given_up)
    return AgentCheckReport(agent.name, timeout_s, tuple(results), extra)


def stale_replies_of(agent: object) -> int | None:
    """The agent's count of lines that answered no request (:data:`STALE_REPLIES`), or
    None when it keeps none."""
    count = getattr(agent, STALE_REPLIES, None)
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _unanswered(result: PositionResult) -> int:
    return 1 if result.verdict == "late" and result.reply is None else 0


_VERDICT_OF: Final[dict[str, Verdict]] = {
    "empty": "malformed",
    "truncated": "malformed",
    "unparsable": "malformed",
    "illegal": "illegal",
    "timeout": "late",
}
"""The verdict of a fault an agent raises itself, the same as a game's judge gives the
same fault in a reply it reads: an unreadable model answer is ``malformed`` as a
program's unreadable line is. Anything else (``agent_error``) is ``error``."""

_TRUNCATED_HINT: Final = " (raise the seat's options.max_tokens so the answer fits)"
"""What to do about a model answer cut off at its output limit."""


async def _ask(
    agent: Agent,
    position: Position,
    request: Message,
    timeout_s: float,
    clock: Clock,
    judging: tuple[Game, CheckPositions, GameRules],
) -> PositionResult:
    """One request, timed and judged as the table would (``judging``: the game, its
    positions' judge and the rules); a call that awaits may run past the deadline
    (:data:`LATE_GRACE_MAX_S`) so that a late reply is measured."""
    game, kit, rules = judging
    patience = timeout_s + min(timeout_s, LATE_GRACE_MAX_S)
    started = clock.now()
    reply: object = None
    try:
        call = answerer(agent, game.requests[request.type])(request)
        reply = await run_call(call, timeout_s=patience, clock=clock, timing=CallTiming())
    except TimeoutError:
        judgement = Judgement(
            "late", f"no reply within {patience:g} s (the deadline is {timeout_s:g} s)"
        )
    except AgentReplyError as exc:  # a model seat reads its model's text itself
        hint = _TRUNCATED_HINT if exc.category == "truncated" else ""
        judgement = Judgement(
            _VERDICT_OF.get(exc.category, "error"), f"{exc.category}: {exc.detail}{hint}"
        )
    except Exception as exc:  # the agent's own bug, as the table counts it
        log.debug("agent_check_raised", agent=agent.name, position=position.name, exc_info=exc)
        judgement = Judgement("error", f"agent_error: {type(exc).__name__}: {exc}")
    else:
        elapsed = clock.now() - started
        if elapsed > timeout_s:
            late_by = elapsed - timeout_s
            judgement = Judgement(
                "late",
                f"the reply came after {elapsed:.2f} s, {late_by:.2f} s past the "
                f"{timeout_s:g} s deadline",
            )
        else:
            judgement = kit.judge(request, reply, rules)
    return PositionResult(
        position=position.name,
        request=request.type,
        verdict=judgement.verdict,
        detail=judgement.detail,
        elapsed_s=clock.now() - started,
        reply=_shown(reply),
    )


async def _notify(agent: Agent, message: Message, timeout_s: float, clock: Clock) -> None:
    """A notification, as the table sends it: under the deadline, a failure only logged."""
    try:
        await run_call(agent.notify(message), timeout_s=timeout_s, clock=clock, timing=CallTiming())
    except TimeoutError:
        log.warning("agent_notify_timed_out", agent=agent.name, message=message.type)
    except Exception as exc:  # said as the table says it
        log.warning(
            "agent_notify_failed", agent=agent.name, message=message.type, error=error_text(exc)
        )


def _rejection(request: Message, first: PositionResult) -> ReplyRejected:
    """The REPLY_REJECTED for the retry position: the first answer's own fault if it had
    one, else a rejection on purpose, with one retry left."""
    reason: RejectReason = "illegal"
    detail = _ON_PURPOSE
    if not first.ok:
        detail = first.detail
        if first.verdict == "late":
            reason = "timeout"
        elif first.verdict in ("malformed", "error"):
            category = first.detail.partition(":")[0]
            reason = next((r for r in REJECT_REASONS if r == category), "unparsable")
    asked = request.__dict__  # every game's request names its player, itself and where
    return ReplyRejected(
        player_id=asked["player_id"],
        request_type=request.type,
        request_id=asked["request_id"],
        reason=reason,
        detail=detail[:500],
        retries_left=1,
        match_id=asked.get("match_id"),
        table_id=asked.get("table_id"),
        round_no=asked.get("round_no"),
    )


def _with_detail(result: PositionResult, detail: str) -> PositionResult:
    return PositionResult(
        result.position, result.request, result.verdict, detail, result.elapsed_s, result.reply
    )


def _shown(reply: object) -> str | None:
    """The reply as text for the report: JSON for a message, its text for text."""
    if reply is None:
        return None
    if isinstance(reply, Message):
        text = reply.model_dump_json(exclude_none=True)
    elif isinstance(reply, bytes):
        text = reply.decode("utf-8", errors="replace")
    elif isinstance(reply, str):
        text = reply
    else:
        try:
            text = json.dumps(reply, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):
            text = repr(reply)
    return text if len(text) <= _REPLY_SHOWN else text[:_REPLY_SHOWN] + "…"
