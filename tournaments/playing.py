"""What every table of a tournament run shares, and how the run builds a table.

Below the modules that play a run's tables (:mod:`tournaments.runner`, the table unit
:mod:`tournaments.table_match`, :mod:`tournaments.duplicate`, :mod:`tournaments.workers`):
each takes these from here, so none needs another to get them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from arena.errors import ConfigError
from arena.runner import seat_agent
from arena.table import Table, derive_seed
from tournaments.config import AgentEntry, TournamentConfig
from tournaments.session import Session, SessionEnd
from tournaments.store import TournamentStore

if TYPE_CHECKING:
    from arena.sinks.base import Sink
    from arena.sinks.spectator import SpectatorFeed
    from arena.table.moderation import Moderator
    from arena.table.records import Recorder
    from tournaments.gifts import TournamentGifts

__all__ = ["Playing", "TableControl", "new_table", "run_together"]


@dataclass(frozen=True)
class Playing:
    """What every table of a run shares."""

    store: TournamentStore
    config: TournamentConfig
    tid: str
    seed: int
    deal_seed: int
    """This session's epoch's seed (``tournaments.epochs``): the rounds are dealt from it."""
    session: Session
    gifts: TournamentGifts | None
    moderator: Moderator
    sinks: Sequence[Sink]
    spectator: SpectatorFeed | None
    control: TableControl | None = None
    """Holds the tables between rounds while the streamer pauses (``--serve``)."""


class TableControl(Protocol):
    """What holds tables between rounds (:class:`arena.server.MatchControl`)."""

    def attach(self, table: Table, after_gate: Callable[[], None] | None = None) -> None:
        """Hold ``table`` at the gate before each of its rounds after the first, then
        call ``after_gate``."""
        ...

    async def gate(self) -> None:
        """Wait here while paused (and not released by a stop)."""
        ...


def _entry(config: TournamentConfig, name: str) -> tuple[int, AgentEntry]:
    """The roster's index and entry of an agent."""
    for index, entry in enumerate(config.agents):
        if entry.name == name:
            return index, entry
    raise ConfigError(f"no agent {name!r} in the roster")


def new_table(
    playing: Playing,
    table_id: str,
    players: Sequence[str],
    *,
    recorder: Recorder | None,
    sinks: Sequence[Sink],
) -> Table:
    """A table of the run for ``players`` in their seats, with new agents each seeded by
    the tournament, the table's id and the seat (a duplicate seating's too)."""
    config, seed = playing.config, playing.seed
    agents = []
    for position, name in enumerate(players):
        index, entry = _entry(config, name)
        agents.append(
            seat_agent(
                entry,
                seed=derive_seed(seed, table_id, "seat", position),
                rules=config.rules,
                seat_key=f"agents.{index}",
                game=config.game_info,
            )
        )
    table = Table(
        agents,
        table_id=table_id,
        game=config.game_info,
        rules=config.rules,
        settings=config.table,
        recorder=recorder,
        timeouts=[_entry(config, name)[1].effective_timeout_s for name in players],
        standin_seed=derive_seed(seed, table_id, "standin"),
        moderator=playing.moderator,
        sinks=sinks,
    )
    if playing.control is not None:
        session = playing.session  # a stop that released the pause ends the table there
        playing.control.attach(table, after_gate=lambda: session.stop_if_asked(table_id))
    return table


async def run_together(steps: Sequence[Coroutine[Any, Any, None]]) -> None:
    """Run the coroutines at once; one's failure stops the others and is raised alone,
    plainly (not in an ExceptionGroup)."""
    try:
        async with asyncio.TaskGroup() as group:
            for step in steps:
                group.create_task(step)
    except ExceptionGroup as failed:
        if len(failed.exceptions) == 1 or all(
            isinstance(exc, SessionEnd) for exc in failed.exceptions
        ):  # tables stopped by one stop, at once: one stop
            raise failed.exceptions[0] from None
        raise
