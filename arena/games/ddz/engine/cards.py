"""The 54 cards as interned objects, and turning card tokens into cards of a hand.

Each card exists once (``DECK``), so identity is equality, hashing is cheap and a card can
be used as a dict key or in a set without cost. Suits never matter for play; they only
make the 54 cards distinct. Card ids run 0..53: by rank, then ♠ ♥ ♦ ♣, then the jokers,
so sorting by id sorts by rank.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Final, TypeAlias

from arena.errors import CardResolutionError, InvalidCardError
from protocol.cards import (
    BIG_JOKER,
    CANONICAL_CARDS,
    SMALL_JOKER,
    SUITS,
    CardNotationError,
    parse_token,
)

__all__ = [
    "CARDS_BY_TEXT",
    "DECK",
    "Card",
    "CardLike",
    "card",
    "cards_of",
    "resolve_cards",
    "sorted_cards",
]


class Card:
    """One of the 54 cards. Never construct one: use :data:`DECK` or :func:`card`."""

    __slots__ = ("id", "rank", "suit", "text")

    id: int
    rank: int
    suit: str | None
    text: str

    def __init__(self, card_id: int) -> None:
        if _DECK_READY:
            raise TypeError("cards are interned: use arena.games.ddz.engine.card(text) or DECK")
        self.id = card_id
        self.text = CANONICAL_CARDS[card_id]
        if card_id < 52:
            self.rank = card_id // 4 + 3
            self.suit = SUITS[card_id % 4]
        else:
            self.rank = SMALL_JOKER if card_id == 52 else BIG_JOKER
            self.suit = None

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__

    def __lt__(self, other: Card) -> bool:
        return self.id < other.id

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (_by_id, (self.id,))


_DECK_READY = False
#: All 54 cards in id order.
DECK: Final[tuple[Card, ...]] = tuple(Card(i) for i in range(54))
_DECK_READY = True

_BY_TEXT: Final[dict[str, Card]] = {c.text: c for c in DECK}
#: Canonical string to card, for hot paths that know their input is canonical.
CARDS_BY_TEXT: Final[Mapping[str, Card]] = MappingProxyType(_BY_TEXT)

CardLike: TypeAlias = Card | str


def _by_id(card_id: int) -> Card:
    return DECK[card_id]


def card(text: CardLike) -> Card:
    """The card named by a canonical string (``"♠3"``, ``"大王"``); a Card passes through."""
    if isinstance(text, Card):
        return text
    found = _BY_TEXT.get(text) if isinstance(text, str) else None
    if found is None:
        raise InvalidCardError(text, "not a canonical card (expected e.g. '♠3', '♥10', '小王')")
    return found


def cards_of(items: Iterable[CardLike]) -> tuple[Card, ...]:
    """Canonical strings or cards to cards, rejecting duplicates."""
    result = tuple(card(item) for item in items)
    if len(set(result)) != len(result):
        seen: set[Card] = set()
        for c in result:
            if c in seen:
                raise InvalidCardError(c.text, "the same card appears twice")
            seen.add(c)
    return result


def sorted_cards(items: Iterable[Card]) -> list[Card]:
    """Cards in display order: by rank, then suit."""
    return sorted(items, key=_card_id)


def _card_id(c: Card) -> int:
    return c.id


def resolve_cards(tokens: Sequence[object], hand: Iterable[Card]) -> tuple[Card, ...]:
    """Turn the tokens of an agent's reply into distinct cards of ``hand``.

    Canonical and suited tokens must name a card in the hand. A rank-only token takes a
    card of that rank not already taken, preferring cards no suited token asks for, so
    ``["3", "♠3"]`` works whatever the order. A token that matches nothing raises
    :class:`~arena.errors.CardResolutionError` naming the token.
    """
    available = set(hand)
    exact_cards = [_BY_TEXT.get(t) if isinstance(t, str) else t for t in tokens]
    if all(isinstance(c, Card) and c in available for c in exact_cards) and len(
        set(exact_cards)
    ) == len(exact_cards):
        return tuple(exact_cards)  # type: ignore[arg-type]  # all canonical, all held
    parsed: list[tuple[object, int, str | None]] = []
    for token in tokens:
        if isinstance(token, Card):
            parsed.append((token, token.rank, token.suit))
            continue
        exact = _BY_TEXT.get(token) if isinstance(token, str) else None
        if exact is not None:  # the canonical form: no parsing needed
            parsed.append((token, exact.rank, exact.suit))
            continue
        try:
            rank, suit = parse_token(token)
        except CardNotationError as exc:
            raise CardResolutionError(token, f"unreadable ({exc})") from exc
        parsed.append((token, rank, suit))

    chosen: list[Card | None] = [None] * len(parsed)
    taken: set[Card] = set()
    # Suited tokens and jokers first: they name exactly one card.
    for index, (token, rank, suit) in enumerate(parsed):
        if suit is None and rank < SMALL_JOKER:
            continue
        exact = DECK[52 if rank == SMALL_JOKER else 53] if rank >= SMALL_JOKER else None
        if exact is None:
            exact = DECK[(rank - 3) * 4 + SUITS.index(suit)]
        if exact not in available:
            raise CardResolutionError(token, f"{exact.text} is not in the hand")
        if exact in taken:
            raise CardResolutionError(token, f"{exact.text} is named twice")
        taken.add(exact)
        chosen[index] = exact
    # Rank-only tokens: any free card of the rank.
    for index, (token, rank, _suit) in enumerate(parsed):
        if chosen[index] is not None:
            continue
        base = (rank - 3) * 4
        for offset in range(4):
            candidate = DECK[base + offset]
            if candidate in available and candidate not in taken:
                taken.add(candidate)
                chosen[index] = candidate
                break
        else:
            raise CardResolutionError(token, "no card of that rank left in the hand")
    return tuple(c for c in chosen if c is not None)
