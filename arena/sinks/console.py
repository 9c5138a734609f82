"""Terminal views of the public events: a live board (rich) and plain lines.

The live board is what a streamer shows before the web overlay exists: per table the
three seats with role, cards left, last action, comment and mood, the current trick and
the running scores. Plain lines are for scripts, CI and ``--no-live``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import IO, Any

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from arena.table.events import Event

__all__ = ["LiveConsoleSink", "PlainConsoleSink", "describe"]

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
        if d.get("mode") == "grab":
            words = "calls/grabs" if d["bid"] else "does not call/grab"
            return f"{tag} {who} {words}{face}{say}"
        return f"{tag} {who} {'bids ' + str(d['bid']) if d['bid'] else 'passes the bid'}{face}{say}"
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
        return f"{tag} ✗ {who}: {d['category']} reply ({d['retries_left']} retries left)"
    if kind == "seat_replaced":
        return f"{tag} {who} is replaced by a {d['by']} stand-in: {d['reason']}"
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
    return None


class PlainConsoleSink:
    """Prints one line per event worth reading."""

    def __init__(self, stream: IO[str] | None = None) -> None:
        self._stream = stream or sys.stdout

    async def emit(self, event: Event) -> None:
        """Print the event's line, if it has one."""
        line = describe(event)
        if line is not None:
            print(line, file=self._stream, flush=True)

    async def close(self) -> None:
        """Nothing to release."""


@dataclass
class _SeatView:
    name: str
    role: str = ""
    cards: int = 17
    last: str = ""
    comment: str = ""
    emotion: str = ""
    total: int = 0


@dataclass
class _TableView:
    table: str
    round: int = 0
    seats: list[_SeatView] = field(default_factory=list)
    trick: str = ""
    bottom: str = ""
    call: str = ""
    log: list[str] = field(default_factory=list)
    to_act: int | None = None


class LiveConsoleSink:
    """A live board per table, redrawn on every event (rich ``Live``)."""

    def __init__(self, console: Console | None = None, *, log_lines: int = 6) -> None:
        self._console = console or Console()
        self._tables: dict[str, _TableView] = {}
        self._log_lines = log_lines
        self._live: Live | None = None

    async def emit(self, event: Event) -> None:
        """Update the board and redraw it."""
        view = self._tables.get(event.table)
        if view is None:
            view = self._tables[event.table] = _TableView(event.table)
        self._apply(view, event)
        if self._live is None:
            self._live = Live(self._render(), console=self._console, refresh_per_second=10)
            self._live.start()
        else:
            self._live.update(self._render())

    async def close(self) -> None:
        """Leave the final board on screen."""
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None

    def _apply(self, view: _TableView, event: Event) -> None:
        d: dict[str, Any] = dict(event.data)
        seat = event.seat
        if event.type in ("match_started", "round_started"):
            names = d["players"]
            totals = {s.name: s.total for s in view.seats}
            view.seats = [_SeatView(n, total=totals.get(n, 0)) for n in names]
            view.round, view.trick, view.bottom, view.call = event.round, "", "", ""
        line = describe(event)
        if line is not None and event.type != "turn_started":
            view.log = [*view.log, line.split("] ", 1)[-1]][-self._log_lines :]
        if seat is None or not view.seats:
            return
        target = view.seats[seat]
        if event.type == "turn_started":
            view.to_act = seat
            return
        if "comment" in d or event.type in ("play", "pass", "bid", "double"):
            target.comment = d.get("comment", "")
            target.emotion = _EMOTION_FACES.get(d.get("emotion", ""), "")
        if event.type == "bid":
            target.last = f"bid {d['bid']}" if d["bid"] else "no bid"
        elif event.type == "landlord_chosen":
            for index, other in enumerate(view.seats):
                other.role = "地主" if index == seat else "农民"
                other.cards = 20 if index == seat else 17
            view.bottom = " ".join(d["bottom_cards"])
            view.call = f"{d['call_score']}"
        elif event.type == "double":
            target.last = d["kind"] if d["double"] else f"no {d['kind']}"
        elif event.type == "play":
            target.last = " ".join(d["cards"])
            target.cards = d["cards_left"]
            view.trick = f"{target.name}: {' '.join(d['cards'])}  ({d['hand_type']})"
        elif event.type == "pass":
            target.last = "pass"
        elif event.type == "trick_won":
            view.trick = ""
            for other in view.seats:
                other.last = ""
        elif event.type == "round_result":
            for other in view.seats:
                other.total += d["scores"].get(other.name, 0)

    def _render(self) -> Group:
        panels = []
        for view in self._tables.values():
            grid = RichTable.grid(padding=(0, 2))
            for column in ("seat", "role", "cards", "last", "says", "total"):
                grid.add_column(column, no_wrap=column != "says")
            for index, seat in enumerate(view.seats):
                pointer = "▶ " if view.to_act == index else "  "
                grid.add_row(
                    Text(pointer + seat.name, style="bold"),
                    seat.role,
                    str(seat.cards),
                    seat.last,
                    f"{seat.emotion} {seat.comment}".strip(),
                    f"{seat.total:+d}",
                )
            header = Text(f"trick: {view.trick or '—'}    bottom: {view.bottom or '?'}")
            if view.call:
                header.append(f"    call: {view.call}")
            log = Text("\n".join(view.log), style="dim")
            panels.append(
                Panel(
                    Group(grid, header, log),
                    title=f"斗地主 Arena · {view.table} · round {view.round}",
                )
            )
        return Group(*panels)
