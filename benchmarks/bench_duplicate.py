"""Duplicate mode (issue 13): how much luck it takes out, measured, not assumed.

The issue's goal: "with scripted agents of known different strength, report the standard
error of an agent's mean score per deal under plain vs duplicate scheduling at equal
rounds (goal: duplicate cuts it by at least 40 %)".

Scripted agents of known different strength (heuristic > greedy > random, see
``tests/test_agent_strength.py``) play ``--replications`` times with independent seeds.
``--roster three``: one of each meets at one table, as a tournament of three agents
plays; at equal rounds, plain plays three standard tournaments pooled (30 rounds, each
its own deal, the agents in their seats throughout) and duplicate one (10 deals × 3
seatings). ``--roster nine``: three of each kind play a Swiss tournament of standard
matches (issue 12's benchmark roster); plain plays ``3 × --stages`` stages, duplicate
``--stages`` stages of 3 seatings: every agent plays the same number of rounds.

An agent's *score per deal* is its points in a round (plain) or its mean over the
seatings of a deal (duplicate); its mean over a replication estimates its strength.
The standard error of that mean is measured directly, as the standard deviation of the
mean across the replications (no independence assumed within a run), and estimated as a
tournament would from one run (the per-deal scores' sd / √deals), averaged over runs.
This is a statistics measurement, not timing: the machine's load does not change it.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

from tournaments.config import parse_tournament_config
from tournaments.deals import deal_table
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

GOAL = 0.40
"""Duplicate must cut the standard error by at least this share."""

KINDS = ["heuristic", "greedy", "random"]
"""The kinds at the table (``--kinds``); a kind given twice seats two agents of it."""

SEATINGS = ["rotations"]
"""``--seatings``: rotations (3 seatings a deal) or all (6)."""

LANDLORD_POLICY = ["bid"]
"""``--landlord-policy``: ``rotate`` fixes the landlord's seat, so the luck of being
landlord with a given hand is what the seatings share too."""


def roster(size: str) -> list[tuple[str, str]]:
    """(name, type) of each agent: one of each kind, or three."""
    if size == "three":
        return [
            (kind.capitalize() + (f"-{i + 1}" if KINDS.count(kind) > 1 else ""), kind)
            for i, kind in enumerate(KINDS)
        ]
    return [(f"{kind.capitalize()}-{n}", kind) for kind in KINDS for n in (1, 2, 3)]


Scores = dict[str, dict[str, list[float]]]
"""Per scoring (``points``, ``matchpoints``), each agent's score per deal, in order."""


