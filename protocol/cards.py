"""Card notation on the wire: the canonical strings and the lenient forms agents send.

Pure data, no game rules. Canonical strings (docs/rules.md, Card notation on the wire): suit
symbol then rank (``♠3``, ``♥10``, ``♣A``), and ``小王`` / ``大王`` for the jokers. Ranks are
the integers 3..17 used everywhere (J=11, Q=12, K=13, A=14, 2=15, 小王=16, 大王=17).

Language models are sloppy, so replies may use wider forms (the same section lists
them); :func:`parse_token` reads them into a rank and an optional suit. Resolving a
rank-only token to a concrete card needs the player's hand and lives in the engine.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = [
    "ACE",
    "BIG_JOKER",
    "CANONICAL_CARDS",
    "RANK_NAMES",
    "SMALL_JOKER",
    "SUITS",
    "TWO",
    "CardNotationError",
    "is_canonical",
    "parse_token",
    "rank_name",
]

#: The ranks the rules single out: the highest in a chain, and the three above it.
ACE: Final = 14
TWO: Final = 15
SMALL_JOKER: Final = 16
BIG_JOKER: Final = 17

SUITS: Final = ("♠", "♥", "♦", "♣")

RANK_NAMES: Final[dict[int, str]] = {
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "10",
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
    15: "2",
    16: "小王",
    17: "大王",
}

#: The 54 canonical strings in card-id order: by rank, then ♠ ♥ ♦ ♣, then the jokers.
CANONICAL_CARDS: Final[tuple[str, ...]] = (
    *(suit + RANK_NAMES[rank] for rank in range(3, 16) for suit in SUITS),
    RANK_NAMES[SMALL_JOKER],
    RANK_NAMES[BIG_JOKER],
)

_CANONICAL_SET: Final = frozenset(CANONICAL_CARDS)


class CardNotationError(ValueError):
    """A card token that no accepted notation can read."""

    def __init__(self, token: object, reason: str = "not a card") -> None:
        super().__init__(f"{token!r}: {reason}")
        self.token = token


_RANK_WORDS: Final[dict[str, int]] = {
    **{str(n): n for n in range(3, 11)},
    "t": 10,
    "j": 11,
    "q": 12,
    "k": 13,
    "a": 14,
    "2": 15,
}

_JOKER_WORDS: Final[dict[str, int]] = {
    "小王": SMALL_JOKER,
    "大王": BIG_JOKER,
    "sj": SMALL_JOKER,
    "bj": BIG_JOKER,
    "small joker": SMALL_JOKER,
    "big joker": BIG_JOKER,
    "black joker": SMALL_JOKER,
    "red joker": BIG_JOKER,
    "smalljoker": SMALL_JOKER,
    "bigjoker": BIG_JOKER,
    "blackjoker": SMALL_JOKER,
    "redjoker": BIG_JOKER,
    "joker small": SMALL_JOKER,  # joker_small, joker-small (underscores fold to spaces)
    "joker big": BIG_JOKER,
    "小鬼": SMALL_JOKER,
    "大鬼": BIG_JOKER,
}

_SUIT_LETTERS: Final[dict[str, str]] = {
    "s": "♠",
    "h": "♥",
    "d": "♦",
    "c": "♣",
    "♤": "♠",
    "♡": "♥",
    "♢": "♦",
    "♧": "♣",
    **{symbol: symbol for symbol in SUITS},
}

_RANK_PATTERN: Final = r"(10|[2-9tjqka])"
_SUIT_PATTERN: Final = r"([shdc♠♥♦♣♤♡♢♧])"
_SUIT_FIRST: Final = re.compile(rf"{_SUIT_PATTERN}\s*{_RANK_PATTERN}")
_RANK_FIRST: Final = re.compile(rf"{_RANK_PATTERN}\s*{_SUIT_PATTERN}")
_RANK_ONLY: Final = re.compile(_RANK_PATTERN)


def is_canonical(text: object) -> bool:
    """Whether ``text`` is one of the 54 canonical card strings."""
    return isinstance(text, str) and text in _CANONICAL_SET


def rank_name(rank: int) -> str:
    """The display name of a rank: ``"10"``, ``"J"``, ``"2"``, ``"小王"``."""
    try:
        return RANK_NAMES[rank]
    except KeyError:
        raise ValueError(f"no rank {rank!r}; ranks are 3..17") from None


def parse_token(token: object) -> tuple[int, str | None]:
    """Read one card token into ``(rank, suit)``; the suit is None when the token has none.

    Accepts the canonical form and the lenient forms of docs/rules.md: rank only (``"3"``,
    ``"10"``, ``"T"``, ``"a"``), suit after rank (``"3♠"``), letter suits (``"S3"``,
    ``"3s"``) and joker names (``"SJ"``, ``"big joker"``, ``"red joker"``, ...).
    Jokers have no suit. Raises :class:`CardNotationError` naming the token otherwise.
    """
    if not isinstance(token, str):
        raise CardNotationError(token, "a card must be a string")
    text = token.strip()
    folded = " ".join(text.lower().replace("-", " ").replace("_", " ").split())
    joker = _JOKER_WORDS.get(folded) or _JOKER_WORDS.get(folded.replace(" ", ""))
    if joker is not None:
        return joker, None
    if not folded:
        raise CardNotationError(token, "empty card")
    for pattern, rank_group, suit_group in (
        (_SUIT_FIRST, 2, 1),
        (_RANK_FIRST, 1, 2),
    ):
        match = pattern.fullmatch(folded)
        if match:
            return _RANK_WORDS[match.group(rank_group)], _SUIT_LETTERS[match.group(suit_group)]
    match = _RANK_ONLY.fullmatch(folded)
    if match:
        return _RANK_WORDS[match.group(1)], None
    raise CardNotationError(token)
