"""Terminal views of the public events: a live board (rich) and plain lines.

The live board is what a streamer shows before the web overlay exists: per table the
three seats with role, cards left, last action, comment and mood, the current trick and
the running scores. When the tables' boards do not fit the terminal (four tables on 80×24
already do not), it shows one row per table instead, and says how many rows did not fit.
Plain lines are for scripts, CI and ``--no-live``.

Both end a match with what went wrong besides the scores: each player's faults by
category and the rounds a stand-in played for it, so that a broken agent is not
mistaken for a bad one; and each model seat's figures (legal at the first try, tokens,
cost, time per decision).

A model may think for a minute, so the board shows the seat to act with its seconds
counting up (rich's own redraw thread draws them; no event is needed), a model seat's
figures so far beside it (:mod:`arena.sinks.model_figures`), and a stand-in that plays
for a seat until the match ends. Plain lines add to each action its decision's figures,
or the seconds of any slow turn.

Viewers' gifts (``gift`` events, issue 11) show as banners: an applied gift names the
viewer, the effect (with its Chinese name), its target and a CHEER's message; a rejected
or expired one is a quieter line with the reason in words. A queued gift is no line (a
stream may send thousands a second): the board shows how many wait and the last few
banners, and plain lines show one rejected line per reason and table every
:data:`QUIET_EVERY_S` (a replay's, without a clock: the first), saying how many like it
were not shown since the last; those still not shown are told per reason at the match's
end (a replay's: each round's) or at the close, with a count of every gift. An event
may settle many units of one gift at once (``units``): a banner says ``×9800``, and
every count counts units. Viewer text is rendered as rich ``Text``, never as markup.

Every secret the arena knows is masked in an event as it reaches either console, before
the board cuts any text (:func:`shown_event`): what comes in was masked already, and a
terminal a stream shows is one more place a path nobody thought of could reach.
"""

from __future__ import annotations

import asyncio
import math
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Final

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.live import Live
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from arena.events import Event, EventType
from arena.secrets import masked, secrets_registered
from arena.sinks.model_figures import (
    ModelTally,
    budget_words,
    decision_suffix,
    replaced_words,
    seconds,
)

__all__ = [
    "GIFT_BANNERS",
    "PLAIN_ACTIONS_UP_TO",
    "QUIET_EVERY_S",
    "EventLines",
    "LiveConsoleSink",
    "PlainConsoleSink",
    "describe",
    "gift_text",
    "shown_event",
]

_EMOTION_FACES = {
    "confident": "😎",
    "nervous": "😰",
    "excited": "🤩",
    "angry": "😠",
    "thinking": "🤔",
    "happy": "😄",
    "sad": "😢",
    "taunting": "😏",
}

_FAULT_WORDS: Final = {
    "timeout": "no reply in time",
    "empty": "empty reply",
    "unparsable": "unreadable reply",
    "truncated": "reply too long",
    "illegal": "illegal reply",
    "agent_error": "agent failed",
}
"""What a rejected reply's category means, said on the board (the log has the detail)."""


def _bid_words(data: Mapping[str, Any]) -> str:
    """What a bid was: a score, or in grab bidding a call or a grab (叫地主 / 抢地主).

    ``data["grab"]`` says whether the seat was grabbing; a replay recorded before the
    flag existed has none, so it gets words that are true either way.
    """
    bid = data["bid"]
    if data.get("mode") != "grab":
        return f"bids {bid}" if bid else "passes the bid"
    if "grab" not in data:
        return "bids for landlord" if bid else "passes the bid"
    if data["grab"]:
        return "grabs the landlord (抢地主)" if bid else "does not grab (不抢)"
    return "calls the landlord (叫地主)" if bid else "does not call (不叫)"


def shown_event(event: Event) -> Event:
    """The event as a console shows it: every known secret in its data masked (the
    event itself when none is known, as in a scripted match)."""
    if not secrets_registered():
        return event
    return event._replace(data=masked(dict(event.data)))


