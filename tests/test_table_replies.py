"""Whatever an agent returns, raises or however long it blocks, the table goes on.

Specification: issue 7, "Faults a user hits" and "Replies are not matched to requests":
a reply is the message its request asked for, addressed to that request and that player
(a reply without a ``request_id`` is still accepted); anything else is refused as
``empty`` or ``unparsable``, with a detail naming what is wrong. A reply that arrives
after its deadline is late however it got there (an agent that blocks the event loop
included): recorded as late, never applied. An agent that holds the event loop longer
than ``stall_warning_s`` is named in a warning. Time is a :class:`ManualClock`, so no
test depends on milliseconds of wall clock.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import logging
import time
from pathlib import Path
from typing import Any

import pytest
import structlog
from agents_for_tests import FakeAgent, make_deal

from arena.games.ddz.agents.reading import legal_for, play_reply
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent
from arena.games.ddz.engine import Rules
from arena.games.ddz.messages import BidResponse, PlayRequest, PlayResponse, RoundResult
from arena.gc_policy import PAUSES
from arena.logs import EVENT_ATTRIBUTE, get_logger
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.sinks.base import CollectingSink
from arena.table import Table, TableSettings, play_match
from arena.table.clock import ManualClock
from protocol import Message, to_json

CASUAL = Rules(scoring="casual")
DEAL = make_deal(seat0="♠3 ♠K ♥K 大王", seat1="♥3 ♠A 小王", seat2="♦3")


class Returning:
    """Answers its first play requests with the given objects, then plays like greedy."""

    def __init__(self, name: str, *replies: Any) -> None:
        self.name = name
        self._replies = list(replies)
        self._inner = GreedyAgent(name)
        self.heard: list[Message] = []

    async def notify(self, message: Message) -> None:
        self.heard.append(message)

    async def bid(self, request: Any) -> Any:
        return await self._inner.bid(request)

    async def double(self, request: Any) -> Any:
        return await self._inner.double(request)

    async def play(self, request: PlayRequest) -> Any:
        if self._replies:
            reply = self._replies.pop(0)
            if not callable(reply):
                return reply
            answer = reply(request)
            return await answer if inspect.isawaitable(answer) else answer
        return await self._inner.play(request)

    async def close(self) -> None:
        pass

    @property
    def rejections(self) -> list[Any]:
        return [m for m in self.heard if m.type == "REPLY_REJECTED"]


class MessageLog:
    """A recorder that keeps each message line as the replay would get it."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, int, object, bool]] = []

    def round_started(self, header: dict[str, Any]) -> None:
        pass

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        self.lines.append((direction, seat, message, late))

    def event(self, event: Any) -> None:
        pass

    def round_ended(self, summary: dict[str, Any]) -> None:
        pass


def table_of(first: Any, **settings: Any) -> tuple[Table, CollectingSink, MessageLog, ManualClock]:
    sink, recorder, clock = CollectingSink(), MessageLog(), ManualClock()
    timeout = settings.pop("timeout", None)
    table = Table(
        [first, FakeAgent("B"), FakeAgent("C")],
        rules=CASUAL,
        settings=TableSettings(**settings),
        sinks=[sink],
        recorder=recorder,
        timeouts=[timeout, None, None],
        clock=clock,
    )
    return table, sink, recorder, clock


async def lead_round(table: Table) -> Any:
    return await table.play_round(1, seed=1, deal=DEAL, landlord=0, call_score=1)


def lowest_single(request: PlayRequest) -> PlayResponse:
    moves = legal_for(request, CASUAL)
    return play_reply(request, min(moves, key=lambda m: (len(m.cards), m.main_rank)))


def as_dict(request: PlayRequest) -> dict[str, Any]:
    return lowest_single(request).model_dump(mode="json")


