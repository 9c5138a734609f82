"""The table's sense of time: one seam, so tests can drive deadlines and pacing exactly.

A table reads the time to tell whether a reply came after its deadline and how long an
agent held the event loop, and sleeps to pace a live show. Production uses the real
monotonic clock; a test passes a :class:`ManualClock` and moves time by hand instead of
relying on milliseconds of wall clock, which a loaded machine does not keep.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol

__all__ = ["Clock", "ManualClock", "MonotonicClock"]


class Clock(Protocol):
    """Where a table reads the time (seconds, any origin) and waits."""

    def now(self) -> float:
        """Seconds on a clock that never goes back."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait this long without blocking the event loop."""
        ...


class MonotonicClock:
    """The real clock: ``time.perf_counter`` and ``asyncio.sleep``."""

    now = staticmethod(time.perf_counter)

    async def sleep(self, seconds: float) -> None:
        """Wait on the event loop."""
        await asyncio.sleep(seconds)


class ManualClock:
    """A clock that moves only when told to: :meth:`advance`, or a :meth:`sleep`.

    A sleep moves the clock at once (after letting other tasks run), so a paced match
    plays at full speed while every gap it measures is exact.
    """

    def __init__(self, start: float = 1000.0) -> None:
        self.time = start
        self.slept: list[float] = []

    def now(self) -> float:
        """The current manual time."""
        return self.time

    def advance(self, seconds: float) -> None:
        """Move time forward, as if something took this long (an agent that blocks)."""
        if seconds < 0:
            raise ValueError("a clock never goes back")
        self.time += seconds

    async def sleep(self, seconds: float) -> None:
        """Record the wait and move time by it; other tasks get their turn first."""
        self.slept.append(seconds)
        await asyncio.sleep(0)
        self.advance(max(seconds, 0.0))
