"""Combinations (牌型): what a set of cards can be read as, and which play beats which.

A :class:`Combo` is a tagged tuple rather than a dataclass because move generation builds
hundreds of them per call and a tuple is the cheapest immutable object CPython makes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import pairwise
from typing import Final, NamedTuple

from arena.errors import IllegalActionError
from arena.games.ddz.engine.cards import Card, CardLike, cards_of
from arena.games.ddz.engine.rules import DEFAULT_RULES, Rules
from arena.games.ddz.messages import HandType
from protocol.cards import ACE, BIG_JOKER, SMALL_JOKER

__all__ = [
    "PASS",
    "READING_ORDER",
    "Combo",
    "ComboType",
    "beats",
    "chain_length",
    "classify",
    "is_bomb_like",
    "playable_reading",
    "rank_counts",
    "readings",
    "readings_of_counts",
]


ComboType = HandType
"""Combination types: the protocol's own enum, so engine and wire share the names."""


T = ComboType

#: Which reading of an ambiguous card set is taken when a leader names no type (docs/rules.md).
READING_ORDER: Final[tuple[ComboType, ...]] = (
    T.ROCKET,
    T.BOMB,
    T.STRAIGHT,
    T.STRAIGHT_PAIR,
    T.AIRPLANE,
    T.AIRPLANE_WITH_PAIRS,
    T.AIRPLANE_WITH_SINGLES,
    T.FOUR_WITH_TWO_PAIRS,
    T.FOUR_WITH_TWO_SINGLES,
    T.TRIPLE_WITH_PAIR,
    T.TRIPLE_WITH_SINGLE,
    T.TRIPLE,
    T.PAIR,
    T.SINGLE,
)
_PRIORITY: Final = {t: i for i, t in enumerate(READING_ORDER)}

# Members read on every play, as module constants: on Python 3.11 every ``T.X`` is a slow
# lookup through ``EnumType.__getattr__`` (hundreds of instructions, against a few).
_BOMB_TYPE: Final = T.BOMB
_QUADPLEXES: Final = (T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS)


class Combo(NamedTuple):
    """One reading of a set of cards.

    ``main_rank`` decides comparisons (3..17, 0 for PASS); ``length`` is the number of
    ranks in a chain (straight, straight pair, airplane), 1 otherwise, 0 for PASS.
    Note that ``len(combo)`` is the tuple's 4 fields: use ``len(combo.cards)``.
    """

    type: ComboType
    main_rank: int
    length: int
    cards: tuple[Card, ...]

    @property
    def is_pass(self) -> bool:
        """Whether this is the empty play."""
        return self.type is T.PASS

    @property
    def card_strings(self) -> list[str]:
        """The cards in canonical notation, for the wire."""
        return [c.text for c in self.cards]

    def __str__(self) -> str:
        if self.type is T.PASS:
            return "PASS"
        return f"{self.type.value}({' '.join(c.text for c in self.cards)})"


#: The pass, as a combo, so histories can hold plays and passes alike.
PASS: Final = Combo(T.PASS, 0, 0, ())


_CHAIN_WIDTH: Final = {
    T.STRAIGHT: 1,
    T.STRAIGHT_PAIR: 2,
    T.AIRPLANE: 3,
    T.AIRPLANE_WITH_SINGLES: 4,
    T.AIRPLANE_WITH_PAIRS: 5,
}


def chain_length(kind: ComboType, card_count: int) -> int:
    """A combo's ``length`` from its type and card count: ranks in the chain, else 1."""
    width = _CHAIN_WIDTH.get(kind)
    if width is None:
        return 0 if kind is T.PASS else 1
    return card_count // width


def rank_counts(cards: Iterable[Card]) -> list[int]:
    """How many cards of each rank, indexed by rank (0..17, indices below 3 unused)."""
    counts = [0] * 18
    for c in cards:
        counts[c.rank] += 1
    return counts


def _is_run(ranks: Sequence[int]) -> bool:
    """Consecutive, strictly increasing ranks that stay within 3..A."""
    return ranks[-1] <= ACE and all(b - a == 1 for a, b in pairwise(ranks))


def _chain_readings(counts: list[int], n: int, rules: Rules) -> list[tuple[ComboType, int, int]]:
    """Airplane-with-wings readings: every chain of triples whose leftovers make valid wings."""
    found: list[tuple[ComboType, int, int]] = []
    candidates = [r for r in range(3, ACE + 1) if counts[r] >= 3]
    for wing_size, combo_type in ((1, T.AIRPLANE_WITH_SINGLES), (2, T.AIRPLANE_WITH_PAIRS)):
        if n % (3 + wing_size):
            continue
        k = n // (3 + wing_size)
        if k < 2:
            continue
        for start in candidates:
            chain = range(start, start + k)
            if chain[-1] > ACE or any(counts[r] < 3 for r in chain):
                continue
            rest = counts.copy()
            for r in chain:
                rest[r] -= 3
            if any(rest[r] for r in chain):
                continue  # a wing may never be a rank of the plane
            if rest[SMALL_JOKER] and rest[BIG_JOKER]:
                continue  # never both jokers among the wings
            if wing_size == 1:
                if max(rest) > (3 if rules.loose_wings else 1):
                    continue  # loose wings may repeat a rank, but are never a bomb
            elif any(c not in (0, 2) for c in rest):
                continue
            found.append((combo_type, chain[-1], k))
    return found


