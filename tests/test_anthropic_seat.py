"""The ``anthropic`` seat: the real anthropic SDK against a loopback Messages server.

Specification: issue 9, "Seat types" (a forced tool for the response schema, an
extended-thinking budget) and "The decision". The fake (tests/fake_providers.py)
answers a legal decision as a call of the tool the request forces, or as a test scripts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (
    FakeAnthropic,
    FakeOpenAI,
    Fault,
    RecordedRequest,
    Reply,
    ToolCall,
    answer,
    legal_answer,
    legal_model,
    request_in,
    shared_clients,  # noqa: F401 (an autouse fixture)
)

from arena.agents.llm.anthropic_seat import AnthropicAgent
from arena.agents.registry import create_agent
from arena.errors import AgentReplyError, AgentUnavailableError, ConfigError
from arena.games.ddz.messages import PlayRequest, parse_message
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.sinks.base import CollectingSink
from arena.table import Table, play_match
from protocol import ReplyRejected

KEY = "sk-ant-seat-test-0123456789"
KEY_ENV = "ARENA_TEST_ANTHROPIC_KEY"
OPENAI_KEY_ENV = "ARENA_TEST_OPENAI_KEY"
LAST_PLAY: dict[str, Any] = {"player": "B", "type": "SINGLE", "cards": ["♠4"], "main_rank": 4}


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


@pytest.fixture
def server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key=KEY, respond=legal_model) as fake:
        yield fake


def seat(server: FakeAnthropic, name: str = "Claude", **options: Any) -> AnthropicAgent:
    options.setdefault("api_key_env", KEY_ENV)
    return AnthropicAgent(name, model="claude-test", base_url=server.base_url, **options)


def play_request(**fields: Any) -> PlayRequest:
    base: dict[str, Any] = {
        "type": "PLAY_REQUEST",
        "player_id": "Claude",
        "hand": ["♠3", "♥3", "♠5", "小王"],
        "is_free_play": True,
        "last_play": None,
        "remaining_cards": {"Claude": 4, "B": 17, "C": 17},
        "role": "landlord",
        "request_id": "t1-1-9",
    }
    message = parse_message({**base, **fields})
    assert isinstance(message, PlayRequest)
    return message


async def play_table(
    agents: list[AnthropicAgent], tmp_path: Path, seed: int = 11
) -> tuple[Any, CollectingSink, str]:
    writer = ReplayWriter(tmp_path / "r.jsonl")
    sink = CollectingSink()
    table = Table(agents, recorder=writer.for_table("t1"), sinks=[sink], timeouts=[5, 5, 5])
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=seed)
    finally:
        await table.close()
        writer.close()
    return summary, sink, (tmp_path / "r.jsonl").read_text(encoding="utf-8")


async def test_a_model_answering_through_the_forced_tool_plays_a_whole_match(
    server: FakeAnthropic, key_env: str, tmp_path: Path
) -> None:
    agents = [seat(server, n) for n in ("A", "B", "C")]
    summary, sink, replay = await play_table(agents, tmp_path)
    assert all(sum(summary.faults[n].values()) == 0 for n in ("A", "B", "C"))
    [recorded] = load_replay(tmp_path / "r.jsonl").rounds
    verify_round(recorded)
    first = server.requests[0].body
    assert request_in(server.requests[0])["type"] == "BID_REQUEST"
    assert isinstance(first["system"], str)
    assert first["system"]
    assert [m["role"] for m in first["messages"]] == ["user"]
    assert first["max_tokens"] == 1024
    [tool] = first["tools"]
    assert tool["name"] == "bid_reply"
    assert tool["input_schema"]["required"] == ["bid"]
    offered = request_in(server.requests[0])["available_bids"]
    assert tool["input_schema"]["properties"]["bid"]["enum"] == offered
    assert first["tool_choice"] == {"type": "tool", "name": "bid_reply"}
    assert "thinking" not in first
    decisions = sink.of_type("decision")
    assert len(decisions) > 20
    assert {(d.data["provider"], d.data["model"]) for d in decisions} == {
        ("anthropic", "claude-test")
    }
    assert all(d.data["input_tokens"] > 0 and not d.data["estimated"] for d in decisions)
    assert KEY not in replay
    assert KEY not in json.dumps([e._asdict() for e in sink.events], ensure_ascii=False)


async def test_an_illegal_tool_answer_is_rejected_with_a_tool_result(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, language="en")
    request = play_request()
    server.script(Reply(tool_call=ToolCall("play_reply", {"action": "PLAY", "cards": ["J"]})))
    first = await agent.ask(request)
    assert first.cards == ["J"]
    detail = "card 'J': no card of that rank left in the hand"
    await agent.notify(
        ReplyRejected(
            player_id="Claude",
            request_type="PLAY_REQUEST",
            request_id="t1-1-9",
            reason="illegal",
            detail=detail,
            retries_left=2,
        )
    )
    second = await agent.ask(request)
    assert second.cards == ["♠3"]
    messages = server.requests[1].body["messages"]
    assert messages[0] == server.requests[0].body["messages"][0]
    assistant, result = messages[1:]
    assert assistant["role"] == "assistant"
    [call] = assistant["content"]
    assert call["type"] == "tool_use"
    assert call["input"] == {"action": "PLAY", "cards": ["J"]}
    assert result["role"] == "user"
    [tool_result] = result["content"]
    assert tool_result["type"] == "tool_result"
    assert tool_result["tool_use_id"] == call["id"]
    assert tool_result["is_error"] is True
    assert "(illegal)" in tool_result["content"]
    assert detail in tool_result["content"]


async def test_thinking_offers_the_tool_without_forcing_it_and_keeps_thoughts_apart(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, thinking_budget=2048)
    server.script(
        Reply(
            reasoning="the rocket is still out",
            tool_call=ToolCall("play_reply", {"action": "PASS"}),
        ),
        Reply(reasoning="again", text='I pass. {"action": "PASS"}'),
    )
    request = play_request(is_free_play=False, last_play=LAST_PLAY)
    reply = await agent.ask(request)
    assert reply.action == "PASS"
    assert "rocket" not in reply.model_dump_json()
    report = agent.take_report()
    assert report is not None
    assert report.reasoning == "the rocket is still out"
    assert report.raw_text == '{"action": "PASS"}'
    body = server.requests[0].body
    assert body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert body["tool_choice"] == {"type": "auto"}
    assert body["max_tokens"] == 2048 + 1024
    assert "temperature" not in body
    # with tool_choice auto a model may answer in text: the JSON in it is read
    assert (await agent.ask(request)).action == "PASS"


async def test_plain_text_mode_reads_json_after_think_and_refuses_garbage(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, structured="none", temperature=0.3, max_tokens=300)
    server.script(
        Reply(text='<think>{"action": "PASS"}?</think> {"action": "PLAY", "cards": ["♠3"]}'),
        Reply(text="I would rather not say."),
    )
    reply = await agent.ask(play_request())
    assert reply.cards == ["♠3"]
    body = server.requests[0].body
    assert "tools" not in body
    assert (body["temperature"], body["max_tokens"]) == (0.3, 300)
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "unparsable"


async def test_a_reply_stopped_at_max_tokens_is_truncated(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, structured="none")
    server.script(Reply(text='{"action": "PLAY", "cards": ["♠3", "♥', finish="max_tokens"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "truncated"


async def test_thinking_cut_off_at_max_tokens_is_truncated_not_empty(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, thinking_budget=1024)
    server.script(Reply(reasoning="Let me count the cards...", finish="max_tokens"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "truncated"


@pytest.mark.parametrize("cut", [{}, {"action": "PLAY"}])
async def test_a_forced_tool_cut_at_max_tokens_is_truncated_not_unparsable(
    server: FakeAnthropic, key_env: str, cut: dict[str, Any]
) -> None:
    """The API closes a tool_use cut by the limit: its input arrives with fields missing."""
    agent = seat(server)
    server.script(Reply(tool_call=ToolCall("play_reply", cut), finish="max_tokens"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "truncated"
    server.script(Reply(tool_call=ToolCall("play_reply", cut)))  # not cut: its own fault
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request(request_id="t1-1-10"))
    assert caught.value.category == "unparsable"


async def test_a_refusal_is_named_in_the_rejection(server: FakeAnthropic, key_env: str) -> None:
    agent = seat(server)
    server.script(Reply(finish="refusal"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "empty"
    assert "refused (stop_reason refusal)" in caught.value.detail


async def test_a_full_context_window_is_truncated(server: FakeAnthropic, key_env: str) -> None:
    agent = seat(server, structured="none")
    server.script(Reply(text='{"action": "PL', finish="model_context_window_exceeded"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "truncated"


async def test_usage_and_cost_come_from_the_usage_fields(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, prices={"input": 3, "output": 15})
    server.script(
        Reply(
            tool_call=ToolCall("play_reply", {"action": "PASS"}),
            prompt_tokens=900,
            completion_tokens=40,
        )
    )
    await agent.ask(play_request(is_free_play=False, last_play=LAST_PLAY))
    report = agent.take_report()
    assert report is not None
    assert (report.usage.input_tokens, report.usage.output_tokens) == (900, 40)
    assert report.usage.cost == pytest.approx((900 * 3 + 40 * 15) / 1e6)
    assert report.prompt[0]["role"] == "system"
    assert agent.decision_timeout_s == 60.0


async def test_a_usage_block_without_counts_is_estimated(
    server: FakeAnthropic, key_env: str
) -> None:
    agent = seat(server, prices={"input": 3, "output": 15})
    server.script(Reply(tool_call=ToolCall("play_reply", {"action": "PASS"}), usage={}))
    await agent.ask(play_request(is_free_play=False, last_play=LAST_PLAY))
    report = agent.take_report()
    assert report is not None
    assert report.usage.estimated is True
    assert report.usage.input_tokens > 100
    assert report.usage.output_tokens > 0
    assert report.usage.cost is not None
    assert report.usage.cost > 0


async def test_a_300_character_comment_is_trimmed_and_the_move_plays(
    server: FakeAnthropic, key_env: str, tmp_path: Path
) -> None:
    def chatty(recorded: RecordedRequest) -> Reply:
        decision = legal_answer(request_in(recorded))
        return answer(recorded, {**decision, "comment": "好" * 300, "emotion": "smug"})

    server.respond = chatty
    agents = [seat(server, n) for n in ("A", "B", "C")]
    summary, sink, _ = await play_table(agents, tmp_path, seed=2)
    assert all(sum(summary.faults[n].values()) == 0 for n in ("A", "B", "C"))
    comments = [e.data.get("comment") for e in sink.of_type("bid", "double", "play")]
    assert comments
    assert set(comments) == {"好" * 199 + "…"}


async def test_a_bad_key_benches_the_seat_for_the_match_and_leaks_nowhere(
    key_env: str, tmp_path: Path
) -> None:
    with FakeAnthropic(api_key="the-right-one", respond=legal_model) as server:
        agents = [seat(server, n) for n in ("A", "B", "C")]
        summary, sink, replay = await play_table(agents, tmp_path, seed=4)
    # each seat asked once, was refused, and its stand-in played the rest of the match
    assert len(server.requests) == 3
    replaced = sink.of_type("seat_replaced")
    assert len(replaced) == 3
    for event in replaced:
        assert event.data["until"] == "match_end"
        reason = event.data["reason"]
        assert "anthropic model 'claude-test': HTTP 401 invalid x-api-key" in reason
        assert KEY_ENV in reason
        assert KEY not in reason
    assert all(summary.faults[n]["agent_error"] == 1 for n in ("A", "B", "C"))
    assert KEY not in replay
    assert KEY not in json.dumps([e._asdict() for e in sink.events], ensure_ascii=False)


async def test_an_unknown_model_is_unavailable(server: FakeAnthropic, key_env: str) -> None:
    agent = seat(server)
    server.script(Fault(404, "model: claude-test"))
    with pytest.raises(AgentUnavailableError) as caught:
        await agent.ask(play_request())
    assert caught.value.detail.startswith(
        f"seat 'Claude': anthropic model 'claude-test': HTTP 404 model: claude-test "
        f"at {server.base_url} (is base_url right?"
    )


def test_the_registry_builds_the_anthropic_type(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    agent = create_agent("anthropic", "Claude", options={"model": "claude-x"})
    assert isinstance(agent, AnthropicAgent)
    assert agent.base_url == "https://api.anthropic.com"
    assert (agent.structured, agent.max_tokens, agent.concurrency) == ("tools", 1024, 64)
    assert KEY not in repr(agent)
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY"):
        create_agent("anthropic", "Claude", options={"model": "claude-x"})


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (
            {"thinking_budget": 500},
            "options.thinking_budget must be a whole number from 1024 to",
        ),
        ({"thinking_budget": 2000, "temperature": 0.5}, "cannot be set with"),
        ({"thinking_budget": 2000, "max_tokens": 2000}, "must be more than"),
        ({"structured": "json_schema"}, "options.structured must be one of tools, none"),
        ({"provider": "openai"}, "use type = 'openai'"),
        (
            {"reasoning_effort": "low"},
            "seats.1.options (seat 'Claude'): anthropic: options.reasoning_effort is for type = "
            '"openai"; for Claude\'s extended thinking use thinking_budget',
        ),
        ({"colour": "red"}, "got unknown options: colour"),
    ],
)
def test_options_are_checked_when_the_seat_is_built(
    options: dict[str, Any], words: str, key_env: str
) -> None:
    options = {"model": "claude-x", "api_key_env": key_env, **options}
    with pytest.raises(ConfigError) as caught:
        create_agent("anthropic", "Claude", options=options, seat_key="seats.1")
    assert str(caught.value).startswith("seats.1.")
    assert words in str(caught.value)


def test_arena_play_with_model_seats_closes_every_client(
    key_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The installed ``arena`` command, an openai and an anthropic seat on loopback fakes:
    the match plays, and nothing is left open at the process end (dev mode shows every
    ResourceWarning, an unclosed connection or client included)."""
    monkeypatch.setenv(OPENAI_KEY_ENV, KEY)
    with (
        FakeAnthropic(api_key=KEY, respond=legal_model) as ant,
        FakeOpenAI(api_key=KEY, respond=legal_model) as oai,
    ):
        config = tmp_path / "arena.toml"
        config.write_text(
            f"""
[match]
rounds = 1

[[seats]]
name = "Claude"
type = "anthropic"
options = {{ model = "claude-test", base_url = "{ant.base_url}", api_key_env = "{KEY_ENV}" }}

[[seats]]
name = "GPT"
type = "openai"
options = {{ model = "gpt-test", base_url = "{oai.base_url}", api_key_env = "{OPENAI_KEY_ENV}" }}

[[seats]]
name = "Bot"
type = "heuristic"
""",
            encoding="utf-8",
        )
        done = subprocess.run(
            [
                str(Path(sys.executable).with_name("arena")),
                "play",
                "--no-live",
                "--seed",
                "5",
                "--config",
                str(config),
            ],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            env={**os.environ, "PYTHONDEVMODE": "1", "PYTHONWARNINGS": "always"},
        )
    assert done.returncode == 0, done.stderr
    assert len(ant.requests) > 3
    assert len(oai.requests) > 3
    assert "ResourceWarning" not in done.stderr, done.stderr
    assert "nclosed" not in done.stderr, done.stderr
    assert KEY not in done.stdout + done.stderr
