"""Playing leaves no cyclic garbage: every object a round makes is freed by its count.

Specification: issue 25, "Ten thousand tables in one process again": the arena's
garbage-collection policy (arena/gc_policy.py) turns the automatic collections off while
tables play and collects on the heap's growth, which is sound only if table play leaves
no reference cycles behind. A 180-round tournament left 1,440 unreachable objects
(openskill's rank sorting, 8 a round); a subprocess seat left its reader tasks, their
cancellations' frames and the run they belong to. What the libraries under a seat leave
(asyncio's subprocess pipes, httpx's responses: theirs to fix) is what the policy's
collections on growth are for; none of it may be the arena's.

Each check plays once first: the first match imports and builds what later ones reuse.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import CoroutineType, FrameType
from typing import Any

import pytest
from test_http_agent import StartServer, serve_fixture  # noqa: F401  (the fixture "serve")

from arena.agents.http import HttpAgent
from arena.agents.process import SubprocessAgent
from arena.config import parse_config
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.replay import ReplayWriter
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.table import Table, play_match
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

BOT = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"
OURS = ("arena", "protocol", "gifts", "tournaments")


@contextmanager
def garbage_left() -> Iterator[list[Any]]:
    """What the block leaves unreachable, whichever collection finds it (each one saves
    what it finds while this runs); filled in when the block ends."""
    gc.collect()
    gc.garbage.clear()
    flags = gc.get_debug()
    gc.set_debug(gc.DEBUG_SAVEALL)
    found: list[Any] = []
    try:
        yield found
        gc.collect()
        found.extend(gc.garbage)
    finally:
        gc.set_debug(flags)
        gc.garbage.clear()


def ours(garbage: list[Any]) -> list[str]:
    """The garbage that is the arena's: its objects, and frames and coroutines of its
    code (a task's, kept alive by an exception's traceback)."""
    found = []
    for thing in garbage:
        if isinstance(thing, FrameType | CoroutineType):
            code = thing.f_code if isinstance(thing, FrameType) else thing.cr_code
            module = sys.modules.get(code.co_filename) or code.co_filename
            if any(f"/{package}/" in str(module) for package in OURS):
                found.append(f"{type(thing).__name__} of {code.co_qualname}")
        elif type(thing).__module__.partition(".")[0] in OURS:
            found.append(type(thing).__qualname__)
    return found


async def scripted_match(folder: Path, rounds: int) -> None:
    writer = ReplayWriter(folder / f"replay-{rounds}.jsonl")
    table = Table(
        [RandomAgent("R", seed=1), GreedyAgent("G"), HeuristicAgent("H")],
        sinks=[CollectingSink()],
        recorder=writer.for_table("t1"),
    )
    await play_match(table, rounds=rounds, seed=rounds)
    writer.close()


async def test_scripted_rounds_with_a_sink_and_a_replay_leave_no_cyclic_garbage(
    tmp_path: Path,
) -> None:
    await scripted_match(tmp_path, 1)
    with garbage_left() as garbage:
        await scripted_match(tmp_path, 10)
    assert garbage == []


async def test_arena_play_s_tables_leave_no_cyclic_garbage(tmp_path: Path) -> None:
    """Two tables at once, through the runner's queued sinks."""
    config = parse_config(
        {"match": {"tables": 2, "rounds": 3}, "table": {"pace_s": 0.0}}, source="test"
    )
    await run_arena(config, seed=1, sinks=[CollectingSink()])
    with garbage_left() as garbage:
        writer = ReplayWriter(tmp_path / "replay.jsonl")
        await run_arena(config, seed=2, sinks=[CollectingSink()], replay=writer)
        writer.close()
    assert garbage == []


async def seat_match(agent: Any, rounds: int) -> None:
    table = Table([agent, GreedyAgent("G"), HeuristicAgent("H")], timeouts=[10, None, None])
    await table.open()
    try:
        await play_match(table, rounds=rounds, seed=rounds)
    finally:
        await table.close()


async def test_a_subprocess_seat_leaves_none_of_the_arenas_objects() -> None:
    def program() -> SubprocessAgent:
        return SubprocessAgent("P", command=[sys.executable, str(BOT)])

    await seat_match(program(), 1)
    with garbage_left() as garbage:
        await seat_match(program(), 2)
    assert ours(garbage) == []


async def test_an_http_seat_leaves_none_of_the_arenas_objects(
    serve: StartServer,
) -> None:
    url = serve().url
    await seat_match(HttpAgent("W", url=url), 1)
    with garbage_left() as garbage:
        await seat_match(HttpAgent("W", url=url), 2)
    assert ours(garbage) == []
    assert garbage, "httpx's responses are cycles (if httpx stops making them, say so here)"


def six_agents() -> TournamentConfig:
    kinds = ["random", "greedy", "heuristic"]
    return parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 5, "stages": 2},
            "agents": [{"name": f"{kinds[i % 3]}-{i}", "type": kinds[i % 3]} for i in range(6)],
        },
        source="test",
    )


@pytest.mark.parametrize("workers", [1, 2])
async def test_a_tournament_leaves_no_cyclic_garbage(tmp_path: Path, workers: int) -> None:
    with TournamentStore(tmp_path / "warm.db") as store:
        await run_tournament(store, six_agents(), workers=workers)
    with garbage_left() as garbage, TournamentStore(tmp_path / "cup.db") as store:
        run = await run_tournament(store, six_agents(), workers=workers)
    assert run.leaderboard.rounds >= 12  # four table matches of at least three rounds
    assert garbage == []
