"""Thousands of tables through ``arena play`` itself: decisions a second against the ideal.

Run: ``python -m benchmarks.bench_play --tables 10000`` (about a minute and a half).

``bench_table``'s concurrent run times bare tables; this one runs the command a user
runs, in this process: ``arena play --no-live`` with its config, sinks (the plain lines,
to a file), garbage-collection policy and runner, every seat an agent that answers after
``--delay`` seconds, as remote models and programs do. Each agent notes when it answers;
a thread notes the process's CPU time. After ``--seconds`` the run is stopped as Ctrl-C
stops it, and the decisions of each 10-s window after the first second are set against
the ideal (every table's agent answering once each ``--delay``).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import ClassVar

from arena.cli import main as arena_main
from arena.games.ddz.messages import BidRequest, BidResponse, PlayRequest, PlayResponse
from arena.gc_policy import PAUSES
from benchmarks.agents import SlowAgent

WINDOW_S = 10.0


class TimedSlowAgent(SlowAgent):
    """A :class:`SlowAgent` that notes the time of each answer (one list for all)."""

    answered_at: ClassVar[list[float]] = []

    async def bid(self, request: BidRequest) -> BidResponse:
        """As SlowAgent's, noted."""
        response = await super().bid(request)
        self.answered_at.append(time.perf_counter())
        return response

    async def play(self, request: PlayRequest) -> PlayResponse:
        """As SlowAgent's, noted."""
        response = await super().play(request)
        self.answered_at.append(time.perf_counter())
        return response


def config_text(tables: int, delay_s: float, rounds: int) -> str:
    """An ``arena play`` config: ``tables`` tables of three timed slow agents."""
    seats = "".join(
        f'[[seats]]\nname = "Slow {name}"\ntype = "benchmarks.bench_play:TimedSlowAgent"\n'
        f"options = {{ delay_s = {delay_s} }}\n"
        for name in "ABC"
    )
    return f"[match]\nrounds = {rounds}\ntables = {tables}\n[table]\npace_s = 0.0\n{seats}"


def answers() -> list[float]:
    """The answers' times of the agents ``arena play`` seats: its seat type is
    ``benchmarks.bench_play:...``, a module apart from ``__main__`` under ``-m``."""
    from benchmarks.bench_play import TimedSlowAgent as Seated

    return Seated.answered_at


class CpuSampler(threading.Thread):
    """Notes (wall, CPU) of this process every 0.2 s, and stops the run (as Ctrl-C
    does) ``stop_after_s`` after the first answer."""

    def __init__(self, stop_after_s: float) -> None:
        super().__init__(daemon=True)
        self.samples: list[tuple[float, float]] = []
        self.stop_after_s = stop_after_s
        self.done = threading.Event()

    def run(self) -> None:
        answered = answers()
        while not self.done.wait(0.2):
            self.samples.append((time.perf_counter(), time.process_time()))
            if answered and time.perf_counter() - answered[0] > self.stop_after_s:
                os.kill(os.getpid(), signal.SIGINT)
                if self.done.wait(30.0):  # stopped; else the signal was lost (a debugger)
                    return

    def cpu_between(self, start: float, end: float) -> float:
        """CPU seconds between two wall times (the nearest samples)."""
        inside = [(w, c) for w, c in self.samples if start <= w <= end]
        return inside[-1][1] - inside[0][1] if len(inside) > 1 else float("nan")


def main(argv: list[str] | None = None) -> int:
    """Run ``arena play`` with timed agents and print each window's share of ideal."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=10_000)
    parser.add_argument("--delay", type=float, default=1.0, help="seconds an agent takes")
    parser.add_argument("--seconds", type=float, default=41.0, help="play measured, then stop")
    parser.add_argument(
        "--goal",
        type=float,
        help="the share of ideal each window should reach (default: the issue's, 0.99 up "
        "to 3,000 tables, 0.9 beyond)",
    )
    args = parser.parse_args(argv)
    windows = int((args.seconds - 1.0) // WINDOW_S)
    if windows < 1:
        parser.error("--seconds must be 11 or more: one 10-s window after the first second")
    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "slow.toml"
        rounds = 100  # longer than the run: every table plays throughout
        config.write_text(config_text(args.tables, args.delay, rounds), encoding="utf-8")
        sampler = CpuSampler(stop_after_s=args.seconds)
        sampler.start()
        lines = Path(folder) / "lines.txt"
        with lines.open("w", encoding="utf-8") as out, contextlib.redirect_stdout(out):
            code = arena_main(["play", "--config", str(config), "--no-live", "--seed", "1"])
        sampler.done.set()
        printed = sum(1 for _ in lines.open(encoding="utf-8"))
    answered = answers()
    if not answered:
        print(f"no decision was made (arena play exited {code})", file=sys.stderr)
        return 1
    start = answered[0] - args.delay  # the first requests went out then
    ideal = args.tables / args.delay
    print(f"arena play, {args.tables:,} tables, agents answer after {args.delay * 1000:g} ms")
    print(f"(exit {code} after the run was stopped; {printed:,} plain lines printed)")
    print(
        f"{'window':<14}{'decisions/s':>14}{'share of ideal':>16}{'CPU/decision':>15}"
        f"{'GC paused':>11}"
    )
    shares = []
    for w in range(windows):
        begin = start + 1.0 + w * WINDOW_S
        end = begin + WINDOW_S
        count = sum(1 for t in answered if begin <= t < end)
        rate = count / WINDOW_S
        shares.append(rate / ideal)
        cpu = sampler.cpu_between(begin, end)
        label = f"{1 + w * WINDOW_S:g}-{1 + (w + 1) * WINDOW_S:g} s"
        per_decision = cpu / max(count, 1) * 1e6
        paused = PAUSES.within(begin, end)
        print(
            f"{label:<14}{rate:>14,.0f}{rate / ideal:>16.0%}{per_decision:>12.0f} µs"
            f"{paused:>9.2f} s"
        )
    goal = args.goal if args.goal is not None else (0.99 if args.tables <= 3000 else 0.9)
    verdict = "PASS" if min(shares) >= goal else "MISS"
    print(f"goal: {goal:.0%} of ideal or better in every window: {verdict}")
    load = os.getloadavg()[0]
    print(f"load average (1 min) at the end: {load:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
