"""The arena's garbage-collection policy while tables play (arena/gc_policy.py).

Specification: issue 25, "Ten thousand tables in one process again": cyclic garbage
collection took three quarters of the CPU of 10,000 tables whose agents await, finding
nothing. While tables play, start-up is frozen out of every collection, the automatic
collections are off, and a full collection runs on the heap's growth (within a pause
budget) and at the safe moments a caller names; afterwards the process's collector is
as it was. The collector's pauses are timed, so that the table can tell them from an
agent that blocks (tests/test_table_replies.py).
"""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Iterator

import pytest

from arena.gc_policy import (
    PAUSES,
    CollectionPauses,
    Collector,
    GcPolicy,
    collecting_while_playing,
)


class Node:
    """A container that can be part of a reference cycle."""

    def __init__(self) -> None:
        self.other: object = None


def make_cycles(count: int) -> None:
    """``count`` pairs of objects that refer to each other, dropped: cyclic garbage."""
    for _ in range(count):
        a, b = Node(), Node()
        a.other, b.other = b, a


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The test process as a command starts: nothing frozen (tests check freezing)."""
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
async def test_while_tables_play_start_up_is_frozen_and_automatic_collection_is_off() -> None:
    thresholds = gc.get_threshold()
    async with collecting_while_playing() as collector:
        assert gc.get_freeze_count() > 0  # modules, config, tables: never walked again
        assert gc.get_threshold()[0] == 0  # no automatic collection
        before = gc.get_count()[0]
        make_cycles(5_000)  # 10,000 containers: CPython would have collected 14 times
        assert gc.get_count()[0] >= before + 10_000
        assert collector.full_collections == 0
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() == 0


@pytest.mark.usefixtures("unfrozen")
async def test_runs_that_overlap_share_one_collector_and_the_last_one_restores() -> None:
    thresholds = gc.get_threshold()
    first = collecting_while_playing()
    outer = await first.__aenter__()
    async with collecting_while_playing() as inner:
        assert inner is outer
    assert gc.get_threshold()[0] == 0  # the first run still plays
    await first.__aexit__(None, None, None)
    assert gc.get_threshold() == thresholds
    assert gc.get_freeze_count() == 0


async def test_what_was_frozen_before_stays_frozen() -> None:
    gc.freeze()
    try:
        async with collecting_while_playing():
            pass
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
async def test_a_safe_moment_collects_the_cyclic_garbage_and_counts_it() -> None:
    async with collecting_while_playing() as collector:
        make_cycles(1_000)
        assert collector.collect() >= 2_000
        assert collector.full_collections == 1
        assert collector.unreachable >= 2_000
        assert collector.paused_s > 0


def grow_heap(collector: Collector, share: float) -> list[Node]:
    """Live objects enough to grow the heap by more than ``share`` since the collector's
    last full collection."""
    kept: list[Node] = []
    while collector.growth() <= share:
        kept.extend(Node() for _ in range(1_000))
    return kept


NO_BUDGET = {"pause_share": 1.0, "first_pause_per_block_s": 0.0}
"""A budget that never holds a collection back (its first pause estimated at nothing)."""


@pytest.mark.usefixtures("unfrozen")
async def test_the_heaps_growth_brings_a_full_collection() -> None:
    policy = GcPolicy(growth=0.02, **NO_BUDGET)
    async with collecting_while_playing(policy) as collector:
        assert not collector.collect_if_grown()  # nothing grew yet
        make_cycles(1_000)
        kept = grow_heap(collector, 0.02)
        assert collector.collect_if_grown()
        assert collector.unreachable >= 2_000
        assert not collector.collect_if_grown()  # measured from there again
        del kept


@pytest.mark.usefixtures("unfrozen")
async def test_the_pause_budget_holds_growth_back_until_the_heap_reaches_its_limit() -> None:
    # a budget so small that a collection on growth could come only in years
    policy = GcPolicy(growth=0.02, pause_share=1e-12, growth_limit=0.06)
    async with collecting_while_playing(policy) as collector:
        kept = grow_heap(collector, 0.03)
        assert not collector.collect_if_grown()  # grown, but not worth its pause yet
        kept += grow_heap(collector, 0.06)
        assert collector.collect_if_grown()  # grown to the limit: memory comes first
        kept += grow_heap(collector, 0.03)
        assert not collector.collect_if_grown()  # the budget, now from that pause
        assert collector.full_collections == 1
        del kept


@pytest.mark.usefixtures("unfrozen")
async def test_growth_counts_from_the_heap_of_the_tables_begun() -> None:
    async with collecting_while_playing(GcPolicy(growth=0.02, **NO_BUDGET)) as collector:
        kept = grow_heap(collector, 0.1)  # the tables' first requests and deals
        collector.rebase()  # the watcher's first look
        assert not collector.collect_if_grown()
        kept += grow_heap(collector, 0.02)
        assert collector.collect_if_grown()
        del kept


@pytest.mark.usefixtures("unfrozen")
async def test_the_watcher_collects_on_growth_by_itself() -> None:
    policy = GcPolicy(growth=0.02, check_every_s=0.001, **NO_BUDGET)
    collected = asyncio.Event()

    def heard(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            collected.set()

    gc.callbacks.append(heard)
    try:
        async with collecting_while_playing(policy) as collector:
            kept: list[Node] = []
            while not collected.is_set():  # the heap grows while the watcher looks
                kept.extend(Node() for _ in range(1_000))
                await asyncio.sleep(0)
            assert collector.full_collections == 1
            del kept
    finally:
        gc.callbacks.remove(heard)


def test_pauses_are_kept_and_summed_over_a_window() -> None:
    now = iter([10.0, 10.4, 11.0, 11.0005, 12.0, 12.5]).__next__
    pauses = CollectionPauses(now, floor_s=0.001)
    for _ in range(3):
        pauses("start", {"generation": 0})
        pauses("stop", {"generation": 0})
    assert pauses.count == 3
    assert list(pauses.recent) == [(10.0, 10.4), (12.0, 12.5)]  # not the 0.5 ms one
    assert pauses.within(10.2, 12.1) == pytest.approx(0.3)
    assert pauses.within(10.5, 11.9) == 0.0


def test_the_tables_clock_of_pauses_is_installed_once() -> None:
    PAUSES.install()
    PAUSES.install()
    assert gc.callbacks.count(PAUSES) == 1
