"""Provider faults, the concurrency limit and the shared clients of model seats.

Specification: issue 9, "Provider faults" (429 honouring Retry-After and 5xx retried with
backoff inside the decision deadline; 401/403/404 and a 400 the provider will repeat
reported once, naming seat, model and parameter) and "One SDK client per provider, key
and base URL ... with a configurable concurrency limit". Real SDKs, loopback fakes.
"""

from __future__ import annotations

import asyncio
import logging
import random
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fake_providers import (  # noqa: F401 (an autouse fixture)
    FakeAnthropic,
    FakeOpenAI,
    Fault,
    Raw,
    Reply,
    shared_clients,
)

from arena.agents.llm.anthropic_seat import AnthropicAgent
from arena.agents.llm.faults import (
    MAX_PROVIDER_RETRIES,
    GaveUp,
    ProviderFault,
    backoff_s,
    is_permanent,
    parse_retry_after,
    with_retries,
)
from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.llm.seat import ModelSeat
from arena.errors import AgentDownError, AgentReplyError, AgentUnavailableError
from arena.games.ddz.messages import PlayRequest, parse_message
from arena.logs import EVENT_ATTRIBUTE

KEY = "sk-faults-test-0123456789"
KEY_ENV = "ARENA_TEST_FAULTS_KEY"
PASS = Reply(text='{"action": "PASS"}')
LAST_PLAY: dict[str, Any] = {"player": "B", "type": "SINGLE", "cards": ["♠4"], "main_rank": 4}


@pytest.fixture(autouse=True)
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


@pytest.fixture
def oai() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY, default=PASS) as fake:
        yield fake


@pytest.fixture
def ant() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key=KEY, default=PASS) as fake:
        yield fake


def gpt(server: FakeOpenAI, name: str = "GPT", **options: Any) -> OpenAIAgent:
    options.setdefault("structured", "none")
    return OpenAIAgent(
        name, model="gpt-test", base_url=server.base_url, api_key_env=KEY_ENV, **options
    )


def claude(server: FakeAnthropic, name: str = "Claude", **options: Any) -> AnthropicAgent:
    options.setdefault("structured", "none")
    return AnthropicAgent(
        name, model="claude-test", base_url=server.base_url, api_key_env=KEY_ENV, **options
    )


def following(player: str, time_limit_ms: int = 10_000) -> PlayRequest:
    message = parse_message(
        {
            "type": "PLAY_REQUEST",
            "player_id": player,
            "hand": ["♠3", "♥3"],
            "is_free_play": False,
            "last_play": LAST_PLAY,
            "remaining_cards": {player: 2, "B": 17, "C": 17},
            "role": "landlord",
            "request_id": "t1-1-5",
            "time_limit_ms": time_limit_ms,
        }
    )
    assert isinstance(message, PlayRequest)
    return message


async def play(agent: ModelSeat, time_limit_ms: int = 10_000) -> Any:
    return await agent.ask(following(agent.name, time_limit_ms))


def retry_waits(caplog: pytest.LogCaptureFixture) -> list[float]:
    """The waits the seat chose before each retry, as it logged them: what it meant to
    wait, exactly, where the wall clock on a loaded machine only says "at least"."""
    events = [getattr(record, EVENT_ATTRIBUTE, {}) for record in caplog.records]
    return [event["wait_s"] for event in events if event.get("event") == "model_call_retried"]


# --- retried inside the deadline ------------------------------------------------------


