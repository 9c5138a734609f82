"""Tractor at the table: whole rounds per second with scripted seats, beside Dou Dizhu's,
and the arena's own work per decision.

Run: ``python -m benchmarks.bench_tractor_table`` (``--quick`` for a short run).

(a) Rounds per second through the whole table (every event to a sink, a replay written
    to a temporary file) with ``random`` seats: Tractor with 4 and with 6 seats, Dou
    Dizhu's 3, and Tractor's bare engine playing the same kind of random rounds.
(b) Per decision (a declaration, a burial or a play): the table's whole time, the
    agents' share (each answer timed where it is made), the engine's share (the bare
    engine's random rounds, per decision), and what is left: the arena's own work
    (requests built from the seat's view, replies read and checked, events, the replay).
    It must stay well under a millisecond.

Times are process CPU time; each figure is the best of ``--repeats`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.games.ddz.agents.scripted import RandomAgent as DdzRandom
from arena.games.registry import get_game
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import Round, TractorRules, play_random_round
from arena.replay import ReplayWriter
from arena.table import Table, TableSettings, play_match
from benchmarks.bench_table import CountingSink

SETTINGS = TableSettings(auto_pass=True)


class TimedRandom(RandomAgent):
    """Tractor's random agent, its answers timed where they are made."""

    spent = 0.0
    decisions = 0

    async def declare(self, request: Any) -> Any:
        started = time.process_time()
        reply = await super().declare(request)
        TimedRandom.spent += time.process_time() - started
        TimedRandom.decisions += 1
        return reply

    async def bury(self, request: Any) -> Any:
        started = time.process_time()
        reply = await super().bury(request)
        TimedRandom.spent += time.process_time() - started
        TimedRandom.decisions += 1
        return reply

    async def play(self, request: Any) -> Any:
        started = time.process_time()
        reply = await super().play(request)
        TimedRandom.spent += time.process_time() - started
        TimedRandom.decisions += 1
        return reply


async def _table_rounds(game: str, players: int, rounds: int, agent: type) -> tuple[float, int]:
    """CPU seconds per round of a match of at most ``rounds`` rounds (Tractor's ends
    sooner when a team reaches A), and the rounds it played."""
    info = get_game(game)
    rules: Any = None
    if game == "tractor":
        rules = TractorRules.model_validate({"players": players, "round_limit": 1000})
    with tempfile.TemporaryDirectory() as folder:
        replay = ReplayWriter(Path(folder) / "bench.jsonl")
        agents = [agent(f"S{i}", seed=i) for i in range(players)]
        table = Table(
            agents,
            game=info,
            rules=rules,
            settings=SETTINGS,
            sinks=[CountingSink()],
            recorder=replay.for_table("t1"),
        )
        started = time.process_time()
        summary = await play_match(table, rounds=rounds, seed=7)
        spent = time.process_time() - started
        replay.close()
    return spent / len(summary.rounds), len(summary.rounds)


def _engine_round(players: int, seed: int) -> int:
    """One bare random round; its decisions (windows × seats, the burial, the plays)."""
    rnd = Round(TractorRules.model_validate({"players": players}), seed=seed)
    play_random_round(rnd, random.Random(seed))
    windows = sum(1 for a in rnd.actions if type(a).__name__ == "DeclareAction")
    plays = sum(1 for a in rnd.actions if type(a).__name__ == "PlayAction")
    return windows * players + 1 + plays


def engine_per_round(players: int, rounds: int) -> tuple[float, float]:
    """CPU seconds per bare engine round, and decisions per round."""
    decisions = 0
    started = time.process_time()
    for seed in range(rounds):
        decisions += _engine_round(players, seed)
    spent = time.process_time() - started
    return spent / rounds, decisions / rounds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    rounds, repeats = (10, 1) if args.quick else (args.rounds, args.repeats)

    def best(game: str, players: int, agent: type) -> float:
        runs = (asyncio.run(_table_rounds(game, players, rounds, agent)) for _ in range(repeats))
        return min(per_round for per_round, _ in runs)

    print("(a) whole rounds per second through the table (random seats, events, replay)")
    rows = [
        ("Tractor, 4 seats", best("tractor", 4, RandomAgent)),
        ("Tractor, 6 seats", best("tractor", 6, RandomAgent)),
        ("Dou Dizhu, 3 seats", best("ddz", 3, DdzRandom)),
    ]
    for name, per_round in rows:
        print(f"  {name:<22} {1 / per_round:8.0f} rounds/s   {per_round * 1000:6.2f} ms/round")
    for players in (4, 6):
        engine, _ = min(engine_per_round(players, rounds * 3) for _ in range(repeats))
        print(f"  Tractor engine, {players} seats {1 / engine:8.0f} rounds/s (bare, random)")

    print("(b) per decision, Tractor (random seats)")
    for players in (4, 6):
        TimedRandom.spent, TimedRandom.decisions = 0.0, 0
        table, played = asyncio.run(_table_rounds("tractor", players, rounds, TimedRandom))
        decisions = TimedRandom.decisions / played
        agents = TimedRandom.spent / played
        engine, _ = min(engine_per_round(players, rounds * 3) for _ in range(repeats))
        own = (table - agents - engine) / decisions
        print(
            f"  {players} seats: {decisions:5.1f} decisions/round; per decision "
            f"table {table / decisions * 1e6:6.1f} µs = agents {agents / decisions * 1e6:5.1f}"
            f" + engine {engine / decisions * 1e6:5.1f} + arena {own * 1e6:5.1f} µs"
        )


if __name__ == "__main__":
    main()
