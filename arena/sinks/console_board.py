"""The live board: each table's picture as its events leave it, drawn with rich.

Per table the seats with their last action, comment and mood, a model seat's figures,
a stand-in, the seat to act with its thinking time counting up (drawn by rich's own
redraw thread, with no event), the game's own state, gifts and the running scores; one
row per table instead when the boards do not fit the terminal, saying how many rows did
not fit. This module keeps and draws that picture; :mod:`arena.sinks.console` feeds it
and decides when to draw. What is the game's (Dou Dizhu: roles, cards left, the trick,
the bottom cards and call, a bid's words, the title) is its panel:
:func:`~arena.sinks.game_console.console_of` the events' game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.panel import Panel
from rich.table import Table as RichTable
from rich.text import Text

from arena.events import Event
from arena.games.registry import DEFAULT_GAME
from arena.sinks.console_gifts import BoardGifts
from arena.sinks.console_lines import EMOTION_FACES, SLOW_TURN_S
from arena.sinks.game_console import GameConsole, console_of
from arena.sinks.model_figures import ModelTally, seconds

__all__ = ["LiveBoard", "SeatView", "TableView"]


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


# ─── a table's picture ──────────────────────────────────────────────────────────────────


@dataclass
class SeatView:
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
    game: Any = None
    """The seat's state in the game's panel (its ``new_seat``)."""


@dataclass
class TableView:
    """A table as its board shows it."""

    table: str
    round: int = 0
    rounds: int = 0
    seats: list[SeatView] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    to_act: int | None = None
    thinking_since: float | None = None
    """When the seat to act was asked (its ``turn_started``), until its action."""
    gifts: BoardGifts = field(default_factory=BoardGifts)
    panel: GameConsole = field(default_factory=lambda: console_of(DEFAULT_GAME))
    """The game's panel: its columns, header and what its events change."""
    game: Any = None
    """The table's state in the game's panel (its ``new_table``), for the round."""


_SHORTENED: Final = frozenset({"seat", "last", "model", "says"})
"""A board's columns that give way when a row is too wide (a long play, a stand-in's
note, a model's figures, a comment); the game's columns and total always show."""


def _panel_lines(view: TableView) -> int:
    """Lines of a table's board besides its log: two borders, the seats, the game's
    lines (one, or a few: Tractor's levels and trump, then its trick)."""
    return 2 + len(view.seats) + view.panel.header(view).plain.count("\n") + 1


