"""How the ``heuristic`` player declares trump and buries the kitty: judging a holding.

Declaring: a suit is worth declaring when it would make a good share of the hand
trumps (the jokers, the level cards and the suit's cards), pairs of level cards
counting extra. The seat declares its best suit when that share is high, reinforces its
own declaration with the pair, overcalls an opponent only with a clearly better suit
(or, holding few of the opponent's suit, with a joker for no-trump), and never
overcalls its partner.

Burying (the banker, with the kitty in hand): no trumps, no points and no pairs while
other cards are left; a short plain suit is buried whole when it can be, so the banker
is void there and can ruff.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from arena.games.tractor.agents.shaping import by_face
from arena.games.tractor.engine import TRUMP, Trump
from arena.games.tractor.engine.cards import (
    FACE,
    POINTS,
    RANK,
    RANK_ACE,
    RANK_SMALL_JOKER,
    SUIT,
    SUIT_LETTERS,
)
from arena.games.tractor.messages import DeclarationOption

__all__ = ["DECLARE_SHARE", "bury_choice", "declare_choice", "trump_share"]

DECLARE_SHARE: Final = 0.36
"""The share of the hand a declaration must make trumps (about a third is average)."""
_OVERCALL_MARGIN: Final = 0.12
"""How much more of the hand an overcall's suit must make trumps than the candidate's."""
_NO_TRUMP_SHARE: Final = 0.2
"""Holding at most this share in an opponent's declared suit, a joker overcalls it."""
_MIN_CARDS: Final = 6
"""Fewer cards seen than this (an early deal step): too few to judge."""


def trump_share(hand: Sequence[int], level: int, suit: int | None) -> float:
    """The share of ``hand`` that would be trumps with ``suit`` declared (None: no
    trump), a pair of level cards of that suit counting one more."""
    if not hand:
        return 0.0
    count = 0.0
    for card in hand:
        rank = RANK[card]
        if rank >= RANK_SMALL_JOKER or rank == level or (suit is not None and SUIT[card] == suit):
            count += 1
    if suit is not None:
        level_faces = [c for c in hand if RANK[c] == level and SUIT[c] == suit]
        if len(level_faces) == 2:
            count += 1
    return count / len(hand)


def declare_choice(
    hand: Sequence[int],
    level: int,
    options: Sequence[DeclarationOption],
    candidate: tuple[str, int | None] | None,
    me: str,
    partners: Collection[str],
) -> DeclarationOption | None:
    """The option to declare, or None to pass. ``candidate``: the declaring seat and
    suit of the candidate so far (None: nobody yet)."""
    if not options or len(hand) < _MIN_CARDS:
        return None
    suits = [o for o in options if o.suit is not None]
    owner = None if candidate is None else candidate[0]
    if owner in partners:
        return None
    if owner == me:  # reinforce with the pair of the same suit
        assert candidate is not None
        same = [o for o in suits if _suit(o) == candidate[1] and len(o.cards) == 2]
        return same[0] if same else None
    best = max(
        suits, key=lambda o: (trump_share(hand, level, _suit(o)), len(o.cards)), default=None
    )
    share = 0.0 if best is None else trump_share(hand, level, _suit(best))
    if candidate is None:
        return best if share >= DECLARE_SHARE else None
    theirs = trump_share(hand, level, candidate[1])
    if best is not None and share >= DECLARE_SHARE and share >= theirs + _OVERCALL_MARGIN:
        return best
    jokers = [o for o in options if o.suit is None]
    if jokers and candidate[1] is not None and theirs <= _NO_TRUMP_SHARE:
        return jokers[0]
    return None


def _suit(option: DeclarationOption) -> int | None:
    return None if option.suit is None else SUIT_LETTERS.index(option.suit)


def bury_choice(hand: Sequence[int], count: int, trump: Trump) -> list[int]:
    """``count`` cards to bury (see the module): whole short plain suits of cheap cards
    first, then the cheapest cards left."""
    group, power = trump.group, trump.power
    paired = {f for f, cs in by_face(hand).items() if len(cs) == 2}

    def price(card: int) -> tuple[bool, int, int]:
        """Kept first: trumps, then points (10s and Ks before 5s), then by worth: a pair
        above any single but an ace, high cards above low ones."""
        worth = power[card] + 12 * (FACE[card] in paired) + 6 * (RANK[card] == RANK_ACE)
        return (group[card] == TRUMP, POINTS[card], worth)

    plain: dict[int, list[int]] = {}
    for c in hand:
        if group[c] != TRUMP:
            plain.setdefault(group[c], []).append(c)
    chosen: list[int] = []
    for cards in sorted(plain.values(), key=len):
        if len(chosen) + len(cards) > count:
            continue
        if all(POINTS[c] == 0 and FACE[c] not in paired and RANK[c] != RANK_ACE for c in cards):
            chosen += cards
    taken = set(chosen)
    rest = sorted((c for c in hand if c not in taken), key=price)
    return chosen + rest[: count - len(chosen)]
