"""Instructions per random round, counted by valgrind: a figure this noisy VM cannot move.

Run: ``python -m benchmarks.bench_instructions`` (needs ``valgrind``; 2-4 minutes).

Wall-clock rates on a shared VM swing by up to 2x between runs, which hides a 10 %
change. Callgrind counts the instructions the CPU executes instead: the same code and
input give the same count whatever else the machine is doing. Each configuration runs in
a child Python under callgrind twice, with 1 and with 1 + N rounds; the difference over N
is the cost of one round, start-up and imports excluded.

Configurations (the same random rounds as ``bench_table``):

- ``engine``: the bare ``Round`` with random legal actions;
- ``floor``: requests, agents and engine checks (no events, replay or asyncio);
- ``table``: the whole table, no sinks and no replay;
- ``table+events+replay``: the whole table with a counting sink and the replay written.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.bench_table import (
    engine_rounds_per_second,
    message_floor_rounds_per_second,
    table_rounds,
)

CONFIGURATIONS = ("engine", "floor", "table", "table+events+replay")

_COLLECTED = re.compile(r"Collected : (\d+)")


def run_rounds(configuration: str, rounds: int) -> None:
    """Play ``rounds`` random rounds in one configuration (the child's work)."""
    # As `arena play` does once set up (arena.cli): objects from start-up are left out of
    # full garbage collections, so a round's count does not depend on what was imported.
    gc.freeze()
    if configuration == "engine":
        engine_rounds_per_second(rounds)
    elif configuration == "floor":
        message_floor_rounds_per_second(rounds)
    elif configuration == "table":
        asyncio.run(table_rounds(rounds, None, with_sink=False))
    else:
        with tempfile.TemporaryDirectory() as folder:
            asyncio.run(table_rounds(rounds, Path(folder) / "bench.jsonl"))


def count(configuration: str, rounds: int) -> int:
    """Instructions of a child process playing ``rounds`` rounds, under callgrind."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "benchmarks.bench_instructions",
        "--child",
        configuration,
        str(rounds),
    ]
    # A fixed hash seed: with a random one, set and dict layouts (and so the counts of the
    # two runs that are subtracted) vary from run to run by tens of thousands a round.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    found = _COLLECTED.search(done.stderr)
    if found is None:
        raise RuntimeError(f"callgrind printed no count:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def per_round(configuration: str, rounds: int) -> float:
    """Instructions of one round: the count at 1 + rounds minus the count at 1, over rounds."""
    return (count(configuration, rounds + 1) - count(configuration, 1)) / rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30, help="rounds counted (default 30)")
    parser.add_argument("--child", nargs=2, metavar=("CONFIG", "ROUNDS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        run_rounds(args.child[0], int(args.child[1]))
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    print(f"instructions per random round, {args.rounds} rounds counted (callgrind)")
    figures = {}
    for configuration in CONFIGURATIONS:
        figures[configuration] = per_round(configuration, args.rounds)
        print(f"{configuration:<24}{figures[configuration] / 1e6:>8.2f} M", flush=True)
    engine = figures["engine"]
    full = figures["table+events+replay"]
    print(f"{'table over engine':<24}{(full - engine) / 1e6:>8.2f} M")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
