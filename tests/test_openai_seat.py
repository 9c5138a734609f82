"""The ``openai`` seat: the real openai SDK against a loopback Chat Completions server.

The fake (tests/fake_providers.py) answers as a model would: a ``respond`` function reads
the request JSON out of the prompt and answers a legal decision, or a script answers
what a test needs (garbage, a cut-off reply, an error status). Matches are real tables.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (
    FakeOpenAI,
    Fault,
    RecordedRequest,
    Reply,
    ToolCall,
    legal_answer,
    legal_model,
    request_in,
    shared_clients,  # noqa: F401 (an autouse fixture)
)

from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.registry import create_agent
from arena.errors import AgentDownError, AgentReplyError, AgentUnavailableError, ConfigError
from arena.games.ddz.messages import BidRequest, PlayRequest, PlayResponse, parse_message
from arena.logs import EVENT_ATTRIBUTE
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.server.hub import OverlayHub
from arena.sinks.base import CollectingSink
from arena.table import Table, play_match
from arena.testing import check_agent
from protocol import Message, ReplyRejected

KEY = "sk-seat-test-0123456789"
KEY_ENV = "ARENA_TEST_OPENAI_KEY"


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY, respond=legal_model) as fake:
        yield fake


def seat(server: FakeOpenAI, name: str = "GPT", **options: Any) -> OpenAIAgent:
    options.setdefault("api_key_env", KEY_ENV)
    options.setdefault("structured", "none")
    return OpenAIAgent(name, model="gpt-test", base_url=server.base_url, **options)


LAST_PLAY: dict[str, Any] = {"player": "B", "type": "SINGLE", "cards": ["♠4"], "main_rank": 4}


def play_request(**fields: Any) -> PlayRequest:
    base: dict[str, Any] = {
        "type": "PLAY_REQUEST",
        "player_id": "GPT",
        "hand": ["♠3", "♥3", "♠5", "小王"],
        "is_free_play": True,
        "last_play": None,
        "remaining_cards": {"GPT": 4, "B": 17, "C": 17},
        "role": "landlord",
        "request_id": "t1-1-9",
    }
    message = parse_message({**base, **fields})
    assert isinstance(message, PlayRequest)
    return message


async def test_a_model_that_answers_legally_plays_a_whole_match(
    server: FakeOpenAI, key_env: str, tmp_path: Path
) -> None:
    agents = [seat(server, n) for n in ("A", "B", "C")]
    writer = ReplayWriter(tmp_path / "r.jsonl")
    table = Table(agents, recorder=writer.for_table("t1"), timeouts=[5, 5, 5])
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=11)
    finally:
        await table.close()
        writer.close()
    for name in ("A", "B", "C"):
        assert sum(summary.faults[name].values()) == 0, summary.faults
    assert sum(summary.totals.values()) == 0
    [recorded] = load_replay(tmp_path / "r.jsonl").rounds
    verify_round(recorded)
    assert len(server.requests) > 20
    first = server.requests[0].body
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert "response_format" not in first
    assert "temperature" not in first
    assert KEY not in (tmp_path / "r.jsonl").read_text(encoding="utf-8")


async def test_a_refused_answer_is_retried_in_the_same_conversation_at_a_table(
    server: FakeOpenAI, key_env: str
) -> None:
    """The first request of a match is a bid; a PLAY answer to it is refused."""
    wrong = '{"action": "PASS"}'
    server.script(Reply(text=wrong))
    rejections: list[ReplyRejected] = []

    class Watched(OpenAIAgent):
        async def notify(self, message: Message) -> None:
            if isinstance(message, ReplyRejected):
                rejections.append(message)
            await super().notify(message)

    agents = [
        Watched(n, model="gpt-test", base_url=server.base_url, api_key_env=KEY_ENV)
        for n in ("A", "B", "C")
    ]
    table = Table(agents, timeouts=[5, 5, 5])
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=11)
    finally:
        await table.close()
    [rejection] = rejections
    assert rejection.reason == "unparsable"
    assert summary.faults[rejection.player_id]["unparsable"] == 1
    assert summary.faults[rejection.player_id]["fallback"] == 0
    first, second, third = (r.body for r in server.requests[:3])
    assert request_in(server.requests[0])["type"] == "BID_REQUEST"
    assert [m["role"] for m in second["messages"]] == ["system", "user", "assistant", "user"]
    assert second["messages"][:2] == first["messages"]
    assert second["messages"][2] == {"role": "assistant", "content": wrong}
    retry = second["messages"][3]["content"]
    assert "unparsable" in retry
    assert rejection.detail in retry
    assert [m["role"] for m in third["messages"]] == ["system", "user"]  # a new request


async def test_an_illegal_play_then_a_legal_one_after_the_rejection(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server, "GPT", language="en")
    await agent.open()
    request = play_request()
    bad = '{"action": "PLAY", "cards": ["J"], "hand_type": "SINGLE"}'
    server.script(Reply(text=bad), Reply(text='{"action": "PLAY", "cards": ["3", "3"]}'))
    first = await agent.ask(request)
    assert (first.action, first.cards, first.request_id) == ("PLAY", ["J"], "t1-1-9")
    detail = "card 'J': no card of that rank left in the hand"
    await agent.notify(
        ReplyRejected(
            player_id="GPT",
            request_type="PLAY_REQUEST",
            request_id="t1-1-9",
            reason="illegal",
            detail=detail,
            retries_left=2,
        )
    )
    second = await agent.ask(request)
    assert second.cards == ["3", "3"]
    messages = server.requests[1].body["messages"]
    assert messages[:2] == server.requests[0].body["messages"]
    assert messages[2] == {"role": "assistant", "content": bad}
    assert messages[3]["role"] == "user"
    assert "(illegal)" in messages[3]["content"]
    assert detail in messages[3]["content"]
    assert "Tries left: 2" in messages[3]["content"]
    # a rejection of another request does not continue this conversation
    await agent.notify(
        ReplyRejected(
            player_id="GPT",
            request_type="PLAY_REQUEST",
            request_id="t1-1-8",
            reason="illegal",
            detail=detail,
            retries_left=1,
        )
    )
    await agent.ask(request)
    assert len(server.requests[2].body["messages"]) == 2


async def test_garbage_text_is_unparsable(server: FakeOpenAI, key_env: str) -> None:
    agent = seat(server)
    server.script(Reply(text="I think I will play my threes, they look good."))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "unparsable"
    assert "no JSON object" in caught.value.detail


async def test_an_answer_after_think_is_accepted(server: FakeOpenAI, key_env: str) -> None:
    agent = seat(server)
    server.script(
        Reply(
            text='<think>maybe {"action": "PASS"}? no, lead low.</think>\n'
            '{"action": "PLAY", "cards": ["♠3"]}'
        )
    )
    reply = await agent.ask(play_request())
    assert (reply.action, reply.cards) == ("PLAY", ["♠3"])


async def test_a_reply_cut_off_at_the_token_limit_is_truncated(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server, max_tokens=20)
    server.script(Reply(text='{"action": "PLAY", "cards": ["♠3", "♥3"], "comm', finish="length"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "truncated"
    assert server.requests[0].body["max_completion_tokens"] == 20  # OpenAI's own name
    other = OpenAIAgent(
        "Q",
        model="m",
        provider="qwen",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        structured="none",
        max_tokens=20,
    )
    server.script(Reply(text='{"action": "PASS"}'))
    await other.ask(play_request(player_id="Q", is_free_play=False, last_play=LAST_PLAY))
    assert server.requests[1].body["max_tokens"] == 20  # the compatible servers' name


async def test_an_answer_cut_off_while_reasoning_is_truncated_not_empty(
    server: FakeOpenAI, key_env: str
) -> None:
    """A reasoning model that spends max_completion_tokens thinking returns no content
    and finish_reason "length": the retry must ask for a shorter answer."""
    agent = seat(server, max_tokens=300)
    server.script(Reply(text="", finish="length", completion_tokens=300, reasoning_tokens=300))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "truncated"
    assert "output limit" in caught.value.detail
    server.script(Reply(text=""))  # the same without the limit: nothing said at all
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request(request_id="t1-1-10"))
    assert caught.value.category == "empty"


async def test_a_refusal_or_content_filter_is_named_in_the_rejection(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server)
    sorry = "I'm sorry, I cannot help with gambling games. " * 5
    server.script(Reply(text=None, refusal=sorry), Reply(text="", finish="content_filter"))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    assert caught.value.category == "empty"
    assert "refused" in caught.value.detail
    assert "I'm sorry, I cannot help" in caught.value.detail
    assert len(caught.value.detail) < 200  # the refusal is trimmed
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request(request_id="t1-1-10"))
    assert "content filter" in caught.value.detail
    assert "content_filter" in caught.value.detail


async def test_reasoning_text_is_kept_on_the_agent_not_in_the_reply(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server)
    server.script(Reply(text='{"action": "PASS"}', reasoning="they hold the rocket"))
    reply = await agent.ask(play_request(is_free_play=False, last_play=LAST_PLAY))
    assert reply.action == "PASS"
    assert agent.last_reasoning == "they hold the rocket"
    assert "rocket" not in reply.model_dump_json()


async def test_a_bad_key_is_an_agent_error_and_the_key_leaks_nowhere(
    key_env: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI(api_key="the-right-one", respond=legal_model) as server:
        agent = seat(server)
        server.script(Fault(401, f"Incorrect API key provided: {KEY}.", code="invalid_api_key"))
        with pytest.raises(AgentUnavailableError) as caught:
            await agent.ask(play_request())
        agents = [seat(server, n) for n in ("A", "B", "C")]
        writer = ReplayWriter(tmp_path / "r.jsonl")
        sink = CollectingSink()
        table = Table(agents, recorder=writer.for_table("t1"), sinks=[sink], timeouts=[5, 5, 5])
        await table.open()
        try:
            summary = await play_match(table, rounds=1, seed=4)
        finally:
            await table.close()
            writer.close()
        sent = [r.headers["authorization"] for r in server.requests]
    assert caught.value.category == "agent_error"
    # at the table: each seat asked once, refused, benched for the rest of the match
    assert len(sent) == 1 + 3
    replaced = sink.of_type("seat_replaced")
    assert sorted(e.player or "" for e in replaced) == ["A", "B", "C"]
    assert all(e.data["until"] == "match_end" for e in replaced)
    assert all(KEY_ENV in e.data["reason"] and KEY not in e.data["reason"] for e in replaced)
    assert all(summary.faults[n]["agent_error"] == 1 for n in ("A", "B", "C"))
    detail = caught.value.detail
    assert detail.startswith(
        "seat 'GPT': openai model 'gpt-test': HTTP 401 Incorrect API key provided"
    )
    assert detail.endswith(f"(the key in {KEY_ENV})")
    assert KEY not in detail
    assert KEY not in str(caught.value)
    assert set(sent) == {f"Bearer {KEY}"}  # the key was sent, so there was one to leak
    assert KEY not in (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    assert "HTTP 401" in (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    assert caplog.records
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in repr(record.__dict__)
    assert KEY not in caplog.text
    assert KEY not in repr(agent)
    assert KEY not in json.dumps([e._asdict() for e in sink.events], ensure_ascii=False)


async def test_a_400_for_an_unsupported_parameter_makes_the_seat_unavailable(
    key_env: str,
) -> None:
    with FakeOpenAI(api_key=KEY, unsupported={"temperature"}) as server:
        agent = seat(server, temperature=0.7)
        with pytest.raises(AgentUnavailableError) as caught:
            await agent.ask(play_request())
        report = agent.take_report()
    assert len(server.requests) == 1  # never retried: it would fail the same way
    assert caught.value.category == "agent_error"
    assert caught.value.detail.startswith(
        "seat 'GPT': openai model 'gpt-test': HTTP 400 Unsupported"
    )
    assert caught.value.detail.endswith("(param: temperature)")
    assert report is not None
    assert report.error == caught.value.detail
    assert report.provider_retries == 0


async def test_an_unreachable_server_is_an_agent_error(key_env: str) -> None:
    with FakeOpenAI(api_key=KEY) as server:
        url = server.base_url
    agent = OpenAIAgent("GPT", model="m", base_url=url, api_key_env=KEY_ENV)
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(play_request())
    # the server may come back: not asked again this decision, but not benched either
    assert type(caught.value) is AgentDownError
    assert caught.value.category == "agent_error"
    assert caught.value.detail == (
        f"cannot reach openai at {url}: Connection error; gave up after 2 retries"
    )
    report = agent.take_report()
    assert report is not None
    assert report.provider_retries == 2  # a refused connection is retried twice only


async def test_the_deadline_cancels_the_call_and_the_next_one_works(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server)
    server.script(Reply(text='{"action": "PASS"}', delay_s=3.0), Reply(text='{"action": "PASS"}'))
    request = play_request(is_free_play=False, last_play=LAST_PLAY)
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await agent.ask(request)
    reply = await agent.ask(request)
    assert reply.action == "PASS"
    # the cancelled call left no answer behind to continue from (the last request is the
    # second call's: under load the cancelled one may never have reached the server)
    assert len(server.requests[-1].body["messages"]) == 2


async def test_a_missing_key_variable_is_a_config_error_naming_it(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ARENA_NO_SUCH_KEY", raising=False)
    with pytest.raises(ConfigError) as caught:
        create_agent(
            "openai",
            "GPT",
            options={"model": "gpt-test", "api_key_env": "ARENA_NO_SUCH_KEY"},
            seat_key="seats.0",
        )
    message = str(caught.value)
    assert message.startswith("seats.0.options (seat 'GPT'): ")
    assert "ARENA_NO_SUCH_KEY" in message
    monkeypatch.setenv("ARENA_NO_SUCH_KEY", "  ")
    with pytest.raises(ConfigError, match="ARENA_NO_SUCH_KEY"):
        create_agent("openai", "GPT", options={"model": "m", "api_key_env": "ARENA_NO_SUCH_KEY"})
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        create_agent("openai", "GPT", options={"model": "m"})
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    with pytest.raises(ConfigError, match="DEEPSEEK_API_KEY"):
        create_agent("openai", "GPT", options={"model": "m", "provider": "deepseek"})


PASTED_KEY = "sk-proj-abc1234567890123456789012345678901234"


@pytest.mark.parametrize(
    "value",
    [
        PASTED_KEY,
        f"OPENAI_API_KEY={PASTED_KEY}",
        f"export OPENAI_API_KEY={PASTED_KEY}",
        f" {PASTED_KEY}\n",
        "9lives",
    ],
)
@pytest.mark.parametrize("seat_type", ["openai", "anthropic"])
def test_a_key_pasted_into_api_key_env_is_refused_without_being_shown(
    value: str, seat_type: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent(
            seat_type, "GPT", options={"model": "m", "api_key_env": value}, seat_key="seats.0"
        )
    message = str(caught.value)
    assert "must be the NAME of an environment variable" in message
    assert "it is not shown" in message
    assert value.strip() not in message
    assert PASTED_KEY[:12] not in message


@pytest.mark.parametrize("option", ["api_key", "key", "token"])
@pytest.mark.parametrize("seat_type", ["openai", "anthropic"])
def test_a_key_given_as_an_option_says_where_keys_go(option: str, seat_type: str) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent(seat_type, "GPT", options={"model": "m", option: PASTED_KEY})
    message = str(caught.value)
    variable = f"{seat_type.upper()}_API_KEY"
    assert f"options.{option}: keys come from the environment only: export the key" in message
    assert f"set options.api_key_env to the variable's name ({variable}), not to the key" in message
    assert "did you mean" not in message
    assert PASTED_KEY[:12] not in message


@pytest.mark.parametrize("value", [[PASTED_KEY], {"key": PASTED_KEY}, "   "])
def test_an_api_key_env_that_is_no_string_is_refused_without_being_shown(value: object) -> None:
    with pytest.raises(ConfigError, match=r"options\.api_key_env must name") as caught:
        create_agent("openai", "GPT", options={"model": "m", "api_key_env": value})
    assert PASTED_KEY not in str(caught.value)


def test_arena_play_shows_no_key_pasted_into_api_key_env(tmp_path: Path) -> None:
    config = tmp_path / "pasted.toml"
    config.write_text(
        f"""
