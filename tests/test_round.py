"""A round after bidding: doubling, the play loop, spring, settlement and the gift hooks.

Specification: docs/rules.md "Doubling", "Play", "Spring and reverse spring" and
"Scoring", and the gifts' rule that every one of the 54 cards stays in exactly one place.
Scenarios are built from exact deals (:func:`make_deal`) so each rule is exercised on
purpose, not by luck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from arena.errors import IllegalActionError
from arena.games.ddz.engine import (
    DECK,
    PASS,
    WINNER_SIDES,
    Card,
    ComboType,
    DealtCards,
    DoubleAction,
    EffectApplied,
    Phase,
    PlayAction,
    Round,
    Rules,
    TrickWon,
    card,
    settle,
)

CASUAL = Rules(scoring="casual")
COMPETITION = Rules()


def make_deal(seat0: str = "", seat1: str = "", seat2: str = "", bottom: str = "") -> DealtCards:
    """A deal with the named cards where asked; every other card fills the gaps in deck order."""
    wanted = [seat0.split(), seat1.split(), seat2.split(), bottom.split()]
    used = [c for part in wanted for c in part]
    assert len(set(used)) == len(used), "a card is named twice"
    rest = iter(c.text for c in DECK if c.text not in set(used))
    order: list[str] = []
    for part, size in zip(wanted, (17, 17, 17, 3), strict=True):
        assert len(part) <= size
        order += part + [next(rest) for _ in range(size - len(part))]
    return DealtCards.from_order(order)


def cards(text: str) -> list[Card]:
    return [card(t) for t in text.split()]


def snapshot(r: Round) -> dict[str, Any]:
    """Everything observable about a round, to show that a refused action changed nothing."""
    return {
        "phase": r.phase,
        "to_act": r.to_act,
        "hands": r.hands,
        "bottom": r.bottom,
        "landlord": r.landlord,
        "call_score": r.call_score,
        "grabs": r.grabs,
        "doubled": dict(r.doubled),
        "redoubled": r.redoubled,
        "last_play": r.last_play,
        "last_seat": r.last_seat,
        "is_leading": r.is_leading,
        "trick_passes": r.trick_passes,
        "plays_by_seat": list(r.plays_by_seat),
        "played": list(r.played),
        "bombs": r.bombs,
        "rockets": r.rockets,
        "gift_doubles": r.gift_doubles,
        "effects_applied": r.effects_applied,
        "history": tuple(r.history),
        "legal_plays": r.legal_plays(),
        "result": r.result,
    }


def assert_conserved(r: Round) -> None:
    """Each of the 54 cards is in exactly one hand or in the played pile."""
    everywhere = [c for hand in r.hands for c in hand] + list(r.played)
    assert Counter(everywhere) == Counter(DECK)


def lead_singles_until(r: Round, seat: int, cards_left: int = 0) -> None:
    """``seat`` leads its lowest single and the other two pass, until it holds ``cards_left``."""
    while len(r.hand(seat)) > cards_left:
        assert r.to_act == seat
        assert r.is_leading
        r.play(seat, [r.hand(seat)[0]])
        if r.phase is Phase.FINISHED:
            return
        r.pass_turn((seat + 1) % 3)
        r.pass_turn((seat + 2) % 3)


def playing_round(
    deal: DealtCards | None = None, *, rules: Rules = CASUAL, landlord: int = 0, call_score: int = 1
) -> Round:
    """A round in its play phase with the given landlord (nobody doubles under competition)."""
    r = Round(rules, seed=1, deal=deal, landlord=landlord, call_score=call_score)
    while r.phase is Phase.DOUBLING:
        assert r.to_act is not None
        r.double(r.to_act, False)
    assert r.phase is Phase.PLAYING
    return r


# The deal most play tests share; seat 0 is landlord and leads. The gaps fill in deck order:
# seat 0 also holds ♥3 ♦3 ♣3 ♠4 ♦4 ♣4 ♥5 ♦5 ♣5 ♠6 ♥6 and the bottom ♥2 ♦2 ♣2; seat 1 low
# cards 6..10; seat 2 ♣10, the quads of J, Q and A, and ♠2.
TRICK_DEAL = make_deal(
    seat0="♠3 ♠7 ♠K ♥K ♦K ♣K",
    seat1="♠9 ♥9 ♥4",
    seat2="♠5 小王 大王",
)


# --- doubling (加倍) -------------------------------------------------------------------------


@pytest.mark.parametrize("landlord", [0, 1, 2])
def test_farmers_are_asked_in_seat_order_after_the_landlord(landlord: int) -> None:
    r = Round(COMPETITION, seed=1, landlord=landlord, call_score=1)
    assert r.phase is Phase.DOUBLING
    first, second = (landlord + 1) % 3, (landlord + 2) % 3
    assert r.to_act == first
    assert not r.is_redouble_turn
    r.double(first, False)
    assert r.to_act == second


def test_without_a_farmer_double_the_landlord_is_not_asked_and_play_starts() -> None:
    r = Round(COMPETITION, seed=1, landlord=1, call_score=2)
    r.double(2, False)
    r.double(0, False)
    assert r.phase is Phase.PLAYING
    assert r.to_act == 1
    assert r.doubled == {2: False, 0: False}
    assert not r.redoubled
    assert len([a for a in r.history if isinstance(a, DoubleAction)]) == 2


@pytest.mark.parametrize(("first", "second"), [(True, False), (False, True), (True, True)])
@pytest.mark.parametrize("redouble", [True, False])
def test_a_farmer_double_gives_the_landlord_a_redouble_turn(
    first: bool, second: bool, redouble: bool
) -> None:
    r = Round(COMPETITION, seed=1, landlord=0, call_score=1)
    r.double(1, first)
    r.double(2, second)
    assert r.phase is Phase.DOUBLING
    assert r.to_act == 0
    assert r.is_redouble_turn
    r.double(0, redouble)
    assert r.phase is Phase.PLAYING  # type: ignore[comparison-overlap]  # state moved on
    assert r.to_act == 0
    assert r.doubled == {1: first, 2: second}
    assert r.redoubled is redouble
    doubles = [a for a in r.history if isinstance(a, DoubleAction)]
    assert doubles == [
        DoubleAction(1, double=first, redouble=False),
        DoubleAction(2, double=second, redouble=False),
        DoubleAction(0, double=False, redouble=redouble),
    ]


def test_doubling_out_of_turn_or_with_a_non_boolean_is_refused() -> None:
    r = Round(COMPETITION, seed=1, landlord=0, call_score=1)
    before = snapshot(r)
    for seat, value in ((0, True), (2, True), (1, 1), (1, "yes"), (1, None)):
        with pytest.raises(IllegalActionError):
            r.double(seat, value)  # type: ignore[arg-type]
    assert snapshot(r) == before


def test_doubling_is_refused_outside_the_doubling_phase() -> None:
    r = Round(COMPETITION, seed=1, first_bidder=0)
    with pytest.raises(IllegalActionError, match="bidding"):
        r.double(0, True)
    r.bid(0, 3)
    r.double(1, False)
    r.double(2, False)
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="playing"):
        r.double(0, True)
    assert snapshot(r) == before


def test_casual_has_no_doubling_phase() -> None:
    r = Round(CASUAL, seed=1, first_bidder=0)
    r.bid(0, 3)
    assert r.phase is Phase.PLAYING
    assert r.to_act == 0
    with pytest.raises(IllegalActionError):
        r.double(1, True)
    assert r.doubled == {}


def test_the_doubling_phase_is_a_rule_setting() -> None:
    assert Round(Rules(doubling=False), seed=1, landlord=0, call_score=1).phase is Phase.PLAYING
    on = Round(Rules(scoring="casual", doubling=True), seed=1, landlord=0, call_score=1)
    assert on.phase is Phase.DOUBLING


# --- the play loop -------------------------------------------------------------------------


def test_the_landlord_leads_the_first_trick() -> None:
    for landlord in (0, 1, 2):
        r = playing_round(landlord=landlord, rules=COMPETITION)
        assert r.to_act == landlord
        assert r.is_leading
        assert r.last_play is None
        assert PASS not in r.legal_plays()


def test_the_leader_may_not_pass() -> None:
    r = playing_round(TRICK_DEAL)
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="leading"):
        r.pass_turn(0)
    with pytest.raises(IllegalActionError, match="leading"):
        r.play(0, PASS)
    assert snapshot(r) == before


def test_a_single_pass_keeps_the_trick_alive() -> None:
    r = playing_round(TRICK_DEAL)
    lead = r.play(0, ["♠3"])
    r.pass_turn(1)
    assert r.to_act == 2
    assert r.last_play == lead
    assert r.last_seat == 0
    assert r.trick_passes == 1
    assert PASS in r.legal_plays()


def test_two_passes_close_the_trick_and_the_last_player_leads() -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠3"])
    r.pass_turn(1)
    r.play(2, ["♠5"])
    assert r.trick_passes == 0
    r.pass_turn(0)
    r.pass_turn(1)
    assert r.history[-1] == TrickWon(2)
    assert r.to_act == 2
    assert r.is_leading
    assert r.last_play is None
    assert r.trick_passes == 0


def test_a_seat_that_passed_may_play_again_in_the_same_trick() -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠3"])
    r.pass_turn(1)
    r.play(2, ["♠5"])
    r.play(0, ["♠7"])
    r.play(1, ["♠9"])  # seat 1 passed earlier in this trick
    r.pass_turn(2)
    r.pass_turn(0)
    assert r.history[-1] == TrickWon(1)
    assert r.to_act == 1
    assert r.plays_by_seat == [2, 1, 1]


def test_plays_and_passes_are_recorded_in_order() -> None:
    r = playing_round(TRICK_DEAL)
    lead = r.play(0, ["♠3"])
    r.pass_turn(1)
    r.pass_turn(2)
    assert r.history[-4:] == [
        PlayAction(0, lead),
        PlayAction(1, PASS),
        PlayAction(2, PASS),
        TrickWon(0),
    ]


def test_a_play_moves_cards_from_the_hand_to_the_played_pile() -> None:
    r = playing_round(TRICK_DEAL)
    combo = r.play(0, ["♠K", "♥K", "♦K", "♣K"])
    assert combo.type is ComboType.BOMB
    assert len(r.hand(0)) == 16
    assert not set(cards("♠K ♥K ♦K ♣K")) & set(r.hand(0))
    assert r.played == cards("♠K ♥K ♦K ♣K")
    assert_conserved(r)


@pytest.mark.parametrize(
    ("play", "reason"),
    [
        (["♠9"], "not in seat 0's hand"),  # seat 1 holds it
        (["♠3", "♠7"], "not a valid combination"),
        ([], "no cards"),
        (["♠3", "♠3"], "twice"),
        (["♠1"], "♠1"),
        ("♠3", "canonical"),  # a bare string is not a list of cards
    ],
)
def test_an_illegal_lead_is_refused_with_a_reason_and_changes_nothing(
    play: list[str], reason: str
) -> None:
    r = playing_round(TRICK_DEAL)
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match=reason):
        r.play(0, play)
    assert snapshot(r) == before


@pytest.mark.parametrize(
    ("seat", "play", "reason"),
    [
        (1, ["♥4"], "does not beat"),  # a lower single
        (1, ["♠9", "♥9"], "does not beat"),  # a pair on a single
        (2, ["♠5"], "turn"),  # out of turn
        (0, ["♠3"], "turn"),  # the leader again
        (1, ["♠5"], "not in seat 1's hand"),
    ],
)
def test_an_illegal_follow_is_refused_with_a_reason_and_changes_nothing(
    seat: int, play: list[str], reason: str
) -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠7"])
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match=reason):
        r.play(seat, play)
    assert snapshot(r) == before


def test_passing_out_of_turn_is_refused() -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠7"])
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="turn"):
        r.pass_turn(2)
    assert snapshot(r) == before


def test_playing_before_the_play_phase_is_refused() -> None:
    r = Round(COMPETITION, seed=1, deal=TRICK_DEAL, landlord=0, call_score=1)
    assert r.phase is Phase.DOUBLING
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="doubling"):
        r.play(0, ["♠3"])
    with pytest.raises(IllegalActionError, match="doubling"):
        r.pass_turn(1)
    assert snapshot(r) == before


def test_a_bomb_beats_a_single_and_only_a_rocket_beats_that_bomb() -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠3"])
    r.pass_turn(1)
    r.pass_turn(2)
    r.play(0, ["♠7"])
    r.play(1, ["♠9"])
    r.pass_turn(2)
    bomb = r.play(0, ["♠K", "♥K", "♦K", "♣K"])
    assert bomb.type is ComboType.BOMB
    assert [m.type for m in r.legal_moves()] == []  # seat 1 has no bomb or rocket
    r.pass_turn(1)
    # seat 2 holds the bombs of J, Q and A: only the higher one may follow, and the rocket
    assert [(m.type, m.main_rank) for m in r.legal_moves()] == [
        (ComboType.BOMB, 14),
        (ComboType.ROCKET, 17),
    ]
    with pytest.raises(IllegalActionError, match="does not beat"):
        r.play(2, ["♠Q", "♥Q", "♦Q", "♣Q"])
    r.play(2, ["小王", "大王"])
    assert (r.bombs, r.rockets) == (1, 1)
    r.pass_turn(0)
    r.pass_turn(1)
    assert r.history[-1] == TrickWon(2)


def test_four_with_two_is_not_a_bomb_by_default() -> None:
    r = playing_round(TRICK_DEAL)
    combo = r.play(0, ["♠K", "♥K", "♦K", "♣K", "♠3", "♠7"])
    assert combo.type is ComboType.FOUR_WITH_TWO_SINGLES
    assert r.bombs == 0


def test_four_with_two_counts_as_a_bomb_with_quadplex_as_bomb() -> None:
    r = playing_round(TRICK_DEAL, rules=Rules(scoring="casual", quadplex_as_bomb=True))
    r.play(0, ["♠K", "♥K", "♦K", "♣K", "♠3", "♠7"])
    assert r.bombs == 1


def test_with_quadplex_as_bomb_a_lower_quadplex_is_neither_offered_nor_accepted_on_a_bomb() -> None:
    """Seat 2 holds the quads J, Q, A: only quadplexes and bombs of A may follow a bomb of K."""
    r = playing_round(TRICK_DEAL, rules=Rules(scoring="casual", quadplex_as_bomb=True))
    r.play(0, ["♠K", "♥K", "♦K", "♣K"])
    r.pass_turn(1)
    moves = r.legal_moves()
    assert {m.main_rank for m in moves} == {14, 17}  # A quads and the rocket
    assert {m.type for m in moves} == {
        ComboType.BOMB,
        ComboType.FOUR_WITH_TWO_SINGLES,
        ComboType.FOUR_WITH_TWO_PAIRS,
        ComboType.ROCKET,
    }
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="does not beat"):
        r.play(2, ["♠Q", "♥Q", "♦Q", "♣Q", "♠5", "♣10"])
    assert snapshot(r) == before
    r.play(2, ["♠A", "♥A", "♦A", "♣A", "♠5", "♣10"])
    assert r.bombs == 2


# --- hand_type: choosing among readings ---------------------------------------------------

LOOSE = Rules(scoring="casual", loose_wings=True)
PLANES_DEAL = make_deal(
    seat0="♠3 ♥3 ♦3 ♠4 ♥4 ♦4 ♠5 ♥5 ♦5 ♠6 ♥6 ♦6",
    seat1="♠7 ♥7 ♦7 ♠8 ♥8 ♦8 ♠9 ♥9 ♦9 ♠10 ♥10 ♦10",
)
PLANE_333_666 = ["♠3", "♥3", "♦3", "♠4", "♥4", "♦4", "♠5", "♥5", "♦5", "♠6", "♥6", "♦6"]
PLANE_777_TTT = ["♠7", "♥7", "♦7", "♠8", "♥8", "♦8", "♠9", "♥9", "♦9", "♠10", "♥10", "♦10"]


def test_leading_without_hand_type_takes_the_first_reading_in_order() -> None:
    """333444555666 under loose wings is an AIRPLANE of 4 before it is 3 triples + 3 wings."""
    r = playing_round(PLANES_DEAL, rules=LOOSE)
    combo = r.play(0, PLANE_333_666)
    assert (combo.type, combo.length, combo.main_rank) == (ComboType.AIRPLANE, 4, 6)


@pytest.mark.parametrize(
    "hand_type", [ComboType.AIRPLANE_WITH_SINGLES, "AIRPLANE_WITH_SINGLES", "airplane_with_singles"]
)
def test_hand_type_picks_the_reading_when_leading(hand_type: ComboType | str) -> None:
    r = playing_round(PLANES_DEAL, rules=LOOSE)
    combo = r.play(0, PLANE_333_666, hand_type=hand_type)
    assert (combo.type, combo.length, combo.main_rank) == (ComboType.AIRPLANE_WITH_SINGLES, 3, 6)
    assert r.last_play == combo


@pytest.mark.parametrize(
    ("lead_type", "expected"),
    [
        (ComboType.AIRPLANE, (ComboType.AIRPLANE, 4, 10)),
        (ComboType.AIRPLANE_WITH_SINGLES, (ComboType.AIRPLANE_WITH_SINGLES, 3, 10)),
    ],
)
def test_following_takes_the_reading_that_matches_the_trick(
    lead_type: ComboType, expected: tuple[ComboType, int, int]
) -> None:
    r = playing_round(PLANES_DEAL, rules=LOOSE)
    r.play(0, PLANE_333_666, hand_type=lead_type)
    combo = r.play(1, PLANE_777_TTT)
    assert (combo.type, combo.length, combo.main_rank) == expected


def test_a_hand_type_the_cards_cannot_be_is_refused() -> None:
    r = playing_round(PLANES_DEAL, rules=LOOSE)
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="not a STRAIGHT"):
        r.play(0, PLANE_333_666, hand_type="STRAIGHT")
    with pytest.raises(IllegalActionError, match="unknown hand_type"):
        r.play(0, PLANE_333_666, hand_type="JET")
    assert snapshot(r) == before


def test_without_loose_wings_the_plane_has_only_one_reading() -> None:
    r = playing_round(PLANES_DEAL)
    with pytest.raises(IllegalActionError, match="not a AIRPLANE_WITH_SINGLES"):
        r.play(0, PLANE_333_666, hand_type="AIRPLANE_WITH_SINGLES")


def test_a_legal_move_can_be_played_as_a_combo() -> None:
    r = playing_round(TRICK_DEAL)
    move = next(m for m in r.legal_moves() if m.type is ComboType.TRIPLE_WITH_SINGLE)
    assert r.play(0, move) == move
    assert r.last_play == move


# --- the end of the round and spring (春天) ---------------------------------------------------


def test_the_round_ends_when_a_hand_is_empty() -> None:
    r = playing_round(TRICK_DEAL)
    lead_singles_until(r, 0)
    assert r.phase is Phase.FINISHED
    assert r.to_act is None
    assert r.result is not None
    assert r.result.winner_seat == 0
    assert r.result.winners == (0,)
    assert r.result.landlord_won
    assert r.result.final_hands[0] == ()
    assert r.legal_plays() == []
    with pytest.raises(IllegalActionError, match="finished"):
        r.play(1, [r.hand(1)[0]])


def test_spring_when_the_landlord_wins_and_no_farmer_ever_played() -> None:
    r = playing_round(TRICK_DEAL)
    lead_singles_until(r, 0)
    assert r.result is not None
    assert r.result.spring == "spring"
    assert r.result.plays_by_seat == (20, 0, 0)
    assert r.result.common_exponent == 1
    assert r.result.scores == (4, -2, -2)


def test_no_spring_when_a_farmer_played_once() -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠3"])
    r.play(1, ["♥4"])
    r.pass_turn(2)
    r.play(0, ["♣2"])
    r.pass_turn(1)
    r.pass_turn(2)
    lead_singles_until(r, 0)
    assert r.result is not None
    assert r.result.landlord_won
    assert r.result.spring is None
    assert r.result.scores == (2, -1, -1)


# Seat 0 (landlord) holds all four 3s, so any farmer's card beats its lead; seat 2 the rocket.
THREES_DEAL = make_deal(seat0="♠3 ♥3 ♦3 ♣3", seat2="小王 大王")


def test_reverse_spring_when_farmers_win_and_the_landlord_played_only_the_first_lead() -> None:
    r = playing_round(THREES_DEAL)
    r.play(0, ["♠3"])
    r.play(1, [r.hand(1)[0]])
    r.pass_turn(2)
    r.pass_turn(0)
    lead_singles_until(r, 1)
    assert r.result is not None
    assert not r.result.landlord_won
    assert r.result.winner_seat == 1
    assert r.result.winners == (1, 2)
    assert r.result.spring == "reverse_spring"
    assert r.result.plays_by_seat == (1, 17, 0)
    assert r.result.scores == (-4, 2, 2)
    assert r.result.to_dict()["winner_side"] == "farmer"


def test_a_recorded_winner_side_reads_as_the_wire_spells_it() -> None:
    """Results recorded before the engine used the wire's spelling said "farmers"."""
    assert {old: WINNER_SIDES[old] for old in ("landlord", "farmer", "farmers")} == {
        "landlord": "landlord",
        "farmer": "farmer",
        "farmers": "farmer",
    }


