"""Quick hand evaluation for scripted agents: how strong a hand is, how many plays it needs.

These are estimates, tuned for speed over precision: the heuristic agent calls
:func:`plays_needed` once per candidate move.
"""

from __future__ import annotations

from collections.abc import Iterable

from arena.games.ddz.engine import Card, card
from protocol.cards import ACE, BIG_JOKER, SMALL_JOKER, TWO

__all__ = ["bid_strength", "plays_needed"]


def bid_strength(cards: Iterable[Card | str]) -> int:
    """A rough bidding score: high cards and bombs count, a ragged hand counts against."""
    counts = [0] * 18
    for item in cards:
        counts[card(item).rank] += 1
    score = 4 * counts[BIG_JOKER] + 3 * counts[SMALL_JOKER] + 2 * counts[TWO] + counts[ACE]
    score += sum(4 for r in range(3, 16) if counts[r] == 4)
    if counts[SMALL_JOKER] and counts[BIG_JOKER]:
        score += 2
    return score + max(0, 8 - plays_needed(counts))


def plays_needed(counts: list[int]) -> int:
    """An estimate of how many plays empty a hand given as counts by rank (index 3..17).

    Takes the rocket and bombs whole, then chains of triples, pairs and singles where they
    remove loose cards, then lets each triple carry one loose single or pair.
    """
    c = counts.copy()
    plays = 0
    if c[SMALL_JOKER] and c[BIG_JOKER]:
        plays += 1
        c[SMALL_JOKER] = c[BIG_JOKER] = 0
    for r in range(3, TWO + 1):
        if c[r] == 4:
            plays += 1
            c[r] = 0
    plays += _take_chains(c, 3, 2)
    plays += _take_chains(c, 2, 3)
    plays += _take_straights(c)
    triples = sum(1 for r in range(3, TWO + 1) if c[r] == 3)
    loose = sum(1 for r in range(3, 18) if c[r] in (1, 2))
    plays += triples + max(0, loose - triples)
    return plays


def _take_chains(c: list[int], width: int, min_length: int) -> int:
    """Remove runs of exactly-``width`` ranks (airplanes, straight pairs); count plays."""
    plays = 0
    r = 3
    while r <= ACE:
        if c[r] != width:
            r += 1
            continue
        end = r
        while end + 1 <= ACE and c[end + 1] == width:
            end += 1
        if end - r + 1 >= min_length:
            for x in range(r, end + 1):
                c[x] -= width
            plays += 1
        r = end + 1
    return plays


def _take_straights(c: list[int]) -> int:
    """Remove straights that use up at least three loose singles; count plays."""
    plays = 0
    while True:
        best: tuple[int, int] | None = None
        best_gain = 2
        r = 3
        while r <= ACE:
            if not c[r]:
                r += 1
                continue
            end = r
            while end + 1 <= ACE and c[end + 1]:
                end += 1
            if end - r + 1 >= 5:
                gain = sum(1 for x in range(r, end + 1) if c[x] == 1)
                if gain > best_gain:
                    best, best_gain = (r, end), gain
            r = end + 1
        if best is None:
            return plays
        for x in range(best[0], best[1] + 1):
            c[x] -= 1
        plays += 1
