"""The real openai and anthropic SDKs against the loopback fakes, and the provider presets.

These pin what the model-seat adapters will rely on: that the SDKs parse the fakes'
replies and usage, raise their own exception classes for the fakes' errors, and that
Retry-After and the unsupported parameter's name are readable from those exceptions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from urllib.parse import urlsplit

import anthropic
import openai
import pytest
from anthropic.types import MessageParam, ToolParam
from fake_providers import FakeAnthropic, FakeOpenAI, Fault, Reply, ToolCall
from openai.types.chat import (
    ChatCompletionFunctionToolParam,
    ChatCompletionMessageParam,
    ChatCompletionNamedToolChoiceParam,
)

from arena.agents.llm.providers import PRESETS, STRUCTURED_MODES, preset
from arena.errors import ConfigError

KEY = "sk-test-123"
MESSAGES: list[ChatCompletionMessageParam] = [{"role": "user", "content": "bid?"}]
ANT_MESSAGES: list[MessageParam] = [{"role": "user", "content": "bid?"}]


@pytest.fixture
def oai_server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY) as server:
        yield server


@pytest.fixture
def ant_server() -> Iterator[FakeAnthropic]:
    with FakeAnthropic(api_key=KEY) as server:
        yield server


@pytest.fixture
async def oai(oai_server: FakeOpenAI) -> AsyncIterator[openai.AsyncOpenAI]:
    client = openai.AsyncOpenAI(base_url=oai_server.base_url, api_key=KEY, max_retries=0)
    yield client
    await client.close()


@pytest.fixture
async def ant(ant_server: FakeAnthropic) -> AsyncIterator[anthropic.AsyncAnthropic]:
    client = anthropic.AsyncAnthropic(base_url=ant_server.base_url, api_key=KEY, max_retries=0)
    yield client
    await client.close()


# --- OpenAI Chat Completions -------------------------------------------------------------


async def test_openai_text_reply_and_usage(oai_server: FakeOpenAI, oai: openai.AsyncOpenAI) -> None:
    oai_server.script(
        Reply(text='{"action": "bid", "bid": 2}', prompt_tokens=120, completion_tokens=9)
    )
    result = await oai.chat.completions.create(
        model="gpt-test",
        messages=MESSAGES,
        temperature=0.2,
        max_tokens=50,
    )
    assert result.choices[0].message.content == '{"action": "bid", "bid": 2}'
    assert result.choices[0].finish_reason == "stop"
    assert result.model == "gpt-test"
    assert result.usage is not None
    assert (result.usage.prompt_tokens, result.usage.completion_tokens) == (120, 9)
    assert result.usage.total_tokens == 129
    assert result.usage.completion_tokens_details is not None
    assert result.usage.completion_tokens_details.reasoning_tokens == 0
    [request] = oai_server.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "gpt-test"
    assert request.body["temperature"] == 0.2
    assert request.body["messages"] == MESSAGES


async def test_openai_tool_call(oai_server: FakeOpenAI, oai: openai.AsyncOpenAI) -> None:
    oai_server.script(Reply(tool_call=ToolCall("play", {"action": "play", "cards": ["3", "3"]})))
    tool: ChatCompletionFunctionToolParam = {
        "type": "function",
        "function": {"name": "play", "parameters": {"type": "object"}},
    }
    choice_param: ChatCompletionNamedToolChoiceParam = {
        "type": "function",
        "function": {"name": "play"},
    }
    result = await oai.chat.completions.create(
        model="gpt-test",
        messages=MESSAGES,
        tools=[tool],
        tool_choice=choice_param,
    )
    choice = result.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    [call] = choice.message.tool_calls
    assert call.type == "function"
    assert call.function.name == "play"
    assert json.loads(call.function.arguments) == {"action": "play", "cards": ["3", "3"]}
    assert oai_server.requests[0].body["tool_choice"]["function"]["name"] == "play"


async def test_openai_json_schema_and_reasoning(
    oai_server: FakeOpenAI, oai: openai.AsyncOpenAI
) -> None:
    schema: dict[str, object] = {
        "type": "object",
        "properties": {"bid": {"type": "integer"}},
        "required": ["bid"],
    }
    oai_server.script(Reply(text='{"bid": 3}', reasoning="three is safe", reasoning_tokens=40))
    result = await oai.chat.completions.create(
        model="deepseek-reasoner",
        messages=MESSAGES,
        response_format={
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": schema, "strict": True},
        },
        reasoning_effort="low",
    )
    assert result.choices[0].message.content == '{"bid": 3}'
    # DeepSeek's extra field survives in the SDK's model as an extra attribute.
    extra = result.choices[0].message.model_extra or {}
    assert extra.get("reasoning_content") == "three is safe"
    assert result.usage is not None
    assert result.usage.completion_tokens_details is not None
    assert result.usage.completion_tokens_details.reasoning_tokens == 40
    sent = oai_server.requests[0].body
    assert sent["response_format"]["json_schema"]["schema"] == schema
    assert sent["reasoning_effort"] == "low"


async def test_openai_bad_key_is_authentication_error(oai_server: FakeOpenAI) -> None:
    client = openai.AsyncOpenAI(base_url=oai_server.base_url, api_key="wrong", max_retries=0)
    try:
        with pytest.raises(openai.AuthenticationError) as caught:
            await client.chat.completions.create(model="gpt-test", messages=MESSAGES)
    finally:
        await client.close()
    assert caught.value.status_code == 401
    assert caught.value.code == "invalid_api_key"
    assert oai_server.requests[0].headers["authorization"] == "Bearer wrong"


async def test_openai_unsupported_parameter_is_bad_request_naming_it() -> None:
    with FakeOpenAI(api_key=KEY, unsupported={"reasoning_effort"}) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
        try:
            for _ in range(2):  # every call: the provider will repeat it
                with pytest.raises(openai.BadRequestError) as caught:
                    await client.chat.completions.create(
                        model="gpt-test",
                        messages=MESSAGES,
                        reasoning_effort="high",
                    )
                assert caught.value.param == "reasoning_effort"
                assert caught.value.code == "unsupported_parameter"
                assert "reasoning_effort" in caught.value.message
            ok = await client.chat.completions.create(model="gpt-test", messages=MESSAGES)
        finally:
            await client.close()
    assert ok.choices[0].message.content == "ok"


async def test_openai_rate_limit_carries_retry_after(
    oai_server: FakeOpenAI, oai: openai.AsyncOpenAI
) -> None:
    oai_server.script(Fault(429, "Rate limit reached", code="rate_limit_exceeded", retry_after="2"))
    with pytest.raises(openai.RateLimitError) as caught:
        await oai.chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "2"
    assert caught.value.code == "rate_limit_exceeded"
    assert caught.value.response.headers["x-request-id"].startswith("req_")


async def test_openai_server_error_then_success(
    oai_server: FakeOpenAI, oai: openai.AsyncOpenAI
) -> None:
    oai_server.script(Fault(500, "The server had an error"), Reply(text="fine"))
    with pytest.raises(openai.InternalServerError) as caught:
        await oai.chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert caught.value.status_code == 500
    result = await oai.chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert result.choices[0].message.content == "fine"
    assert oai_server.pending == 0
    assert len(oai_server.requests) == 2


async def test_openai_sdk_retries_honour_the_script(oai_server: FakeOpenAI) -> None:
    """With the SDK's own retries on, a 429 then a reply is one successful call."""
    oai_server.script(Fault(429, retry_after="0"), Reply(text="after retry"))
    client = openai.AsyncOpenAI(base_url=oai_server.base_url, api_key=KEY, max_retries=1)
    try:
        result = await client.chat.completions.create(model="gpt-test", messages=MESSAGES)
    finally:
        await client.close()
    assert result.choices[0].message.content == "after retry"
    assert len(oai_server.requests) == 2


