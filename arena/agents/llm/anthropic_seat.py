"""The ``anthropic`` seat type: a Claude model behind the Anthropic Messages API.

The reply's shape is a forced tool: one tool whose ``input_schema`` is the reply schema,
and ``tool_choice = {"type": "tool", "name": ...}``, so the model answers by calling it
and its input is the reply. ``structured = "none"`` asks for JSON in plain text instead.

Extended thinking (``thinking_budget``): Anthropic refuses a forced ``tool_choice``
together with thinking, so a thinking seat offers the tool with ``tool_choice = auto``
and reads either the tool's input or, when the model answers in text, the JSON in its
text (the prompt asks for JSON either way). Thinking text goes to the report (the
replay) only. Thinking also fixes the temperature, so ``temperature`` and
``thinking_budget`` cannot be combined.

Everything but the call itself is :class:`~arena.agents.llm.seat.ModelSeat`'s. This
module is the only one that imports ``anthropic``; the registry imports it lazily.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Final

import anthropic

from arena.agents.llm.faults import ProviderFault, fault_from_sdk
from arena.agents.llm.game_prompts import AskRequest
from arena.agents.llm.options import check_count
from arena.agents.llm.providers import ApiKind, Structured
from arena.agents.llm.seat import (
    Completion,
    Conversation,
    ModelSeat,
    NotAnAnswer,
    body_seen,
    is_count,
    read_usage,
    refusal_text,
    think_text,
)
from arena.agents.reports import Usage
from arena.errors import ConfigError
from arena.games.base import GameRules

__all__ = ["DEFAULT_MAX_TOKENS", "MIN_THINKING_BUDGET", "AnthropicAgent"]

DEFAULT_MAX_TOKENS: Final = 1024
"""Anthropic requires ``max_tokens``; a decision needs far fewer (plus any thinking)."""
MIN_THINKING_BUDGET: Final = 1024
"""The smallest ``budget_tokens`` Anthropic accepts."""
_CUT_OFF: Final = frozenset({"max_tokens", "model_context_window_exceeded"})
"""Stop reasons of an answer cut short: the output limit, or the context window full
(Anthropic's stop-reason docs: "treat the response as truncated")."""


class AnthropicAgent(ModelSeat):
    """A seat played by a model through the Anthropic Messages API.

    Options: those of :class:`~arena.agents.llm.seat.ModelSeat` (``model``,
    ``provider`` default ``anthropic``, ``base_url``, ``api_key_env`` default
    ``ANTHROPIC_API_KEY``, ``temperature``, ``max_tokens`` default 1024 (the thinking
    budget + 1024 with thinking), ``structured`` ``tools`` / ``none``, ``language``,
    ``persona``, ``legal_moves``, ``prices``, ``budget``, ``concurrency``,
    ``bench_after_failed_decisions``) and ``thinking_budget`` (tokens, at least 1024:
    extended thinking).
    """

    api: ClassVar[ApiKind] = "anthropic"
    type_name: ClassVar[str] = "anthropic"
    other_types_options: ClassVar[dict[str, str]] = {
        "reasoning_effort": 'options.reasoning_effort is for type = "openai"; for '
        "Claude's extended thinking use thinking_budget (tokens, at least 1024)",
    }
    response_name: ClassVar[str] = "Messages"
    seat_structured: ClassVar[tuple[Structured, ...]] = ("tools", "none")

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: GameRules | None = None,
        thinking_budget: object = None,
        **options: Any,
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)
        self.thinking_budget = check_count(thinking_budget, "thinking_budget", MIN_THINKING_BUDGET)
        if self.thinking_budget is None:
            self.max_tokens = self.max_tokens or DEFAULT_MAX_TOKENS
            return
        if self.temperature is not None:
            raise ConfigError(
                "options.temperature cannot be set with options.thinking_budget: "
                "Anthropic's extended thinking fixes the temperature"
            )
        if self.max_tokens is None:
            self.max_tokens = self.thinking_budget + DEFAULT_MAX_TOKENS
        elif self.max_tokens <= self.thinking_budget:
            raise ConfigError(
                f"options.max_tokens ({self.max_tokens}) must be more than "
                f"options.thinking_budget ({self.thinking_budget}): thinking counts toward it"
            )

    def _make_client(self) -> anthropic.AsyncAnthropic:
        # max_retries=0: the retries are the seat's, within the decision's deadline (each
        # call's timeout is the time left of it: _complete's timeout_s).
        return anthropic.AsyncAnthropic(
            base_url=self.base_url, api_key=self._api_key, max_retries=0
        )

    def _fault(self, exc: BaseException) -> ProviderFault | None:
        return fault_from_sdk(exc, anthropic.APIStatusError, anthropic.APIConnectionError)

    def _rejection_turn(self, answer: Completion, text: str) -> dict[str, Any]:
        if answer.tool_call_id is not None:  # a tool_use must be answered by its result
            result = {
                "type": "tool_result",
                "tool_use_id": answer.tool_call_id,
                "content": text,
                "is_error": True,
            }
            return {"role": "user", "content": [result]}
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
            "max_tokens": self.max_tokens,
            "system": conversation.system,
            "messages": conversation.messages,
        }
        if self.temperature is not None:  # this SDK has no argument for it; the API takes it
            arguments["extra_body"] = {"temperature": self.temperature}
        if self.thinking_budget is not None:
            arguments["thinking"] = {"type": "enabled", "budget_tokens": self.thinking_budget}
        tool_name = None
        if self.structured == "tools":
            tool_name, schema = self.prompts.decision_schema(request, strict=False)
            arguments["tools"] = [
                {"name": tool_name, "description": "Give your decision.", "input_schema": schema}
            ]
            # a forced tool and thinking do not combine: the model may then answer in text
            arguments["tool_choice"] = (
                {"type": "auto"}
                if self.thinking_budget is not None
                else {"type": "tool", "name": tool_name}
            )
        message = await client.messages.create(**arguments, timeout=timeout_s)
        if not isinstance(getattr(message, "content", None), list):
            raise NotAnAnswer(body_seen(message))
        return _read(message, tool_name)