async def test_a_429_is_retried_after_its_retry_after(
    oai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    agent = gpt(oai)
    oai.script(Fault(429, "Rate limit reached", retry_after="1"), PASS)
    started = time.monotonic()
    reply = await play(agent)
    waited = time.monotonic() - started
    assert reply.action == "PASS"
    assert retry_waits(caplog) == [1.0]  # the provider's word, not the arena's backoff
    assert waited >= 1.0  # and it did wait it out
    assert len(oai.requests) == 2
    report = agent.take_report()
    assert report is not None
    assert report.provider_retries == 1
    assert report.latency_ms >= 1000
    assert report.error is None


async def test_retry_after_ms_wins_over_retry_after(
    ant: FakeAnthropic, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    agent = claude(ant)
    ant.script(Fault(429, "slow down", retry_after="30", retry_after_ms="150"), PASS)
    started = time.monotonic()
    assert (await play(agent)).action == "PASS"  # 30 s would not fit the 10 s decision
    assert time.monotonic() - started >= 0.15
    assert retry_waits(caplog) == [0.15]


async def test_a_retry_after_longer_than_the_deadline_gives_up_at_once(oai: FakeOpenAI) -> None:
    agent = gpt(oai)
    oai.script(Fault(429, "Rate limit reached", retry_after="30"))
    started = time.monotonic()
    with pytest.raises(AgentReplyError) as caught:
        await play(agent, time_limit_ms=20_000)
    # At once: not the 30 s asked, nor the decision's 20 s; 10 s is a hang guard.
    assert time.monotonic() - started < 10
    # passing: not asked again this decision, and one such decision does not bench the seat
    assert type(caught.value) is AgentDownError
    assert caught.value.category == "agent_error"
    assert caught.value.detail.startswith(
        "rate limited by openai (HTTP 429): retry after 30 s, more than the"
    )
    assert caught.value.detail.endswith("s left of the decision")
    assert len(oai.requests) == 1


@pytest.mark.parametrize("status", [500, 503, 529])
async def test_a_server_error_is_retried_with_backoff(ant: FakeAnthropic, status: int) -> None:
    agent = claude(ant)
    ant.script(Fault(status, "Overloaded"), Fault(status, "Overloaded"), PASS)
    assert (await play(agent)).action == "PASS"
    assert len(ant.requests) == 3
    report = agent.take_report()
    assert report is not None
    assert report.provider_retries == 2


async def test_server_errors_until_the_deadline_give_up_before_it(oai: FakeOpenAI) -> None:
    agent = gpt(oai)
    oai.default = Fault(502, "Bad gateway")
    started = time.monotonic()
    with pytest.raises(AgentReplyError) as caught:
        await play(agent, time_limit_ms=1500)
    # its own error, raised at its deadline (the detail says so below); 10 s is a hang
    # guard, far from the minutes the SDK's own retries and timeouts would take
    assert time.monotonic() - started < 10
    detail = caught.value.detail
    assert detail.startswith("openai model 'gpt-test': HTTP 502 Bad gateway after")
    assert "the next retry would wait" in detail  # the arena's backoff, not the provider's
    assert "retry after" not in detail
    assert len(oai.requests) >= 2


async def test_a_provider_that_never_answers_is_given_up_before_the_deadline(
    oai: FakeOpenAI,
) -> None:
    """Accepted, then silence: the call is bounded by the time left of the decision, not
    by the SDK's default timeout (minutes), and not asked again (no time is left)."""
    agent = gpt(oai)
    oai.default = Reply(text='{"action": "PASS"}', delay_s=60)
    started = time.monotonic()
    with pytest.raises(AgentDownError) as caught:
        await play(agent, time_limit_ms=800)
    assert time.monotonic() - started < 10  # a hang guard: the reply was due in 60 s
    assert re.fullmatch(
        rf"openai model 'gpt-test' at {re.escape(oai.base_url)}: no answer within 0\.\d+ s",
        caught.value.detail,
    )
    assert len(oai.requests) == 1
    report = agent.take_report()
    assert report is not None
    assert report.usage.estimated is True  # sent, perhaps billed: estimated from the prompt
    assert report.usage.input_tokens > 0


async def test_the_bench_counts_decisions_failed_in_a_row(oai: FakeOpenAI) -> None:
    """Failed to the deadline twice in a row (the option): the seat cannot play on. Any
    answer of the provider, even an error about this call, starts the count afresh."""
    agent = gpt(oai, bench_after_failed_decisions=2)
    # a Retry-After past the deadline: the seat gives the decision up after one call, so
    # each decision fails at once, however slow the machine (no race with the deadline)
    oai.default = Fault(503, "down", retry_after="60")
    with pytest.raises(AgentDownError):
        await play(agent)
    oai.script(Fault(400, "prompt is too long", param="messages"))
    with pytest.raises(AgentReplyError) as caught:
        await play(agent)
    assert type(caught.value) is AgentReplyError  # the provider answered: it is up
    assert "HTTP 400 prompt is too long" in caught.value.detail
    with pytest.raises(AgentDownError) as caught:
        await play(agent)
    assert type(caught.value) is AgentDownError  # one in a row, again
    with pytest.raises(AgentUnavailableError) as caught:
        await play(agent)
    assert caught.value.detail.startswith("seat 'GPT': openai model 'gpt-test': HTTP 503 down")
    assert caught.value.detail.endswith("; 2 decisions in a row failed at the provider")
    with pytest.raises(AgentDownError) as caught:  # the next match counts afresh
        await play(agent)
    assert type(caught.value) is AgentDownError
    assert len(oai.requests) == 5  # one call per decision: none was retried


async def test_a_status_without_a_message_is_not_repeated(oai: FakeOpenAI) -> None:
    """An error page (not JSON): the SDK says "Error code: 500", the status already says so."""
    agent = gpt(oai)
    oai.default = Raw(b"<html><h1>500 Internal Server Error</h1></html>", "text/html", status=500)
    with pytest.raises(AgentReplyError) as caught:
        await play(agent, time_limit_ms=800)
    assert caught.value.detail.startswith("openai model 'gpt-test': HTTP 500 after ")
    assert "Error code" not in caught.value.detail


async def test_the_table_deadline_cancels_a_backoff_wait(oai: FakeOpenAI) -> None:
    """A Retry-After within the request's time limit but past the table's real deadline:
    the table's cancel ends the wait, and the report is filed (estimated)."""
    agent = gpt(oai)
    oai.script(Fault(429, retry_after="5"))
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await play(agent, time_limit_ms=10_000)
    report = agent.take_report()
    assert report is not None
    assert report.usage.estimated is True
    assert report.provider_retries == 1


# --- permanent: the seat is unavailable -----------------------------------------------


@pytest.mark.parametrize(
    ("fault", "shown"),
    [
        (Fault(401, "invalid x-api-key"), f"HTTP 401 invalid x-api-key (the key in {KEY_ENV})"),
        (Fault(403, "forbidden"), f"HTTP 403 forbidden (the key in {KEY_ENV})"),
        (
            Fault(404, "model: claude-test"),
            "HTTP 404 model: claude-test at {url} (is base_url right? the Anthropic SDK adds "
            "/v1/messages itself; or the model name is unknown)",
        ),
        (
            Fault(400, "top_k: Extra inputs are not permitted"),
            "HTTP 400 top_k: Extra inputs are not permitted",
        ),
    ],
)
async def test_permanent_faults_make_the_seat_unavailable_at_once(
    ant: FakeAnthropic, fault: Fault, shown: str
) -> None:
    agent = claude(ant)
    ant.script(fault)
    with pytest.raises(AgentUnavailableError) as caught:
        await play(agent)
    shown = shown.format(url=ant.base_url)
    assert caught.value.detail == f"seat 'Claude': anthropic model 'claude-test': {shown}"
    assert KEY not in caught.value.detail
    assert len(ant.requests) == 1


async def test_a_404_names_base_url_and_the_v1_it_usually_ends_in(oai: FakeOpenAI) -> None:
    """A base_url without /v1 is the common 404: the detail names base_url, not only the
    model, and the seat is still benched at once."""
    agent = gpt(oai)
    oai.script(Fault(404, "no route /chat/completions"))
    with pytest.raises(AgentUnavailableError) as caught:
        await play(agent)
    assert caught.value.detail == (
        f"seat 'GPT': openai model 'gpt-test': HTTP 404 no route /chat/completions at "
        f"{oai.base_url} (is base_url right? most OpenAI-compatible servers end in /v1; "
        "or the model name is unknown)"
    )
    assert len(oai.requests) == 1


async def test_a_401_to_a_local_presets_placeholder_key_says_to_set_api_key_env() -> None:
    with FakeOpenAI(api_key=KEY, default=PASS) as server:
        agent = OpenAIAgent(
            "Local", model="qwen", provider="vllm", base_url=server.base_url, structured="none"
        )
        with pytest.raises(AgentUnavailableError) as caught:
            await play(agent)
        assert server.requests[0].headers.get("authorization") == "Bearer EMPTY"
    assert caught.value.detail.startswith("seat 'Local': vllm model 'qwen': HTTP 401 ")
    assert caught.value.detail.endswith(
        "(the server wants a key: set options.api_key_env to the variable holding it)"
    )


async def test_an_unsupported_parameter_names_it(key_env: str) -> None:
    with FakeOpenAI(api_key=KEY, unsupported={"reasoning_effort"}) as server:
        agent = gpt(server, reasoning_effort="high")
        with pytest.raises(AgentUnavailableError) as caught:
            await play(agent)
    assert "HTTP 400 Unsupported parameter: 'reasoning_effort'" in caught.value.detail
    assert caught.value.detail.endswith("(param: reasoning_effort)")


async def test_a_400_about_this_calls_messages_is_an_ordinary_fault(oai: FakeOpenAI) -> None:
    agent = gpt(oai)
    oai.script(
        Fault(400, "This model's maximum context length is 8192 tokens", param="messages"), PASS
    )
    with pytest.raises(AgentReplyError) as caught:
        await play(agent)
    assert type(caught.value) is AgentReplyError
    assert caught.value.detail.endswith("(param: messages)")
    assert (await play(agent)).action == "PASS"


@pytest.mark.parametrize(
    ("status", "message", "param", "code", "permanent"),
    [
        (401, "bad key", None, None, True),
        (403, "no access to model", None, None, True),
        (404, "The model `gpt-9` does not exist", None, "model_not_found", True),
        (400, "Unsupported value: 'temperature' does not support 0.7", "temperature", None, True),
        (400, "Invalid value", "response_format", None, True),
        (400, "anything", None, "unsupported_parameter", True),
        (400, "temperature: unsupported", None, None, True),  # Anthropic's "<field>: ..."
        (400, "'reasoning_effort' is not supported with this model.", None, None, True),
        (400, "Unknown parameter: 'thinking'.", None, None, True),
        (400, "Unrecognized request argument supplied: foo", None, None, True),
        (400, "prompt is too long: 210000 tokens > 200000 maximum", None, None, False),
        (400, "context length exceeded", "messages", None, False),
        (400, "messages.3.content: invalid", "messages.3.content", None, False),
        (429, "rate limit", None, None, False),
        (500, "does not support", None, None, False),
    ],
)
def test_which_faults_the_provider_will_repeat(
    status: int, message: str, param: str | None, code: str | None, permanent: bool
) -> None:
    assert is_permanent(status, message, param, code) is permanent


# --- the pieces -----------------------------------------------------------------------


def test_retry_after_reads_milliseconds_seconds_and_dates() -> None:
    assert parse_retry_after({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert parse_retry_after({"retry-after": "2"}) == 2.0
    assert parse_retry_after({"retry-after": "1.5"}) == 1.5
    assert parse_retry_after({"retry-after": "soon"}) is None
    assert parse_retry_after({}) is None
    when = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 20))
    found = parse_retry_after({"retry-after": when})
    assert found is not None
    assert 17 < found <= 20


def test_backoff_doubles_with_jitter_up_to_a_cap() -> None:
    rng = random.Random(1)
    for retry, ceiling in [(0, 0.25), (1, 0.5), (2, 1.0), (5, 8.0), (20, 8.0)]:
        waits = [backoff_s(retry, rng) for _ in range(200)]
        assert all(ceiling / 2 <= w <= ceiling for w in waits)
        assert max(waits) - min(waits) > ceiling / 4  # jittered


async def test_retries_stop_at_their_limit() -> None:
    calls = 0

    async def failing() -> None:
        nonlocal calls
        calls += 1
        raise ProviderFault(503, "down", retry_after_s=0.0)

    loop = asyncio.get_running_loop()
    with pytest.raises(GaveUp) as caught:
        await with_retries(
            failing, deadline=loop.time() + 60, on_retry=lambda *_: None, rng=random.Random(0)
        )
    assert calls == MAX_PROVIDER_RETRIES + 1
    assert caught.value.retries == MAX_PROVIDER_RETRIES


# --- one client, one limit ------------------------------------------------------------


async def test_seats_share_one_client_and_the_last_close_closes_it(oai: FakeOpenAI) -> None:
    first, second = gpt(oai, "A"), gpt(oai, "B")
    other_key = gpt(oai, "C")
    other_key._api_key = "sk-another-key-0000"  # another key: another client
    for agent in (first, second, other_key):
        await agent.open()
    assert first._lease is not None
    assert second._lease is not None
    assert other_key._lease is not None
    client = first._lease.client
    assert second._lease.client is client
    assert other_key._lease.client is not client
    await first.close()
    assert not client.is_closed()
    assert (await play(second)).action == "PASS"
    await second.close()
    assert client.is_closed()
    await other_key.close()
    assert other_key._lease is None
    # a seat used again after closing leases a new client
    assert (await play(first)).action == "PASS"
    await first.close()


@pytest.mark.parametrize("concurrency", [1, 3])
async def test_calls_at_once_are_limited_per_provider_and_key(concurrency: int) -> None:
    with FakeOpenAI(api_key=KEY, default=Reply(text='{"action": "PASS"}', delay_s=0.2)) as server:
        agents = [gpt(server, f"S{i}", concurrency=concurrency) for i in range(4)]
        replies = await asyncio.gather(*(play(a) for a in agents))
        for agent in agents:
            await agent.close()
    assert [r.action for r in replies] == ["PASS"] * 4
    assert server.max_in_flight == concurrency


async def test_waiting_for_a_slot_counts_toward_the_deadline() -> None:
    with FakeOpenAI(api_key=KEY, default=Reply(text='{"action": "PASS"}', delay_s=1.0)) as server:
        busy, waiting = gpt(server, "A", concurrency=1), gpt(server, "B", concurrency=1)
        slow = asyncio.create_task(play(busy))
        await asyncio.sleep(0.1)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await play(waiting)
        await slow
        await busy.close()
        await waiting.close()
    assert len(server.requests) == 1  # the waiting seat never got its turn


def test_presets_give_the_default_concurrency(key_env: str) -> None:
    local = OpenAIAgent("L", model="m", provider="ollama")
    assert local.concurrency == 4
    assert OpenAIAgent("C", model="m", api_key_env=key_env).concurrency == 64


async def test_anything_else_the_call_raises_is_an_agent_error_without_the_key(
    oai: FakeOpenAI,
) -> None:
    class Odd(OpenAIAgent):
        async def _complete(self, *args: Any) -> Any:
            raise ValueError(f"the reply could not be read (sent with {KEY})")

    agent = Odd("GPT", model="gpt-test", base_url=oai.base_url, api_key_env=KEY_ENV)
    with pytest.raises(AgentReplyError) as caught:
        await play(agent)
    assert type(caught.value) is AgentReplyError
    assert caught.value.detail == (
        "openai model 'gpt-test': ValueError: the reply could not be read (sent with ***)"
    )
    report = agent.take_report()
    assert report is not None
    assert report.error == caught.value.detail


NOT_ANSWERS = [
    (Raw(b"<!DOCTYPE html><html><body>Welcome to nginx!</body></html>", "text/html"), "<!DOCTYPE"),
    (Raw(b'{"choices": [{"mess'), "not JSON"),
    (Raw(b'{"hello": "world"}'), "keys hello"),
    (Raw(b"[1, 2]"), "JSON array"),
]


@pytest.mark.parametrize(("body", "seen"), NOT_ANSWERS, ids=["html", "cut", "other", "array"])
async def test_a_200_that_is_not_an_api_response_says_so_plainly(
    oai: FakeOpenAI, ant: FakeAnthropic, body: Raw, seen: str
) -> None:
    """A base_url that reaches some other web server: not a Python exception's text."""
    for agent, api in ((gpt(oai), "Chat Completions"), (claude(ant), "Messages")):
        server = oai if isinstance(agent, OpenAIAgent) else ant
        server.script(body)
        with pytest.raises(AgentReplyError) as caught:
            await play(agent)
        detail = caught.value.detail
        assert caught.value.category == "agent_error"
        assert detail.startswith(
            f"the answer from {agent.provider.name} at {server.base_url} is not a {api} response: "
        )
        assert seen in detail
        assert "Error" not in detail  # no AttributeError / JSONDecodeError / TypeError
        assert "check base_url" in detail


async def test_a_call_is_not_sent_when_the_wait_for_a_slot_left_too_little_time() -> None:
    """Its answer could not arrive in time, yet the provider would bill it and run it
    beside the call the limit let in."""
    with FakeOpenAI(api_key=KEY, default=Reply(text='{"action": "PASS"}', delay_s=1.0)) as server:
        busy, waiting = gpt(server, "A", concurrency=1), gpt(server, "B", concurrency=1)
        slow = asyncio.create_task(play(busy))
        await asyncio.sleep(0.05)
        with pytest.raises(AgentReplyError) as caught:
            await play(waiting, time_limit_ms=1000)  # the slot frees ~0.05 s before its end
        await slow
        await busy.close()
        await waiting.close()
    assert len(server.requests) == 1  # the waiting seat's call was never sent
    assert server.max_in_flight == 1
    assert caught.value.category == "agent_error"
    assert re.fullmatch(
        r"waited (0\.9\d|1\.0\d) s for a free slot of provider openai \(concurrency 1\): "
        r"0\.\d\d s of the decision left, too little to send the call",
        caught.value.detail,
    ), caught.value.detail
    report = waiting.take_report()
    assert report is not None
    assert report.error == caught.value.detail
    assert report.usage.input_tokens == 0  # nothing sent, nothing spent