async def test_delay_makes_the_sdk_time_out(oai_server: FakeOpenAI) -> None:
    oai_server.script(Reply(text="too late", delay_s=5.0))
    client = openai.AsyncOpenAI(
        base_url=oai_server.base_url, api_key=KEY, max_retries=0, timeout=0.3
    )
    try:
        with pytest.raises(openai.APITimeoutError):
            await client.chat.completions.create(model="gpt-test", messages=MESSAGES)
    finally:
        await client.close()


async def test_delay_then_cancel_leaves_the_server_usable(
    oai_server: FakeOpenAI, oai: openai.AsyncOpenAI
) -> None:
    """The table cancels a late call (asyncio.timeout); the next call still works."""
    oai_server.script(Reply(text="slow", delay_s=3.0), Reply(text="next"))
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await oai.chat.completions.create(model="gpt-test", messages=MESSAGES)
    result = await oai.chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert result.choices[0].message.content == "next"


async def test_respond_function_answers_after_the_script() -> None:
    def echo_model(request: object) -> Reply:
        from fake_providers import RecordedRequest

        assert isinstance(request, RecordedRequest)
        return Reply(text=f"model {request.model}")

    with FakeOpenAI(api_key=None, respond=echo_model) as server:
        client = openai.AsyncOpenAI(base_url=server.base_url, api_key="anything", max_retries=0)
        try:
            result = await client.chat.completions.create(model="m-7", messages=MESSAGES)
        finally:
            await client.close()
    assert result.choices[0].message.content == "model m-7"


