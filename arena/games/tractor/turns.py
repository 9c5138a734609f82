"""Tractor's turns at a table: declaration windows asked of every seat at once, the
banker's burial, the plays one by one, and what the engine did that no turn announced
(trump candidates and locking, punished throws, tricks won, the score).

The table (:class:`arena.table.Table`) owns everything that is not the game's: the
decision runner (deadlines, retries, faults, stand-ins), events, notifications, the
replay. This module asks it through :meth:`Table.decide` and
:meth:`Table.ask_together`, and builds every message from the seat's own view
(:class:`arena.games.tractor.views.TractorViews`).

A match carries the teams' levels and the banker from one round to the next (§12):
these turns keep them in the engine's :class:`Match` (:meth:`TractorTurns.new_match`
starts it again).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import structlog

from arena.games.base import Game
from arena.games.tractor.engine import (
    Buried,
    Event,
    KittyTaken,
    Match,
    Phase,
    Played,
    Round,
    RoundEnded,
    StepRevealed,
    SwapAction,
    ThrowPunished,
    TractorRules,
    TrickWon,
    TrumpCandidate,
    TrumpLocked,
)
from arena.games.tractor.messages import (
    BuryResponse,
    DeclareResponse,
    PlayResponse,
)
from arena.games.tractor.result import TractorResult
from arena.games.tractor.views import STRENGTH_NAMES, TractorViews, group_letter, ids, suit_letter
from arena.table.records import RoundRecord, public_result
from arena.table.safe_point import BetweenRoundsHandle, NextRound, SafePointHandle
from arena.table.table import Question
from protocol import EVENT_SCHEMA_VERSION

if TYPE_CHECKING:
    from arena.table.table import Table

__all__ = ["TractorTurns"]

_DECLARING, _BURYING, _PLAYING, _FINISHED = (
    Phase.DECLARING,
    Phase.BURYING,
    Phase.PLAYING,
    Phase.FINISHED,
)


class TractorTurns:
    """One table's Tractor rounds, turn by turn (see the module)."""

    def __init__(
        self, game: Game, table: Table, rules: TractorRules, *, listing: Sequence[bool]
    ) -> None:
        self.game = game
        self.table: Table = weakref.proxy(table)
        """The table, not owned: it owns these turns (no reference cycle to collect)."""
        self.rules = rules
        self.views = TractorViews(table.names, listing=listing)
        self.views.new_match(None, table.table_id)
        self.round: Round | None = None
        """The round being played (the last one, between rounds)."""
        self.match = Match(rules)
        """What the match carries between rounds (§12): levels, the next banker, the
        banker ties go after, each team's points; the table deals each round."""

    @property
    def context(self) -> dict[str, Any]:
        """What every message to an agent names: the match, the table, the round."""
        return self.views.context

    def public_rules(self) -> dict[str, Any]:
        """The rules the audience is shown at ``match_started``."""
        rules = self.rules
        return {
            "players": rules.players,
            "kitty": rules.kitty_size,
            "deal_steps": rules.deal_steps,
            "play_through": rules.play_through,
            "round_limit": rules.round_limit,
            "teams": [[s for s in range(rules.players) if s % 2 == t] for t in (0, 1)],
        }

    def new_match(self, match_id: str | None, table_id: str) -> None:
        """A new match begins: both teams at level 2, no banker yet."""
        self.views.new_match(match_id, table_id)
        self.match = Match(self.rules)

    async def play_round(
        self,
        round_no: int,
        *,
        seed: int,
        gift_changes: Sequence[Mapping[str, Any]] = (),
    ) -> RoundRecord:
        """Play one round to its score and return its record."""
        table, state = self.table, self.match
        rnd = Round(
            self.rules,
            seed=seed,
            levels=state.levels,
            banker=state.banker,
            tie_after=state.previous_banker,
        )
        self.round = rnd
        self.views.new_round(round_no, seed=seed, rules=self.rules)
        if table.recorder is not None:
            header: dict[str, Any] = {
                "game": table.game.name,
                "table": table.table_id,
                "round": round_no,
                "seed": seed,
                "players": list(table.names),
                **table.dumped_setup(),
                "levels": list(state.levels),
                "banker": state.banker,
                "tie_after": state.previous_banker,
                "event_schema": EVENT_SCHEMA_VERSION,
            }
            if gift_changes:
                header["gift_changes"] = [dict(change) for change in gift_changes]
            table.recorder.round_started(header)
        started: dict[str, Any] = {
            "players": list(table.names),
            "levels": list(state.levels),
            "level": rnd.level,
            "banker": state.banker,
            "cards": [len(rnd.revealed(seat)) for seat in range(rnd.players)],
        }
        if gift_changes:
            started["reshuffled"] = any(c["effect"] == "RESHUFFLE" for c in gift_changes)
        bound = structlog.contextvars.bound_contextvars(table=table.table_id, round=round_no)
        with bound:
            await table.emit("round_started", data=started)
            for seat in range(len(table.seats)):
                await table.notify(seat, self.views.deal(rnd, seat))
            while rnd.phase is _DECLARING:
                await self._declaration_window(rnd)
            while rnd.phase is _BURYING:
                await self._bury_turn(rnd)
            while rnd.phase is _PLAYING:
                if table.safe_points:
                    await self._at_safe_point(rnd)
                await self._play_turn(rnd)
            record = await self._finish(rnd, round_no, seed, gift_changes)
        return record

    async def prepare_round(self, plan: NextRound, *, reseed: Callable[[str], int]) -> None:
        """Between two rounds: each between-rounds hook (a gift's 重新洗牌) may change the
        next round's ``plan`` through a handle valid for this break only."""
        handle = BetweenRoundsHandle(
            plan,
            reseed=reseed,
            seats=len(self.table.seats),
            last={"banker": self.match.banker, "levels": list(self.match.levels)},
        )
        try:
            for hook in self.table.between_rounds:
                await hook(handle)
        finally:
            handle.close()

    async def _at_safe_point(self, rnd: Round) -> None:
        """Between two plays: each safe point gets a handle for this moment only, and
        whatever effects they applied are announced now, before the next play."""
        from arena.games.tractor.gifts import TractorSafePoint

        point = TractorSafePoint(rnd)
        handle = SafePointHandle(point, self.table.audience)
        try:
            for hook in self.table.safe_points:
                await hook(handle)
        finally:
            handle.close()
        for effect in point.applied:
            self.table.record_effect(
                {"effect": effect.kind, "seats": list(effect.seats), "cards": ids(effect.cards)}
            )
            await self.table.emit(
                "effect_applied",
                data={
                    "effect": effect.kind,
                    "seats": list(effect.seats),
                    "cards_moved": len(effect.cards),
                },
            )

    # --- declaring ------------------------------------------------------------------

    async def _declaration_window(self, rnd: Round) -> None:
        """One window: every seat asked at once, each reply judged on its own, then the
        engine takes them all together."""
        table = self.table
        window_s = table.settings.declaration_window_s or table.settings.decision_timeout_s
        chosen: dict[int, tuple[int, ...] | None] = {}
        questions = []
        for seat in range(len(table.seats)):
            request = self.views.declare_request(
                rnd,
                seat,
                time_limit_ms=int(window_s * 1000),
                request_id=table.next_request_id(),
            )
            questions.append(
                Question(seat, request, DeclareResponse, "declare", _declaring(rnd, seat, chosen))
            )
        window = rnd.declaring.windows + 1
        responses = await table.ask_together(questions, window_s=window_s)
        events = rnd.declare({seat: cards for seat, cards in chosen.items() if cards})
        for seat, response in enumerate(responses):
            cards = chosen.get(seat) if response is not None else None
            data: dict[str, Any] = {
                "window": window,
                "cards": ids(cards) if cards else [],
                "declared": bool(cards),
                "fallback": response is None,
            }
            await table.action_event("declare", seat, response, data)
        await self._announce(rnd, events)

    # --- burying --------------------------------------------------------------------

    async def _bury_turn(self, rnd: Round) -> None:
        table = self.table
        banker = rnd.banker
        assert banker is not None
        request = self.views.bury_request(
            rnd, time_limit_ms=table.time_limit_ms(banker), request_id=table.next_request_id()
        )

        def apply(response: BuryResponse) -> None:
            rnd.bury(rnd.resolve(banker, response.__dict__["cards"]))

        response = await table.decide(banker, request, BuryResponse, "bury", apply)
        if response is None:
            rnd.bury(rnd.fallback())
        data = {"count": len(rnd.buried), "fallback": response is None}
        await table.action_event("bury", banker, response, data)

    # --- playing --------------------------------------------------------------------

    async def _play_turn(self, rnd: Round) -> None:
        table = self.table
        seat = rnd.to_act
        assert seat is not None
        request = self.views.play_request(
            rnd, seat, time_limit_ms=table.time_limit_ms(seat), request_id=table.next_request_id()
        )
        if table.audience[seat]:  # a viewer's cheer, quoted once, in this request
            request = request.model_copy(update={"audience": list(table.audience[seat])})
            table.audience[seat].clear()
        made: list[Event] = []

        def apply(response: PlayResponse) -> None:
            cards = rnd.resolve(seat, response.__dict__["cards"])
            made.extend(rnd.play(seat, cards))

        response = await table.decide(seat, request, PlayResponse, "play", apply)
        if response is None:
            made.extend(rnd.play(seat, rnd.fallback()))
        await self._announce(rnd, made, response)

    async def _announce(self, rnd: Round, events: Sequence[Event], response: object = None) -> None:
        """Events and notifications for what the engine did."""
        table, views = self.table, self.views
        punished: ThrowPunished | None = None
        data: dict[str, Any]
        for event in events:
            kind = type(event)
            if kind is Played:
                assert isinstance(event, Played)
                await self._played(rnd, event, punished, response)
            elif kind is TrickWon:
                assert isinstance(event, TrickWon)
                data = {
                    "trick": event.trick,
                    "points": event.points,
                    "counted": event.counted,
                    "defender_points": rnd.trick_points,
                }
                await table.emit("trick_won", event.seat, data)
                message = views.trick_won(event, rnd.trick_points)
                await self._tell_all(message)
            elif kind is ThrowPunished:
                assert isinstance(event, ThrowPunished)
                punished = event
                data = {
                    "original": ids(event.original),
                    "punished": ids(event.punished),
                    "reason": event.reason,
                }
                await table.emit("throw_punished", event.seat, data)
                await self._tell_all(
                    views.throw_punished(event.seat, event.original, event.punished, event.reason)
                )
            elif kind is TrumpCandidate:
                assert isinstance(event, TrumpCandidate)
                best = event.declaration
                data = {
                    "window": event.window,
                    "cards": ids(best.cards),
                    "strength": STRENGTH_NAMES[best.strength],
                    "suit": suit_letter(best.suit),
                }
                await table.emit("trump_candidate", best.seat, data)
                await self._tell_all(views.trump_candidate(best, event.window))
            elif kind is StepRevealed:
                assert isinstance(event, StepRevealed)
                counts = [len(rnd.revealed(s)) for s in range(len(table.seats))]
                await table.emit("deal_step", data={"step": event.step, "cards": counts})
            elif kind is TrumpLocked:
                assert isinstance(event, TrumpLocked)
                data = {
                    "level": event.level,
                    "trump_suit": suit_letter(event.suit),
                    "declarer": event.declarer,
                    "banker": event.banker,
                    "kitty_count": len(rnd.kitty),
                }
                await table.emit("trump_locked", event.banker, data)
                await self._tell_all(views.trump_locked(event, len(rnd.kitty)))
            elif kind is KittyTaken:
                assert isinstance(event, KittyTaken)
                await table.emit("kitty_taken", event.banker, {"count": event.count})
            elif kind is Buried or kind is RoundEnded:
                pass  # the bury turn and the round's end announce these

    async def _played(
        self, rnd: Round, event: Played, punished: ThrowPunished | None, response: object
    ) -> None:
        play = event.play
        self.views.record_play(event.seat, play.cards)
        data: dict[str, Any] = {
            "cards": ids(play.cards),
            "kind": play.kind.value,
            "suit_group": None if play.group < 0 else group_letter(play.group),
            "leading": event.leading,
            "cards_left": len(rnd.hands[event.seat]),
            "fallback": response is None,
        }
        if punished is not None:
            data["punished"] = True
        await self.table.action_event("play", event.seat, response, data)

    async def _tell_all(self, message: Any) -> None:
        for seat in range(len(self.table.seats)):
            await self.table.notify(seat, message)

    # --- the end --------------------------------------------------------------------

    async def _finish(
        self, rnd: Round, round_no: int, seed: int, gift_changes: Sequence[Mapping[str, Any]]
    ) -> RoundRecord:
        table, state = self.table, self.match
        score = rnd.result
        assert score is not None
        state.record(rnd)
        over, winner = state.over, state.winner
        result = TractorResult(
            score=score,
            players=rnd.players,
            kitty=rnd.buried,
            match_over=over,
            winner_team=winner,
        )
        names, seats = table.names, table.seats
        deltas = result.scores
        for seat in range(len(seats)):
            table.totals[seat] += deltas[seat]
        gifts = _gift_marks(gift_changes, rnd)
        record = RoundRecord(
            table=table.table_id,
            round_no=round_no,
            seed=seed,
            players=names,
            result=result,
            faults=tuple(seat.round_faults.to_dict() for seat in seats),
            standins=tuple(i for i, s in enumerate(seats) if s.standin is not None),
            stats=tuple(seat.stats_dict() for seat in seats),
            gifts=gifts,
        )
        message = self.views.round_result(score, rnd.buried, deltas, table.totals, game_over=over)
        await table.tell_result(message)
        summary = record.to_dict()
        public = public_result(summary)
        public["totals"] = dict(zip(names, table.totals, strict=True))
        await table.emit("round_result", score.next_banker, public)
        if table.recorder is not None:
            table.recorder.round_ended(summary)
        if over:
            await table.emit(
                "game_over",
                data={
                    "winner_team": winner,
                    "levels": list(state.levels),
                    "rounds": len(state.scores),
                    "points": list(state.points),
                },
            )
            await self._tell_all(self.views.game_over(winner, state.levels, len(state.scores)))
        return record


def _gift_marks(changes: Sequence[Mapping[str, Any]], rnd: Round) -> tuple[str, ...]:
    """The result-changing gifts that touched a round, in order: those between rounds
    (its ``gift_changes``), then a ``SWAP`` for each swap its actions hold."""
    between = [str(change["effect"]) for change in changes]
    during = ["SWAP" for action in rnd.actions if isinstance(action, SwapAction)]
    return (*between, *during)


def _declaring(
    rnd: Round, seat: int, chosen: dict[int, tuple[int, ...] | None]
) -> Callable[[DeclareResponse], None]:
    """How a seat's reply in a window is taken: a pass, or a declaration the engine
    accepts on its own (the window's replies are then applied together)."""

    def apply(response: DeclareResponse) -> None:
        said = response.__dict__
        if said["action"] == "PASS":
            chosen[seat] = None
            return
        cards = rnd.resolve(seat, said["cards"])
        rnd.declaration(seat, cards)  # raises, with the reason, when it may not
        chosen[seat] = cards

    return apply
