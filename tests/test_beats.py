"""Which play beats which (docs/rules.md, "Which play beats which" and the variants).

Card sets are written compactly by rank, as in test_combos.py: ``"333444+5+6"``.
"""

from __future__ import annotations

from itertools import product

import pytest
from cardtext import cs

from arena.games.ddz.engine import (
    DEFAULT_RULES,
    PASS,
    Combo,
    ComboType,
    Rules,
    beats,
    readings,
)

T = ComboType
QUADPLEX = Rules(quadplex_as_bomb=True)


def play(text: str) -> Combo:
    """The only reading of a card set under the default rules."""
    (combo,) = readings(cs(text))
    return combo


# --- same type: higher main rank, same length --------------------------------------------

SAME_TYPE_HIGHER: list[tuple[str, str]] = [
    ("4", "3"),
    ("2", "A"),
    ("小王", "2"),
    ("大王", "小王"),
    ("44", "33"),
    ("22", "AA"),
    ("444", "333"),
    ("222", "AAA"),
    ("444+3", "333+A"),  # the kicker never matters
    ("444+3", "333+大王"),
    ("222+3", "AAA+K"),
    ("444+33", "333+AA"),
    ("222+33", "AAA+KK"),
    ("45678", "34567"),
    ("10JQKA", "910JQK"),
    ("456789", "345678"),
    ("445566", "334455"),
    ("QQKKAA", "JJQQKK"),
    ("4455667788", "3344556677"),
    ("444555", "333444"),
    ("KKKAAA", "QQQKKK"),
    ("444555666", "333444555"),
    ("444555+3+6", "333444+5+6"),
    ("444555+3+6", "333444+2+大王"),
    ("444555666+7+8+9", "333444555+7+8+9"),
    ("444555+33+66", "333444+55+66"),
    ("444555+33+66", "333444+22+AA"),
    ("4444+3+5", "3333+5+6"),
    ("2222+3+4", "AAAA+小王+2"),
    ("4444+33+55", "3333+55+66"),
    ("2222+33+44", "AAAA+KK+QQ"),
    ("4444", "3333"),
    ("2222", "AAAA"),
]


@pytest.mark.parametrize(
    ("high", "low"), SAME_TYPE_HIGHER, ids=[f"{h}>{lo}" for h, lo in SAME_TYPE_HIGHER]
)
def test_same_type_and_length_with_a_higher_main_rank_beats(high: str, low: str) -> None:
    assert play(high).type is play(low).type
    assert beats(play(high), play(low))


@pytest.mark.parametrize(
    ("high", "low"), SAME_TYPE_HIGHER, ids=[f"{h}>{lo}" for h, lo in SAME_TYPE_HIGHER]
)
def test_a_lower_main_rank_never_beats(high: str, low: str) -> None:
    assert not beats(play(low), play(high))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("3", "3"),
        ("小王", "小王"),
        ("55", "55"),
        ("444+3", "444+5"),  # same triple, other kicker
        ("444+3", "444+2"),
        ("444+33", "444+KK"),
        ("34567", "34567"),
        ("333444+5+6", "333444+7+8"),
        ("333444+55+66", "333444+77+88"),
        ("3333+5+6", "3333+7+8"),
        ("3333+55+66", "3333+77+88"),
        ("7777", "7777"),
    ],
)
def test_an_equal_main_rank_does_not_beat(a: str, b: str) -> None:
    assert not beats(play(a), play(b))
    assert not beats(play(b), play(a))


@pytest.mark.parametrize(
    ("curr", "prev"),
    [
        ("456789", "34567"),  # longer and higher
        ("45678", "345678"),  # shorter
        ("10JQKA", "3456789"),
        ("345678910JQKA", "34567"),
        ("55667788", "334455"),  # straight pairs: 4 pairs vs 3
        ("445566", "33445566"),
        ("444555666", "333444"),  # airplanes: 3 triples vs 2
        ("555666", "333444555"),
        ("555666777+8+9+10", "333444+5+6"),  # airplanes with singles: 3 vs 2
        ("555666+7+8", "333444555+6+7+8"),
        ("555666777+88+99+1010", "333444+55+66"),  # airplanes with pairs: 3 vs 2
    ],
)
def test_chains_of_different_length_never_beat(curr: str, prev: str) -> None:
    assert play(curr).type is play(prev).type
    assert not beats(play(curr), play(prev))
    assert not beats(play(prev), play(curr))


# --- different types never meet, except bombs and the rocket ------------------------------