def _read(message: Any, tool_name: str | None) -> Completion:
    """The reply text (the tool's input as JSON, else the text), thinking apart, and
    the assistant turn as the API wants it back."""
    texts: list[str] = []
    thoughts: list[str] = []
    tool_input: str | None = None
    tool_id: str | None = None
    turn: list[dict[str, Any]] = []
    for block in message.content:
        kind = getattr(block, "type", None)
        if kind == "thinking":
            thoughts.append(block.thinking)
            signed = {"thinking": block.thinking, "signature": block.signature}
            turn.append({"type": "thinking", **signed})
        elif kind == "redacted_thinking":
            turn.append({"type": "redacted_thinking", "data": block.data})
        elif kind == "text" and block.text:  # the API refuses an empty text block back
            texts.append(block.text)
            turn.append({"type": "text", "text": block.text})
        elif kind == "tool_use" and tool_input is None and block.name == tool_name:
            tool_input = json.dumps(block.input, ensure_ascii=False)
            tool_id = block.id
            called = {"id": block.id, "name": block.name, "input": block.input}
            turn.append({"type": "tool_use", **called})
    text = "".join(texts)
    usage: Usage | None = None
    missing: tuple[str, ...] = ()
    sent = getattr(message, "usage", None)
    if sent is not None:
        input_tokens = getattr(sent, "input_tokens", None)
        if is_count(input_tokens):  # cached tokens are input too (a count, if sent as one)
            for cached in ("cache_creation_input_tokens", "cache_read_input_tokens"):
                more = getattr(sent, cached, None)
                input_tokens += more if is_count(more) else 0
        usage, missing = read_usage(input_tokens, getattr(sent, "output_tokens", None))
    return Completion(
        text=tool_input if tool_input is not None else text,
        cut_off=message.stop_reason in _CUT_OFF,
        refusal=refusal_text("stop_reason refusal", text)
        if message.stop_reason == "refusal"
        else None,
        usage=usage,
        usage_missing=missing,
        reasoning="\n\n".join(thoughts) or think_text(text),
        turn=[{"role": "assistant", "content": turn}] if turn else [],
        tool_call_id=tool_id,
    )
