"""What a Dou Dizhu request implies, worked out for a language model that reads it.

A model that must count cards from a long ``play_history`` counts badly; these facts
(cards played, ranks still unseen, cards left per player, the last play and who made it)
are derived from the request message alone, so a prompt can state them plainly.
Pure: no I/O, no table state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from arena.games.ddz.engine import CARDS_BY_TEXT, DECK, Card, sorted_cards
from arena.games.ddz.messages import BidRequest, DoubleRequest, PlayRequest, Role
from protocol import RANK_NAMES

__all__ = ["Facts", "LastPlayFacts", "facts_of", "rank_counts_text"]

AnyAskRequest = BidRequest | DoubleRequest | PlayRequest

#: How many cards of each rank a deck holds (3..2: four; each joker: one).
_DECK_COUNTS: dict[int, int] = dict(Counter(c.rank for c in DECK))


@dataclass(frozen=True, slots=True)
class LastPlayFacts:
    """The play to beat: who made it, its type and cards, and whose side they are on."""

    player: str
    hand_type: str
    cards: tuple[str, ...]
    by_teammate: bool


@dataclass(frozen=True, slots=True)
class Facts:
    """Derived facts about one request, from the requesting seat's point of view.

    ``unseen`` counts, per rank (3..17, in rank order, zeros included), the cards this
    seat has not seen: the deck minus its own hand, the cards played and the bottom cards
    once shown (they were shown to everyone, so a farmer knows the landlord holds those
    not yet played). The unseen cards are exactly the other two hands minus those known
    bottom cards.
    """

    kind: str
    me: str
    role: Role | None
    landlord: str | None
    teammates: tuple[str, ...]
    seat_order: tuple[str, ...] | None
    hand: tuple[str, ...]
    played: tuple[str, ...]
    bottom_cards: tuple[str, ...]
    landlord_holds: tuple[str, ...]
    unseen: dict[int, int]
    remaining: dict[str, int]
    last_play: LastPlayFacts | None
    is_free_play: bool | None

    @property
    def unseen_total(self) -> int:
        """How many cards this seat has not seen."""
        return sum(self.unseen.values())


def _cards(texts: Iterable[str]) -> list[Card]:
    return [CARDS_BY_TEXT[t] for t in texts]


def _texts(cards: Iterable[Card]) -> tuple[str, ...]:
    return tuple(c.text for c in sorted_cards(cards))


def facts_of(request: AnyAskRequest) -> Facts:
    """The facts a BID_REQUEST, DOUBLE_REQUEST or PLAY_REQUEST implies for its seat."""
    hand = set(_cards(request.hand or []))
    played: set[Card] = set()
    bottom: set[Card] = set()
    landlord: str | None = None
    role: Role | None = None
    teammates: tuple[str, ...] = ()
    seat_order: tuple[str, ...] | None = None
    remaining: dict[str, int] = {}
    last: LastPlayFacts | None = None
    is_free_play: bool | None = None
    if isinstance(request, PlayRequest):
        for record in request.play_history:
            played.update(_cards(record.cards))
        bottom = set(_cards(request.bottom_cards or []))
        landlord = request.landlord
        role = request.role
        teammates = tuple(request.teammates)
        seat_order = tuple(request.seat_order) if request.seat_order else None
        remaining = dict(request.remaining_cards)
        is_free_play = request.is_free_play
        if request.last_play is not None and not request.is_free_play:
            lp = request.last_play
            last = LastPlayFacts(
                player=lp.player,
                hand_type=lp.type.value,
                cards=_texts(_cards(lp.cards)),
                by_teammate=lp.player in teammates,
            )
    elif isinstance(request, DoubleRequest):
        bottom = set(_cards(request.bottom_cards))
        landlord = request.landlord
        role = "landlord" if request.landlord == request.player_id else "farmer"
    if landlord is not None and landlord == request.player_id:
        role = "landlord"
    seen = hand | played | bottom
    unseen_counts = Counter(c.rank for c in DECK if c not in seen)
    unseen = {rank: unseen_counts.get(rank, 0) for rank in sorted(_DECK_COUNTS)}
    holds: tuple[str, ...] = ()
    if role == "farmer" and landlord is not None:
        holds = _texts(bottom - played)
    return Facts(
        kind=request.type,
        me=request.player_id,
        role=role,
        landlord=landlord,
        teammates=teammates,
        seat_order=seat_order,
        hand=_texts(hand),
        played=_texts(played),
        bottom_cards=tuple(request.bottom_cards or ())
        if not isinstance(request, BidRequest)
        else (),
        landlord_holds=holds,
        unseen=unseen,
        remaining=remaining,
        last_play=last,
        is_free_play=is_free_play,
    )


def rank_counts_text(counts: dict[int, int]) -> str:
    """``{3: 2, 14: 1}`` as ``3x2 Ax1`` (ranks in order, zero counts left out)."""
    return " ".join(f"{RANK_NAMES[rank]}x{n}" for rank, n in sorted(counts.items()) if n)
