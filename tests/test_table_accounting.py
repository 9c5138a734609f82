"""Decision accounting at the table: per-seat stats, model seats' reports, the
``decision`` and ``budget_spent`` events, the recorder's ``decision`` records, stand-ins
for the rest of the match, and the preset timeout.

Specification: issue 9 "Accounting, budgets, moderation" and "Provider faults", and the
shared notes' "The seam" and "Table side formats". Real tables and the real engine; the
model seats are small fakes that report their calls as a model seat does
(``take_report`` returning :class:`CallReport` objects).
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any

import pytest
from agents_for_tests import FakeAgent, make_deal, pass_reply

from arena.agents.reports import CallReport, Usage
from arena.errors import AgentDownError, AgentUnavailableError
from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.engine import Rules
from arena.games.ddz.messages import BidRequest, Deal, PlayRequest, RoundResult
from arena.logs import EVENT_ATTRIBUTE
from arena.sinks.base import CollectingSink
from arena.table import Table, TableSettings, play_match
from protocol import ReplyRejected

CASUAL = Rules(scoring="casual")
DEAL = make_deal(seat0="♠3 ♠K ♥K 大王", seat1="♥3 ♠A 小王", seat2="♦3")
SECRET = "SECRET-PROMPT-TEXT"


class ModelLike(FakeAgent):
    """A fake model seat: answers through FakeAgent's hooks, and files a report for every
    call, even one that raises or is cut off by the deadline (as a model seat does)."""

    def __init__(
        self,
        name: str,
        *,
        cost: float | None = 0.25,
        notice_on: int | None = None,
        **hooks: Any,
    ) -> None:
        super().__init__(name, **hooks)
        self.cost = cost
        self.notice_on = notice_on
        self.pending: CallReport | None = None
        self.made = 0
        self.taken = 0

    async def _answer(self, kind: str, request: Any) -> Any:
        self.made += 1
        notice = None
        if self.made == self.notice_on:
            notice = {"kind": "budget_spent", "switched_to": "cheap-1", "spent": {"tokens": 500}}
        self.pending = CallReport(
            provider="fakeprov",
            model="fake-1",
            usage=Usage(100, 20, 5, estimated=False, cost=self.cost),
            latency_ms=12.5,
            prompt=[{"role": "user", "content": SECRET}],
            raw_text=f"{SECRET} raw",
            reasoning=f"{SECRET} reasoning",
            notice=notice,
        )
        try:
            return await super()._answer(kind, request)
        except asyncio.CancelledError:
            assert self.pending is not None
            self.pending.usage = Usage(100, 0, 0, estimated=True, cost=self.cost)
            raise

    def take_report(self) -> CallReport | None:
        report, self.pending = self.pending, None
        if report is not None:
            self.taken += 1
        return report


class Recorded:
    """A recorder without ``decision``: messages and events, in order."""

    def __init__(self) -> None:
        self.lines: list[tuple[Any, ...]] = []

    def round_started(self, header: dict[str, Any]) -> None:
        self.lines.append(("round_start",))

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        kind = getattr(message, "type", type(message).__name__)
        self.lines.append((direction, seat, kind))

    def event(self, event: Event) -> None:
        self.lines.append(("event", event.type))

    def round_ended(self, summary: dict[str, Any]) -> None:
        self.lines.append(("round_end", summary))


class RecordedDecisions(Recorded):
    """A recorder with ``decision``: the replay's way."""

    def __init__(self) -> None:
        super().__init__()
        self.decisions: list[tuple[int, dict[str, Any]]] = []

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        self.decisions.append((seat, record))
        self.lines.append(("decision", seat, record["attempt"], record["outcome"]))


def seat_table(
    *agents: Any,
    rules: Rules = CASUAL,
    recorder: Any = None,
    timeouts: list[float | None] | None = None,
    **settings: Any,
) -> tuple[Table, CollectingSink]:
    sink = CollectingSink()
    table = Table(
        list(agents),
        rules=rules,
        settings=TableSettings(**settings),
        sinks=[sink],
        recorder=recorder,
        timeouts=timeouts,
    )
    return table, sink


async def landlord_round(table: Table, round_no: int = 1) -> Any:
    """Seat 0 is landlord at 1 with DEAL: no bidding, and seat 0 asked first to lead."""
    return await table.play_round(round_no, seed=round_no, deal=DEAL, landlord=0, call_score=1)


def pass_first(request: PlayRequest, n: int) -> Any:
    """A hook: PASS on the first play request (illegal when leading), then play normally."""
    return pass_reply(request) if n == 1 else None


