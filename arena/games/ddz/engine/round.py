"""One round (一局) of Dou Dizhu as a pure state machine: deal, bid, double, play, settle.

The round never waits and never does I/O: the table asks it whose turn it is, collects a
decision from that seat's agent, and feeds it back through :meth:`Round.bid`,
:meth:`Round.double`, :meth:`Round.play` or :meth:`Round.pass_turn`. An illegal action
raises :class:`~arena.errors.IllegalActionError` with a reason and changes nothing.

Seats are 0, 1, 2 and play goes 0 → 1 → 2 → 0. Viewer gifts reach the cards only through
the hook methods at the end (:meth:`Round.swap_cards`, :meth:`Round.transfer_card`,
:meth:`Round.add_gift_double`), which keep every one of the 54 cards in exactly one place.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from enum import StrEnum
from typing import Literal

from arena.errors import IllegalActionError, InvalidCardError, SetupError
from arena.games.ddz.engine.bidding import REDEAL, Auction, AuctionOutcome, make_auction
from arena.games.ddz.engine.cards import Card, CardLike, card
from arena.games.ddz.engine.combos import (
    PASS,
    Combo,
    ComboType,
    is_bomb_like,
    playable_reading,
)
from arena.games.ddz.engine.moves import HandIndex, legal_moves
from arena.games.ddz.engine.records import (
    Action,
    BidAction,
    Dealt,
    DealtCards,
    DoubleAction,
    EffectApplied,
    LandlordChosen,
    PlayAction,
    Settlement,
    TrickWon,
)
from arena.games.ddz.engine.rules import DEFAULT_RULES, Rules
from arena.games.ddz.engine.scoring import settle

__all__ = ["Phase", "Round"]


class Phase(StrEnum):
    """Where a round is."""

    BIDDING = "bidding"
    DOUBLING = "doubling"
    PLAYING = "playing"
    FINISHED = "finished"


# Enum members as module constants on the hot paths: on Python 3.11 every ``Phase.X`` is
# a slow lookup through ``EnumType.__getattr__`` (hundreds of instructions, against a few
# for a global), and the engine tests the phase several times a turn.
_BIDDING, _DOUBLING = Phase.BIDDING, Phase.DOUBLING
_PLAYING, _FINISHED = Phase.PLAYING, Phase.FINISHED
_PASS_TYPE, _ROCKET = ComboType.PASS, ComboType.ROCKET


class Round:
    """A round from the deal to the settlement.

    ``seed`` (or an explicit ``rng``) makes the deals and random first bidders
    reproducible. ``deal`` plays a prepared deal (duplicate tournaments); a redeal then
    draws from the rng. ``first_bidder`` fixes who bids first (the `rotate` variant);
    otherwise it is drawn per deal. ``landlord`` alone makes that seat landlord, asked only
    for its call score (轮庄); with ``call_score`` too, bidding is skipped (a 角色互换 gift).
    """

    # Slots: a round has more attributes than CPython's fast instance layout holds (about
    # 29 shared keys), so with a __dict__ every attribute read and write of the engine
    # went through a plain dict lookup instead.
    __slots__ = (
        "_auction",
        "_deal",
        "_doubling_order",
        "_first_bidder",
        "_first_play_seat",
        "_fixed_first",
        "_fixed_landlord",
        "_hands",
        "_indexes",
        "_landlord_first_play_only",
        "_moves",
        "_passes",
        "_rng",
        "bombs",
        "bombs_by_seat",
        "bottom_revealed",
        "call_score",
        "deal_number",
        "doubled",
        "effects_applied",
        "forced_landlord",
        "gift_doubles",
        "grabs",
        "history",
        "landlord",
        "last_play",
        "last_seat",
        "phase",
        "played",
        "plays_by_seat",
        "redoubled",
        "result",
        "rockets",
        "rules",
        "seed",
        "to_act",
    )

    def __init__(
        self,
        rules: Rules = DEFAULT_RULES,
        *,
        seed: int | None = None,
        rng: random.Random | None = None,
        deal: DealtCards | None = None,
        first_bidder: int | None = None,
        landlord: int | None = None,
        call_score: int | None = None,
    ) -> None:
        for name, value in (("first_bidder", first_bidder), ("landlord", landlord)):
            if value is not None and value not in (0, 1, 2):
                raise SetupError(f"{name} must be a seat 0..2, got {value!r}")
        if call_score is not None and (landlord is None or call_score not in (1, 2, 3)):
            raise SetupError("call_score needs a landlord and must be 1..3")
        self.rules = rules
        self.seed = seed
        self._rng = rng if rng is not None else random.Random(seed)
        self._fixed_first = first_bidder
        self._fixed_landlord = landlord
        self.history: list[Action] = []
        self.phase = _BIDDING
        self.to_act: int | None = None
        self.deal_number = 0
        self.landlord: int | None = None
        self.call_score = 0
        self.grabs = 0
        self.forced_landlord = False
        self.bottom_revealed = False
        self.doubled: dict[int, bool] = {}
        self.redoubled = False
        self.last_play: Combo | None = None
        self.last_seat: int | None = None
        self.bombs = 0
        self.rockets = 0
        self.gift_doubles = 0
        self.effects_applied = 0
        self.plays_by_seat = [0, 0, 0]
        self.bombs_by_seat = [0, 0, 0]
        """Bombs and rockets each seat played (counted only when one is played)."""
        self.played: list[Card] = []
        self.result: Settlement | None = None
        self._passes = 0
        self._first_play_seat: int | None = None
        self._landlord_first_play_only = True
        self._doubling_order: list[int] = []
        self._indexes: list[tuple[tuple[Card, ...], HandIndex] | None] = [None, None, None]
        # The moves of the seat to act, kept with the hand and trick they were listed for.
        self._moves: tuple[int, tuple[Card, ...], Combo | None, tuple[Combo, ...]] | None = None
        self._new_deal(deal)
        if call_score is not None and landlord is not None:
            self._choose_landlord(AuctionOutcome(landlord, call_score))

    # --- reading the state -------------------------------------------------------------

    @property
    def hands(self) -> tuple[tuple[Card, ...], tuple[Card, ...], tuple[Card, ...]]:
        """Every seat's current cards, sorted (hidden information: the table filters it)."""
        return (self._hands[0], self._hands[1], self._hands[2])

    def hand(self, seat: int) -> tuple[Card, ...]:
        """One seat's current cards, sorted."""
        return self._hands[seat]

    @property
    def bottom(self) -> tuple[Card, ...]:
        """The 3 bottom cards of the current deal (public once the landlord is known)."""
        return self._deal.bottom

    @property
    def deal(self) -> DealtCards:
        """The current deal as dealt."""
        return self._deal

    @property
    def first_bidder(self) -> int:
        """Who bid first in the current deal."""
        return self._first_bidder

    @property
    def auction(self) -> Auction:
        """The current deal's auction."""
        return self._auction

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act starts a new trick (free play: it may not pass)."""
        return self.phase is _PLAYING and self.last_play is None

    @property
    def trick_passes(self) -> int:
        """Passes since the last play in the current trick."""
        return self._passes

    def legal_bids(self) -> list[int]:
        """What the seat to act may bid, highest first; 0 is a pass."""
        return self._auction.legal() if self.phase is _BIDDING else []

    def legal_moves(self) -> list[Combo]:
        """The non-pass moves of the seat to act (empty outside the play phase)."""
        return list(self.moves)

    def legal_plays(self) -> list[Combo]:
        """The moves of the seat to act, PASS included when following."""
        moves = list(self.moves)
        if self.phase is _PLAYING and self.last_play is not None:
            moves.append(PASS)
        return moves

    @property
    def moves(self) -> tuple[Combo, ...]:
        """The non-pass moves of the seat to act, listed once per hand and trick.

        The table, the forced-pass check and in-process agents all ask for the same list
        in one turn; a play that is one of these moves is applied without re-reading it.
        """
        seat = self.to_act
        if self.phase is not _PLAYING or seat is None:
            return ()
        listed = self._listed(seat)
        if listed is None:
            listed = tuple(legal_moves(self._index(seat), self.last_play, self.rules))
            self._moves = (seat, self._hands[seat], self.last_play, listed)
        return listed

    def _listed(self, seat: int) -> tuple[Combo, ...] | None:
        """The moves listed for the seat's current hand and trick, if they were listed."""
        cached = self._moves
        if (
            cached is not None
            and cached[0] == seat
            and cached[1] is self._hands[seat]
            and cached[2] is self.last_play
        ):
            return cached[3]
        return None

    def must_pass(self) -> bool:
        """Whether the seat to act can only pass: it follows and nothing in hand beats."""
        return self.phase is _PLAYING and self.last_play is not None and not self.moves

    def _index(self, seat: int) -> HandIndex:
        """The seat's hand index, rebuilt only when the hand has changed."""
        hand = self._hands[seat]
        cached = self._indexes[seat]
        if cached is None or cached[0] is not hand:
            cached = (hand, HandIndex(hand))
            self._indexes[seat] = cached
        return cached[1]

    @property
    def is_redouble_turn(self) -> bool:
        """Whether the doubling decision asked now is the landlord's redouble."""
        return self.phase is _DOUBLING and self.to_act == self.landlord

    # --- actions ------------------------------------------------------------------------

    def bid(self, seat: int, value: int) -> BidAction:
        """Record a bid; may finish the auction, redeal, or hand out the bottom cards."""
        self._expect(_BIDDING, seat)
        if isinstance(value, bool) or not isinstance(value, int):
            raise IllegalActionError(f"a bid is an integer, got {value!r}")
        auction = self._auction
        auction.act(seat, value)
        action = BidAction(seat, value, auction.mode)
        self.history.append(action)
        if auction.outcome is None:
            self.to_act = auction.to_act
        elif auction.outcome == REDEAL:
            if self.deal_number > self.rules.max_redeals:
                self.forced_landlord = True
                self._choose_landlord(AuctionOutcome(self._first_bidder, 1))
            else:
                self._new_deal(None)
        else:
            assert isinstance(auction.outcome, AuctionOutcome)
            self._choose_landlord(auction.outcome)
        return action

    def double(self, seat: int, double: bool) -> DoubleAction:
        """A farmer doubles or not; then the landlord redoubles or not (asked only if needed)."""
        self._expect(_DOUBLING, seat)
        if not isinstance(double, bool):
            raise IllegalActionError(f"a double is true or false, got {double!r}")
        is_landlord = seat == self.landlord
        if is_landlord:
            self.redoubled = double
        else:
            self.doubled[seat] = double
        action = DoubleAction(
            seat, double=double and not is_landlord, redouble=double and is_landlord
        )
        self.history.append(action)
        self._doubling_order.pop(0)
        if not self._doubling_order and not is_landlord and any(self.doubled.values()):
            assert self.landlord is not None
            self._doubling_order.append(self.landlord)
        if self._doubling_order:
            self.to_act = self._doubling_order[0]
        else:
            self._start_play()
        return action

    def play(
        self,
        seat: int,
        cards: Iterable[CardLike] | Combo,
        hand_type: ComboType | str | None = None,
    ) -> Combo:
        """Play cards from the seat's hand; returns the reading that was played.

        Leading, ``hand_type`` picks among several readings (default: the first of
        :data:`~arena.games.ddz.engine.combos.READING_ORDER`). Following, any reading that beats the
        trick is taken. Cards must be exact cards of the hand (the table resolves lenient
        tokens first).
        """
        self._expect(_PLAYING, seat)
        if isinstance(cards, Combo):
            if cards.type is _PASS_TYPE:
                self.pass_turn(seat)
                return PASS
            listed = self._listed(seat)
            if (hand_type is None or hand_type == cards.type) and listed and cards in listed:
                self._apply_play(seat, cards)
                return cards
            hand_type = hand_type or cards.type
            given = cards.cards
        else:
            try:
                given = tuple(sorted((card(c) for c in cards), key=_card_id))
            except InvalidCardError as exc:
                raise IllegalActionError(str(exc)) from exc
        chosen = self._reading(seat, given, hand_type)
        self._apply_play(seat, chosen)
        return chosen

    def pass_turn(self, seat: int) -> None:
        """Pass (不出); not allowed when leading a new trick."""
        self._expect(_PLAYING, seat)
        if self.last_play is None:
            raise IllegalActionError("cannot pass when leading a new trick")
        self.history.append(PlayAction(seat, PASS))
        self._passes += 1
        if self._passes == 2:
            assert self.last_seat is not None
            self.history.append(TrickWon(self.last_seat))
            self.last_play = None
            self._passes = 0
            self.to_act = self.last_seat
        else:
            self.to_act = (seat + 1) % 3

    # --- gift hooks (called by the gifts layer at safe points only) ----------------------

    def swap_cards(self, seat_a: int, card_a: CardLike, seat_b: int, card_b: CardLike) -> None:
        """Exchange one card of ``seat_a`` with one of ``seat_b`` (换牌)."""
        self._expect_effect_window()
        a, b = card(card_a), card(card_b)
        _require_seat(seat_a)
        _require_seat(seat_b)
        if seat_a == seat_b:
            raise IllegalActionError("a swap needs two different seats")
        self._require_in_hand(seat_a, a)
        self._require_in_hand(seat_b, b)
        self._hands[seat_a] = tuple(sorted([c for c in self._hands[seat_a] if c is not a] + [b]))
        self._hands[seat_b] = tuple(sorted([c for c in self._hands[seat_b] if c is not b] + [a]))
        self._record_effect(EffectApplied("swap", (seat_a, seat_b), (a, b)))

    def transfer_card(self, source: int, target: int, moved: CardLike) -> None:
        """Move one card from ``source`` to ``target`` (加牌); never empties a hand."""
        self._expect_effect_window()
        c = card(moved)
        _require_seat(target)
        if source == target:
            raise IllegalActionError("a transfer needs two different seats")
        self._require_in_hand(source, c)
        if len(self._hands[source]) <= 1:
            raise IllegalActionError(f"seat {source} would be left with no cards")
        self._hands[source] = tuple(x for x in self._hands[source] if x is not c)
        self._hands[target] = tuple(sorted((*self._hands[target], c)))
        self._record_effect(EffectApplied("transfer", (source, target), (c,)))

    def add_gift_double(self) -> int:
        """A viewer's 翻倍: +1 to the round's exponent, up to the rules' cap; returns the count."""
        if self.phase is _FINISHED:
            raise IllegalActionError("the round is over")
        if self.gift_doubles >= self.rules.max_gift_doubles:
            raise IllegalActionError(
                f"this round already has {self.gift_doubles} viewer doubles (the cap)"
            )
        self.gift_doubles += 1
        self._record_effect(EffectApplied("double", ()))
        return self.gift_doubles

    # --- internals ----------------------------------------------------------------------

    def _expect(self, phase: Phase, seat: int) -> None:
        if self.phase is not phase:
            raise IllegalActionError(f"not allowed in the {self.phase.value} phase")
        if seat != self.to_act:
            raise IllegalActionError(f"it is seat {self.to_act}'s turn, not seat {seat}'s")

    def _expect_effect_window(self) -> None:
        if self.phase is not _PLAYING:
            raise IllegalActionError(f"cards can change hands only during play, not {self.phase}")

    def _require_in_hand(self, seat: int, c: Card) -> None:
        _require_seat(seat)
        if c not in self._hands[seat]:
            raise IllegalActionError(f"{c.text} is not in seat {seat}'s hand")

    def _record_effect(self, effect: EffectApplied) -> None:
        self.effects_applied += 1
        self.history.append(effect)

    def _new_deal(self, deal: DealtCards | None) -> None:
        self.deal_number += 1
        self._deal = deal if deal is not None else DealtCards.shuffled(self._rng)
        self._hands = list(self._deal.hands)
        if self._fixed_first is not None:
            self._first_bidder = self._fixed_first
        elif self._fixed_landlord is not None:
            self._first_bidder = self._fixed_landlord
        else:
            self._first_bidder = self._rng.randrange(3)
        self._auction = make_auction(
            self.rules.bidding, self._first_bidder, fixed_landlord=self._fixed_landlord
        )
        self.to_act = self._auction.to_act
        self.history.append(Dealt(self.deal_number, self._first_bidder, self._deal))

    def _choose_landlord(self, outcome: AuctionOutcome) -> None:
        seat = outcome.landlord
        self.landlord = seat
        self.call_score = outcome.call_score
        self.grabs = outcome.grabs
        self.bottom_revealed = True
        self._hands[seat] = tuple(sorted(self._hands[seat] + self._deal.bottom))
        self.history.append(
            LandlordChosen(seat, outcome.call_score, self._deal.bottom, self.forced_landlord)
        )
        if self.rules.has_doubling_phase:
            self.phase = _DOUBLING
            self._doubling_order = [(seat + 1) % 3, (seat + 2) % 3]
            self.to_act = self._doubling_order[0]
        else:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = _PLAYING
        self.to_act = self.landlord

    def _reading(
        self, seat: int, chosen: tuple[Card, ...], hand_type: ComboType | str | None
    ) -> Combo:
        if not chosen:
            raise IllegalActionError("no cards given; pass explicitly instead")
        hand = self._hands[seat]
        missing = [c.text for c in chosen if c not in hand]
        if missing:
            raise IllegalActionError(f"not in seat {seat}'s hand: {', '.join(missing)}")
        if len(set(chosen)) != len(chosen):
            raise IllegalActionError("the same card is played twice")
        wanted = None if hand_type is None else _combo_type(hand_type)
        return playable_reading(chosen, self.last_play, self.rules, wanted)

    def _apply_play(self, seat: int, combo: Combo) -> None:
        played = set(combo.cards)
        self._hands[seat] = tuple(c for c in self._hands[seat] if c not in played)
        self.played.extend(combo.cards)
        self.history.append(PlayAction(seat, combo))
        if self._first_play_seat is None:
            self._first_play_seat = seat
        self.plays_by_seat[seat] += 1
        if combo.type is _ROCKET:
            self.rockets += 1
            self.bombs_by_seat[seat] += 1
        elif is_bomb_like(combo, self.rules):
            self.bombs += 1
            self.bombs_by_seat[seat] += 1
        self.last_play = combo
        self.last_seat = seat
        self._passes = 0
        if self._hands[seat]:
            self.to_act = (seat + 1) % 3
        else:
            self._finish(seat)

    def _finish(self, winner: int) -> None:
        landlord = self.landlord
        assert landlord is not None
        landlord_won = winner == landlord
        farmers = [s for s in range(3) if s != landlord]
        spring: Literal["spring", "reverse_spring"] | None = None
        if landlord_won and all(self.plays_by_seat[f] == 0 for f in farmers):
            spring = "spring"
        elif (
            not landlord_won
            and self.plays_by_seat[landlord] == 1
            and self._first_play_seat == landlord
        ):
            spring = "reverse_spring"
        scored = settle(
            self.rules,
            landlord=landlord,
            call_score=self.call_score,
            landlord_won=landlord_won,
            bombs=self.bombs,
            rockets=self.rockets,
            spring=spring is not None,
            grabs=self.grabs,
            gift_doubles=self.gift_doubles,
            doubled=self.doubled,
            redoubled=self.redoubled,
        )
        self.phase = _FINISHED
        self.to_act = None
        self.result = Settlement(
            landlord=landlord,
            call_score=self.call_score,
            landlord_won=landlord_won,
            winner_seat=winner,
            spring=spring,
            bombs=self.bombs,
            rockets=self.rockets,
            grabs=self.grabs,
            gift_doubles=self.gift_doubles,
            doubled=dict(self.doubled),
            redoubled=self.redoubled,
            common_exponent=scored.common_exponent,
            exponents=dict(scored.exponents),
            scores=scored.scores,
            deals=self.deal_number,
            forced_landlord=self.forced_landlord,
            first_bidder=self._first_bidder,
            plays_by_seat=(self.plays_by_seat[0], self.plays_by_seat[1], self.plays_by_seat[2]),
            bombs_by_seat=(self.bombs_by_seat[0], self.bombs_by_seat[1], self.bombs_by_seat[2]),
            effects_applied=self.effects_applied,
            deal=self._deal,
            final_hands=self.hands,
            seed=self.seed,
            winners=(landlord,) if landlord_won else tuple(farmers),
        )


def _require_seat(seat: object) -> None:
    if isinstance(seat, bool) or seat not in (0, 1, 2):
        raise IllegalActionError(f"no seat {seat!r}; seats are 0, 1, 2")


def _card_id(value: Card) -> int:
    return value.id


_TYPE_BY_NAME = {t.value: t for t in ComboType}


def _combo_type(value: ComboType | str) -> ComboType:
    if isinstance(value, ComboType):
        return value
    found = _TYPE_BY_NAME.get(value)
    if found is not None:
        return found
    try:
        return ComboType(str(value).strip().upper())
    except ValueError:
        raise IllegalActionError(f"unknown hand_type {value!r}") from None
