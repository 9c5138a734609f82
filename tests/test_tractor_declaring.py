"""Declaring trump (docs/rules-tractor.md "Declaring trump"): windows in which every
seat's reply counts equally; the strongest declaration wins, a tie to the seat nearest
after the previous banker (never the faster); overcalls strictly stronger; reinforcing;
jokers and nobody declare no-trump; the first banker.
"""

from __future__ import annotations

import pytest
from tractor_cards import cards, deal

from arena.errors import IllegalActionError
from arena.games.tractor.engine import (
    Declaring,
    Phase,
    Round,
    Strength,
    TractorRules,
    TrumpCandidate,
    TrumpLocked,
    declaration_of,
    declarations,
)


def test_the_strength_order_is_that_of_the_rules() -> None:
    made = [
        declaration_of(0, cards(t), 2)
        for t in ("♥2", "♥2 ♥2", "小王", "大王", "小王 小王", "大王 大王")
    ]
    strengths = [d.strength for d in made if not isinstance(d, str)]
    assert strengths == sorted(Strength)


def test_only_level_cards_and_jokers_declare_and_jokers_declare_no_trump() -> None:
    assert declaration_of(0, cards("♥3"), 2) == "only a level card (2) or a joker declares"
    assert (
        declaration_of(0, cards("♥2 ♦2"), 2)
        == "two cards declare only as a pair (two copies of one card)"
    )
    level = declaration_of(1, cards("♦2"), 2)
    joker = declaration_of(1, cards("大王"), 2)
    assert not isinstance(level, str)
    assert level.suit == 2
    assert not isinstance(joker, str)
    assert joker.suit is None


def test_a_tie_goes_to_the_seat_nearest_after_the_previous_banker_whatever_the_reply_order() -> (
    None
):
    for order in ((0, 1, 2, 3), (3, 2, 1, 0)):
        window = Declaring(4, tie_after=2)
        offers = {s: declaration_of(s, cards("♥2" if s % 2 else "♠2", taken=()), 2) for s in order}
        replies = {s: d for s, d in offers.items() if not isinstance(d, str)}
        best = window.window(replies)
        assert best is not None
        assert best.seat == 3


def test_a_stronger_declaration_wins_the_window_and_equal_never_overturns() -> None:
    window = Declaring(4, tie_after=0)
    single = declaration_of(1, cards("♠2"), 2)
    pair = declaration_of(2, cards("♥2 ♥2"), 2)
    assert not isinstance(single, str)
    assert not isinstance(pair, str)
    assert window.window({1: single, 2: pair}) == pair
    other_pair = declaration_of(3, cards("♣2 ♣2"), 2)
    assert not isinstance(other_pair, str)
    with pytest.raises(ValueError, match="only a stronger declaration"):
        window.window({3: other_pair})
    assert window.window({}) is None
    assert window.locked
    assert window.best == pair
    assert window.windows == 2


def test_at_most_seven_windows_each_one_stronger() -> None:
    window = Declaring(4, tie_after=0)
    steps = ["♥2", "♦2 ♦2", "小王", "大王", "小王 小王"]
    for seat, text in enumerate(steps):
        made = declaration_of(seat % 4, cards(text), 2)
        assert not isinstance(made, str)
        window.window({seat % 4: made})
    assert not window.locked
    assert window.window({}) is None
    assert window.locked
    assert window.windows == 6
    # a pair of big jokers cannot be overcalled: it locks at once
    window = Declaring(4, tie_after=0)
    top = declaration_of(2, cards("大王 大王"), 2)
    assert not isinstance(top, str)
    window.window({2: top})
    assert window.locked
    assert window.windows == 1


def test_a_seat_reinforces_its_own_single_with_the_pair() -> None:
    hands = deal({1: "♥2 ♥2"})
    round_ = Round(seed=1, deal=hands)
    single = round_.declaration(1, [hands[1][0]])
    round_.declare({1: single.cards})
    assert [d.strength for d in round_.declaration_options(1)] == [Strength.LEVEL_PAIR]
    round_.declare({1: hands[1][:2]})
    round_.declare({})
    assert round_.phase is Phase.BURYING
    assert round_.banker == 1
    assert round_.trump is not None
    assert round_.trump.suit == 1


def test_the_first_rounds_banker_is_the_seat_whose_declaration_locked() -> None:
    hands = deal({2: "♣2", 3: "小王"})
    round_ = Round(seed=4, deal=hands)
    events = round_.declare({2: hands[2][:1]})
    assert isinstance(events[0], TrumpCandidate)
    events = round_.declare({3: hands[3][:1]})
    events = round_.declare({})
    locked = [e for e in events if isinstance(e, TrumpLocked)]
    assert locked == [TrumpLocked(level=2, suit=None, declarer=3, banker=3)]
    assert round_.hands[3][-8:] == list(hands[-1])  # the kitty, taken


def test_nobody_declaring_plays_no_trump_with_a_banker_drawn_from_the_seed() -> None:
    bankers = set()
    for seed in range(12):
        round_ = Round(seed=seed)
        round_.declare({})
        assert round_.trump is not None
        assert round_.trump.suit is None
        bankers.add(round_.banker)
    assert len(bankers) > 1
    assert Round(seed=5).declare({})[-2] == Round(seed=5).declare({})[-2]


def test_a_later_rounds_banker_is_kept_whoever_declares() -> None:
    hands = deal({1: "♥7"}, avoid_rank=7)
    round_ = Round(seed=3, deal=hands, levels=(7, 3), banker=2)
    assert round_.level == 7
    round_.declare({1: hands[1][:1]})
    round_.declare({})
    assert round_.banker == 2
    assert round_.trump is not None
    assert round_.trump.suit == 1


def test_a_declaration_needs_cards_of_the_hand_and_a_refused_one_changes_nothing() -> None:
    hands = deal({0: "♠2", 1: "♥2"})
    round_ = Round(seed=2, deal=hands)
    with pytest.raises(IllegalActionError, match="dealt to you"):
        round_.declare({0: hands[1][:1]})
    with pytest.raises(IllegalActionError, match="only a level card"):
        round_.declare({0: hands[0][1:2]})
    assert round_.declaring.windows == 0
    assert round_.actions == []


def test_deal_steps_reveal_the_hand_with_a_window_after_each_step() -> None:
    rules = TractorRules(deal_steps=5)
    round_ = Round(rules, seed=8)
    assert len(round_.revealed(0)) == 5
    for step in range(2, 6):
        round_.declare({})
        assert round_.phase is Phase.DECLARING  # a quiet window before the last step locks nothing
        assert len(round_.revealed(0)) == 5 * step
    round_.declare({})
    assert round_.phase is Phase.BURYING


def test_only_the_cards_revealed_so_far_declare() -> None:
    rules = TractorRules(deal_steps=25)
    round_ = Round(rules, seed=8)
    shown = round_.revealed(1)
    assert len(shown) == 1
    options = declarations(1, round_.hands[1], round_.level)
    later = [d for d in options if d.cards[0] not in shown]
    for made in later:
        with pytest.raises(IllegalActionError):
            round_.declaration(1, made.cards)
