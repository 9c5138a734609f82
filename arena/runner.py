"""Running a configured arena: build the tables and agents, play the matches at once.

Every sink given here is put behind its own bounded queue and task
(:class:`~arena.sinks.queued.QueuedSink`), one per sink, shared by all the tables: a slow
sink never stalls a table, and each table's events reach it in order. The tables' end
flushes the queues (within a bound); closing the sinks stays the caller's. A sink given
straight to ``Table(sinks=[...])`` is awaited at once, as before.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from arena.agents.base import Agent
from arena.agents.registry import create_agent
from arena.config import ArenaConfig, SeatConfig
from arena.errors import raise_start_failures
from arena.games.base import Game, GameRules
from arena.replay import ReplayWriter
from arena.sinks.health import GuardedSink
from arena.sinks.queued import DEFAULT_MAX_EVENTS, QueuedSink
from arena.table import (
    MatchSummary,
    Table,
    build_moderator,
    derive_seed,
    play_match,
    tee_recorders,
)

if TYPE_CHECKING:
    from arena.sinks.spectator import SpectatorFeed

__all__ = [
    "build_tables",
    "close_tables",
    "flush_sinks",
    "new_seed",
    "open_tables",
    "play_tables",
    "queue_sinks",
    "run_arena",
    "seat_agent",
]


def new_seed() -> int:
    """A fresh seed for a run that named none (printed so the run can be repeated).

    53 bits, the most a config's seed may hold (JSON-safe): an agent that knew the seed
    would know every hand, so it must be too large to find by trying seeds against the
    17 cards one holds."""
    return random.SystemRandom().getrandbits(53)


def queue_sinks(
    sinks: Sequence[Any], config: ArenaConfig, *, max_events: int | None = DEFAULT_MAX_EVENTS
) -> list[Any]:
    """Each sink behind its own :class:`~arena.sinks.queued.QueuedSink` of ``max_events``
    (one already queued is kept as it is, and so is one whose ``emit`` never waits, as
    the MQTT sink's: it buffers on its own). Awaited directly instead when ``max_events``
    is None, or when a seat is human: the console's lines must be out before each of
    the person's prompts, which another thread prints."""
    if max_events is None or any(seat.type == "human" for seat in config.seats):
        return list(sinks)
    return [
        sink
        if isinstance(sink, QueuedSink) or getattr(sink, "never_waits", False)
        else QueuedSink(sink, max_events=max_events)
        for sink in sinks
    ]


def seat_agent(
    seat: SeatConfig, *, seed: int, rules: GameRules, seat_key: str, game: Game | None = None
) -> Agent:
    """The agent a seat's config describes (a ConfigError names ``seat_key`` and the
    seat's name): its type, name and options, the seed and rules the table gives; its
    type one of ``game``'s (Dou Dizhu's when None), and an agent that plays it."""
    return create_agent(
        seat.type,
        seat.name,
        seed=seed,
        rules=rules,
        options=dict(seat.options),
        seat_key=seat_key,
        game=game,
    )


def build_tables(
    config: ArenaConfig,
    *,
    seed: int,
    sinks: Sequence[Any] = (),
    replay: ReplayWriter | None = None,
    sink_queue: int | None = DEFAULT_MAX_EVENTS,
    spectator: SpectatorFeed | None = None,
) -> list[Table]:
    """One table per configured table, each with its own agent instances.

    Building is where an agent's constructor runs: a ConfigError names the seat's key
    and name (``seats.1.options (seat 'Beta'): ...``); the caller adds the file. Every
    table shares the moderator of the ``[moderation]`` section, and the ``sinks``, each
    behind one queue of ``sink_queue`` events (:func:`queue_sinks`). With a
    ``spectator`` feed, each table's recorder is teed to it (the replay's and the feed's).
    """
    moderator = build_moderator(config.moderation)
    sinks = queue_sinks(sinks, config, max_events=sink_queue)
    tables = []
    for index in range(config.match.tables):
        table_id = f"t{index + 1}"
        agents = [
            seat_agent(
                seat,
                seed=derive_seed(seed, table_id, "seat", position),
                rules=config.rules,
                seat_key=f"seats.{position}",
                game=config.game_info,
            )
            for position, seat in enumerate(config.seats)
        ]
        tables.append(
            Table(
                agents,
                table_id=table_id,
                game=config.game_info,
                rules=config.rules,
                settings=config.table,
                sinks=sinks,
                recorder=tee_recorders(
                    replay.for_table(table_id) if replay is not None else None,
                    spectator.for_table(table_id, config.game) if spectator is not None else None,
                ),
                timeouts=[seat.effective_timeout_s for seat in config.seats],
                standin_seed=derive_seed(seed, table_id, "standin"),
                moderator=moderator,
            )
        )
    return tables


async def run_arena(
    config: ArenaConfig,
    *,
    seed: int,
    sinks: Sequence[Any] = (),
    replay: ReplayWriter | None = None,
    sink_queue: int | None = DEFAULT_MAX_EVENTS,
    spectator: SpectatorFeed | None = None,
) -> list[MatchSummary]:
    """Build the tables and play every table's match concurrently (see
    :func:`play_tables`); :func:`build_tables` raises before anything is played. Every
    event has reached the sinks when it returns; they are left open (and so is the
    ``spectator`` feed: its owner starts and closes it)."""
    tables = build_tables(
        config, seed=seed, sinks=sinks, replay=replay, sink_queue=sink_queue, spectator=spectator
    )
    await open_tables(tables)
    return await play_tables(tables, rounds=config.match.rounds, seed=seed)


async def open_tables(tables: Sequence[Table]) -> None:
    """Start every table's agents (programs, connections) before the match.

    An agent that cannot start raises :class:`~arena.errors.AgentStartError` naming its
    table and seat; every table is then closed, so no program is left running. So they
    are when the start is interrupted (Ctrl-C while a program starts).
    """
    try:
        outcomes = await asyncio.gather(*(t.open() for t in tables), return_exceptions=True)
    except BaseException:
        await close_tables(tables)
        raise
    failures = [o for o in outcomes if isinstance(o, BaseException)]
    if failures:
        await close_tables(tables)
        raise_start_failures(failures)


async def play_tables(tables: Sequence[Table], *, rounds: int, seed: int) -> list[MatchSummary]:
    """Play a match at every table at once, then close the tables.

    Apart from :func:`run_arena` so that a caller can build the tables (and see every
    agent start) before it announces the match. A table that crashes does not stop the
    others: they play to the end, then the crashes are raised together as an
    ExceptionGroup.
    """
    try:
        outcomes = await asyncio.gather(
            *(play_match(table, rounds=rounds, seed=seed) for table in tables),
            return_exceptions=True,
        )
    finally:
        await close_tables(tables)
    failures = [o for o in outcomes if isinstance(o, Exception)]
    if failures:
        raise ExceptionGroup("tables crashed", failures)
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
    return [o for o in outcomes if isinstance(o, MatchSummary)]


async def close_tables(tables: Sequence[Table]) -> None:
    """Close every table's agents, all tables at once: a program that will not exit
    costs its close allowance once, not once per table. Meanwhile the tables' queued
    sinks are flushed (:func:`flush_sinks`)."""
    flushed = flush_sinks(tables, interrupted=_being_cancelled())
    await asyncio.gather(*(table.close() for table in tables), flushed)


async def flush_sinks(tables: Sequence[Table], *, interrupted: bool | None = None) -> None:
    """Hand every queued event of the tables' sinks to its sink, each within its bound,
    all at once; a short bound when ``interrupted`` (by default: when the calling task
    is being cancelled, as by Ctrl-C). The sinks stay open: their owner closes them."""
    if interrupted is None:
        interrupted = _being_cancelled()
    # a table hands a sink that failed its events through a guard: the queue is within
    queued = {
        id(inner): inner
        for table in tables
        for sink in table.sinks
        for inner in [sink.sink if isinstance(sink, GuardedSink) else sink]
    }
    await asyncio.gather(
        *(
            sink.flush(interrupted=interrupted)
            for sink in queued.values()
            if isinstance(sink, QueuedSink)
        )
    )


def _being_cancelled() -> bool:
    """Whether the running task is being cancelled (Ctrl-C, SIGTERM): what it closes
    then gets a short bound. Read here, not in a task ``gather`` makes."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
