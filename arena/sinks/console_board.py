"""The live board: each table's picture as its events leave it, drawn with rich.

Per table the seats with their last action, comment and mood, a model seat's figures,
a stand-in, the seat to act with its thinking time counting up (drawn by rich's own
redraw thread, with no event), the game's own state, gifts and the running scores; one
row per table instead when the boards do not fit the terminal, saying how many rows did
not fit. This module keeps and draws that picture; :mod:`arena.sinks.console` feeds it
and decides when to draw. What is Dou Dizhu's (roles, cards left, the trick, the bottom
cards and call, a bid's words, the title) is kept apart in the ``_Ddz`` classes and
``_ddz_`` functions.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from arena.events import Event
from arena.sinks.console_gifts import BoardGifts
from arena.sinks.console_lines import DDZ_ACTIONS, EMOTION_FACES, SLOW_TURN_S
from arena.sinks.model_figures import ModelTally, seconds

__all__ = ["LiveBoard"]


# ─── cells ──────────────────────────────────────────────────────────────────────────────


def _cut(text: str | Text, style: str = "") -> Text:
    """A cell that is cut with an ellipsis, never wrapped, whatever its column says."""
    cell = Text(text, style=style) if isinstance(text, str) else text
    cell.no_wrap, cell.overflow = True, "ellipsis"
    return cell


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


# ─── Dou Dizhu's panel ──────────────────────────────────────────────────────────────────

_DDZ_SEATS: Final = 3
"""Seats at a Dou Dizhu table: a board's seat lines, a row's seat columns."""

_DDZ_TITLE: Final = "斗地主 Arena"
"""The title of a table's board and of the rows."""

_DDZ_LEGEND: Final = "▶ to act, 地 landlord, cards, score"
"""What a row's seat cell says, in the rows' title."""

_DDZ_COLUMNS: Final = ("role", "cards")
"""A board's columns after the seat's name: 地主 or 农民, and cards left."""

_BID_LABELS = {
    (False, True): "叫地主",
    (False, False): "不叫",
    (True, True): "抢地主",
    (True, False): "不抢",
}
"""Grab bidding's words on the board, by (grabbing, bid)."""


@dataclass
class _DdzSeat:
    """A seat's Dou Dizhu state on the board: its role once the landlord is chosen,
    and its cards left."""

    role: str = ""
    cards: int = 17


@dataclass
class _DdzTable:
    """A table's Dou Dizhu state on the board, for the round: the trick's last play,
    the bottom cards and the landlord's call."""

    trick: str = ""
    bottom: str = ""
    call: str = ""


def _ddz_apply(view: _TableView, seat: int, kind: str, d: Mapping[str, Any]) -> None:
    """A Dou Dizhu event of the seat numbered ``seat``: a bid, the landlord, a double, a
    play, a pass, a trick won, a round's result (and its scores)."""
    target = view.seats[seat]
    if kind == "bid":
        grabbing = d.get("grab")
        if grabbing is None:
            target.last = f"bid {d['bid']}" if d["bid"] else "no bid"
        else:
            target.last = _BID_LABELS[(grabbing, bool(d["bid"]))]
    elif kind == "landlord_chosen":
        for index, other in enumerate(view.seats):
            other.game.role = "地主" if index == seat else "农民"
            other.game.cards = 20 if index == seat else 17
        view.game.bottom = " ".join(d["bottom_cards"])
        view.game.call = f"{d['call_score']}"
    elif kind == "double":
        target.last = d["kind"] if d["double"] else f"no {d['kind']}"
    elif kind == "play":
        target.last = " ".join(d["cards"])
        target.game.cards = d["cards_left"]
        view.game.trick = f"{target.name}: {' '.join(d['cards'])}  ({d['hand_type']})"
    elif kind == "pass":
        target.last = "pass"
    elif kind == "trick_won":
        view.game.trick = ""
        for other in view.seats:
            other.last = ""
    elif kind == "round_result":
        view.to_act = view.thinking_since = None
        for other in view.seats:
            other.total += d["scores"].get(other.name, 0)


def _ddz_seatless(view: _TableView, kind: str, d: Mapping[str, Any]) -> None:
    """A Dou Dizhu event of no seat: a viewer's 加牌 moved a card from the first seat
    to the second, so their counts change (a play's event would set them right only at
    that seat's next play)."""
    if kind == "effect_applied" and d.get("effect") == "transfer":
        seats = d.get("seats", ())
        if len(seats) == 2 and all(0 <= s < len(view.seats) for s in seats):
            view.seats[seats[0]].game.cards -= 1
            view.seats[seats[1]].game.cards += 1