def logged(caplog: pytest.LogCaptureFixture, name: str) -> list[dict[str, Any]]:
    return [
        getattr(r, EVENT_ATTRIBUTE)
        for r in caplog.records
        if getattr(r, EVENT_ATTRIBUTE, {}).get("event") == name
    ]


# ─── every seat ─────────────────────────────────────────────────────────────────────────


async def test_scripted_seats_are_counted_in_the_round_record_and_the_match() -> None:
    agents = [GreedyAgent("X"), GreedyAgent("Y"), GreedyAgent("Z")]
    table, sink = seat_table(*agents, rules=Rules())
    summary = await play_match(table, rounds=2, seed=4)

    for record in summary.rounds:
        for figures in record.stats:
            assert figures["decisions"] > 0
            assert figures["legal_first_try"] == figures["decisions"]
            assert figures["legal_after_retry"] == figures["fell_back"] == 0
            assert figures["standin_decisions"] == figures["filtered"] == 0
            assert figures["input_tokens"] == figures["estimated_calls"] == 0
            assert figures["cost"] is None
            assert figures["latency_ms"] >= 0
    # the public round_result and the record agree, keyed by player
    for event, record in zip(sink.of_type("round_result"), summary.rounds, strict=True):
        assert event.data["stats"] == record.to_dict()["stats"]
        assert set(event.data["stats"]) == {"X", "Y", "Z"}
    assert not sink.of_type("decision")  # only seats whose agent reports
    for seat, name in enumerate("XYZ"):
        total = table.stats(name)
        assert total == table.stats(seat)
        assert total["decisions"] == sum(r.stats[seat]["decisions"] for r in summary.rounds)

    table.start_match("again")
    assert table.stats("X")["decisions"] == 0


# ─── a model seat: reports, events, records ─────────────────────────────────────────────


async def test_an_illegal_reply_then_a_legal_one_events_records_and_stats() -> None:
    recorder = RecordedDecisions()
    model = ModelLike("M", play=pass_first)
    table, sink = seat_table(model, FakeAgent("B"), FakeAgent("C"), recorder=recorder)
    record = await landlord_round(table)

    # events for the first decision: turn, fault, decision, then the action
    first_turn = sink.of_type("turn_started")[0]
    start = sink.events.index(first_turn)
    kinds = [(e.type, e.seat) for e in sink.events[start : start + 4]]
    assert kinds == [("turn_started", 0), ("fault", 0), ("decision", 0), ("play", 0)]
    decision = sink.events[start + 2].data
    assert decision == {
        "model": "fake-1",
        "provider": "fakeprov",
        "attempts": 2,
        "legal_first_try": False,
        "fell_back": False,
        "faults": ["illegal"],
        "latency_ms": decision["latency_ms"],
        "input_tokens": 200,
        "output_tokens": 40,
        "reasoning_tokens": 10,
        "estimated": False,
        "cost": 0.5,
    }
    assert decision["latency_ms"] >= 0
    # every later decision of M was legal at once, each with its decision event
    later = sink.of_type("decision")[1:]
    assert later
    assert all(d.data["legal_first_try"] and d.data["attempts"] == 1 for d in later)
    decisions = sink.of_type("decision")
    assert len(decisions) == model.calls["play"] - 1  # one decision took two calls
    assert model.taken == model.made  # a report taken after every attempt

    # the recorder: the reply, its decision record, then the rejection; then the retry
    lines = [line for line in recorder.lines if line[0] != "event"]
    first = lines.index(("from_agent", 0, "PLAY_RESPONSE"))
    assert lines[first - 1 : first + 5] == [
        ("to_agent", 0, "PLAY_REQUEST"),
        ("from_agent", 0, "PLAY_RESPONSE"),
        ("decision", 0, 0, "illegal"),
        ("to_agent", 0, "REPLY_REJECTED"),
        ("to_agent", 0, "PLAY_REQUEST"),
        ("from_agent", 0, "PLAY_RESPONSE"),
    ]
    assert lines[first + 5] == ("decision", 0, 1, "accepted")
    seat, rejected = recorder.decisions[0]
    assert seat == 0
    assert rejected["outcome"] == "illegal"
    assert rejected["detail"]
    assert rejected["request_id"] == recorder.decisions[1][1]["request_id"]
    assert rejected["report"]["prompt"] == [{"role": "user", "content": SECRET}]
    assert rejected["report"]["model"] == "fake-1"
    assert recorder.decisions[1][1]["detail"] is None

    # the round record: one decision legal after a retry, the rest at once
    figures = record.stats[0]
    calls = model.calls["play"]
    assert figures["legal_after_retry"] == 1
    assert figures["legal_first_try"] == figures["decisions"] - 1 == calls - 2
    assert figures["fell_back"] == 0
    assert (figures["input_tokens"], figures["output_tokens"]) == (100 * calls, 20 * calls)
    assert figures["reasoning_tokens"] == 5 * calls
    assert figures["cost"] == pytest.approx(0.25 * calls)
    assert figures["estimated_calls"] == 0
    assert record.stats[1]["input_tokens"] == 0  # B made no reports
    assert record.to_dict()["stats"]["M"] == figures
    assert table.stats("M") == figures  # one round: the match so far is this round

    # nothing but figures reaches viewers
    public = json.dumps([e.to_dict() for e in sink.events], ensure_ascii=False)
    assert SECRET not in public


