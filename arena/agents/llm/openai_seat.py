"""The ``openai`` seat type: a language model behind the OpenAI Chat Completions API.

Every OpenAI-compatible server speaks this API (DeepSeek, Qwen, Moonshot, Zhipu,
OpenRouter, Ollama, vLLM), so one adapter with provider presets
(:mod:`arena.agents.llm.providers`) seats them all. The table owns the deadline, the
rejections, the retries and the fallback: this agent asks the model once per call and
returns the reply message, or raises :class:`~arena.errors.AgentReplyError` saying why
there is none. On a retry of the same request it continues the conversation with the
model's own answer and the table's reason, so the model can correct itself.

This module is the only one that imports ``openai``; the registry imports it lazily, so
matches of scripted bots never load the SDK. Not built yet (issue 9): provider retries
(429/5xx), benching a seat after a permanent error, token accounting, budgets.
"""

from __future__ import annotations

import asyncio
import os
import re
import weakref
from typing import Any, Final, Literal, TypeAlias, cast, get_args

import openai
from openai.types.chat import ChatCompletionMessageParam

from arena.agents.base import BaseAgent
from arena.agents.llm.extract import extract_reply
from arena.agents.llm.prompts import LANGUAGES, Language, LegalMoves, build_prompt, retry_text
from arena.agents.llm.providers import Preset, preset
from arena.engine import DEFAULT_RULES, Rules
from arena.errors import AgentReplyError, ConfigError
from arena.logs import get_logger
from protocol import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    Emotion,
    HandType,
    Message,
    PlayRequest,
    PlayResponse,
    ReplyRejected,
)

__all__ = ["OpenAIAgent", "close_clients", "reply_schema"]

log = get_logger(__name__)

SeatStructured: TypeAlias = Literal["json_schema", "json_object", "none"]
_STRUCTURED: Final[tuple[str, ...]] = get_args(SeatStructured)
_LEGAL_MOVES: Final[tuple[str, ...]] = get_args(LegalMoves)
_REASONING_EFFORTS: Final = ("none", "minimal", "low", "medium", "high", "xhigh")
_MAX_ERROR_TEXT: Final = 200
_SECRET_LIKE: Final = re.compile(r"\b(sk|key)-[A-Za-z0-9_*.\-]{4,}", re.IGNORECASE)

AskRequest: TypeAlias = BidRequest | DoubleRequest | PlayRequest

# One client per event loop, base URL and key: the SDK's connection pool belongs to the
# loop that made it, and sharing it across seats keeps one pool per provider.
_CLIENTS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[str, str], openai.AsyncOpenAI]
] = weakref.WeakKeyDictionary()


def _client(base_url: str, api_key: str) -> openai.AsyncOpenAI:
    """The shared client for this loop, base URL and key (made on first use).

    ``max_retries=0``: the table owns retries and the deadline (which cancels the call).
    """
    loop = asyncio.get_running_loop()
    clients = _CLIENTS.setdefault(loop, {})
    client = clients.get((base_url, api_key))
    if client is None:
        client = openai.AsyncOpenAI(base_url=base_url, api_key=api_key, max_retries=0)
        clients[(base_url, api_key)] = client
    return client


async def close_clients() -> None:
    """Close every shared client of the running event loop (tests, the process end)."""
    clients = _CLIENTS.pop(asyncio.get_running_loop(), {})
    for client in clients.values():
        await client.close()


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_TEXT_FIELDS: Final[dict[str, Any]] = {
    "comment": _nullable({"type": "string"}),
    "emotion": _nullable({"type": "string", "enum": [e.value for e in Emotion]}),
    "strategy_hint": _nullable({"type": "string"}),
}
_DECISIONS: Final[dict[type[Message], tuple[str, dict[str, Any]]]] = {
    BidRequest: ("bid_reply", {"bid": {"type": "integer", "enum": [0, 1, 2, 3]}}),
    DoubleRequest: ("double_reply", {"double": {"type": "boolean"}}),
    PlayRequest: (
        "play_reply",
        {
            "action": {"type": "string", "enum": ["PLAY", "PASS"]},
            "cards": {"type": "array", "items": {"type": "string"}},
            "hand_type": _nullable({"type": "string", "enum": [h.value for h in HandType]}),
        },
    ),
}


def reply_schema(request: AskRequest) -> dict[str, Any]:
    """The ``response_format`` of ``json_schema`` mode: exactly what the model decides
    for this kind of request (strict: every key present, the optional ones nullable)."""
    name, decision = next(found for kind, found in _DECISIONS.items() if isinstance(request, kind))
    properties = {**decision, **_TEXT_FIELDS}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": name,
            "strict": True,
            "schema": {
                "type": "object",
                "properties": properties,
                "required": list(properties),
                "additionalProperties": False,
            },
        },
    }


