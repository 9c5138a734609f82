"""A provider that keeps failing is treated as down: no decision outlives its deadline,
and after ``bench_after_failed_decisions`` failed decisions in a row the seat's
stand-in plays to the end of the match, the events and the replay saying why.

Specification: issue 25, "A provider that keeps answering 500 is never treated as down"
(17-18 s a decision at an 8 s deadline, round after round). Real ``openai`` and
``anthropic`` SDKs against loopback fakes that answer 500 to everything, recover, or
accept a request and never answer it; short deadlines keep the tests quick.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (  # noqa: F401 (an autouse fixture)
    FakeAnthropic,
    FakeOpenAI,
    FakeProvider,
    Fault,
    RecordedRequest,
    Reply,
    legal_model,
    request_in,
    shared_clients,
)

from arena.agents.llm.anthropic_seat import AnthropicAgent
from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.llm.seat import ModelSeat
from arena.agents.registry import create_agent
from arena.errors import ConfigError
from arena.events import Event
from arena.replay import ReplayWriter
from arena.sinks.base import CollectingSink
from arena.table import MatchSummary, Table, TableSettings, play_match

KEY = "sk-down-test-0123456789abcdef"
KEY_ENV = "ARENA_TEST_DOWN_KEY"
DEADLINE_S = 1.0
MARGIN_S = 0.25
"""What a decision may take past its deadline: the table's own bookkeeping, on a busy
machine. The defect took two to three deadlines a decision."""
SERVER_ERROR = Fault(500, "internal error")
NEVER_ANSWERS = Reply(text='{"action": "PASS"}', delay_s=60)
"""Accepted, then silence: the fake releases it when the test closes the server."""


@pytest.fixture(autouse=True)
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


def model_seat(api: str, server: FakeProvider, **options: Any) -> ModelSeat:
    seat_type = OpenAIAgent if api == "openai" else AnthropicAgent
    return seat_type(
        "Model",
        model="model-test",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        structured="none",
        **options,
    )


def fake(api: str, **kwargs: Any) -> FakeProvider:
    server_type = FakeOpenAI if api == "openai" else FakeAnthropic
    return server_type(api_key=KEY, **kwargs)


async def play(
    seat: ModelSeat, tmp_path: Path, *, rounds: int = 2
) -> tuple[MatchSummary, CollectingSink, list[dict[str, Any]]]:
    """``rounds`` rounds with the model seat at seat 0 and two scripted bots. The
    table's own stand-in rule is held off, so only the seat's benching can seat one."""
    writer = ReplayWriter(tmp_path / "r.jsonl")
    sink = CollectingSink()
    others = [create_agent("heuristic", name, seed=i) for i, name in enumerate(("B", "C"))]
    table = Table(
        [seat, *others],
        recorder=writer.for_table("t1"),
        sinks=[sink],
        timeouts=[DEADLINE_S, None, None],
        settings=TableSettings(max_failed_decisions=100, standin_for="round"),
    )
    await table.open()
    try:
        summary = await play_match(table, rounds=rounds, seed=7)
    finally:
        await table.close()
        writer.close()
    lines = (tmp_path / "r.jsonl").read_text(encoding="utf-8").splitlines()
    return summary, sink, [json.loads(line) for line in lines]


def seat_decisions(sink: CollectingSink) -> list[Event]:
    return [e for e in sink.of_type("decision") if e.seat == 0]


def assert_within_deadline(decisions: list[Event]) -> None:
    """Each decision, all its attempts together, ended within its deadline."""
    assert decisions
    slowest = max(e.data["latency_ms"] for e in decisions)
    assert slowest <= (DEADLINE_S + MARGIN_S) * 1000, f"a decision took {slowest:.0f} ms"


def assert_benched_once(sink: CollectingSink, lines: list[dict[str, Any]], *said: str) -> str:
    """One ``seat_replaced`` for seat 0, for the rest of the match, in the events and the
    replay alike, its reason saying ``said``; the reason."""
    [replaced] = sink.of_type("seat_replaced")
    assert (replaced.seat, replaced.data["by"], replaced.data["until"]) == (
        0,
        "heuristic",
        "match_end",
    )
    reason = str(replaced.data["reason"])
    for words in said:
        assert words in reason
    assert KEY not in reason
    [recorded] = [
        line["event"]
        for line in lines
        if line["kind"] == "event" and line["event"]["type"] == "seat_replaced"
    ]
    assert recorded["data"]["reason"] == reason
    return reason


def distinct_requests(server: FakeProvider) -> list[str]:
    """The table's request ids the provider was asked about, in order."""
    seen: list[str] = []
    for recorded in server.requests:
        request_id = request_in(recorded)["request_id"]
        if request_id not in seen:
            seen.append(request_id)
    return seen


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_provider_answering_500_to_everything_benches_the_seat(
    api: str, tmp_path: Path
) -> None:
    with fake(api, default=SERVER_ERROR) as server:
        seat = model_seat(api, server)
        summary, sink, lines = await play(seat, tmp_path)

    decisions = seat_decisions(sink)
    assert_within_deadline(decisions)
    # the documented default: three failed decisions in a row, then the stand-in
    assert seat.bench_after_failed_decisions == 3
    assert len(decisions) == 3
    assert all(d.data["fell_back"] for d in decisions)
    assert len(distinct_requests(server)) == 3  # never asked again after the bench
    reason = assert_benched_once(sink, lines, "HTTP 500 internal error", "3 decisions in a row")
    assert reason.startswith(f"seat 'Model': {api} model 'model-test': HTTP 500 internal error")
    # the stand-in played the rest of the first round and the whole second one
    first, second = summary.rounds
    assert first.standins == second.standins == (0,)
    assert second.stats[0]["standin_decisions"] > 0
    assert second.stats[0]["decisions"] == 0
    # each fault told the seat there was no retry: a down provider is not asked again
    faults = [e for e in sink.of_type("fault") if e.seat == 0]
    assert [f.data["retries_left"] for f in faults] == [0, 0, 0]