async def test_a_recorder_without_decision_still_works() -> None:
    recorder = Recorded()
    model = ModelLike("M", play=pass_first)
    table, sink = seat_table(model, FakeAgent("B"), FakeAgent("C"), recorder=recorder)
    record = await landlord_round(table)
    assert record.stats[0]["legal_after_retry"] == 1
    assert sink.of_type("decision")
    assert not any(line[0] == "decision" for line in recorder.lines)
    assert recorder.lines[-1][0] == "round_end"
    assert recorder.lines[-1][1]["stats"]["M"] == record.stats[0]


async def test_a_timed_out_attempt_is_reported_with_estimated_usage() -> None:
    async def late_once(request: PlayRequest, n: int) -> None:
        if n == 1:
            await asyncio.sleep(5)  # cut off at the 0.2 s deadline

    model = ModelLike("M", cost=None, play=late_once)
    table, sink = seat_table(model, FakeAgent("B"), FakeAgent("C"), timeouts=[0.2, None, None])
    record = await landlord_round(table)

    first = sink.of_type("decision")[0].data
    assert (first["attempts"], first["faults"], first["estimated"]) == (2, ["timeout"], True)
    assert first["cost"] is None  # no prices
    assert first["latency_ms"] >= 200
    assert record.stats[0]["estimated_calls"] == 1
    assert record.stats[0]["cost"] is None
    assert record.stats[0]["latency_ms"] >= 200


async def test_a_spent_budget_is_announced_after_the_decision() -> None:
    model = ModelLike("M", notice_on=2)
    table, sink = seat_table(model, FakeAgent("B"), FakeAgent("C"))
    await landlord_round(table)

    [spent] = sink.of_type("budget_spent")
    assert (spent.seat, spent.player) == (0, "M")
    assert spent.data == {"switched_to": "cheap-1", "spent": {"tokens": 500}}
    at = sink.events.index(spent)
    assert sink.events[at - 1].type == "decision"
    assert sink.events[at + 1].type in ("play", "pass")
    assert sink.events[at + 1].seat == 0


async def test_a_model_seat_that_fails_every_attempt_falls_back_with_its_decision_event() -> None:
    def broken(request: PlayRequest, n: int) -> Any:
        return "not json"

    model = ModelLike("M", play=broken)
    table, sink = seat_table(model, FakeAgent("B"), FakeAgent("C"), max_retries=1)
    record = await landlord_round(table)

    first = sink.of_type("decision")[0]
    assert first.data["fell_back"] is True
    assert first.data["legal_first_try"] is False
    assert first.data["faults"] == ["unparsable", "unparsable"]
    at = sink.events.index(first)
    assert [e.type for e in sink.events[at - 2 : at]] == ["fault", "fault"]
    assert sink.events[at + 1].type == "play"
    assert sink.events[at + 1].data["fallback"] is True
    assert record.stats[0]["fell_back"] >= 1
    assert record.stats[0]["decisions"] == record.stats[0]["fell_back"]


