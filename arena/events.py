"""Public events: what the audience may know, as a table emits it to its sinks.

Below the table on purpose (it imports only the protocol): the sinks, the replay and
the tournament store take events without importing the table package.

An event never carries hidden information (no hand before the round ends), so any sink
may publish any event. The replay, which does hold hidden information, is written by the
recorder, not by a sink.

The types and each one's ``data`` are a documented contract: :mod:`protocol.events` (the
envelope, the models every game shares, the version), each game's own events
(Dou Dizhu's: ``arena.games.ddz.events``), docs/events.md. The table emits plain dicts;
the models check them in tests only.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = ["Event", "EventType"]

EventType = str
"""An event's type (``play``, ``round_result``): each game publishes its own set,
listed with its models (Dou Dizhu's ``arena.games.ddz.events.EVENT_TYPES``)."""


_NO_DATA: Mapping[str, Any] = MappingProxyType({})


class Event(NamedTuple):
    """One public fact about a table, numbered in order (``seq``) per table.

    A named tuple: immutable, and cheap to make, which matters because a table emits
    about two per turn.
    """

    type: EventType
    table: str
    round: int
    seq: int
    seat: int | None = None
    player: str | None = None
    data: Mapping[str, Any] = _NO_DATA
    game: str = "ddz"
    """The game the table plays (``arena.games``); a line without it is Dou Dizhu's."""

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data."""
        return {
            "type": self.type,
            "table": self.table,
            "round": self.round,
            "seq": self.seq,
            "seat": self.seat,
            "player": self.player,
            "data": self.data if type(self.data) is dict else dict(self.data),
            "game": self.game,
        }