def test_no_reverse_spring_when_the_landlord_played_twice() -> None:
    r = playing_round(THREES_DEAL)
    r.play(0, ["♠3"])
    r.pass_turn(1)
    r.pass_turn(2)
    r.play(0, ["♥3"])
    r.play(1, [r.hand(1)[0]])
    r.pass_turn(2)
    r.pass_turn(0)
    lead_singles_until(r, 1)
    assert r.result is not None
    assert not r.result.landlord_won
    assert r.result.spring is None
    assert r.result.scores == (-2, 1, 1)


def test_the_other_farmer_can_win_a_reverse_spring_too() -> None:
    r = playing_round(THREES_DEAL)
    r.play(0, ["♠3"])
    r.pass_turn(1)
    r.play(2, [r.hand(2)[0]])
    r.pass_turn(0)
    r.pass_turn(1)
    lead_singles_until(r, 2)
    assert r.result is not None
    assert r.result.winner_seat == 2
    assert r.result.spring == "reverse_spring"


# --- scoring through a whole round ----------------------------------------------------------


def test_competition_scores_each_farmer_with_their_own_doubling() -> None:
    """Call 2, a bomb, a spring; farmer 1 doubled and the landlord redoubled, farmer 2 did not.

    Farmer 1: exponent 1 + 1 + 1 + 1 = 4, score 2 × −1 × 16 = −32. Farmer 2: exponent 2,
    score −8. Landlord: +40.
    """
    r = Round(COMPETITION, seed=1, deal=TRICK_DEAL, landlord=0, call_score=2)
    r.double(1, True)
    r.double(2, False)
    r.double(0, True)
    r.play(0, ["♠K", "♥K", "♦K", "♣K"])
    r.pass_turn(1)
    r.pass_turn(2)
    lead_singles_until(r, 0)
    result = r.result
    assert result is not None
    assert (result.bombs, result.spring) == (1, "spring")
    assert result.common_exponent == 2
    assert result.exponents == {1: 4, 2: 2}
    assert result.scores == (40, -32, -8)
    assert result.doubled == {1: True, 2: False}
    assert result.redoubled


