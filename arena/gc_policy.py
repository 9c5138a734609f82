"""Garbage collection while tables play: the arena's own policy, and its pauses named.

Why. CPython's collector is generational: it collects the young objects every 700 new
containers, and the whole heap once enough of them have outlived two young collections.
That pays when most objects die young. At a table whose agent awaits, what a decision
holds across the wait (its request, the coroutines, the deadline's timer, the log
context) outlives many young collections as soon as many tables play: each is scanned
as young, then moved to the oldest generation, whose growth brings full collections of
the whole heap. At 10,000 tables of agents that answer in 1 s, collections took three
quarters of the process's CPU (a full one about 1.2 s) and found nothing: table play
leaves no cyclic garbage, every object is freed by its reference count. So while tables
play (:func:`collecting_while_playing`):

- what start-up built (modules, the config, agents and tables) is frozen out of every
  collection (``gc.freeze``);
- the automatic collections are off;
- a full collection runs when the heap (its allocated blocks) has grown by ``growth``
  since the last one, looked at every ``check_every_s`` on the event loop (never inside
  an agent's step): cyclic garbage, from an agent's library say, grows the heap. Such
  collections keep to a budget, ``pause_share`` of the time since play began or since
  the last one, each pause estimated from the last one's cost per block; a heap grown
  by ``growth_limit`` is collected whatever the budget. Growth counts from the heap
  once the tables have begun (the first look): their first requests and deals more
  than double the heap of idle tables at once, and their first rounds' histories
  treble it again, all of it alive;
- and at the safe moments a caller knows (between a tournament's stages, between a
  worker's table matches) a full collection runs at once: :meth:`Collector.collect`.

:data:`PAUSES` times every collection, so that the table can tell a collection that
paused the event loop from an agent that blocked it (``Table`` installs it).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import time
from collections import deque
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any, Final

from arena.logs import get_logger

__all__ = [
    "DEFAULT_POLICY",
    "PAUSES",
    "CollectionPauses",
    "Collector",
    "GcPolicy",
    "collecting_while_playing",
]

log = get_logger(__name__)


@dataclass(frozen=True)
class GcPolicy:
    """How the collector runs while tables play (see the module)."""

    growth: float = 0.5
    """A full collection once the heap (allocated blocks) has grown by this share since
    the last one, within the pause budget."""
    pause_share: float = 0.01
    """The budget: full collections on growth take at most this share of the time (the
    goal is 99 % of the ideal decision rate at 3,000 tables). At 3,000 tables the first
    comes about 100 s into play; after its pause of about a second, the next no sooner
    than 100 s later."""
    growth_limit: float = 2.0
    """At this growth (the heap tripled) a full collection runs whatever the budget."""
    check_every_s: float = 1.0
    """How often the heap's growth is looked at (one cheap count)."""
    first_pause_per_block_s: float = 6e-7
    """The estimated cost of a full collection, per allocated block, until one has been
    timed: a slow core's (3,000 tables of agents that await: 1.4 s for 2.1 million
    blocks; a faster one took a third of that). Too low an estimate brings the first
    collection early, while the heap still grows with the first rounds' histories,
    all of it alive."""


DEFAULT_POLICY: Final = GcPolicy()


