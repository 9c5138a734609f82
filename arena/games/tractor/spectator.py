"""升级 on the delayed spectator feed: every seat's hand, followed as the round goes.

The feed (:mod:`arena.sinks.spectator`) is every game's; this follows what Tractor's
seats hold: each hand from the DEAL sent to its seat (and, when a hand is dealt in
steps, from each DECLARE_REQUEST, which shows what has come since), the kitty from the
banker's BURY_REQUEST (or, when a hand is dealt whole, as the rest of the two decks once
every hand is known), the burial from the banker's accepted BURY_RESPONSE, every play
from the ``play`` events, and any hand a seat's PLAY_REQUEST shows to differ (a gift
moved a card, a fallback buried for the banker). Each change is a ``hands`` item
(``reason``: ``"deal"``, ``"kitty"``, ``"bury"``, ``"play"`` or ``"sync"``; ``players``,
``hands`` as lists of card ids by seat, trump first once it is known, ``kitty`` (the
cards the banker took), ``buried`` (the cards it put back), ``banker``, and ``seat``
for a play): a whole snapshot, so a viewer that joins late or misses items is right
again at the next one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

from arena.errors import CardResolutionError, InvalidCardError
from arena.events import Event
from arena.games.tractor.engine import DECK, FACE, RANK, SUIT, card_id, card_text, resolve_cards
from arena.games.tractor.engine.cards import SUIT_LETTERS, rank_text
from arena.games.tractor.messages import (
    BuryRequest,
    BuryResponse,
    Deal,
    DeclareRequest,
    PlayRequest,
)
from arena.sinks.spectator import SpectatorFeed, SpectatorTable

__all__ = ["TractorSpectatorTable"]

_LEVELS: Final = {rank_text(rank): rank for rank in range(2, 15)}
"""A level as the wire writes it (``"10"``, ``"A"``) to its rank (10, 14)."""


def _sort_key(level: int | None, suit: int | None) -> Callable[[int], tuple[int, int, int]]:
    """How a hand is shown: the plain suits (♠ ♥ ♦ ♣, low to high), then the trumps low
    to high (the trump suit, the level cards, the jokers); two copies side by side."""

    def key(card: int) -> tuple[int, int, int]:
        rank, own = RANK[card], SUIT[card]
        if own < 0:
            return (4, 100 + rank, card)
        if rank == level:
            return (4, 60 + (1 if own == suit else 0), FACE[card] * 2 + card // 54)
        if own == suit:
            return (4, rank, card // 54)
        return (own, rank, card // 54)

    return key


class TractorSpectatorTable(SpectatorTable):
    """One Tractor table's recorder for the spectator feed (see the module).

    Cheap when it is not interested: a message it does not follow costs a type check.
    """

    def __init__(self, feed: SpectatorFeed, table: str) -> None:
        super().__init__(feed, table)
        self.hands: list[list[int] | None] = []
        self.kitty: list[int] | None = None
        self.buried: list[int] | None = None
        self.banker: int | None = None
        self._level: int | None = None
        self._suit: int | None = None
        self._dirty = False
        self._burying: tuple[int, ...] | None = None
        """The banker's last BURY_RESPONSE that named cards of its hand."""

    def round_started(self, header: dict[str, Any]) -> None:
        """A new round: forget the last one's hands."""
        super().round_started(header)
        self.hands = [None] * len(self.players)
        self.kitty = self.buried = None
        self.banker = header.get("banker")
        self._level = self._suit = None
        self._dirty = False
        self._burying = None

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """Each message that shows a seat's hand (see the module)."""
        kind = type(message)
        if direction == "from_agent":
            if kind is BuryResponse and not late:
                assert isinstance(message, BuryResponse)
                self._bury_reply(seat, message.cards)
            return
        if kind is Deal:
            assert isinstance(message, Deal)
            self._deal(seat, message)
        elif kind is DeclareRequest:
            assert isinstance(message, DeclareRequest)
            if self._set_hand(seat, message.hand):
                self._dirty = True  # told once the window's replies are in
        elif kind is BuryRequest:
            assert isinstance(message, BuryRequest)
            self.banker = seat
            self.kitty = _cards(message.kitty)
            self._set_hand(seat, message.hand)
            self._hands_item("kitty", seat=seat)
        elif kind is PlayRequest:
            assert isinstance(message, PlayRequest)
            if message.buried is not None and self.buried is None:
                self.buried = _cards(message.buried)
            if self._set_hand(seat, message.hand):
                self._hands_item("sync", seat=seat)

    def event(self, event: Event) -> None:
        """The public event into the feed, and the hands it changes after it."""
        super().event(event)
        kind = event.type
        seat = event.seat
        if kind == "play" and seat is not None:
            hand = self._hand(seat)
            if hand is not None:
                played = set(_cards(event.data.get("cards", ())))
                self.hands[seat] = [c for c in hand if c not in played]
                self._hands_item("play", seat=seat)
        elif kind == "declare" and self._dirty:
            self._dirty = False
            self._hands_item("deal")
        elif kind == "trump_locked":
            self._level = event.data.get("level", self._level)
            suit = event.data.get("trump_suit")
            self._suit = SUIT_LETTERS.index(suit) if suit in SUIT_LETTERS else None
            self.banker = event.data.get("banker", seat)
            self._sort_all()
        elif kind == "bury" and seat is not None:
            self._buried(seat, fallback=bool(event.data.get("fallback")))

    # --- what each message says --------------------------------------------------------

    def _deal(self, seat: int, deal: Deal) -> None:
        """A seat's DEAL; the last one completes the deal (and, dealt whole, the kitty)."""
        if len(self.hands) < len(deal.seat_order):
            self.hands += [None] * (len(deal.seat_order) - len(self.hands))
            self.players = list(deal.seat_order)
        self._level = _LEVELS.get(deal.level, self._level)
        self._set_hand(seat, deal.hand)
        hands = self.hands
        if all(h is not None for h in hands):
            if deal.rules.deal_steps == 1:
                dealt = {c for h in hands if h is not None for c in h}
                self.kitty = [c for c in DECK if c not in dealt]
            self._hands_item("deal")

    def _bury_reply(self, seat: int, tokens: Sequence[str]) -> None:
        hand = self._hand(seat)
        if seat != self.banker or hand is None:
            return
        try:
            self._burying = resolve_cards(tokens, hand)
        except (CardResolutionError, InvalidCardError):
            self._burying = None  # refused by the table too: the next reply counts

    def _buried(self, seat: int, *, fallback: bool) -> None:
        """The burial made: the banker's accepted reply, unless the table buried for it
        (its next PLAY_REQUEST shows the hand then)."""
        chosen, self._burying = self._burying, None
        hand = self._hand(seat)
        if fallback or chosen is None or hand is None:
            return
        gone = set(chosen)
        self.hands[seat] = [c for c in hand if c not in gone]
        self.buried = list(chosen)
        self._hands_item("bury", seat=seat)

    def effect(self, record: dict[str, Any]) -> None:
        """A viewer gift moved cards (just before its public ``effect_applied``): a swap
        exchanges one card of each of two seats. Any other effect that moves cards shows
        at the seats' next PLAY_REQUESTs."""
        seats, cards = record.get("seats", ()), record.get("cards", ())
        if str(record.get("effect", "")).upper() != "SWAP" or len(seats) != 2 or len(cards) != 2:
            return
        first, second = self._hand(seats[0]), self._hand(seats[1])
        if first is None or second is None:
            return
        try:
            a, b = card_id(cards[0]), card_id(cards[1])
        except InvalidCardError:
            return
        self.hands[seats[0]] = [*(c for c in first if c != a), b]
        self.hands[seats[1]] = [*(c for c in second if c != b), a]
        self._sort_all()
        self._hands_item("gift", seat=seats[0])

    # --- the hands ---------------------------------------------------------------------

    def _hand(self, seat: object) -> list[int] | None:
        if isinstance(seat, int) and 0 <= seat < len(self.hands):
            return self.hands[seat]
        return None

    def _set_hand(self, seat: int, ids: Iterable[str]) -> bool:
        """The seat's hand as a message shows it; True when it changed."""
        if not 0 <= seat < len(self.hands):
            self.hands += [None] * (seat + 1 - len(self.hands))
        cards = sorted(_cards(ids), key=_sort_key(self._level, self._suit))
        if self.hands[seat] == cards:
            return False
        self.hands[seat] = cards
        return True

    def _sort_all(self) -> None:
        key = _sort_key(self._level, self._suit)
        self.hands = [None if h is None else sorted(h, key=key) for h in self.hands]

    def _hands_item(self, reason: str, *, seat: int | None = None) -> None:
        data: dict[str, Any] = {
            "reason": reason,
            "players": list(self.players),
            "hands": [None if h is None else [card_text(c) for c in h] for h in self.hands],
            "kitty": None if self.kitty is None else [card_text(c) for c in self.kitty],
            "buried": None if self.buried is None else [card_text(c) for c in self.buried],
            "banker": self.banker,
        }
        if seat is not None:
            data["seat"] = seat
        self._put("hands", data)


def _cards(ids: Iterable[str]) -> list[int]:
    """Card ids as cards (an id the arena did not write is left out)."""
    cards = []
    for text in ids:
        try:
            cards.append(card_id(text))
        except InvalidCardError:
            continue
    return cards
