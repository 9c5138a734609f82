"""The 108 cards of two decks as small ints, their ids and faces, and reading a reply.

A card is an int 0..107: ``deck * 54 + face``. A face is what two copies share: 0..51 are
suit × 13 + (rank − 2) for ♠ ♥ ♦ ♣ and ranks 2..14 (A), 52 the small joker, 53 the big
one. Ints keep hands cheap to copy, hash and index into the per-trump tables of
:mod:`arena.games.tractor.engine.trump`.

On the wire a card is its id (``D1_H_10``, ``D2_S_A``, ``D1_SJ``, ``D2_BJ``). An agent may
also name a face alone (``♥10``, ``H10``, ``10h``, ``大王``): copies are interchangeable,
so :func:`resolve_cards` takes any copy the player holds.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Final

from arena.errors import CardResolutionError, InvalidCardError
from protocol.cards import CardNotationError, parse_token

__all__ = [
    "CARD_COUNT",
    "DECK",
    "FACE",
    "POINTS",
    "RANK",
    "RANK_ACE",
    "RANK_BIG_JOKER",
    "RANK_SMALL_JOKER",
    "SUIT",
    "SUIT_LETTERS",
    "SUIT_SYMBOLS",
    "card_id",
    "card_ids",
    "card_text",
    "face_text",
    "faces_text",
    "points_of",
    "rank_text",
    "resolve_cards",
    "shuffled_deck",
]

CARD_COUNT: Final = 108
RANK_ACE: Final = 14
RANK_SMALL_JOKER: Final = 15
"""The small joker's rank (above A; jokers have no suit)."""
RANK_BIG_JOKER: Final = 16
SUIT_LETTERS: Final = ("S", "H", "D", "C")
SUIT_SYMBOLS: Final = ("♠", "♥", "♦", "♣")
_RANK_TEXT: Final = {**{r: str(r) for r in range(2, 11)}, 11: "J", 12: "Q", 13: "K", 14: "A"}

DECK: Final[tuple[int, ...]] = tuple(range(CARD_COUNT))
"""Every card, in id order (deck 1 then deck 2; within a deck ♠ ♥ ♦ ♣ 2..A, then jokers)."""
FACE: Final[tuple[int, ...]] = tuple(c % 54 for c in DECK)
"""A card's face (0..53): the two copies of a card share it."""
RANK: Final[tuple[int, ...]] = tuple(
    RANK_SMALL_JOKER if f == 52 else RANK_BIG_JOKER if f == 53 else f % 13 + 2 for f in FACE
)
"""A card's rank: 2..14 (A), 15 the small joker, 16 the big one."""
SUIT: Final[tuple[int, ...]] = tuple(-1 if f >= 52 else f // 13 for f in FACE)
"""A card's suit (0..3 for ♠ ♥ ♦ ♣), −1 for a joker."""
POINTS: Final[tuple[int, ...]] = tuple(5 if r == 5 else 10 if r in (10, 13) else 0 for r in RANK)
"""A card's points: 5 for a 5, 10 for a 10 or a K; 200 in all."""


def rank_text(rank: int) -> str:
    """``"10"``, ``"K"``, ``"小王"``."""
    return (
        "小王"
        if rank == RANK_SMALL_JOKER
        else "大王"
        if rank == RANK_BIG_JOKER
        else _RANK_TEXT[rank]
    )


def _id_text(card: int) -> str:
    deck, face = divmod(card, 54)
    if face >= 52:
        return f"D{deck + 1}_{'SJ' if face == 52 else 'BJ'}"
    return f"D{deck + 1}_{SUIT_LETTERS[face // 13]}_{_RANK_TEXT[face % 13 + 2]}"


_IDS: Final[tuple[str, ...]] = tuple(_id_text(c) for c in DECK)
_BY_ID: Final[dict[str, int]] = {text: c for c, text in enumerate(_IDS)}
_FACES: Final[tuple[str, ...]] = tuple(
    rank_text(RANK[c]) if SUIT[c] < 0 else SUIT_SYMBOLS[SUIT[c]] + _RANK_TEXT[RANK[c]] for c in DECK
)


def card_text(card: int) -> str:
    """A card's id on the wire: ``D1_H_10``, ``D2_BJ``."""
    return _IDS[card]


def face_text(card: int) -> str:
    """A card's face for people and prompts: ``♥10``, ``大王``."""
    return _FACES[card]


def faces_text(cards: Iterable[int]) -> str:
    """Faces joined by spaces, as written in refusals and the docs: ``♠Q ♠Q ♠K ♠K``."""
    return " ".join(_FACES[c] for c in cards)


def card_id(text: str) -> int:
    """The card of an id (``D1_H_10``); an InvalidCardError otherwise."""
    found = _BY_ID.get(text)
    if found is None:
        raise InvalidCardError(text, "not a card id (expected e.g. 'D1_H_10', 'D2_SJ')")
    return found


def card_ids(texts: Iterable[str]) -> tuple[int, ...]:
    """Ids to cards, rejecting a card named twice."""
    cards = tuple(card_id(t) for t in texts)
    if len(set(cards)) != len(cards):
        raise InvalidCardError(texts, "the same card appears twice")
    return cards


def points_of(cards: Iterable[int]) -> int:
    """The points in some cards."""
    return sum(POINTS[c] for c in cards)


def shuffled_deck(rng: random.Random) -> list[int]:
    """The 108 cards in a random order drawn from ``rng``."""
    deck = list(DECK)
    rng.shuffle(deck)
    return deck


def _face_of_token(token: object) -> int:
    """The face a token names (``♥10``, ``H10``, ``10h``, ``大王``, ``SJ``)."""
    try:
        rank, suit = parse_token(token)
    except CardNotationError as exc:
        raise CardResolutionError(token, f"unreadable ({exc})") from exc
    if rank >= 16:  # protocol ranks: 16 small joker, 17 big joker
        return 52 if rank == 16 else 53
    if suit is None:
        raise CardResolutionError(token, "name the suit too (e.g. '♥10' or 'H10')")
    tractor_rank = 2 if rank == 15 else rank  # protocol ranks put 2 above A
    return SUIT_SYMBOLS.index(suit) * 13 + tractor_rank - 2


def resolve_cards(tokens: Sequence[object], hand: Iterable[int]) -> tuple[int, ...]:
    """The distinct cards of ``hand`` an agent's tokens name.

    An id names that card; a face names any copy of it the hand holds that no other
    token took (ids are taken first, so ``["♠Q", "D1_S_Q"]`` works in any order). A token
    that matches nothing raises :class:`~arena.errors.CardResolutionError` naming it.
    """
    held = set(hand)
    chosen: list[int | None] = [None] * len(tokens)
    taken: set[int] = set()
    for index, token in enumerate(tokens):
        if isinstance(token, str) and token in _BY_ID:
            card = _BY_ID[token]
            if card not in held:
                raise CardResolutionError(token, "that card is not in the hand")
            if card in taken:
                raise CardResolutionError(token, "that card is named twice")
            taken.add(card)
            chosen[index] = card
    for index, token in enumerate(tokens):
        if chosen[index] is not None:
            continue
        face = _face_of_token(token)
        for card in (face, face + 54):
            if card in held and card not in taken:
                taken.add(card)
                chosen[index] = card
                break
        else:
            raise CardResolutionError(token, f"no {_FACES[face]} left in the hand")
    return tuple(c for c in chosen if c is not None)
