"""Tractor's cards, rule settings and trump context (docs/rules-tractor.md "Cards",
"Rule settings", "Trumps and suit groups").

Two decks, 108 cards, each with an id (``D1_H_10``, ``D2_S_A``, ``D1_SJ``, ``D2_BJ``); 5,
10 and K score; an agent may name a face alone and gets any copy it holds.
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError
from tractor_cards import cards

from arena.errors import CardResolutionError, InvalidCardError
from arena.games.tractor.engine import (
    DECK,
    POINTS,
    TRUMP,
    TractorRules,
    card_id,
    card_ids,
    card_text,
    face_text,
    resolve_cards,
    trump_context,
)


def test_two_decks_make_108_cards_with_distinct_ids_and_200_points() -> None:
    ids = [card_text(c) for c in DECK]
    assert len(DECK) == 108 == len(set(ids))
    assert {"D1_H_10", "D2_S_A", "D1_SJ", "D2_BJ", "D1_C_2"} <= set(ids)
    assert sum(POINTS) == 200
    assert [card_id(t) for t in ids] == list(DECK)


def test_points_are_five_ten_and_king() -> None:
    assert POINTS[card_id("D1_S_5")] == 5
    assert POINTS[card_id("D2_H_10")] == 10
    assert POINTS[card_id("D1_C_K")] == 10
    assert POINTS[card_id("D1_D_Q")] == POINTS[card_id("D1_BJ")] == 0


def test_a_bad_id_or_a_repeated_one_is_an_invalid_card() -> None:
    with pytest.raises(InvalidCardError):
        card_id("H10")
    with pytest.raises(InvalidCardError):
        card_ids(["D1_H_10", "D1_H_10"])


def test_a_face_names_any_copy_the_hand_holds() -> None:
    hand = card_ids(["D2_H_10", "D1_SJ", "D2_BJ", "D1_S_A", "D2_S_A"])
    for token in ("♥10", "H10", "10h", "h10", "D2_H_10"):
        assert resolve_cards([token], hand) == (card_id("D2_H_10"),)
    assert resolve_cards(["大王"], hand) == (card_id("D2_BJ"),)
    assert resolve_cards(["小王"], hand) == (card_id("D1_SJ"),)
    # an id is taken first, so a face in front of it takes the other copy
    assert set(resolve_cards(["♠A", "D1_S_A"], hand)) == set(card_ids(["D1_S_A", "D2_S_A"]))
    assert face_text(card_id("D2_H_10")) == "♥10"


@pytest.mark.parametrize(
    ("tokens", "says"),
    [
        (["♥9"], "no ♥9 left"),
        (["♠A", "♠A", "♠A"], "no ♠A left"),
        (["10"], "name the suit"),
        (["D1_H_10"], "not in the hand"),
        (["zz"], "unreadable"),
    ],
)
def test_a_token_that_names_nothing_held_is_refused_by_name(tokens: list[str], says: str) -> None:
    hand = card_ids(["D2_H_10", "D1_S_A", "D2_S_A"])
    with pytest.raises(CardResolutionError, match=says):
        resolve_cards(tokens, hand)


# --- rule settings -----------------------------------------------------------------------


def test_default_rules_deal_25_cards_to_4_players_and_keep_8() -> None:
    rules = TractorRules()
    assert (rules.players, rules.hand_size, rules.kitty_size) == (4, 25, 8)
    six = TractorRules(players=6)
    assert (six.hand_size, six.kitty_size) == (16, 12)
    assert TractorRules(players=6, kitty=18).hand_size == 15


@pytest.mark.parametrize(
    ("settings", "key"),
    [
        ({"players": 5}, "players"),
        ({"kitty": 7}, "kitty"),
        ({"players": 6, "kitty": 8}, "kitty"),
        ({"deal_steps": 0}, "deal_steps"),
        ({"play_through": "yes"}, "play_through"),
        ({"round_limit": 0}, "round_limit"),
        ({"kity": 8}, "kity"),
    ],
)
def test_a_wrong_setting_is_an_error_naming_its_key(settings: dict[str, object], key: str) -> None:
    with pytest.raises(ValidationError, match=key):
        TractorRules.model_validate(settings)


# --- trump context -----------------------------------------------------------------------


def test_the_trump_group_is_jokers_level_cards_and_the_trump_suit() -> None:
    trump = trump_context(5, 1)  # level 5, ♥ trump
    group = trump.group
    for text in ("小王", "大王", "♠5", "♣5", "♥5", "♥2", "♥A"):
        assert group[cards(text)[0]] == TRUMP, text
    assert group[cards("♠A")[0]] == 0
    assert group[cards("♣4")[0]] == 3


def test_trump_order_is_jokers_then_the_trump_level_card_then_the_others() -> None:
    trump = trump_context(5, 1)
    power = trump.power
    order = [power[cards(t)[0]] for t in ("大王", "小王", "♥5", "♠5", "♥A", "♥6", "♥4", "♥2")]
    assert order == sorted(order, reverse=True)
    assert power[cards("♠5")[0]] == power[cards("♣5")[0]] == power[cards("♦5")[0]]
    assert power[cards("♥5")[0]] > power[cards("♠5")[0]]
    # the level rank is skipped: 4 and 6 are neighbours
    assert power[cards("♥6")[0]] == power[cards("♥4")[0]] + 1


def test_no_trump_makes_only_jokers_and_level_cards_trumps_with_level_cards_equal() -> None:
    trump = trump_context(9, None)
    group, power = trump.group, trump.power
    assert group[cards("♥A")[0]] == 1
    assert all(group[cards(t)[0]] == TRUMP for t in ("♠9", "♥9", "♦9", "♣9", "小王"))
    assert len({power[cards(t)[0]] for t in ("♠9", "♥9", "♦9", "♣9")}) == 1
