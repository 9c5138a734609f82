"""A round's trump context: which suit group each card is in, and how strong it is.

Everything that depends on the level and the trump suit is looked up in two tables of
108 ints built once per (level, suit) and cached, so following and comparing plays costs
list indexing, not branching on jokers and level cards.

Power, within a suit group (only plays of one group are ever compared):

- a plain card (not a joker, not of the level rank): its rank's place in 2..A with the
  level rank removed, 0..11; consecutive powers are consecutive for tractors (at level 5,
  4 and 6 are 2 and 3);
- trumps above them: a level card of another suit 13 (all equal), the level card of the
  trump suit 14, the small joker 15, the big joker 16. With no trump suit (无主) every
  level card is 13.

Only powers 0..11 chain into tractors: level cards and jokers never do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Final

from arena.errors import SetupError
from arena.games.tractor.engine.cards import (
    DECK,
    RANK,
    RANK_BIG_JOKER,
    RANK_SMALL_JOKER,
    SUIT,
    SUIT_SYMBOLS,
    rank_text,
)

__all__ = [
    "CHAIN_TOP",
    "TRUMP",
    "Trump",
    "group_name",
    "trump_context",
]

TRUMP: Final = 4
"""The trump suit group; the others are the suits 0..3 (♠ ♥ ♦ ♣)."""
CHAIN_TOP: Final = 11
"""The highest power that chains into a tractor (an A, or a K at level A)."""
OFF_LEVEL, TRUMP_LEVEL = 13, 14


def group_name(group: int) -> str:
    """A suit group for people: ``♠`` or ``trumps``."""
    return "trumps" if group == TRUMP else SUIT_SYMBOLS[group]


@dataclass(frozen=True, slots=True)
class Trump:
    """The level rank (2..14) and trump suit (0..3, None for no-trump) of a round, with
    each card's suit group and power (see the module). Build one with
    :func:`trump_context`, which caches them."""

    level: int
    suit: int | None
    group: tuple[int, ...] = field(repr=False, compare=False)
    """Each card's suit group: 0..3, or :data:`TRUMP`."""
    power: tuple[int, ...] = field(repr=False, compare=False)
    """Each card's power within its group (see the module)."""

    @property
    def name(self) -> str:
        """``level 5, ♥ trump`` or ``level 5, no trump``."""
        trump = "no trump" if self.suit is None else f"{SUIT_SYMBOLS[self.suit]} trump"
        return f"level {rank_text(self.level)}, {trump}"

    def is_trump(self, card: int) -> bool:
        """Whether a card is a trump this round."""
        return self.group[card] == TRUMP


def _power(rank: int, suit: int, level: int, trump_suit: int | None) -> int:
    if rank == RANK_BIG_JOKER:
        return 16
    if rank == RANK_SMALL_JOKER:
        return 15
    if rank == level:
        return TRUMP_LEVEL if suit == trump_suit else OFF_LEVEL
    return rank - 2 - (rank > level)


@lru_cache(maxsize=128)
def trump_context(level: int, suit: int | None) -> Trump:
    """The trump context of a round at ``level`` with ``suit`` trump (None: no-trump)."""
    if not 2 <= level <= 14:
        raise SetupError(f"a level is 2..14 (A), got {level!r}")
    if suit is not None and suit not in (0, 1, 2, 3):
        raise SetupError(f"a trump suit is 0..3 or None, got {suit!r}")
    groups = tuple(
        TRUMP if SUIT[c] < 0 or RANK[c] == level or SUIT[c] == suit else SUIT[c] for c in DECK
    )
    powers = tuple(_power(RANK[c], SUIT[c], level, suit) for c in DECK)
    return Trump(level, suit, groups, powers)
