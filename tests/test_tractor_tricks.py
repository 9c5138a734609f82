"""Winning a trick (docs/rules-tractor.md "Winning a trick"): the same shape in the lead's
group, higher; a void player's ruff of the lead's exact shape; throws part by part;
equal plays to the earlier.
"""

from __future__ import annotations

from tractor_cards import cards

from arena.games.tractor.engine import Trump, classify, trick_winner, trump_context

LEVEL_5_SPADES = trump_context(5, 0)


def winner(*plays: str, trump: Trump = LEVEL_5_SPADES) -> int:
    taken: list[int] = []
    classified = []
    for text in plays:
        chosen = cards(text, taken=taken)
        taken += chosen
        classified.append(classify(chosen, trump))
    return trick_winner(classified)


def test_a_higher_single_of_the_lead_suit_wins_and_another_suit_never_does() -> None:
    assert winner("♥9", "♥K", "♥10", "♣A") == 1


def test_equal_plays_go_to_the_earlier() -> None:
    assert winner("♥9", "♥9", "♥3", "♥2") == 0
    assert winner("♠9 ♠9", "♥5 ♥5", "♦5 ♦5", "♠2 ♠2") == 1  # level pairs of two plain suits


def test_a_level_card_of_the_trump_suit_beats_those_of_other_suits_which_tie() -> None:
    assert winner("♥5", "♠5", "♦5", "♣5") == 1
    assert winner("♥5", "♦5", "♣5", "♥A") == 0
    assert winner("♠A", "♥5", "♠2", "♠K") == 1  # any level card beats the trump suit's A
    assert winner("♥5", "小王", "大王", "♠5") == 2


def test_a_pair_beats_a_pair_not_two_singles() -> None:
    assert winner("♥9 ♥9", "♥A ♥K", "♥10 ♥10", "♥2 ♥2") == 2


def test_a_ruff_that_matches_the_leads_shape_wins_and_a_higher_ruff_overruffs() -> None:
    assert winner("♥9 ♥9", "♠2 ♠2", "♥3 ♥3", "♣2 ♣2") == 1
    assert winner("♥9 ♥9", "♠2 ♠2", "♠3 ♠3", "♥A ♥A") == 2
    assert winner("♥9 ♥9 ♥10 ♥10", "♠2 ♠2 ♠3 ♠3", "♣5 ♣5 ♥5 ♥5", "♥2 ♥3 ♥4 ♥6") == 1


def test_a_ruff_that_does_not_match_the_leads_shape_loses() -> None:
    assert winner("♥9 ♥9", "♠2 小王", "♥3 ♥3", "♣2 ♣2") == 0
    assert winner("♥9 ♥9 ♥10 ♥10", "♠2 ♠2 ♠7 ♠7", "♥3 ♥3 ♥J ♥Q", "♣2 ♣3 ♣6 ♣7") == 0
    assert winner("♥9 ♥9", "♠2 ♥2", "♥3 ♥3") == 0  # a mixed play never wins


def test_a_throw_is_beaten_only_by_every_part_higher() -> None:
    throw = "♥Q ♥Q ♥3"
    assert winner(throw, "♠2 ♠2 ♠3", "♥2 ♥4 ♥6", "♥7 ♥8 ♥9") == 1  # a ruff of its shape
    assert winner(throw, "♠2 ♠3 ♠4", "♥2 ♥4 ♥6", "♥7 ♥8 ♥9") == 0  # a ruff of another shape
    assert winner(throw, "♠2 ♠2 ♠7", "♠3 ♠3 ♠6", "♥7 ♥8 ♥9") == 1  # 33 > 22 but 6 < 7
    assert winner(throw, "♠2 ♠2 ♠7", "♠3 ♠3 ♠8", "♥7 ♥8 ♥9") == 2  # every part higher


def test_no_trump_is_won_by_jokers_over_level_cards_and_ruffed_by_either() -> None:
    no_trump = trump_context(9, None)
    assert winner("♥A", "♠9", "♥K", "♣9", trump=no_trump) == 1
    assert winner("♥A", "♠9", "小王", "♣9", trump=no_trump) == 2
    assert winner("♠A ♠A", "♥9 ♥9", "小王 大王", "♠2 ♠2", trump=no_trump) == 1