# --- Anthropic Messages -----------------------------------------------------------------


async def test_anthropic_text_reply_and_usage(
    ant_server: FakeAnthropic, ant: anthropic.AsyncAnthropic
) -> None:
    ant_server.script(Reply(text="pass", prompt_tokens=80, completion_tokens=3))
    result = await ant.messages.create(model="claude-test", max_tokens=100, messages=ANT_MESSAGES)
    assert result.type == "message"
    assert result.role == "assistant"
    assert result.stop_reason == "end_turn"
    [block] = result.content
    assert block.type == "text"
    assert block.text == "pass"
    assert (result.usage.input_tokens, result.usage.output_tokens) == (80, 3)
    [request] = ant_server.requests
    assert request.path == "/v1/messages"
    assert KEY in (request.headers.get("x-api-key"), request.headers.get("authorization", "")[7:])
    assert "anthropic-version" in request.headers
    assert request.body["max_tokens"] == 100


async def test_anthropic_forced_tool_use(
    ant_server: FakeAnthropic, ant: anthropic.AsyncAnthropic
) -> None:
    ant_server.script(Reply(tool_call=ToolCall("reply", {"action": "bid", "bid": 1})))
    reply_tool: ToolParam = {"name": "reply", "input_schema": {"type": "object"}}
    result = await ant.messages.create(
        model="claude-test",
        max_tokens=100,
        messages=ANT_MESSAGES,
        tools=[reply_tool],
        tool_choice={"type": "tool", "name": "reply"},
    )
    assert result.stop_reason == "tool_use"
    [block] = result.content
    assert block.type == "tool_use"
    assert block.name == "reply"
    assert block.input == {"action": "bid", "bid": 1}
    assert ant_server.requests[0].body["tool_choice"] == {"type": "tool", "name": "reply"}


async def test_anthropic_thinking_block(
    ant_server: FakeAnthropic, ant: anthropic.AsyncAnthropic
) -> None:
    ant_server.script(Reply(text='{"double": false}', reasoning="weak hand"))
    result = await ant.messages.create(
        model="claude-test",
        max_tokens=2000,
        messages=ANT_MESSAGES,
        thinking={"type": "enabled", "budget_tokens": 1024},
    )
    thinking, text = result.content
    assert thinking.type == "thinking"
    assert thinking.thinking == "weak hand"
    assert text.type == "text"
    assert text.text == '{"double": false}'
    assert ant_server.requests[0].body["thinking"]["budget_tokens"] == 1024