# ─── what an agent returns ──────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("reply", "category", "words"),
    [
        (None, "empty", "got nothing (None)"),
        ("", "empty", "got an empty reply"),
        ({}, "empty", "got an empty object {}"),
        (42, "unparsable", "got a Python int"),
        (["♠3"], "unparsable", "got a Python list"),
        ("not json", "unparsable", "JSON"),
        ({"type": "PLAY_RESPONSE"}, "unparsable", "player_id"),
        (
            {"type": "BID_RESPONSE", "player_id": "A", "bid": 0},
            "unparsable",
            "expected a PLAY_RESPONSE, got type 'BID_RESPONSE'",
        ),
        ('{"type": "PLAY", "cards": ["3"]}', "unparsable", "got type 'PLAY'"),
        ('["♠3"]', "unparsable", "got a JSON list"),
        (BidResponse(player_id="A", bid=0), "unparsable", "got a BID_RESPONSE"),
        ("[" * 5000 + "]" * 5000, "unparsable", "nested too deeply"),
        ('{"a":' * 5000 + "1" + "}" * 5000, "unparsable", "nested too deeply"),
    ],
    ids=[
        "none",
        "empty-str",
        "empty-dict",
        "int",
        "list",
        "text",
        "dict-missing",
        "dict-wrong-kind",
        "json-wrong-kind",
        "json-list",
        "wrong-message",
        "nested-lists",
        "nested-objects",
    ],
)
async def test_an_unusable_return_value_is_refused_and_asked_again(
    reply: Any, category: str, words: str
) -> None:
    agent = Returning("A", reply)
    table, sink, recorder, _ = table_of(agent)
    record = await lead_round(table)

    assert record.result is not None
    faults = table.faults("A")
    assert getattr(faults, category) == 1
    assert faults.total == 1  # the second try was used
    [rejection] = agent.rejections
    assert rejection.reason == category
    assert words in rejection.detail
    # The unusable reply is in the record as it came, and never applied.
    replies = [m for d, s, m, _ in recorder.lines if d == "from_agent" and s == 0]
    assert replies[0] == reply or not isinstance(replies[0], Message)
    assert sink.of_type("play")[0].data["fallback"] is False


@pytest.mark.parametrize("depth", [100, 500, 800, 900, 950, 980, 990, 1000, 1100])
async def test_a_deeply_nested_field_is_refused_at_any_depth(depth: int) -> None:
    # Around the interpreter's recursion limit, parsing may succeed and later work on
    # the reply fail: at every depth the reply is refused and the round goes on.
    nested = "[" * depth + "]" * depth
    agent = Returning("A", '{"type": "PLAY_RESPONSE", "player_id": "A", "cards": ' + nested + "}")
    table, sink, _, _ = table_of(agent)
    record = await lead_round(table)

    assert record.result is not None
    assert table.faults("A").unparsable == 1
    [rejection] = agent.rejections
    assert rejection.reason == "unparsable"
    assert sink.of_type("play")[0].data["fallback"] is False


@pytest.mark.parametrize(
    "shape", [as_dict, lambda r: to_json(lowest_single(r))], ids=["dict", "json"]
)
async def test_a_reply_given_as_a_dict_or_json_text_is_read_as_the_message(shape: Any) -> None:
    agent = Returning("A", shape)
    table, sink, recorder, _ = table_of(agent)
    await lead_round(table)

    assert table.faults("A").total == 0
    assert sink.of_type("play")[0].data["cards"] == ["♠3"]
    first_reply = next(m for d, s, m, _ in recorder.lines if d == "from_agent" and s == 0)
    assert isinstance(first_reply, PlayResponse)  # recorded as the message it was read as


# ─── replies matched to requests ────────────────────────────────────────────────────────


async def test_a_reply_naming_another_request_is_refused() -> None:
    stale = Returning("A", lambda r: lowest_single(r).model_copy(update={"request_id": "t1-1-0"}))
    table, _sink, _, _ = table_of(stale)
    await lead_round(table)

    [rejection] = stale.rejections
    assert rejection.reason == "unparsable"
    assert "'t1-1-0'" in rejection.detail
    assert repr(rejection.request_id) in rejection.detail
    assert table.faults("A").unparsable == 1


