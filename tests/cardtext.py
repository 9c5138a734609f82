"""Compact card notation for tests: ``"333444+5+6"`` names distinct cards by rank.

Suits do not matter for the rules, so tests write card sets by rank and take the cards of
each rank in deck order (♠ ♥ ♦ ♣). ``+`` and spaces are only for reading.
"""

from __future__ import annotations

import re
from collections import Counter

from arena.games.ddz.engine import DECK, Card, Combo, ComboType

SMALL_JOKER, BIG_JOKER = 16, 17
RANK_OF = {
    **{str(n): n for n in range(3, 11)},
    "J": 11,
    "Q": 12,
    "K": 13,
    "A": 14,
    "2": 15,
    "小王": SMALL_JOKER,
    "大王": BIG_JOKER,
}
TOKEN = re.compile(r"10|小王|大王|[3-9JQKA2]")
BY_RANK = {rank: [c for c in DECK if c.rank == rank] for rank in range(3, 18)}
Reading = tuple[ComboType, int, int]


def cs(text: str) -> list[Card]:
    """Distinct cards for a compact rank notation such as ``"333444+5+6"``."""
    assert not re.sub(r"[\s+]", "", TOKEN.sub("", text)), f"bad notation {text!r}"
    used: Counter[int] = Counter()
    out: list[Card] = []
    for token in TOKEN.findall(text):
        rank = RANK_OF[token]
        out.append(BY_RANK[rank][used[rank]])
        used[rank] += 1
    return out


def reading(combo: Combo | None) -> Reading | None:
    """A combo as (type, main rank, length), None for None."""
    return None if combo is None else (combo.type, combo.main_rank, combo.length)
