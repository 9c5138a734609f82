"""Tractor's own gift operations: what its rules make of a viewer's 换牌, and why it
takes no 加牌, 翻倍 or 角色互换.

The gifts layer routes, queues and accounts for every game's gifts; what each effect
means at a Tractor table (docs/gifts.md, "Tractor"):

- CHEER, EMOTE, EFFECT, PEEK, RESHUFFLE: as at every table (the gifts layer applies them;
  a PEEK's cards, as ids, go to the delayed spectator feed only);
- SWAP (:class:`TractorGifts`): one random card of the target for one random card of a
  random *opponent* (a seat of the other team), when the target is about to lead a
  trick: never while trump is declared or the banker buries, never mid-trick, never
  between partners, never the kitty (the engine refuses each:
  :meth:`~arena.games.tractor.engine.Round.swap_refusal`);
- ADD, DOUBLE, ROLE_SWAP are not offered (the descriptor's ``gift_effects`` leaves them
  out): a gift for one is rejected ``not_offered: tractor: <why>``, the why being
  :data:`DECLINED`'s.

:class:`TractorSafePoint` is the round as a safe point sees it (the table's
:class:`~arena.table.safe_point.SafePointHandle` reads it); the swaps applied through it
are in :attr:`TractorSafePoint.applied`, for the turns to announce and record.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from arena.errors import IllegalActionError
from arena.games.tractor.engine import Phase, Round, SwapAction, card_text, team_of
from arena.table.match import derive_seed
from arena.table.safe_point import (
    PHASE_OVER,
    PHASE_PLAY,
    BetweenRoundsHandle,
    SafePointHandle,
)

__all__ = ["DECLINED", "GIFTS", "HeldCard", "TractorGifts", "TractorSafePoint"]

_PHASES: Final[dict[Phase, str]] = {
    Phase.DECLARING: "declaring",
    Phase.BURYING: "burying",
    Phase.PLAYING: PHASE_PLAY,
    Phase.FINISHED: PHASE_OVER,
}
"""The engine's phases as a gift's window reads them (the gift queue's names): before
``play`` only the any-time effects may apply."""

SWAP: Final = "SWAP"

DECLINED: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ADD": (
            "hands stay equal in Tractor: every seat plays as many cards to each trick, "
            "so a seat with a card more or less could not follow to the end"
        ),
        "DOUBLE": (
            "Tractor has no stakes to double: a round is won in levels, counted from "
            "the defenders' points"
        ),
        "ROLE_SWAP": (
            "Tractor has no landlord to choose: the banker comes from declaring trump "
            "or from the last round, and the teams are fixed by seat"
        ),
    }
)
"""The effects Tractor does not offer, each with the reason a viewer is told."""


@dataclass(frozen=True, slots=True)
class HeldCard:
    """A card of a hand as a gift picks it: the engine's int and its id (a PEEK shows
    the ids)."""

    card: int
    text: str


def _card(given: HeldCard | int) -> int:
    return given.card if isinstance(given, HeldCard) else given


class TractorSafePoint:
    """A Tractor round at one safe point: what a gift may read and change of it, and
    nothing else (never the round itself); closed with the safe point. The swaps made
    through it stay in :attr:`applied` after it is closed."""

    __slots__ = ("__round", "applied")

    def __init__(self, rnd: Round) -> None:
        self.__round: Round | None = rnd
        self.applied: list[SwapAction] = []
        """The swaps applied at this safe point, in order (hidden: their cards)."""

    @property
    def phase(self) -> str:
        """``declaring``, ``burying``, ``play`` or ``over``."""
        return _PHASES[self._round().phase]

    @property
    def to_act(self) -> int | None:
        """The seat whose turn comes next."""
        return self._round().to_act

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act leads a new trick (no card of it played yet)."""
        rnd = self._round()
        return rnd.phase is Phase.PLAYING and rnd.lead is None

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand."""
        return tuple(len(hand) for hand in self._round().hands)

    @property
    def seed(self) -> int:
        """The round's seed (derived from the match's): a gift's random draws derive
        from it, so the same gift in the same match moves the same cards."""
        return self._round().seed

    def hand(self, seat: int) -> tuple[HeldCard, ...]:
        """One seat's cards (hidden: never publish)."""
        rnd = self._round()
        if not 0 <= seat < rnd.players:
            raise IllegalActionError(f"no seat {seat}")
        return tuple(HeldCard(c, card_text(c)) for c in rnd.hands[seat])

    def swap_cards(
        self, seat_a: int, card_a: HeldCard | int, seat_b: int, card_b: HeldCard | int
    ) -> None:
        """换牌, as the engine applies and records it."""
        action = self._round().swap_cards(seat_a, _card(card_a), seat_b, _card(card_b))
        self.applied.append(action)

    def transfer_card(self, source: int, target: int, moved: HeldCard | int) -> None:
        """加牌 is not a Tractor effect: refused, with why."""
        raise IllegalActionError(DECLINED["ADD"])

    def close(self) -> None:
        """The safe point is over."""
        self.__round = None

    def _round(self) -> Round:
        rnd = self.__round
        if rnd is None:
            raise IllegalActionError("the safe point is over: effects apply only between turns")
        return rnd


def _tractor(handle: SafePointHandle) -> TractorSafePoint:
    part = handle.game_part
    if not isinstance(part, TractorSafePoint):
        raise IllegalActionError("not a Tractor round")
    return part


class TractorGifts:
    """Tractor's gift operations (see the module)."""

    effects: Final = frozenset({SWAP})
    declined: Final = DECLINED

    def refusals(self, handle: SafePointHandle) -> Mapping[str, str]:
        """Nothing is refused for the moment alone: a SWAP waits for its window (the
        target about to lead), and at a trick's start every hand holds as many cards."""
        return {}

    def apply(
        self, effect: str, handle: SafePointHandle, *, target: int | None, gift_id: str
    ) -> None:
        """SWAP at a safe point (see :func:`swap_with_opponent`)."""
        if effect != SWAP:
            raise IllegalActionError(DECLINED.get(effect, f"{effect} means nothing in Tractor"))
        if target is None:
            raise IllegalActionError("the gift has no target seat")
        swap_with_opponent(_tractor(handle), target, gift_id)

    def apply_between_rounds(
        self, effect: str, handle: BetweenRoundsHandle, *, target: int | None, gift_id: str
    ) -> None:
        """Tractor has no between-rounds effect of its own (RESHUFFLE is every game's)."""
        raise IllegalActionError(f"{effect} does not apply between rounds")


def swap_with_opponent(part: TractorSafePoint, target: int, gift_id: str) -> SwapAction:
    """换牌: one card of ``target`` for one of an opponent, all three drawn from the
    round's seed and the gift's id. The gift queue opens the window (the target about
    to lead) and refuses it near a hand's end (``last_cards``); every seat then holds as
    many cards as the target, so any opponent may be drawn."""
    sizes = part.hand_sizes
    if not 0 <= target < len(sizes):
        raise IllegalActionError(f"no seat {target}")
    opponents = [s for s in range(len(sizes)) if team_of(s) != team_of(target) and sizes[s]]
    if not sizes[target] or not opponents:
        raise IllegalActionError("no cards left to swap")
    rng = random.Random(derive_seed(part.seed, "effect", gift_id))
    other = rng.choice(opponents)
    mine, theirs = rng.choice(part.hand(target)), rng.choice(part.hand(other))
    part.swap_cards(target, mine, other, theirs)
    return part.applied[-1]


GIFTS: Final = TractorGifts()
"""The one instance the game's descriptor hands out."""