async def test_a_report_that_is_no_callreport_is_logged_and_ignored(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Odd(FakeAgent):
        def take_report(self) -> Any:
            return {"tokens": 3}

    table, sink = seat_table(Odd("M"), FakeAgent("B"), FakeAgent("C"))
    record = await landlord_round(table)
    assert logged(caplog, "agent_report_failed")
    decision = sink.of_type("decision")[0].data
    assert (decision["model"], decision["input_tokens"]) == (None, 0)
    assert record.stats[0]["legal_first_try"] == record.stats[0]["decisions"] > 0


# ─── an unavailable agent: its stand-in to the end of the match ─────────────────────────


async def test_an_unavailable_agent_is_benched_until_the_match_ends(
    caplog: pytest.LogCaptureFixture,
) -> None:
    def refused(request: BidRequest, n: int) -> Any:
        if n == 1:  # the key works again by the next match
            raise AgentUnavailableError("401 Unauthorized: the key of OPENAI_API_KEY was refused")
        return None

    model = ModelLike("M", bid=refused)
    others = [FakeAgent("B"), FakeAgent("C")]
    table, sink = seat_table(model, *others, rules=Rules(first_bidder="rotate"))
    summary = await play_match(table, rounds=2, seed=3)

    # one attempt, one fault with no retries left, one REPLY_REJECTED saying so
    assert model.calls["bid"] == 1
    assert (model.calls["double"], model.calls["play"]) == (0, 0)
    [fault] = sink.of_type("fault")
    assert (fault.seat, fault.data) == (0, {"category": "agent_error", "retries_left": 0})
    [rejection] = model.of_type(ReplyRejected)
    assert (rejection.reason, rejection.retries_left) == ("agent_error", 0)
    assert "401" in rejection.detail
    # events: the fault, the decision, the stand-in, then the (fallback) bid
    at = sink.events.index(fault)
    assert [e.type for e in sink.events[at : at + 4]] == [
        "fault",
        "decision",
        "seat_replaced",
        "bid",
    ]
    decision, replaced, bid = sink.events[at + 1 : at + 4]
    assert decision.data["faults"] == ["agent_error"]
    assert (decision.data["fell_back"], decision.data["attempts"]) == (True, 1)
    assert replaced.data == {
        "by": "heuristic",
        "reason": "401 Unauthorized: the key of OPENAI_API_KEY was refused",
        "until": "match_end",
    }
    assert bid.data["fallback"] is True
    assert len(sink.of_type("seat_replaced")) == 1  # not again in round 2
    assert len(sink.of_type("decision")) == 1  # the stand-in reports nothing
    # logged once, as an error, naming seat, agent and why
    [error] = logged(caplog, "agent_unavailable")
    [line] = [r for r in caplog.records if getattr(r, EVENT_ATTRIBUTE, None) is error]
    assert line.levelno == logging.ERROR
    assert (error["seat"], error["agent"]) == (0, "M")
    assert "401" in error["detail"]

    # the stand-in played both rounds; the own agent still heard every round
    assert [r.standins for r in summary.rounds] == [(0,), (0,)]
    first, second = (r.stats[0] for r in summary.rounds)
    assert (first["decisions"], first["fell_back"]) == (1, 1)
    assert first["standin_decisions"] > 0
    assert (second["decisions"], second["fell_back"]) == (0, 0)
    assert second["standin_decisions"] > 0
    assert len(model.of_type(Deal)) == 2
    assert len(model.of_type(RoundResult)) == 2
    assert summary.faults["M"]["agent_error"] == 1
    total = table.stats("M")
    assert total["standin_decisions"] == first["standin_decisions"] + second["standin_decisions"]
    assert total["fell_back"] == 1

    # a new match gives the seat back to its agent
    table.start_match("next")
    assert table.stats("M")["standin_decisions"] == 0
    record = await table.play_round(1, seed=9, first_bidder=1)
    assert model.calls["bid"] + model.calls["play"] + model.calls["double"] > 1
    assert record.standins == ()
    assert record.stats[0]["decisions"] > 0


async def test_an_unavailable_error_from_a_scripted_agent_is_the_same() -> None:
    """Any agent may say so, not only model seats: no decision event without reports."""

    def refused(request: PlayRequest, n: int) -> Any:
        raise AgentUnavailableError("gone for good")

    agent = FakeAgent("A", play=refused)
    table, sink = seat_table(agent, FakeAgent("B"), FakeAgent("C"))
    first = await landlord_round(table, 1)
    second = await landlord_round(table, 2)
    assert agent.calls["play"] == 1
    assert not sink.of_type("decision")
    [replaced] = sink.of_type("seat_replaced")
    assert replaced.data["until"] == "match_end"
    assert first.standins == second.standins == (0,)


# ─── an agent down for one decision: no retries, no stand-in ────────────────────────────


async def test_an_agent_down_for_a_decision_is_not_asked_again_in_it() -> None:
    """A provider that failed to the deadline: another try would wait out another
    deadline, so the table falls back at once; the next decision asks the agent again."""

    def down_once(request: PlayRequest, n: int) -> Any:
        if n == 1:
            raise AgentDownError("openai model 'm': HTTP 503 down; gave up after 2 retries")
        return None

    model = ModelLike("M", play=down_once)
    table, sink = seat_table(model, FakeAgent("B"), FakeAgent("C"), max_retries=2)
    record = await landlord_round(table)

    assert model.calls["play"] > 1  # asked once for the first decision, then as usual
    [fault] = sink.of_type("fault")
    assert (fault.seat, fault.data) == (0, {"category": "agent_error", "retries_left": 0})
    [rejection] = model.of_type(ReplyRejected)
    assert (rejection.reason, rejection.retries_left) == ("agent_error", 0)
    first = sink.of_type("decision")[0].data
    assert (first["attempts"], first["fell_back"], first["faults"]) == (1, True, ["agent_error"])
    assert sink.of_type("seat_replaced") == []
    assert record.standins == ()
    assert (record.faults[0]["agent_error"], record.faults[0]["fallback"]) == (1, 1)


# ─── stand-ins after failures in a row: for the round or the match ──────────────────────


@pytest.mark.parametrize(("standin_for", "until"), [("round", "round_end"), ("match", "match_end")])
async def test_standin_for_sets_how_long_the_stand_in_stays(standin_for: str, until: str) -> None:
    crashing = FakeAgent("Crash", play=lambda r, n: "garbage")
    table, sink = seat_table(
        crashing,
        FakeAgent("B"),
        FakeAgent("C"),
        max_retries=0,
        max_failed_decisions=2,
        standin_for=standin_for,
    )
    await landlord_round(table, 1)
    assert crashing.calls["play"] == 2
    [replaced] = sink.of_type("seat_replaced")
    assert replaced.data["until"] == until
    assert replaced.data["reason"] == "2 failed decisions in a row"

    record = await landlord_round(table, 2)
    asked_again = crashing.calls["play"] == 4
    assert asked_again is (standin_for == "round")
    assert record.standins == (0,)
    assert len(sink.of_type("seat_replaced")) == (2 if standin_for == "round" else 1)

    table.start_match("next")
    await landlord_round(table, 1)
    assert crashing.calls["play"] == (6 if standin_for == "round" else 4)


# ─── the decision deadline: seat, agent preset, table ──────────────────────────────────


class Preset(FakeAgent):
    def __init__(self, name: str, timeout: Any) -> None:
        super().__init__(name)
        self.decision_timeout_s = timeout


async def test_a_seat_without_its_own_timeout_takes_its_agents_preset() -> None:
    agents = [Preset("P", 7.5), Preset("Q", 9), FakeAgent("R")]
    table, _ = seat_table(*agents, decision_timeout_s=20.0)
    assert [s.timeout_s for s in table.seats] == [7.5, 9.0, 20.0]
    await landlord_round(table)
    [first] = agents[0].of_type(PlayRequest)[:1]
    assert first.time_limit_ms == 7500

    table, _ = seat_table(*agents, timeouts=[2.0, None, 3.0], decision_timeout_s=20.0)
    assert [s.timeout_s for s in table.seats] == [2.0, 9.0, 3.0]


@pytest.mark.parametrize("odd", [True, "30", None, 0, -1.0])
def test_a_preset_that_is_no_positive_number_is_ignored(odd: Any) -> None:
    table, _ = seat_table(Preset("P", odd), FakeAgent("Q"), FakeAgent("R"), decision_timeout_s=4.0)
    assert table.seats[0].timeout_s == 4.0


def test_the_new_event_types_are_known() -> None:
    from arena.games.ddz.events import EVENT_TYPES

    assert {"decision", "budget_spent"} <= set(EVENT_TYPES)


async def test_logs_name_no_text_of_a_report(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    model = ModelLike("M", play=pass_first)
    table, _ = seat_table(model, FakeAgent("B"), FakeAgent("C"))
    await landlord_round(table)
    assert SECRET not in caplog.text


async def test_a_second_match_at_the_same_table_counts_only_its_own_faults() -> None:
    """A table plays match after match (a tournament's): each summary, and its
    match_ended event, holds that match's faults and figures, not the ones before."""
    broken = [True]

    def garbage_while_broken(request: PlayRequest, n: int) -> Any:
        return "not json" if broken[0] else None

    faulty = FakeAgent("M", play=garbage_while_broken)
    table, sink = seat_table(faulty, GreedyAgent("Y"), GreedyAgent("Z"), rules=Rules())
    first = await play_match(table, rounds=1, seed=4)
    assert first.faults["M"]["unparsable"] > 0
    broken[0] = False  # the agent is fixed between matches
    second = await play_match(table, rounds=1, seed=5)

    assert second.faults["M"] == dict.fromkeys(second.faults["M"], 0)
    assert table.faults("M").total == 0
    assert second.stats["M"]["decisions"] == second.rounds[0].stats[0]["decisions"] > 0
    ended = sink.of_type("match_ended")
    assert [e.data["faults"]["M"] for e in ended] == [first.faults["M"], second.faults["M"]]
    assert ended[1].data["stats"] == second.stats