async def test_a_reply_naming_another_player_is_refused() -> None:
    impostor = Returning("A", lambda r: lowest_single(r).model_copy(update={"player_id": "B"}))
    table, _, _, _ = table_of(impostor)
    await lead_round(table)

    [rejection] = impostor.rejections
    assert rejection.reason == "unparsable"
    assert "player_id 'B'" in rejection.detail
    assert "'A'" in rejection.detail


async def test_a_reply_without_request_id_is_accepted() -> None:
    plain = Returning("A", lambda r: lowest_single(r).model_copy(update={"request_id": None}))
    table, sink, _, _ = table_of(plain)
    await lead_round(table)

    assert plain.rejections == []
    assert sink.of_type("play")[0].data["cards"] == ["♠3"]


# ─── deadlines against agents that block ────────────────────────────────────────────────


async def test_a_reply_after_the_deadline_is_late_even_from_an_agent_that_blocks() -> None:
    clock = ManualClock()

    def blocks(request: PlayRequest) -> PlayResponse:
        clock.advance(1.5)  # as if it called time.sleep(1.5): no timer can fire meanwhile
        return play_reply(request, max(legal_for(request, CASUAL), key=lambda m: m.main_rank))

    agent = Returning("A", blocks)
    table, sink, recorder, _ = table_of(agent, timeout=1.0)
    table.clock = clock
    await lead_round(table)

    [rejection] = agent.rejections
    assert rejection.reason == "timeout"
    assert "1.50 s" in rejection.detail
    assert "1 s deadline" in rejection.detail
    late = [(m, is_late) for d, s, m, is_late in recorder.lines if d == "from_agent" and s == 0]
    assert late[0][1] is True
    assert isinstance(late[0][0], PlayResponse)
    assert late[1][1] is False
    # The late reply (大王, its highest card) was never applied: the first play is the
    # retry's (greedy's lowest lead).
    late_reply = late[0][0]
    assert isinstance(late_reply, PlayResponse)
    assert late_reply.cards == ["大王"]
    first_play = sink.of_type("play")[0]
    assert (first_play.seat, first_play.data["cards"]) == (0, ["♠3", "♣3"])
    assert table.faults("A").timeout == 1


async def test_real_time_sleep_past_the_deadline_is_late() -> None:
    """The issue's own case, on the real clock: sleeping is a lower bound, never flaky."""

    def sleeps(request: PlayRequest) -> PlayResponse:
        time.sleep(0.3)
        return lowest_single(request)

    agent = Returning("A", sleeps)
    table = Table(
        [agent, FakeAgent("B"), FakeAgent("C")],
        rules=CASUAL,
        timeouts=[0.2, None, None],
    )
    await lead_round(table)
    assert [r.reason for r in agent.rejections] == ["timeout"]


