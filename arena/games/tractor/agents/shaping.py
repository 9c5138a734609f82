"""Building plays of a wanted shape from a hand, cheapest (or richest) cards first.

The follow rule fixes a follow's shape, not its cards (docs/rules-tractor.md,
Following): these helpers choose which tractors, pairs and singles fill that shape by a
*key* (lower is chosen first), so a player can give away its cheapest cards, or its
points to a partner, and a ruff can be built in trumps. Every choice is checked by the
engine before it is played; these only aim well.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from arena.games.tractor.engine import TRUMP, FollowRule, Trump
from arena.games.tractor.engine.cards import FACE, POINTS
from arena.games.tractor.engine.trump import CHAIN_TOP

__all__ = [
    "Key",
    "by_face",
    "dump_key",
    "feed_key",
    "pair_faces",
    "runs",
    "shaped",
    "tractor_segments",
]

Key = Callable[[int], float]
"""A card's price for a choice: the lower, the sooner it is given."""


def by_face(cards: Sequence[int]) -> dict[int, list[int]]:
    """Cards by face (two copies share one)."""
    found: dict[int, list[int]] = {}
    for card in cards:
        found.setdefault(FACE[card], []).append(card)
    return found


def pair_faces(cards: Sequence[int]) -> dict[int, list[int]]:
    """The faces of which both copies are among ``cards``."""
    return {f: c for f, c in by_face(cards).items() if len(c) == 2}


def runs(pairs: dict[int, list[int]], trump: Trump) -> list[list[list[int]]]:
    """The runs of consecutive pairs that chain (each a list of pairs, low to high)."""
    power = trump.power
    chain = sorted((power[c[0]], f) for f, c in pairs.items() if power[c[0]] <= CHAIN_TOP)
    found: list[list[list[int]]] = []
    previous = -9
    for p, face in chain:
        if p == previous + 1 and found:
            found[-1].append(pairs[face])
        else:
            found.append([pairs[face]])
        previous = p
    return found


def tractor_segments(pairs: dict[int, list[int]], trump: Trump, length: int) -> list[list[int]]:
    """Every tractor of exactly ``length`` pairs the pairs can form (as card lists)."""
    segments = []
    for run in runs(pairs, trump):
        for start in range(len(run) - length + 1):
            segments.append([c for pair in run[start : start + length] for c in pair])
    return segments


def dump_key(trump: Trump, held: Sequence[int]) -> Key:
    """The price of giving a card to the other team: trumps, points, high cards and
    cards that break a pair cost most."""
    power, group = trump.power, trump.group
    paired = {f for f, c in by_face(held).items() if len(c) == 2}

    def key(card: int) -> float:
        price = power[card] + POINTS[card] * 1.6
        if group[card] == TRUMP:
            price += 30
        if FACE[card] in paired:
            price += 9
        return price

    return key


def feed_key(trump: Trump, held: Sequence[int]) -> Key:
    """The price of giving a card to a partner who takes the trick: points are given
    first (10 and K before 5), then the cheapest cards; aces and trumps kept."""
    cheap = dump_key(trump, held)
    group = trump.group

    def key(card: int) -> float:
        if POINTS[card] and group[card] != TRUMP:
            return -POINTS[card] * 4 + cheap(card) * 0.1
        if POINTS[card]:
            return 10 - POINTS[card] + cheap(card) * 0.3
        return cheap(card)

    return key


def _cheapest(options: list[list[int]], key: Key) -> list[int]:
    return min(options, key=lambda cards: sum(key(c) for c in cards))


def shaped(mine: Sequence[int], rule: FollowRule, trump: Trump, key: Key) -> list[int]:
    """A follow of ``rule`` from ``mine`` (the hand's cards of the lead's group, more than
    the lead has): the tractors and pairs it must contain, then singles, each chosen by
    ``key``. The engine checks it; a shape this misses falls back to the fill order."""
    pairs = pair_faces(mine)
    chosen: list[int] = []
    for length in rule.tractors:
        options = tractor_segments(pairs, trump, length)
        if not options:
            break
        pick = _cheapest(options, key)
        chosen += pick
        for card in pick:
            pairs.pop(FACE[card], None)
    loose = rule.pairs - sum(rule.tractors)
    for _ in range(max(0, loose)):
        if not pairs:
            break
        face = min(pairs, key=lambda f: key(pairs[f][0]) + key(pairs[f][1]))
        chosen += pairs.pop(face)
    taken = set(chosen)
    rest = sorted((c for c in mine if c not in taken), key=key)
    return chosen + rest[: rule.count - len(chosen)]


def cheapest(cards: Sequence[int], count: int, key: Key) -> list[int]:
    """The ``count`` cards of ``cards`` with the lowest price."""
    return sorted(cards, key=key)[:count]