def describe(event: Event) -> str | None:
    """One human line for an event, or None for events not worth a line."""
    d = event.data
    who = event.player or ""
    say = f"  「{d['comment']}」" if d.get("comment") else ""
    face = f" {_EMOTION_FACES.get(d.get('emotion', ''), '')}" if d.get("emotion") else ""
    tag = f"[{event.table} r{event.round}]"
    kind = event.type
    if kind == "match_started":
        return f"{tag} match: {' / '.join(d['players'])}, {d['rounds']} round(s)"
    if kind == "round_started":
        return f"{tag} ── round {event.round} ──"
    if kind == "redeal":
        return f"{tag} nobody bid: redeal #{d['deal_number'] - 1}"
    if kind == "bid":
        return f"{tag} {who} {_bid_words(d)}{face}{say}"
    if kind == "landlord_chosen":
        forced = " (forced after redeals)" if d.get("forced") else ""
        return (
            f"{tag} {who} is landlord at {d['call_score']}{forced}; "
            f"bottom cards {' '.join(d['bottom_cards'])}"
        )
    if kind == "double":
        word = d["kind"] if d["double"] else f"no {d['kind']}"
        return f"{tag} {who}: {word}{face}{say}"
    if kind == "play":
        left = d["cards_left"]
        warn = " ⚠" if 0 < left <= 2 else ""
        return (
            f"{tag} {who} plays {' '.join(d['cards'])} ({d['hand_type']}), "
            f"{left} left{warn}{face}{say}"
        )
    if kind == "pass":
        note = " (cannot beat)" if d.get("auto") else ""
        return f"{tag} {who} passes{note}{face}{say}"
    if kind == "trick_won":
        return f"{tag} {who} wins the trick"
    if kind == "fault":
        retries = d["retries_left"]
        left = "1 retry" if retries == 1 else f"{retries} retries"
        said = _FAULT_WORDS.get(d["category"], f"{d['category']} reply")
        return f"{tag} ✗ {who}: {said} ({left} left)"
    if kind == "seat_replaced":
        return f"{tag} {who} {replaced_words(d)}"
    if kind == "budget_spent":
        return f"{tag} {who} {budget_words(d)}"
    if kind == "round_result":
        result = d["result"]
        side = "the landlord wins" if result["landlord_won"] else "the farmers win"
        spring = f", {result['spring'].replace('_', ' ')}" if result.get("spring") else ""
        bombs = result["bombs"] + result["rockets"]
        scores = ", ".join(f"{p} {s:+d}" for p, s in d["scores"].items())
        return f"{tag} {side}{spring} (bombs {bombs}, call {result['call_score']}): {scores}"
    if kind == "match_ended":
        totals = ", ".join(f"{s['player']} {s['score']:+d}" for s in d["standings"])
        return f"{tag} match over: {totals}"
    if kind == "gift":  # last: a gift is rarer than any event above, and never hot here
        text = gift_text(event)
        return None if text is None else f"{tag} {text.plain}"
    return None


# ─── viewers' gifts ─────────────────────────────────────────────────────────────────────

_GIFT_NAMES: Final = {
    "CHEER": "加油",
    "EMOTE": "表情",
    "PEEK": "偷看牌",
    "SWAP": "换牌",
    "ADD": "加牌",
    "DOUBLE": "翻倍",
    "EFFECT": "全场特效",
    "ROLE_SWAP": "角色互换",
    "RESHUFFLE": "重新洗牌",
}
"""Each effect's Chinese name, as streams and docs/gifts.md call it."""

_GIFT_REASONS: Final = {
    "duplicate": "already received (a duplicate)",
    "ranked_mode": "not in a ranked match",
    "queue_full": "the gift queue is full",
    "cooldown": "on cooldown",
    "last_cards": "too near the end of a hand",
    "double_cap": "the round's doubles are used up",
    "unmapped": "this gift does nothing here",
    "unknown_table": "no such table",
    "no_target": "no seat to aim it at",
    "match_over": "the match is over",
    "invalid": "not a valid gift",
    "error": "failed unexpectedly",
}
"""Why a gift did not apply, in words, by the reason's code (its part before any ``:``;
the rest is a detail, kept: ``no such table: t9``). Another reason is shown as it is
(the rules' own words)."""

_GIFT_REASON_KEYS: Final = 16
"""Distinct reasons counted per table before the rest count as ``other`` (the engine's
words could vary without end; the count must not)."""

GIFT_BANNERS: Final = 3
"""The last banners a table's board shows under its trick line."""

QUIET_EVERY_S: Final = 10.0
"""Plain lines show a rejected or expired gift at most this often per reason and table
(with a count of those not shown): 10,000 refused gifts must not bury the game."""


def _reason_words(status: str, reason: str | None) -> str:
    """``rejected: on cooldown``; a reason with a detail after its code keeps it
    (``unknown_table: t9`` is ``rejected: no such table: t9``); a reason without words
    is shown as it came."""
    if not reason:
        return "expired unused" if status == "expired" else status
    code, _, detail = reason.partition(":")
    words = _GIFT_REASONS.get(code.strip())
    if words is None:
        return f"{status}: {reason}"
    detail = detail.strip()
    return f"{status}: {words}: {detail}" if detail else f"{status}: {words}"


def _quiet_key(data: Mapping[str, Any]) -> str:
    """What a quiet line is counted under: ``rejected cooldown``, ``expired``."""
    reason = data.get("reason")
    key = str(reason).partition(":")[0].strip() if reason else ""
    return f"{data.get('status')} {key}".rstrip()


def _quiet_words(key: str) -> str:
    """A :func:`_quiet_key`'s words: ``rejected: on cooldown``, ``expired unused``."""
    status, _, code = key.partition(" ")
    if code == "other":
        return f"{status} for other reasons"
    return _reason_words(status, code or None)


def _units(data: Mapping[str, Any]) -> int:
    """How many units of one gift the event settles (``units``; 1 in older events)."""
    units = data.get("units", 1)
    return units if type(units) is int and units > 1 else 1