def readings_of_counts(
    counts: list[int], n: int, rules: Rules = DEFAULT_RULES
) -> list[tuple[ComboType, int, int]]:
    """The (type, main rank, length) readings of a rank multiset, in reading order."""
    present = [r for r in range(3, 18) if counts[r]]
    shape = sorted((counts[r] for r in present), reverse=True)
    found: list[tuple[ComboType, int, int]] = []
    if n == 1:
        return [(T.SINGLE, present[0], 1)]
    if n == 2:
        if present == [SMALL_JOKER, BIG_JOKER]:
            return [(T.ROCKET, BIG_JOKER, 1)]
        return [(T.PAIR, present[0], 1)] if shape == [2] else []
    if n == 3:
        return [(T.TRIPLE, present[0], 1)] if shape == [3] else []
    if n == 4:
        if shape == [4]:
            return [(T.BOMB, present[0], 1)]
        if shape == [3, 1]:
            return [(T.TRIPLE_WITH_SINGLE, _rank_with(counts, present, 3), 1)]
        return []
    if shape[0] == 1 and n >= 5 and _is_run(present):
        found.append((T.STRAIGHT, present[-1], n))
    if shape == [3, 2]:
        found.append((T.TRIPLE_WITH_PAIR, _rank_with(counts, present, 3), 1))
    if n >= 6 and all(c == 2 for c in shape) and _is_run(present):
        found.append((T.STRAIGHT_PAIR, present[-1], n // 2))
    if n >= 6 and all(c == 3 for c in shape) and _is_run(present):
        found.append((T.AIRPLANE, present[-1], n // 3))
    if n >= 8 and shape[0] >= 3:
        found.extend(_chain_readings(counts, n, rules))
    if shape[0] == 4 and n in (6, 8):
        quad = _rank_with(counts, present, 4)
        kickers = [r for r in present if r != quad]
        kicker_counts = sorted(counts[r] for r in kickers)
        if n == 6:
            both_jokers = kickers == [SMALL_JOKER, BIG_JOKER]
            if (kicker_counts == [1, 1] and not both_jokers) or (
                rules.four_with_pair and kicker_counts == [2]
            ):
                found.append((T.FOUR_WITH_TWO_SINGLES, quad, 1))
        elif kicker_counts == [2, 2]:
            found.append((T.FOUR_WITH_TWO_PAIRS, quad, 1))
    found.sort(key=lambda reading: (_PRIORITY[reading[0]], -reading[1]))
    return found


def _rank_with(counts: list[int], present: list[int], count: int) -> int:
    return next(r for r in present if counts[r] == count)


def readings(cards: Iterable[CardLike], rules: Rules = DEFAULT_RULES) -> list[Combo]:
    """Every way the cards can be played, in :data:`READING_ORDER` (higher main rank first).

    Accepts cards or canonical strings. Empty or unplayable sets give an empty list.
    """
    hand = cards_of(cards)
    n = len(hand)
    if not n:
        return []
    counts = rank_counts(hand)
    ordered = tuple(sorted(hand, key=_by_id))
    return [
        Combo(t, main, length, ordered) for t, main, length in readings_of_counts(counts, n, rules)
    ]


def _by_id(c: Card) -> int:
    return c.id


def playable_reading(
    cards: tuple[Card, ...],
    trick: Combo | None,
    rules: Rules = DEFAULT_RULES,
    hand_type: ComboType | None = None,
) -> Combo:
    """The reading under which ``cards`` may be played on ``trick`` (None: leading).

    ``hand_type`` restricts the readings; leading takes the first in reading order,
    following the first that beats the trick. Raises IllegalActionError saying why not.
    """
    options = readings_of_counts(rank_counts(cards), len(cards), rules)
    if not options:
        shown = " ".join(c.text for c in sorted(cards, key=_by_id))
        raise IllegalActionError(f"{shown} is not a valid combination")
    if hand_type is not None:
        typed = [r for r in options if r[0] is hand_type]
        if not typed:
            names = ", ".join(r[0].value for r in options)
            raise IllegalActionError(
                f"these cards are not a {hand_type.value} (they read as {names})"
            )
        options = typed
    for kind, main, length in options:
        option = Combo(kind, main, length, cards)
        if beats(option, trick, rules):
            return option
    assert trick is not None
    kind, main, length = options[0]
    raise IllegalActionError(f"{Combo(kind, main, length, cards)} does not beat {trick}")


def classify(cards: Iterable[CardLike], rules: Rules = DEFAULT_RULES) -> Combo | None:
    """The canonical reading of the cards (the first of :func:`readings`), or None."""
    found = readings(cards, rules)
    return found[0] if found else None


def is_bomb_like(combo: Combo, rules: Rules = DEFAULT_RULES) -> bool:
    """Whether the combo beats ordinary combos and counts toward the bomb multiplier."""
    if combo.type is _BOMB_TYPE:
        return True
    # the type first: reading a field of the (pydantic) rules is the slower test
    return combo.type in _QUADPLEXES and rules.quadplex_as_bomb


def beats(curr: Combo, prev: Combo | None, rules: Rules = DEFAULT_RULES) -> bool:
    """Whether ``curr`` may be played on ``prev``; ``prev`` None means leading.

    Leading, any combination but PASS is allowed. A rocket beats everything; a bomb beats
    every non-bomb; otherwise type and length must match and the main rank be higher.
    """
    if curr.type is T.PASS:
        return False
    if prev is None or prev.type is T.PASS:
        return True
    if curr.type is T.ROCKET:
        return prev.type is not T.ROCKET
    if prev.type is T.ROCKET:
        return False
    curr_bomb = is_bomb_like(curr, rules)
    prev_bomb = is_bomb_like(prev, rules)
    if curr_bomb != prev_bomb:
        return curr_bomb
    if curr_bomb:
        return curr.main_rank > prev.main_rank
    return curr.type is prev.type and curr.length == prev.length and curr.main_rank > prev.main_rank