async def test_an_agent_that_awaits_past_its_deadline_times_out() -> None:
    async def waits(request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(10)
        return lowest_single(request)

    agent = Returning("A", waits)
    table, _, _recorder, _ = table_of(agent, timeout=0.2)
    await lead_round(table)
    [rejection] = agent.rejections
    assert rejection.reason == "timeout"
    assert "no reply within 0.2 s" in rejection.detail


def blocked_warnings(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    events = [getattr(r, EVENT_ATTRIBUTE, {}) for r in caplog.records]
    return [e for e in events if e.get("event") == "agent_blocked_event_loop"]


@pytest.mark.parametrize(("held", "warned"), [(0.6, True), (0.4, False)])
async def test_an_agent_that_holds_the_event_loop_is_named(
    held: float, warned: bool, caplog: pytest.LogCaptureFixture
) -> None:
    clock = ManualClock()

    async def blocks_then_waits(request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(0)
        clock.advance(held)  # blocking after an await counts as much as before one
        return lowest_single(request)

    agent = Returning("A", blocks_then_waits)
    table, _, _, _ = table_of(agent)
    table.clock = clock
    caplog.set_level(logging.WARNING)
    await lead_round(table)

    warnings = blocked_warnings(caplog)
    assert bool(warnings) is warned
    if warned:
        assert (warnings[0]["agent"], warnings[0]["seat"]) == ("A", 0)
        assert warnings[0]["held_s"] == pytest.approx(held)
    assert agent.rejections == []  # within its 30 s deadline: the reply counts


async def test_what_an_agent_that_awaits_logs_names_its_seat_and_nothing_stays_bound(
    caplog: pytest.LogCaptureFixture,
) -> None:
    agent_log = get_logger("tests.agent")

    async def logs(request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(0)
        agent_log.warning("agent_said")
        return lowest_single(request)

    # the first call binds once it awaits, the second before it starts (seen to await)
    table, _, _, _ = table_of(Returning("A", logs, logs))
    caplog.set_level(logging.WARNING)
    with structlog.contextvars.bound_contextvars(agent="outer"):
        await lead_round(table)
        assert structlog.contextvars.get_contextvars() == {"agent": "outer"}
    events = [getattr(r, EVENT_ATTRIBUTE, {}) for r in caplog.records]
    said = [(e["seat"], e["agent"]) for e in events if e.get("event") == "agent_said"]
    assert said == [(0, "A"), (0, "A")]


class SlowCollections:
    """Every garbage collection takes ``seconds`` of a manual clock, the collector's
    pauses being timed on that clock too: as a full collection of a heap of thousands of
    tables takes a second. Only the agents' own ``gc.collect()`` runs meanwhile (the
    automatic collections are off), so the clock moves where the test says."""

    def __init__(self, clock: ManualClock, seconds: float) -> None:
        self.clock = clock
        self.seconds = seconds

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.clock.advance(self.seconds)

    def __enter__(self) -> SlowCollections:
        PAUSES.install()  # first: it times the collection this callback makes slow
        self._now, PAUSES.now = PAUSES.now, self.clock.now
        self._recent = list(PAUSES.recent)  # pauses on the real clock, put back after
        PAUSES.recent.clear()
        self._enabled = gc.isenabled()
        gc.disable()
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_: object) -> None:
        gc.callbacks.remove(self)
        if self._enabled:
            gc.enable()
        PAUSES.now = self._now
        PAUSES.recent.clear()
        PAUSES.recent.extend(self._recent)


def gc_pause_warnings(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    events = [getattr(r, EVENT_ATTRIBUTE, {}) for r in caplog.records]
    return [e for e in events if e.get("event") == "gc_paused_event_loop"]


@pytest.mark.parametrize("awaits", [True, False], ids=["awaiting agent", "scripted agent"])
async def test_a_garbage_collection_in_an_agents_step_is_named_not_the_agent(
    awaits: bool, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue 25: at 10,000 tables, agents that only await were blamed for collections."""

    async def collected_while_answering(request: PlayRequest) -> PlayResponse:
        if awaits:
            await asyncio.sleep(0)
        gc.collect()  # as an allocation of the agent's sets one off
        return lowest_single(request)

    table, _, _, clock = table_of(Returning("A", collected_while_answering))
    caplog.set_level(logging.WARNING)
    with SlowCollections(clock, 0.6):
        await lead_round(table)

    assert blocked_warnings(caplog) == []
    [paused] = gc_pause_warnings(caplog)
    assert (paused["seat"], paused["agent"], paused["gc_paused_ms"]) == (0, "A", 600)
    assert "garbage collection paused the loop 600 ms" in paused["hint"]


async def test_an_agent_that_blocks_is_named_even_when_a_collection_ran_too(
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def blocks_and_collects(request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(0)
        gc.collect()
        clock.advance(0.6)  # and blocks on its own: more than the threshold
        return lowest_single(request)

    table, _, _, clock = table_of(Returning("A", blocks_and_collects))
    caplog.set_level(logging.WARNING)
    with SlowCollections(clock, 0.3):
        await lead_round(table)

    [blocked] = blocked_warnings(caplog)
    assert blocked["held_s"] == pytest.approx(0.9)
    assert blocked["gc_paused_ms"] == 300
    assert gc_pause_warnings(caplog) == []


async def test_the_stall_threshold_is_a_setting(caplog: pytest.LogCaptureFixture) -> None:
    clock = ManualClock()

    def blocks(request: PlayRequest) -> PlayResponse:
        clock.advance(0.2)
        return lowest_single(request)

    table, _, _, _ = table_of(Returning("A", blocks), stall_warning_s=0.1)
    table.clock = clock
    caplog.set_level(logging.WARNING)
    await lead_round(table)
    assert len(blocked_warnings(caplog)) == 1


# ─── no promise not to wait can be inherited ────────────────────────────────────────────


class ModelWithFallback(HeuristicAgent):
    """A subclass of a scripted bot that waits (as a model with a scripted fallback would)."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(10)
        return await super().play(request)


async def test_a_subclass_of_a_scripted_bot_that_waits_has_a_deadline() -> None:
    agent = ModelWithFallback("A")
    table = Table(
        [agent, FakeAgent("B"), FakeAgent("C")],
        rules=CASUAL,
        settings=TableSettings(max_retries=0, max_failed_decisions=1),
        timeouts=[0.2, None, None],
    )
    record = await lead_round(table)
    assert record.result is not None
    assert table.faults("A").timeout == 1
    assert record.standins == (0,)  # replaced after its one failed decision


# ─── matches, interrupts ────────────────────────────────────────────────────────────────


async def test_running_totals_start_again_with_each_match() -> None:
    heard: list[RoundResult] = []

    def listen(message: Message) -> None:
        if isinstance(message, RoundResult):
            heard.append(message)

    listener = FakeAgent("A", notify=listen)
    table = Table([listener, GreedyAgent("B"), GreedyAgent("C")], rules=CASUAL)
    await play_match(table, rounds=2, seed=1)
    heard.clear()
    second = await play_match(table, rounds=2, seed=2)

    assert heard[-1].total_scores == second.totals
    assert table.totals == [second.totals[name] for name in table.names]


async def test_a_cancel_while_an_agent_blocks_stops_the_table_at_once() -> None:
    """A Ctrl-C while an agent blocks cancels the match; the table must yield after the
    blocking call so that the cancellation lands, not play on to the end."""
    clock = ManualClock()

    def blocks(request: PlayRequest) -> PlayResponse:
        clock.advance(0.6)
        task = asyncio.current_task()
        assert task is not None
        task.cancel()  # what asyncio.run's SIGINT handler does while the agent blocks
        return lowest_single(request)

    table, sink, _, _ = table_of(Returning("A", blocks))
    table.clock = clock
    with pytest.raises(asyncio.CancelledError):
        await asyncio.create_task(lead_round(table))
    assert sink.of_type("round_result") == []
    assert len(sink.of_type("play", "pass")) <= 1


async def test_seating_base_agent_itself_names_what_is_missing() -> None:
    from arena.games.ddz.agents.base import BaseAgent

    agent = BaseAgent("A")
    table = Table(
        [agent, FakeAgent("B"), FakeAgent("C")],
        rules=CASUAL,
        settings=TableSettings(max_retries=0, max_failed_decisions=1),
    )
    rejections: list[Any] = []
    agent.notify = lambda m: _keep(rejections, m)  # type: ignore[method-assign, assignment]
    await lead_round(table)
    assert "BaseAgent does not implement play()" in rejections[0].detail


async def _keep(into: list[Any], message: Message) -> None:
    if message.type == "REPLY_REJECTED":
        into.append(message)


@pytest.mark.parametrize("exc", [KeyboardInterrupt, SystemExit])
async def test_keyboard_interrupt_and_system_exit_still_stop_the_match(
    exc: type[BaseException],
) -> None:
    def interrupts(request: PlayRequest) -> PlayResponse:
        raise exc

    table, _, _, _ = table_of(Returning("A", interrupts))
    with pytest.raises(exc):
        await lead_round(table)
    assert table.faults("A").total == 0  # not an agent fault: the user stopped the match


async def test_an_agent_exception_is_logged_with_its_traceback_at_debug(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def crashes(request: PlayRequest) -> PlayResponse:
        raise ZeroDivisionError("the agent's own bug")

    table, _, _, _ = table_of(Returning("A", crashes))
    caplog.set_level(logging.DEBUG)
    await lead_round(table)
    raised = [
        r for r in caplog.records if getattr(r, EVENT_ATTRIBUTE, {}).get("event") == "agent_raised"
    ]
    assert raised
    assert raised[0].levelno == logging.DEBUG
    assert raised[0].exc_info is not None
    assert raised[0].exc_info[0] is ZeroDivisionError


async def test_a_bid_reply_of_another_player_is_refused_too() -> None:
    async def wrong_player(request: Any, n: int) -> BidResponse | None:
        return BidResponse(player_id="C", bid=0) if n == 1 else None

    agent = FakeAgent("A", bid=wrong_player)
    table = Table([agent, FakeAgent("B"), FakeAgent("C")], rules=Rules())
    await table.play_round(1, seed=3, first_bidder=0)
    assert [r.reason for r in agent.rejections][:1] == ["unparsable"]


# ─── numbers and text out of range (issue 25) ───────────────────────────────────────────


@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (
            '"bid": 18446744073709551616',
            "BID_RESPONSE.bid: Input should be less than or equal to 3",
        ),
        ('"bid": 1e400', "BID_RESPONSE.bid: Input should be a valid integer (got inf)"),
        ('"bid": NaN', "BID_RESPONSE.bid: Input should be a valid integer (got nan)"),
        ('"bid": -Infinity', "BID_RESPONSE.bid: Input should be a valid integer (got -inf)"),
        ('"bid": -1', "BID_RESPONSE.bid: Input should be greater than or equal to 0"),
        ('"bid": 1.5', "BID_RESPONSE.bid: Input should be a valid integer"),
        ('"bid": "3"', "BID_RESPONSE.bid: Input should be a valid integer"),
        ('"bid": 0, "comment": "\\ud800"', "BID_RESPONSE.comment: Input should be a valid string"),
        ('"bid": 0, "request_id": "\\udfff"', "BID_RESPONSE.request_id: Input should be a valid"),
    ],
)
async def test_a_reply_with_a_number_or_text_out_of_range_is_refused_and_recorded(
    tmp_path: Path, reply: str, words: str
) -> None:
    """What an agent sends is bounded where it is read: a number no field holds (2^64,
    JSON's out-of-range 1e400, the NaN and Infinity Python's JSON reader takes) or a
    lone surrogate is a rejected reply naming the field, and the recording table goes
    on: nothing it sends can make a replay line unwritable."""

    async def out_of_range(request: Any, n: int) -> str | None:
        return '{"type": "BID_RESPONSE", "player_id": "A", ' + reply + "}" if n == 1 else None

    agent = FakeAgent("A", bid=out_of_range)
    writer = ReplayWriter(tmp_path / "r.jsonl")
    table = Table(
        [agent, FakeAgent("B"), FakeAgent("C")], rules=Rules(), recorder=writer.for_table("t1")
    )
    record = await table.play_round(1, seed=3, first_bidder=0)
    writer.close()
    assert record.result is not None
    [rejection, *_] = agent.rejections
    assert (rejection.reason, rejection.request_type) == ("unparsable", "BID_REQUEST")
    assert words in rejection.detail
    [recorded] = load_replay(tmp_path / "r.jsonl").rounds
    verify_round(recorded)
