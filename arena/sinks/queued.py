"""A sink behind its own bounded queue: a slow sink never stalls a table.

A table awaits each of its sinks in turn, and every table of ``arena play`` shares the
same sinks: one slow broker or overlay would hold up every match. :class:`QueuedSink`
gives one sink a queue and one task that drains it into the sink, in order. Its ``emit``
never awaits the inner sink: a full queue drops the event, counts it (:attr:`dropped`)
and logs it (a warning at the first drop, then at most one every
``DROP_LOG_EVERY_S``), never blocks. A sink that raises on an event is counted under the
sinks' health policy (:mod:`arena.sinks.health`, as a table counts a sink it awaits
itself) and gets the next event all the same; the other sinks, each behind its own
queue, go on. A sink whose ``skipped_kinds`` names event kinds it does nothing with (the
plain console at many tables) never has them queued: they cannot crowd out the rest.

One wrapper per sink, shared by all tables: one queue keeps each table's events in the
order the table emitted them. ``flush`` hands what is queued to the sink within a
bound, counts the rest as dropped and says so; ``close`` flushes, then closes the inner
sink. :mod:`arena.runner` wraps every sink given to ``build_tables`` or ``run_arena``
and flushes them when the tables close (their owner closes them). A program building
its own tables can use :func:`queued_sinks`, which wraps a list of sinks for as long as
a block runs and closes them all at its end::

    async with queued_sinks([LiveConsoleSink()]) as sinks:
        table = Table(agents, sinks=sinks)
        await play_match(table, rounds=3, seed=1)

A table of scripted seats never waits (nothing to await), so nothing else would run on
the loop until its match ended, the drain task included. So after every
``YIELD_EVERY`` events queued while the drain is busy or not yet woken, ``emit`` yields
to the loop once (``asyncio.sleep(0)``): the drain task runs, never waited for. A sink
handed straight to ``Table(sinks=[...])`` (tests, programs embedding the arena) is
still awaited at once, as before.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from typing import Any, Final, cast

from arena.errors import ConfigError
from arena.events import Event
from arena.logs import get_logger
from arena.sinks.base import Sink
from arena.sinks.health import GuardedSink, SinkHealth, health_of

__all__ = [
    "CLOSE_WITHIN_S",
    "DEFAULT_MAX_EVENTS",
    "DROP_LOG_EVERY_S",
    "INTERRUPTED_CLOSE_WITHIN_S",
    "YIELD_EVERY",
    "QueuedSink",
    "close_sinks",
    "queued_sinks",
]

log = get_logger(__name__)

DEFAULT_MAX_EVENTS: Final = 10_000
"""Events a sink's queue holds: about 80 rounds of one table, a burst no display or
broker in good health falls that far behind (a few hundred kB of events)."""

CLOSE_WITHIN_S: Final = 5.0
"""How long ``close`` lets the queue drain, and then the inner sink close."""

INTERRUPTED_CLOSE_WITHIN_S: Final = 0.5
"""The same when the closing task is being cancelled (Ctrl-C, SIGTERM): a stop is
prompt even with a stuck sink; a console drains in one step anyway."""

DROP_LOG_EVERY_S: Final = 10.0
"""After the first drop's warning, at most one warning this often while drops go on."""

YIELD_EVERY: Final = 64
"""``emit`` yields to the loop once every this many events queued while the drain is
busy (about twice a scripted round)."""


_DROP_HINTS: Final = {
    "full": "the sink is slower than the tables: its events are dropped, not waited for",
    "closed": "an event came after the sink was closed",
}