def gift_text(event: Event, repeats: int = 0, *, since: bool = False) -> Text | None:
    """A gift event's banner as rich ``Text`` (viewer words are never parsed as markup),
    or None for a queued gift (the board counts those instead).

    ``🎁 小明 (小花花): CHEER 加油 → Ann “加油地主！”`` when applied; a PEEK says who
    peeked at whom and never a card; ``×9800`` after the effect when the event settles
    that many units of the gift at once. A rejected or expired gift is one dim line with
    its reason in words; ``repeats`` adds how many more like it were not shown (``since``:
    since the last line like it, as plain lines say).
    """
    d = event.data
    status = d.get("status")
    if status == "queued" or status is None:
        return None
    applied = status == "applied"
    text = Text("🎁 " if applied else "· ", style="" if applied else "dim")
    text.append(str(d.get("viewer") or "a viewer"), style="bold magenta" if applied else "")
    if d.get("gift"):
        text.append(f" ({d['gift']})")
    effect = d.get("effect")
    target = event.player or (f"seat {d['target']}" if d.get("target") is not None else "")
    text.append(": ")
    if effect:
        text.append(f"{effect} {_GIFT_NAMES.get(effect, '')}".rstrip(), style="yellow" * applied)
    else:
        text.append("no effect")
    units = _units(d)
    if units > 1:
        text.append(f" ×{units}")
    if target:
        if applied and effect == "PEEK":
            text.append(f", peeked at {target}'s hand")
        else:
            text.append(" → ")
            text.append(target, style="bold" * applied)
    if applied and effect == "CHEER" and d.get("message"):
        text.append(" “")
        text.append(str(d["message"]), style="italic")
        text.append("”")
    if not applied:
        text.append(f" {_reason_words(str(status), d.get('reason'))}")
    if d.get("test"):
        text.append(" (test)")
    if repeats:
        text.append(f" (+{repeats:,} more like it{' since' if since else ''})")
    return text


@dataclass
class _MatchTally:
    """One table's match as far as its faults go: who a stand-in played for, in how
    many rounds and as what, and whether the fault hint was given yet; and each model
    seat's figures, with the turn each seat is in (since when, and its decision)."""

    standin_rounds: dict[str, int] = field(default_factory=dict)
    standin_type: dict[str, str] = field(default_factory=dict)
    hinted: bool = False
    models: dict[str, ModelTally] = field(default_factory=dict)
    turn_started: dict[int, float] = field(default_factory=dict)
    decided: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    gifts_applied: int = 0
    gifts_quiet: dict[str, int] = field(default_factory=dict)
    """Rejected and expired gifts (their units) by :func:`_quiet_key`, since the last
    gift summary."""
    quiet_shown: dict[str, tuple[float, int]] = field(default_factory=dict)
    """Per quiet key: when its last line was shown, and how many were not shown since."""

    def hidden_lines(self) -> list[str]:
        """``· 20 more expired unused, not shown``: one line per reason with gifts not
        shown since its last line, which then count from nothing again."""
        lines = []
        for key, (shown_at, held) in list(self.quiet_shown.items()):
            if held:
                lines.append(f"· {held:,} more {_quiet_words(key)}, not shown")
                self.quiet_shown[key] = (shown_at, 0)
        return lines

    def gift_end(self, tag: str) -> list[str]:
        """A match's (or a table's) last gift lines, each after ``tag``: the hidden ones
        per reason, then the summary; then counting from nothing again."""
        lines = [f"{tag} {line}" for line in self.hidden_lines()]
        summary = self.gift_summary()
        if summary:
            lines.append(f"{tag} {summary}")
        return lines

    def gift_summary(self) -> str | None:
        """``gifts: 12 applied, 9,876 rejected (9,000 queue full, 876 cooldown), 4
        expired``, then counting from nothing again; None when no gift ended here."""
        if not self.gifts_applied and not self.gifts_quiet:
            return None
        rejected = {k[9:] or "other": n for k, n in self.gifts_quiet.items() if k[:8] == "rejected"}
        parts = [f"{self.gifts_applied:,} applied"]
        if rejected:
            each = ", ".join(
                f"{n:,} {k.replace('_', ' ')}"
                for k, n in sorted(rejected.items(), key=lambda kn: -kn[1])
            )
            parts.append(f"{sum(rejected.values()):,} rejected ({each})")
        expired = sum(n for k, n in self.gifts_quiet.items() if k[:7] == "expired")
        if expired:
            parts.append(f"{expired:,} expired")
        self.gifts_applied, self.gifts_quiet, self.quiet_shown = 0, {}, {}
        return f"gifts: {', '.join(parts)}"


_ACTIONS: Final = frozenset({"bid", "double", "play", "pass"})

SLOW_TURN_S: Final = 1.0
"""A turn this long or longer is worth its seconds: on the board while the seat thinks,
and at the end of its action's plain line (scripted seats answer in microseconds)."""