class Collector:
    """Full collections while tables play: on growth (:meth:`watch`) and when asked."""

    def __init__(self, policy: GcPolicy = DEFAULT_POLICY) -> None:
        self.policy = policy
        self.full_collections = 0
        self.unreachable = 0
        """Objects the full collections found unreachable (cyclic garbage): table play
        leaves none, so a count here comes from elsewhere (an agent's library)."""
        self.paused_s = 0.0
        """Time the full collections took, in all."""
        self._baseline = sys.getallocatedblocks()
        self._since = time.perf_counter()
        """When play began, or the last full collection ended: the budget's window."""
        self._per_block_s = policy.first_pause_per_block_s

    def rebase(self) -> None:
        """Count growth from the heap as it is now (the tables have begun)."""
        self._baseline = sys.getallocatedblocks()

    def collect(self) -> int:
        """A full collection now (a safe moment: no table plays, or the heap grew);
        returns the unreachable objects found."""
        blocks = sys.getallocatedblocks()
        started = time.perf_counter()
        found = gc.collect()
        self._since = time.perf_counter()
        took = self._since - started
        self.full_collections += 1
        self.unreachable += found
        self.paused_s += took
        self._per_block_s = took / max(blocks, 1)
        self._baseline = sys.getallocatedblocks()
        if found:
            log.debug("gc_found_cycles", unreachable=found, took_ms=round(took * 1000))
        return found

    def growth(self) -> float:
        """How much the heap grew since the last full collection (0.5: by half)."""
        return sys.getallocatedblocks() / self._baseline - 1

    def collect_if_grown(self) -> bool:
        """A full collection if the heap grew by the policy's share and the pause budget
        allows it, or grew to its limit."""
        policy, blocks = self.policy, sys.getallocatedblocks()
        grown = blocks / self._baseline - 1
        if grown < policy.growth:
            return False
        if grown < policy.growth_limit:
            pause = blocks * self._per_block_s  # what this one would take, estimated
            if time.perf_counter() - self._since < pause / policy.pause_share:
                return False
        self.collect()
        return True

    async def watch(self) -> None:
        """Look at the heap's growth every ``check_every_s`` until cancelled; the first
        look only takes the heap of the tables begun as the baseline."""
        await asyncio.sleep(self.policy.check_every_s)
        self.rebase()
        while True:
            await asyncio.sleep(self.policy.check_every_s)
            self.collect_if_grown()


class _Applied:
    """The policy in force: what to put back, and how many runs still use it."""

    def __init__(self, policy: GcPolicy) -> None:
        self.thresholds = gc.get_threshold()
        self.frozen_before = gc.get_freeze_count()
        gc.freeze()
        gc.set_threshold(0, *self.thresholds[1:])  # a first threshold of 0: none automatic
        self.collector = Collector(policy)
        self.watcher = asyncio.create_task(self.collector.watch(), name="gc-policy")
        self.users = 0

    async def remove(self) -> None:
        self.watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.watcher
        gc.set_threshold(*self.thresholds)
        if not self.frozen_before:
            gc.unfreeze()


_applied: _Applied | None = None


@contextlib.asynccontextmanager
async def collecting_while_playing(
    policy: GcPolicy = DEFAULT_POLICY,
) -> AsyncIterator[Collector]:
    """Apply ``policy`` to this process while the block runs (tables play), and put the
    collector back as it was after: thresholds restored, start-up unfrozen (unless
    something had frozen objects before: those cannot be told apart from ours).

    Runs that overlap or nest (a tournament's inside a command that applies it already)
    share the first one's collector; the last one out puts the collector back."""
    global _applied
    applied = _applied = _applied or _Applied(policy)
    applied.users += 1
    try:
        yield applied.collector
    finally:
        applied.users -= 1
        if not applied.users:
            _applied = None
            await applied.remove()


class CollectionPauses:
    """The pauses of the cyclic collector (a ``gc.callbacks`` entry), kept so that a
    stall can be blamed on what caused it.

    A collection stops every thread's Python code, the event loop's included: whatever
    agent step it happened in looks as if it held the loop. The pauses of at least
    ``floor_s`` are kept, the last ``keep`` of them, on the clock ``now`` (the table's
    real clock; a test gives its manual one)."""

    def __init__(
        self,
        now: Callable[[], float] = time.perf_counter,
        *,
        floor_s: float = 0.001,
        keep: int = 256,
    ) -> None:
        self.now = now
        self.floor_s = floor_s
        self.recent: deque[tuple[float, float]] = deque(maxlen=keep)
        """``(start, end)`` of the latest pauses of at least ``floor_s``."""
        self.count = 0
        self.total_s = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started = self.now()
            return
        ended = self.now()
        took = ended - self._started
        self.count += 1
        self.total_s += took
        if took >= self.floor_s:
            self.recent.append((self._started, ended))

    def install(self) -> None:
        """Time every collection from now on (once per process: idempotent)."""
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def within(self, start: float, end: float) -> float:
        """Seconds of collection pauses between ``start`` and ``end``."""
        paused = 0.0
        for began, ended in reversed(self.recent):
            if ended <= start:
                break
            paused += max(0.0, min(ended, end) - max(began, start))
        return paused


PAUSES: Final = CollectionPauses()
"""This process's collection pauses (``Table`` installs it)."""
