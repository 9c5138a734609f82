"""Terminal views of the public events: a live board (rich) and plain lines.

The live board is what a streamer shows before the web overlay exists: per table the
three seats with role, cards left, last action, comment and mood, the current trick and
the running scores. When the tables' boards do not fit the terminal (four tables on 80×24
already do not), it shows one row per table instead, and says how many rows did not fit.
Plain lines are for scripts, CI and ``--no-live``.

Both end a match with what went wrong besides the scores: each player's faults by
category and the rounds a stand-in played for it, so that a broken agent is not
mistaken for a bad one.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Final

from rich.console import Console, Group, RenderableType
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


@dataclass
class _MatchTally:
    """One table's match as far as its faults go: who a stand-in played for, in how
    many rounds and as what, and whether the fault hint was given yet."""

    standin_rounds: dict[str, int] = field(default_factory=dict)
    standin_type: dict[str, str] = field(default_factory=dict)
    hinted: bool = False


class _Notes:
    """The lines a console shows for an event: :func:`describe`'s, the first fault of a
    match pointing to where its detail is, and after the final scores the faults and
    stand-ins of each player who had any (events carry them; this only adds up)."""

    def __init__(self, fault_hint: str | None) -> None:
        self._fault_hint = fault_hint
        self._tallies: dict[str, _MatchTally] = {}

    def lines(self, event: Event) -> list[str]:
        """The event's lines: none, its :func:`describe` line, or more at the match's end."""
        if event.type == "match_started":
            self._tallies[event.table] = _MatchTally()
        tally = self._tallies.setdefault(event.table, _MatchTally())
        line = describe(event)
        if event.type == "fault" and line is not None and self._fault_hint and not tally.hinted:
            tally.hinted = True
            line = f"{line} — {self._fault_hint}"
        elif event.type == "seat_replaced" and event.player:
            tally.standin_type[event.player] = str(event.data["by"])
        elif event.type == "round_result":
            for player in event.data.get("standins", ()):
                tally.standin_rounds[player] = tally.standin_rounds.get(player, 0) + 1
        elif event.type == "match_ended":
            tag = f"[{event.table} r{event.round}]"
            return [*([line] if line else []), *(f"{tag} {t}" for t in _troubles(event, tally))]
        return [line] if line is not None else []


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
    return lines


FAULT_HINT = "details in the log (stderr)"
"""Where ``arena play`` says a rejected reply's detail is (the warning log line)."""


class PlainConsoleSink:
    """Prints one line per event worth reading, and at a match's end who faulted.

    ``fault_hint`` is added to a match's first fault line, once: where its detail is.
    """

    def __init__(self, stream: IO[str] | None = None, *, fault_hint: str | None = None) -> None:
        self._stream = stream or sys.stdout
        self._notes = _Notes(fault_hint)

    async def emit(self, event: Event) -> None:
        """Print the event's lines, if it has any."""
        for line in self._notes.lines(event):
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
    rounds: int = 0
    seats: list[_SeatView] = field(default_factory=list)
    trick: str = ""
    bottom: str = ""
    call: str = ""
    log: list[str] = field(default_factory=list)
    to_act: int | None = None


_BID_LABELS = {
    (False, True): "叫地主",
    (False, False): "不叫",
    (True, True): "抢地主",
    (True, False): "不抢",
}
"""Grab bidding's words on the board, by (grabbing, bid)."""

_PANEL_LINES = 6
"""Lines of a table's board besides its log: two borders, three seats, the trick line."""


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
        self._notes = _Notes(fault_hint)
        self._troubles: dict[str, list[str]] = {}
        self._tables: dict[str, _TableView] = {}
        self._log_lines = log_lines
        self._live: Live | None = None
        self._clock = clock
        self._drawn_at = 0.0

    async def emit(self, event: Event) -> None:
        """Update the board, and redraw it unless it was drawn a moment ago."""
        view = self._tables.get(event.table)
        if view is None:
            view = self._tables[event.table] = _TableView(event.table)
        lines = self._notes.lines(event)  # at a match's end: the scores, then who faulted
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
            self._live.update(self._render())
            self._drawn_at = now

    async def close(self) -> None:
        """Leave the final board on screen, and below it each match's faults."""
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None
        troubles = [line for lines in self._troubles.values() for line in lines]
        if troubles and not self._console.is_terminal:
            self._console.line()  # rich ends a board on a terminal only with a newline
        for line in troubles:
            self._console.print(Text(line))  # wrapped, not cut: every word counts here
        self._troubles = {}

    def _apply(self, view: _TableView, event: Event, line: str | None) -> None:
        d: dict[str, Any] = dict(event.data)
        seat = event.seat
        if event.type == "match_started":
            view.rounds = d["rounds"]
        if event.type in ("match_started", "round_started"):
            names = d["players"]
            totals = {s.name: s.total for s in view.seats}
            view.seats = [_SeatView(n, total=totals.get(n, 0)) for n in names]
            view.round, view.trick, view.bottom, view.call = event.round, "", "", ""
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
            grabbing = d.get("grab")
            if grabbing is None:
                target.last = f"bid {d['bid']}" if d["bid"] else "no bid"
            else:
                target.last = _BID_LABELS[(grabbing, bool(d["bid"]))]
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
            view.to_act = None
            for other in view.seats:
                other.total += d["scores"].get(other.name, 0)

    def _render(self) -> RenderableType:
        """Boards if every table's fits with two log lines or more, else one row each."""
        views = list(self._tables.values())
        height = self._console.size.height - 1  # the cursor's line
        log_lines = min(self._log_lines, height // max(len(views), 1) - _PANEL_LINES)
        if len(views) == 1 or log_lines >= 2:
            return Group(*(self._board(view, max(log_lines, 0)) for view in views))
        return self._rows(views, height)

    def _board(self, view: _TableView, log_lines: int) -> Panel:
        grid = RichTable.grid(padding=(0, 2))
        for column in ("seat", "role", "cards", "last", "says", "total"):
            grid.add_column(column, no_wrap=True, overflow="ellipsis")
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
        header.no_wrap, header.overflow = True, "ellipsis"
        shown = view.log[len(view.log) - log_lines :] if log_lines else []
        log = Text("\n".join(shown), style="dim", no_wrap=True, overflow="ellipsis")
        return Panel(
            Group(grid, header, log) if shown else Group(grid, header),
            title=f"斗地主 Arena · {view.table} · round {view.round}",
        )

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
        for row in cells:
            rows.add_row(*row)
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

    @staticmethod
    def _seat_cell(view: _TableView, index: int, *, named: bool) -> Text:
        seat = view.seats[index]
        cell = Text("▶" if view.to_act == index else " ")
        if named:
            cell.append(seat.name[:8], style="bold")
        role = {"地主": "地 ", "农民": ""}.get(seat.role, "")
        cell.append(f"{' ' if named else ''}{role}{seat.cards} {seat.total:+d}")
        return cell