def _ddz_cells(seat: _SeatView) -> list[RenderableType]:
    """A seat's cells in :data:`_DDZ_COLUMNS`."""
    return [seat.game.role, str(seat.game.cards)]


def _ddz_header(view: _TableView) -> Text:
    """The line under the seats: ``trick: Ann: ♠3  (SINGLE)    bottom: ...    call: 3``."""
    game = view.game
    header = Text(f"trick: {game.trick or '—'}    bottom: {game.bottom or '?'}")
    if game.call:
        header.append(f"    call: {game.call}")
    return header


def _ddz_row_cell(seat: _SeatView) -> str:
    """A row's seat cell after the name: ``地 `` for the landlord, then cards left."""
    role = {"地主": "地 ", "农民": ""}.get(seat.game.role, "")
    return f"{role}{seat.game.cards}"


# ─── a table's picture ──────────────────────────────────────────────────────────────────


@dataclass
class _SeatView:
    """A seat as its table's board shows it."""

    name: str
    last: str = ""
    comment: str = ""
    emotion: str = ""
    total: int = 0
    model: ModelTally | None = None
    """A model seat's figures this match (from its ``decision`` events)."""
    standin: str = ""
    """The stand-in's type while one plays for the seat."""
    standin_for_match: bool = False
    game: _DdzSeat = field(default_factory=_DdzSeat)


@dataclass
class _TableView:
    """A table as its board shows it."""

    table: str
    round: int = 0
    rounds: int = 0
    seats: list[_SeatView] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    to_act: int | None = None
    thinking_since: float | None = None
    """When the seat to act was asked (its ``turn_started``), until its action."""
    gifts: BoardGifts = field(default_factory=BoardGifts)
    game: _DdzTable = field(default_factory=_DdzTable)


_SHORTENED: Final = frozenset({"seat", "last", "model", "says"})
"""A board's columns that give way when a row is too wide (a long play, a stand-in's
note, a model's figures, a comment); the game's columns and total always show."""

_PANEL_LINES = 2 + _DDZ_SEATS + 1
"""Lines of a table's board besides its log: two borders, the seats, the trick line."""