class LiveBoard:
    """Every table's picture, as the events so far leave it, drawn on demand.

    Every table is always accounted for: boards while they fit the terminal's height
    (their logs shortened if need be), otherwise a row per table, and a closing line
    counting the rows that do not fit.
    """

    def __init__(self, *, log_lines: int, clock: Callable[[], float]) -> None:
        self._tables: dict[str, TableView] = {}
        self._log_lines = log_lines
        self._clock = clock

    def _view(self, event: Event) -> TableView:
        view = self._tables.get(event.table)
        if view is None:
            panel = console_of(event.game)
            view = self._tables[event.table] = TableView(event.table, panel=panel)
            view.game = panel.new_table()
        return view

    def gift(self, event: Event) -> None:
        """A gift: the queue's length, and an ended gift's banner."""
        self._view(event).gifts.add(event)

    def apply(self, event: Event, line: str | None) -> None:
        """Any other event, and its first line (for the table's log)."""
        view = self._view(event)
        panel = view.panel
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
            view.round, view.game = event.round, panel.new_table()
            view.to_act = view.thinking_since = None
        if line is not None and kind != "turn_started":
            view.log = [*view.log, line.split("] ", 1)[-1]][-self._log_lines :]
        if seat is None or not 0 <= seat < len(view.seats):
            panel.seatless(view, kind, d)
            return
        target = view.seats[seat]
        if kind == "turn_started":
            view.to_act = seat
            view.thinking_since = self._clock()
            return
        if kind in panel.actions and view.to_act == seat:
            view.thinking_since = None
        if "comment" in d or kind in panel.actions:
            target.comment = d.get("comment", "")
            target.emotion = EMOTION_FACES.get(d.get("emotion", ""), "")
        if kind in ("decision", "seat_replaced", "budget_spent"):
            self._model_seat(target, kind, d)
        else:
            panel.apply(view, seat, kind, d)

    @staticmethod
    def _seat_players(view: TableView, names: list[str]) -> None:
        """Seat a round's players, keeping what lasts a match: totals, model figures and
        a stand-in that plays until the match ends."""
        before = {s.name: s for s in view.seats}
        view.seats = []
        for name in names:
            seat = SeatView(name, game=view.panel.new_seat())
            old = before.get(name)
            if old is not None:
                seat.total, seat.model = old.total, old.model
                if old.standin_for_match:
                    seat.standin, seat.standin_for_match = old.standin, True
            view.seats.append(seat)

    @staticmethod
    def _model_seat(target: SeatView, kind: str, d: dict[str, Any]) -> None:
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
        room = height // max(len(views), 1) - max(map(_panel_lines, views), default=3)
        if len(views) == 1 or min(self._log_lines, room) >= 2:
            return Group(*(self._board(view, room) for view in views))
        return self._rows(views, height, console.size.width)

    def _board(self, view: TableView, room: int) -> Panel:
        """A table's board in its seats, trick line and ``room`` lines more: the gifts'
        lines (the queue's at least, banners as far as two log lines remain), the log."""
        grid = RichTable.grid(padding=(0, 2))
        models = any(seat.model is not None for seat in view.seats)
        # a model column only where a model plays: scripted boards stay as they were
        panel = view.panel
        columns = ["seat", *panel.columns, "last", *(["model"] if models else []), "says", "total"]
        for column in columns:
            # Rich shortens only columns that may wrap, widest first; the others it would
            # cut evenly, down to nothing. So the long ones may "wrap", and their cells
            # (texts that never wrap) are cut with an ellipsis instead.
            grid.add_column(column, no_wrap=column not in _SHORTENED, overflow="ellipsis")
        for index, seat in enumerate(view.seats):
            model = [_cut(seat.model.board_text() if seat.model else "", "cyan")] if models else []
            grid.add_row(
                self._seat_name(view, index),
                *panel.cells(seat),
                _cut(seat.last),
                *model,
                _cut(f"{seat.emotion} {seat.comment}".strip()),
                f"{seat.total:+d}",
            )
        header = panel.header(view)
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
        return Panel(Group(*parts), title=f"{panel.title} · {view.table} · round {view.round}")

    def _rows(self, views: list[TableView], height: int, screen_width: int) -> RenderableType:
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
        count = max((len(view.seats) for view in views), default=0)
        panel = views[0].panel if views else console_of(DEFAULT_GAME)
        shared = seatings.pop() if len(seatings) == 1 else None
        cells = [
            (
                Text(view.table),
                Text(f"{view.round}/{view.rounds}" if view.rounds else str(view.round)),
                *(
                    self._seat_cell(view, index, named=shared is None)
                    if index < len(view.seats)
                    else Text()
                    for index in range(count)
                ),
                Text(view.log[-1] if view.log else ""),
            )
            for view in shown
        ]
        heads = ("table", "round", *(shared or ("player",) * count), "last")
        widths = [
            max([len(head), *(row[i].cell_len for row in cells)]) for i, head in enumerate(heads)
        ]
        last = 2 + count  # the last line's column, after the table's, round's and seats'
        widths[2:last] = [min(width, 17) for width in widths[2:last]]
        widths[last] = max(screen_width - sum(widths[:last]) - last, 8)  # a gap between each two
        rows = RichTable(
            title=f"{panel.title} · {len(views)} tables · {panel.legend}",
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

    def _seat_name(self, view: TableView, index: int) -> RenderableType:
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

    def _last_cell(self, view: TableView, last: Text) -> RenderableType:
        """A table's last line, or once a turn is slow, who is thinking and for how long;
        after ``🎁n`` when n gifts wait there."""
        if view.gifts.waiting:
            last = Text(f"🎁{view.gifts.waiting} ", style="magenta") + last
        if view.to_act is None or view.thinking_since is None or view.to_act >= len(view.seats):
            return last
        head = Text(f"{view.seats[view.to_act].name} is thinking")
        return _Ticking(head, view.thinking_since, self._clock, alone=last)

    @staticmethod
    def _seat_cell(view: TableView, index: int, *, named: bool) -> Text:
        seat = view.seats[index]
        cell = Text("▶" if view.to_act == index else " ")
        if named:
            cell.append(seat.name[:8], style="bold")
        cell.append(f"{' ' if named else ''}{view.panel.row_cell(seat)} {seat.total:+d}")
        return cell
