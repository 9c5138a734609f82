"""The ``openai`` seat type: a language model behind the OpenAI Chat Completions API.

Every OpenAI-compatible server speaks this API (DeepSeek, Qwen, Moonshot, Zhipu,
OpenRouter, Ollama, vLLM), so one adapter with provider presets
(:mod:`arena.agents.llm.providers`) seats them all. Everything but the call itself
(options, key, conversation, retries, reports, budget) is
:class:`~arena.agents.llm.seat.ModelSeat`'s.

Structured output, by the ``structured`` option: ``json_schema`` (``response_format``
with the strict reply schema), ``json_object``, ``tools`` (one function tool with the
reply schema, forced by ``tool_choice``; its arguments are the reply) or ``none``
(plain text, read leniently).

This module is the only one that imports ``openai``; the registry imports it lazily, so
matches of scripted bots never load the SDK.
"""

from __future__ import annotations

from typing import Any, ClassVar, Final

import openai

from arena.agents.llm.clients import close_clients
from arena.agents.llm.faults import ProviderFault, fault_from_sdk
from arena.agents.llm.game_prompts import AskRequest
from arena.agents.llm.options import check_choice
from arena.agents.llm.providers import ApiKind, Structured
from arena.agents.llm.seat import (
    Completion,
    Conversation,
    ModelSeat,
    NotAnAnswer,
    body_seen,
    read_usage,
    refusal_text,
    think_text,
)
from arena.agents.reports import Usage
from arena.errors import ConfigError
from arena.games.base import GameRules

__all__ = ["OpenAIAgent", "close_clients", "reply_schema"]

_REASONING_EFFORTS: Final = ("none", "minimal", "low", "medium", "high", "xhigh")


def reply_schema(decision: tuple[str, dict[str, Any]]) -> dict[str, Any]:
    """The ``response_format`` of ``json_schema`` mode: exactly what the model decides
    for this kind of request (``decision``: the game's strict schema of it, with its
    name: every key present, the optional ones nullable)."""
    name, schema = decision
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


def reply_tool(decision: tuple[str, dict[str, Any]], *, strict: bool) -> tuple[str, dict[str, Any]]:
    """The ``tools`` mode's one function tool, the reply schema (``decision``, as
    :func:`reply_schema` takes it) as its parameters.

    ``strict`` (constrained decoding of the arguments) only where the provider documents
    strict JSON schemas: elsewhere the field may be refused, and a 400 benches the seat.
    """
    name, schema = decision
    function: dict[str, Any] = {
        "name": name,
        "description": "Give your decision.",
        "parameters": schema,
    }
    if strict:
        function["strict"] = True
    return name, {"type": "function", "function": function}


