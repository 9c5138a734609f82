"""Tractor's rules engine (issue 28): random full rounds per second, and the follow check.

The issue's goals: a follow check under 20 µs on a 25-card hand, and at least 300 random
4-player rounds a second on this machine.

(a) **Rounds per second**: whole rounds (deal, declaration windows, bury, 25 or 16
tricks, the score) played by :func:`arena.games.tractor.engine.play_random_round`: random
declarations, a random bury, random leads (singles, pairs, tractors and some throws,
judged for standing), random legal follows by the fill order, each play checked by the
round as an agent's would be. For 4 and 6 players.

(b) **The follow check**: :func:`arena.games.tractor.engine.check_follow` on 25-card hands
dealt by real rounds (after the trump is fixed), against a lead made from another seat's
hand (singles, pairs, tractors and throws, as :func:`random_lead` makes them), the
proposed follow either legal (the fill order) or a random choice of as many cards (mostly
refused). Per call, the whole call: it builds what the follow must contain from the hand
each time, nothing is cached between calls.

Times are CPU time of this process (``time.process_time``) and wall time; the machine is
shared, so under load the CPU time is the fairer figure. Best of ``--repeats``.

Run: ``.venv/bin/python -m benchmarks.bench_tractor_engine [--rounds N] [--repeats N]``
(about 20 s).
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import time
from collections.abc import Callable

from arena.games.tractor.engine import (
    Play,
    Round,
    TractorRules,
    Trump,
    check_follow,
    classify,
    fill_follow,
    play_random_round,
    random_lead,
)


def best_of(repeats: int, work: Callable[[], int]) -> tuple[float, float, int]:
    """The best CPU and wall seconds of ``repeats`` runs of ``work`` (which returns its
    count of operations)."""
    cpu, wall, count = float("inf"), float("inf"), 0
    for _ in range(repeats):
        c0, w0 = time.process_time(), time.perf_counter()
        count = work()
        cpu = min(cpu, time.process_time() - c0)
        wall = min(wall, time.perf_counter() - w0)
    return cpu, wall, count


def rounds(players: int, count: int) -> Callable[[], int]:
    rules = TractorRules.model_validate({"players": players})

    def work() -> int:
        for seed in range(count):
            play_random_round(Round(rules, seed=seed), random.Random(seed))
        return count

    return work


Case = tuple[tuple[int, ...], tuple[int, ...], Play, Trump]
"""A follow to check: the hand, the proposed follow, the lead, the trump."""


def follow_cases(count: int) -> list[Case]:
    """(hand, proposed follow, lead, trump): half legal follows, half random cards."""
    rng = random.Random(2028)
    cases: list[Case] = []
    seed = 0
    while len(cases) < count:
        seed += 1
        round_ = Round(seed=seed)
        round_.declare({})
        trump = round_.trump
        assert trump is not None
        assert round_.banker is not None
        round_.bury(round_.hands[round_.banker][:8])
        leader = round_.banker
        lead = classify(random_lead(round_.hands[leader], trump, rng), trump)
        for seat in range(4):
            hand = tuple(round_.hands[seat])
            if seat == leader or len(hand) != 25 or len(lead.cards) > len(hand):
                continue
            if len(cases) % 2:
                play = tuple(rng.sample(hand, len(lead.cards)))
            else:
                play = fill_follow(hand, lead, trump, rng)
            cases.append((hand, play, lead, trump))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    print(f"Python {platform.python_version()}, {os.cpu_count()} cores, load {os.getloadavg()}")
    for players in (4, 6):
        cpu, wall, n = best_of(args.repeats, rounds(players, args.rounds))
        print(
            f"{players} players: {n / cpu:7.0f} rounds/s CPU ({1000 * cpu / n:.2f} ms a round), "
            f"{n / wall:7.0f} rounds/s wall"
        )
    cases = follow_cases(args.cases)
    for label, chosen in (
        ("all", cases),
        ("legal", cases[0::2]),
        ("random cards", cases[1::2]),
    ):

        def work(
            chosen: list[tuple[tuple[int, ...], tuple[int, ...], Play, Trump]] = chosen,
        ) -> int:
            for hand, play, lead, trump in chosen:
                check_follow(hand, play, lead, trump)
            return len(chosen)

        cpu, wall, n = best_of(args.repeats, work)
        refused = sum(check_follow(h, p, lead, t) is not None for h, p, lead, t in chosen)
        print(
            f"follow check, {label} ({n}, {refused} refused): {1e6 * cpu / n:5.1f} µs CPU, "
            f"{1e6 * wall / n:5.1f} µs wall"
        )


if __name__ == "__main__":
    main()
