"""Each public event as one plain line, and what a match's lines add up to.

Plain lines print these (``--no-live``, scripts, CI), the live board keeps them as its
log, and ``arena replay`` prints a recorded round's: one place says what an event reads
as. :class:`EventLines` adds a match's first fault hint, an action's time, and at the
match's end each player's faults and stand-ins (so that a broken agent is not mistaken
for a bad one) and each model seat's figures. How a game's own events read (a Dou
Dizhu bid, a play, a round's result) is the game's: :func:`console_of` the event's
game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from arena.events import Event
from arena.sinks.console_gifts import GiftTally, gift_text
from arena.sinks.game_console import console_of
from arena.sinks.model_figures import (
    ModelTally,
    budget_words,
    decision_suffix,
    replaced_words,
    seconds,
)

__all__ = [
    "EMOTION_FACES",
    "SLOW_TURN_S",
    "EventLines",
    "describe",
    "table_order",
    "voice",
]

EMOTION_FACES: Final = {
    "confident": "😎",
    "nervous": "😰",
    "excited": "🤩",
    "angry": "😠",
    "thinking": "🤔",
    "happy": "😄",
    "sad": "😢",
    "taunting": "😏",
}
"""An action's ``emotion`` as a face, in its line and beside its seat on the board."""

_FAULT_WORDS: Final = {
    "timeout": "no reply in time",
    "empty": "empty reply",
    "unparsable": "unreadable reply",
    "truncated": "reply too long",
    "illegal": "illegal reply",
    "agent_error": "agent failed",
}
"""What a rejected reply's category means, said on the board (the log has the detail)."""

SLOW_TURN_S: Final = 1.0
"""A turn this long or longer is worth its seconds: on the board while the seat thinks,
and at the end of its action's plain line (scripted seats answer in microseconds)."""


def voice(data: Mapping[str, Any]) -> str:
    """What an action's line ends with: its emotion's face and its comment,
    `` 😏  「来啊」``; nothing when it has neither."""
    say = f"  「{data['comment']}」" if data.get("comment") else ""
    face = f" {EMOTION_FACES.get(data.get('emotion', ''), '')}" if data.get("emotion") else ""
    return f"{face}{say}"


# ─── every game's lines ─────────────────────────────────────────────────────────────────


def describe(event: Event) -> str | None:
    """One human line for an event, or None for events not worth a line."""
    d = event.data
    tag = f"[{event.table} r{event.round}]"
    line = console_of(event.game).line(event, tag, voice(d))
    if line is not None:
        return line
    kind = event.type
    if kind == "match_started":
        return f"{tag} match: {' / '.join(d['players'])}, {d['rounds']} round(s)"
    if kind == "round_started":
        return f"{tag} ── round {event.round} ──"
    if kind == "fault":
        retries = d["retries_left"]
        left = "1 retry" if retries == 1 else f"{retries} retries"
        said = _FAULT_WORDS.get(d["category"], f"{d['category']} reply")
        return f"{tag} ✗ {event.player or ''}: {said} ({left} left)"
    if kind == "seat_replaced":
        return f"{tag} {event.player or ''} {replaced_words(d)}"
    if kind == "budget_spent":
        return f"{tag} {event.player or ''} {budget_words(d)}"
    if kind == "match_ended":
        totals = ", ".join(f"{s['player']} {s['score']:+d}" for s in d["standings"])
        return f"{tag} match over: {totals}"
    if kind == "gift":  # last: a gift is rarer than any event above, and never hot here
        text = gift_text(event)
        return None if text is None else f"{tag} {text.plain}"
    return None


@dataclass
class _MatchTally:
    """One table's match as far as its faults go: who a stand-in played for, in how
    many rounds and as what, and whether the fault hint was given yet; each model seat's
    figures, with the turn each seat is in (since when, and its decision); and its
    gifts."""

    standin_rounds: dict[str, int] = field(default_factory=dict)
    standin_type: dict[str, str] = field(default_factory=dict)
    hinted: bool = False
    models: dict[str, ModelTally] = field(default_factory=dict)
    turn_started: dict[int, float] = field(default_factory=dict)
    decided: dict[int, Mapping[str, Any]] = field(default_factory=dict)
    gifts: GiftTally = field(default_factory=GiftTally)


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
            earlier = old.gifts.end(f"[{event.table}]") if old is not None else None
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
        elif kind in console_of(event.game).actions and seat is not None and line is not None:
            line += self._timing(tally, seat)
        elif kind == "seat_replaced" and event.player:
            tally.standin_type[event.player] = str(event.data.get("by", ""))
        elif kind == "round_result":
            for player in event.data.get("standins", ()):
                tally.standin_rounds[player] = tally.standin_rounds.get(player, 0) + 1
            if self._clock is None and tally.gifts.quiet_shown:  # a replay's round ends here
                tag = f"[{event.table} r{event.round}]"
                hidden = [f"{tag} {h}" for h in tally.gifts.hidden_lines()]
                return [*([line] if line else []), *hidden]
        elif kind == "match_ended":
            tag = f"[{event.table} r{event.round}]"
            troubles = [f"{tag} {t}" for t in _troubles(event, tally)]
            return [*([line] if line else []), *troubles, *tally.gifts.end(tag)]
        elif earlier:  # after the match's line: the board shows its first line
            return [*([line] if line else []), *earlier]
        return [line] if line is not None else []

    def count_gift(self, event: Event) -> tuple[GiftTally, str, int] | None:
        """Count an ended gift's units for its table's summary: its tally, the key it is
        counted under (empty when applied) and its units; None for a queued gift (not
        counted)."""
        if event.data.get("status") == "queued":
            return None
        tally = self._tallies.get(event.table)
        if tally is None:
            tally = self._tallies[event.table] = _MatchTally()
        key, units = tally.gifts.count(event)
        return tally.gifts, key, units

    def _gift_lines(self, event: Event) -> list[str]:
        """An applied gift's banner; a rejected or expired one's line at most every
        :data:`~arena.sinks.console_gifts.QUIET_EVERY_S` per reason (only the first
        without a clock), saying how many like it were not shown since the last; a queued
        one none. Those not shown are told at the match's end (a replay's: at each
        round's), or at the close."""
        counted = self.count_gift(event)
        if counted is None:
            return []
        gifts, key, units = counted
        line = gifts.line(event, key, units, self._clock)
        return [line] if line is not None else []

    def closing_lines(self) -> list[str]:
        """After every table's match: each model seat's figures summed over the tables,
        when more than one table had it (the figure a stream shows), by seat name; then
        per table the gifts that ended after its match (those not shown, and a count).
        ``arena replay`` may call it after each round's lines for the refusals its lines
        did not show."""
        totals: dict[str, ModelTally] = {}
        tables: dict[str, int] = {}
        for name in sorted(self._tallies, key=table_order):
            for player, figures in self._tallies[name].models.items():
                totals.setdefault(player, ModelTally()).absorb(figures)
                tables[player] = tables.get(player, 0) + 1
        lines = [
            f"[{tables[player]} tables] {totals[player].summary(player)}"
            for player in totals
            if tables[player] > 1
        ]
        for name in sorted(self._tallies, key=table_order):  # gifts ended after the match
            lines.extend(self._tallies[name].gifts.end(f"[{name}]"))
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


def table_order(table: str) -> tuple[int, str]:
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