class LiveBoard:
    """Every table's picture, as the events so far leave it, drawn on demand.

    Every table is always accounted for: boards while they fit the terminal's height
    (their logs shortened if need be), otherwise a row per table, and a closing line
    counting the rows that do not fit.
    """

    def __init__(self, *, log_lines: int, clock: Callable[[], float]) -> None:
        self._tables: dict[str, _TableView] = {}
        self._log_lines = log_lines
        self._clock = clock

    def _view(self, table: str) -> _TableView:
        view = self._tables.get(table)
        if view is None:
            view = self._tables[table] = _TableView(table)
        return view

    def gift(self, event: Event) -> None:
        """A gift: the queue's length, and an ended gift's banner."""
        self._view(event.table).gifts.add(event)

    def apply(self, event: Event, line: str | None) -> None:
        """Any other event, and its first line (for the table's log)."""
        view = self._view(event.table)
        d: dict[str, Any] = dict(event.data)
        seat = event.seat
        kind = event.type
        if kind == "match_started":
            view.rounds = d["rounds"]
            view.gifts.new_match()
            for old in view.seats:  # a new match: its own model figures and stand-ins
                old.model, old.standin_for_match = None, False
        if kind in ("match_started", "round_started"):
            self._seat_players(view, d["players"])
            view.round, view.game = event.round, _DdzTable()
            view.to_act = view.thinking_since = None
        if line is not None and kind != "turn_started":
            view.log = [*view.log, line.split("] ", 1)[-1]][-self._log_lines :]
        if seat is None or not 0 <= seat < len(view.seats):
            _ddz_seatless(view, kind, d)
            return
        target = view.seats[seat]
        if kind == "turn_started":
            view.to_act = seat
            view.thinking_since = self._clock()
            return
        if kind in DDZ_ACTIONS and view.to_act == seat:
            view.thinking_since = None
        if "comment" in d or kind in DDZ_ACTIONS:
            target.comment = d.get("comment", "")
            target.emotion = EMOTION_FACES.get(d.get("emotion", ""), "")
        if kind in ("decision", "seat_replaced", "budget_spent"):
            self._model_seat(target, kind, d)
        else:
            _ddz_apply(view, seat, kind, d)

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

    def render(self, console: Console) -> RenderableType:
        """Boards if every table's fits with two log lines or more, else one row each."""
        views = list(self._tables.values())
        height = console.size.height - 1  # the cursor's line
        room = height // max(len(views), 1) - _PANEL_LINES
        if len(views) == 1 or min(self._log_lines, room) >= 2:
            return Group(*(self._board(view, room) for view in views))
        return self._rows(views, height, console.size.width)

    def _board(self, view: _TableView, room: int) -> Panel:
        """A table's board in its seats, trick line and ``room`` lines more: the gifts'
        lines (the queue's at least, banners as far as two log lines remain), the log."""
        grid = RichTable.grid(padding=(0, 2))
        models = any(seat.model is not None for seat in view.seats)
        # a model column only where a model plays: scripted boards stay as they were
        columns = ["seat", *_DDZ_COLUMNS, "last", *(["model"] if models else []), "says", "total"]
        for column in columns:
            # Rich shortens only columns that may wrap, widest first; the others it would
            # cut evenly, down to nothing. So the long ones may "wrap", and their cells
            # (texts that never wrap) are cut with an ellipsis instead.
            grid.add_column(column, no_wrap=column not in _SHORTENED, overflow="ellipsis")
        for index, seat in enumerate(view.seats):
            model = [_cut(seat.model.board_text() if seat.model else "", "cyan")] if models else []
            grid.add_row(
                self._seat_name(view, index),
                *_ddz_cells(seat),
                _cut(seat.last),
                *model,
                _cut(f"{seat.emotion} {seat.comment}".strip()),
                f"{seat.total:+d}",
            )
        header = _ddz_header(view)
        header.no_wrap, header.overflow = True, "ellipsis"
        gifts = view.gifts
        gift_lines = min(gifts.height(), max(room - 2, 1)) if gifts.seen else 0
        log_lines = max(min(self._log_lines, room - gift_lines), 0)
        shown = view.log[len(view.log) - log_lines :] if log_lines else []
        parts: list[RenderableType] = [grid, header]
        if gift_lines:
            parts.extend(_cut(text) for text in gifts.texts(gift_lines))
        if shown:
            parts.append(Text("\n".join(shown), style="dim", no_wrap=True, overflow="ellipsis"))
        return Panel(Group(*parts), title=f"{_DDZ_TITLE} · {view.table} · round {view.round}")

    def _rows(self, views: list[_TableView], height: int, screen_width: int) -> RenderableType:
        """One row per table: round, each seat (▶ to act, the game's words, total), and
        the table's last line, in as many rows as the height holds.

        A seat's column is headed by its player's name when every table seats the same
        players (as ``arena play`` does), not by a number: seats are counted from 0 in
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
                    for index in range(_DDZ_SEATS)
                ),
                Text(view.log[-1] if view.log else ""),
            )
            for view in shown
        ]
        heads = ("table", "round", *(shared or ("player",) * _DDZ_SEATS), "last")
        widths = [
            max([len(head), *(row[i].cell_len for row in cells)]) for i, head in enumerate(heads)
        ]
        last = 2 + _DDZ_SEATS  # the last line's column, after the table's, round's and seats'
        widths[2:last] = [min(width, 17) for width in widths[2:last]]
        widths[last] = max(screen_width - sum(widths[:last]) - last, 8)  # a gap between each two
        rows = RichTable(
            title=f"{_DDZ_TITLE} · {len(views)} tables · {_DDZ_LEGEND}",
            title_justify="left",
            box=None,
            padding=(0, 1, 0, 0),  # one space between columns: the gaps above
            pad_edge=False,
        )
        for head, width in zip(heads, widths, strict=True):
            rows.add_column(head, width=width, no_wrap=True, overflow="ellipsis")
        for view, row in zip(shown, cells, strict=True):
            rows.add_row(*row[:last], self._last_cell(view, row[last]))
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
        if view.gifts.waiting:
            last = Text(f"🎁{view.gifts.waiting} ", style="magenta") + last
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
        cell.append(f"{' ' if named else ''}{_ddz_row_cell(seat)} {seat.total:+d}")
        return cell