@pytest.mark.parametrize(
    ("fault", "error_class", "error_type"),
    [
        (
            Fault(400, "temperature: unsupported"),
            anthropic.BadRequestError,
            "invalid_request_error",
        ),
        (Fault(429, "slow down", retry_after="7"), anthropic.RateLimitError, "rate_limit_error"),
        (Fault(500, "Internal server error"), anthropic.InternalServerError, "api_error"),
    ],
)
async def test_anthropic_errors(
    ant_server: FakeAnthropic,
    ant: anthropic.AsyncAnthropic,
    fault: Fault,
    error_class: type[anthropic.APIStatusError],
    error_type: str,
) -> None:
    ant_server.script(fault)
    with pytest.raises(error_class) as caught:
        await ant.messages.create(model="claude-test", max_tokens=10, messages=ANT_MESSAGES)
    assert caught.value.status_code == fault.status
    assert isinstance(caught.value.body, dict)
    assert caught.value.body["error"] == {"type": error_type, "message": fault.message}
    if fault.retry_after is not None:
        assert caught.value.response.headers["retry-after"] == fault.retry_after


async def test_anthropic_bad_key(ant_server: FakeAnthropic) -> None:
    client = anthropic.AsyncAnthropic(base_url=ant_server.base_url, api_key="nope", max_retries=0)
    try:
        with pytest.raises(anthropic.AuthenticationError) as caught:
            await client.messages.create(model="claude-test", max_tokens=10, messages=ANT_MESSAGES)
    finally:
        await client.close()
    assert caught.value.status_code == 401
    headers = ant_server.requests[0].headers
    assert "nope" in (headers.get("x-api-key"), headers.get("authorization", "")[7:])


# --- presets -----------------------------------------------------------------------------

REQUIRED = {
    "openai",
    "deepseek",
    "qwen",
    "moonshot",
    "zhipu",
    "openrouter",
    "ollama",
    "vllm",
    "anthropic",
}


def test_every_required_preset_exists() -> None:
    assert set(PRESETS) >= REQUIRED
    assert preset("anthropic").api == "anthropic"
    assert {p.api for name, p in PRESETS.items() if name != "anthropic"} == {"openai"}


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_fields_are_sane(name: str) -> None:
    p = preset(name)
    assert p.name == name
    url = urlsplit(p.base_url)
    if name in ("ollama", "vllm"):
        assert url.scheme == "http"
        assert url.hostname == "localhost"
        assert p.is_local
        assert p.api_key_env is None
        assert p.placeholder_key
    else:
        assert url.scheme == "https"
        assert not p.is_local
        assert p.api_key_env is not None
        assert p.api_key_env.isupper()
        assert p.api_key_env.endswith("_API_KEY")
        assert p.placeholder_key is None
    assert not p.base_url.endswith("/")
    assert 10 <= p.timeout_s <= 300
    assert p.structured in p.structured_modes
    assert set(p.structured_modes) <= set(STRUCTURED_MODES)
    assert p.docs.startswith("https://")
    assert p.note
    if p.api == "anthropic":
        assert p.structured == "tools"
        assert "json_schema" not in p.structured_modes


def test_known_key_variables() -> None:
    assert preset("openai").api_key_env == "OPENAI_API_KEY"
    assert preset("deepseek").api_key_env == "DEEPSEEK_API_KEY"
    assert preset("qwen").api_key_env == "DASHSCOPE_API_KEY"
    assert preset("anthropic").api_key_env == "ANTHROPIC_API_KEY"
    assert preset("deepseek").reasoning_text == "reasoning_content"


def test_misspelt_preset_suggests_the_close_name() -> None:
    with pytest.raises(ConfigError) as caught:
        preset("deepseak")
    message = str(caught.value)
    assert "'deepseak'" in message
    assert "did you mean 'deepseek'?" in message
    for name in REQUIRED:
        assert name in message


def test_unrelated_name_lists_without_guessing() -> None:
    with pytest.raises(ConfigError, match="known providers: openai, ") as caught:
        preset("xyz")
    assert "did you mean" not in str(caught.value)
