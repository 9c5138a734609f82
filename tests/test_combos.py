"""Combination types (牌型): what a set of cards reads as.

Specification: docs/rules.md "Combinations", "Card sets with more than one reading" and
"Variants".

Card sets are written compactly by rank: ``"333444+5+6"`` is three 3s, three 4s, a 5 and a
6 (suits are irrelevant; ``+`` and spaces are only for reading). ``10``, ``J`` … ``A``,
``2``, ``小王`` and ``大王`` are the other ranks.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterator
from itertools import combinations, combinations_with_replacement

import pytest
from cardtext import BIG_JOKER, BY_RANK, SMALL_JOKER, Reading, cs, reading

from arena.games.ddz.engine import (
    DECK,
    DEFAULT_RULES,
    READING_ORDER,
    Card,
    ComboType,
    Rules,
    card,
    classify,
    readings,
)

T = ComboType
LOOSE = Rules(loose_wings=True)
FOUR_WITH_PAIR = Rules(four_with_pair=True)
QUADPLEX = Rules(quadplex_as_bomb=True)
ALL_VARIANTS = Rules(loose_wings=True, four_with_pair=True, quadplex_as_bomb=True)


def all_readings(text: str, rules: Rules = DEFAULT_RULES) -> list[Reading]:
    return [(c.type, c.main_rank, c.length) for c in readings(cs(text), rules)]


# --- the type names ----------------------------------------------------------------------

WIRE_NAMES = [
    "SINGLE", "PAIR", "TRIPLE", "TRIPLE_WITH_SINGLE", "TRIPLE_WITH_PAIR", "STRAIGHT",
    "STRAIGHT_PAIR", "AIRPLANE", "AIRPLANE_WITH_SINGLES", "AIRPLANE_WITH_PAIRS",
    "FOUR_WITH_TWO_SINGLES", "FOUR_WITH_TWO_PAIRS", "BOMB", "ROCKET", "PASS",
]  # fmt: skip


def test_combo_types_are_the_wire_names() -> None:
    assert sorted(t.name for t in ComboType) == sorted(WIRE_NAMES)
    for t in ComboType:
        assert t.value == t.name
        assert ComboType(t.name) is t


def test_ambiguous_sets_are_read_in_the_documented_order() -> None:
    assert list(READING_ORDER) == [
        T.ROCKET, T.BOMB, T.STRAIGHT, T.STRAIGHT_PAIR, T.AIRPLANE, T.AIRPLANE_WITH_PAIRS,
        T.AIRPLANE_WITH_SINGLES, T.FOUR_WITH_TWO_PAIRS, T.FOUR_WITH_TWO_SINGLES,
        T.TRIPLE_WITH_PAIR, T.TRIPLE_WITH_SINGLE, T.TRIPLE, T.PAIR, T.SINGLE,
    ]  # fmt: skip


# --- valid sets, with their main rank and length -----------------------------------------

VALID: list[tuple[str, ComboType, int, int]] = [
    # SINGLE: any card; a joker is a single
    ("3", T.SINGLE, 3, 1),
    ("10", T.SINGLE, 10, 1),
    ("A", T.SINGLE, 14, 1),
    ("2", T.SINGLE, 15, 1),
    ("小王", T.SINGLE, 16, 1),
    ("大王", T.SINGLE, 17, 1),
    # PAIR
    ("33", T.PAIR, 3, 1),
    ("1010", T.PAIR, 10, 1),
    ("AA", T.PAIR, 14, 1),
    ("22", T.PAIR, 15, 1),
    # TRIPLE: triples of 2 are allowed
    ("333", T.TRIPLE, 3, 1),
    ("KKK", T.TRIPLE, 13, 1),
    ("222", T.TRIPLE, 15, 1),
    # TRIPLE_WITH_SINGLE: the kicker is any other rank, a 2 or a joker included
    ("333+5", T.TRIPLE_WITH_SINGLE, 3, 1),
    ("555+3", T.TRIPLE_WITH_SINGLE, 5, 1),
    ("333+2", T.TRIPLE_WITH_SINGLE, 3, 1),
    ("333+小王", T.TRIPLE_WITH_SINGLE, 3, 1),
    ("333+大王", T.TRIPLE_WITH_SINGLE, 3, 1),
    ("AAA+K", T.TRIPLE_WITH_SINGLE, 14, 1),
    ("222+3", T.TRIPLE_WITH_SINGLE, 15, 1),
    ("222+大王", T.TRIPLE_WITH_SINGLE, 15, 1),
    # TRIPLE_WITH_PAIR: any other pair
    ("333+55", T.TRIPLE_WITH_PAIR, 3, 1),
    ("555+33", T.TRIPLE_WITH_PAIR, 5, 1),
    ("333+22", T.TRIPLE_WITH_PAIR, 3, 1),
    ("AAA+KK", T.TRIPLE_WITH_PAIR, 14, 1),
    ("222+33", T.TRIPLE_WITH_PAIR, 15, 1),
    # STRAIGHT: 5..12 consecutive ranks within 3..A; main = the top rank, length = cards
    ("34567", T.STRAIGHT, 7, 5),
    ("345678", T.STRAIGHT, 8, 6),
    ("3456789", T.STRAIGHT, 9, 7),
    ("345678910", T.STRAIGHT, 10, 8),
    ("345678910J", T.STRAIGHT, 11, 9),
    ("345678910JQ", T.STRAIGHT, 12, 10),
    ("345678910JQK", T.STRAIGHT, 13, 11),
    ("345678910JQKA", T.STRAIGHT, 14, 12),
    ("10JQKA", T.STRAIGHT, 14, 5),
    ("78910J", T.STRAIGHT, 11, 5),
    ("6789 10 J Q K A", T.STRAIGHT, 14, 9),
    ("9 3 7 5 4 8 6", T.STRAIGHT, 9, 7),  # order of the cards does not matter
    # STRAIGHT_PAIR: 3+ consecutive pairs within 3..A; length = pairs
    ("334455", T.STRAIGHT_PAIR, 5, 3),
    ("33445566", T.STRAIGHT_PAIR, 6, 4),
    ("QQKKAA", T.STRAIGHT_PAIR, 14, 3),
    ("1010JJQQKKAA", T.STRAIGHT_PAIR, 14, 5),
    ("33 44 55 66 77 88 99 1010 JJ QQ", T.STRAIGHT_PAIR, 12, 10),
    # AIRPLANE: 2+ consecutive triples within 3..A; length = triples
    ("333444", T.AIRPLANE, 4, 2),
    ("333444555", T.AIRPLANE, 5, 3),
    ("KKKAAA", T.AIRPLANE, 14, 2),
    ("333444555666777888", T.AIRPLANE, 8, 6),
    # AIRPLANE_WITH_SINGLES: k triples + k kickers of distinct ranks, none of the plane
    ("333444+5+6", T.AIRPLANE_WITH_SINGLES, 4, 2),
    ("444555+3+6", T.AIRPLANE_WITH_SINGLES, 5, 2),  # kickers next to the plane are fine
    ("333444+2+小王", T.AIRPLANE_WITH_SINGLES, 4, 2),  # a 2 and one joker
    ("333444+5+大王", T.AIRPLANE_WITH_SINGLES, 4, 2),
    ("KKKAAA+2+3", T.AIRPLANE_WITH_SINGLES, 14, 2),
    ("333444555+7+8+9", T.AIRPLANE_WITH_SINGLES, 5, 3),
    ("333444555+2+小王+A", T.AIRPLANE_WITH_SINGLES, 5, 3),
    ("333444555666+7+8+9+10", T.AIRPLANE_WITH_SINGLES, 6, 4),
    ("333444555666777+8+9+10+J+Q", T.AIRPLANE_WITH_SINGLES, 7, 5),
    # AIRPLANE_WITH_PAIRS: k triples + k pairs of distinct ranks, none of the plane
    ("333444+55+66", T.AIRPLANE_WITH_PAIRS, 4, 2),
    ("333444+22+AA", T.AIRPLANE_WITH_PAIRS, 4, 2),
    ("888999+44+JJ", T.AIRPLANE_WITH_PAIRS, 9, 2),
    ("333444555+66+77+88", T.AIRPLANE_WITH_PAIRS, 5, 3),
    ("QQQKKKAAA+33+44+22", T.AIRPLANE_WITH_PAIRS, 14, 3),
    ("333444555666+77+88+99+1010", T.AIRPLANE_WITH_PAIRS, 6, 4),
    # FOUR_WITH_TWO_SINGLES: two kickers of different ranks, not both jokers
    ("3333+5+6", T.FOUR_WITH_TWO_SINGLES, 3, 1),
    ("6666+8+9", T.FOUR_WITH_TWO_SINGLES, 6, 1),
    ("3333+2+小王", T.FOUR_WITH_TWO_SINGLES, 3, 1),
    ("3333+大王+5", T.FOUR_WITH_TWO_SINGLES, 3, 1),
    ("AAAA+K+2", T.FOUR_WITH_TWO_SINGLES, 14, 1),
    ("2222+3+4", T.FOUR_WITH_TWO_SINGLES, 15, 1),
    # FOUR_WITH_TWO_PAIRS: two pairs of different ranks
    ("3333+55+66", T.FOUR_WITH_TWO_PAIRS, 3, 1),
    ("JJJJ+99+QQ", T.FOUR_WITH_TWO_PAIRS, 11, 1),
    ("3333+22+AA", T.FOUR_WITH_TWO_PAIRS, 3, 1),
    ("2222+33+44", T.FOUR_WITH_TWO_PAIRS, 15, 1),
    # BOMB
    ("3333", T.BOMB, 3, 1),
    ("AAAA", T.BOMB, 14, 1),
    ("2222", T.BOMB, 15, 1),
    # ROCKET
    ("小王大王", T.ROCKET, 17, 1),
    ("大王 小王", T.ROCKET, 17, 1),
]


@pytest.mark.parametrize(
    "rules",
    [DEFAULT_RULES, LOOSE, FOUR_WITH_PAIR, QUADPLEX, ALL_VARIANTS],
    ids=["default", "loose_wings", "four_with_pair", "quadplex_as_bomb", "all_variants"],
)
@pytest.mark.parametrize(("text", "kind", "main", "length"), VALID, ids=[v[0] for v in VALID])
def test_valid_set_reads_as_its_type(
    text: str, kind: ComboType, main: int, length: int, rules: Rules
) -> None:
    combo = classify(cs(text), rules)
    assert reading(combo) == (kind, main, length)
    assert all_readings(text, rules) == [(kind, main, length)]


@pytest.mark.parametrize(("text", "kind", "main", "length"), VALID, ids=[v[0] for v in VALID])
def test_a_combo_holds_exactly_the_cards_played(
    text: str, kind: ComboType, main: int, length: int
) -> None:
    played = cs(text)
    combo = classify(played)
    assert combo is not None
    assert sorted(combo.cards) == sorted(played)
    assert len(combo.cards) == len(played)


# --- invalid sets ------------------------------------------------------------------------

INVALID_EVERYWHERE: list[tuple[str, str]] = [
    ("", "nothing"),
    ("34", "two ranks"),
    ("3小王", "a joker is not a pair with anything"),
    ("334", "pair plus one"),
    ("3344", "two pairs are not a straight pair"),
    ("3345", "pair plus two"),
    ("33345", "triple with two singles"),
    ("333+小王大王", "triple with pair never takes the two jokers"),
    ("333+44+5", "triple with a pair and a single"),
    ("3333+4", "four with one"),
    ("3333+44+5", "four with a pair and a single"),
    ("3333+4+5+6", "four with three"),
    ("3333+小王大王", "four with two singles never takes both jokers"),
    ("33334444", "two bombs are not four with two pairs nor an airplane"),
    ("3333+55+6+7", "four with a pair and two singles"),
    ("3333+55+小王大王", "four with two pairs never takes the jokers"),
    ("3333+555+6", "four with a triple"),
    ("小王大王+3", "rocket with a kicker"),
    ("小王大王+33", "rocket with a pair"),
    # straights
    ("3456", "a straight needs 5 cards"),
    ("JQKA2", "a straight never holds a 2"),
    ("10JQKA2", "a straight never holds a 2"),
    ("A2345", "ranks do not wrap around"),
    ("QKA23", "ranks do not wrap around"),
    ("23456", "a straight never holds a 2"),
    ("34567+小王", "a straight never holds a joker"),
    ("KA2小王大王", "no 2 or jokers in a chain"),
    ("34568", "a straight has no gap"),
    ("345677", "a straight has no repeated rank"),
    ("345678910JQKA2", "13 cards reaching the 2"),
    # straight pairs
    ("3344", "a straight pair needs 3 pairs"),
    ("KKAA22", "a straight pair never holds a 2"),
    ("AA22小王", "no 2 or jokers in a chain"),
    ("334466", "a straight pair has no gap"),
    ("3344555", "pairs and a triple"),
    ("33445566778", "odd card out"),
    # airplanes
    ("AAA222", "an airplane never holds a 2"),
    ("KKKAAA222", "an airplane never holds a 2"),
    ("333555", "an airplane has no gap"),
    ("3334445", "plane plus one"),
    ("333444567", "plane plus three"),
    ("333555+4+6", "the triples of a plane are consecutive"),
    ("AAA222+3+4", "2s are never a rank of the plane"),
    ("333444+小王大王", "airplane wings are never both jokers"),
    ("3333444+5", "a single wing is never a rank of the plane"),
    ("3334444+5", "a single wing is never a rank of the plane"),
    ("333444555+6+7", "three triples take three wings"),
    ("333444555+6+7+8+9", "three triples take three wings"),
    ("333444+66+7", "singles and pairs never mix as wings"),
    ("333444555+66+77+8", "singles and pairs never mix as wings"),
    ("333444+55+6", "singles and pairs never mix as wings"),
    ("333444+55+55", "pair wings are of different ranks"),
    ("333444+2222", "pair wings are of different ranks"),
    ("33334444+55", "a pair wing plus plane leftovers"),
    ("333444+55+小王大王", "the jokers are never a pair wing"),
    ("333444+666", "a separate triple is not a wing"),
    ("333444555+66+77", "three triples take three pairs"),
    ("333555+77+88", "the triples of a plane are consecutive"),
    ("AAA222+33+44", "2s are never a rank of the plane"),
]

INVALID_BY_DEFAULT: list[tuple[str, str]] = [
    ("333444+55", "single wings are of different ranks"),
    ("333444+22", "single wings are of different ranks"),
    ("333444555+777", "single wings are of different ranks"),
    ("333444555+66+7", "single wings are of different ranks"),
    ("333444555666+7+7+8+9", "single wings are of different ranks"),
    ("6666+88", "four with two singles takes two different ranks"),
    ("3333+22", "four with two singles takes two different ranks"),
]


@pytest.mark.parametrize(
    "rules",
    [DEFAULT_RULES, LOOSE, FOUR_WITH_PAIR, QUADPLEX, ALL_VARIANTS],
    ids=["default", "loose_wings", "four_with_pair", "quadplex_as_bomb", "all_variants"],
)
@pytest.mark.parametrize(
    ("text", "why"), INVALID_EVERYWHERE, ids=[f"{t}: {w}" for t, w in INVALID_EVERYWHERE]
)
def test_invalid_set_has_no_reading_under_any_rules(text: str, why: str, rules: Rules) -> None:
    assert classify(cs(text), rules) is None
    assert readings(cs(text), rules) == []


@pytest.mark.parametrize(
    ("text", "why"), INVALID_BY_DEFAULT, ids=[f"{t}: {w}" for t, w in INVALID_BY_DEFAULT]
)
def test_invalid_set_under_default_rules(text: str, why: str) -> None:
    assert classify(cs(text)) is None
    assert readings(cs(text), DEFAULT_RULES) == []


# --- variants ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("333444+55", (T.AIRPLANE_WITH_SINGLES, 4, 2)),
        ("333444+22", (T.AIRPLANE_WITH_SINGLES, 4, 2)),
        ("555666+33", (T.AIRPLANE_WITH_SINGLES, 6, 2)),
        ("333444+2+2", (T.AIRPLANE_WITH_SINGLES, 4, 2)),
        ("333444555+777", (T.AIRPLANE_WITH_SINGLES, 5, 3)),
        ("333444555+66+7", (T.AIRPLANE_WITH_SINGLES, 5, 3)),
        ("333444555+66+大王", (T.AIRPLANE_WITH_SINGLES, 5, 3)),
        ("333444555666+7+7+8+9", (T.AIRPLANE_WITH_SINGLES, 6, 4)),
    ],
)
def test_loose_wings_lets_single_wings_repeat_a_rank(text: str, expected: Reading) -> None:
    assert classify(cs(text)) is None
    assert reading(classify(cs(text), LOOSE)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "333444+小王大王",  # still never both jokers
        "333444555+7+小王大王",
        "3333444+5",  # still never a rank of the plane
        "3334444+5",
        "3333444+4",
        "333444555+3+6+7",
        "333444+55+6",  # wrong count for two triples
        "333444+55+66",  # stays a plane with pairs, not singles
    ],
)
def test_loose_wings_still_forbid_both_jokers_and_plane_ranks(text: str) -> None:
    found = readings(cs(text), LOOSE)
    assert all(r.type is not T.AIRPLANE_WITH_SINGLES for r in found)


def test_loose_wings_do_not_change_pair_wings() -> None:
    assert readings(cs("333444+55+55"), LOOSE) == []
    assert all_readings("333444+55+66", LOOSE) == [(T.AIRPLANE_WITH_PAIRS, 4, 2)]


def test_loose_wings_are_never_a_bomb() -> None:
    # Loose wings may repeat a rank, even three times, but an airplane's attachments are
    # never a bomb (the protocol's 5.2.3: 带的牌不能是炸弹; docs/rules.md, Variants).
    assert all_readings("333444555+777", LOOSE) == [(T.AIRPLANE_WITH_SINGLES, 5, 3)]
    assert readings(cs("333444555666+7777"), LOOSE) == []
    assert readings(cs("333444555666+2222"), LOOSE) == []
    assert readings(cs("333444555666+7777")) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("6666+88", (T.FOUR_WITH_TWO_SINGLES, 6, 1)),
        ("3333+22", (T.FOUR_WITH_TWO_SINGLES, 3, 1)),
        ("2222+AA", (T.FOUR_WITH_TWO_SINGLES, 15, 1)),
        ("6666+8+9", (T.FOUR_WITH_TWO_SINGLES, 6, 1)),
        ("6666+88+99", (T.FOUR_WITH_TWO_PAIRS, 6, 1)),
    ],
)
def test_four_with_pair_lets_four_with_two_carry_a_pair(text: str, expected: Reading) -> None:
    assert all_readings(text, FOUR_WITH_PAIR) == [expected]


@pytest.mark.parametrize("text", ["6666+小王大王", "6666+888", "66668888", "6666+8"])
def test_four_with_pair_still_rejects(text: str) -> None:
    assert readings(cs(text), FOUR_WITH_PAIR) == []


@pytest.mark.parametrize("text", ["3333+5+6", "3333+55+66", "2222+小王+3"])
def test_quadplex_as_bomb_does_not_change_how_a_set_reads(text: str) -> None:
    assert all_readings(text, QUADPLEX) == all_readings(text)
    assert all_readings(text)[0][0] in (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS)


# --- ambiguous sets: every reading, in the reading order of docs/rules.md ----------------


@pytest.mark.parametrize(
    ("text", "rules", "expected"),
    [
        (
            "333444555666",
            LOOSE,
            [
                (T.AIRPLANE, 6, 4),
                (T.AIRPLANE_WITH_SINGLES, 6, 3),  # 444555666 + 3 3 3
                (T.AIRPLANE_WITH_SINGLES, 5, 3),  # 333444555 + 6 6 6
            ],
        ),
        ("333444555666", DEFAULT_RULES, [(T.AIRPLANE, 6, 4)]),
        (
            "333444555666777+8",
            LOOSE,
            [(T.AIRPLANE_WITH_SINGLES, 7, 4), (T.AIRPLANE_WITH_SINGLES, 6, 4)],
        ),
        ("333444555666777+8", DEFAULT_RULES, []),
        (
            "444555666777888+9",  # 5678 + 4 4 4 9, or 4567 + 8 8 8 9
            LOOSE,
            [(T.AIRPLANE_WITH_SINGLES, 8, 4), (T.AIRPLANE_WITH_SINGLES, 7, 4)],
        ),
        ("444555666777888+9", DEFAULT_RULES, []),
        (
            "333444555666777888",
            LOOSE,
            [(T.AIRPLANE, 8, 6)],  # 18 cards: neither 4 nor 5 divides it
        ),
    ],
)
def test_readings_of_an_ambiguous_set_in_decisions_order(
    text: str, rules: Rules, expected: list[Reading]
) -> None:
    assert all_readings(text, rules) == expected
    assert reading(classify(cs(text), rules)) == (expected[0] if expected else None)


def test_classify_accepts_strings_and_cards() -> None:
    by_text = classify(["♠3", "♥3", "♦3", "小王"])
    by_card = classify([card("♠3"), card("♥3"), card("♦3"), card("小王")])
    mixed = classify(["♠3", card("♥3"), "♦3", card("小王")])
    assert by_text == by_card == mixed
    assert reading(by_text) == (T.TRIPLE_WITH_SINGLE, 3, 1)


def test_classify_rejects_a_card_given_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        classify(["♠3", "♠3"])


def test_classify_rejects_a_non_canonical_string() -> None:
    with pytest.raises(ValueError, match="canonical"):
        classify(["3"])


# --- the whole specification as a catalogue ----------------------------------------------
#
# Every rank multiset of at most 20 cards (a hand never holds more) that docs/rules.md
# allows, with its readings, built from the rules' text rather than by analysing cards.

NORMAL = range(3, 16)  # 3 .. 2
CHAIN = range(3, 15)  # 3 .. A
EVERY_RANK = range(3, 18)
AVAILABLE = {**{r: 4 for r in NORMAL}, SMALL_JOKER: 1, BIG_JOKER: 1}
MAX_CARDS = 20
Key = tuple[int, ...]


def _runs(min_length: int, width: int) -> Iterator[range]:
    for length in range(min_length, len(CHAIN) + 1):
        if length * width > MAX_CARDS:
            return
        for first in range(CHAIN[0], CHAIN[-1] - length + 2):
            yield range(first, first + length)


def _single_wings(plane: range, rules: Rules) -> Iterator[tuple[int, ...]]:
    others = [r for r in EVERY_RANK if r not in plane]
    k = len(plane)
    pick = combinations_with_replacement if rules.loose_wings else combinations
    for wings in pick(others, k):
        counts = Counter(wings)
        if counts[SMALL_JOKER] and counts[BIG_JOKER]:
            continue
        if any(n > AVAILABLE[r] for r, n in counts.items()):
            continue
        if 4 in counts.values():  # wings are never a bomb
            continue
        yield wings


def spec_catalogue(rules: Rules) -> dict[Key, set[Reading]]:
    catalogue: dict[Key, set[Reading]] = defaultdict(set)

    def add(ranks: list[int], kind: ComboType, main: int, length: int = 1) -> None:
        if len(ranks) <= MAX_CARDS:
            catalogue[tuple(sorted(ranks))].add((kind, main, length))

    for r in EVERY_RANK:
        add([r], T.SINGLE, r)
    for r in NORMAL:
        add([r] * 2, T.PAIR, r)
        add([r] * 3, T.TRIPLE, r)
        add([r] * 4, T.BOMB, r)
        for k in EVERY_RANK:
            if k != r:
                add([r] * 3 + [k], T.TRIPLE_WITH_SINGLE, r)
        for k in NORMAL:
            if k != r:
                add([r] * 3 + [k] * 2, T.TRIPLE_WITH_PAIR, r)
        others = [k for k in EVERY_RANK if k != r]
        for a, b in combinations(others, 2):
            if (a, b) != (SMALL_JOKER, BIG_JOKER):
                add([r] * 4 + [a, b], T.FOUR_WITH_TWO_SINGLES, r)
        if rules.four_with_pair:
            for k in NORMAL:
                if k != r:
                    add([r] * 4 + [k] * 2, T.FOUR_WITH_TWO_SINGLES, r)
        for a, b in combinations([k for k in NORMAL if k != r], 2):
            add([r] * 4 + [a] * 2 + [b] * 2, T.FOUR_WITH_TWO_PAIRS, r)
    add([SMALL_JOKER, BIG_JOKER], T.ROCKET, BIG_JOKER)
    for run in _runs(5, 1):
        add(list(run), T.STRAIGHT, run[-1], len(run))
    for run in _runs(3, 2):
        add(list(run) * 2, T.STRAIGHT_PAIR, run[-1], len(run))
    for run in _runs(2, 3):
        add(list(run) * 3, T.AIRPLANE, run[-1], len(run))
    for run in _runs(2, 4):
        for wings in _single_wings(run, rules):
            add(list(run) * 3 + list(wings), T.AIRPLANE_WITH_SINGLES, run[-1], len(run))
    for run in _runs(2, 5):
        for pairs in combinations([r for r in NORMAL if r not in run], len(run)):
            add(list(run) * 3 + list(pairs) * 2, T.AIRPLANE_WITH_PAIRS, run[-1], len(run))
    return dict(catalogue)


def cards_of_ranks(key: Key) -> list[Card]:
    counts = Counter(key)
    return [c for rank in sorted(counts) for c in BY_RANK[rank][: counts[rank]]]


def key_of(cards: list[Card]) -> Key:
    return tuple(sorted(c.rank for c in cards))


RULE_SETS = {
    "default": DEFAULT_RULES,
    "loose_wings": LOOSE,
    "four_with_pair": FOUR_WITH_PAIR,
    "quadplex_as_bomb": QUADPLEX,
    "all_variants": ALL_VARIANTS,
}
_CATALOGUES: dict[str, dict[Key, set[Reading]]] = {}


def catalogue_for(name: str) -> dict[Key, set[Reading]]:
    if name not in _CATALOGUES:
        _CATALOGUES[name] = spec_catalogue(RULE_SETS[name])
    return _CATALOGUES[name]


def _sort_key(r: Reading) -> tuple[int, int]:
    return READING_ORDER.index(r[0]), -r[1]


@pytest.mark.parametrize("name", RULE_SETS)
def test_every_set_the_rules_allow_reads_exactly_as_the_rules_say(name: str) -> None:
    rules = RULE_SETS[name]
    mismatches = []
    for key, expected in catalogue_for(name).items():
        got = [(c.type, c.main_rank, c.length) for c in readings(cards_of_ranks(key), rules)]
        if got != sorted(expected, key=_sort_key):
            mismatches.append((key, got, expected))
    assert mismatches == []


def _near_misses(key: Key, rng: random.Random) -> Iterator[Key]:
    """The set with one card removed, added or changed to another rank."""
    counts = Counter(key)
    ranks = sorted(counts)
    for r in ranks:
        yield tuple(sorted((counts - Counter([r])).elements()))
    for r in EVERY_RANK:
        if counts[r] < AVAILABLE[r]:
            yield tuple(sorted([*key, r]))
    for _ in range(3):
        old = rng.choice(ranks)
        new = rng.choice([r for r in EVERY_RANK if counts[r] < AVAILABLE[r] and r != old])
        yield tuple(sorted([*(counts - Counter([old])).elements(), new]))


@pytest.mark.parametrize("name", RULE_SETS)
def test_sets_the_rules_do_not_allow_have_no_reading(name: str) -> None:
    rules = RULE_SETS[name]
    catalogue = catalogue_for(name)
    rng = random.Random(20240607)
    probes: set[Key] = set()
    for key in rng.sample(sorted(catalogue), 2000):
        probes.update(m for m in _near_misses(key, rng) if 0 < len(m) <= MAX_CARDS)
    for _ in range(5000):  # random hands, and dense ones full of repeated ranks
        size = rng.randint(1, MAX_CARDS)
        pool = DECK if rng.random() < 0.5 else [c for c in DECK if c.rank in (3, 4, 5, 6, 7, 16)]
        probes.add(key_of(rng.sample(pool, min(size, len(pool)))))
    mismatches = []
    for key in probes:
        got = {(c.type, c.main_rank, c.length) for c in readings(cards_of_ranks(key), rules)}
        if got != catalogue.get(key, set()):
            mismatches.append((key, got, catalogue.get(key, set())))
    assert mismatches == []


@pytest.mark.parametrize("name", RULE_SETS)
def test_readings_are_ordered_and_classify_takes_the_first(name: str) -> None:
    rules = RULE_SETS[name]
    ambiguous = [key for key, found in catalogue_for(name).items() if len(found) > 1]
    for key in ambiguous:
        found = readings(cards_of_ranks(key), rules)
        order = [_sort_key((c.type, c.main_rank, c.length)) for c in found]
        assert order == sorted(order)
        assert len(set(order)) == len(order)
        assert classify(cards_of_ranks(key), rules) == found[0]


def test_only_loose_wings_make_a_set_ambiguous() -> None:
    for name in RULE_SETS:
        ambiguous = [key for key, found in catalogue_for(name).items() if len(found) > 1]
        if RULE_SETS[name].loose_wings:
            assert ambiguous
        else:
            assert ambiguous == []