def test_whole_table_doubling_when_per_defender_doubling_is_off() -> None:
    """One farmer's double (and the redouble it allows) applies against both farmers."""
    rules = Rules(per_defender_doubling=False)
    r = Round(rules, seed=1, deal=TRICK_DEAL, landlord=0, call_score=1)
    r.double(1, True)
    r.double(2, False)
    r.double(0, True)
    lead_singles_until(r, 0)
    assert r.result is not None
    assert r.result.exponents == {1: 3, 2: 3}  # spring + double + redouble
    assert r.result.scores == (16, -8, -8)


def test_a_rocket_doubles_the_casual_stake() -> None:
    """Farmers win with a rocket played: M = 3 × 2¹, each farmer +6, landlord −12."""
    r = playing_round(THREES_DEAL, call_score=3)
    r.play(0, ["♠3"])
    r.pass_turn(1)
    r.pass_turn(2)
    r.play(0, ["♥3"])
    r.pass_turn(1)
    r.play(2, ["小王", "大王"])
    r.pass_turn(0)
    r.pass_turn(1)
    lead_singles_until(r, 2)
    result = r.result
    assert result is not None
    assert (result.rockets, result.bombs, result.spring) == (1, 0, None)
    assert result.scores == (-12, 6, 6)


def test_scores_in_the_result_follow_the_seats_whoever_is_landlord() -> None:
    r = playing_round(landlord=2, call_score=2)
    lead_singles_until(r, 2)
    assert r.result is not None
    assert r.result.scores == (-4, -4, 8)


