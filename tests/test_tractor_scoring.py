"""Scoring and levels (docs/rules-tractor.md "Scoring and levels"): the kill, the
thresholds at 80, 120 and 160, the next banker, the end of a match at A (or under
``play_through``, a round won as bankers at A), and a round limit.
"""

from __future__ import annotations

import random

import pytest

from arena.errors import SetupError
from arena.games.tractor.engine import (
    Kind,
    Match,
    Round,
    RoundScore,
    TractorRules,
    level_gain,
    match_winner,
    play_random_round,
    settle,
)


def score(
    trick_points: int,
    *,
    kitty_points: int = 0,
    banker: int = 0,
    last_winner: int = 0,
    last_lead: Kind = Kind.SINGLE,
    levels: tuple[int, int] = (5, 5),
    players: int = 4,
) -> RoundScore:
    return settle(
        players=players,
        banker=banker,
        levels=levels,
        trick_points=trick_points,
        kitty_points=kitty_points,
        last_winner=last_winner,
        last_lead=last_lead,
    )


@pytest.mark.parametrize(
    ("points", "gain"),
    [(0, 0), (75, 0), (79, 0), (80, 1), (115, 1), (120, 2), (155, 2), (160, 3), (200, 3), (400, 3)],
)
def test_the_thresholds_are_80_120_and_160(points: int, gain: int) -> None:
    assert level_gain(points) == gain


def test_below_80_the_bankers_go_up_one_and_the_banker_stays() -> None:
    result = score(75, banker=2, last_winner=1)
    assert (result.up_team, result.delta, result.next_banker) == (0, 1, 2)
    assert result.levels_after == (6, 5)
    assert not result.defenders_won


@pytest.mark.parametrize(("points", "after"), [(80, 6), (120, 7), (160, 8)])
def test_the_defenders_go_up_and_take_the_bank_at_exactly_the_threshold(
    points: int, after: int
) -> None:
    result = score(points, banker=0, last_winner=2)
    assert result.defenders_won
    assert result.up_team == 1
    assert result.levels_after == (5, after)


def test_the_next_banker_is_the_defender_who_took_the_last_trick() -> None:
    assert score(90, banker=0, last_winner=3, last_lead=Kind.SINGLE).next_banker == 3


def test_after_a_last_trick_to_the_bankers_the_defender_after_the_banker_banks() -> None:
    result = score(90, banker=2, last_winner=0)
    assert result.multiplier == 0
    assert result.next_banker == 3
    assert score(90, banker=5, last_winner=3, players=6).next_banker == 0  # 6 players


def test_a_kill_doubles_the_kitty_and_a_pair_or_tractor_lead_quadruples_it() -> None:
    assert score(40, kitty_points=25, last_winner=1, last_lead=Kind.SINGLE).defender_points == 90
    assert score(40, kitty_points=25, last_winner=1, last_lead=Kind.THROW).multiplier == 2
    four = score(40, kitty_points=25, last_winner=1, last_lead=Kind.PAIR)
    assert (four.multiplier, four.defender_points, four.delta) == (4, 140, 2)
    assert score(40, kitty_points=25, last_winner=1, last_lead=Kind.TRACTOR).multiplier == 4
    assert score(40, kitty_points=25, last_winner=2, last_lead=Kind.PAIR).defender_points == 40


def test_levels_stop_at_a_and_a_team_reaching_a_wins_the_match() -> None:
    result = score(170, levels=(5, 12), banker=0, last_winner=1)
    assert result.levels_after == (5, 14)
    assert result.delta == 2
    assert match_winner(result, TractorRules()) == 1
    assert match_winner(result, TractorRules(play_through=True)) is None


def test_play_through_a_team_at_a_must_win_a_round_as_bankers_at_a() -> None:
    rules = TractorRules(play_through=True)
    held = score(40, levels=(14, 9), banker=2, last_winner=2)
    assert match_winner(held, rules) == 0
    lost = score(100, levels=(14, 9), banker=2, last_winner=1)
    assert match_winner(lost, rules) is None
    assert lost.levels_after == (14, 10)
    assert match_winner(score(40, levels=(13, 9), banker=0), rules) is None


def test_a_round_limit_ends_the_match_with_the_higher_level_then_the_points() -> None:
    match = Match(TractorRules(round_limit=1), seed=3)
    round_ = match.new_round()
    play_random_round(round_, random.Random(1))
    result = match.record(round_)
    assert match.over
    assert match.winner == result.up_team
    tied = Match(TractorRules(round_limit=1), levels=(3, 3), points=[40, 60])
    assert tied._leader() == 1
    assert Match(levels=(3, 3), points=[50, 50])._leader() is None


def test_a_first_round_needs_equal_levels() -> None:
    with pytest.raises(SetupError):
        Round(seed=1, levels=(2, 3))


def test_the_worked_round_of_the_docs() -> None:
    """docs/rules-tractor.md, "A worked round"."""
    kill = score(60, kitty_points=15, banker=0, last_winner=3, last_lead=Kind.PAIR, levels=(7, 4))
    assert (kill.multiplier, kill.defender_points, kill.delta) == (4, 120, 2)
    assert (kill.levels_after, kill.next_banker) == ((7, 6), 3)
    held = score(60, kitty_points=15, banker=0, last_winner=2, last_lead=Kind.PAIR, levels=(7, 4))
    assert (held.defender_points, held.levels_after, held.next_banker) == (60, (8, 4), 0)