[[seats]]
name = "GPT"
type = "openai"
options = {{ model = "m", api_key_env = "OPENAI_API_KEY={PASTED_KEY}" }}

[[seats]]
name = "B"
type = "heuristic"

[[seats]]
name = "C"
type = "heuristic"
"""
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from arena.cli import main; raise SystemExit(main())",
            "play",
            "--config",
            str(config),
            "--no-live",
            "--log-format",
            "json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr[-2000:]
    failed = [
        json.loads(line)
        for line in done.stderr.splitlines()
        if line.startswith("{") and "command_failed" in line
    ]
    assert failed, done.stderr[-2000:]
    assert "NAME of an environment variable" in done.stderr
    assert PASTED_KEY[:12] not in done.stdout + done.stderr


def test_a_local_preset_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    agent = create_agent("openai", "Local", options={"model": "qwen3", "provider": "ollama"})
    assert isinstance(agent, OpenAIAgent)
    assert agent.base_url == "http://localhost:11434/v1"
    assert agent.structured == "json_object"


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({}, "options.model is required"),
        ({"model": "m", "provider": "deepseak"}, "did you mean 'deepseek'?"),
        ({"model": "m", "provider": "anthropic"}, "use type = 'anthropic'"),
        ({"model": "m", "provider": "zhipu", "structured": "tools"}, "not supported by"),
        ({"model": "m", "structured": "xml"}, "options.structured must be one of"),
        ({"model": "m", "structured": "xml"}, "for type 'openai', not 'xml'"),
        ({"model": "m", "provider": "zhipu", "structured": "json_schema"}, "not supported by"),
        ({"model": "m", "temperature": 3}, "options.temperature"),
        ({"model": "m", "temperature": True}, "options.temperature"),
        ({"model": "m", "max_tokens": 0}, "options.max_tokens"),
        ({"model": "m", "reasoning_effort": "max"}, "options.reasoning_effort"),
        ({"model": "m", "language": "fr"}, "options.language"),
        ({"model": "m", "legal_moves": "all"}, "options.legal_moves"),
        ({"model": "m", "persona": 3}, "options.persona"),
        ({"model": "m", "base_url": "api.example.com"}, "options.base_url"),
        ({"model": "m", "api_key_env": ""}, "options.api_key_env"),
        ({"model": "m", "budget": 3}, "options.budget must be a table"),
        ({"model": "m", "budget": {"tokens": 0}}, "options.budget.tokens"),
        ({"model": "m", "budget": {"then": "standin"}}, "options.budget needs a limit"),
        ({"model": "m", "budget": {"tokens": 9, "when": 1}}, "unknown keys: when"),
        ({"model": "m", "budget": {"cost": 1.0}}, "options.budget.cost needs options.prices"),
        ({"model": "m", "budget": {"tokens": 9, "then": "m"}}, "the seat's own model"),
        ({"model": "m", "prices": {"input": 1}}, "options.prices.output is required"),
        ({"model": "m", "prices": {"input": -1, "output": 1}}, "options.prices.input"),
        ({"model": "m", "concurrency": 0}, "options.concurrency"),
        ({"model": "m", "provider": "deepseek", "reasoning_effort": "low"}, "not accepted"),
        ({"model": "m", "colour": "red"}, "got unknown options: colour"),
        (
            {"model": "m", "thinking_budget": 2048},
            "seats.2.options (seat 'GPT'): openai: options.thinking_budget is for type = "
            '"anthropic"; for OpenAI reasoning models use reasoning_effort',
        ),
    ],
)
def test_options_are_checked_when_the_seat_is_built(
    options: dict[str, Any], words: str, key_env: str
) -> None:
    options = {"api_key_env": key_env, **options}
    with pytest.raises(ConfigError) as caught:
        create_agent("openai", "GPT", options=options, seat_key="seats.2")
    assert str(caught.value).startswith("seats.2.")
    assert words in str(caught.value)
    assert KEY not in str(caught.value)


async def test_a_long_comment_is_trimmed_and_the_moves_still_play(
    server: FakeOpenAI, key_env: str, tmp_path: Path
) -> None:
    def chatty(recorded: RecordedRequest) -> Reply:
        answer = legal_answer(request_in(recorded))
        return Reply(text=json.dumps({**answer, "comment": "哈" * 300, "emotion": "Happy"}))

    server.respond = chatty
    agents = [seat(server, n) for n in ("A", "B", "C")]
    writer = ReplayWriter(tmp_path / "r.jsonl")
    table = Table(agents, recorder=writer.for_table("t1"), timeouts=[5, 5, 5])
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=2)
    finally:
        await table.close()
        writer.close()
    assert all(sum(summary.faults[n].values()) == 0 for n in ("A", "B", "C"))
    [recorded] = load_replay(tmp_path / "r.jsonl").rounds
    verify_round(recorded)
    text = (tmp_path / "r.jsonl").read_text(encoding="utf-8")
    assert "哈" * 199 + "…" in text
    assert "哈" * 200 not in text
    assert '"emotion":"happy"' in text.replace(" ", "")


@pytest.mark.parametrize("structured", ["json_schema", "json_object"])
async def test_structured_output_is_asked_for(
    server: FakeOpenAI, key_env: str, structured: str
) -> None:
    agent = seat(server, structured=structured, temperature=0.2, reasoning_effort="low")
    bid = parse_message(
        {
            "type": "BID_REQUEST",
            "player_id": "GPT",
            "current_highest_bid": 0,
            "available_bids": [0, 1, 2, 3],
            "request_id": "t1-1-1",
        }
    )
    assert isinstance(bid, BidRequest)
    assert (await agent.ask(bid)).bid == 0
    await agent.ask(play_request())
    bid_body, play_body = (r.body for r in server.requests)
    assert bid_body["temperature"] == 0.2
    assert bid_body["reasoning_effort"] == "low"
    if structured == "json_object":
        assert bid_body["response_format"] == {"type": "json_object"}
        return
    bid_format, play_format = bid_body["response_format"], play_body["response_format"]
    assert bid_format["type"] == "json_schema"
    bid_schema = bid_format["json_schema"]["schema"]
    assert set(bid_schema["properties"]) == {"bid", "comment", "emotion", "strategy_hint"}
    assert bid_schema["required"] == list(bid_schema["properties"])
    assert bid_schema["additionalProperties"] is False
    play_schema = play_format["json_schema"]["schema"]
    assert set(play_schema["properties"]) == {
        "action",
        "cards",
        "hand_type",
        "comment",
        "emotion",
        "strategy_hint",
    }
    assert play_schema["properties"]["action"]["enum"] == ["PLAY", "PASS"]


@pytest.mark.parametrize("structured", ["json_schema", "tools"])
async def test_the_bid_schema_offers_exactly_the_available_bids(
    server: FakeOpenAI, key_env: str, structured: str
) -> None:
    """A strict schema is all the model can answer: with only the bids on offer in its
    enum, a bid that the table refuses cannot come back."""
    agent = seat(server, structured=structured)
    bid = parse_message(
        {
            "type": "BID_REQUEST",
            "player_id": "GPT",
            "current_highest_bid": 1,
            "available_bids": [2, 3, 0],
            "request_id": "t1-1-2",
        }
    )
    assert isinstance(bid, BidRequest)
    assert (await agent.ask(bid)).bid in (2, 3, 0)
    body = server.requests[0].body
    if structured == "json_schema":
        schema = body["response_format"]["json_schema"]["schema"]
    else:
        [tool] = body["tools"]
        assert tool["function"]["strict"] is True
        schema = tool["function"]["parameters"]
    assert schema["properties"]["bid"] == {"type": "integer", "enum": [2, 3, 0]}


async def test_a_strict_schema_answer_with_nulls_plays(server: FakeOpenAI, key_env: str) -> None:
    agent = seat(server, structured="json_schema")
    server.script(
        Reply(
            text=json.dumps(
                {
                    "action": "PLAY",
                    "cards": ["♠3", "♥3"],
                    "hand_type": "PAIR",
                    "comment": None,
                    "emotion": None,
                    "strategy_hint": None,
                }
            )
        )
    )
    reply = await agent.ask(play_request())
    assert isinstance(reply, PlayResponse)
    assert (reply.cards, reply.hand_type, reply.comment) == (["♠3", "♥3"], "PAIR", None)


async def test_agent_check_positions_are_all_legal(server: FakeOpenAI, key_env: str) -> None:
    agent = seat(server, "Bot", legal_moves="summary")
    await agent.open()
    try:
        report = await check_agent(agent, timeout_s=5)
    finally:
        await agent.close()
    assert report.passed, report.as_text()
    retried = [r for r in server.requests if len(r.body["messages"]) == 4]
    assert len(retried) == 1  # retry_after_rejection continues its conversation


def test_the_registry_names_the_openai_type(key_env: str) -> None:
    agent = create_agent("openai", "GPT", options={"model": "m", "api_key_env": key_env})
    assert isinstance(agent, OpenAIAgent)
    assert repr(agent) == "OpenAIAgent(name='GPT', provider='openai', model='m')"


# --- tools mode -----------------------------------------------------------------------


async def test_tools_mode_forces_one_function_tool_and_reads_its_arguments(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server, structured="tools")
    reply = await agent.ask(play_request())
    assert (reply.action, reply.cards) == ("PLAY", ["♠3"])
    body = server.requests[0].body
    [tool] = body["tools"]
    assert tool["type"] == "function"
    assert tool["function"]["name"] == "play_reply"
    assert tool["function"]["parameters"]["properties"]["action"]["enum"] == ["PLAY", "PASS"]
    assert body["tool_choice"] == {"type": "function", "function": {"name": "play_reply"}}
    assert "response_format" not in body
    report = agent.take_report()
    assert report is not None
    assert json.loads(report.raw_text or "") == {
        "action": "PLAY",
        "cards": ["♠3"],
        "hand_type": "SINGLE",
    }


async def test_broken_tool_arguments_are_unparsable_and_the_retry_answers_the_tool_call(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server, structured="tools", language="en")
    request = play_request()
    broken = ToolCall("play_reply", {}, raw_arguments='{"action": "PLAY", "cards": [')
    server.script(Reply(tool_call=broken))
    with pytest.raises(AgentReplyError) as caught:
        await agent.ask(request)
    assert caught.value.category == "unparsable"
    await agent.notify(
        ReplyRejected(
            player_id="GPT",
            request_type="PLAY_REQUEST",
            request_id="t1-1-9",
            reason="unparsable",
            detail=caught.value.detail,
            retries_left=1,
        )
    )
    reply = await agent.ask(request)
    assert reply.action == "PLAY"
    first, second = (r.body["messages"] for r in server.requests)
    assert second[:2] == first
    assistant, result = second[2:]
    assert assistant["role"] == "assistant"
    [call] = assistant["tool_calls"]
    assert call["function"] == {"name": "play_reply", "arguments": broken.raw_arguments}
    assert result["role"] == "tool"
    assert result["tool_call_id"] == call["id"]
    assert "(unparsable)" in result["content"]


# --- reports --------------------------------------------------------------------------


async def test_each_call_leaves_a_report_with_usage_cost_prompt_and_text(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server, prices={"input": 2.0, "output": 8.0})
    assert agent.decision_timeout_s == 60.0  # the openai preset's
    assert agent.take_report() is None
    text = '<think>lead low</think>{"action": "PASS"}'
    server.script(Reply(text=text, prompt_tokens=1000, completion_tokens=250, reasoning_tokens=200))
    reply = await agent.ask(play_request(is_free_play=False, last_play=LAST_PLAY))
    assert reply.action == "PASS"
    report = agent.take_report()
    assert report is not None
    assert agent.take_report() is None  # taking clears it
    assert (report.provider, report.model) == ("openai", "gpt-test")
    usage = report.usage
    assert (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens) == (1000, 250, 200)
    assert usage.estimated is False
    assert usage.cost == pytest.approx((1000 * 2.0 + 250 * 8.0) / 1e6)
    assert report.prompt == server.requests[0].body["messages"]
    assert report.raw_text == text
    assert report.reasoning == "lead low"
    assert report.latency_ms > 0
    assert report.error is None
    assert "lead low" not in reply.model_dump_json()
    assert "prompt" not in report.public()


@pytest.mark.parametrize(
    "usage",
    [{"total_tokens": 1030}, {"prompt_tokens": None, "completion_tokens": None}],
    ids=["total-only", "nulls"],
)
async def test_a_partial_usage_block_is_estimated_so_cost_and_budget_still_run(
    server: FakeOpenAI, key_env: str, usage: dict[str, Any]
) -> None:
    agent = seat(server, prices={"input": 2.0, "output": 8.0}, budget={"tokens": 50})
    server.script(Reply(text='{"action": "PASS"}', usage=usage))
    await agent.ask(play_request(is_free_play=False, last_play=LAST_PLAY))
    report = agent.take_report()
    assert report is not None
    assert report.usage.estimated is True
    assert report.usage.input_tokens > 100  # the prompt, estimated
    assert report.usage.output_tokens > 0
    assert report.usage.cost is not None
    assert report.usage.cost > 0
    assert agent.spending.tokens > 50  # so the budget is spent: the next call is refused
    with pytest.raises(AgentUnavailableError, match="budget spent"):
        await agent.ask(play_request(request_id="t1-1-10"))
    server.script(Reply(text='{"action": "PASS"}', usage={"prompt_tokens": 900}))
    fresh = seat(server, name="Other")
    await fresh.ask(play_request(player_id="Other", is_free_play=False, last_play=LAST_PLAY))
    report = fresh.take_report()
    assert report is not None
    assert report.usage.input_tokens == 900  # what was sent is kept
    assert report.usage.output_tokens > 0
    assert report.usage.estimated is True


async def test_a_providers_absurd_count_and_lone_surrogate_cannot_stop_a_recording_table(
    server: FakeOpenAI, key_env: str, tmp_path: Path
) -> None:
    """Issue 25: a provider's JSON is outside input too. A usage count of 2^64 is no
    count (estimated, as a missing one is), and a lone surrogate in the model's text
    (``"\\ud83d"`` is valid JSON; the SDK's string holds it) is written to the replay as
    U+FFFD. The table plays its round with every sink, and the replay verifies."""

    def respond(recorded: RecordedRequest) -> Reply:
        legal = legal_model(recorded)
        big = {"prompt_tokens": 2**64, "completion_tokens": 2**64 + 1, "total_tokens": 2**65}
        return Reply(text=f"{legal.text} \ud83d", usage=big)

    server.respond = respond
    hub = OverlayHub(run_id="run-1")
    page = hub.subscribe("public", "t1")
    collected = CollectingSink()
    writer = ReplayWriter(tmp_path / "r.jsonl")
    agents = [seat(server, n) for n in ("A", "B", "C")]
    table = Table(agents, sinks=[hub, collected], recorder=writer.for_table("t1"))
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=11)
    finally:
        await table.close()
        writer.close()
    assert table.sinks == [hub, collected]
    for name in ("A", "B", "C"):
        assert sum(summary.faults[name].values()) == 0, summary.faults
    decisions = collected.of_type("decision")
    assert decisions
    assert all(e.data["estimated"] and e.data["input_tokens"] < 2**53 for e in decisions)
    sent = [json.loads(await page.next()) for _ in range(page.pending())]
    assert [m for m in sent if m["type"] == "match_ended"]
    [recorded] = load_replay(tmp_path / "r.jsonl").rounds
    verify_round(recorded)
    texts = [line["report"]["raw_text"] for line in recorded.decisions]
    assert texts
    assert all(text.endswith(" \ufffd") for text in texts)


async def test_a_call_cut_off_by_the_deadline_reports_estimated_usage(
    server: FakeOpenAI, key_env: str
) -> None:
    agent = seat(server)
    server.script(Reply(text='{"action": "PASS"}', delay_s=3.0))
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await agent.ask(play_request(is_free_play=False, last_play=LAST_PLAY))
    report = agent.take_report()
    assert report is not None
    assert report.usage.estimated is True
    assert report.usage.input_tokens > 100  # the prompt, estimated
    assert report.usage.output_tokens == 0
    assert 250 < report.latency_ms < 2000
    assert report.raw_text is None


async def test_the_key_is_in_no_report_error_or_log_line(
    key_env: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with FakeOpenAI(api_key=None) as server:  # the script's 401 quotes the key back
        agent = seat(server)
        server.script(
            Fault(503, f"overloaded for {KEY}"),
            Fault(401, f"Incorrect API key provided: {KEY}.", code="invalid_api_key"),
        )
        with pytest.raises(AgentUnavailableError) as caught:
            await agent.ask(play_request())
        report = agent.take_report()
    assert report is not None
    assert report.error == caught.value.detail
    assert "***" in report.error
    assert report.provider_retries == 1
    assert KEY not in json.dumps(report.to_dict(), ensure_ascii=False)
    events = [getattr(r, EVENT_ATTRIBUTE, {}).get("event") for r in caplog.records]
    assert {"model_call_retried", "model_call_failed"} <= set(events)
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in repr(record.__dict__)


async def test_at_a_table_a_call_past_the_deadline_is_given_up_and_reported_estimated(
    server: FakeOpenAI, key_env: str
) -> None:
    """The first request of the match (a bid) answers after the seat's deadline: the
    seat gives it up before the deadline, without asking again (another call would wait
    as long), and its decision event says the usage was estimated."""
    server.script(Reply(text='{"bid": 0}', delay_s=3.0))
    sink = CollectingSink()
    agents = [seat(server, n) for n in ("A", "B", "C")]
    table = Table(agents, sinks=[sink], timeouts=[0.5, 0.5, 0.5])
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=11)
    finally:
        await table.close()
    first = sink.of_type("decision")[0]
    assert first.data["faults"] == ["agent_error"]
    assert first.data["estimated"] is True
    assert first.data["input_tokens"] > 100
    assert (first.data["attempts"], first.data["fell_back"]) == (1, True)
    assert first.data["latency_ms"] < 500
    assert first.player is not None
    assert summary.faults[first.player]["agent_error"] == 1
    assert sink.of_type("seat_replaced") == []  # the next decisions were answered