# --- settle(): the formula on its own -------------------------------------------------------

PER_TABLE = Rules(per_defender_doubling=False)
SETTLE_CASES: list[tuple[str, Rules, dict[str, Any], tuple[int, int, int], dict[int, int]]] = [
    ("plain landlord win", COMPETITION, {}, (2, -1, -1), {1: 0, 2: 0}),
    ("plain farmer win", COMPETITION, {"landlord_won": False}, (-2, 1, 1), {1: 0, 2: 0}),
    ("call score is the base", COMPETITION, {"call_score": 3}, (6, -3, -3), {1: 0, 2: 0}),
    (
        "bombs, rockets and spring are common",
        COMPETITION,
        {"bombs": 2, "rockets": 1, "spring": True},
        (32, -16, -16),
        {1: 4, 2: 4},
    ),
    (
        "one farmer doubles",
        COMPETITION,
        {"doubled": {1: True, 2: False}},
        (3, -2, -1),
        {1: 1, 2: 0},
    ),
    (
        "redouble applies only against the farmer who doubled",
        COMPETITION,
        {"doubled": {1: False, 2: True}, "redoubled": True, "landlord_won": False},
        (-5, 1, 4),
        {1: 0, 2: 2},
    ),
    (
        "both double, landlord redoubles",
        COMPETITION,
        {"doubled": {1: True, 2: True}, "redoubled": True, "call_score": 2},
        (16, -8, -8),
        {1: 2, 2: 2},
    ),
    (
        "a redouble without a double is nothing",
        COMPETITION,
        {"redoubled": True},
        (2, -1, -1),
        {1: 0, 2: 0},
    ),
    (
        "grabs and viewer doubles are common",
        COMPETITION,
        {"grabs": 2, "gift_doubles": 1},
        (16, -8, -8),
        {1: 3, 2: 3},
    ),
    (
        "whole table: one double applies to both",
        PER_TABLE,
        {"doubled": {1: True, 2: False}},
        (4, -2, -2),
        {1: 1, 2: 1},
    ),
    (
        "whole table: a redouble applies to both",
        PER_TABLE,
        {"doubled": {1: False, 2: True}, "redoubled": True, "landlord_won": False},
        (-8, 4, 4),
        {1: 2, 2: 2},
    ),
    # casual scoring, landlord winning (the classic table of examples)
    ("casual 普通局", CASUAL, {}, (2, -1, -1), {1: 0, 2: 0}),
    ("casual 高分局", CASUAL, {"call_score": 3}, (6, -3, -3), {1: 0, 2: 0}),
    ("casual 炸弹局", CASUAL, {"call_score": 2, "bombs": 2}, (16, -8, -8), {1: 2, 2: 2}),
    (
        "casual 春天局",
        CASUAL,
        {"call_score": 3, "bombs": 1, "spring": True},
        (24, -12, -12),
        {1: 2, 2: 2},
    ),
    (
        "casual farmers win with a rocket",
        CASUAL,
        {"rockets": 1, "landlord_won": False},
        (-4, 2, 2),
        {1: 1, 2: 1},
    ),
]