def recovering_every_third_decision() -> Callable[[RecordedRequest], Reply | Fault]:
    """A provider that keeps recovering: 500s for two decisions (every attempt at them),
    legal answers for the third, and so on."""
    order: list[str] = []

    def respond(recorded: RecordedRequest) -> Reply | Fault:
        request_id = request_in(recorded)["request_id"]
        if request_id not in order:
            order.append(request_id)
        if order.index(request_id) % 3 != 2:
            return SERVER_ERROR
        return legal_model(recorded)

    return respond


async def test_a_provider_that_recovers_before_the_threshold_is_not_benched(
    tmp_path: Path,
) -> None:
    """Failures count in a row: each success starts the count afresh (the default, 3)."""
    with fake("openai", respond=recovering_every_third_decision()) as server:
        seat = model_seat("openai", server)
        summary, sink, _ = await play(seat, tmp_path, rounds=1)

    assert sink.of_type("seat_replaced") == []
    assert summary.rounds[0].standins == ()
    decisions = seat_decisions(sink)
    fell_back = [d.data["fell_back"] for d in decisions]
    assert fell_back.count(True) >= 3  # enough failures to bench, had they been in a row
    assert fell_back == [i % 3 != 2 for i in range(len(fell_back))]
    assert_within_deadline([d for d in decisions if d.data["fell_back"]])


async def test_a_seat_may_be_benched_sooner(tmp_path: Path) -> None:
    with fake("anthropic", default=SERVER_ERROR) as server:
        seat = model_seat("anthropic", server, bench_after_failed_decisions=1)
        summary, sink, lines = await play(seat, tmp_path, rounds=1)
    assert len(seat_decisions(sink)) == 1
    assert_benched_once(sink, lines, "HTTP 500", "1 decision in a row")
    assert summary.rounds[0].standins == (0,)


@pytest.mark.parametrize("api", ["openai", "anthropic"])
async def test_a_provider_that_never_answers_holds_no_decision_past_its_deadline(
    api: str, tmp_path: Path
) -> None:
    with fake(api, default=NEVER_ANSWERS) as server:
        seat = model_seat(api, server)
        summary, sink, lines = await play(seat, tmp_path, rounds=1)

    decisions = seat_decisions(sink)
    assert_within_deadline(decisions)
    assert len(decisions) == 3
    assert len(server.requests) == 3  # one call a decision: no time was left for another
    assert_benched_once(sink, lines, "no answer within", "3 decisions in a row")
    assert summary.rounds[0].standins == (0,)


def test_the_threshold_is_a_whole_number_from_one_to_a_thousand() -> None:
    with FakeOpenAI(api_key=KEY) as server:
        for wrong in (0, -1, 2.5, "3", True, 1001, 2**64):  # past 1,000: "never", a typo
            with pytest.raises(ConfigError, match=r"options\.bench_after_failed_decisions"):
                model_seat("openai", server, bench_after_failed_decisions=wrong)
        assert model_seat("openai", server, bench_after_failed_decisions=1)
        assert model_seat("openai", server, bench_after_failed_decisions=1000)