NON_BOMBS: list[str] = [
    "3", "2", "大王",
    "33", "22",
    "333", "222",
    "333+4", "222+大王",
    "333+44", "222+AA",
    "34567", "10JQKA", "345678", "345678910JQKA",
    "334455", "QQKKAA", "33445566",
    "333444", "KKKAAA", "333444555",
    "333444+5+6", "KKKAAA+2+大王", "333444555+6+7+8",
    "333444+55+66", "KKKAAA+22+QQ",
    "3333+5+6", "2222+小王+A",
    "3333+55+66", "2222+AA+KK",
]  # fmt: skip
BOMBS: list[str] = ["3333", "7777", "AAAA", "2222"]
ROCKET = "小王大王"
EVERY_PLAY = [*NON_BOMBS, *BOMBS, ROCKET]


def test_the_example_plays_cover_every_type() -> None:
    assert {play(text).type for text in EVERY_PLAY} == set(ComboType) - {T.PASS}


@pytest.mark.parametrize(
    ("curr", "prev"),
    [(c, p) for c, p in product(NON_BOMBS, NON_BOMBS) if play(c).type is not play(p).type],
)
def test_a_different_type_never_beats(curr: str, prev: str) -> None:
    assert not beats(play(curr), play(prev))


@pytest.mark.parametrize(
    ("curr", "prev"),
    [
        ("333+4", "333"),  # a triple with a kicker is not a triple
        ("222+3", "AAA"),
        ("333+44", "222+3"),
        ("22", "3"),  # more cards is not more
        ("333444", "JJJ"),
        ("3333+4+5", "222+3"),  # four with two is not a bomb by default
        ("2222+3+4", "3"),
        ("2222+33+44", "AA"),
        ("AAAA+3+4", "34567"),
        ("3333+55+66", "2222+3+4"),  # nor do the two four-with-twos meet
        ("3333+5+6", "2222+33+44"),
        ("334455", "34567"),
        ("333444+5+6", "333444"),
    ],
)
def test_a_different_type_never_beats_hand_picked(curr: str, prev: str) -> None:
    assert not beats(play(curr), play(prev))


# --- bombs ------------------------------------------------------------------------------


@pytest.mark.parametrize("prev", NON_BOMBS)
@pytest.mark.parametrize("bomb", BOMBS)
def test_any_bomb_beats_any_non_bomb(bomb: str, prev: str) -> None:
    assert beats(play(bomb), play(prev))


@pytest.mark.parametrize("curr", NON_BOMBS)
@pytest.mark.parametrize("bomb", BOMBS)
def test_no_non_bomb_beats_a_bomb(curr: str, bomb: str) -> None:
    assert not beats(play(curr), play(bomb))


@pytest.mark.parametrize(("curr", "prev"), list(product(BOMBS, BOMBS)))
def test_a_bomb_beats_a_bomb_only_by_a_higher_rank(curr: str, prev: str) -> None:
    assert beats(play(curr), play(prev)) is (play(curr).main_rank > play(prev).main_rank)


def test_four_with_two_is_not_a_bomb_by_default() -> None:
    assert not beats(play("2222+3+4"), play("3333"))
    assert not beats(play("2222+33+44"), play("3333"))
    assert beats(play("3333"), play("2222+3+4"))
    assert beats(play("3333"), play("2222+33+44"))


# --- the rocket -------------------------------------------------------------------------


@pytest.mark.parametrize("prev", [*NON_BOMBS, *BOMBS])
def test_the_rocket_beats_everything(prev: str) -> None:
    assert beats(play(ROCKET), play(prev))
    assert beats(play(ROCKET), play(prev), QUADPLEX)


@pytest.mark.parametrize("curr", EVERY_PLAY)
def test_nothing_beats_the_rocket(curr: str) -> None:
    assert not beats(play(curr), play(ROCKET))
    assert not beats(play(curr), play(ROCKET), QUADPLEX)


# --- PASS and leading -------------------------------------------------------------------


@pytest.mark.parametrize("prev", [None, *EVERY_PLAY])
def test_pass_never_beats(prev: str | None) -> None:
    assert not beats(PASS, None if prev is None else play(prev))
    assert not beats(PASS, None if prev is None else play(prev), QUADPLEX)


@pytest.mark.parametrize("curr", EVERY_PLAY)
def test_leading_any_play_is_allowed(curr: str) -> None:
    assert beats(play(curr), None)
    assert beats(play(curr), None, QUADPLEX)