@pytest.mark.parametrize(
    ("rules", "overrides", "scores", "exponents"),
    [case[1:] for case in SETTLE_CASES],
    ids=[case[0] for case in SETTLE_CASES],
)
def test_settle(
    rules: Rules,
    overrides: dict[str, Any],
    scores: tuple[int, int, int],
    exponents: dict[int, int],
) -> None:
    facts: dict[str, Any] = {
        "landlord": 0,
        "call_score": 1,
        "landlord_won": True,
        "bombs": 0,
        "rockets": 0,
        "spring": False,
        "grabs": 0,
        "gift_doubles": 0,
        "doubled": {},
        "redoubled": False,
    }
    settlement = settle(rules, **(facts | overrides))
    assert settlement.scores == scores
    assert dict(settlement.exponents) == exponents
    assert sum(settlement.scores) == 0


@pytest.mark.parametrize("landlord", [0, 1, 2])
def test_settle_puts_the_landlords_score_on_its_seat(landlord: int) -> None:
    farmers = [s for s in range(3) if s != landlord]
    settlement = settle(
        COMPETITION,
        landlord=landlord,
        call_score=1,
        landlord_won=False,
        bombs=0,
        rockets=0,
        spring=False,
        grabs=0,
        gift_doubles=0,
        doubled={farmers[0]: True, farmers[1]: False},
        redoubled=False,
    )
    assert settlement.scores[landlord] == -3
    assert settlement.scores[farmers[0]] == 2
    assert settlement.scores[farmers[1]] == 1
    assert set(settlement.exponents) == set(farmers)


