"""A game's part of the terminal: how its events read as lines and its panel on the
live board, found by the game's name (every event names its game).

The plain lines (:mod:`arena.sinks.console_lines`) and the live board
(:mod:`arena.sinks.console_board`) are every game's; what a bid or a trick reads as,
and which columns a seat has, is the game's (Dou Dizhu: ``arena/games/ddz/console.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from rich.console import RenderableType
from rich.text import Text

from arena.events import Event, EventType
from arena.games.registry import get_game

__all__ = ["GameConsole", "console_of"]


class GameConsole(Protocol):
    """What a game gives the terminal (its :attr:`Game.console`)."""

    @property
    def title(self) -> str:
        """A board's and the rows' title: ``斗地主 Arena``."""
        ...

    @property
    def legend(self) -> str:
        """What a row's seat cell says, in the rows' title."""
        ...

    @property
    def columns(self) -> tuple[str, ...]:
        """A board's columns after the seat's name."""
        ...

    @property
    def actions(self) -> frozenset[str]:
        """A seat's actions: each ends its turn, and may carry a comment and a mood."""
        ...

    @property
    def play_kinds(self) -> frozenset[EventType]:
        """The events of a round's play, besides its start and each turn's."""
        ...

    @property
    def gift_names(self) -> Mapping[str, str]:
        """The Chinese names of the game's own gift effects (those every game may offer
        are named by :mod:`arena.sinks.console_gifts`)."""
        ...

    @property
    def gift_reasons(self) -> Mapping[str, str]:
        """Why a gift of the game's own did not apply, in words, by the reason's code."""
        ...

    def line(self, event: Event, tag: str, said: str) -> str | None:
        """The game's event as a line after ``tag`` (an action's ending with what it
        ``said``); None for an event that is not the game's own."""
        ...

    def new_table(self) -> Any:
        """A table's game state on the board, fresh for a round."""
        ...

    def new_seat(self) -> Any:
        """A seat's game state on the board, fresh for a round."""
        ...

    def apply(self, view: Any, seat: int, kind: str, data: Mapping[str, Any]) -> None:
        """A seat's event of the game, onto the table's board (``view``)."""
        ...

    def seatless(self, view: Any, kind: str, data: Mapping[str, Any]) -> None:
        """An event of no seat, onto the table's board."""
        ...

    def cells(self, seat: Any) -> list[RenderableType]:
        """A seat's cells in :attr:`columns`."""
        ...

    def header(self, view: Any) -> Text:
        """The line under the seats."""
        ...

    def row_cell(self, seat: Any) -> str:
        """A row's seat cell after the name."""
        ...


_CONSOLES: dict[str, GameConsole] = {}


def console_of(game: str) -> GameConsole:
    """The terminal part of the game called ``game``, made once (a dict read per event)."""
    found = _CONSOLES.get(game)
    if found is None:
        found = _CONSOLES[game] = get_game(game).console()
    return found
