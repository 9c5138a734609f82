"""Every sink gets a table's events in the order of their ``seq``, whoever emits them.

A table's own task emits most events, but gifts are told from their intake's task (the
MQTT source, the webhook). A sink the table awaits may yield (a QueuedSink lets its drain
run every few events), and another task's event must not overtake there: the MQTT feed
and the overlay would show a gift's outcome before its queueing, or a play before the
turn it follows. Found by issue 25's gift fuzz (two seqs swapped on the events topic).
"""

from __future__ import annotations

import asyncio

from arena.events import Event
from arena.games.ddz.agents.scripted import RandomAgent
from arena.sinks.base import CollectingSink
from arena.sinks.queued import QueuedSink, queued_sinks
from arena.table import Table, play_match


class YieldingSink(CollectingSink):
    """Keeps every event and lets the loop run after every other one, as a sink that
    awaits now and then does (a QueuedSink every few events)."""

    async def emit(self, event: Event) -> None:
        self.events.append(event)
        if len(self.events) % 2:
            await asyncio.sleep(0)


def seqs(sink: CollectingSink) -> list[int]:
    return [event.seq for event in sink.events]


async def test_two_tasks_emitting_at_once_reach_every_sink_in_seq_order() -> None:
    first, second = YieldingSink(), CollectingSink()
    table = Table(
        [RandomAgent(f"P{i}", seed=i) for i in range(3)], table_id="t1", sinks=[first, second]
    )
    await asyncio.gather(*(table.emit("gift", data={"n": n}) for n in range(20)))
    assert seqs(first) == seqs(second) == list(range(1, 21))


async def test_gifts_told_from_another_task_keep_each_queued_sinks_order() -> None:
    """A match behind two queues (as `arena play` runs it) while another task tells
    gift outcomes: each sink gets every event, in seq order."""
    kept = [CollectingSink(), CollectingSink()]
    async with queued_sinks(kept, max_events=8) as queued:
        assert all(isinstance(sink, QueuedSink) for sink in queued)
        table = Table(
            [RandomAgent(f"P{i}", seed=i) for i in range(3)],
            table_id="t1",
            sinks=list(queued),
        )
        telling = True

        async def tell_gifts() -> int:
            told = 0
            while telling:
                await table.emit("gift", data={"told": told})
                told += 1
                await asyncio.sleep(0)
            return told

        teller = asyncio.create_task(tell_gifts())
        await play_match(table, rounds=3, seed=7)
        telling = False
        told = await teller
    assert told > 0
    for sink in kept:
        assert seqs(sink) == list(range(1, len(sink.events) + 1))
    assert seqs(kept[0]) == seqs(kept[1])
