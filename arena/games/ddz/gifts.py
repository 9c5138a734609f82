"""Dou Dizhu's own gift operations: what its rules make of a viewer's 翻倍 and 角色互换.

The gifts layer routes, queues and accounts for every game's gifts; the effects only Dou
Dizhu's rules give a meaning to are applied here (:class:`DdzGifts`, the game's
:attr:`~arena.games.base.Game.gifts`):

- DOUBLE: +1 to the round's exponent, refused ``double_cap`` once the round has the
  rules' ``max_gift_doubles`` (the engine keeps the cap too);
- ROLE_SWAP, between rounds: the target is the next round's landlord without bidding,
  at the last round's call score (1 if none).

:class:`DdzSafePoint` is the round as a safe point sees it (the table's
:class:`~arena.table.safe_point.SafePointHandle` reads it): the neutral facts and card
hooks, and Dou Dizhu's own part (the landlord, the viewer doubles).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

from arena.errors import IllegalActionError
from arena.games.ddz.engine import Card, CardLike, Phase, Round
from arena.table.safe_point import (
    PHASE_OVER,
    PHASE_PLAY,
    BetweenRoundsHandle,
    SafePointHandle,
)

__all__ = ["GIFTS", "DdzGifts", "DdzSafePoint"]

_PHASES: Final[dict[Phase, str]] = {
    Phase.BIDDING: "bidding",
    Phase.DOUBLING: "doubling",
    Phase.PLAYING: PHASE_PLAY,
    Phase.FINISHED: PHASE_OVER,
}
"""The engine's phases as a gift's window reads them (the gift queue's names)."""

DOUBLE: Final = "DOUBLE"
ROLE_SWAP: Final = "ROLE_SWAP"


class DdzSafePoint:
    """A Dou Dizhu round at one safe point: what a gift may read and change of it, and
    nothing else (never the round itself); closed with the safe point."""

    __slots__ = ("__round",)

    def __init__(self, rnd: Round) -> None:
        self.__round: Round | None = rnd

    @property
    def phase(self) -> str:
        """``bidding``, ``doubling``, ``play`` or ``over``."""
        return _PHASES[self._round().phase]

    @property
    def to_act(self) -> int | None:
        """The seat whose turn comes next."""
        return self._round().to_act

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act leads a new trick."""
        return self._round().is_leading

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand."""
        return tuple(len(hand) for hand in self._round().hands)

    def hand(self, seat: int) -> tuple[Card, ...]:
        """One seat's cards (hidden: never publish)."""
        return self._round().hand(seat)

    def swap_cards(self, seat_a: int, card_a: CardLike, seat_b: int, card_b: CardLike) -> None:
        """换牌, as the engine applies and records it."""
        self._round().swap_cards(seat_a, card_a, seat_b, card_b)

    def transfer_card(self, source: int, target: int, moved: CardLike) -> None:
        """加牌, as the engine applies and records it."""
        self._round().transfer_card(source, target, moved)

    # --- Dou Dizhu's own ------------------------------------------------------------------

    @property
    def landlord(self) -> int | None:
        """The landlord's seat, once bidding is over."""
        return self._round().landlord

    @property
    def gift_doubles(self) -> int:
        """Viewer doubles this round so far."""
        return self._round().gift_doubles

    @property
    def max_gift_doubles(self) -> int:
        """The rules' cap on viewer doubles in one round."""
        return self._round().rules.max_gift_doubles

    def add_gift_double(self) -> int:
        """A viewer's 翻倍; returns the round's viewer doubles so far."""
        return self._round().add_gift_double()

    def close(self) -> None:
        """The safe point is over."""
        self.__round = None

    def _round(self) -> Round:
        rnd = self.__round
        if rnd is None:
            raise IllegalActionError("the safe point is over: effects apply only between turns")
        return rnd


def _ddz(handle: SafePointHandle) -> DdzSafePoint:
    part = handle.game_part
    if not isinstance(part, DdzSafePoint):
        raise IllegalActionError("not a Dou Dizhu round")
    return part


class DdzGifts:
    """Dou Dizhu's gift operations (see the module)."""

    effects: Final = frozenset({DOUBLE, ROLE_SWAP})
    declined: Final[Mapping[str, str]] = MappingProxyType({})
    """Dou Dizhu offers every effect."""

    def refusals(self, handle: SafePointHandle) -> Mapping[str, str]:
        """DOUBLE is refused ``double_cap`` once the round has its cap of viewer doubles."""
        part = _ddz(handle)
        return {DOUBLE: "double_cap"} if part.gift_doubles >= part.max_gift_doubles else {}

    def apply(
        self, effect: str, handle: SafePointHandle, *, target: int | None, gift_id: str
    ) -> None:
        """DOUBLE at a safe point (ROLE_SWAP's window is between rounds)."""
        if effect != DOUBLE:
            raise IllegalActionError(f"{effect} applies between rounds")
        _ddz(handle).add_gift_double()

    def apply_between_rounds(
        self, effect: str, handle: BetweenRoundsHandle, *, target: int | None, gift_id: str
    ) -> None:
        """ROLE_SWAP between rounds."""
        if effect != ROLE_SWAP:
            raise IllegalActionError(f"{effect} does not apply between rounds")
        if target is None:
            raise IllegalActionError("the gift has no target seat")
        make_landlord(handle, target, gift_id)


def make_landlord(handle: BetweenRoundsHandle, seat: int, gift_id: str) -> int:
    """角色互换: the next round skips bidding and ``seat`` is landlord at the last call
    score (1 if none); returns that score. A second one before the same round is
    refused: the first viewer's choice stands."""
    if not 0 <= seat < handle.seats:
        raise IllegalActionError(f"no seat {seat}")
    if handle.fixed.get("landlord") is not None:
        raise IllegalActionError("the next round's landlord is already chosen by a gift")
    score: int = handle.last.get("call_score") or 1
    change: dict[str, Any] = {
        "effect": ROLE_SWAP,
        "gift": gift_id,
        "seat": seat,
        "call_score": score,
    }
    handle.fix(change, landlord=seat, call_score=score)
    return score


GIFTS: Final = DdzGifts()
"""The one instance the game's descriptor hands out."""