def test_pass_is_the_empty_play() -> None:
    assert PASS.type is T.PASS
    assert PASS.cards == ()


# --- variant: quadplex_as_bomb (four-with-two counts as a bomb of its quad's rank) ---------

QUADPLEXES = ["3333+5+6", "3333+55+66", "8888+3+小王", "8888+33+44", "2222+3+4", "2222+33+44"]


ORDINARY = [
    t for t in NON_BOMBS if play(t).type not in (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS)
]


@pytest.mark.parametrize("prev", ORDINARY)
@pytest.mark.parametrize("quadplex", QUADPLEXES)
def test_quadplex_as_bomb_beats_every_ordinary_play(quadplex: str, prev: str) -> None:
    assert beats(play(quadplex), play(prev), QUADPLEX)
    assert not beats(play(prev), play(quadplex), QUADPLEX)
    assert not beats(play(quadplex), play(prev))


@pytest.mark.parametrize(
    ("curr", "prev", "expected"),
    [
        ("4444", "3333+5+6", True),  # a bomb against a quadplex: by rank
        ("4444", "3333+55+66", True),
        ("3333", "4444+5+6", False),
        ("3333", "4444+55+66", False),
        ("4444+5+6", "3333", True),
        ("4444+55+66", "3333", True),
        ("3333+5+6", "4444", False),
        ("3333+55+66", "4444", False),
        ("4444+5+6", "3333+5+6", True),  # quadplexes against each other: by rank
        ("4444+55+66", "3333+5+6", True),  # even across the two kinds
        ("4444+5+6", "3333+55+66", True),
        ("3333+5+6", "4444+55+66", False),
        ("3333+55+66", "4444+5+6", False),
        ("3333+5+6", "3333+7+8", False),
        ("小王大王", "2222+3+4", True),
        ("2222+3+4", "小王大王", False),
    ],
)
def test_quadplex_as_bomb_compares_with_bombs_by_rank(curr: str, prev: str, expected: bool) -> None:
    assert beats(play(curr), play(prev), QUADPLEX) is expected


@pytest.mark.parametrize(
    ("curr", "prev", "expected"),
    [
        ("4444+5+6", "3333+5+6", True),
        ("3333+5+6", "4444+5+6", False),
        ("4444+55+66", "3333+55+66", True),
        ("4444+55+66", "3333+5+6", False),  # different kinds never meet by default
        ("4444+5+6", "3333+55+66", False),
        ("4444", "3333+5+6", True),
        ("3333", "4444+5+6", True),  # any bomb beats a four-with-two by default
        ("4444+5+6", "3333", False),
    ],
)
def test_four_with_two_by_default(curr: str, prev: str, expected: bool) -> None:
    assert beats(play(curr), play(prev), DEFAULT_RULES) is expected


# --- the whole rule as one table --------------------------------------------------------


def spec_beats(curr: Combo, prev: Combo | None, quadplex_as_bomb: bool) -> bool:
    """The rule stated again: rocket > bombs (by rank) > everything else (same shape, by rank)."""
    if curr.type is T.PASS:
        return False
    if prev is None:
        return True
    four_with_two = (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS)

    def bomb_like(c: Combo) -> bool:
        return c.type is T.BOMB or (quadplex_as_bomb and c.type in four_with_two)

    if prev.type is T.ROCKET:
        return False
    if curr.type is T.ROCKET:
        return True
    if bomb_like(curr) and bomb_like(prev):
        return curr.main_rank > prev.main_rank
    if bomb_like(curr) or bomb_like(prev):
        return bomb_like(curr)
    return (curr.type, curr.length) == (prev.type, prev.length) and curr.main_rank > prev.main_rank


_TABLE = [*EVERY_PLAY, *(h for pair in SAME_TYPE_HIGHER for h in pair), *QUADPLEXES]


@pytest.mark.parametrize("quadplex_as_bomb", [False, True])
def test_every_pair_of_example_plays_follows_section_7(quadplex_as_bomb: bool) -> None:
    rules = Rules(quadplex_as_bomb=quadplex_as_bomb)
    plays = [play(t) for t in dict.fromkeys(_TABLE)]
    wrong = [
        (str(curr), str(prev), beats(curr, prev, rules))
        for curr, prev in product([*plays, PASS], [*plays, None])
        if beats(curr, prev, rules) is not spec_beats(curr, prev, quadplex_as_bomb)
    ]
    assert wrong == []
