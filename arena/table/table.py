"""The table: runs rounds end to end between three agents through the rules engine.

For each decision the table builds the seat's own view (its hand, the public history,
counts: never another player's cards), asks the agent under a deadline, checks the reply
with the engine, and asks again or falls back when the reply is late, malformed or
illegal. Every fact the audience may see goes out as an :class:`Event` to the sinks;
every message in and out goes to the recorder (the replay). Gifts get their chance at
safe points: between two turns, never while an agent is deciding.

Every decision is counted per seat (``arena.table.stats``: the round record and
:meth:`Table.stats`); an agent that reports its calls (a model seat's ``take_report``)
also gets a public ``decision`` event per decision and its reports filed with the
recorder. Agents' comments and strategy hints reach events only through the table's
moderator (``arena.table.moderation``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from types import CoroutineType
from typing import TYPE_CHECKING, Any, Generic

import structlog

from arena.agents.base import Agent, lists_legal_moves, plays
from arena.agents.inprocess import MoveReply, move_of
from arena.agents.lifecycle import close_agent, open_agent
from arena.agents.registry import cannot_play, create_agent
from arena.agents.reports import CallReport
from arena.errors import (
    AgentDownError,
    AgentReplyError,
    AgentUnavailableError,
    ConfigError,
    IllegalActionError,
    error_text,
    raise_start_failures,
)
from arena.events import Event, EventType
from arena.games.base import GameRules
from arena.games.ddz.engine import (
    DEFAULT_RULES,
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
from arena.games.ddz.game import GAME
from arena.gc_policy import PAUSES
from arena.logs import get_logger
from arena.masking import mask
from arena.sinks.health import guard_after_failure, guard_unwell
from arena.table.calls import (
    CallTiming,
    LogContext,
    R,
    as_reply,
    check_addressed,
    resume_call,
    run_call,
)
from arena.table.clock import Clock, MonotonicClock
from arena.table.faults import Faults
from arena.table.moderation import Moderator, default_moderator
from arena.table.records import Recorder, RoundRecord, public_result
from arena.table.safe_point import (
    BetweenRounds,
    BetweenRoundsHandle,
    NextRound,
    SafePoint,
    SafePointHandle,
)
from arena.table.seats import SeatState
from arena.table.settings import TableSettings, seat_deadline
from arena.table.stats import DecisionTrace
from arena.table.views import SeatViews
from protocol import (
    EVENT_SCHEMA_VERSION,
    BidResponse,
    DoubleResponse,
    Message,
    PlayResponse,
    RejectReason,
    ReplyRejected,
    cut_to_cap,
)
from protocol._trusted import trusted

if TYPE_CHECKING:  # arena.sinks imports this package's events: no import at run time
    from arena.sinks.base import Sink

__all__ = ["Question", "SafePoint", "Table"]

log = get_logger(__name__)

_NOT_STARTED: Any = object()

# Replies taken on the fast path by their exact class (isinstance on a pydantic model is a
# Python-level check); any other subclass goes the careful way, through as_reply.
_ACCEPTED: dict[type[Message], tuple[type[Message], ...]] = {
    BidResponse: (BidResponse,),
    DoubleResponse: (DoubleResponse,),
    PlayResponse: (PlayResponse, MoveReply),
}

_new_event = tuple.__new__

_wall_clock = time.time
"""Unix time for ``turn_started``'s ``deadline_at`` (an overlay's countdown): the wall
clock, unlike the table's own monotonic :class:`Clock`, which times the agents."""

_ANNOUNCED: frozenset[type] = frozenset({BidAction, DoubleAction, PlayAction})
"""Engine records a turn announces itself: nothing more to say about them after it."""

# Enum members tested every turn, as module constants: on Python 3.11 every ``Phase.X`` is
# a slow lookup through ``EnumType.__getattr__`` (hundreds of instructions, against a few).
_BIDDING, _PLAYING, _FINISHED = Phase.BIDDING, Phase.PLAYING, Phase.FINISHED
_PASS_TYPE = ComboType.PASS


@dataclass(frozen=True, slots=True)
class Question(Generic[R]):
    """One seat asked one thing: the request, the reply model expected, the in-process
    agent's method that answers it (the game's ``requests``), and how an accepted reply
    becomes an action (``apply`` raises IllegalActionError or AgentReplyError to refuse
    it: the seat is told why and asked again while retries and time remain)."""

    seat: int
    request: Message
    expected: type[R]
    method: str
    apply: Callable[[R], None]


class _TurnSettings:
    """What every turn reads of a table's settings, copied out of the pydantic model.

    A pydantic model defines ``__getattr__``, so each read of one of its fields is a slow
    generic lookup (about 400 instructions, against a few for a slot): about 200 reads a
    round. One object rather than four attributes of the table, because a table with more
    than 29 attributes loses CPython's fast attribute layout: every ``self.x`` then costs
    more (about 0.08 M instructions a round more, measured).
    """

    __slots__ = ("attempts", "auto_pass", "notify_timeout_s", "pace_s", "stall_warning_s")

    def __init__(self, settings: TableSettings) -> None:
        self.auto_pass = settings.auto_pass
        self.pace_s = settings.pace_s
        self.attempts = settings.max_retries + 1
        self.stall_warning_s = settings.stall_warning_s
        self.notify_timeout_s = settings.notify_timeout_s