class _Conversation:
    """One request's exchange with the model, kept for its retries."""

    __slots__ = ("answer", "messages", "rejection", "request_id")

    def __init__(self, request_id: str | None, messages: list[ChatCompletionMessageParam]):
        self.request_id = request_id
        self.messages = messages
        self.answer: str | None = None
        self.rejection: ReplyRejected | None = None


class OpenAIAgent(BaseAgent):
    """A seat played by a model through the OpenAI Chat Completions API.

    Options: ``model`` (required), ``provider`` (preset, default ``openai``), ``base_url``,
    ``api_key_env``, ``temperature``, ``max_tokens``, ``reasoning_effort``, ``structured``
    (``json_schema`` / ``json_object`` / ``none``; the preset's default), ``language``
    (``zh`` / ``en``), ``persona``, ``legal_moves`` (``none`` / ``summary`` / ``full``).
    The key is read from the environment at construction and never shown anywhere.
    """

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: Rules = DEFAULT_RULES,
        model: object = None,
        provider: object = "openai",
        base_url: object = None,
        api_key_env: object = None,
        temperature: object = None,
        max_tokens: object = None,
        reasoning_effort: object = None,
        structured: object = None,
        language: object = "zh",
        persona: object = None,
        legal_moves: object = "none",
        **options: Any,
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)
        if not isinstance(model, str) or not model.strip():
            raise ConfigError("options.model is required: the model's name, e.g. 'gpt-4o-mini'")
        self.model = model
        if not isinstance(provider, str):
            raise ConfigError(f"options.provider must be a provider name, not {provider!r}")
        try:
            found: Preset = preset(provider)
        except ConfigError as exc:
            raise ConfigError(f"options.provider: {exc}") from None
        if found.api != "openai":
            raise ConfigError(
                f"options.provider {provider!r} speaks the {found.api} API, not OpenAI's: "
                f"use type = {found.api!r}"
            )
        self.provider = found
        self.base_url = found.base_url if base_url is None else _url(base_url)
        self.temperature = _number(temperature, "temperature", 0.0, 2.0)
        self.max_tokens = _count(max_tokens, "max_tokens")
        if reasoning_effort is not None and reasoning_effort not in _REASONING_EFFORTS:
            raise ConfigError(
                f"options.reasoning_effort must be one of {', '.join(_REASONING_EFFORTS)}, "
                f"not {reasoning_effort!r}"
            )
        self.reasoning_effort: str | None = reasoning_effort
        chosen = found.structured if structured is None else structured
        if chosen not in _STRUCTURED:
            raise ConfigError(
                f"options.structured must be one of {', '.join(_STRUCTURED)}, not {chosen!r}"
                + (" (tools are not supported yet)" if chosen == "tools" else "")
            )
        if chosen not in found.structured_modes:
            raise ConfigError(
                f"options.structured {chosen!r} is not supported by provider {found.name!r} "
                f"(it supports: {', '.join(m for m in found.structured_modes if m in _STRUCTURED)})"
            )
        self.structured = cast(SeatStructured, chosen)
        if language not in LANGUAGES:
            raise ConfigError(
                f"options.language must be one of {', '.join(LANGUAGES)}, not {language!r}"
            )
        self.language: Language = language
        if persona is not None and not isinstance(persona, str):
            raise ConfigError(f"options.persona must be text, not {type(persona).__name__}")
        self.persona = persona or None
        if legal_moves not in _LEGAL_MOVES:
            raise ConfigError(
                f"options.legal_moves must be one of {', '.join(_LEGAL_MOVES)}, not {legal_moves!r}"
            )
        self.legal_moves = cast(LegalMoves, legal_moves)
        self._api_key = self._read_key(api_key_env)
        self._conversation: _Conversation | None = None
        self.last_reasoning: str | None = None
        """Reasoning text of the last answer, when the provider returns it (for the
        replay, later); never part of a reply."""

    def __repr__(self) -> str:
        return (
            f"OpenAIAgent(name={self.name!r}, provider={self.provider.name!r}, "
            f"model={self.model!r})"
        )

    def _read_key(self, api_key_env: object) -> str:
        """The key from the environment; a ConfigError naming the variable, never a value."""
        if api_key_env is not None and (
            not isinstance(api_key_env, str) or not api_key_env.strip()
        ):
            raise ConfigError(
                f"options.api_key_env must name an environment variable, not {api_key_env!r}"
            )
        variable = api_key_env if api_key_env is not None else self.provider.api_key_env
        if variable is None:
            assert self.provider.placeholder_key is not None
            return self.provider.placeholder_key
        key = os.environ.get(variable, "")
        if not key.strip():
            raise ConfigError(
                f"the environment variable {variable} is not set or empty: it must hold "
                f"the {self.provider.name} API key (options.api_key_env names another)"
            )
        return key.strip()

    async def open(self) -> None:
        """Make (or share) the client in this event loop, before the first decision."""
        _client(self.base_url, self._api_key)

    async def notify(self, message: Message) -> None:
        """Remember a rejection of the request being answered, for its retry."""
        conversation = self._conversation
        if (
            isinstance(message, ReplyRejected)
            and conversation is not None
            and message.request_id == conversation.request_id
        ):
            conversation.rejection = message

    async def bid(self, request: BidRequest) -> BidResponse:
        text, cut_off = await self._ask(request)
        return extract_reply(text, request, cut_off=cut_off).reply

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        text, cut_off = await self._ask(request)
        return extract_reply(text, request, cut_off=cut_off).reply

    async def play(self, request: PlayRequest) -> PlayResponse:
        text, cut_off = await self._ask(request)
        return extract_reply(text, request, cut_off=cut_off).reply

    async def _ask(self, request: AskRequest) -> tuple[str, bool]:
        """The model's text for this request (a continued conversation on a retry), and
        whether the provider cut it off at the token limit."""
        messages = self._messages(request)
        arguments: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            arguments["temperature"] = self.temperature
        if self.max_tokens is not None:
            arguments["max_tokens"] = self.max_tokens
        if self.reasoning_effort is not None:
            arguments["reasoning_effort"] = self.reasoning_effort
        if self.structured == "json_object":
            arguments["response_format"] = {"type": "json_object"}
        elif self.structured == "json_schema":
            arguments["response_format"] = reply_schema(request)
        client = _client(self.base_url, self._api_key)
        try:
            completion = await client.chat.completions.create(**arguments)
        except openai.APIStatusError as exc:
            # "from None": the SDK error holds the request, headers (the key) included.
            raise AgentReplyError("agent_error", self._status_detail(exc)) from None
        except openai.APIConnectionError as exc:  # APITimeoutError too
            why = "timed out" if isinstance(exc, openai.APITimeoutError) else self._scrub(str(exc))
            raise AgentReplyError(
                "agent_error",
                f"cannot reach {self.provider.name} at {self.base_url}: {why}",
            ) from None
        if not completion.choices:
            raise AgentReplyError("empty", f"{self.provider.name} returned no choices")
        choice = completion.choices[0]
        text = choice.message.content or ""
        extra = choice.message.model_extra or {}
        reasoning = extra.get(self.provider.reasoning_text or "reasoning_content")
        if reasoning is None:
            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        self.last_reasoning = reasoning if isinstance(reasoning, str) else None
        assert self._conversation is not None
        self._conversation.answer = text
        self._conversation.rejection = None
        return text, choice.finish_reason == "length"

    def _messages(self, request: AskRequest) -> list[ChatCompletionMessageParam]:
        """A new conversation for a new request; on a retry, the old one with the
        model's answer and the table's reason appended."""
        old = self._conversation
        if (
            old is not None
            and request.request_id is not None
            and old.request_id == request.request_id
            and old.rejection is not None
            and old.answer
        ):
            old.messages = [
                *old.messages,
                {"role": "assistant", "content": old.answer},
                {"role": "user", "content": retry_text(old.rejection, language=self.language)},
            ]
            old.answer = None
            return old.messages
        prompt = build_prompt(
            request,
            language=self.language,
            persona=self.persona,
            legal_moves=self.legal_moves,
            rules=self.rules,
        )
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": prompt.system},
            {"role": "user", "content": prompt.user},
        ]
        self._conversation = _Conversation(request.request_id, messages)
        return messages

    def _status_detail(self, exc: openai.APIStatusError) -> str:
        """``openai model 'gpt-x': HTTP 400 <message> (param: temperature)``, no key."""
        body = exc.body
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str) or not message:
            message = exc.message
        message = self._scrub(" ".join(message.split()))
        if len(message) > _MAX_ERROR_TEXT:
            message = message[: _MAX_ERROR_TEXT - 1] + "…"
        param = getattr(exc, "param", None)
        named = f" (param: {param})" if exc.status_code == 400 and param else ""
        log.debug(
            "model_call_failed",
            agent=self.name,
            provider=self.provider.name,
            model=self.model,
            status=exc.status_code,
        )
        return f"{self.provider.name} model {self.model!r}: HTTP {exc.status_code} {message}{named}"

    def _scrub(self, text: str) -> str:
        """The text with the key (and anything shaped like one) masked."""
        if self._api_key:
            text = text.replace(self._api_key, "***")
        return _SECRET_LIKE.sub(r"\1-***", text)


def _url(value: object) -> str:
    if not isinstance(value, str) or not re.match(r"https?://[^/\s]+", value):
        raise ConfigError(
            f"options.base_url must be an http(s) URL such as 'https://api.example.com/v1', "
            f"not {value!r}"
        )
    return value.rstrip("/")


def _number(value: object, option: str, low: float, high: float) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        raise ConfigError(
            f"options.{option} must be a number from {low:g} to {high:g}, not {value!r}"
        )
    return float(value)


def _count(value: object, option: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(f"options.{option} must be a whole number of at least 1, not {value!r}")
    return value
