"""Legal move generation: every playable rank multiset of a hand, leading or following.

One entry per distinct rank multiset (suits never matter), each with concrete cards from
the hand. Following a trick, each entry is the reading that beats it; leading, the
reading :data:`~arena.games.ddz.engine.combos.READING_ORDER` prefers.

This is the engine's hot path (agents, fallbacks and benchmarks call it constantly), so it
works on per-rank buckets of the hand and builds each combo exactly once, directly as a
tuple, without classifying candidate sets.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import combinations
from typing import Any, Final

from arena.games.ddz.engine.cards import DECK, Card, CardLike, card
from arena.games.ddz.engine.combos import PASS, Combo, ComboType, is_bomb_like
from arena.games.ddz.engine.rules import DEFAULT_RULES, Rules
from protocol.cards import ACE, BIG_JOKER, SMALL_JOKER

__all__ = ["HandIndex", "is_forced_pass", "legal_moves", "legal_plays"]

T = ComboType
_RANKS: Final = range(3, BIG_JOKER + 1)
_new = tuple.__new__

_SINGLE, _PAIR, _TRIPLE = T.SINGLE, T.PAIR, T.TRIPLE
_TWS, _TWP = T.TRIPLE_WITH_SINGLE, T.TRIPLE_WITH_PAIR
_STRAIGHT, _STRAIGHT_PAIR, _AIRPLANE = T.STRAIGHT, T.STRAIGHT_PAIR, T.AIRPLANE
_AWS, _AWP = T.AIRPLANE_WITH_SINGLES, T.AIRPLANE_WITH_PAIRS
_FWTS, _FWTP = T.FOUR_WITH_TWO_SINGLES, T.FOUR_WITH_TWO_PAIRS
_BOMB, _ROCKET = T.BOMB, T.ROCKET
_PASS_TYPE = T.PASS  # members as globals: on 3.11 ``T.X`` is a slow EnumType lookup
_CHAIN_MIN: Final = {_STRAIGHT: 5, _STRAIGHT_PAIR: 3, _AIRPLANE: 2}
#: Each card played alone, by card id: combos are immutable, so these are shared.
_SINGLE_OF: Final = tuple(Combo(_SINGLE, c.rank, 1, (c,)) for c in DECK)


class HandIndex:
    """A hand split by rank, with the slices moves are made of.

    Built once per call from a plain hand; a caller that asks about the same hand many
    times (the round, between a seat's plays) builds it once and passes it instead.
    """

    __slots__ = ("one", "pairs", "quads", "singles", "three", "triples", "two")

    def __init__(self, hand: Iterable[CardLike]) -> None:
        by_rank: list[list[Card]] = [[] for _ in range(18)]
        for c in hand:
            try:
                by_rank[c.rank].append(c)  # type: ignore[union-attr,arg-type]
            except AttributeError:
                parsed = card(c)
                by_rank[parsed.rank].append(parsed)
        empty: tuple[Card, ...] = ()
        self.one: list[tuple[Card, ...]] = [empty] * 18
        self.two: list[tuple[Card, ...]] = [empty] * 18
        self.three: list[tuple[Card, ...]] = [empty] * 18
        self.singles: list[int] = []
        self.pairs: list[int] = []
        self.triples: list[int] = []
        self.quads: list[tuple[int, tuple[Card, ...]]] = []
        for rank in _RANKS:
            cards = by_rank[rank]
            if not cards:
                continue
            self.singles.append(rank)
            self.one[rank] = (cards[0],)
            n = len(cards)
            if n >= 2:
                self.pairs.append(rank)
                self.two[rank] = (cards[0], cards[1])
                if n >= 3:
                    self.triples.append(rank)
                    self.three[rank] = (cards[0], cards[1], cards[2])
                    if n == 4:
                        self.quads.append((rank, tuple(cards)))


def legal_plays(
    hand: Iterable[CardLike] | HandIndex, last: Combo | None = None, rules: Rules = DEFAULT_RULES
) -> list[Combo]:
    """The legal moves including PASS, which is legal exactly when following a trick."""
    moves = legal_moves(hand, last, rules)
    if last is not None and last.type is not T.PASS:
        moves.append(PASS)
    return moves


def legal_moves(
    hand: Iterable[CardLike] | HandIndex, last: Combo | None = None, rules: Rules = DEFAULT_RULES
) -> list[Combo]:
    """Every legal non-pass move from ``hand``; ``last`` is the trick to beat, None to lead."""
    if isinstance(hand, HandIndex):
        buckets = hand
    else:
        if last is not None and last.type in _SOLO_WIDTH and not rules.quadplex_as_bomb:
            return _follow_solo(hand, last)
        buckets = HandIndex(hand)
    if last is None or last.type is _PASS_TYPE:
        return _leads(buckets, rules)
    return _follows(buckets, last, rules)


_SOLO_WIDTH: Final = {_SINGLE: 1, _PAIR: 2, _TRIPLE: 3}


def _follow_solo(hand: Iterable[CardLike], last: Combo) -> list[Combo]:
    """Following a single, pair or triple: one pass over the hand, no full index.

    These are the commonest tricks, and they need only counts and the first cards of
    each rank (for the bombs, all four), so the per-rank index would be wasted work.
    """
    cards = hand if isinstance(hand, tuple | list) else tuple(hand)
    counts = [0] * 18
    first: list[Any] = [None] * 18
    second: list[Any] = [None] * 18
    third: list[Any] = [None] * 18
    try:
        for c in cards:
            rank = c.rank  # type: ignore[union-attr]
            seen = counts[rank]
            if seen == 0:
                first[rank] = c
            elif seen == 1:
                second[rank] = c
            elif seen == 2:
                third[rank] = c
            counts[rank] = seen + 1
    except AttributeError:  # card strings: parse them, then take the fast path
        return _follow_solo([card(c) for c in cards], last)
    kind, main = last.type, last.main_rank
    new, combo = _new, Combo
    if kind is _SINGLE:
        single_of = _SINGLE_OF
        out = [single_of[first[r].id] for r in range(main + 1, 18) if counts[r]]
    elif kind is _PAIR:
        out = [
            new(combo, (kind, r, 1, (first[r], second[r])))
            for r in range(main + 1, 16)
            if counts[r] >= 2
        ]
    else:
        out = [
            new(combo, (kind, r, 1, (first[r], second[r], third[r])))
            for r in range(main + 1, 16)
            if counts[r] >= 3
        ]
    if 4 in counts:
        for rank in range(3, 16):
            if counts[rank] == 4:
                quad = tuple(c for c in cards if c.rank == rank)  # type: ignore[union-attr]
                out.append(new(combo, (_BOMB, rank, 1, quad)))
    if counts[SMALL_JOKER] and counts[BIG_JOKER]:
        out.append(new(combo, (_ROCKET, BIG_JOKER, 1, (first[SMALL_JOKER], first[BIG_JOKER]))))
    return out


def is_forced_pass(
    hand: Iterable[CardLike] | HandIndex, last: Combo | None, rules: Rules = DEFAULT_RULES
) -> bool:
    """Whether passing is the only legal action: following, and nothing in hand beats it."""
    if last is None or last.type is T.PASS:
        return False
    return not legal_moves(hand, last, rules)


def _leads(b: HandIndex, rules: Rules) -> list[Combo]:
    new, combo = _new, Combo  # locals: this loop builds most of the moves of a lead
    one, two, three = b.one, b.two, b.three
    singles, pairs = b.singles, b.pairs
    single_of = _SINGLE_OF
    out = [single_of[one[r][0].id] for r in singles]
    out += [new(combo, (_PAIR, r, 1, two[r])) for r in pairs]
    add = out.append
    for r in b.triples:
        t = three[r]
        add(new(combo, (_TRIPLE, r, 1, t)))
        out += [new(combo, (_TWS, r, 1, t + one[k])) for k in singles if k != r]
        out += [new(combo, (_TWP, r, 1, t + two[k])) for k in pairs if k != r]
    _add_bombs(b, 0, add)
    if len(singles) >= 5:
        out += _chains(b, _STRAIGHT, 5, 0)
    if len(pairs) >= 3:
        out += _chains(b, _STRAIGHT_PAIR, 3, 0)
    planes = _chains(b, _AIRPLANE, 2, 0) if len(b.triples) >= 2 else []
    out += planes
    if planes:
        longest = max(m.length for m in planes)
        for length in range(2, longest + 1):  # every reading: a lead's reading is its own play
            out.extend(_airplanes_with_wings(b, _AWS, length, 0, rules, None))
            out.extend(_airplanes_with_wings(b, _AWP, length, 0, rules, None))
    for quad, cards in b.quads:
        out.extend(_four_with_two(b, quad, cards, _FWTS, rules))
        out.extend(_four_with_two(b, quad, cards, _FWTP, rules))
    return out


def _follows(b: HandIndex, last: Combo, rules: Rules) -> list[Combo]:
    out: list[Combo] = []
    add = out.append
    kind, main = last.type, last.main_rank
    if kind is _ROCKET:
        return out
    if kind is _SINGLE:
        one, single_of = b.one, _SINGLE_OF
        out += [single_of[one[r][0].id] for r in b.singles if r > main]
    elif kind is _PAIR:
        two = b.two
        for r in b.pairs:
            if r > main:
                add(_new(Combo, (_PAIR, r, 1, two[r])))
    elif kind is _TRIPLE or kind is _TWS or kind is _TWP:
        one, two, three = b.one, b.two, b.three
        for r in b.triples:
            if r <= main:
                continue
            t = three[r]
            if kind is _TRIPLE:
                add(_new(Combo, (_TRIPLE, r, 1, t)))
            elif kind is _TWS:
                for k in b.singles:
                    if k != r:
                        add(_new(Combo, (_TWS, r, 1, t + one[k])))
            else:
                for k in b.pairs:
                    if k != r:
                        add(_new(Combo, (_TWP, r, 1, t + two[k])))
    elif kind is _STRAIGHT or kind is _STRAIGHT_PAIR or kind is _AIRPLANE:
        out.extend(_chains(b, kind, _CHAIN_MIN[kind], main, last.length))
    elif kind is _AWS or kind is _AWP:
        out.extend(_airplanes_with_wings(b, kind, last.length, main, rules, set()))
    elif kind is _FWTS or kind is _FWTP:
        for quad, cards in b.quads:
            if quad > main:
                out.extend(_four_with_two(b, quad, cards, kind, rules))
    if rules.quadplex_as_bomb:
        # Variant: quadplexes are bombs. A plain trick falls to any of them; a bomb-like
        # one only to higher ones (its own kind above was listed by the branch above).
        floor = main if is_bomb_like(last, rules) else 0
        for quad, cards in b.quads:
            if quad > floor:
                for quadplex in (_FWTS, _FWTP):
                    if quadplex is not kind:
                        out.extend(_four_with_two(b, quad, cards, quadplex, rules))
        _add_bombs(b, floor, add)
        return out
    _add_bombs(b, main if kind is _BOMB else 0, add)
    return out


def _add_bombs(b: HandIndex, above: int, add: Callable[[Combo], None]) -> None:
    """Bombs above a rank, then the rocket."""
    for rank, cards in b.quads:
        if rank > above:
            add(_new(Combo, (_BOMB, rank, 1, cards)))
    if b.one[SMALL_JOKER] and b.one[BIG_JOKER]:
        add(_new(Combo, (_ROCKET, BIG_JOKER, 1, b.one[SMALL_JOKER] + b.one[BIG_JOKER])))


def _runs(ranks: list[int], min_length: int) -> list[tuple[int, int]]:
    """Maximal runs ``(first, last)`` of consecutive ranks within 3..A, at least this long."""
    runs: list[tuple[int, int]] = []
    first = prev = -1
    for r in ranks:
        if r > ACE:
            break
        if r != prev + 1:
            if prev - first + 1 >= min_length:
                runs.append((first, prev))
            first = r
        prev = r
    if first >= 0 and prev - first + 1 >= min_length:
        runs.append((first, prev))
    return runs


def _chains(
    b: HandIndex, kind: ComboType, min_length: int, above: int, only_length: int = 0
) -> list[Combo]:
    """Straights, straight pairs or plain airplanes with top rank above ``above``.

    With ``only_length`` set, just the chains of that many ranks (following a trick).
    """
    if kind is _STRAIGHT:
        parts, ranks = b.one, b.singles
    elif kind is _STRAIGHT_PAIR:
        parts, ranks = b.two, b.pairs
    else:
        parts, ranks = b.three, b.triples
    out: list[Combo] = []
    for run_first, run_last in _runs(ranks, only_length or min_length):
        for first in range(run_first, run_last - min_length + 2):
            acc = parts[first]
            for top in range(first + 1, run_last + 1):
                acc = acc + parts[top]
                length = top - first + 1
                if (
                    length >= min_length
                    and top > above
                    and (not only_length or length == only_length)
                ):
                    out.append(_new(Combo, (kind, top, length, acc)))
    return out


def _airplanes_with_wings(
    b: HandIndex, kind: ComboType, length: int, above: int, rules: Rules, seen: set[int] | None
) -> list[Combo]:
    """Airplanes of ``length`` triples with single or pair wings, highest chain first.

    ``seen`` holds rank-multiset keys already produced, when each card set is to be
    listed once (following: one reading that beats the trick is enough); it is used (and
    grown) only with loose wings, the one setting under which one multiset has several
    such readings. None lists every reading (leading: each reading is a different lead).
    """
    out: list[Combo] = []
    singles = kind is _AWS
    dedupe = seen if singles and rules.loose_wings else None
    three = b.three
    for run_first, run_last in reversed(_runs(b.triples, length)):
        for top in range(run_last, run_first + length - 2, -1):
            if top <= above:
                break
            first = top - length + 1
            body: tuple[Card, ...] = ()
            for r in range(first, top + 1):
                body += three[r]
            for wing_cards in _wings(b, first, top, length, singles, rules.loose_wings):
                cards = body + wing_cards
                if dedupe is not None:
                    key = _key(cards)
                    if key in dedupe:
                        continue
                    dedupe.add(key)
                out.append(_new(Combo, (kind, top, length, cards)))
    return out


def _wings(
    b: HandIndex, first: int, top: int, count: int, singles: bool, loose: bool
) -> Iterator[tuple[Card, ...]]:
    if singles and loose:
        yield from _loose_wings(b, first, top, count)
        return
    parts = b.one if singles else b.two
    pool = [r for r in (b.singles if singles else b.pairs) if r < first or r > top]
    if len(pool) < count:
        return
    for ranks in combinations(pool, count):
        if singles and ranks[-1] == BIG_JOKER and count >= 2 and ranks[-2] == SMALL_JOKER:
            continue
        acc: tuple[Card, ...] = ()
        for r in ranks:
            acc += parts[r]
        yield acc


def _loose_wings(b: HandIndex, first: int, top: int, count: int) -> Iterator[tuple[Card, ...]]:
    """Every multiset of ``count`` wing cards outside the chain, never both jokers nor
    a four of a kind (wings are never a bomb)."""
    cards = [c for r in b.singles if r < first or r > top for c in _rank_cards(b, r)]
    seen: set[tuple[int, ...]] = set()
    for picked in combinations(cards, count):
        ranks = tuple(c.rank for c in picked)
        if ranks in seen:
            continue
        seen.add(ranks)
        if count >= 2 and ranks[-1] == BIG_JOKER and ranks[-2] == SMALL_JOKER:
            continue
        if count >= 4 and any(ranks[i] == ranks[i + 3] for i in range(count - 3)):
            continue
        yield picked


def _rank_cards(b: HandIndex, rank: int) -> tuple[Card, ...]:
    """All cards of a rank in the hand (up to four)."""
    for quad_rank, cards in b.quads:
        if quad_rank == rank:
            return cards
    return b.three[rank] or b.two[rank] or b.one[rank]


def _four_with_two(
    b: HandIndex, quad: int, cards: tuple[Card, ...], kind: ComboType, rules: Rules
) -> list[Combo]:
    new, combo = _new, Combo
    if kind is _FWTS:
        one = b.one
        pool = [r for r in b.singles if r != quad]
        out = [
            new(combo, (_FWTS, quad, 1, cards + one[low] + one[high]))
            for low, high in combinations(pool, 2)
            if high != BIG_JOKER or low != SMALL_JOKER
        ]
        if rules.four_with_pair:
            two = b.two
            out += [new(combo, (_FWTS, quad, 1, cards + two[r])) for r in b.pairs if r != quad]
        return out
    two = b.two
    pool = [r for r in b.pairs if r != quad]
    return [
        new(combo, (_FWTP, quad, 1, cards + two[low] + two[high]))
        for low, high in combinations(pool, 2)
    ]


def _key(cards: Iterable[Card]) -> int:
    """A rank multiset as one integer (3 bits per rank), for de-duplication."""
    key = 0
    for c in cards:
        key += 1 << (3 * (c.rank - 3))
    return key