class EventLines:
    """The lines a console shows for an event: :func:`describe`'s, the first fault of a
    match pointing to where its detail is, an action's time (a model's figures, or the
    seconds of any slow turn when a clock is given), and after the final scores the faults
    and stand-ins of each player who had any and each model seat's figures (events carry
    them; this only adds up)."""

    def __init__(self, fault_hint: str | None, *, clock: Callable[[], float] | None = None) -> None:
        self._fault_hint = fault_hint
        self._clock = clock
        self._tallies: dict[str, _MatchTally] = {}

    def lines(self, event: Event) -> list[str]:
        """The event's lines: none, its :func:`describe` line, or more at the match's end."""
        kind = event.type
        if kind == "gift":
            return self._gift_lines(event)
        earlier = None  # gifts that ended after the table's last match did
        if kind == "match_started":
            old = self._tallies.get(event.table)
            earlier = old.gift_end(f"[{event.table}]") if old is not None else None
            self._tallies[event.table] = _MatchTally()
        tally = self._tallies.setdefault(event.table, _MatchTally())
        line = describe(event)
        seat = event.seat
        if kind == "fault" and line is not None and self._fault_hint and not tally.hinted:
            tally.hinted = True
            line = f"{line} — {self._fault_hint}"
        elif kind == "turn_started" and seat is not None and self._clock is not None:
            tally.turn_started[seat] = self._clock()
        elif kind == "decision" and seat is not None:
            tally.decided[seat] = event.data
            if event.player:
                tally.models.setdefault(event.player, ModelTally()).add(event.data)
        elif kind in _ACTIONS and seat is not None and line is not None:
            line += self._timing(tally, seat)
        elif kind == "seat_replaced" and event.player:
            tally.standin_type[event.player] = str(event.data.get("by", ""))
        elif kind == "round_result":
            for player in event.data.get("standins", ()):
                tally.standin_rounds[player] = tally.standin_rounds.get(player, 0) + 1
            if self._clock is None and tally.quiet_shown:  # a replay's round ends here
                tag = f"[{event.table} r{event.round}]"
                hidden = [f"{tag} {h}" for h in tally.hidden_lines()]
                return [*([line] if line else []), *hidden]
        elif kind == "match_ended":
            tag = f"[{event.table} r{event.round}]"
            troubles = [f"{tag} {t}" for t in _troubles(event, tally)]
            return [*([line] if line else []), *troubles, *tally.gift_end(tag)]
        elif earlier:  # after the match's line: the board shows its first line
            return [*([line] if line else []), *earlier]
        return [line] if line is not None else []

    def count_gift(self, event: Event) -> tuple[_MatchTally, str, int] | None:
        """Count an ended gift's units for its table's summary: its tally, the key it is
        counted under (empty when applied) and its units; None for a queued gift (not
        counted)."""
        status = event.data.get("status")
        if status == "queued":
            return None
        tally = self._tallies.get(event.table)
        if tally is None:
            tally = self._tallies[event.table] = _MatchTally()
        units = _units(event.data)
        if status == "applied":
            tally.gifts_applied += units
            return tally, "", units
        key = _quiet_key(event.data)
        quiet = tally.gifts_quiet
        if key not in quiet and len(quiet) >= _GIFT_REASON_KEYS:
            key = f"{status} other"
        quiet[key] = quiet.get(key, 0) + units
        return tally, key, units

    def _gift_lines(self, event: Event) -> list[str]:
        """An applied gift's banner; a rejected or expired one's line at most every
        :data:`QUIET_EVERY_S` per reason (only the first without a clock), saying how
        many like it were not shown since the last; a queued one none. Those not shown
        are told at the match's end (a replay's: at each round's), or at the close."""
        counted = self.count_gift(event)
        if counted is None:
            return []
        tally, key, units = counted
        held = 0
        if key:
            now = self._clock() if self._clock is not None else 0.0
            shown_at, held = tally.quiet_shown.get(key, (-math.inf, 0))
            if shown_at > -math.inf and (self._clock is None or now - shown_at < QUIET_EVERY_S):
                tally.quiet_shown[key] = (shown_at, held + units)
                return []
            tally.quiet_shown[key] = (now, 0)
        text = gift_text(event, held, since=True)
        return [f"[{event.table} r{event.round}] {text.plain}"] if text is not None else []

    def closing_lines(self) -> list[str]:
        """After every table's match: each model seat's figures summed over the tables,
        when more than one table had it (the figure a stream shows), by seat name; then
        per table the gifts that ended after its match (those not shown, and a count).
        ``arena replay`` may call it after each round's lines for the refusals its lines
        did not show."""
        totals: dict[str, ModelTally] = {}
        tables: dict[str, int] = {}
        for name in sorted(self._tallies, key=_table_order):
            for player, figures in self._tallies[name].models.items():
                totals.setdefault(player, ModelTally()).absorb(figures)
                tables[player] = tables.get(player, 0) + 1
        lines = [
            f"[{tables[player]} tables] {totals[player].summary(player)}"
            for player in totals
            if tables[player] > 1
        ]
        for name in sorted(self._tallies, key=_table_order):  # gifts ended after the match
            lines.extend(self._tallies[name].gift_end(f"[{name}]"))
        return lines

    def _timing(self, tally: _MatchTally, seat: int) -> str:
        """What an action's line adds: its decision's figures, or a slow turn's seconds."""
        started = tally.turn_started.pop(seat, None)
        decided = tally.decided.pop(seat, None)
        if decided is not None:
            return decision_suffix(decided)
        if started is not None and self._clock is not None:
            took = self._clock() - started
            if took >= SLOW_TURN_S:
                return f"  [{seconds(took)}]"
        return ""


def _table_order(table: str) -> tuple[int, str]:
    """A table's place when tables are listed: t2 before t10, by their number."""
    digits = "".join(ch for ch in table if ch.isdigit())
    return (int(digits) if digits else 0, table)