# --- gift hooks: swap, transfer, viewer double ------------------------------------------------


def test_a_swap_exchanges_two_cards_and_keeps_every_card_once() -> None:
    r = playing_round(TRICK_DEAL)
    r.swap_cards(0, "♠3", 2, "大王")
    assert card("大王") in r.hand(0)
    assert card("♠3") in r.hand(2)
    assert card("♠3") not in r.hand(0)
    assert [len(h) for h in r.hands] == [20, 17, 17]
    assert list(r.hand(0)) == sorted(r.hand(0))
    assert r.history[-1] == EffectApplied("swap", (0, 2), (card("♠3"), card("大王")))
    assert r.effects_applied == 1
    assert_conserved(r)


def test_a_swap_changes_the_moves_the_seat_can_make() -> None:
    r = playing_round(TRICK_DEAL)
    assert not any(m.type is ComboType.ROCKET for m in r.legal_moves())
    r.swap_cards(0, "♠3", 2, "大王")
    r.swap_cards(0, "♠7", 2, "小王")
    assert any(m.type is ComboType.ROCKET for m in r.legal_moves())
    r.play(0, ["小王", "大王"])
    assert r.rockets == 1


def test_a_transfer_moves_one_card_and_keeps_every_card_once() -> None:
    r = playing_round(TRICK_DEAL)
    r.transfer_card(1, 2, "♠9")
    assert [len(h) for h in r.hands] == [20, 16, 18]
    assert card("♠9") in r.hand(2)
    assert r.history[-1] == EffectApplied("transfer", (1, 2), (card("♠9"),))
    assert_conserved(r)