class QueuedSink:
    """One sink behind a bounded queue drained by a task of its own, in order.

    ``name`` names the sink in log lines and in its health (:func:`health_of`: the name
    its record already has, else its class name). The task starts at the first event, on
    the running loop; ``close`` ends it.
    """

    def __init__(
        self,
        sink: Sink,
        *,
        max_events: int = DEFAULT_MAX_EVENTS,
        close_within_s: float = CLOSE_WITHIN_S,
        name: str | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if max_events < 1:
            raise ConfigError(f"max_events: a sink's queue holds 1 event or more, not {max_events}")
        self.sink = sink
        self.health: SinkHealth = health_of(sink, name)
        """The inner sink's failures (and recovery), shared with every other path to it."""
        self.name = self.health.name
        self._guarded = GuardedSink(sink, self.health)
        self.max_events = max_events
        self._yield_every = min(YIELD_EVERY, max(1, max_events // 2))
        """A small queue yields more often: it would be full before its first yield."""
        self.close_within_s = close_within_s
        self.dropped = 0
        """Events the inner sink never got: queue full, or close ran out of time (an
        event it raised on is counted in :attr:`health`)."""
        self._clock = clock
        self._unwanted: frozenset[str] = getattr(sink, "skipped_kinds", frozenset())
        """Event kinds the sink says it does nothing with: not queued (nor dropped)."""
        self._queue: deque[Event] = deque()
        """Waiting events; the first is the one being handed to the sink while it is."""
        self._task: asyncio.Task[None] | None = None
        self._waiter: asyncio.Future[None] | None = None
        """Set while the drain task waits for an event."""
        self._closed = False
        self._flushing = False
        self._reported_dropped = 0
        self._logged_drop_at: float | None = None
        self._logged_dropped = 0

    @property
    def queued(self) -> int:
        """Events waiting for the inner sink (the one it is handling included)."""
        return len(self._queue)

    async def emit(self, event: Event) -> None:
        """Queue the event, or drop and count it if the queue is full; never waits for
        the inner sink."""
        if event.type in self._unwanted:
            return
        queue = self._queue
        if len(queue) >= self.max_events or self._closed:
            self._drop(1, "closed" if self._closed else "full")
            return
        queue.append(event)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)
        elif self._task is None:
            self._task = asyncio.get_running_loop().create_task(
                self._drain(), name=f"sink {self.name}"
            )
        elif len(queue) % self._yield_every == 0:
            await asyncio.sleep(0)  # let the drain run: see the module's docstring

    async def _drain(self) -> None:
        queue = self._queue
        loop = asyncio.get_running_loop()
        guarded = self._guarded  # a failure is counted and logged, never raised here
        while True:
            while queue:
                await guarded.emit(queue[0])
                queue.popleft()
            if self._flushing:
                return
            waiter = self._waiter = loop.create_future()
            await waiter

    def _drop(self, count: int, reason: str) -> None:
        self.dropped += count
        now = self._clock()
        if self._logged_drop_at is None or now - self._logged_drop_at >= DROP_LOG_EVERY_S:
            log.warning(
                "sink_events_dropped",
                sink=self.name,
                reason=reason,
                dropped=self.dropped,
                dropped_since_last=self.dropped - self._logged_dropped,
                max_events=self.max_events,
                hint=_DROP_HINTS[reason],
            )
            self._logged_drop_at = now
            self._logged_dropped = self.dropped

    async def flush(self, *, interrupted: bool | None = None) -> None:
        """Hand what is queued to the sink within ``close_within_s``, count what is left
        as dropped (the event a stuck sink holds included) and report the drops; the
        drain task ends, and the next event starts another. The inner sink stays open:
        for a caller that owns it (:func:`arena.runner.play_tables` flushes, ``arena
        play`` closes its sinks after).

        ``interrupted`` (by default: whether the calling task is being cancelled, as by
        Ctrl-C or SIGTERM) shortens the bound to ``INTERRUPTED_CLOSE_WITHIN_S``.
        """
        within_s = self._within_s(interrupted)
        task = self._task
        if task is not None and not task.done():
            self._flushing = True
            waiter, self._waiter = self._waiter, None
            if waiter is not None and not waiter.done():
                waiter.set_result(None)
            try:
                done, _ = await asyncio.wait({task}, timeout=within_s)
            finally:
                self._flushing = False
                if not task.done():
                    task.cancel()
            if not done:
                # a moment for the sink to take the cancellation before anything else
                await asyncio.wait({task}, timeout=min(within_s, 0.1))
                left = len(self._queue)
                self._queue.clear()
                self.dropped += left
                log.warning(
                    "sink_flush_timed_out",
                    sink=self.name,
                    within_s=within_s,
                    dropped=left,
                    hint="the sink did not take its queued events in time: they are dropped",
                )
        self._task = None
        if self.dropped > self._reported_dropped:
            log.warning("sink_drops_total", sink=self.name, dropped=self.dropped)
            self._reported_dropped = self.dropped

    async def close(self, *, interrupted: bool | None = None) -> None:
        """:meth:`flush`, then close the inner sink within the same bound (a close that
        raises is counted in :attr:`health` and logged, not raised). Later events are
        dropped (and counted); closing twice does nothing more."""
        if self._closed:
            return
        within_s = self._within_s(interrupted)
        await self.flush(interrupted=interrupted)
        self._closed = True
        try:
            await asyncio.wait_for(self._guarded.close(), within_s)
        except TimeoutError:
            log.warning("sink_close_timed_out", sink=self.name, within_s=within_s)

    def _within_s(self, interrupted: bool | None) -> float:
        if interrupted is None:
            interrupted = _being_cancelled()
        if interrupted:
            return min(self.close_within_s, INTERRUPTED_CLOSE_WITHIN_S)
        return self.close_within_s


def _being_cancelled() -> bool:
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


@asynccontextmanager
async def queued_sinks(
    sinks: Iterable[Sink],
    *,
    max_events: int = DEFAULT_MAX_EVENTS,
    close_within_s: float = CLOSE_WITHIN_S,
) -> AsyncIterator[list[QueuedSink]]:
    """Each sink behind its own :class:`QueuedSink` while the block runs; all closed
    (drained within the bound) at its end, at once."""
    wrapped = [
        QueuedSink(sink, max_events=max_events, close_within_s=close_within_s) for sink in sinks
    ]
    try:
        yield wrapped
    finally:
        await close_sinks(wrapped)


async def close_sinks(sinks: Iterable[Sink]) -> None:
    """Close every sink at once (a stuck one costs its bound once, not once per sink);
    the first error a close raised is raised after all have closed. Called by a task
    being cancelled (Ctrl-C), queued sinks and those that buffer on their own (the MQTT
    sink, ``never_waits``) take their short bound: each close runs in a task of its own,
    which could not tell."""
    interrupted = _being_cancelled()
    outcomes = await asyncio.gather(
        *(
            # a sink that buffers on its own (never_waits) takes `interrupted` as well
            cast(Any, sink).close(interrupted=interrupted)
            if isinstance(sink, QueuedSink) or getattr(sink, "never_waits", False)
            else sink.close()
            for sink in sinks
        ),
        return_exceptions=True,
    )
    for outcome in outcomes:
        if isinstance(outcome, BaseException):
            raise outcome
