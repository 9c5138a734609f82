"""Dou Dizhu's part of a tournament's verify (arena/games/ddz/round_audit.py): the deal
a seed deals, and each way a stored record can disagree with the round played."""

from __future__ import annotations

import random
from types import SimpleNamespace
from typing import Any

import pytest

from arena.games.ddz.engine.records import DealtCards
from arena.games.registry import get_game
from arena.replay_round import RecordedRound

FACTORY = get_game("ddz").round_audit
AUDIT = FACTORY() if FACTORY is not None else None
DEAL = DealtCards.shuffled(random.Random(5))
PLAYED = SimpleNamespace(deal=DEAL, first_bidder=1)


def recorded(header: dict[str, Any] | None = None, **result: Any) -> RecordedRound:
    stored = {"deal": DEAL.to_dict(), "first_bidder": 1, **result}
    return RecordedRound("s1t1", 1, {"seed": 5, **(header or {})}, summary={"result": stored})


def test_dou_dizhu_has_an_audit_whose_deal_is_its_seeds() -> None:
    assert AUDIT is not None
    assert AUDIT.dealt(5) == DEAL.to_dict()
    assert AUDIT.dealt(6) != DEAL.to_dict()
    assert {"bid", "double", "play", "pass"} == AUDIT.actions


def test_a_record_as_played_has_no_problem() -> None:
    assert AUDIT is not None
    assert AUDIT.record_problem(recorded({"first_bidder": 1}), PLAYED) is None


@pytest.mark.parametrize(
    ("changed", "said"),
    [
        ({"deal": {**DEAL.to_dict(), "hands": DEAL.to_dict()["hands"][::-1]}}, "hand of seat 0"),
        ({"deal": {**DEAL.to_dict(), "bottom": []}}, "the stored record's bottom [] is not"),
        ({"first_bidder": 2}, "first bidder is seat 2, the seed's is seat 1"),
    ],
    ids=["hands", "bottom", "first bidder"],
)
def test_each_disagreement_is_named(changed: dict[str, Any], said: str) -> None:
    assert AUDIT is not None
    problem = AUDIT.record_problem(recorded(**changed), PLAYED)
    assert problem is not None
    assert said in problem


def test_the_headers_first_bidder_is_checked_too() -> None:
    assert AUDIT is not None
    problem = AUDIT.record_problem(recorded({"first_bidder": 0}), PLAYED)
    assert problem == "the header's first bidder 0 did not bid first"


def test_a_results_gift_counts_are_named_and_a_ranked_round_refuses_them() -> None:
    from tournaments.verify import _gift_problem

    assert AUDIT is not None
    marks = AUDIT.gift_marks({"effects_applied": 2, "gift_doubles": None})
    assert marks == ((2, "effect(s) applied"), (0, "viewer double(s)"))
    assert _gift_problem(recorded()) is None
    problem = _gift_problem(recorded(effects_applied=0, gift_doubles=1))
    assert problem is not None
    assert problem.endswith(
        "but gifts changed it while it was played (0 effect line(s), 0 effect(s) applied, "
        "1 viewer double(s))"
    )
