"""斗地主 on the delayed spectator feed: every seat's hand, followed as the round goes.

The feed (:mod:`arena.sinks.spectator`) is every game's; this follows what Dou Dizhu's
seats hold: each hand from the DEAL sent to its seat, the bottom cards as the rest of the
deck once the three hands are dealt, the landlord's full hand from ``landlord_chosen``,
every play from the ``play`` events, and the cards a viewer's gift moved. Each change is
a ``hands`` item (``reason``: ``"deal"``, ``"landlord"``, ``"play"`` or ``"gift"``;
``players``, ``hands`` as three lists of canonical cards by seat, ``bottom``,
``landlord``, and ``seat`` for a play or a gift): a whole snapshot, so a viewer that
joins late or misses items is right again at the next one.
"""

from __future__ import annotations

from typing import Any

from arena.events import Event
from arena.games.ddz.messages import Deal
from arena.sinks.spectator import SpectatorFeed, SpectatorTable
from protocol.cards import CANONICAL_CARDS

__all__ = ["DdzSpectatorTable"]

_CARD_ORDER = {card: index for index, card in enumerate(CANONICAL_CARDS)}


class DdzSpectatorTable(SpectatorTable):
    """One Dou Dizhu table's recorder for the spectator feed (see the module).

    Cheap when it is not interested: a message that is no DEAL costs one type check.
    """

    def __init__(self, feed: SpectatorFeed, table: str) -> None:
        super().__init__(feed, table)
        self.hands: list[list[str] | None] = [None, None, None]
        self.bottom: list[str] | None = None
        self.landlord: int | None = None

    def round_started(self, header: dict[str, Any]) -> None:
        """A new round: forget the last one's hands."""
        super().round_started(header)
        self._new_deal()

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """A DEAL to a seat is its hand; the third completes the deal (and the bottom)."""
        if type(message) is not Deal or direction != "to_agent":
            return
        hands = self.hands
        hands[seat] = list(message.hand)
        if all(h is not None for h in hands):
            dealt = {c for h in hands if h is not None for c in h}
            self.bottom = [c for c in CANONICAL_CARDS if c not in dealt]
            self._hands_item("deal")

    def event(self, event: Event) -> None:
        """The public event into the feed, and the hands it changes after it."""
        super().event(event)
        kind = event.type
        if kind == "play" and event.seat is not None:
            hand = self.hands[event.seat]
            if hand is not None:
                played = set(event.data.get("cards", ()))
                self.hands[event.seat] = [c for c in hand if c not in played]
                self._hands_item("play", seat=event.seat)
        elif kind == "landlord_chosen" and event.seat is not None:
            self.landlord = event.seat
            bottom = list(event.data.get("bottom_cards", ()))
            self.bottom = bottom
            hand = self.hands[event.seat]
            if hand is not None:
                self.hands[event.seat] = sorted({*hand, *bottom}, key=_CARD_ORDER.__getitem__)
                self._hands_item("landlord")
        elif kind == "redeal":
            self._new_deal()

    def effect(self, record: dict[str, Any]) -> None:
        """A viewer gift moved cards (it comes just before its public ``effect_applied``
        event): a swap exchanges one card of each seat, a transfer moves one from the
        first seat to the second. The hands after it are an item, ``reason`` ``gift``."""
        kind, seats, cards = record.get("effect"), record.get("seats", ()), record.get("cards", ())
        hands = self.hands
        if kind == "swap" and len(seats) == 2 and len(cards) == 2:
            moves = [(seats[0], seats[1], cards[0]), (seats[1], seats[0], cards[1])]
        elif kind == "transfer" and len(seats) == 2 and len(cards) == 1:
            moves = [(seats[0], seats[1], cards[0])]
        else:
            return  # a double moves no card
        if any(hands[seat] is None for seat in seats):
            return  # joined mid-round: no hands to follow
        for source, target, card in moves:
            hands[source] = [c for c in hands[source] or () if c != card]
            hands[target] = sorted([*(hands[target] or ()), card], key=_CARD_ORDER.__getitem__)
        self._hands_item("gift", seat=seats[0])

    def _new_deal(self) -> None:
        self.hands = [None, None, None]
        self.bottom = None
        self.landlord = None

    def _hands_item(self, reason: str, *, seat: int | None = None) -> None:
        data: dict[str, Any] = {
            "reason": reason,
            "players": list(self.players),
            "hands": [list(h) if h is not None else None for h in self.hands],
            "bottom": list(self.bottom) if self.bottom is not None else None,
            "landlord": self.landlord,
        }
        if seat is not None:
            data["seat"] = seat
        self._put("hands", data)
