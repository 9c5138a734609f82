"""Sinks never stall a table: each sink behind its own bounded queue and task.

Specification: issue 10, "Sinks never stall a table" ("Give each sink its own bounded
queue and task; overflow is counted and logged, never silently lost, never blocking").
Real tables play real scripted matches; the sinks are small fakes that are slow, stuck
or failing on purpose. Nothing here is timed by the wall clock except a stuck sink's
close, whose bound is the point.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import pytest

from arena.config import parse_config
from arena.errors import ConfigError
from arena.events import Event
from arena.games.ddz.agents.scripted import RandomAgent
from arena.logs import EVENT_ATTRIBUTE
from arena.runner import build_tables, run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.queued import (
    DROP_LOG_EVERY_S,
    YIELD_EVERY,
    QueuedSink,
    close_sinks,
    queued_sinks,
)
from arena.table import Table, TableSettings, play_match


def _logged(caplog: pytest.LogCaptureFixture, name: str) -> list[dict[str, Any]]:
    return [
        getattr(r, EVENT_ATTRIBUTE)
        for r in caplog.records
        if getattr(r, EVENT_ATTRIBUTE, {}).get("event") == name
    ]


def _table(*sinks: Any, table_id: str = "t1") -> Table:
    agents = [RandomAgent(f"R{i}", seed=i) for i in range(3)]
    return Table(agents, table_id=table_id, sinks=list(sinks), settings=TableSettings(pace_s=0.0))


class SlowSink(CollectingSink):
    """Awaits ``delay_s`` before it keeps each event, like a broker far away."""

    def __init__(self, delay_s: float) -> None:
        super().__init__()
        self.delay_s = delay_s
        self.closed = False

    async def emit(self, event: Event) -> None:
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        self.events.append(event)

    async def close(self) -> None:
        self.closed = True


class StuckSink(CollectingSink):
    """Takes its first event and never returns; closes at once when asked."""

    def __init__(self) -> None:
        super().__init__()
        self.closed = False

    async def emit(self, event: Event) -> None:
        self.events.append(event)
        await asyncio.Event().wait()

    async def close(self) -> None:
        self.closed = True


class FailingSink(CollectingSink):
    """Raises at its ``fail_at``-th event (and takes the others)."""

    def __init__(self, fail_at: int) -> None:
        super().__init__()
        self.fail_at = fail_at
        self.calls = 0

    async def emit(self, event: Event) -> None:
        self.calls += 1
        if self.calls == self.fail_at:
            raise RuntimeError("the overlay went away")
        self.events.append(event)


async def test_a_slow_sink_does_not_slow_the_table() -> None:
    """Awaited directly, a sink that takes 0.05 s an event would make a round last six
    seconds. Queued, the match ends while it has taken only a handful; close then hands
    it the rest, every event in the table's order."""
    slow = SlowSink(0.05)
    direct = CollectingSink()
    queued = QueuedSink(slow)
    await play_match(_table(direct, queued), rounds=2, seed=1)
    assert len(direct.events) > 200
    assert len(slow.events) <= len(direct.events) // 10  # the match did not wait for it
    assert queued.queued == len(direct.events) - len(slow.events)
    slow.delay_s = 0.0  # the broker is back: the rest arrives at close
    await queued.close()
    assert slow.events == direct.events
    assert queued.dropped == 0
    assert slow.closed


async def test_a_full_queue_drops_and_counts_never_blocks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    now = [100.0]
    stuck = StuckSink()
    queued = QueuedSink(stuck, max_events=10, close_within_s=0.2, clock=lambda: now[0])
    direct = CollectingSink()
    await play_match(_table(direct, queued), rounds=1, seed=1)  # returns: never blocked
    assert queued.queued == 10  # the one the sink is stuck on, and nine behind it
    assert queued.dropped == len(direct.events) - 10
    [first] = _logged(caplog, "sink_events_dropped")  # once, however many drops
    assert first["sink"] == "StuckSink"
    assert first["reason"] == "full"
    assert first["dropped"] == 1
    assert first["max_events"] == 10

    now[0] += DROP_LOG_EVERY_S  # still dropping a while later: one more line, the count
    await queued.emit(direct.events[0])
    later = _logged(caplog, "sink_events_dropped")[-1]
    assert len(_logged(caplog, "sink_events_dropped")) == 2
    assert later["dropped"] == len(direct.events) - 9
    assert later["dropped_since_last"] == len(direct.events) - 10

    await queued.close()
    [closing] = _logged(caplog, "sink_drops_total")
    # every event: the one the sink is stuck on never went through either
    assert closing["dropped"] == queued.dropped == len(direct.events) + 1
    assert stuck.closed


