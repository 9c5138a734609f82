"""What a round records: the deal, each action in order, and the final result.

Plain frozen data, hidden information included; the table decides what becomes public.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from arena.errors import SetupError
from arena.games.ddz.engine.cards import DECK, Card, CardLike, card
from arena.games.ddz.engine.combos import Combo
from arena.games.ddz.messages import Role

__all__ = [
    "WINNER_SIDES",
    "Action",
    "BidAction",
    "Dealt",
    "DealtCards",
    "DoubleAction",
    "EffectApplied",
    "LandlordChosen",
    "PlayAction",
    "Settlement",
    "TrickWon",
]


@dataclass(frozen=True, slots=True)
class DealtCards:
    """Three 17-card hands and the 3 bottom cards (底牌), each sorted."""

    hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    bottom: tuple[Card, ...]

    @classmethod
    def shuffled(cls, rng: random.Random) -> DealtCards:
        """A fresh deal from a shuffled deck; the same rng state gives the same deal."""
        deck = list(DECK)
        rng.shuffle(deck)
        return cls.from_order(deck)

    @classmethod
    def from_order(cls, deck: Sequence[CardLike]) -> DealtCards:
        """Deal a given order of the 54 cards: 17 each in blocks, the last 3 to the bottom."""
        cards = [card(c) for c in deck]
        if len(cards) != 54 or len(set(cards)) != 54:
            raise SetupError("a deal needs each of the 54 cards exactly once")
        hands = tuple(tuple(sorted(cards[i * 17 : (i + 1) * 17])) for i in range(3))
        return cls((hands[0], hands[1], hands[2]), tuple(sorted(cards[51:])))

    def to_dict(self) -> dict[str, Any]:
        """Canonical strings, for replays and tournament storage."""
        return {
            "hands": [[c.text for c in hand] for hand in self.hands],
            "bottom": [c.text for c in self.bottom],
        }


# --- history records: what happened, in order (hidden information included) ----------


@dataclass(frozen=True, slots=True)
class Dealt:
    """A (re)deal: which deal of the round this is and who bids first."""

    deal_number: int
    first_bidder: int
    deal: DealtCards


@dataclass(frozen=True, slots=True)
class BidAction:
    """A seat's bid: 0 pass, 1..3 call score (in grab mode 1 = call or grab)."""

    seat: int
    value: int
    mode: str


@dataclass(frozen=True, slots=True)
class LandlordChosen:
    """The landlord is known; the bottom cards are shown to everyone and join their hand."""

    seat: int
    call_score: int
    bottom: tuple[Card, ...]
    forced: bool = False
    """True when nobody bid through the redeal cap and the first bidder was made landlord."""


@dataclass(frozen=True, slots=True)
class DoubleAction:
    """A farmer's double (加倍) or the landlord's redouble (再加倍)."""

    seat: int
    double: bool
    redouble: bool


@dataclass(frozen=True, slots=True)
class PlayAction:
    """A play or a pass (``combo`` is :data:`~arena.games.ddz.engine.combos.PASS`)."""

    seat: int
    combo: Combo


@dataclass(frozen=True, slots=True)
class TrickWon:
    """Two passes closed the trick; ``seat`` leads the next one."""

    seat: int


@dataclass(frozen=True, slots=True)
class EffectApplied:
    """A gift effect changed the cards or the stakes."""

    kind: Literal["swap", "transfer", "double"]
    seats: tuple[int, ...]
    cards: tuple[Card, ...] = ()


WINNER_SIDES: Mapping[str, Role] = MappingProxyType(
    {"landlord": "landlord", "farmer": "farmer", "farmers": "farmer"}
)
"""A recorded ``winner_side`` as the wire spells it (ROUND_RESULT's ``Role``).

:meth:`Settlement.to_dict` writes the wire's spelling; results recorded before it did say
``"farmers"``, so a reader of stored results looks the value up here.
"""

Action = Dealt | BidAction | LandlordChosen | DoubleAction | PlayAction | TrickWon | EffectApplied


@dataclass(frozen=True, slots=True)
class Settlement:
    """Everything a tournament needs to store and rate a finished round."""

    landlord: int
    call_score: int
    landlord_won: bool
    winner_seat: int
    spring: Literal["spring", "reverse_spring"] | None
    bombs: int
    rockets: int
    grabs: int
    gift_doubles: int
    doubled: dict[int, bool]
    redoubled: bool
    common_exponent: int
    exponents: dict[int, int]
    scores: tuple[int, int, int]
    deals: int
    forced_landlord: bool
    first_bidder: int
    plays_by_seat: tuple[int, int, int]
    effects_applied: int
    deal: DealtCards
    final_hands: tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]
    seed: int | None = None
    winners: tuple[int, ...] = field(default=())
    bombs_by_seat: tuple[int, int, int] = (0, 0, 0)
    """Bombs and rockets each seat played (they sum to ``bombs + rockets``). A default, as
    results stored before it was recorded lack it: read back, they count none by seat."""

    @property
    def bottom(self) -> tuple[Card, ...]:
        """The bottom cards the landlord took (public, unlike the rest of the deal)."""
        return self.deal.bottom

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: canonical card strings, string keys."""
        return {
            "seed": self.seed,
            "landlord": self.landlord,
            "call_score": self.call_score,
            "landlord_won": self.landlord_won,
            "winner_side": "landlord" if self.landlord_won else "farmer",
            "winner_seat": self.winner_seat,
            "winners": list(self.winners),
            "spring": self.spring,
            "bombs": self.bombs,
            "rockets": self.rockets,
            "bombs_by_seat": list(self.bombs_by_seat),
            "grabs": self.grabs,
            "gift_doubles": self.gift_doubles,
            "doubled": {str(k): v for k, v in self.doubled.items()},
            "redoubled": self.redoubled,
            "common_exponent": self.common_exponent,
            "exponents": {str(k): v for k, v in self.exponents.items()},
            "scores": list(self.scores),
            "deals": self.deals,
            "forced_landlord": self.forced_landlord,
            "first_bidder": self.first_bidder,
            "plays_by_seat": list(self.plays_by_seat),
            "effects_applied": self.effects_applied,
            "deal": self.deal.to_dict(),
            "bottom": [c.text for c in self.bottom],
            "final_hands": [[c.text for c in hand] for hand in self.final_hands],
        }
