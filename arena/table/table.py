"""The table: runs rounds end to end between a game's seats, whichever game it is.

The game's turns (:attr:`Table.turns`, made by its :class:`~arena.games.base.Game`) say
who is asked what, from the seat's own view (its hand, the public history, counts: never
another player's cards), and what a reply does. The table's decision runner
(:meth:`Table.decide` for one seat, :meth:`Table.ask_together` for several) asks the agent
under a deadline, has the game check the reply, and asks again or falls back when the
reply is late, malformed or illegal. Every fact the audience may see goes out as an
:class:`Event` to the sinks; every message in and out goes to the recorder (the replay).
Gifts get their chance at safe points: between two turns, never while an agent is
deciding.

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

from arena.agents.base import Agent, answerer, lists_legal_moves, plays
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
from arena.games.base import Game, GameRules, Turns
from arena.games.registry import DEFAULT_GAME, get_game
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
from arena.table.records import Recorder, RoundRecord
from arena.table.safe_point import (
    BetweenRounds,
    NextRound,
    SafePoint,
)
from arena.table.seats import SeatState
from arena.table.settings import TableSettings, seat_deadline
from arena.table.stats import DecisionTrace
from protocol import (
    Message,
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

_new_event = tuple.__new__

_wall_clock = time.time
"""Unix time for ``turn_started``'s ``deadline_at`` (an overlay's countdown): the wall
clock, unlike the table's own monotonic :class:`Clock`, which times the agents."""


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
    """One game's seats and rules, and the runner that asks each seat's agent; the game's
    turns (:attr:`turns`) say who is asked what."""

    def __init__(
        self,
        agents: Sequence[Agent],
        *,
        table_id: str = "t1",
        game: Game | None = None,
        rules: GameRules | None = None,
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
        game = game if game is not None else get_game(DEFAULT_GAME)
        self._game_name = game.name  # every event names it: one attribute read, not two
        try:
            rules = game.default_rules() if rules is None else game.parse_rules(rules)
        except TypeError as exc:
            raise ConfigError(f"a table of {game.title}: {exc}") from None
        count = game.seat_count(rules)
        if len(agents) != count:
            raise ConfigError(f"a table of {game.title} needs {count} agents, got {len(agents)}")
        names = [a.name for a in agents]
        if len(set(names)) != count:
            raise ConfigError(f"the {count} agents need distinct names, got {names}")
        for index, agent in enumerate(agents):
            if not plays(agent, game):
                why = cannot_play(type(agent).__name__, agent, game)
                raise ConfigError(f"seat {index} ({agent.name!r}): {why}")
        self.clock: Clock = clock or MonotonicClock()
        """Deadlines, stalls and pacing are measured on this clock (tests drive it)."""
        PAUSES.install()  # a collection's pause is never blamed on an agent (_held)
        self.table_id = table_id
        self.rules = rules
        self._settings = _with_stand_in(settings or TableSettings(), game)
        self.per_turn = _TurnSettings(self._settings)
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
        self.audience: list[list[str]] = [[] for _ in agents]
        """Audience lines (a viewer's 加油) waiting for each seat's next PLAY_REQUEST."""
        self._standin_seed = standin_seed
        per_seat = list(timeouts) if timeouts is not None else [None] * count
        self.seats = [
            SeatState(i, agent, agent.name, seat_deadline(per_seat[i], agent, self.settings))
            for i, agent in enumerate(agents)
        ]
        self.names: tuple[str, ...] = tuple(names)
        self.round_no = 0
        self._seq = 0
        self._made_meanwhile: list[Event] | None = None
        """While a task hands an event out to the sinks (a list, else None): the events
        other tasks made meanwhile (a sink awaited), which that task hands out after its
        own, so every sink gets them in ``seq`` order (gifts are told from their intake's
        task)."""
        self._request_seq = 0
        self._last_action_at = float("-inf")
        self._setup_dump: tuple[GameRules, TableSettings, dict[str, Any], dict[str, Any]] | None = (
            None
        )
        self.turns: Turns = game.turns(game, self, rules, [lists_legal_moves(a) for a in agents])
        """The game's turn logic: who is asked what, and what a reply does."""
        self.totals = [0] * count
        """Running scores of the seats in the current match."""
        self._held_results: list[Message] | None = None
        """ROUND_RESULTs recorded but not yet told the agents (:meth:`hold_results`)."""

    # --- public API ---------------------------------------------------------------------

    @property
    def game(self) -> Game:
        """The game this table plays (:mod:`arena.games`)."""
        return self.turns.game

    @property
    def settings(self) -> TableSettings:
        """How the table runs (frozen: assign another to change it)."""
        return self._settings

    @settings.setter
    def settings(self, settings: TableSettings) -> None:
        self._settings = settings = _with_stand_in(settings, self.game)
        self.per_turn = _TurnSettings(settings)

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
        self.turns.new_match(match_id, self.table_id)

    @property
    def match_id(self) -> str | None:
        """The current match, as every message names it (``start_match`` sets it)."""
        match_id: str | None = self.turns.context["match_id"]
        return match_id

    async def play_round(
        self,
        round_no: int,
        *,
        seed: int,
        gift_changes: Sequence[Mapping[str, Any]] = (),
        **plan: Any,
    ) -> RoundRecord:
        """Play one round to its end and return its record: the seats made ready (a
        stand-in for the round leaves, faults start again), then the game's turns.

        ``plan``: what the game lets a caller fix instead of drawing it from ``seed``
        (Dou Dizhu: ``deal``, ``first_bidder``, ``landlord``, ``call_score``).
        ``gift_changes``: what viewers' gifts changed of this round between rounds
        (:attr:`NextRound.changes`): kept in the replay's header and the round's record.
        """
        self.round_no = round_no
        self.sinks = guard_unwell(self.sinks)  # one that failed elsewhere: its recovery
        for waiting in self.audience:
            waiting.clear()  # a cheer is for the round it was sent in
        for seat in self.seats:
            if seat.standin is not None and seat.standin_until != "match_end":
                seat.give_back()
            seat.failed_in_row = 0
            seat.fold_round()
            seat.round_faults = Faults()
        record: RoundRecord = await self.turns.play_round(
            round_no, seed=seed, gift_changes=gift_changes, **plan
        )
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
        await self.turns.prepare_round(plan, reseed=reseed)

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

    # --- one turn -----------------------------------------------------------------------

    # --- asking an agent ----------------------------------------------------------------

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
                    self.decide(q.seat, q.request, q.expected, q.method, q.apply, until)
                    for q in questions
                )
            )
        )

    async def decide(
        self,
        seat: int,
        request: Message,
        expected: type[R],
        method: str,
        apply: Callable[[R], None],
        until: float | None = None,
        accepted: tuple[type[Message], ...] | None = None,
    ) -> R | None:
        """Ask until a reply applies cleanly; None when the table had to fall back.

        ``accepted``: the reply classes taken as they are, by exact class (the fast
        path: ``expected`` and any subclass the game's own agents return); any other
        goes the careful way, through ``as_reply``.

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
        attempts = self.per_turn.attempts
        now = self.clock.now
        recorder = self.recorder
        accepted = accepted or (expected,)
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
                call = answerer(agent, method)(request)
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
                        if elapsed > self.per_turn.stall_warning_s:
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
        if not timing.awaited and timing.longest_step > self.per_turn.stall_warning_s:
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
        threshold = self.per_turn.stall_warning_s
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
        timeout_s = min(state.timeout_s, self.per_turn.notify_timeout_s) if notify else None
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
            **self.turns.context,
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
        if self.settings.standin is None:  # a game without a stand-in: the table decides
            log.warning("seat_not_replaced", seat=seat, agent=state.name, reason=reason)
            return
        standin = create_agent(
            self.settings.standin,
            state.name,
            seed=self._standin_seed,
            rules=self.rules,
            game=self.game,
        )
        state.seat_standin(standin, until)
        log.warning("seat_replaced", seat=seat, agent=state.name, by=self.settings.standin)
        await self.emit(
            "seat_replaced", seat, {"by": self.settings.standin, "reason": reason, "until": until}
        )

    # --- events and records -------------------------------------------------------------

    async def tell_result(self, message: Message) -> None:
        """Tell every seat a round's result, or, while results are held
        (:meth:`hold_results`), record it in its place and tell it later."""
        held = self._held_results
        if held is None:
            for seat in range(len(self.seats)):
                await self.notify(seat, message)
            return
        for seat in range(len(self.seats)):
            self._record_message("to_agent", seat, message, None)
        held.append(message)

    def record_effect(self, line: dict[str, Any]) -> None:
        """Hand the replay a gift effect's hidden details (the cards it moved), which no
        event may carry."""
        if self._record_effect is not None:
            self._record_effect(line)

    async def notify(self, seat: int, message: Message) -> None:
        """Tell the seat's own agent something, even while a stand-in plays for it.

        Errors are logged, never raised, and a notification gets the seat's deadline:
        an agent that hangs while listening must not hold up the table.
        """
        self._record_message("to_agent", seat, message, None)
        state = self.seats[seat]
        await self._listen(state, state.agent, "notify", message)

    async def action_event(
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
        if self.per_turn.pace_s:
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

    def dumped_setup(self) -> dict[str, dict[str, Any]]:
        """The rules and settings as JSON-ready dicts for a round header: dumped once per
        table (both are frozen; dumping them cost as much as a dozen turns), copied for
        each round so that no recorder can change another round's."""
        cached = self._setup_dump
        if cached is None or cached[0] is not self.rules or cached[1] is not self.settings:
            rules, settings = (
                self.rules.model_dump(mode="json"),
                self.settings.model_dump(mode="json"),
            )
            if not settings["round_pause_s"]:  # a show's pause changes no play: at its
                del settings["round_pause_s"]  # default, headers stay as before it was
            if settings["declaration_window_s"] is None:  # only games that ask together
                del settings["declaration_window_s"]
            cached = self._setup_dump = (self.rules, self.settings, rules, settings)
        return {"rules": dict(cached[2]), "settings": dict(cached[3])}

    def time_limit_ms(self, seat: int) -> int:
        return int(self.seats[seat].timeout_s * 1000)

    def next_request_id(self) -> str:
        self._request_seq += 1
        return f"{self.table_id}-{self.round_no}-{self._request_seq}"

    def _seat_index(self, seat_or_name: int | str) -> int:
        if isinstance(seat_or_name, int):
            return seat_or_name
        return self.names.index(seat_or_name)


def _late(elapsed: float, timeout: float) -> str:
    return f"the reply came after {elapsed:.2f} s, past the {timeout:g} s deadline"


def _with_stand_in(settings: TableSettings, game: Game) -> TableSettings:
    """The settings with their stand-in named: the config's, else the game's own (what
    the replay header then records: Dou Dizhu's ``heuristic``, as before)."""
    if settings.standin is not None or game.stand_in is None:
        return settings
    return settings.model_copy(update={"standin": game.stand_in})
