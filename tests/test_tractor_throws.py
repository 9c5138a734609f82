"""Throws (docs/rules-tractor.md "Throws that do not stand"): a throw stands unless an
opponent holds, in its group, a strictly higher part of the same kind; one that does not
is played as its lowest single, else lowest pair, else lowest tractor, and the round
reports the original, the punished play and why.

The engine is checked against a brute-force statement: every choice of an opponent's
cards of a part's size that is a higher part of the part's kind.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

from tractor_cards import cards

from arena.games.tractor.engine import (
    FACE,
    Kind,
    Part,
    Play,
    Trump,
    beaten_part,
    classify,
    faces_text,
    judge_throw,
    trump_context,
)
from arena.games.tractor.engine.cards import RANK, SUIT

LEVEL_5_SPADES = trump_context(5, 0)


def judged(throw_text: str, *opponents: str, trump: Trump = LEVEL_5_SPADES) -> str | None:
    hands = [cards(t) for t in opponents]
    taken = [c for h in hands for c in h]
    throw = classify(cards(throw_text, taken=taken), trump)
    verdict = judge_throw(throw, hands, trump)
    return None if verdict is None else faces_text(reversed(verdict.punished.cards))


def test_a_throw_nobody_can_beat_stands() -> None:
    assert judged("♥A ♥A ♥K", "♥Q ♥Q ♥J", "♣A 大王") is None


def test_a_throw_with_a_beatable_single_is_punished_to_its_lowest_single() -> None:
    assert judged("♥A ♥A ♥Q", "♥K ♥2", "♣A") == "♥Q"


def test_a_beaten_pair_still_punishes_to_the_lowest_single_when_there_is_one() -> None:
    assert judged("♥Q ♥Q ♥A", "♥K ♥K", "♣A") == "♥A"


def test_without_singles_the_punishment_is_the_lowest_pair_then_the_lowest_tractor() -> None:
    assert judged("♥Q ♥Q ♥A ♥A", "♥K ♥K", "♣A") == "♥Q ♥Q"
    assert judged("♥9 ♥9 ♥10 ♥10 ♥A ♥A", "♥J ♥J ♥Q ♥Q", "") == "♥A ♥A"
    assert judged("♥2 ♥2 ♥3 ♥3 ♥9 ♥9 ♥10 ♥10", "♥J ♥J ♥Q ♥Q", "") == "♥2 ♥2 ♥3 ♥3"


def test_a_tractor_part_falls_only_to_a_tractor_at_least_as_long_and_higher() -> None:
    assert judged("♥9 ♥9 ♥10 ♥10 ♥A ♥A", "♥J ♥J ♥Q", "") is None  # a pair and a single
    assert judged("♥9 ♥9 ♥10 ♥10 ♥A ♥A", "♥J ♥J ♥K ♥K", "") is None  # pairs, no tractor
    assert judged("♥9 ♥9 ♥10 ♥10 ♥A ♥A", "♥J ♥J ♥Q ♥Q", "") == "♥A ♥A"


def test_being_able_to_ruff_does_not_make_a_throw_fail() -> None:
    assert judged("♥A ♥K", "♠2 ♠2 大王", "小王 ♥Q") is None


def test_trump_throws_compare_by_trump_power() -> None:
    assert judged("大王 小王", "♠5 ♥5") is None
    assert judged("♠5 小王", "♠2 大王") == "♠5"


def test_the_reason_names_the_part_not_the_seat_or_the_card_that_beats_it() -> None:
    hands = [cards("♥K ♥2")]
    throw = classify(cards("♥A ♥A ♥Q", taken=hands[0]), LEVEL_5_SPADES)
    verdict = judge_throw(throw, hands, LEVEL_5_SPADES)
    assert verdict is not None
    assert verdict.reason == (
        "an opponent holds a higher single in ♥ than the single ♥Q: "
        "the throw is played as a single in ♥ (♥Q)"
    )
    assert "K" not in verdict.reason


# --- the engine against brute force ------------------------------------------------------


def oracle_beats_part(part: Part, hand: Sequence[int], trump: Trump, group: int) -> bool:
    mine = [c for c in hand if trump.group[c] == group]
    size = max(1, 2 * part.pairs)
    for chosen in combinations(mine, size):
        faces = Counter(FACE[c] for c in chosen)
        powers = sorted({trump.power[c] for c in chosen})
        top = max(trump.power[c] for c in chosen)
        if part.kind is Kind.SINGLE:
            ok = True
        elif part.kind is Kind.PAIR:
            ok = len(faces) == 1
        else:
            ok = (
                all(n == 2 for n in faces.values())
                and len(powers) == part.pairs
                and powers[-1] - powers[0] == part.pairs - 1
                and powers[-1] <= 11
            )
        if ok and top > part.top:
            return True
    return False


def oracle_stands(throw: Play, opponents: Sequence[Sequence[int]], trump: Trump) -> bool:
    return not any(
        oracle_beats_part(part, hand, trump, throw.group)
        for part in throw.parts
        for hand in opponents
    )


def test_the_standing_check_agrees_with_brute_force_on_many_small_hands() -> None:
    rng = random.Random(9)
    stood = fell = 0
    for _ in range(1500):
        trump = trump_context(rng.randint(2, 14), rng.choice([None, 0, 1, 2, 3]))
        suits = rng.sample(range(4), 2)
        ranks = rng.sample(range(2, 15), 6)
        pool = [c for c in range(108) if (SUIT[c] in suits and RANK[c] in ranks) or RANK[c] >= 15]
        rng.shuffle(pool)
        throw_cards = pool[:10]
        g = trump.group[throw_cards[0]]
        throw_cards = [c for c in throw_cards if trump.group[c] == g][: rng.randint(2, 6)]
        rest = [c for c in pool if c not in throw_cards]
        opponents = [rest[:6], rest[6:12]]
        throw = classify(throw_cards, trump)
        if throw.kind is not Kind.THROW:
            continue
        expected = oracle_stands(throw, opponents, trump)
        assert (beaten_part(throw, opponents, trump) is None) == expected, (throw, opponents)
        stood += expected
        fell += not expected
    assert stood > 100
    assert fell > 100