class OpenAIAgent(ModelSeat):
    """A seat played by a model through the OpenAI Chat Completions API.

    Options: those of :class:`~arena.agents.llm.seat.ModelSeat` (``model``,
    ``provider`` default ``openai``, ``base_url``, ``api_key_env``, ``temperature``,
    ``max_tokens``, ``structured``, ``language``, ``persona``, ``legal_moves``,
    ``prices``, ``budget``, ``concurrency``, ``bench_after_failed_decisions``) and
    ``reasoning_effort``.
    """

    api: ClassVar[ApiKind] = "openai"
    type_name: ClassVar[str] = "openai"
    response_name: ClassVar[str] = "Chat Completions"
    other_types_options: ClassVar[dict[str, str]] = {
        "thinking_budget": 'options.thinking_budget is for type = "anthropic"; '
        "for OpenAI reasoning models use reasoning_effort",
    }
    seat_structured: ClassVar[tuple[Structured, ...]] = (
        "json_schema",
        "json_object",
        "tools",
        "none",
    )

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: GameRules | None = None,
        reasoning_effort: object = None,
        **options: Any,
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)
        self.reasoning_effort = (
            None
            if reasoning_effort is None
            else check_choice(reasoning_effort, "reasoning_effort", _REASONING_EFFORTS)
        )
        if self.reasoning_effort is not None and not self.provider.reasoning_effort:
            raise ConfigError(
                f"options.reasoning_effort is not accepted by provider "
                f"{self.provider.name!r} (its documentation has no such parameter)"
            )

    def _make_client(self) -> openai.AsyncOpenAI:
        # max_retries=0: the retries are the seat's, within the decision's deadline (each
        # call's timeout is the time left of it: _complete's timeout_s).
        return openai.AsyncOpenAI(base_url=self.base_url, api_key=self._api_key, max_retries=0)

    def _fault(self, exc: BaseException) -> ProviderFault | None:
        return fault_from_sdk(exc, openai.APIStatusError, openai.APIConnectionError)

    def _rejection_turn(self, answer: Completion, text: str) -> dict[str, Any]:
        if answer.tool_call_id is not None:
            return {"role": "tool", "tool_call_id": answer.tool_call_id, "content": text}
        return {"role": "user", "content": text}

    async def _complete(
        self,
        client: Any,
        model: str,
        conversation: Conversation,
        request: AskRequest,
        timeout_s: float,
    ) -> Completion:
        arguments: dict[str, Any] = {
            "model": model,
            "messages": [
                {"role": "system", "content": conversation.system},
                *conversation.messages,
            ],
        }
        if self.temperature is not None:
            arguments["temperature"] = self.temperature
        if self.max_tokens is not None:
            arguments[self.provider.max_tokens_field] = self.max_tokens
        if self.reasoning_effort is not None:
            arguments["reasoning_effort"] = self.reasoning_effort
        if self.structured == "json_object":
            arguments["response_format"] = {"type": "json_object"}
        elif self.structured == "json_schema":
            arguments["response_format"] = reply_schema(self.prompts.decision_schema(request))
        elif self.structured == "tools":
            name, tool = reply_tool(
                self.prompts.decision_schema(request),
                strict="json_schema" in self.provider.structured_modes,
            )
            arguments["tools"] = [tool]
            arguments["tool_choice"] = {"type": "function", "function": {"name": name}}
        completion = await client.chat.completions.create(**arguments, timeout=timeout_s)
        choices = getattr(completion, "choices", None)
        if not isinstance(choices, list) or any(
            getattr(choice, "message", None) is None for choice in choices
        ):
            raise NotAnAnswer(body_seen(completion))
        usage, missing = self._read_usage(completion)
        if not completion.choices:
            return Completion(text="", cut_off=False, usage=usage, usage_missing=missing)
        choice = completion.choices[0]
        message = choice.message
        text = message.content or ""
        turn: dict[str, Any] = {"role": "assistant", "content": message.content or ""}
        call_id = None
        calls = [c for c in message.tool_calls or () if getattr(c, "type", None) == "function"]
        if calls:
            call = calls[0]
            call_id = call.id
            text = call.function.arguments
            turn["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.function.name, "arguments": text},
                }
            ]
        refusal = None
        if isinstance(getattr(message, "refusal", None), str) and message.refusal.strip():
            refusal = refusal_text("message.refusal", message.refusal)
        elif choice.finish_reason == "content_filter":
            refusal = (
                "the provider's content filter stopped the answer (finish_reason content_filter)"
            )
        return Completion(
            text=text,
            cut_off=choice.finish_reason == "length",
            refusal=refusal,
            usage=usage,
            usage_missing=missing,
            reasoning=self._reasoning(message) or think_text(text),
            turn=[turn] if text or calls else [],  # nothing said: the retry says why
            tool_call_id=call_id,
        )

    def _reasoning(self, message: Any) -> str | None:
        """Reasoning text in the provider's extra field (DeepSeek, Qwen, OpenRouter ...)."""
        extra = message.model_extra or {}
        reasoning = extra.get(self.provider.reasoning_text or "reasoning_content")
        if reasoning is None:
            reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        return reasoning if isinstance(reasoning, str) and reasoning else None

    @staticmethod
    def _read_usage(completion: Any) -> tuple[Usage | None, tuple[str, ...]]:
        """The usage fields (None when the server sent none: the seat estimates), and
        the counts a partial block lacks (``{"total_tokens": 1030}``: estimated too)."""
        usage = getattr(completion, "usage", None)
        if usage is None:
            return None, ()
        details = getattr(usage, "completion_tokens_details", None)
        reasoning = getattr(details, "reasoning_tokens", None) if details is not None else None
        return read_usage(
            getattr(usage, "prompt_tokens", None),
            getattr(usage, "completion_tokens", None),
            reasoning or 0,
        )