def _troubles(event: Event, tally: _MatchTally) -> list[str]:
    """``Beta: 14 faults (10 agent_error, 4 fallback); a heuristic stand-in played 2 of 2
    rounds``, for each player with faults or a stand-in, in seat order."""
    faults: Mapping[str, Mapping[str, int]] = event.data.get("faults", {})
    rounds = event.data.get("rounds", 0)
    lines = []
    for player in event.data.get("players", faults):
        counts = {kind: n for kind, n in faults.get(player, {}).items() if n}
        standins = tally.standin_rounds.get(player, 0)
        parts = []
        if counts:
            total = sum(counts.values())
            each = ", ".join(f"{n} {kind}" for kind, n in counts.items())
            parts.append(f"{total} fault{'s' if total != 1 else ''} ({each})")
        if standins:
            kind = tally.standin_type.get(player)
            parts.append(
                f"{f'a {kind}' if kind else 'a'} stand-in played {standins} of {rounds} "
                f"round{'s' if rounds != 1 else ''} for it"
            )
        if parts:
            lines.append(f"{player}: {'; '.join(parts)}")
    seated = list(event.data.get("players", ()))
    for player in sorted(tally.models, key=lambda p: seated.index(p) if p in seated else 3):
        lines.append(tally.models[player].summary(player))
    return lines


FAULT_HINT = "details in the log (stderr)"
"""Where ``arena play`` says a rejected reply's detail is (the warning log line)."""


PLAIN_ACTIONS_UP_TO: Final = 100
"""Tables at most whose every action plain lines print; beyond, each round's result (at
10,000 tables every action is about 80 lines a round each: 800,000 lines no one reads,
which cost the process as much as the tables' play)."""

_ACTION_KINDS: Final[frozenset[EventType]] = frozenset(
    {
        "match_started",  # the players are in the match's last line too
        "round_started",
        "redeal",
        "bid",
        "landlord_chosen",
        "double",
        "play",
        "pass",
        "trick_won",
        "turn_started",
    }
)
"""The events of a match's play: their only use in plain lines is a line each."""


class PlainConsoleSink:
    """Prints one line per event worth reading, and at a match's end who faulted.

    ``fault_hint`` is added to a match's first fault line, once: where its detail is.
    With ``actions`` false (many tables) the match's play is not printed: faults,
    stand-ins, gifts, each round's result and each match's end are. The kinds it does not
    print are :attr:`skipped_kinds`, which a :class:`~arena.sinks.queued.QueuedSink`
    does not even queue.
    """

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        fault_hint: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        actions: bool = True,
    ) -> None:
        self._stream = stream or sys.stdout
        self._notes = EventLines(fault_hint, clock=clock)
        self.skipped_kinds: frozenset[str] = frozenset() if actions else _ACTION_KINDS

    async def emit(self, event: Event) -> None:
        """Print the event's lines, if it has any."""
        if event.type in self.skipped_kinds:
            return
        for line in self._notes.lines(shown_event(event)):
            print(line, file=self._stream, flush=True)

    async def close(self) -> None:
        """After the last match: the model seats' totals over the tables, if any."""
        for line in self._notes.closing_lines():
            print(line, file=self._stream, flush=True)


@dataclass
class _SeatView:
    name: str
    role: str = ""
    cards: int = 17
    last: str = ""
    comment: str = ""
    emotion: str = ""
    total: int = 0
    model: ModelTally | None = None
    """A model seat's figures this match (from its ``decision`` events)."""
    standin: str = ""
    """The stand-in's type while one plays for the seat."""
    standin_for_match: bool = False


@dataclass
class _TableView:
    table: str
    round: int = 0
    rounds: int = 0
    seats: list[_SeatView] = field(default_factory=list)
    trick: str = ""
    bottom: str = ""
    call: str = ""
    log: list[str] = field(default_factory=list)
    to_act: int | None = None
    thinking_since: float | None = None
    """When the seat to act was asked (its ``turn_started``), until its action."""
    gifts_seen: bool = False
    """A gift came to this table: the board has a gift line (never before, so a stream
    without gifts keeps the board it had)."""
    gifts_waiting: int = 0
    """Gifts waiting in the table's queue, as the latest gift event said."""
    gifts_ended: dict[str, int] = field(default_factory=dict)
    """This match's gifts by status (``applied``, ``rejected``, ``expired``)."""
    banners: list[tuple[Event, int]] = field(default_factory=list)
    """The last :data:`GIFT_BANNERS` ended gifts, each with how many like it followed (a
    run of refusals for one reason is one banner); made into text only when drawn."""


_BID_LABELS = {
    (False, True): "叫地主",
    (False, False): "不叫",
    (True, True): "抢地主",
    (True, False): "不抢",
}
"""Grab bidding's words on the board, by (grabbing, bid)."""


class _Ticking:
    """``head`` and the seconds since ``since``, then ``tail``, worked out each time rich
    draws it.

    Rich's ``Live`` redraws 10 times a second from a thread of its own, so a seat's
    thinking time counts up with no event coming (a model may think for a minute). That
    thread reads only what this object holds, all fixed when it was made, and the clock.
    """

    def __init__(
        self,
        head: Text,
        since: float,
        clock: Callable[[], float],
        *,
        tail: Text | None = None,
        alone: Text | None = None,
    ) -> None:
        self._head = head
        self._tail = tail or Text()
        self._since = since
        self._clock = clock
        self._alone = alone
        """What to show while the turn is still short (None: head and tail)."""

    def text(self) -> Text:
        """The text as of now."""
        took = self._clock() - self._since
        if took < SLOW_TURN_S:
            shown = self._alone if self._alone is not None else self._head + self._tail
        else:
            shown = self._head.copy()
            shown.append(f" {seconds(took)}", style="bold yellow")
            shown += self._tail
        return _cut(shown)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.text()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.text())


