"""Tournament formats (issue 12): when a table match ends, and who won it."""

from __future__ import annotations

import pytest

from arena.games.ddz.agents.scripted import GreedyAgent
from arena.table import Table, play_match
from tournaments.formats import (
    Format,
    LandlordPolicy,
    MatchLength,
    RoundOutcome,
    placings,
    round_wins,
)

LANDLORD_0 = RoundOutcome(winners=(0,), scores=(4, -2, -2))
"""Seat 0 was landlord and won."""
FARMERS_12 = RoundOutcome(winners=(1, 2), scores=(-4, 2, 2))
"""Seat 0 was landlord and lost: both farmers won."""
FARMERS_01 = RoundOutcome(winners=(0, 1), scores=(2, 2, -4))
"""Seat 2 was landlord and lost."""


def test_the_formats_and_policies_are_the_documented_names() -> None:
    assert [f.value for f in Format] == ["quick", "standard", "championship", "daily"]
    assert [p.value for p in LandlordPolicy] == ["bid", "rotate"]
    assert Format("quick") is Format.QUICK


def test_farmers_are_each_credited_a_round_win() -> None:
    assert round_wins([FARMERS_12]) == (0, 1, 1)
    assert round_wins([LANDLORD_0, FARMERS_12, FARMERS_01]) == (2, 2, 1)


def test_quick_stops_when_a_seat_has_three_round_wins() -> None:
    quick = MatchLength.of(Format.QUICK)
    assert (quick.rounds, quick.wins_needed) == (5, 3)
    assert quick.goes_on([])
    assert quick.goes_on([LANDLORD_0, LANDLORD_0])
    assert not quick.goes_on([LANDLORD_0, LANDLORD_0, LANDLORD_0])


def test_quick_counts_a_farmers_win_for_both_farmers() -> None:
    quick = MatchLength.of(Format.QUICK)
    # seat 1 wins as a farmer twice and as a farmer beside seat 0 once: 3 wins
    assert quick.goes_on([FARMERS_12, FARMERS_12])
    assert not quick.goes_on([FARMERS_12, FARMERS_12, FARMERS_01])
    # both farmers reach 3 together: over as well
    assert not quick.goes_on([FARMERS_12] * 3)


def test_quick_stops_after_five_rounds_without_three_wins() -> None:
    quick = MatchLength.of(Format.QUICK)
    seat_1 = RoundOutcome((1,), (-2, 4, -2))
    seat_2 = RoundOutcome((2,), (-2, -2, 4))
    five = [LANDLORD_0, seat_1, LANDLORD_0, seat_1, seat_2]
    assert round_wins(five) == (2, 2, 1)
    assert quick.goes_on(five[:4])
    assert not quick.goes_on(five)


@pytest.mark.parametrize(("format", "rounds"), [(Format.STANDARD, 10), (Format.CHAMPIONSHIP, 20)])
def test_points_formats_play_their_fixed_number_of_rounds(format: Format, rounds: int) -> None:
    length = MatchLength.of(format)
    assert (length.rounds, length.wins_needed) == (rounds, None)
    assert length.goes_on([LANDLORD_0] * (rounds - 1))  # 9 wins do not end it
    assert not length.goes_on([LANDLORD_0] * rounds)


def test_daily_never_ends_by_itself() -> None:
    daily = MatchLength.of(Format.DAILY)
    assert daily.rounds is None
    assert daily.goes_on([LANDLORD_0] * 500)


def test_a_daily_session_counts_after_the_rounds_of_earlier_days() -> None:
    session = MatchLength.of(Format.DAILY, session_rounds=3, played_before=4)
    assert session.rounds == 7
    assert session.goes_on([LANDLORD_0] * 6)
    assert not session.goes_on([LANDLORD_0] * 7)
    with pytest.raises(ValueError, match="at least 1"):
        MatchLength.of(Format.DAILY, session_rounds=0)
    with pytest.raises(ValueError, match="fixed length"):
        MatchLength.of(Format.STANDARD, session_rounds=3)


def test_placings_quick_by_round_wins_then_points() -> None:
    totals = {"A": 10, "B": -4, "C": -6}
    wins = {"A": 1, "B": 3, "C": 3}
    quick = placings(Format.QUICK, ["A", "B", "C"], totals, wins)
    assert [(s.player, s.rank) for s in quick] == [("B", 1), ("C", 2), ("A", 3)]
    standard = placings(Format.STANDARD, ["A", "B", "C"], totals, wins)
    assert [(s.player, s.rank) for s in standard] == [("A", 1), ("B", 2), ("C", 3)]
    assert standard[0].score == 10
    assert standard[0].rounds_won == 1


def test_placings_points_then_round_wins_and_shared_ranks() -> None:
    totals = {"A": 4, "B": 4, "C": 4}
    wins = {"A": 1, "B": 2, "C": 1}
    order = placings(Format.CHAMPIONSHIP, ["A", "B", "C"], totals, wins)
    assert [(s.player, s.rank) for s in order] == [("B", 1), ("A", 2), ("C", 2)]


async def test_a_quick_match_at_a_real_table_ends_as_the_format_says() -> None:
    quick = MatchLength.of(Format.QUICK)
    table = Table([GreedyAgent(n) for n in ("A", "B", "C")])
    summary = await play_match(table, rounds=quick.rounds, seed=5, goes_on=quick.goes_on_after)
    wins = round_wins([r.result for r in summary.rounds])
    assert len(summary.rounds) == 5 or max(wins) == 3
    assert quick.goes_on([r.result for r in summary.rounds[:-1]])  # not a round too late
    assert wins == tuple(summary.rounds_won[p] for p in summary.players)
