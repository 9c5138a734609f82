"""Bombs by seat (tournaments issue): a round's settlement says who played its bombs and
rockets, so a leaderboard can credit each agent with its own, and results stored before
the count existed still read back."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import given, settings
from test_round_properties import Setup, play_out, setups

from arena.games.ddz.engine import ComboType, PlayAction, Round, is_bomb_like
from arena.games.ddz.engine.records import Settlement
from arena.games.ddz.events import PublicSettlement


def bombs_in_history(r: Round) -> tuple[int, int, int]:
    """Bombs and rockets per seat, counted again from the round's history."""
    counts = [0, 0, 0]
    for action in r.history:
        if isinstance(action, PlayAction) and (
            action.combo.type is ComboType.ROCKET or is_bomb_like(action.combo, r.rules)
        ):
            counts[action.seat] += 1
    return counts[0], counts[1], counts[2]


@settings(max_examples=150, deadline=None)
@given(setup=setups())
def test_each_seat_is_credited_the_bombs_and_rockets_it_played(setup: Setup) -> None:
    r = setup.round()
    play_out(r, random.Random(setup.choices))
    assert r.result is not None
    assert r.result.bombs_by_seat == bombs_in_history(r)
    assert sum(r.result.bombs_by_seat) == r.result.bombs + r.result.rockets
    assert r.result.to_dict()["bombs_by_seat"] == list(r.result.bombs_by_seat)


def bomb_round() -> Round:
    """A random round (seed found by search) in which bombs were played."""
    for seed in range(500):
        r = Round(seed=seed)
        play_out(r, random.Random(seed))
        assert r.result is not None
        if r.result.bombs + r.result.rockets >= 2 and max(r.result.bombs_by_seat) < sum(
            r.result.bombs_by_seat
        ):
            return r  # at least two seats bombed: a per-seat mix-up would show
    raise AssertionError("no random round with bombs from two seats in 500 seeds")


def test_the_public_result_carries_the_count_and_older_results_still_parse() -> None:
    r = bomb_round()
    assert r.result is not None
    data = r.result.to_dict()
    for secret in ("seed", "deal"):
        data.pop(secret)
    public = PublicSettlement.model_validate(json.loads(json.dumps(data)))
    assert public.bombs_by_seat == list(r.result.bombs_by_seat)
    del data["bombs_by_seat"]  # a round recorded before the key existed
    assert PublicSettlement.model_validate(data).bombs_by_seat == [0, 0, 0]


def test_a_settlement_built_without_the_count_credits_no_seat() -> None:
    """What a reader of stored results gets when it does not pass the count on."""
    r = bomb_round()
    assert r.result is not None
    fields = {name: getattr(r.result, name) for name in Settlement.__dataclass_fields__}
    del fields["bombs_by_seat"]
    older = Settlement(**fields)
    assert older.bombs_by_seat == (0, 0, 0)
    assert replace(older, bombs_by_seat=r.result.bombs_by_seat) == r.result