async def per_deal_scores(
    store: TournamentStore, seed: int, duplicate: str, size: str, stages: int | None
) -> Scores:
    """Each agent's score per deal over one standard tournament, both ways."""
    settings: dict[str, Any] = {
        "name": "bench",
        "seed": seed,
        "duplicate": duplicate,
        "landlord_policy": LANDLORD_POLICY[0],
    }
    if stages is not None:
        settings["stages"] = stages
    config = parse_tournament_config(
        {
            "tournament": settings,
            "agents": [{"name": name, "type": kind} for name, kind in roster(size)],
        },
        source="bench",
    )
    run = await run_tournament(store, config)
    deals: dict[tuple[str, int], dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    for row in store.rounds(run.tournament_id):
        deal = deals[(deal_table(str(row["table"])), int(row["round_no"]))]
        for player, score in row["scores"].items():
            deal[player].append(int(score))
    scores: Scores = {"points": defaultdict(list), "matchpoints": defaultdict(list)}
    scores["rounds"] = defaultdict(list)
    for _, by_agent in sorted(deals.items()):
        totals = {name: sum(points) for name, points in by_agent.items()}
        for name, points in by_agent.items():
            scores["rounds"][name].extend(points)
            scores["points"][name].append(totals[name] / len(points))  # mean over seatings
            scores["matchpoints"][name].append(
                sum(
                    1.0 if totals[name] > other else 0.5 if totals[name] == other else 0.0
                    for rival, other in totals.items()
                    if rival != name
                )
            )
    return scores


async def replication(folder: Path, index: int, size: str, stages: int) -> dict[str, Scores]:
    """One replication, plain and duplicate at equal rounds (see the module): per mode,
    each agent's per-deal scores."""
    found: dict[str, Scores] = {}
    seatings = 3 if SEATINGS[0] == "rotations" else 6
    for mode in ("off", SEATINGS[0]):
        if size == "three":  # 3 (6) tournaments of 10 rounds, or one of 10 deals × 3 (6)
            runs, run_stages = (seatings if mode == "off" else 1), None
        else:  # one Swiss tournament, 3× (6×) the stages plain
            runs, run_stages = 1, (seatings * stages if mode == "off" else stages)
        pooled: Scores = defaultdict(lambda: defaultdict(list))
        with TournamentStore(folder / f"{mode}-{index}.db") as store:
            for run in range(runs):
                seed = 1_000_003 * index + 7919 * run + (0 if mode == "off" else 500_000)
                scores = await per_deal_scores(store, seed, mode, size, run_stages)
                for scoring, by_agent in scores.items():
                    for name, values in by_agent.items():
                        pooled[scoring][name].extend(values)
        found["off" if mode == "off" else "duplicate"] = pooled
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replications", type=int, default=200)
    parser.add_argument("--roster", choices=("three", "nine"), default="three")
    parser.add_argument("--stages", type=int, default=2, help="duplicate's Swiss stages (nine)")
    parser.add_argument("--landlord-policy", choices=("bid", "rotate"), default="bid")
    parser.add_argument(
        "--kinds",
        default=",".join(KINDS),
        help="the kinds at the table, comma-separated (roster three: exactly 3, e.g. "
        "heuristic,greedy,greedy: no random agent's noise)",
    )
    parser.add_argument("--seatings", choices=("rotations", "all"), default="rotations")
    args = parser.parse_args()
    LANDLORD_POLICY[0] = args.landlord_policy
    SEATINGS[0] = args.seatings
    KINDS[:] = [kind.strip() for kind in args.kinds.split(",")]
    if args.roster == "three" and len(KINDS) != 3:
        parser.error(f"--kinds: roster three seats 3 agents, not {len(KINDS)}")
    seatings = 3 if args.seatings == "rotations" else 6
    # means[scoring][mode][agent]: one mean a replication; within: its 1-run SE
    means: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    within: dict[str, dict[str, dict[str, list[float]]]] = defaultdict(
        lambda: defaultdict(lambda: defaultdict(list))
    )
    counts: dict[str, int] = {}
    # duplicate runs pooled: each agent's round scores and deal means
    pooled_rounds: dict[str, list[float]] = defaultdict(list)
    pooled_deals: dict[str, list[float]] = defaultdict(list)
    with tempfile.TemporaryDirectory() as folder:
        for index in range(args.replications):
            found = asyncio.run(replication(Path(folder), index, args.roster, args.stages))
            dup = found["duplicate"]
            for name, rounds in dup["rounds"].items():
                pooled_rounds[name].extend(rounds)
                pooled_deals[name].extend(dup["points"][name])
            for mode, scores in found.items():
                for scoring, by_agent in scores.items():
                    if scoring == "rounds":
                        continue
                    for name, values in by_agent.items():
                        means[scoring][mode][name].append(statistics.fmean(values))
                        error = statistics.stdev(values) / math.sqrt(len(values))
                        within[scoring][mode][name].append(error)
                        counts[mode] = len(values)
    print(
        f"{args.replications} replications, roster {args.roster}, landlord policy "
        f"{args.landlord_policy}; a run: plain "
        f"{counts['off']} deals (= rounds) an agent, duplicate {counts['duplicate']} deals "
        f"× {seatings} seatings = {seatings * counts['duplicate']} rounds; kinds "
        f"{','.join(KINDS)}"
    )
    for scoring in ("points", "matchpoints"):
        cuts = _report(scoring, args.roster, means[scoring], within[scoring])
        verdict = "met" if min(cuts) >= GOAL else "NOT met"
        print(f"{scoring}: goal (a cut of at least {GOAL:.0%} for every kind): {verdict}\n")
    worth = statistics.median(
        statistics.pvariance(pooled_rounds[name]) / statistics.pvariance(pooled_deals[name])
        for name in pooled_rounds
    )
    print(
        f"a duplicate deal's {seatings} seatings are worth {worth:.1f} independent rounds "
        "(median over the agents of var(round score) / var(deal mean), all runs pooled; "
        f"{seatings}: no luck taken out beyond averaging, {seatings / 0.36:.1f} or more: the "
        "40 % cut)"
    )


def _report(
    scoring: str,
    size: str,
    means: dict[str, dict[str, list[float]]],
    within: dict[str, dict[str, list[float]]],
) -> list[float]:
    """One scoring's table; the cut in the measured SE per kind of agent."""
    print(f"score per deal: {scoring}")
    print(f"{'agent':<10} {'mode':<10} {'mean/deal':>9} {'SE (measured)':>14} {'SE (1 run)':>11}")
    cuts = []
    for kind in dict.fromkeys(KINDS):  # agents of a kind pooled: the RMS of their SEs
        names = [name for name, of in roster(size) if of == kind]
        label = kind if len(names) > 1 else names[0]
        measured = {}
        for mode in ("off", "duplicate"):
            measured[mode] = _rms([statistics.stdev(means[mode][n]) for n in names])
            print(
                f"{label:<10} {'plain' if mode == 'off' else 'duplicate':<10} "
                f"{statistics.fmean(v for n in names for v in means[mode][n]):>9.3f} "
                f"{measured[mode]:>14.3f} "
                f"{_rms([e for n in names for e in within[mode][n]]):>11.3f}"
            )
        cut = 1 - measured["duplicate"] / measured["off"]
        cuts.append(cut)
        print(f"{label:<10} cut in the standard error: {cut:.0%}")
    return cuts


def _rms(values: list[float]) -> float:
    return math.sqrt(statistics.fmean(v * v for v in values))


if __name__ == "__main__":
    main()
