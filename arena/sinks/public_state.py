"""A table's public snapshot: what a late subscriber needs to be current at once.

An MQTT subscriber (or the overlay) that joins in the middle of a match has missed the
events that set the board up. Each table's events fold, as the table emits them, into
one JSON-ready snapshot that is retained on the broker (and sent to an overlay first),
so that the newcomer reads it and then follows the events. What the snapshot holds
beyond the keys every game shares (``v``, ``table``, ``run``, ``match_id``, ``status``,
``complete``, ``seq``, ``round``, ``rounds``, ``seats``, ``turn``, ``totals``) is the
game's: its :attr:`~arena.games.base.Game.public_state` (Dou Dizhu:
``arena/games/ddz/public_state.py``), found by the events' ``game``.

Only public events go in, and only what they say comes out.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, Literal, Protocol

from arena.events import Event
from arena.games.registry import DEFAULT_GAME, get_game

__all__ = ["STATE_VERSION", "PublicState", "Status", "TableState", "new_table_state"]

STATE_VERSION: Final = 1
"""The snapshot's format, as its key ``v`` says (the events' envelopes use the same key
for theirs, and ``run`` for the run id, as the snapshot does): it grows by new keys, and
changes this number otherwise."""

Status = Literal["waiting", "live", "ended"]


class TableState(Protocol):
    """One table's public snapshot, kept current by :meth:`apply` (a game's own)."""

    table: str
    run_id: str
    match_id: str | None
    status: Status
    seq: int | None

    def apply(self, event: Event) -> bool:
        """Fold one event in; True when the snapshot changed."""
        ...

    def snapshot(self) -> dict[str, Any]:
        """The table as a late subscriber should first see it: JSON-ready, fresh objects."""
        ...


def new_table_state(
    table: str, *, run_id: str, game: str = DEFAULT_GAME, match_id: str | None = None
) -> TableState:
    """An empty snapshot of a table of ``game``, to fold its events into."""
    state: TableState = get_game(game).public_state(table, run_id=run_id, match_id=match_id)
    return state


class PublicState:
    """The snapshots of every table a sink sees, made as their first events come."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._tables: dict[str, TableState] = {}

    def apply(self, event: Event) -> TableState | None:
        """Fold the event into its table's snapshot; that table's state if it changed."""
        state = self._tables.get(event.table)
        if state is None:
            state = self._tables[event.table] = new_table_state(
                event.table, run_id=self.run_id, game=event.game
            )
        return state if state.apply(event) else None

    def get(self, table: str) -> TableState | None:
        """A table's state, if any event of it came."""
        return self._tables.get(table)

    def __iter__(self) -> Iterator[TableState]:
        return iter(list(self._tables.values()))

    def __len__(self) -> int:
        return len(self._tables)

    def snapshots(self) -> dict[str, dict[str, Any]]:
        """Every table's snapshot, by table (what a reconnect republishes)."""
        return {table: state.snapshot() for table, state in self._tables.items()}