@pytest.mark.parametrize(
    "hook",
    [
        lambda r: r.swap_cards(0, "♠9", 1, "♠3"),  # each card is in the other hand
        lambda r: r.swap_cards(0, "♠3", 0, "♠7"),  # one seat
        lambda r: r.swap_cards(0, "♠3", 3, "♠9"),  # no seat 3
        lambda r: r.swap_cards(True, "♠9", 0, "♠3"),  # a bool is not a seat
        lambda r: r.swap_cards(0, "♠3", 1, "♠1"),  # not a card
        lambda r: r.swap_cards(0, "♠7", 1, "♠9"),  # ♠7 is already played
        lambda r: r.transfer_card(0, 1, "♠9"),  # not in the source hand
        lambda r: r.transfer_card(1, 1, "♠9"),  # one seat
        lambda r: r.transfer_card(5, 1, "♠9"),  # no seat 5
    ],
)
def test_a_gift_hook_with_bad_cards_or_seats_is_refused_and_changes_nothing(hook: Any) -> None:
    r = playing_round(TRICK_DEAL)
    r.play(0, ["♠7"])
    before = snapshot(r)
    with pytest.raises(ValueError):  # noqa: PT011 - IllegalActionError or a notation error
        hook(r)
    assert snapshot(r) == before