_SHORTENED: Final = frozenset({"seat", "last", "model", "says"})
"""A board's columns that give way when a row is too wide (a long play, a stand-in's
note, a model's figures, a comment); role, cards left and total always show."""


def _cut(text: str | Text, style: str = "") -> Text:
    """A cell that is cut with an ellipsis, never wrapped, whatever its column says."""
    cell = Text(text, style=style) if isinstance(text, str) else text
    cell.no_wrap, cell.overflow = True, "ellipsis"
    return cell


_PANEL_LINES = 6
"""Lines of a table's board besides its log: two borders, three seats, the trick line."""


def _gift_height(view: _TableView) -> int:
    """Lines a table's board gives its gifts: none until one comes, then the queue's
    line and the banners."""
    return 1 + len(view.banners) if view.gifts_seen else 0


def _gift_board(view: _TableView, lines: int) -> list[Text]:
    """``gifts: 3 waiting · 12 applied · 40 rejected``, then the last banners: ``lines``
    lines in all."""
    head = Text("gifts: ", style="magenta")
    head.append(f"{view.gifts_waiting:,} waiting", style="bold" if view.gifts_waiting else "")
    for status in ("applied", "rejected", "expired"):
        if view.gifts_ended.get(status):
            head.append(f" · {view.gifts_ended[status]:,} {status}")
    texts = [_cut(head)]
    banners = view.banners[max(len(view.banners) - lines + 1, 0) :] if lines > 1 else []
    for event, repeats in banners:
        text = gift_text(event, repeats)
        if text is not None:
            texts.append(_cut(text))
    return texts


