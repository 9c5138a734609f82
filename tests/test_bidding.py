"""Bidding: who becomes landlord, at what call score, and what happens when nobody bids.

Specification: docs/rules.md "The deal", "Bidding" and "The bottom cards". Variants:
``single_round`` (default), ``until_settled`` (bids go round until two passes follow the
last bid), ``grab`` (叫地主/抢地主), a fixed landlord (轮庄) and skipping bidding (角色互换).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from arena.errors import IllegalActionError
from arena.games.ddz.engine import (
    DECK,
    BidAction,
    Dealt,
    DealtCards,
    LandlordChosen,
    Phase,
    Round,
    Rules,
)

CASUAL = Rules(scoring="casual")


def snapshot(r: Round) -> dict[str, Any]:
    """Everything observable about a round, to show that a refused action changed nothing."""
    return {
        "phase": r.phase,
        "to_act": r.to_act,
        "hands": r.hands,
        "deal": r.deal,
        "deal_number": r.deal_number,
        "first_bidder": r.first_bidder,
        "landlord": r.landlord,
        "call_score": r.call_score,
        "grabs": r.grabs,
        "forced_landlord": r.forced_landlord,
        "doubled": dict(r.doubled),
        "redoubled": r.redoubled,
        "legal_bids": r.legal_bids(),
        "highest": r.auction.highest,
        "history": tuple(r.history),
        "played": tuple(r.played),
    }


def bid_in_turn(r: Round, values: list[int]) -> list[int]:
    """Each value is bid by whoever is to act; returns the seats that spoke."""
    speakers = []
    for value in values:
        seat = r.to_act
        assert seat is not None
        speakers.append(seat)
        r.bid(seat, value)
    return speakers


def bids_of(r: Round) -> list[BidAction]:
    return [a for a in r.history if isinstance(a, BidAction)]


def deals_of(r: Round) -> list[Dealt]:
    return [a for a in r.history if isinstance(a, Dealt)]


def finish(r: Round) -> None:
    """Play a round to its end: nobody doubles; the leader plays its lowest single, others pass."""
    for _ in range(500):
        if r.phase is Phase.FINISHED:
            return
        seat = r.to_act
        assert seat is not None
        if r.phase is Phase.DOUBLING:
            r.double(seat, False)
        elif r.is_leading:
            r.play(seat, [r.hand(seat)[0]])
        else:
            r.pass_turn(seat)
    raise AssertionError("the round did not end")


def all_pass_deal(r: Round) -> None:
    """Everyone declines in the current deal (three passes, whatever the variant)."""
    bid_in_turn(r, [0, 0, 0])


# --- single_round (the default) --------------------------------------------------------


@pytest.mark.parametrize("first", [0, 1, 2])
def test_bidding_goes_in_seat_order_from_the_first_bidder(first: int) -> None:
    r = Round(seed=1, first_bidder=first)
    assert r.phase is Phase.BIDDING
    assert r.first_bidder == first
    speakers = bid_in_turn(r, [1, 0, 0])
    assert speakers == [first, (first + 1) % 3, (first + 2) % 3]


def test_the_first_bidder_may_bid_any_score_or_pass() -> None:
    r = Round(seed=1, first_bidder=0)
    assert r.legal_bids() == [3, 2, 1, 0]


def test_a_bid_must_be_higher_than_the_highest_so_far() -> None:
    r = Round(seed=1, first_bidder=0)
    r.bid(0, 2)
    assert r.legal_bids() == [3, 0]
    for too_low in (1, 2):
        with pytest.raises(IllegalActionError):
            r.bid(1, too_low)
    r.bid(1, 3)
    assert r.landlord == 1
    assert r.call_score == 3


def test_a_bid_of_three_ends_bidding_at_once() -> None:
    r = Round(seed=1, first_bidder=1)
    r.bid(1, 3)
    assert r.landlord == 1
    assert r.call_score == 3
    assert r.phase is Phase.DOUBLING
    assert r.legal_bids() == []
    assert len(bids_of(r)) == 1
    with pytest.raises(IllegalActionError):
        r.bid(2, 0)


def test_after_all_three_have_spoken_the_highest_bidder_is_landlord() -> None:
    r = Round(seed=1, first_bidder=0)
    bid_in_turn(r, [1, 2, 0])
    assert r.landlord == 1
    assert r.call_score == 2
    assert r.phase is Phase.DOUBLING


def test_each_seat_speaks_at_most_once() -> None:
    """A lone bid of 1 wins once the other two have passed; the bidder is not asked again."""
    r = Round(seed=1, first_bidder=2)
    bid_in_turn(r, [1, 0, 0])
    assert r.landlord == 2
    assert r.call_score == 1
    assert [b.seat for b in bids_of(r)] == [2, 0, 1]


def test_a_late_lone_bid_wins() -> None:
    r = Round(seed=1, first_bidder=0)
    bid_in_turn(r, [0, 0, 2])
    assert r.landlord == 2
    assert r.call_score == 2


def test_bids_are_recorded_in_history_with_their_mode() -> None:
    r = Round(seed=1, first_bidder=0)
    bid_in_turn(r, [1, 0, 2])
    assert bids_of(r) == [
        BidAction(0, 1, "call_score"),
        BidAction(1, 0, "call_score"),
        BidAction(2, 2, "call_score"),
    ]


# --- redeals ------------------------------------------------------------------------------


def test_all_pass_redeals_with_a_fresh_deal() -> None:
    r = Round(seed=5)
    first_deal = r.deal
    all_pass_deal(r)
    assert r.phase is Phase.BIDDING
    assert r.deal_number == 2
    assert r.landlord is None
    assert r.deal != first_deal
    assert r.hands == r.deal.hands
    assert r.legal_bids() == [3, 2, 1, 0]
    dealt = deals_of(r)
    assert [d.deal_number for d in dealt] == [1, 2]
    assert dealt[1].deal == r.deal
    assert dealt[1].first_bidder == r.first_bidder
    assert r.to_act == r.first_bidder


def test_a_prepared_deal_is_used_first_and_a_redeal_draws_a_new_one() -> None:
    order = list(DECK)
    prepared = DealtCards.from_order(order)
    r = Round(seed=5, deal=prepared, first_bidder=0)
    assert r.deal == prepared
    assert r.hand(0) == tuple(DECK[:17])
    all_pass_deal(r)
    assert r.deal != prepared


def test_redeals_are_capped_then_the_last_first_bidder_is_forced_landlord() -> None:
    """Default cap 3: after the fourth all-pass deal, its first bidder takes it at score 1."""
    r = Round(CASUAL, seed=11)
    for expected_deal in (1, 2, 3):
        assert r.deal_number == expected_deal
        all_pass_deal(r)
        assert r.phase is Phase.BIDDING
    assert r.deal_number == 4
    last_first_bidder = r.first_bidder
    last_deal = r.deal
    all_pass_deal(r)
    assert r.deal_number == 4
    assert r.landlord == last_first_bidder
    assert r.call_score == 1
    assert r.forced_landlord
    assert r.deal == last_deal
    assert len(r.hand(last_first_bidder)) == 20
    chosen = [a for a in r.history if isinstance(a, LandlordChosen)]
    assert chosen == [LandlordChosen(last_first_bidder, 1, last_deal.bottom, forced=True)]
    finish(r)
    assert r.result is not None
    assert r.result.forced_landlord
    assert r.result.deals == 4
    assert r.result.call_score == 1


@pytest.mark.parametrize("cap", [0, 1, 2])
def test_the_redeal_cap_is_a_rule_setting(cap: int) -> None:
    r = Round(Rules(max_redeals=cap), seed=2)
    for _ in range(cap):
        all_pass_deal(r)
        assert r.landlord is None
    all_pass_deal(r)
    assert r.deal_number == cap + 1
    assert r.landlord == r.first_bidder
    assert r.forced_landlord


def test_a_round_with_a_real_bid_is_not_forced() -> None:
    r = Round(CASUAL, seed=2, first_bidder=0)
    all_pass_deal(r)
    bid_in_turn(r, [0, 1, 0])
    assert not r.forced_landlord
    finish(r)
    assert r.result is not None
    assert not r.result.forced_landlord
    assert r.result.deals == 2


def test_the_same_seed_gives_the_same_deals_and_first_bidders() -> None:
    a, b = Round(seed=42), Round(seed=42)
    assert a.deal == b.deal
    assert a.first_bidder == b.first_bidder
    all_pass_deal(a)
    all_pass_deal(b)
    assert a.deal == b.deal
    assert a.first_bidder == b.first_bidder


def test_different_seeds_give_different_deals() -> None:
    assert len({Round(seed=s).deal for s in range(5)}) == 5


def test_first_bidders_are_drawn_at_random_per_deal() -> None:
    assert {Round(seed=s).first_bidder for s in range(30)} == {0, 1, 2}


def test_a_deal_gives_17_cards_each_and_3_bottom_cards() -> None:
    r = Round(seed=9)
    assert [len(h) for h in r.hands] == [17, 17, 17]
    assert len(r.bottom) == 3
    every_card = [c for h in r.hands for c in h] + list(r.bottom)
    assert Counter(every_card) == Counter(DECK)


# --- until_settled ------------------------------------------------------------------------

UNTIL_SETTLED = Rules(bidding="until_settled")


def test_until_settled_ends_after_two_passes_follow_the_last_bid() -> None:
    """1, pass, 2, pass, pass: the 2 is followed by two passes, so its bidder is landlord."""
    r = Round(UNTIL_SETTLED, seed=1, first_bidder=0)
    speakers = bid_in_turn(r, [1, 0, 2, 0])
    assert r.phase is Phase.BIDDING
    assert r.to_act == 1
    speakers += bid_in_turn(r, [0])
    assert speakers == [0, 1, 2, 0, 1]
    assert r.landlord == 2
    assert r.call_score == 2


def test_until_settled_a_bid_then_two_passes_ends_after_three_actions() -> None:
    r = Round(UNTIL_SETTLED, seed=1, first_bidder=1)
    bid_in_turn(r, [1, 0, 0])
    assert r.landlord == 1
    assert r.call_score == 1


def test_until_settled_a_late_bid_gives_the_others_another_turn() -> None:
    """pass, pass, 1: three actions taken but no two passes after the bid yet."""
    r = Round(UNTIL_SETTLED, seed=1, first_bidder=0)
    bid_in_turn(r, [0, 0, 1])
    assert r.phase is Phase.BIDDING
    assert r.to_act == 0
    assert r.legal_bids() == [3, 2, 0]
    bid_in_turn(r, [0, 0])
    assert r.landlord == 2
    assert r.call_score == 1


def test_until_settled_a_seat_that_passed_may_bid_when_asked_again() -> None:
    """until_settled allows a pass or a higher bid on every turn; a pass does not bar a bid."""
    r = Round(UNTIL_SETTLED, seed=1, first_bidder=0)
    bid_in_turn(r, [0, 1, 0, 2, 0, 0])
    assert r.landlord == 0
    assert r.call_score == 2
    assert len(bids_of(r)) == 6


def test_until_settled_outbid_first_bidder_may_raise_again() -> None:
    r = Round(UNTIL_SETTLED, seed=1, first_bidder=0)
    bid_in_turn(r, [1, 2, 0])
    assert r.phase is Phase.BIDDING
    assert r.to_act == 0
    r.bid(0, 3)
    assert r.landlord == 0
    assert r.call_score == 3


def test_until_settled_three_ends_at_once() -> None:
    r = Round(UNTIL_SETTLED, seed=1, first_bidder=2)
    bid_in_turn(r, [1, 3])
    assert r.landlord == 0
    assert r.call_score == 3
    assert r.phase is Phase.DOUBLING


def test_until_settled_all_pass_redeals() -> None:
    r = Round(UNTIL_SETTLED, seed=1)
    all_pass_deal(r)
    assert r.deal_number == 2
    assert r.phase is Phase.BIDDING


# --- grab (叫地主 / 抢地主) ------------------------------------------------------------------

GRAB = Rules(bidding="grab")
GRAB_CASUAL = Rules(scoring="casual", bidding="grab")


def test_grab_bids_are_yes_or_no() -> None:
    r = Round(GRAB, seed=1, first_bidder=0)
    assert r.legal_bids() == [1, 0]
    for value in (2, 3, -1):
        with pytest.raises(IllegalActionError):
            r.bid(0, value)


def test_grab_a_call_nobody_grabs_makes_the_caller_landlord_at_one() -> None:
    r = Round(GRAB, seed=1, first_bidder=0)
    speakers = bid_in_turn(r, [1, 0, 0])
    assert speakers == [0, 1, 2]
    assert r.landlord == 0
    assert r.call_score == 1
    assert r.grabs == 0
    assert all(b.mode == "grab" for b in bids_of(r))


@pytest.mark.parametrize(
    ("values", "speakers", "landlord", "grabs"),
    [
        # caller 0; 1 grabs; 2 does not; caller's last word decides
        ([1, 1, 0, 1], [0, 1, 2, 0], 0, 2),
        ([1, 1, 0, 0], [0, 1, 2, 0], 1, 1),
        # both grab; the last grabber keeps it unless the caller grabs back
        ([1, 1, 1, 0], [0, 1, 2, 0], 2, 2),
        ([1, 1, 1, 1], [0, 1, 2, 0], 0, 3),
        # only the third seat grabs
        ([1, 0, 1, 0], [0, 1, 2, 0], 2, 1),
    ],
)
def test_grab_sequences_from_a_first_seat_caller(
    values: list[int], speakers: list[int], landlord: int, grabs: int
) -> None:
    r = Round(GRAB, seed=1, first_bidder=0)
    assert bid_in_turn(r, values) == speakers
    assert r.landlord == landlord
    assert r.grabs == grabs
    assert r.call_score == 1
    assert r.phase is Phase.DOUBLING


def test_grab_only_seats_after_the_caller_may_grab_and_the_caller_answers_last() -> None:
    """Seat 0 declined to call, so after seat 1 calls and seat 2 grabs, seat 1 speaks next."""
    r = Round(GRAB, seed=1, first_bidder=0)
    bid_in_turn(r, [0, 1, 1])
    assert r.phase is Phase.BIDDING
    assert r.to_act == 1
    r.bid(1, 0)
    assert r.landlord == 2
    assert r.grabs == 1
    assert [b.seat for b in bids_of(r)] == [0, 1, 2, 1]


def test_grab_the_caller_gets_no_last_word_without_a_grab() -> None:
    r = Round(GRAB, seed=1, first_bidder=1)
    bid_in_turn(r, [0, 1, 0])
    assert r.landlord == 2
    assert r.grabs == 0
    assert len(bids_of(r)) == 3


def test_grab_a_call_by_the_last_seat_ends_bidding() -> None:
    r = Round(GRAB, seed=1, first_bidder=2)
    bid_in_turn(r, [0, 0, 1])
    assert r.landlord == 1
    assert r.grabs == 0


def test_grab_nobody_calls_redeals_with_the_same_cap() -> None:
    r = Round(Rules(bidding="grab", max_redeals=1), seed=1)
    all_pass_deal(r)
    assert r.deal_number == 2
    assert r.phase is Phase.BIDDING
    last_first = r.first_bidder
    all_pass_deal(r)
    assert r.forced_landlord
    assert r.landlord == last_first
    assert r.call_score == 1
    assert r.grabs == 0


def test_each_grab_adds_one_to_the_common_exponent() -> None:
    """Two grabs at call score 1 (casual): M = 1 × 2², landlord wins 2M, farmers lose M."""
    r = Round(GRAB_CASUAL, seed=3, first_bidder=0)
    bid_in_turn(r, [1, 1, 1, 0])
    assert (r.landlord, r.grabs) == (2, 2)
    finish(r)
    result = r.result
    assert result is not None
    assert result.grabs == 2
    assert result.landlord_won
    assert result.spring == "spring"  # farmers only passed
    assert result.common_exponent == 3
    assert result.scores == (-8, -8, 16)


def test_grabs_count_in_the_competition_exponent_too() -> None:
    r = Round(GRAB, seed=3, first_bidder=0)
    bid_in_turn(r, [1, 1, 0, 0])
    assert (r.landlord, r.grabs) == (1, 1)
    finish(r)
    assert r.result is not None
    assert r.result.common_exponent == 2  # one grab + spring
    assert r.result.exponents == {0: 2, 2: 2}
    assert r.result.scores == (-4, 8, -4)


# --- fixed landlord (轮庄) and skipping bidding (角色互换) ------------------------------------


@pytest.mark.parametrize("seat", [0, 1, 2])
def test_a_fixed_landlord_is_asked_only_for_its_call_score(seat: int) -> None:
    r = Round(seed=1, landlord=seat)
    assert r.phase is Phase.BIDDING
    assert r.to_act == seat
    assert r.legal_bids() == [3, 2, 1]
    r.bid(seat, 2)
    assert r.landlord == seat
    assert r.call_score == 2
    assert bids_of(r) == [BidAction(seat, 2, "fixed_landlord")]
    assert r.phase is Phase.DOUBLING  # type: ignore[comparison-overlap]  # state moved on


def test_a_fixed_landlord_may_not_pass_and_nobody_else_bids() -> None:
    r = Round(seed=1, landlord=1)
    before = snapshot(r)
    with pytest.raises(IllegalActionError):
        r.bid(1, 0)
    for other in (0, 2):
        with pytest.raises(IllegalActionError):
            r.bid(other, 3)
    assert snapshot(r) == before


def test_a_fixed_landlord_overrides_the_grab_variant() -> None:
    r = Round(GRAB, seed=1, landlord=2)
    assert r.legal_bids() == [3, 2, 1]
    r.bid(2, 3)
    assert (r.landlord, r.call_score, r.grabs) == (2, 3, 0)


@pytest.mark.parametrize(("rules", "phase"), [(Rules(), Phase.DOUBLING), (CASUAL, Phase.PLAYING)])
def test_landlord_and_call_score_skip_bidding(rules: Rules, phase: Phase) -> None:
    r = Round(rules, seed=1, landlord=1, call_score=3)
    assert r.phase is phase
    assert r.landlord == 1
    assert r.call_score == 3
    assert r.legal_bids() == []
    assert len(r.hand(1)) == 20
    assert bids_of(r) == []
    assert [type(a) for a in r.history] == [Dealt, LandlordChosen]
    with pytest.raises(IllegalActionError):
        r.bid(1, 3)


def test_skipped_bidding_in_casual_goes_straight_to_the_landlords_lead() -> None:
    r = Round(CASUAL, seed=1, landlord=2, call_score=1)
    assert r.to_act == 2
    assert r.is_leading


@pytest.mark.parametrize(
    "kwargs",
    [
        {"call_score": 2},  # no landlord
        {"landlord": 0, "call_score": 0},
        {"landlord": 0, "call_score": 4},
        {"landlord": 3},
        {"landlord": -1},
        {"first_bidder": 3},
    ],
)
def test_invalid_round_setup_is_refused(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must"):
        Round(seed=1, **kwargs)  # type: ignore[arg-type]


# --- the bottom cards (底牌) ------------------------------------------------------------------


def test_the_bottom_cards_join_the_landlords_hand_and_are_shown() -> None:
    order = list(DECK)
    deal = DealtCards.from_order(order)
    r = Round(seed=1, deal=deal, first_bidder=0)
    assert r.bottom == tuple(DECK[51:])
    bid_in_turn(r, [0, 2, 0])
    assert r.landlord == 1
    assert len(r.hand(1)) == 20
    assert set(r.hand(1)) == set(DECK[17:34]) | set(DECK[51:])
    assert r.hand(0) == tuple(DECK[:17])
    assert r.hand(2) == tuple(DECK[34:51])
    assert list(r.hand(1)) == sorted(r.hand(1))
    chosen = [a for a in r.history if isinstance(a, LandlordChosen)]
    assert chosen == [LandlordChosen(1, 2, tuple(DECK[51:]), forced=False)]
    assert r.bottom_revealed


def test_the_bottom_is_hidden_information_until_the_landlord_is_known() -> None:
    r = Round(seed=1, first_bidder=0)
    assert not r.bottom_revealed
    assert not any(isinstance(a, LandlordChosen) for a in r.history)
    r.bid(0, 3)
    assert r.bottom_revealed


# --- illegal bids ---------------------------------------------------------------------------


def test_bidding_out_of_turn_is_refused_and_changes_nothing() -> None:
    r = Round(seed=1, first_bidder=0)
    r.bid(0, 1)
    before = snapshot(r)
    for seat in (0, 2):
        with pytest.raises(IllegalActionError, match="turn"):
            r.bid(seat, 2)
    assert snapshot(r) == before


@pytest.mark.parametrize("value", [4, -1, 1.0, "2", True, None])
def test_bids_outside_0_to_3_are_refused_and_change_nothing(value: object) -> None:
    r = Round(seed=1, first_bidder=0)
    before = snapshot(r)
    with pytest.raises(IllegalActionError):
        r.bid(0, value)  # type: ignore[arg-type]
    assert snapshot(r) == before


@pytest.mark.parametrize("value", [1, 2])
def test_a_bid_not_above_the_highest_is_refused_and_changes_nothing(value: int) -> None:
    r = Round(seed=1, first_bidder=0)
    r.bid(0, 2)
    before = snapshot(r)
    with pytest.raises(IllegalActionError):
        r.bid(1, value)
    assert snapshot(r) == before
    r.bid(1, 0)  # the refusal left the turn where it was
    assert r.to_act == 2


def test_bidding_after_the_landlord_is_known_is_refused() -> None:
    r = Round(seed=1, first_bidder=0)
    r.bid(0, 3)
    before = snapshot(r)
    for seat in (0, 1, 2):
        with pytest.raises(IllegalActionError):
            r.bid(seat, 0)
    assert snapshot(r) == before


def test_bidding_during_play_and_after_the_round_is_refused() -> None:
    r = Round(CASUAL, seed=1, landlord=0, call_score=1)
    with pytest.raises(IllegalActionError, match="playing"):
        r.bid(0, 3)
    finish(r)
    with pytest.raises(IllegalActionError, match="finished"):
        r.bid(0, 3)
    assert r.result is not None
