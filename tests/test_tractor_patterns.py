"""Patterns (docs/rules-tractor.md "Patterns"): single, pair, tractor and throw, and the
decomposition of a throw into parts (longest tractors first, higher first, then pairs,
then singles).
"""

from __future__ import annotations

import pytest
from tractor_cards import cards

from arena.games.tractor.engine import Kind, classify, faces_text, legal_leads, trump_context

LEVEL_5_SPADES = trump_context(5, 0)


def kind(text: str, level: int = 5, suit: int | None = 0) -> Kind:
    return classify(cards(text), trump_context(level, suit)).kind


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("♥9", Kind.SINGLE),
        ("♥9 ♥9", Kind.PAIR),
        ("大王 大王", Kind.PAIR),
        ("♥9 ♥10 ♥9 ♥10", Kind.TRACTOR),
        ("♥4 ♥4 ♥6 ♥6", Kind.TRACTOR),  # the level rank's gap is bridged
        ("♠4 ♠4 ♠6 ♠6 ♠7 ♠7", Kind.TRACTOR),  # in the trump suit too
        ("♥A ♥K", Kind.THROW),  # two cards that are not a pair are a throw
        ("♥A ♥A ♥K", Kind.THROW),
        ("♥9 ♥9 ♥J ♥J", Kind.THROW),  # a rank missing between
        ("♥5 ♥5 ♠5 ♠5", Kind.THROW),  # level cards never chain
        ("♠A ♠A ♥5 ♥5", Kind.THROW),  # ... not even to the trump suit's A
        ("小王 小王 大王 大王", Kind.THROW),  # nor do jokers
        ("♠5 ♠5 小王 小王", Kind.THROW),
        ("♥9 ♠9", Kind.MIXED),
        ("♥9 ♣9", Kind.MIXED),
    ],
)
def test_what_cards_are_at_level_5_with_spades_trump(text: str, expected: Kind) -> None:
    assert kind(text) is expected


def test_two_level_cards_of_different_suits_are_equal_but_no_pair() -> None:
    assert kind("♥5 ♦5") is Kind.THROW


def test_at_level_a_the_k_is_the_top_of_a_chain() -> None:
    assert kind("♥Q ♥Q ♥K ♥K", level=14) is Kind.TRACTOR
    assert kind("♥Q ♥Q ♥A ♥A", level=13) is Kind.TRACTOR  # at level K, Q and A are neighbours
    assert kind("♥K ♥K ♥A ♥A", level=13) is Kind.MIXED  # ... and the K is a trump


def test_no_trump_level_cards_and_jokers_are_one_group_without_tractors() -> None:
    assert kind("♠9 ♥9", level=9, suit=None) is Kind.THROW
    assert kind("♠9 ♠9 ♠10 ♠10", level=9, suit=None) is Kind.MIXED
    assert kind("♠8 ♠8 ♠10 ♠10", level=9, suit=None) is Kind.TRACTOR


def test_a_throw_decomposes_into_longest_tractors_then_pairs_then_singles() -> None:
    throw = classify(cards("♥3 ♥8 ♥8 ♥9 ♥9 ♥J ♥J ♥Q ♥K ♥K ♥A ♥A"), LEVEL_5_SPADES)
    assert throw.kind is Kind.THROW
    assert [faces_text(reversed(p.cards)) for p in throw.parts] == [
        "♥K ♥K ♥A ♥A",
        "♥8 ♥8 ♥9 ♥9",
        "♥J ♥J",
        "♥Q",
        "♥3",
    ]
    assert throw.shape == (2, 2, 1, 0, 0)


def test_a_longer_tractor_comes_before_a_higher_one() -> None:
    throw = classify(cards("♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥K ♥K ♥A ♥A"), LEVEL_5_SPADES)
    assert throw.shape == (3, 2)
    assert throw.describe() == (
        "a throw in ♥ (the tractor ♥2 ♥2 ♥3 ♥3 ♥4 ♥4, the tractor ♥K ♥K ♥A ♥A)"
    )


def test_the_leads_of_one_kind_are_every_single_pair_and_stretch_of_a_run() -> None:
    hand = cards("♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥9 小王")
    leads = legal_leads(hand, LEVEL_5_SPADES)
    by_kind: dict[Kind, list[str]] = {}
    for lead in leads:
        by_kind.setdefault(lead.kind, []).append(lead.parts[0].text())
    assert sorted(by_kind[Kind.SINGLE]) == sorted(["♥2", "♥3", "♥4", "♥9", "小王"])
    assert sorted(by_kind[Kind.PAIR]) == sorted(["♥2 ♥2", "♥3 ♥3", "♥4 ♥4"])
    assert sorted(by_kind[Kind.TRACTOR]) == sorted(
        ["♥2 ♥2 ♥3 ♥3", "♥3 ♥3 ♥4 ♥4", "♥2 ♥2 ♥3 ♥3 ♥4 ♥4"]
    )
