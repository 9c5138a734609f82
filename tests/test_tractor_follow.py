"""Following (docs/rules-tractor.md "Following"): the lead's suit group while it lasts,
then the shape: the longest tractor the player can form (up to the lead's), then as many
pairs as it holds (up to the lead's), then singles; a throw part by part.

The engine is checked against a deliberately simple statement of the same rule written
here: a follow is legal when it plays the group as far as it can and no other choice of
the same number of the group's cards has a better shape (tractors serving the lead's
tractors, found by trying every split, then pairs), on many small random hands, for
every subset of the lead's size.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import pytest
from tractor_cards import cards

from arena.games.tractor.engine import (
    FACE,
    TRUMP,
    Play,
    Trump,
    check_follow,
    classify,
    fill_follow,
    follow_rule,
    legal_follows,
    resolve_cards,
    trump_context,
)
from arena.games.tractor.engine.cards import RANK, SUIT

LEVEL_5_SPADES = trump_context(5, 0)


def follow(
    hand_text: str, lead_text: str, play_text: str, trump: Trump = LEVEL_5_SPADES
) -> str | None:
    """Why the cards of ``play_text`` (from the hand) may not follow the lead, or None."""
    hand = cards(hand_text)
    lead = classify(cards(lead_text, taken=hand), trump)
    return check_follow(hand, resolve_cards(play_text.split(), hand), lead, trump)


# --- the suit group ----------------------------------------------------------------------


def test_a_single_lead_takes_any_card_of_its_group_while_one_is_held() -> None:
    hand = "♥3 ♥A ♣7 小王"
    assert follow(hand, "♥9", "♥3") is None
    assert follow(hand, "♥9", "♣7") == "you hold 2 ♥ cards: play 1 of them and nothing else"
    assert follow(hand, "♠9", "小王") is None  # ♠ is trump: the joker follows it


def test_a_player_short_of_the_group_plays_all_of_it_then_anything() -> None:
    hand = "♥3 ♥A ♣7 ♣7 小王"
    assert follow(hand, "♥9 ♥9 ♥10 ♥10", "♥3 ♥A ♣7 小王") is None
    assert follow(hand, "♥9 ♥9 ♥10 ♥10", "♥3 ♣7 ♣7 小王") == (
        "you hold 2 ♥ cards: play all 2 of your ♥ cards, then any 2 other cards"
    )


def test_a_void_player_plays_anything_and_may_ruff() -> None:
    assert follow("♣3 ♣7 小王 ♠2", "♥9 ♥9", "小王 ♠2") is None
    assert follow("♣3 ♣7 小王 ♠2", "♥9 ♥9", "♣3 小王") is None


# --- the shape ---------------------------------------------------------------------------


def test_a_pair_lead_needs_a_pair_when_one_is_held() -> None:
    hand = "♥3 ♥3 ♥8 ♥A"
    assert follow(hand, "♥9 ♥9", "♥3 ♥3") is None
    assert follow(hand, "♥9 ♥9", "♥8 ♥A") == "you hold a pair in ♥: play a pair"


def test_a_pair_held_only_inside_a_tractor_must_still_answer_a_pair() -> None:
    hand = "♥3 ♥3 ♥4 ♥4 ♥A"
    assert follow(hand, "♥9 ♥9", "♥4 ♥4") is None
    assert follow(hand, "♥9 ♥9", "♥3 ♥A") == "you hold a pair in ♥: play a pair"


def test_a_tractor_lead_needs_a_tractor_when_one_can_be_formed() -> None:
    hand = "♥3 ♥3 ♥4 ♥4 ♥6 ♥6 ♥9 ♥9 ♥A"  # 3344 and, across the level 5, 4466
    lead = "♥J ♥J ♥Q ♥Q"
    assert follow(hand, lead, "♥3 ♥3 ♥4 ♥4") is None
    assert follow(hand, lead, "♥4 ♥4 ♥6 ♥6") is None
    assert follow(hand, lead, "♥3 ♥3 ♥9 ♥9") == (
        "you hold a tractor of 2 pairs in ♥: play 4 ♥ cards, including a tractor of 2 pairs"
    )


def test_a_tractor_across_the_level_gap_answers_a_tractor() -> None:
    assert follow("♥4 ♥4 ♥6 ♥6 ♥K", "♥9 ♥9 ♥10 ♥10", "♥4 ♥4 ♥6 ♥6") is None
    assert follow("♥4 ♥4 ♥6 ♥6 ♥K", "♥9 ♥9 ♥10 ♥10", "♥4 ♥4 ♥6 ♥K") is not None


def test_a_follow_short_of_the_tractor_fills_with_its_longest_tractor_then_pairs() -> None:
    hand = "♥2 ♥2 ♥3 ♥3 ♥9 ♥9 ♥J ♥Q ♥K"
    lead = "♥6 ♥6 ♥7 ♥7 ♥8 ♥8"
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥9 ♥9") is None
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥J ♥Q") == "you hold 3 pairs in ♥: play 3 pairs"
    assert follow(hand, lead, "♥2 ♥2 ♥9 ♥9 ♥J ♥Q") is not None
    rule = follow_rule(
        cards(hand), classify(cards(lead, taken=cards(hand)), LEVEL_5_SPADES), LEVEL_5_SPADES
    )
    assert rule.describe() == "play 6 ♥ cards, including a tractor of 2 pairs and one more pair"


def test_without_a_tractor_the_pairs_come_first_and_are_not_split() -> None:
    hand = "♥2 ♥2 ♥9 ♥9 ♥J ♥Q"
    lead = "♥6 ♥6 ♥7 ♥7"
    assert follow(hand, lead, "♥2 ♥2 ♥9 ♥9") is None
    assert follow(hand, lead, "♥2 ♥2 ♥J ♥Q") == "you hold 2 pairs in ♥: play 2 pairs"


def test_a_longest_tractor_may_not_be_shortened() -> None:
    hand = "♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥9 ♥9"
    lead = "♥10 ♥10 ♥J ♥J ♥Q ♥Q ♥K ♥K"
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥9 ♥9") is None
    hand = "♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥9 ♥9 ♥A ♥A"
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥9 ♥9 ♥A ♥A") == (
        "you hold a tractor of 3 pairs in ♥: play 8 ♥ cards, "
        "including a tractor of 3 pairs and one more pair"
    )


def test_a_throw_is_followed_part_by_part() -> None:
    hand = "♥2 ♥2 ♥3 ♥9 ♥J"
    assert follow(hand, "♥A ♥A ♥K", "♥2 ♥2 ♥9") is None
    assert follow(hand, "♥A ♥A ♥K", "♥3 ♥9 ♥J") == "you hold a pair in ♥: play a pair"
    assert follow(hand, "♥A ♥K", "♥3 ♥9") is None  # two singles: any two ♥


def test_a_throw_of_two_tractors_asks_for_two_tractors_when_the_hand_has_them() -> None:
    hand = "♥2 ♥2 ♥3 ♥3 ♥7 ♥7 ♥8 ♥8 ♥J ♥A"
    throw = "♥9 ♥9 ♥10 ♥10 ♥Q ♥Q ♥K ♥K"  # the J missing between: two tractors
    assert follow(hand, throw, "♥2 ♥2 ♥3 ♥3 ♥7 ♥7 ♥8 ♥8") is None
    assert follow(hand, throw, "♥2 ♥2 ♥3 ♥3 ♥7 ♥7 ♥J ♥A") == (
        "you hold tractors of 2 and 2 pairs in ♥: play 8 ♥ cards, "
        "including a tractor of 2 pairs and a tractor of 2 pairs"
    )
    # one run of three pairs serves the first tractor; what is left of it is a pair
    hand = "♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥8 ♥J ♥A"
    assert follow(hand, throw, "♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥8 ♥J") is None
    assert follow(hand, throw, "♥2 ♥2 ♥4 ♥4 ♥3 ♥8 ♥J ♥A") is not None


def test_trumps_are_one_group_whatever_their_suit() -> None:
    hand = "♥5 ♥5 ♠9 小王 ♣3"
    assert follow(hand, "♠K ♠K", "♥5 ♥5") is None  # a pair of level cards answers a trump pair
    assert follow(hand, "♠K ♠K", "♠9 小王") == "you hold a pair in trumps: play a pair"


def test_no_trump_follows_trumps_with_jokers_and_level_cards() -> None:
    trump = trump_context(9, None)
    assert follow("♥9 ♣9 ♠A", "小王 小王", "♥9 ♣9", trump) is None
    assert follow("♥9 ♣9 ♠A", "小王 小王", "♥9 ♠A", trump) is not None


def test_legal_follows_lists_each_set_of_faces_once() -> None:
    hand = cards("♥3 ♥3 ♥4 ♥4 ♥A ♣7")
    lead = classify(cards("♥9 ♥9", taken=hand), LEVEL_5_SPADES)
    listed = legal_follows(hand, lead, LEVEL_5_SPADES)
    assert listed is not None
    assert sorted(" ".join(sorted(str(FACE[c]) for c in f)) for f in listed) == sorted(
        [f"{FACE[hand[0]]} {FACE[hand[0]]}", f"{FACE[hand[2]]} {FACE[hand[2]]}"]
    )


def test_legal_follows_gives_up_when_there_are_too_many() -> None:
    hand = cards("♣2 ♣3 ♣4 ♣6 ♣7 ♣8 ♣9 ♣10 ♣J ♣Q ♣K ♣A ♦2 ♦3 ♦4 ♦6 ♦7 ♦8 ♦9 ♦10 ♦J ♦Q")
    lead = classify(cards("♥9 ♥9 ♥10 ♥10 ♥J ♥J"), LEVEL_5_SPADES)
    assert legal_follows(hand, lead, LEVEL_5_SPADES) is None
    assert check_follow(hand, fill_follow(hand, lead, LEVEL_5_SPADES), lead, LEVEL_5_SPADES) is None


# --- the engine against a simple statement of the rule -------------------------------------


def oracle_tractors(chain: set[int], wanted: Sequence[int]) -> tuple[int, ...]:
    """The best tractors (one per wanted length, 0 for none, compared in order) that
    disjoint stretches of consecutive pair powers in ``chain`` give: every split tried."""
    best = (0,) * len(wanted)

    def search(left: frozenset[int], index: int, got: tuple[int, ...]) -> None:
        nonlocal best
        padded = got + (0,) * (len(wanted) - len(got))
        best = max(best, padded)
        if index == len(wanted):
            return
        for top in left:
            for length in range(2, wanted[index] + 1):
                stretch = {top - k for k in range(length)}
                if stretch <= left:
                    search(left - stretch, index + 1, (*got, length))

    search(frozenset(chain), 0, ())
    return best


def oracle_shape(chosen: Sequence[int], lead: Play, trump: Trump) -> tuple[tuple[int, ...], int]:
    faces = Counter(FACE[c] for c in chosen)
    pair_cards = [c for c in chosen if faces[FACE[c]] == 2]
    chain = {trump.power[c] for c in pair_cards if trump.power[c] <= 11}
    pairs = len(pair_cards) // 2
    return oracle_tractors(chain, lead.tractors), min(pairs, lead.pair_count)


def oracle_legal(
    hand: Sequence[int], play: Sequence[int], lead: Play, trump: Trump, best: object
) -> bool:
    g = lead.group
    mine = [c for c in hand if trump.group[c] == g]
    played = [c for c in play if trump.group[c] == g]
    if len(mine) <= len(lead.cards):
        return len(played) == len(mine)
    if len(played) != len(lead.cards):
        return False
    return oracle_shape(played, lead, trump) == best


def random_case(rng: random.Random) -> tuple[tuple[int, ...], Play, Trump]:
    """A small hand and a lead of another hand's cards, from few neighbouring ranks of two
    suits, level cards and jokers: pairs, tractors and throws of tractors come often."""
    level = rng.randint(2, 14)
    trump = trump_context(level, rng.choice([None, 0, 1, 2, 3]))
    suits = rng.sample(range(4), 2)
    low = rng.randint(2, 9)
    ranks = [*range(low, low + 6), level]
    pool = [c for c in range(108) if (SUIT[c] in suits and RANK[c] in ranks) or RANK[c] >= 15]
    rng.shuffle(pool)
    g = trump.group[pool[0]]
    same = sorted((c for c in pool if trump.group[c] == g), key=lambda c: (trump.power[c], c))
    size = min(len(same), rng.choice([1, 2, 2, 4, 4, 5, 6, 8, 8, 8]))
    start = rng.randrange(len(same) - size + 1)
    roll = rng.random()
    if roll < 0.4:  # a stretch of neighbours: pairs and tractors
        lead_cards = same[start : start + size]
    elif roll < 0.7:  # a stretch with a face taken out of its middle: two tractors
        stretch = same[start : start + size + 2]
        gap = FACE[stretch[len(stretch) // 2]]
        lead_cards = [c for c in stretch if FACE[c] != gap][:size] or stretch[:1]
    else:
        lead_cards = rng.sample(same, size)
    rest = [c for c in pool if c not in lead_cards]
    hand = tuple(rest[: rng.randint(max(4, size - 2), 12)])
    return hand, classify(lead_cards, trump), trump


def test_the_engine_agrees_with_the_simple_statement_on_every_subset_of_many_hands() -> None:
    rng = random.Random(28)
    judged = refused = 0
    leads: Counter[tuple[int, ...]] = Counter()
    for _ in range(1500):
        hand, lead, trump = random_case(rng)
        n = len(lead.cards)
        if n > len(hand):
            continue
        leads[lead.tractors] += 1
        mine = [c for c in hand if trump.group[c] == lead.group]
        best = max((oracle_shape(s, lead, trump) for s in combinations(mine, n)), default=None)
        legal_faces = set()
        for play in combinations(hand, n):
            engine = check_follow(hand, play, lead, trump)
            oracle = oracle_legal(hand, play, lead, trump, best)
            assert (engine is None) == oracle, (hand, lead, play, engine)
            judged += 1
            refused += engine is not None
            if oracle:
                legal_faces.add(tuple(sorted(FACE[c] for c in play)))
        listed = legal_follows(hand, lead, trump)
        if listed is not None:
            assert {tuple(sorted(FACE[c] for c in f)) for f in listed} == legal_faces
        assert check_follow(hand, fill_follow(hand, lead, trump), lead, trump) is None
        assert check_follow(hand, fill_follow(hand, lead, trump, rng), lead, trump) is None
    assert judged > 80_000
    assert 0.2 < refused / judged < 0.95  # both verdicts are well exercised
    # single tractors, throws with one and with two tractors: all of them often
    assert leads[(2,)] > 100
    assert sum(n for t, n in leads.items() if len(t) == 1 and t[0] >= 3) > 30
    assert sum(n for t, n in leads.items() if len(t) >= 2) > 20


@pytest.mark.parametrize("seed", range(3))
def test_the_fill_order_plays_low_cards_first(seed: int) -> None:
    hand = cards("♥2 ♥2 ♥3 ♥3 ♥9 ♥9 ♥J ♥Q ♥K ♥A ♥A")
    lead = classify(cards("♥6 ♥6 ♥7 ♥7 ♥8 ♥8", taken=hand), LEVEL_5_SPADES)
    played = fill_follow(hand, lead, LEVEL_5_SPADES)
    assert sorted(RANK[c] for c in played) == [2, 2, 3, 3, 9, 9]
    assert (
        check_follow(
            hand, fill_follow(hand, lead, LEVEL_5_SPADES, random.Random(seed)), lead, LEVEL_5_SPADES
        )
        is None
    )
    assert TRUMP == 4
