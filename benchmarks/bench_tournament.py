"""Tournaments (issue 12): what the store costs, rounds per second with it on and off.

The issue's goal: "A 9-agent tournament of 1,000 rounds with scripted agents: rounds per
second with the store on vs off (goal: the store costs under 20 %)."

Nine scripted agents (three each of random, greedy, heuristic) play a Swiss tournament
of ``championship`` table matches (20 rounds), three tables a stage, enough stages for
``--rounds`` rounds (17 stages: 1,020). The same tournament is played with the store on
(every round written to SQLite in its transaction: header, every message and event, the
result, faults) and off (a store that keeps the tournament and its matches but records
no round: the tables get no recorder). Each run is timed on the CPU clock of this
process, best of ``--repeat`` (the two alternated, so that a slower spell of the machine
slows both), and reported as rounds a second.
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from arena.events import Event
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.store import RoundRecorder, TournamentStore

GOAL = 0.20
"""The store may cost at most this share of the rounds per second without it."""


class MatchEndOnly:
    """A recorder that keeps nothing of a round: it only files a match's summary at its
    end, which the next Swiss stage is paired from (so both runs play the same games)."""

    def __init__(self, store: TournamentStore, match_id: int) -> None:
        self.store = store
        self.match_id = match_id

    def round_started(self, header: dict[str, Any]) -> None:
        """Nothing kept."""

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """Nothing kept."""

    def event(self, event: Event) -> None:
        """The match's end only."""
        if event.type == "match_ended":
            self.store.mark_match_finished(self.match_id, event.data)

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Nothing kept."""

    def flush(self) -> None:
        """Nothing kept, so nothing to write after the match."""


class NoRoundsStore(TournamentStore):
    """The store off: tournaments and matches are kept, rounds are not recorded."""

    def recorder(self, match_id: int) -> RoundRecorder:
        return MatchEndOnly(self, match_id)  # type: ignore[return-value]  # a Recorder too


def nine_agents(stages: int) -> TournamentConfig:
    kinds = ["random", "greedy", "heuristic"]
    return parse_tournament_config(
        {
            "tournament": {
                "name": "bench",
                "format": "championship",
                "seed": 2026,
                "stages": stages,
            },
            "agents": [{"name": f"{kinds[i % 3]}-{i}", "type": kinds[i % 3]} for i in range(9)],
        },
        source="bench",
    )


def timed(store_class: type[TournamentStore], config: TournamentConfig) -> tuple[float, int]:
    """CPU seconds and rounds of one tournament in a fresh database."""
    with tempfile.TemporaryDirectory() as folder:
        with store_class(Path(folder) / "bench.db") as store:
            started = time.process_time()
            run = asyncio.run(run_tournament(store, config))
            spent = time.process_time() - started
        return spent, run.leaderboard.rounds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=1000, help="at least this many rounds")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs each")
    args = parser.parse_args(argv)
    stages = -(-args.rounds // 60)  # three tables of 20 rounds a stage
    config = nine_agents(stages)
    variants = {"off": NoRoundsStore, "on": TournamentStore}
    runs: dict[str, list[tuple[float, int]]] = {label: [] for label in variants}
    for _ in range(args.repeat):  # alternated: a slower spell of the machine hits both
        for label, store_class in variants.items():
            runs[label].append(timed(store_class, config))
    results: dict[str, Any] = {}
    for label, timings in runs.items():
        spent = min(seconds for seconds, _ in timings)
        rounds = timings[0][1]
        results[label] = rounds / spent
        print(
            f"store {label:>3}: {rounds} rounds, best {spent:.2f} s CPU, "
            f"{rounds / spent:,.0f} rounds/s"
        )
    cost = 1 - results["on"] / results["off"]
    verdict = "met" if cost < GOAL else "NOT met"
    print(
        f"the store costs {cost:.0%} of the rounds per second (goal: under {GOAL:.0%}): {verdict}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
