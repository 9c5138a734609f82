"""斗地主's turns at a table: who is asked what, how a reply becomes an action, the
fallbacks, and what the engine did that no turn announced (a deal, the landlord, a trick,
a gift's effect).

The table (:class:`arena.table.Table`) owns everything that is not the game's: the
decision runner (deadlines, retries, faults, stand-ins), events, notifications, the
replay. This module asks it through :meth:`Table.decide`, never the agents
directly, and builds every message from the seat's own view
(:class:`arena.games.ddz.views.SeatViews`).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

import structlog

from arena.games.base import Game
from arena.games.ddz.agents.inprocess import MoveReply, move_of
from arena.games.ddz.engine import (
    BidAction,
    ComboType,
    Dealt,
    DealtCards,
    DoubleAction,
    EffectApplied,
    LandlordChosen,
    Phase,
    PlayAction,
    Round,
    Rules,
    TrickWon,
    resolve_cards,
)
from arena.games.ddz.gifts import DdzSafePoint
from arena.games.ddz.messages import BidResponse, DoubleResponse, PlayResponse
from arena.games.ddz.views import SeatViews
from arena.table.records import RoundRecord, public_result
from arena.table.safe_point import BetweenRoundsHandle, NextRound, SafePointHandle
from protocol import EVENT_SCHEMA_VERSION

if TYPE_CHECKING:
    from arena.table.table import Table

__all__ = ["DdzTurns", "gift_effects"]

_ANNOUNCED: frozenset[type] = frozenset({BidAction, DoubleAction, PlayAction})
"""Engine records a turn announces itself: nothing more to say about them after it."""

# Enum members tested every turn, as module constants: on Python 3.11 every ``Phase.X`` is
# a slow lookup through ``EnumType.__getattr__`` (hundreds of instructions, against a few).
_BIDDING, _PLAYING, _FINISHED = Phase.BIDDING, Phase.PLAYING, Phase.FINISHED
_PASS_TYPE = ComboType.PASS

_PLAY_REPLIES: Final = (PlayResponse, MoveReply)
"""Play replies the table takes as they are (an in-process agent's pick is a MoveReply)."""


class DdzTurns:
    """One table's Dou Dizhu rounds, turn by turn (see the module)."""

    def __init__(self, game: Game, table: Table, rules: Rules, *, listing: Sequence[bool]) -> None:
        self.game = game
        """Dou Dizhu's descriptor (``arena.games.ddz.game.GAME``), handed in by it."""
        self.table: Table = weakref.proxy(table)
        """The table, not owned: it owns these turns (no reference cycle to collect)."""
        self.rules = rules
        self.views = SeatViews(table.names, listing=listing)
        """Every message to a seat is built here, from what that seat may see."""
        self.views.new_match(None, table.table_id)
        self.round: Round | None = None
        """The round being played (the last one, between rounds)."""

    @property
    def context(self) -> dict[str, Any]:
        """What every message to an agent names: the match, the table, the round."""
        return self.views.context

    def public_rules(self) -> dict[str, Any]:
        """The rules an overlay needs to score live (the multiplier per farmer, what counts
        as a bomb), for ``match_started``; never the match id, which defaults to the seed
        that deals the cards."""
        rules = self.rules
        return {
            "scoring": rules.scoring,
            "bidding": rules.bidding,
            "doubling": rules.has_doubling_phase,
            "per_defender_doubling": rules.doubles_per_defender,
            "quadplex_as_bomb": rules.quadplex_as_bomb,
            "max_gift_doubles": rules.max_gift_doubles,
        }

    def new_match(self, match_id: str | None, table_id: str) -> None:
        """A new match begins: messages name ``match_id`` from now on."""
        self.views.new_match(match_id, table_id)
        self._last_deal: tuple[int | None, int | None] = (None, None)
        """The last round's landlord and call score (a 角色互换 keeps the score)."""

    async def play_round(
        self,
        round_no: int,
        *,
        seed: int,
        deal: DealtCards | None = None,
        first_bidder: int | None = None,
        landlord: int | None = None,
        call_score: int | None = None,
        gift_changes: Sequence[Mapping[str, Any]] = (),
    ) -> RoundRecord:
        """Play one round to its settlement and return its record (the table has made
        its seats ready: :meth:`Table.play_round`).

        ``deal``, ``first_bidder``, ``landlord`` and ``call_score`` fix what the round
        would otherwise draw from its seed (a tournament's duplicate deals, a gift's
        角色互换). ``gift_changes``: what viewers' gifts changed of this round between
        rounds (:attr:`NextRound.changes`): kept in the replay's header and the record.
        """
        rnd = Round(
            self.rules,
            seed=seed,
            deal=deal,
            first_bidder=first_bidder,
            landlord=landlord,
            call_score=call_score,
        )
        self.round = rnd
        self.views.new_round(round_no, seed=seed, rules=self.rules)
        if self.table.recorder is not None:
            header: dict[str, Any] = {
                "game": self.table.game.name,
                "table": self.table.table_id,
                "round": round_no,
                "seed": seed,
                "players": list(self.table.names),
                **self.table.dumped_setup(),
                "first_bidder": first_bidder,
                "landlord": landlord,
                "call_score": call_score,
                "deal": deal.to_dict() if deal is not None else None,
                "event_schema": EVENT_SCHEMA_VERSION,  # how to read its events
            }
            if gift_changes:
                header["gift_changes"] = [dict(change) for change in gift_changes]
            self.table.recorder.round_started(header)
        started: dict[str, Any] = {"players": list(self.table.names)}
        if gift_changes:
            started["landlord"] = landlord
            started["reshuffled"] = any(c["effect"] == "RESHUFFLE" for c in gift_changes)
        bound = structlog.contextvars.bound_contextvars(table=self.table.table_id, round=round_no)
        with bound:
            await self.table.emit("round_started", data=started)
            handled = 0
            history = rnd.history
            while rnd.phase is not _FINISHED:
                if len(history) != handled:
                    # most turns add one bid, double or play, which the turn announced
                    # itself: skip them here without a call (about 60 turns a round)
                    if len(history) == handled + 1 and type(history[handled]) in _ANNOUNCED:
                        handled += 1
                    else:
                        handled = await self._announce_new_history(rnd, handled)
                if self.table.safe_points:  # no handle, no call on a table without gifts
                    handled = await self._at_safe_point(rnd, handled)
                await self._turn(rnd)
            await self._announce_new_history(rnd, handled)
            record = await self._finish(rnd, round_no, seed, gift_changes)
        return record

    async def prepare_round(self, plan: NextRound, *, reseed: Callable[[str], int]) -> None:
        """Between two rounds: each between-rounds hook (a gift's 角色互换 or 重新洗牌) may
        change the next round's ``plan`` through a handle valid for this break only."""
        last_landlord, last_score = self._last_deal
        handle = BetweenRoundsHandle(
            plan,
            reseed=reseed,
            seats=len(self.table.seats),
            last={"landlord": last_landlord, "call_score": last_score},
        )
        try:
            for hook in self.table.between_rounds:
                await hook(handle)
        finally:
            handle.close()

    async def _at_safe_point(self, rnd: Round, handled: int) -> int:
        """Between two turns: each safe point gets a handle for this moment only, and
        whatever effects they applied are announced now, before the next turn starts."""
        handle = SafePointHandle(DdzSafePoint(rnd), self.table.audience)
        try:
            for hook in self.table.safe_points:
                await hook(handle)
        finally:
            handle.close()
        return await self._announce_new_history(rnd, handled)

    async def _turn(self, rnd: Round) -> None:
        seat = rnd.to_act
        assert seat is not None
        if rnd.phase is _PLAYING:
            await self._play_turn(rnd, seat)
        elif rnd.phase is _BIDDING:
            await self._bid_turn(rnd, seat)
        else:
            await self._double_turn(rnd, seat)

    async def _bid_turn(self, rnd: Round, seat: int) -> None:
        request = self.views.bid_request(
            rnd,
            seat,
            time_limit_ms=self.table.time_limit_ms(seat),
            request_id=self.table.next_request_id(),
        )

        def apply(response: BidResponse) -> None:
            rnd.bid(seat, response.bid)

        grabbing = request.mode == "grab" and rnd.auction.highest > 0
        response = await self.table.decide(seat, request, BidResponse, "bid", apply)
        if response is None:
            self._fallback_bid(rnd, seat)
        value = _last_bid_value(rnd, seat)
        self.views.record_bid(seat, value)
        data: dict[str, Any] = {"bid": value, "mode": request.mode, "fallback": response is None}
        if request.mode == "grab":
            data["grab"] = grabbing  # 抢地主 / 不抢, not 叫地主 / 不叫
        await self.table.action_event("bid", seat, response, data)

    async def _double_turn(self, rnd: Round, seat: int) -> None:
        request = self.views.double_request(
            rnd,
            seat,
            time_limit_ms=self.table.time_limit_ms(seat),
            request_id=self.table.next_request_id(),
        )

        def apply(response: DoubleResponse) -> None:
            rnd.double(seat, response.double)

        response = await self.table.decide(seat, request, DoubleResponse, "double", apply)
        if response is None:
            rnd.double(seat, False)
        choice = response.double if isinstance(response, DoubleResponse) else False
        self.views.record_double(seat, choice)
        await self.table.action_event(
            "double",
            seat,
            response,
            {"double": choice, "kind": request.kind, "fallback": response is None},
        )

    async def _play_turn(self, rnd: Round, seat: int) -> None:
        if self.table.per_turn.auto_pass and rnd.must_pass():
            rnd.pass_turn(seat)
            await self._record_play(rnd, seat, None, auto=True)
            return
        request = self.views.play_request(
            rnd,
            seat,
            time_limit_ms=self.table.time_limit_ms(seat),
            request_id=self.table.next_request_id(),
        )
        if self.table.audience[seat]:  # a viewer's cheer, quoted once, in this request
            request = request.model_copy(update={"audience": list(self.table.audience[seat])})
            self.table.audience[seat].clear()

        def apply(response: PlayResponse) -> None:
            said = response.__dict__  # one slow pydantic read (see _decide), not two
            if said["action"] == "PASS":
                rnd.pass_turn(seat)
                return
            move = move_of(response)
            if move is not None:  # an in-process agent's pick from the listed moves
                rnd.play(seat, move, said["hand_type"])
                return
            cards = resolve_cards(said["cards"], rnd.hand(seat))
            rnd.play(seat, cards, said["hand_type"])

        response = await self.table.decide(
            seat, request, PlayResponse, "play", apply, accepted=_PLAY_REPLIES
        )
        if response is None:
            self._fallback_play(rnd, seat)
        await self._record_play(rnd, seat, response, auto=False)

    async def _record_play(
        self, rnd: Round, seat: int, response: PlayResponse | None, *, auto: bool
    ) -> None:
        last = rnd.history[-1]
        action = last if isinstance(last, PlayAction) else rnd.history[-2]
        assert isinstance(action, PlayAction)
        combo = action.combo
        cards = self.views.record_play(seat, combo)
        if combo.type is _PASS_TYPE:
            data: dict[str, Any] = {"auto": auto, "fallback": response is None and not auto}
            await self.table.action_event("pass", seat, response, data)
            return
        data = {
            "cards": cards,
            "hand_type": combo.type.value,
            "main_rank": combo.main_rank,
            "length": combo.length,
            "cards_left": len(rnd.hand(seat)),
            "fallback": response is None,
        }
        await self.table.action_event("play", seat, response, data)

    def _fallback_bid(self, rnd: Round, seat: int) -> None:
        legal = rnd.legal_bids()
        rnd.bid(seat, 0 if 0 in legal else min(legal))

    def _fallback_play(self, rnd: Round, seat: int) -> None:
        if not rnd.is_leading:
            rnd.pass_turn(seat)
            return
        smallest = min(rnd.legal_moves(), key=lambda m: (len(m.cards), m.main_rank))
        rnd.play(seat, smallest)

    async def _announce_new_history(self, rnd: Round, handled: int) -> int:
        """Events and notifications for engine records that no turn announced itself."""
        if len(rnd.history) == handled:
            return handled
        for action in rnd.history[handled:]:
            if isinstance(action, Dealt):
                self.views.new_deal()
                if action.deal_number > 1:
                    await self.table.emit(
                        "redeal",
                        data={
                            "deal_number": action.deal_number,
                            "first_bidder": action.first_bidder,
                        },
                    )
                for seat in range(len(self.table.seats)):
                    deal = self.views.deal(seat, action.deal.hands[seat])
                    await self.table.notify(seat, deal)
            elif isinstance(action, LandlordChosen):
                landlord = action.seat
                bottom = [c.text for c in action.bottom]
                await self.table.emit(
                    "landlord_chosen",
                    landlord,
                    {
                        "call_score": action.call_score,
                        "bottom_cards": bottom,
                        "forced": action.forced,
                        "grabs": rnd.grabs,
                    },
                )
                message = self.views.bottom_cards(landlord, action.bottom, action.call_score)
                for seat in range(len(self.table.seats)):
                    await self.table.notify(seat, message)
            elif isinstance(action, TrickWon):
                await self.table.emit("trick_won", action.seat)
            elif isinstance(action, EffectApplied):
                await self._announce_effect(action)
        return len(rnd.history)

    async def _announce_effect(self, effect: EffectApplied) -> None:
        """A gift's effect: the cards it moved to the replay only, the seats and how
        many cards to everyone (the public event never names a card)."""
        seats = list(effect.seats)
        self.table.record_effect(
            {"effect": effect.kind, "seats": seats, "cards": [c.text for c in effect.cards]}
        )
        await self.table.emit(
            "effect_applied",
            data={"effect": effect.kind, "seats": list(seats), "cards_moved": len(effect.cards)},
        )

    async def _finish(
        self, rnd: Round, round_no: int, seed: int, gift_changes: Sequence[Mapping[str, Any]]
    ) -> RoundRecord:
        result = rnd.result
        assert result is not None
        names, seats = self.table.names, self.table.seats
        self._last_deal = (result.landlord, result.call_score)
        gifts: tuple[str, ...] = ()
        if gift_changes or result.effects_applied:
            gifts = gift_effects(gift_changes, rnd.history)
        for seat in range(len(self.table.seats)):
            self.table.totals[seat] += result.scores[seat]
        record = RoundRecord(
            table=self.table.table_id,
            round_no=round_no,
            seed=seed,
            players=names,
            result=result,
            faults=tuple(seat.round_faults.to_dict() for seat in seats),
            standins=tuple(i for i, s in enumerate(self.table.seats) if s.standin is not None),
            stats=tuple(seat.stats_dict() for seat in seats),
            gifts=gifts,
        )
        message = self.views.round_result(result, self.table.totals)
        await self.table.tell_result(message)
        summary = record.to_dict()
        public = public_result(summary)
        public["totals"] = dict(zip(names, self.table.totals, strict=True))  # late subscribers
        await self.table.emit("round_result", result.winner_seat, public)
        if self.table.recorder is not None:
            self.table.recorder.round_ended(summary)
        return record


_GIFT_OF_EFFECT = {"swap": "SWAP", "transfer": "ADD", "double": "DOUBLE"}


def gift_effects(
    changes: Sequence[Mapping[str, Any]], history: Sequence[object]
) -> tuple[str, ...]:
    """The result-changing gifts that touched a round, in order: those between rounds
    (its ``gift_changes``), then each effect its history applied."""
    between = [str(change["effect"]) for change in changes]
    during = [_GIFT_OF_EFFECT[a.kind] for a in history if isinstance(a, EffectApplied)]
    return (*between, *during)


def _last_bid_value(rnd: Round, seat: int) -> int:
    for action in reversed(rnd.history):
        if isinstance(action, BidAction) and action.seat == seat:
            return action.value
    raise AssertionError("no bid recorded")
