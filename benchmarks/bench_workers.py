"""Tournaments on every core (issue 13): ``--workers 2`` against 1, wall clock.

The issue's goal: "The 9-agent, 1,000-round tournament of issue 9 with ``--workers 2``
vs 1 on this 2-core machine (goal: ≥ 1.6× faster)."

The tournament of ``bench_tournament.py``: nine scripted agents (three each of random,
greedy, heuristic), a Swiss tournament of ``championship`` matches (20 rounds), three
tables a stage, 17 stages: 1,020 rounds, the store on. Each run is a fresh Python
process (as each ``arena tournament run`` is: the workers' start-up is paid in every
run, not once for all) playing it in a fresh database, timed on the wall clock from
``run_tournament``'s call to its end (workers are other processes: the CPU clock of one
would not see them), best of ``--repeat``, the counts alternated so that a slower spell
of the machine slows each. The main process's own CPU time is shown beside it: with
workers it is the writer's and the leaderboard's share. Every run is checked to end
with the standings of the first (timings aside).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_tournament import nine_agents
from tournaments.config import TournamentConfig
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

GOAL = 1.6
"""``--workers 2`` must be at least this many times faster than 1."""

_TIMING = frozenset({"latency_ms", "mean_latency_ms"})


def _standings(board: dict[str, Any]) -> list[dict[str, Any]]:
    """The leaderboard without what a clock measured."""
    return [{k: v for k, v in agent.items() if k not in _TIMING} for agent in board["agents"]]


def timed(config: TournamentConfig, workers: int) -> tuple[float, float, list[dict[str, Any]]]:
    """Wall seconds, this process's CPU seconds and the standings of one tournament."""
    with tempfile.TemporaryDirectory() as folder:
        with TournamentStore(Path(folder) / "bench.db") as store:
            wall, cpu = time.perf_counter(), time.process_time()
            run = asyncio.run(run_tournament(store, config, workers=workers))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return wall, cpu, _standings(run.leaderboard.to_dict())


def in_a_new_process(rounds: int, workers: int) -> tuple[float, float, list[dict[str, Any]]]:
    """:func:`timed` in a fresh Python process."""
    out = subprocess.run(
        [
            sys.executable,
            *("-m", "benchmarks.bench_workers"),
            *("--rounds", str(rounds), "--one", str(workers)),
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    wall, cpu, standings = json.loads(out)
    return float(wall), float(cpu), standings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="at least this many rounds")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs each")
    parser.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1, 2],
        metavar="N",
        help="the worker counts to compare, the first the baseline (default: 1 2)",
    )
    parser.add_argument("--one", type=int, metavar="N", help=argparse.SUPPRESS)  # a child
    args = parser.parse_args(argv)
    config = nine_agents(-(-args.rounds // 60))  # three tables of 20 rounds a stage
    if args.one is not None:
        print(json.dumps(timed(config, args.one)))
        return 0
    runs: dict[int, list[tuple[float, float]]] = {count: [] for count in args.workers}
    first: list[dict[str, Any]] | None = None
    for _ in range(args.repeat):
        for count in args.workers:
            wall, cpu, standings = in_a_new_process(args.rounds, count)
            if first is None:
                first = standings
            elif standings != first:
                raise SystemExit(f"--workers {count} ended with other standings")
            runs[count].append((wall, cpu))
    best = {count: min(timings) for count, timings in runs.items()}
    base = args.workers[0]
    for count, (wall, cpu) in best.items():
        print(
            f"--workers {count}: best {wall:.2f} s wall (main process {cpu:.2f} s CPU), "
            f"{best[base][0] / wall:.2f}× --workers {base}; all: "
            + ", ".join(f"{w:.2f}" for w, _ in runs[count])
        )
    if 2 in best and 1 in best:
        speedup = best[1][0] / best[2][0]
        verdict = "met" if speedup >= GOAL else "NOT met"
        print(f"--workers 2 is {speedup:.2f}× --workers 1 (goal: ≥ {GOAL}×): {verdict}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