class LiveConsoleSink:
    """A live board per table, redrawn as events come (rich ``Live``).

    Every table is always accounted for: boards while they fit the terminal's height
    (their logs shortened if need be), otherwise a row per table, and a closing line
    counting the rows that do not fit. Below the final board, when the board is closed,
    each match's faults and stand-ins (what :class:`PlainConsoleSink` prints at its end).
    """

    REDRAW_S = 0.1
    """Rich shows a new frame 10 times a second: drawing more often is wasted work, which
    with 30 tables at full speed was most of the run."""

    def __init__(
        self,
        console: Console | None = None,
        *,
        log_lines: int = 6,
        clock: Callable[[], float] = time.monotonic,
        fault_hint: str | None = None,
    ) -> None:
        self._console = console or Console()
        self._notes = EventLines(fault_hint)  # the board shows a turn's time as it goes
        self._troubles: dict[str, list[str]] = {}
        self._tables: dict[str, _TableView] = {}
        self._log_lines = log_lines
        self._live: Live | None = None
        self._clock = clock
        self._drawn_at = 0.0
        self._pending: asyncio.TimerHandle | None = None

    async def emit(self, event: Event) -> None:
        """Update the board, and redraw it now, or at the latest a moment later."""
        event = shown_event(event)  # before the board cuts any text
        view = self._tables.get(event.table)
        if view is None:
            view = self._tables[event.table] = _TableView(event.table)
        if event.type == "gift":
            self._gift(view, event)
        else:
            lines = self._notes.lines(event)  # at a match's end: scores, then who faulted
            if event.type == "match_ended":
                self._troubles[event.table] = lines[1:]
            self._apply(view, event, lines[0] if lines else None)
        now = self._clock()
        if self._live is None:
            self._live = Live(
                self._render(), console=self._console, refresh_per_second=1 / self.REDRAW_S
            )
            self._live.start()
            self._drawn_at = now
        elif now - self._drawn_at >= self.REDRAW_S:
            self._redraw()
        elif self._pending is None:
            # Drawn a moment ago: draw this event a moment later, even if no other comes
            # (a model seat's turn_started may be the last event for a minute).
            wait = self.REDRAW_S - (now - self._drawn_at)
            self._pending = asyncio.get_running_loop().call_later(wait, self._redraw)

    def _redraw(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._live is not None:
            self._live.update(self._render())
            self._drawn_at = self._clock()

    async def close(self) -> None:
        """Leave the final board on screen, and below it each match's faults."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None
        troubles = [  # by table (t2 before t10), not in the order the tables finished
            line
            for table in sorted(self._troubles, key=_table_order)
            for line in self._troubles[table]
        ]
        troubles.extend(self._notes.closing_lines())
        if troubles and not self._console.is_terminal:
            self._console.line()  # rich ends a board on a terminal only with a newline
        for line in troubles:
            self._console.print(Text(line))  # wrapped, not cut: every word counts here
        self._troubles = {}

    def _gift(self, view: _TableView, event: Event) -> None:
        """A gift: the queue's length, and an ended gift's banner (counted for the
        match's end); a refusal like the banner before it only counts on that one."""
        d = event.data
        view.gifts_seen = True
        waiting = d.get("waiting")
        if isinstance(waiting, int):
            view.gifts_waiting = waiting
        status = d.get("status")
        if status == "queued":
            return
        counted = self._notes.count_gift(event)
        units = counted[2] if counted is not None else 1
        view.gifts_ended[str(status)] = view.gifts_ended.get(str(status), 0) + units
        banners = view.banners
        if status != "applied" and banners:
            last, repeats = banners[-1]
            if last.data.get("status") != "applied" and _quiet_key(last.data) == _quiet_key(d):
                banners[-1] = (event, repeats + _units(last.data))
                return
        banners.append((event, 0))
        if len(banners) > GIFT_BANNERS:
            del banners[0]

    def _apply(self, view: _TableView, event: Event, line: str | None) -> None:
        d: dict[str, Any] = dict(event.data)
        seat = event.seat
        kind = event.type
        if kind == "match_started":
            view.rounds = d["rounds"]
            view.gifts_ended, view.banners = {}, []
            for old in view.seats:  # a new match: its own model figures and stand-ins
                old.model, old.standin_for_match = None, False
        if kind in ("match_started", "round_started"):
            self._seat_players(view, d["players"])
            view.round, view.trick, view.bottom, view.call = event.round, "", "", ""
            view.to_act = view.thinking_since = None
        if line is not None and kind != "turn_started":
            view.log = [*view.log, line.split("] ", 1)[-1]][-self._log_lines :]
        if seat is None or not 0 <= seat < len(view.seats):
            if kind == "effect_applied" and d.get("effect") == "transfer":
                self._transfer(view, d.get("seats", ()))
            return
        target = view.seats[seat]
        if kind == "turn_started":
            view.to_act = seat
            view.thinking_since = self._clock()
            return
        if kind in _ACTIONS and view.to_act == seat:
            view.thinking_since = None
        if "comment" in d or kind in _ACTIONS:
            target.comment = d.get("comment", "")
            target.emotion = _EMOTION_FACES.get(d.get("emotion", ""), "")
        if kind in ("decision", "seat_replaced", "budget_spent"):
            self._model_seat(target, kind, d)
        elif kind == "bid":
            grabbing = d.get("grab")
            if grabbing is None:
                target.last = f"bid {d['bid']}" if d["bid"] else "no bid"
            else:
                target.last = _BID_LABELS[(grabbing, bool(d["bid"]))]
        elif kind == "landlord_chosen":
            for index, other in enumerate(view.seats):
                other.role = "地主" if index == seat else "农民"
                other.cards = 20 if index == seat else 17
            view.bottom = " ".join(d["bottom_cards"])
            view.call = f"{d['call_score']}"
        elif kind == "double":
            target.last = d["kind"] if d["double"] else f"no {d['kind']}"
        elif kind == "play":
            target.last = " ".join(d["cards"])
            target.cards = d["cards_left"]
            view.trick = f"{target.name}: {' '.join(d['cards'])}  ({d['hand_type']})"
        elif kind == "pass":
            target.last = "pass"
        elif kind == "trick_won":
            view.trick = ""
            for other in view.seats:
                other.last = ""
        elif kind == "round_result":
            view.to_act = view.thinking_since = None
            for other in view.seats:
                other.total += d["scores"].get(other.name, 0)

    @staticmethod
    def _transfer(view: _TableView, seats: list[int] | tuple[int, ...]) -> None:
        """A viewer's 加牌 moved a card from the first seat to the second: their counts
        (a play's event would set them right only at that seat's next play)."""
        if len(seats) == 2 and all(0 <= s < len(view.seats) for s in seats):
            view.seats[seats[0]].cards -= 1
            view.seats[seats[1]].cards += 1

    @staticmethod
    def _seat_players(view: _TableView, names: list[str]) -> None:
        """Seat a round's players, keeping what lasts a match: totals, model figures and
        a stand-in that plays until the match ends."""
        before = {s.name: s for s in view.seats}
        view.seats = []
        for name in names:
            seat = _SeatView(name)
            old = before.get(name)
            if old is not None:
                seat.total, seat.model = old.total, old.model
                if old.standin_for_match:
                    seat.standin, seat.standin_for_match = old.standin, True
            view.seats.append(seat)

    @staticmethod
    def _model_seat(target: _SeatView, kind: str, d: dict[str, Any]) -> None:
        """A model seat's figures, its stand-in, and the model a budget switched it to."""
        if kind == "decision":
            if target.model is None:
                target.model = ModelTally()
            target.model.add(d)
        elif kind == "seat_replaced":
            target.standin = str(d.get("by") or "stand-in")
            target.standin_for_match = d.get("until") == "match_end"
        elif target.model is not None and d.get("switched_to") not in (None, "", "standin"):
            target.model.model = str(d["switched_to"])

    def _render(self) -> RenderableType:
        """Boards if every table's fits with two log lines or more, else one row each."""
        views = list(self._tables.values())
        height = self._console.size.height - 1  # the cursor's line
        room = height // max(len(views), 1) - _PANEL_LINES
        if len(views) == 1 or min(self._log_lines, room) >= 2:
            return Group(*(self._board(view, room) for view in views))
        return self._rows(views, height)

    def _board(self, view: _TableView, room: int) -> Panel:
        """A table's board in its seats, trick line and ``room`` lines more: the gifts'
        lines (the queue's at least, banners as far as two log lines remain), the log."""
        grid = RichTable.grid(padding=(0, 2))
        models = any(seat.model is not None for seat in view.seats)
        columns = ["seat", "role", "cards", "last", "says", "total"]
        if models:  # a column only where a model plays: scripted boards stay as they were
            columns.insert(4, "model")
        for column in columns:
            # Rich shortens only columns that may wrap, widest first; the others it would
            # cut evenly, down to nothing. So the long ones may "wrap", and their cells
            # (texts that never wrap) are cut with an ellipsis instead.
            grid.add_column(column, no_wrap=column not in _SHORTENED, overflow="ellipsis")
        for index, seat in enumerate(view.seats):
            cells: list[RenderableType] = [
                self._seat_name(view, index),
                seat.role,
                str(seat.cards),
                _cut(seat.last),
                _cut(f"{seat.emotion} {seat.comment}".strip()),
                f"{seat.total:+d}",
            ]
            if models:
                cells.insert(4, _cut(seat.model.board_text() if seat.model else "", "cyan"))
            grid.add_row(*cells)
        header = Text(f"trick: {view.trick or '—'}    bottom: {view.bottom or '?'}")
        if view.call:
            header.append(f"    call: {view.call}")
        header.no_wrap, header.overflow = True, "ellipsis"
        gift_lines = min(_gift_height(view), max(room - 2, 1)) if view.gifts_seen else 0
        log_lines = max(min(self._log_lines, room - gift_lines), 0)
        shown = view.log[len(view.log) - log_lines :] if log_lines else []
        parts: list[RenderableType] = [grid, header]
        if gift_lines:
            parts.extend(_gift_board(view, gift_lines))
        if shown:
            parts.append(Text("\n".join(shown), style="dim", no_wrap=True, overflow="ellipsis"))
        return Panel(Group(*parts), title=f"斗地主 Arena · {view.table} · round {view.round}")

    def _rows(self, views: list[_TableView], height: int) -> RenderableType:
        """One row per table: round, each seat (▶ to act, 地 landlord, cards, total), and
        the table's last line, in as many rows as the height holds.

        A seat's column is headed by its player's name when every table seats the same
        three (as ``arena play`` does), not by a number: seats are counted from 0 in
        config keys, so a number would be read two ways. Otherwise each cell names its
        player.
        """
        fit = height - 2  # the title and the column heads
        hidden = views[fit - 1 :] if len(views) > fit else []
        shown = views[: len(views) - len(hidden)]
        seatings = {tuple(seat.name for seat in view.seats) for view in views if view.seats}
        shared = seatings.pop() if len(seatings) == 1 else None
        cells = [
            (
                Text(view.table),
                Text(f"{view.round}/{view.rounds}" if view.rounds else str(view.round)),
                *(
                    self._seat_cell(view, index, named=shared is None)
                    if index < len(view.seats)
                    else Text()
                    for index in range(3)
                ),
                Text(view.log[-1] if view.log else ""),
            )
            for view in shown
        ]
        heads = ("table", "round", *(shared or ("player",) * 3), "last")
        widths = [
            max([len(head), *(row[i].cell_len for row in cells)]) for i, head in enumerate(heads)
        ]
        widths[2:5] = [min(width, 17) for width in widths[2:5]]
        widths[5] = max(self._console.size.width - sum(widths[:5]) - 5, 8)  # 5 gaps
        rows = RichTable(
            title=f"斗地主 Arena · {len(views)} tables · ▶ to act, 地 landlord, cards, score",
            title_justify="left",
            box=None,
            padding=(0, 1, 0, 0),  # one space between columns: the 5 gaps above
            pad_edge=False,
        )
        for head, width in zip(heads, widths, strict=True):
            rows.add_column(head, width=width, no_wrap=True, overflow="ellipsis")
        for view, row in zip(shown, cells, strict=True):
            rows.add_row(*row[:5], self._last_cell(view, row[5]))
        if not hidden:
            return rows
        names = hidden[0].table if len(hidden) == 1 else f"{hidden[0].table}…{hidden[-1].table}"
        more = Text(
            f"{len(hidden)} more table{'s' if len(hidden) > 1 else ''} not shown ({names}); "
            "a taller window shows them",
            style="dim",
            no_wrap=True,
            overflow="ellipsis",
        )
        return Group(rows, more)

    def _seat_name(self, view: _TableView, index: int) -> RenderableType:
        """``▶ Beta 12 s (heuristic stand-in)``: the pointer at the seat to act, its
        thinking time counting up, and who plays for it."""
        seat = view.seats[index]
        thinking = view.to_act == index and view.thinking_since is not None
        name = Text("▶ " if view.to_act == index else "  ")
        name.append(seat.name, style="bold")
        standin = Text()
        if seat.standin:
            until = " for the match" if seat.standin_for_match else ""
            standin.append(f" ({seat.standin}{until})", style="yellow")
        if not thinking or view.thinking_since is None:
            return _cut(name + standin)
        return _Ticking(name, view.thinking_since, self._clock, tail=standin)

    def _last_cell(self, view: _TableView, last: Text) -> RenderableType:
        """A table's last line, or once a turn is slow, who is thinking and for how long;
        after ``🎁n`` when n gifts wait there."""
        if view.gifts_waiting:
            last = Text(f"🎁{view.gifts_waiting} ", style="magenta") + last
        if view.to_act is None or view.thinking_since is None or view.to_act >= len(view.seats):
            return last
        head = Text(f"{view.seats[view.to_act].name} is thinking")
        return _Ticking(head, view.thinking_since, self._clock, alone=last)

    @staticmethod
    def _seat_cell(view: _TableView, index: int, *, named: bool) -> Text:
        seat = view.seats[index]
        cell = Text("▶" if view.to_act == index else " ")
        if named:
            cell.append(seat.name[:8], style="bold")
        role = {"地主": "地 ", "农民": ""}.get(seat.role, "")
        cell.append(f"{' ' if named else ''}{role}{seat.cards} {seat.total:+d}")
        return cell
