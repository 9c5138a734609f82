"""What ``show`` checks of stored results (issue 25, tournaments/stored_check.py and
Dou Dizhu's part, arena/games/ddz/stored_check.py): real rounds under every scoring
variant check clean, and each kind of edit is named."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest

from arena.agents import Agent
from arena.games.ddz.agents.scripted import HeuristicAgent, RandomAgent
from arena.games.ddz.engine import Rules
from arena.games.registry import get_game
from arena.table import RoundRecord, Table, play_match
from tournaments.stored_check import result_problems

VARIANTS = {
    "competition": Rules.preset("competition"),
    "casual": Rules.preset("casual"),
    "grab": Rules.preset("competition", bidding="grab"),
    "shared doubles": Rules.preset("competition", per_defender_doubling=False),
}
DDZ = get_game("ddz")


def ddz_result_problems(
    rounds: list[tuple[dict[str, Any], RoundRecord]], rules: Rules
) -> list[str]:
    """The stored checks of Dou Dizhu rounds, as ``show`` runs them."""
    return result_problems(rounds, DDZ, rules)


async def _rounds(rules: Rules) -> list[RoundRecord]:
    agents: list[Agent] = [HeuristicAgent("Ann"), HeuristicAgent("Bob"), RandomAgent("Cid", seed=1)]
    summary = await play_match(Table(agents, table_id="s1t1", rules=rules), rounds=100, seed=8)
    return list(summary.rounds)


@pytest.fixture(scope="module")
def played() -> dict[str, list[RoundRecord]]:
    return {name: asyncio.run(_rounds(rules)) for name, rules in VARIANTS.items()}


def stored(records: list[RoundRecord]) -> list[tuple[dict[str, Any], RoundRecord]]:
    return [(record.to_dict(), record) for record in records]


def test_real_rounds_of_every_variant_check_clean(played: dict[str, list[RoundRecord]]) -> None:
    springs = bombs = 0
    for name, records in played.items():
        assert ddz_result_problems(stored(records), VARIANTS[name]) == [], name
        springs += sum(r.result.spring is not None for r in records)
        bombs += sum(r.result.bombs + r.result.rockets for r in records)
    assert springs  # the checks met springs and bombs, not only plain rounds
    assert bombs


def edited(record: RoundRecord, **changes: Any) -> RoundRecord:
    return dataclasses.replace(record, result=dataclasses.replace(record.result, **changes))


def test_each_kind_of_edit_is_named(played: dict[str, list[RoundRecord]]) -> None:
    rules = VARIANTS["competition"]
    record = played["competition"][4]
    result = record.result
    farmer = (result.landlord + 1) % 3
    loser = next(seat for seat in range(3) if seat not in result.winners)
    exponents = {**result.exponents, farmer: result.exponents[farmer] + 1}
    cases = {
        "its stored scores ": edited(record, scores=(9, -4, -5)),
        "its stored exponents ": edited(record, exponents=exponents),
        "it says the landlord ": edited(record, landlord_won=not result.landlord_won),
        "its winners ": edited(record, winners=(loser,)),
        "but the seats left without cards": edited(record, final_hands=tuple(() for _ in range(3))),
        "its bombs by seat ": edited(record, bombs_by_seat=(5, 0, 0)),
        "its winner seat 7 is no seat": edited(record, winner_seat=7),
    }
    for said, changed in cases.items():
        problems = ddz_result_problems([(changed.to_dict(), changed)], rules)
        assert any(said in problem for problem in problems), (said, problems)
        assert all(problem.startswith("table s1t1 round 5: ") for problem in problems)
    by_player = record.to_dict()
    by_player["scores"] = {**by_player["scores"], record.players[0]: 77}
    (problem,) = ddz_result_problems([(by_player, record)], rules)
    assert "its scores by player " in problem


def test_a_spring_that_the_plays_do_not_show_is_named(
    played: dict[str, list[RoundRecord]],
) -> None:
    records = played["competition"]
    plain = next(r for r in records if r.result.spring is None and r.result.landlord_won)
    problems = ddz_result_problems(
        stored([edited(plain, spring="spring")]), VARIANTS["competition"]
    )
    assert any("it says spring, but its plays by seat" in p for p in problems), problems
    reverse = edited(plain, spring="reverse_spring")
    problems = ddz_result_problems(stored([reverse]), VARIANTS["competition"])
    assert any("it says reverse_spring" in p for p in problems), problems
