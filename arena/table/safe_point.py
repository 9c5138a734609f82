"""The narrow handle a safe point gets: the engine's gift hooks, and the facts a gift needs.

A safe point (the gifts layer's chance to act, between two turns) must not be able to
play for a seat, skip a turn or rewrite the history, so it never sees the table or the
round. It gets a :class:`SafePointHandle` instead: the three effect hooks of
:class:`~arena.engine.Round` (each recorded in the round's history, then announced and
written to the replay by the table before the next turn), and read-only facts that
decide whether and where an effect may apply (each effect's window): the
phase, whose turn it is, who is landlord, whether that seat leads, the card counts and
the viewer doubles so far.

:meth:`SafePointHandle.hand` is hidden information: the hooks move named cards, so a gift
picks them from a hand. What it picks is the replay's to keep; the public event says only
which seats and how many cards.

The table closes the handle when the safe point ends: a hook that kept it and used it
later, while an agent is deciding, gets an error instead of changing the cards.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from arena.engine import Card, CardLike, Phase, Round
from arena.errors import IllegalActionError

__all__ = ["SafePoint", "SafePointHandle"]


class SafePointHandle:
    """What a safe point may read and do to the round it interrupts."""

    __slots__ = ("__round",)

    def __init__(self, rnd: Round) -> None:
        self.__round: Round | None = rnd

    # --- reading the state ----------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the round is (cards change hands only while ``PLAYING``)."""
        return self._round().phase

    @property
    def to_act(self) -> int | None:
        """The seat whose turn comes next."""
        return self._round().to_act

    @property
    def landlord(self) -> int | None:
        """The landlord's seat, once bidding is over."""
        return self._round().landlord

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act leads a new trick (SWAP and ADD wait for this)."""
        return self._round().is_leading

    @property
    def hand_sizes(self) -> tuple[int, int, int]:
        """Cards in each seat's hand (public: the last-5-cards rule reads them)."""
        hands = self._round().hands
        return (len(hands[0]), len(hands[1]), len(hands[2]))

    @property
    def gift_doubles(self) -> int:
        """Viewer doubles this round so far (the rules cap them)."""
        return self._round().gift_doubles

    def hand(self, seat: int) -> tuple[Card, ...]:
        """One seat's cards, to pick the card an effect moves (hidden: never publish)."""
        return self._round().hand(seat)

    # --- the effect hooks -----------------------------------------------------------------

    def swap_cards(self, seat_a: int, card_a: CardLike, seat_b: int, card_b: CardLike) -> None:
        """Exchange one card of ``seat_a`` with one of ``seat_b`` (换牌)."""
        self._round().swap_cards(seat_a, card_a, seat_b, card_b)

    def transfer_card(self, source: int, target: int, moved: CardLike) -> None:
        """Move one card from ``source`` to ``target`` (加牌)."""
        self._round().transfer_card(source, target, moved)

    def add_gift_double(self) -> int:
        """A viewer's 翻倍; returns the round's viewer doubles so far."""
        return self._round().add_gift_double()

    # --- the table's side -----------------------------------------------------------------

    def close(self) -> None:
        """End the safe point: from now on every read and hook raises."""
        self.__round = None

    def _round(self) -> Round:
        rnd = self.__round
        if rnd is None:
            raise IllegalActionError("the safe point is over: effects apply only between turns")
        return rnd


SafePoint = Callable[[SafePointHandle], Awaitable[None]]
"""Called between turns (the gift hook): may change the round through the handle's hooks."""