async def test_a_failing_sink_is_counted_and_it_and_the_others_get_everything_else(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    failing = FailingSink(fail_at=5)
    good = CollectingSink()
    direct = CollectingSink()
    async with queued_sinks([failing, good]) as sinks:
        await play_match(_table(direct, *sinks), rounds=1, seed=1)
    assert good.events == direct.events
    assert failing.events == direct.events[:4] + direct.events[5:]
    [failed] = _logged(caplog, "sink_failed")
    assert failed["sink"] == "FailingSink"
    assert "the overlay went away" in failed["error"]
    assert sinks[0].health.failures == 1
    assert sinks[1].health.failures == 0
    assert sinks[0].dropped == sinks[1].dropped == 0  # the failed event is the health's


class TaskNotingSink(CollectingSink):
    """Keeps each event and the name of the task that handed it over."""

    def __init__(self) -> None:
        super().__init__()
        self.tasks: set[str] = set()

    async def emit(self, event: Event) -> None:
        task = asyncio.current_task()
        self.tasks.add(task.get_name() if task is not None else "")
        self.events.append(event)


def _per_table(events: list[Event]) -> dict[str, list[tuple[int, str]]]:
    tables: dict[str, list[tuple[int, str]]] = {}
    for e in events:
        tables.setdefault(e.table, []).append((e.seq, e.type))
    return tables


async def test_the_runner_queues_each_sink_and_keeps_each_tables_order() -> None:
    """``run_arena`` (and ``arena play``, through ``build_tables``) puts every sink
    behind one queue of its own, shared by the tables: each table's events reach it in
    the order the table emitted them, all of them by the time the match returns."""
    config = parse_config({"match": {"rounds": 2, "tables": 3}, "table": {"pace_s": 0}})
    queued = TaskNotingSink()
    await run_arena(config, seed=5, sinks=[queued])
    direct = TaskNotingSink()
    await run_arena(config, seed=5, sinks=[direct], sink_queue=None)
    assert queued.tasks == {"sink TaskNotingSink"}  # the sink's own task, never a table's
    assert "sink TaskNotingSink" not in direct.tasks
    assert _per_table(queued.events) == _per_table(direct.events)
    assert sorted(_per_table(queued.events)) == ["t1", "t2", "t3"]
    for seqs_types in _per_table(queued.events).values():
        seqs = [seq for seq, _ in seqs_types]
        assert seqs == list(range(1, len(seqs) + 1))
        assert seqs_types[-1][1] == "match_ended"


async def test_with_a_human_seat_the_sinks_are_not_queued() -> None:
    """The console's lines must be out before each of the person's prompts."""
    seats = [{"name": "Me", "type": "human"}, {"name": "B"}, {"name": "C"}]
    config = parse_config({"seats": seats, "table": {"pace_s": 0}})
    sink = CollectingSink()
    [table] = build_tables(config, seed=1, sinks=[sink])
    assert table.sinks == [sink]
    [table] = build_tables(parse_config({"table": {"pace_s": 0}}), seed=1, sinks=[sink])
    [wrapper] = table.sinks
    assert isinstance(wrapper, QueuedSink)
    assert wrapper.sink is sink


async def test_a_busy_table_yields_so_the_drain_keeps_up() -> None:
    """A scripted table never waits: without a yield now and then, nothing would reach
    the sink before the match ended, and a long match would overflow any queue."""
    collected = CollectingSink()
    queued = QueuedSink(collected, max_events=YIELD_EVERY * 2)
    direct = CollectingSink()
    await play_match(_table(direct, queued), rounds=10, seed=1)
    assert len(direct.events) > 10 * YIELD_EVERY
    assert queued.dropped == 0
    assert len(collected.events) >= len(direct.events) - YIELD_EVERY
    await queued.close()
    assert collected.events == direct.events


async def test_a_small_queue_keeps_up_with_a_busy_table() -> None:
    collected = CollectingSink()
    queued = QueuedSink(collected, max_events=4)
    direct = CollectingSink()
    await play_match(_table(direct, queued), rounds=2, seed=1)
    await queued.close()
    assert queued.dropped == 0
    assert collected.events == direct.events


async def test_close_with_a_stuck_sink_returns_within_its_bound(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    stuck = StuckSink()
    queued = QueuedSink(stuck, close_within_s=0.2)
    direct = CollectingSink()
    await play_match(_table(direct, queued), rounds=1, seed=1)
    started = time.monotonic()
    await queued.close()
    assert time.monotonic() - started < 10.0  # 0.2 s and a moment: not the sink's forever
    assert stuck.events == direct.events[:1]  # it took the first and never returned
    assert queued.dropped == len(direct.events)  # that one never went through either
    [timed_out] = _logged(caplog, "sink_flush_timed_out")
    assert timed_out["dropped"] == len(direct.events)
    assert stuck.closed
    await queued.emit(direct.events[0])  # after close: counted, never queued
    assert queued.dropped == len(direct.events) + 1
    assert queued.queued == 0


async def test_closing_while_cancelled_takes_the_short_bound() -> None:
    """Ctrl-C cancels the command's task, which then closes its sinks: a stuck sink
    holds it up for a moment, not for the whole close bound."""
    stuck = StuckSink()
    queued = QueuedSink(stuck, close_within_s=30.0)
    await queued.emit(Event("match_started", "t1", 0, 1))
    await queued.emit(Event("round_started", "t1", 1, 2))
    await asyncio.sleep(0)  # the sink takes the first event and sticks

    took: list[float] = []

    async def interrupted() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            started = time.monotonic()
            await close_sinks([queued])
            took.append(time.monotonic() - started)
            raise

    task = asyncio.create_task(interrupted())
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert took[0] < 10.0  # INTERRUPTED_CLOSE_WITHIN_S and a moment, not 30 s
    assert queued.dropped == 2  # the one it is stuck on, and the one behind it
    assert stuck.closed


async def test_a_queued_sink_is_a_sink_and_names_itself() -> None:
    from arena.sinks.base import Sink

    queued = QueuedSink(CollectingSink(), name="overlay")
    assert isinstance(queued, Sink)
    assert queued.name == "overlay"
    with pytest.raises(ConfigError, match="max_events"):
        QueuedSink(CollectingSink(), max_events=0)
    await queued.close()