@pytest.mark.parametrize("target", [3, -1, True])
def test_a_transfer_to_a_seat_that_does_not_exist_is_refused_and_changes_nothing(
    target: int,
) -> None:
    """Regression: the target was once unchecked; 3 lost the card and -1 gave it to seat 2."""
    r = playing_round(TRICK_DEAL)
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="no seat"):
        r.transfer_card(1, target, "♠9")
    assert snapshot(r) == before
    assert_conserved(r)


def test_a_transfer_never_empties_a_hand() -> None:
    r = playing_round(TRICK_DEAL)
    lead_singles_until(r, 0, cards_left=1)
    assert len(r.hand(0)) == 1
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="no cards"):
        r.transfer_card(0, 1, r.hand(0)[0])
    assert snapshot(r) == before
    r.transfer_card(1, 0, r.hand(1)[0])  # giving the last-card seat one more is fine
    assert len(r.hand(0)) == 2
    assert_conserved(r)


def test_cards_change_hands_only_during_play() -> None:
    r = Round(COMPETITION, seed=1, deal=TRICK_DEAL, first_bidder=0)
    hooks: list[Callable[[], object]] = [
        lambda: r.swap_cards(0, "♠3", 1, "♠9"),
        lambda: r.transfer_card(1, 0, "♠9"),
    ]
    for hook in hooks:  # bidding
        with pytest.raises(IllegalActionError, match="only during play"):
            hook()
    r.bid(0, 1)
    r.bid(1, 0)
    r.bid(2, 0)
    assert r.phase is Phase.DOUBLING
    for hook in hooks:
        with pytest.raises(IllegalActionError, match="only during play"):
            hook()
    r.double(1, False)
    r.double(2, False)
    lead_singles_until(r, 0)
    assert r.phase is Phase.FINISHED  # type: ignore[comparison-overlap]  # state moved on
    before = snapshot(r)
    for hook in hooks:
        with pytest.raises(IllegalActionError, match="only during play"):
            hook()
    assert snapshot(r) == before
    assert r.effects_applied == 0


def test_a_viewer_double_adds_one_to_the_common_exponent() -> None:
    r = playing_round(TRICK_DEAL)
    assert r.add_gift_double() == 1
    assert r.history[-1] == EffectApplied("double", ())
    lead_singles_until(r, 0)
    assert r.result is not None
    assert r.result.gift_doubles == 1
    assert r.result.common_exponent == 2  # spring + the gift
    assert r.result.scores == (8, -4, -4)


def test_viewer_doubles_are_capped() -> None:
    r = playing_round(TRICK_DEAL)
    assert r.add_gift_double() == 1
    assert r.add_gift_double() == 2
    before = snapshot(r)
    with pytest.raises(IllegalActionError, match="cap"):
        r.add_gift_double()
    assert snapshot(r) == before
    assert r.gift_doubles == 2


@pytest.mark.parametrize("cap", [0, 1, 3])
def test_the_viewer_double_cap_is_a_rule_setting(cap: int) -> None:
    r = Round(Rules(max_gift_doubles=cap), seed=1)
    for expected in range(1, cap + 1):
        assert r.add_gift_double() == expected
    with pytest.raises(IllegalActionError):
        r.add_gift_double()


def test_a_viewer_double_may_come_before_play_but_not_after_the_round() -> None:
    r = Round(COMPETITION, seed=1, first_bidder=0)
    r.add_gift_double()  # during bidding
    r.bid(0, 1)
    r.bid(1, 0)
    r.bid(2, 0)
    r.add_gift_double()  # during doubling
    assert r.gift_doubles == 2
    r.double(1, False)
    r.double(2, False)
    lead_singles_until(r, 0)
    with pytest.raises(IllegalActionError, match="over"):
        r.add_gift_double()
    assert r.result is not None
    assert r.result.gift_doubles == 2


def test_rounds_touched_by_effects_say_so_in_the_result() -> None:
    touched = playing_round(TRICK_DEAL)
    touched.swap_cards(1, "♠9", 2, "♠5")
    touched.transfer_card(2, 1, "♠9")
    touched.add_gift_double()
    lead_singles_until(touched, 0)
    assert touched.result is not None
    assert touched.result.effects_applied == 3
    assert touched.result.to_dict()["effects_applied"] == 3

    untouched = playing_round(TRICK_DEAL)
    lead_singles_until(untouched, 0)
    assert untouched.result is not None
    assert untouched.result.effects_applied == 0