class Table:
    """Three seats, one rules engine, and the loop that asks each agent in turn."""

    def __init__(
        self,
        agents: Sequence[Agent],
        *,
        table_id: str = "t1",
        rules: GameRules = DEFAULT_RULES,
        settings: TableSettings | None = None,
        sinks: Sequence[Sink] = (),
        recorder: Recorder | None = None,
        timeouts: Sequence[float | None] | None = None,
        safe_points: Sequence[SafePoint] = (),
        between_rounds: Sequence[BetweenRounds] = (),
        standin_seed: int | None = None,
        clock: Clock | None = None,
        moderator: Moderator | None = None,
    ) -> None:
        self.game = GAME
        """The game this table plays (:mod:`arena.games`)."""
        self._game_name = GAME.name  # every event names it: one attribute read, not two
        if not isinstance(rules, Rules):
            raise ConfigError(f"{type(rules).__name__} are not rules of {GAME.title}")
        count = GAME.seat_count(rules)
        if len(agents) != count:
            raise ConfigError(f"a table of {GAME.title} needs {count} agents, got {len(agents)}")
        names = [a.name for a in agents]
        if len(set(names)) != count:
            raise ConfigError(f"the {count} agents need distinct names, got {names}")
        for index, agent in enumerate(agents):
            if not plays(agent, GAME):
                why = cannot_play(type(agent).__name__, agent, GAME)
                raise ConfigError(f"seat {index} ({agent.name!r}): {why}")
        self.clock: Clock = clock or MonotonicClock()
        """Deadlines, stalls and pacing are measured on this clock (tests drive it)."""
        PAUSES.install()  # a collection's pause is never blamed on an agent (_held)
        self.table_id = table_id
        self.rules = rules
        self.settings = settings or TableSettings()  # the setter also keeps the turn's copies
        self.sinks = list(sinks)
        self.recorder = recorder
        self._record_decision: Callable[[int, dict[str, Any]], None] | None = getattr(
            recorder, "decision", None
        )
        """The recorder's optional ``decision`` method, looked up once."""
        self._record_effect: Callable[[dict[str, Any]], None] | None = getattr(
            recorder, "effect", None
        )
        """The recorder's optional ``effect`` method (the replay's), looked up once."""
        self.moderator = moderator if moderator is not None else default_moderator()
        """Every agent's comment and strategy hint pass it before an event carries them."""
        self._moderate_sync = self.moderator.synchronous
        self.safe_points = list(safe_points)
        self.between_rounds = list(between_rounds)
        self.match_end_hooks: list[Callable[[], Awaitable[None]]] = []
        """Called when a match's last round is over, before ``match_ended`` (the gifts
        still waiting expire, and say so, before the match's end)."""
        self._audience: list[list[str]] = [[] for _ in agents]
        """Audience lines (a viewer's 加油) waiting for each seat's next PLAY_REQUEST."""
        self._last_deal: tuple[int | None, int | None] = (None, None)
        """The last round's landlord and call score (a 角色互换 keeps the score)."""
        self._standin_seed = standin_seed
        per_seat = list(timeouts) if timeouts is not None else [None] * count
        self.seats = [
            SeatState(i, agent, agent.name, seat_deadline(per_seat[i], agent, self.settings))
            for i, agent in enumerate(agents)
        ]
        self.names: tuple[str, ...] = tuple(names)
        self.round: Round | None = None
        self.round_no = 0
        self._seq = 0
        self._made_meanwhile: list[Event] | None = None
        """While a task hands an event out to the sinks (a list, else None): the events
        other tasks made meanwhile (a sink awaited), which that task hands out after its
        own, so every sink gets them in ``seq`` order (gifts are told from their intake's
        task)."""
        self._request_seq = 0
        self._last_action_at = float("-inf")
        self._setup_dump: tuple[Rules, TableSettings, dict[str, Any], dict[str, Any]] | None = None
        self.views = SeatViews(self.names, listing=[lists_legal_moves(a) for a in agents])
        self.views.new_match(None, table_id)
        self.totals = [0] * count
        """Running scores of the seats in the current match."""
        self._held_results: list[Message] | None = None
        """ROUND_RESULTs recorded but not yet told the agents (:meth:`hold_results`)."""

    # --- public API ---------------------------------------------------------------------

    @property
    def settings(self) -> TableSettings:
        """How the table runs (frozen: assign another to change it)."""
        return self._settings

    @settings.setter
    def settings(self, settings: TableSettings) -> None:
        self._settings = settings
        self._per_turn = _TurnSettings(settings)

    def faults(self, seat_or_name: int | str) -> Faults:
        """A seat's faults in this match so far (``start_match`` starts them again)."""
        return self.seats[self._seat_index(seat_or_name)].faults

    def stats(self, seat_or_name: int | str) -> dict[str, Any]:
        """A seat's decision figures in this match so far (see ``arena.table.stats``)."""
        state = self.seats[self._seat_index(seat_or_name)]
        return state.totals().to_dict(state.standin_decisions(match=True))

    def start_match(self, match_id: str | None = None) -> None:
        """Begin a new match: running totals, faults and decision figures start again
        from zero, every seat's own agent plays again (a stand-in seated for the rest of
        the last match leaves), and every message from now on names ``match_id`` (with
        this table and the round)."""
        self.totals = [0] * len(self.seats)
        for state in self.seats:
            state.reset_match()
        self.views.new_match(match_id, self.table_id)

    @property
    def match_id(self) -> str | None:
        """The current match, as every message names it (``start_match`` sets it)."""
        match_id: str | None = self.views.context["match_id"]
        return match_id

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
        """Play one round to its settlement and return its record.

        ``gift_changes``: what viewers' gifts changed of this round between rounds
        (:attr:`NextRound.changes`): kept in the replay's header and the round's record.
        """
        self.round_no = round_no
        self.sinks = guard_unwell(self.sinks)  # one that failed elsewhere: its recovery
        for waiting in self._audience:
            waiting.clear()  # a cheer is for the round it was sent in
        for seat in self.seats:
            if seat.standin is not None and seat.standin_until != "match_end":
                seat.give_back()
            seat.failed_in_row = 0
            seat.fold_round()
            seat.round_faults = Faults()
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
        if self.recorder is not None:
            header: dict[str, Any] = {
                "game": self._game_name,
                "table": self.table_id,
                "round": round_no,
                "seed": seed,
                "players": list(self.names),
                **self._dumped_setup(),
                "first_bidder": first_bidder,
                "landlord": landlord,
                "call_score": call_score,
                "deal": deal.to_dict() if deal is not None else None,
                "event_schema": EVENT_SCHEMA_VERSION,  # how to read its events
            }
            if gift_changes:
                header["gift_changes"] = [dict(change) for change in gift_changes]
            self.recorder.round_started(header)
        started: dict[str, Any] = {"players": list(self.names)}
        if gift_changes:
            started["landlord"] = landlord
            started["reshuffled"] = any(c["effect"] == "RESHUFFLE" for c in gift_changes)
        bound = structlog.contextvars.bound_contextvars(table=self.table_id, round=round_no)
        with bound:
            await self.emit("round_started", data=started)
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
                if self.safe_points:  # no handle, no call on a table without gifts
                    handled = await self._at_safe_point(rnd, handled)
                await self._turn(rnd)
            await self._announce_new_history(rnd, handled)
            record = await self._finish(rnd, round_no, seed, gift_changes)
        return record

    def hold_results(self) -> None:
        """From now on keep each round's ROUND_RESULT (it shows every final hand) from
        the agents until :meth:`release_results`: a tournament's duplicate mode plays a
        deal at several tables, and none may learn of it before all have played it. The
        replay records it in its place, at the round's end."""
        if self._held_results is None:
            self._held_results = []

    async def release_results(self) -> None:
        """Tell every seat's own agent the ROUND_RESULTs held so far, in order."""
        held = self._held_results
        if not held:
            return
        self._held_results = []
        for message in held:
            for state in self.seats:
                await self._listen(state, state.agent, "notify", message)

    async def prepare_round(self, plan: NextRound, *, reseed: Callable[[str], int]) -> None:
        """Between two rounds: each between-rounds hook (a gift's 角色互换 or 重新洗牌) may
        change the next round's ``plan`` through a handle valid for this break only."""
        last_landlord, last_score = self._last_deal
        handle = BetweenRoundsHandle(
            plan, reseed=reseed, last_landlord=last_landlord, last_call_score=last_score
        )
        try:
            for hook in self.between_rounds:
                await hook(handle)
        finally:
            handle.close()

    async def open(self) -> None:
        """Start every agent that has something to start (an ``open`` method: a program,
        a connection), all at once, before the first round.

        Raises :class:`AgentStartError` naming each seat that could not start; the
        agents are then closed.
        """
        outcomes = await asyncio.gather(
            *(self._open(seat) for seat in self.seats), return_exceptions=True
        )
        failures = [o for o in outcomes if isinstance(o, BaseException)]
        if failures:
            await self.close()
            raise_start_failures(failures)

    async def _open(self, seat: SeatState) -> None:
        await open_agent(seat.agent, f"table {self.table_id} seat {seat.index} ({seat.name!r})")

    async def close(self) -> None:
        """Close every agent, all at once (errors are logged, not raised); sinks belong to
        the caller.

        Each close gets the seat's decision deadline or ``CLOSE_ALLOWANCE_S``, whichever
        is longer: a program asked to exit may take a moment, and one that will not is
        killed by its agent within that time.
        """
        await asyncio.gather(
            *(
                close_agent(seat.agent, seat.timeout_s, seat=seat.index, agent=seat.name)
                for seat in self.seats
            )
        )

    async def _at_safe_point(self, rnd: Round, handled: int) -> int:
        """Between two turns: each safe point gets a handle for this moment only, and
        whatever effects they applied are announced now, before the next turn starts."""
        handle = SafePointHandle(rnd, self._audience)
        try:
            for hook in self.safe_points:
                await hook(handle)
        finally:
            handle.close()
        return await self._announce_new_history(rnd, handled)

    # --- one turn -----------------------------------------------------------------------

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
            rnd, seat, time_limit_ms=self._time_limit_ms(seat), request_id=self._next_request_id()
        )

        def apply(response: BidResponse) -> None:
            rnd.bid(seat, response.bid)

        grabbing = request.mode == "grab" and rnd.auction.highest > 0
        response = await self._decide(seat, request, BidResponse, "bid", apply)
        if response is None:
            self._fallback_bid(rnd, seat)
        value = _last_bid_value(rnd, seat)
        self.views.record_bid(seat, value)
        data: dict[str, Any] = {"bid": value, "mode": request.mode, "fallback": response is None}
        if request.mode == "grab":
            data["grab"] = grabbing  # 抢地主 / 不抢, not 叫地主 / 不叫
        await self._action_event("bid", seat, response, data)

    async def _double_turn(self, rnd: Round, seat: int) -> None:
        request = self.views.double_request(
            rnd, seat, time_limit_ms=self._time_limit_ms(seat), request_id=self._next_request_id()
        )

        def apply(response: DoubleResponse) -> None:
            rnd.double(seat, response.double)

        response = await self._decide(seat, request, DoubleResponse, "double", apply)
        if response is None:
            rnd.double(seat, False)
        choice = response.double if isinstance(response, DoubleResponse) else False
        self.views.record_double(seat, choice)
        await self._action_event(
            "double",
            seat,
            response,
            {"double": choice, "kind": request.kind, "fallback": response is None},
        )

    async def _play_turn(self, rnd: Round, seat: int) -> None:
        if self._per_turn.auto_pass and rnd.must_pass():
            rnd.pass_turn(seat)
            await self._record_play(rnd, seat, None, auto=True)
            return
        request = self.views.play_request(
            rnd, seat, time_limit_ms=self._time_limit_ms(seat), request_id=self._next_request_id()
        )
        if self._audience[seat]:  # a viewer's cheer, quoted once, in this request
            request = request.model_copy(update={"audience": list(self._audience[seat])})
            self._audience[seat].clear()

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

        response = await self._decide(seat, request, PlayResponse, "play", apply)
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
            await self._action_event("pass", seat, response, data)
            return
        data = {
            "cards": cards,
            "hand_type": combo.type.value,
            "main_rank": combo.main_rank,
            "length": combo.length,
            "cards_left": len(rnd.hand(seat)),
            "fallback": response is None,
        }
        await self._action_event("play", seat, response, data)

    # --- asking an agent ----------------------------------------------------------------

    async def ask(self, question: Question[R]) -> R | None:
        """Ask one seat (its own deadline, the table's retries); the reply that applied,
        or None when the table fell back (the game then decides for the seat)."""
        return await self._decide(
            question.seat, question.request, question.expected, question.method, question.apply
        )

    async def ask_together(
        self, questions: Sequence[Question[Any]], *, window_s: float
    ) -> list[Any]:
        """Ask several seats at once within one window (Tractor's trump declaration):
        every seat gets the same ``window_s`` from now, however fast the others are, and
        each reply is judged on its own (its ``apply``); a seat whose window runs out,
        or whose replies were refused until it did, gets None (the game's fallback, a
        pass). One seat's fault never delays another's question. Replies are recorded
        in the order they were taken, which the replay keeps.
        """
        until = self.clock.now() + window_s
        return list(
            await asyncio.gather(
                *(
                    self._decide(q.seat, q.request, q.expected, q.method, q.apply, until)
                    for q in questions
                )
            )
        )

    async def _decide(
        self,
        seat: int,
        request: Message,
        expected: type[R],
        method: str,
        apply: Callable[[R], None],
        until: float | None = None,
    ) -> R | None:
        """Ask until a reply applies cleanly; None when the table had to fall back.

        ``until``: the end of a window on the table's clock (:meth:`ask_together`): each
        attempt gets what is left of it rather than the seat's deadline, and none starts
        once it has passed.

        An :class:`~arena.errors.AgentDownError` (a provider that failed to the deadline)
        ends the asking at once: another try would only wait out another deadline.

        The hot path of every table: a scripted bot's call finishes in its first step,
        which runs inline here, with no timer and no log context (see ``calls``), and its
        decision is counted with two additions. A seat whose own agent reports its calls
        (``take_report``) goes the way of :meth:`_attempt_done` after every attempt.
        """
        state = self.seats[seat]
        attempts = self._per_turn.attempts
        now = self.clock.now
        recorder = self.recorder
        accepted = _ACCEPTED.get(expected) or (expected,)
        agent = state.standin or state.agent
        tally = state.tally
        trace = None if state.reporting is None else DecisionTrace()
        # The messages' fields are read from their __dict__: each attribute read of a
        # pydantic model is a slow generic lookup (see _TurnSettings), its __dict__ one.
        asked = request.__dict__
        limit_ms = asked["time_limit_ms"]
        deadline_s = state.timeout_s
        await self.emit(
            "turn_started",
            seat,
            {
                "request": asked["type"],
                "agent": agent.name,
                "time_limit_ms": limit_ms,
                "deadline_at": int(_wall_clock() * 1000) + limit_ms,
            },
        )
        unavailable: str | None = None
        for attempt in range(attempts):  # the stand-in, if any, changes only after these
            category: RejectReason
            if until is not None:
                deadline_s = until - now()
                if deadline_s <= 0:  # the window closed: no attempt without time to answer
                    break
            if recorder is not None:
                recorder.message("to_agent", seat, request, None)
            started = now()
            try:
                call = getattr(agent, method)(request)
                if until is not None:
                    reply = await self._call(state, agent, call, timeout_s=deadline_s)
                    elapsed = now() - started
                elif state.waits or type(call) is not CoroutineType:
                    reply = await self._call(state, agent, call)
                    elapsed = now() - started
                else:
                    try:
                        pending = call.send(None)
                    except StopIteration as done:
                        reply = done.value
                        elapsed = now() - started
                        if elapsed > self._per_turn.stall_warning_s:
                            await self._stalled(state, agent, elapsed, started)
                    else:
                        reply = await self._call(state, agent, call, pending, started)
                        elapsed = now() - started
            except TimeoutError:
                category = "timeout"
                if until is None:
                    detail = f"no reply within {deadline_s:g} s"
                else:
                    detail = "no reply before the window closed"
                elapsed = now() - started
            except AgentReplyError as exc:
                category, detail = exc.category, exc.detail
                elapsed = now() - started
                if isinstance(exc, AgentDownError):  # asking again would fail the same way
                    attempts = attempt + 1  # so this attempt is the last
                    if isinstance(exc, AgentUnavailableError) and agent is state.agent:
                        unavailable = detail
            except Exception as exc:  # an agent's bug must not stop the table
                category, detail = "agent_error", f"{type(exc).__name__}: {exc}"
                elapsed = now() - started
                log.debug("agent_raised", seat=seat, agent=agent.name, exc_info=exc)
            else:
                response: R | None
                if type(reply) in accepted and elapsed <= deadline_s:
                    response = reply
                    if recorder is not None:
                        recorder.message("from_agent", seat, response, elapsed * 1000)
                    try:
                        answer = reply.__dict__
                        answered = answer["request_id"]
                        if answer["player_id"] != asked["player_id"] or (
                            answered is not None and answered != asked["request_id"]
                        ):
                            check_addressed(reply, request)
                        apply(reply)
                    except AgentReplyError as exc:
                        category, detail, response = exc.category, exc.detail, None
                    except IllegalActionError as exc:
                        category, detail, response = "illegal", str(exc), None
                else:
                    checked = self._unusual_reply(
                        seat, request, expected, reply, elapsed, apply, deadline_s
                    )
                    if isinstance(checked, tuple):
                        (category, detail), response = checked, None
                    else:
                        response = checked
                if response is not None:  # applied: the decision is made
                    state.failed_in_row = 0
                    if attempt:
                        tally.legal_after_retry += 1
                    else:
                        tally.legal_first_try += 1
                    tally.latency_s += elapsed
                    if trace is not None:
                        await self._attempt_done(state, request, attempt, trace, elapsed)
                    return response
            tally.latency_s += elapsed
            detail = mask(detail)  # an agent's own words may be in it: logged, recorded, sent
            retries_left = attempts - attempt - 1
            if trace is not None:
                self._take_report(state, request, attempt, trace, elapsed, category, detail)
            await self._fault(seat, category, detail, retries_left, request)
            if not retries_left:
                break
        tally.fell_back += 1
        if trace is not None:
            await self._emit_decision(state, trace, fell_back=True)
        await self._fell_back(seat, unavailable)
        return None

    async def _attempt_done(
        self,
        state: SeatState,
        request: Message,
        attempt: int,
        trace: DecisionTrace,
        elapsed: float,
    ) -> None:
        """A reporting seat's accepted reply: its report, then the ``decision`` event."""
        self._take_report(state, request, attempt, trace, elapsed, None, None)
        await self._emit_decision(state, trace, fell_back=False)

    def _take_report(
        self,
        state: SeatState,
        request: Message,
        attempt: int,
        trace: DecisionTrace,
        elapsed: float,
        category: RejectReason | None,
        detail: str | None,
    ) -> None:
        """After an attempt of a reporting seat: take the agent's report of its call,
        count its usage, and hand the whole report to the recorder (the replay)."""
        reporter = state.reporter
        assert reporter is not None
        try:
            report = reporter()
        except Exception as exc:  # a broken report must not stop the table
            log.warning(
                "agent_report_failed", seat=state.index, agent=state.name, error=error_text(exc)
            )
            report = None
        if report is not None and not isinstance(report, CallReport):
            log.warning(
                "agent_report_failed",
                seat=state.index,
                agent=state.name,
                error=f"take_report returned a {type(report).__name__}, not a CallReport",
            )
            report = None
        trace.add(elapsed, category, report)
        if report is None:
            return
        state.tally.add_report(report)
        record_decision = self._record_decision
        if record_decision is not None:
            record_decision(
                state.index,
                {
                    "request_id": request.__dict__["request_id"],
                    "attempt": attempt,
                    "outcome": "accepted" if category is None else category,
                    "detail": detail,
                    "report": report.to_dict(),
                },
            )

    async def _emit_decision(
        self, state: SeatState, trace: DecisionTrace, *, fell_back: bool
    ) -> None:
        """The ``decision`` event of a reporting seat, then any notice its reports gave
        (a spent budget), before the action's event."""
        await self.emit("decision", state.index, trace.event_data(fell_back=fell_back))
        for notice in trace.notices:
            await self.emit("budget_spent", state.index, notice)

    def _unusual_reply(
        self,
        seat: int,
        request: Message,
        expected: type[R],
        reply: object,
        elapsed: float,
        apply: Callable[[R], None],
        timeout: float,
    ) -> R | tuple[RejectReason, str]:
        """A late reply, or one that is not yet the message asked for (a dict, JSON text,
        None, another message): record it as it came, and use it only if it is on time
        and reads as that message, addressed to this request, and legal.
        """
        late = elapsed > timeout
        try:
            response = as_reply(reply, expected)
        except AgentReplyError as exc:
            self._record_message("from_agent", seat, reply, elapsed * 1000, late=late)
            return ("timeout", _late(elapsed, timeout)) if late else (exc.category, exc.detail)
        self._record_message("from_agent", seat, response, elapsed * 1000, late=late)
        if late:
            return "timeout", _late(elapsed, timeout)
        try:
            check_addressed(response, request)
            apply(response)
        except AgentReplyError as exc:
            return exc.category, exc.detail
        except IllegalActionError as exc:
            return "illegal", str(exc)
        return response

    async def _call(
        self,
        state: SeatState,
        agent: Agent,
        call: object,
        pending: object = _NOT_STARTED,
        started: float = 0.0,
        timeout_s: float | None = None,
    ) -> Any:
        """Run an agent call under the seat's deadline (or ``timeout_s``), or the rest of
        one whose first step the turn loop ran (``pending`` is what it awaited, from
        ``started``).

        Log context is bound once a call awaits, and before the call starts for an agent
        seen to await before: binding costs more than a scripted bot's whole decision.
        """
        timing = CallTiming()
        context = {"seat": state.index, "agent": agent.name}
        timeout, clock = state.timeout_s if timeout_s is None else timeout_s, self.clock
        try:
            if pending is not _NOT_STARTED:
                result = await resume_call(
                    call,
                    pending,
                    started,
                    timeout_s=timeout,
                    clock=clock,
                    timing=timing,
                    log_context=context,
                )
            elif state.waits:
                with LogContext(context):
                    result = await run_call(call, timeout_s=timeout, clock=clock, timing=timing)
            else:
                result = await run_call(
                    call, timeout_s=timeout, clock=clock, timing=timing, log_context=context
                )
        finally:
            if timing.awaited:
                state.waits = True
            self._held(state, agent, timing.longest_step, timing.longest_started)
        if not timing.awaited and timing.longest_step > self._per_turn.stall_warning_s:
            await asyncio.sleep(0)  # it blocked without yielding: see _stalled
        return result

    async def _stalled(
        self, state: SeatState, agent: Agent, seconds: float, started: float
    ) -> None:
        """An agent held the loop without ever awaiting: name it, then let the loop run.

        While it blocked nothing else could run, a Ctrl-C's cancellation included, which is
        delivered only where a task yields; without this yield a table of blocking agents
        would play on to the end of the match.
        """
        self._held(state, agent, seconds, started)
        await asyncio.sleep(0)

    def _held(self, state: SeatState, agent: Agent, seconds: float, started: float) -> None:
        """Name what held the event loop too long during an agent's step (from
        ``started``): the agent, which stalled every table here, or the garbage
        collector, whose pauses land in whatever step runs (``arena.gc_policy``)."""
        threshold = self._per_turn.stall_warning_s
        if seconds <= threshold:
            return
        # pauses are timed on PAUSES.now, comparable only on that clock (a test gives
        # its manual clock to both)
        same_clock = PAUSES.now == self.clock.now
        paused = PAUSES.within(started, started + seconds) if same_clock else 0.0
        if seconds - paused > threshold:
            log.warning(
                "agent_blocked_event_loop",
                seat=state.index,
                agent=agent.name,
                held_s=round(seconds, 3),
                threshold_s=self.settings.stall_warning_s,
                **({"gc_paused_ms": round(paused * 1000)} if paused else {}),
                hint="an agent must await, never block: it stalls every table here",
            )
            return
        paused_ms = round(paused * 1000)
        log.warning(
            "gc_paused_event_loop",
            seat=state.index,
            agent=agent.name,
            held_s=round(seconds, 3),
            gc_paused_ms=paused_ms,
            threshold_s=self.settings.stall_warning_s,
            hint=f"garbage collection paused the loop {paused_ms} ms, not the agent "
            "(docs/architecture.md: garbage collection)",
        )

    async def _listen(self, state: SeatState, agent: Agent, method: str, *args: Message) -> None:
        """A call nobody waits for an answer to (notify, close), never raising, since an
        agent that hangs or fails while listening must not hold up the table: a close
        gets the seat's deadline, a notification ``notify_timeout_s`` at most (it is only
        delivered: an agent that answers it late would otherwise stall the table for a
        whole deadline at each DEAL, ROUND_RESULT and MATCH_END).
        """
        notify = method == "notify"
        timeout_s = min(state.timeout_s, self._per_turn.notify_timeout_s) if notify else None
        try:
            await self._call(state, agent, getattr(agent, method)(*args), timeout_s=timeout_s)
        except TimeoutError:
            if notify:
                log.warning(
                    "agent_notify_timed_out",
                    seat=state.index,
                    agent=agent.name,
                    message=args[0].type,
                    waited_s=timeout_s,
                    hint="acknowledge a notification at once (an HTTP agent: 204 No Content)",
                )
            else:
                log.warning(f"agent_{method}_timed_out", seat=state.index, agent=agent.name)
        except Exception as exc:
            log.warning(
                f"agent_{method}_failed", seat=state.index, agent=agent.name, error=error_text(exc)
            )
            log.debug(f"agent_{method}_raised", seat=state.index, agent=agent.name, exc_info=exc)

    async def _fault(
        self,
        seat: int,
        category: RejectReason,
        detail: str,
        retries_left: int,
        request: Message,
    ) -> None:
        state = self.seats[seat]
        state.faults.add(category)
        state.round_faults.add(category)
        log.warning(
            "agent_reply_rejected",
            seat=seat,
            agent=state.active.name,
            category=category,
            detail=detail,
        )
        # The detail may name cards of the agent's hand: it goes to the agent and the
        # log, while the public event says only what kind of fault it was.
        await self.emit("fault", seat, {"category": category, "retries_left": retries_left})
        rejection = trusted(
            ReplyRejected,
            player_id=self.names[seat],
            request_type=request.type,
            request_id=request.__dict__["request_id"],
            reason=category,
            detail=detail[:500],
            retries_left=retries_left,
            **self.views.context,
        )
        self._record_message("to_agent", seat, rejection, None)
        await self._listen(state, state.active, "notify", rejection)

    async def _fell_back(self, seat: int, unavailable: str | None = None) -> None:
        """The table decided for the seat; a stand-in takes it after too many such
        decisions in a row (for the round or the match: ``standin_for``), or at once and
        to the end of the match when the agent said it is ``unavailable`` (why)."""
        state = self.seats[seat]
        state.faults.add("fallback")
        state.round_faults.add("fallback")
        state.failed_in_row += 1
        if unavailable is not None:
            reason, until = mask(unavailable)[:500], "match_end"
            log.error("agent_unavailable", seat=seat, agent=state.name, detail=reason)
        elif state.standin is None and state.failed_in_row >= self.settings.max_failed_decisions:
            reason = f"{state.failed_in_row} failed decisions in a row"
            until = "match_end" if self.settings.standin_for == "match" else "round_end"
        else:
            return
        standin = create_agent(
            self.settings.standin, state.name, seed=self._standin_seed, rules=self.rules
        )
        state.seat_standin(standin, until)
        log.warning("seat_replaced", seat=seat, agent=state.name, by=self.settings.standin)
        await self.emit(
            "seat_replaced", seat, {"by": self.settings.standin, "reason": reason, "until": until}
        )

    def _fallback_bid(self, rnd: Round, seat: int) -> None:
        legal = rnd.legal_bids()
        rnd.bid(seat, 0 if 0 in legal else min(legal))

    def _fallback_play(self, rnd: Round, seat: int) -> None:
        if not rnd.is_leading:
            rnd.pass_turn(seat)
            return
        smallest = min(rnd.legal_moves(), key=lambda m: (len(m.cards), m.main_rank))
        rnd.play(seat, smallest)

    # --- events and records -------------------------------------------------------------

    async def _announce_new_history(self, rnd: Round, handled: int) -> int:
        """Events and notifications for engine records that no turn announced itself."""
        if len(rnd.history) == handled:
            return handled
        for action in rnd.history[handled:]:
            if isinstance(action, Dealt):
                self.views.new_deal()
                if action.deal_number > 1:
                    await self.emit(
                        "redeal",
                        data={
                            "deal_number": action.deal_number,
                            "first_bidder": action.first_bidder,
                        },
                    )
                for seat in range(len(self.seats)):
                    deal = self.views.deal(seat, action.deal.hands[seat])
                    await self.notify(seat, deal)
            elif isinstance(action, LandlordChosen):
                landlord = action.seat
                bottom = [c.text for c in action.bottom]
                await self.emit(
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
                for seat in range(len(self.seats)):
                    await self.notify(seat, message)
            elif isinstance(action, TrickWon):
                await self.emit("trick_won", action.seat)
            elif isinstance(action, EffectApplied):
                await self._announce_effect(action)
        return len(rnd.history)

    async def _announce_effect(self, effect: EffectApplied) -> None:
        """A gift's effect: the cards it moved to the replay only, the seats and how
        many cards to everyone (the public event never names a card)."""
        seats = list(effect.seats)
        if self._record_effect is not None:
            self._record_effect(
                {"effect": effect.kind, "seats": seats, "cards": [c.text for c in effect.cards]}
            )
        await self.emit(
            "effect_applied",
            data={"effect": effect.kind, "seats": list(seats), "cards_moved": len(effect.cards)},
        )

    async def _finish(
        self, rnd: Round, round_no: int, seed: int, gift_changes: Sequence[Mapping[str, Any]]
    ) -> RoundRecord:
        result = rnd.result
        assert result is not None
        names, seats = self.names, self.seats
        self._last_deal = (result.landlord, result.call_score)
        gifts: tuple[str, ...] = ()
        if gift_changes or result.effects_applied:
            gifts = gift_effects(gift_changes, rnd.history)
        for seat in range(len(self.seats)):
            self.totals[seat] += result.scores[seat]
        record = RoundRecord(
            table=self.table_id,
            round_no=round_no,
            seed=seed,
            players=names,
            result=result,
            faults=tuple(seat.round_faults.to_dict() for seat in seats),
            standins=tuple(i for i, s in enumerate(self.seats) if s.standin is not None),
            stats=tuple(seat.stats_dict() for seat in seats),
            gifts=gifts,
        )
        message = self.views.round_result(result, self.totals)
        held = self._held_results
        if held is None:
            for seat in range(len(self.seats)):
                await self.notify(seat, message)
        else:  # recorded in its place, told later (release_results)
            for seat in range(len(self.seats)):
                self._record_message("to_agent", seat, message, None)
            held.append(message)
        summary = record.to_dict()
        public = public_result(summary)
        public["totals"] = dict(zip(names, self.totals, strict=True))  # late subscribers
        await self.emit("round_result", result.winner_seat, public)
        if self.recorder is not None:
            self.recorder.round_ended(summary)
        return record

    async def notify(self, seat: int, message: Message) -> None:
        """Tell the seat's own agent something, even while a stand-in plays for it.

        Errors are logged, never raised, and a notification gets the seat's deadline:
        an agent that hangs while listening must not hold up the table.
        """
        self._record_message("to_agent", seat, message, None)
        state = self.seats[seat]
        await self._listen(state, state.agent, "notify", message)

    async def _action_event(
        self, kind: EventType, seat: int, response: Any, data: dict[str, Any]
    ) -> None:
        if response is not None:
            said = response.__dict__  # one slow read of a pydantic model, not three
            if said["comment"]:
                data["comment"] = await self._moderated(seat, "comment", said["comment"])
            if said["emotion"]:
                data["emotion"] = said["emotion"].value
            if said["strategy_hint"]:
                data["hint"] = await self._moderated(seat, "strategy_hint", said["strategy_hint"])
        if self._per_turn.pace_s:
            await self._hold_previous_action()
        await self.emit(kind, seat, data)

    async def _moderated(self, seat: int, field: str, text: str) -> str:
        """``text`` as viewers may see it (a comment or a strategy hint); counted and
        logged (without the text) when the moderator changed it. Text over the
        protocol's cap (an in-process agent may build a reply unchecked) is cut first."""
        text = cut_to_cap(text)
        if self._moderate_sync:
            shown = self.moderator.filter(text)
        else:
            shown = await self.moderator.moderate(text, seat=seat, player=self.names[seat])
        if shown is not text and shown != text:
            self.seats[seat].stats.filtered += 1
            log.info("text_filtered", seat=seat, agent=self.names[seat], field=field)
        return shown

    async def _hold_previous_action(self) -> None:
        """Pacing: keep the previous action on screen for at least ``pace_s``."""
        pace = self.settings.pace_s
        if not pace:
            return
        wait = self._last_action_at + pace - self.clock.now()
        if wait > 0:
            await self.clock.sleep(wait)
        self._last_action_at = self.clock.now()

    async def emit(
        self, kind: EventType, seat: int | None = None, data: dict[str, Any] | None = None
    ) -> None:
        """Send a public event to the recorder and every sink, in ``seq`` order whichever
        task emits it. A sink that raises is counted under the sinks' health policy
        (:mod:`arena.sinks.health`) and gets the next events all the same, through a guard
        that counts its recovery."""
        self._seq += 1
        event = _new_event(  # Event(...) without its Python-level __new__: ~120 a round
            Event,
            (
                kind,
                self.table_id,
                self.round_no,
                self._seq,
                seat,
                None if seat is None else self.names[seat],
                {} if data is None else data,
                self._game_name,
            ),
        )
        if self.recorder is not None:
            self.recorder.event(event)
        meanwhile = self._made_meanwhile
        if meanwhile is not None:
            meanwhile.append(event)  # the task handing out an earlier one hands it out next
            return
        self._made_meanwhile = meanwhile = []
        try:
            while True:
                for sink in self.sinks:
                    try:
                        await sink.emit(event)
                    except Exception as exc:
                        self.sinks = guard_after_failure(self.sinks, sink, exc)
                if not meanwhile:
                    break
                event = meanwhile.pop(0)
        finally:
            self._made_meanwhile = None  # cancelled mid-way, the rest is the recorder's only

    def _record_message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        if self.recorder is not None:
            if late:
                self.recorder.message(direction, seat, message, elapsed_ms, late=True)
            else:
                self.recorder.message(direction, seat, message, elapsed_ms)

    def _dumped_setup(self) -> dict[str, dict[str, Any]]:
        """The rules and settings as JSON-ready dicts for a round header: dumped once per
        table (both are frozen; dumping them cost as much as a dozen turns), copied for
        each round so that no recorder can change another round's."""
        cached = self._setup_dump
        if cached is None or cached[0] is not self.rules or cached[1] is not self.settings:
            rules, settings = (
                self.rules.model_dump(mode="json"),
                self.settings.model_dump(mode="json"),
            )
            cached = self._setup_dump = (self.rules, self.settings, rules, settings)
        return {"rules": dict(cached[2]), "settings": dict(cached[3])}

    def _time_limit_ms(self, seat: int) -> int:
        return int(self.seats[seat].timeout_s * 1000)

    def _next_request_id(self) -> str:
        self._request_seq += 1
        return f"{self.table_id}-{self.round_no}-{self._request_seq}"

    def _seat_index(self, seat_or_name: int | str) -> int:
        if isinstance(seat_or_name, int):
            return seat_or_name
        return self.names.index(seat_or_name)


_GIFT_OF_EFFECT = {"swap": "SWAP", "transfer": "ADD", "double": "DOUBLE"}


def gift_effects(
    changes: Sequence[Mapping[str, Any]], history: Sequence[object]
) -> tuple[str, ...]:
    """The result-changing gifts that touched a round, in order: those between rounds
    (its ``gift_changes``), then each effect its history applied."""
    between = [str(change["effect"]) for change in changes]
    during = [_GIFT_OF_EFFECT[a.kind] for a in history if isinstance(a, EffectApplied)]
    return (*between, *during)


def _late(elapsed: float, timeout: float) -> str:
    return f"the reply came after {elapsed:.2f} s, past the {timeout:g} s deadline"


def _last_bid_value(rnd: Round, seat: int) -> int:
    for action in reversed(rnd.history):
        if isinstance(action, BidAction) and action.seat == seat:
            return action.value
    raise AssertionError("no bid recorded")
