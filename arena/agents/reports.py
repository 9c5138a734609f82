"""What a model seat tells the table about each call: tokens, cost, latency, its text.

A scripted bot costs nothing and says nothing worth keeping, so the table asks only
agents that have ``take_report`` (see :class:`Reporting`). After every attempt at a
decision, answered, rejected, failed or cut off by the deadline, the table takes the
agent's report and files it: the numbers to the round record, public events and the live
board; the prompt, the raw reply and the reasoning to the replay only (they may hold the
seat's own cards and must never reach viewers or other agents).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

__all__ = ["CallReport", "Reporting", "Usage"]


@dataclass(slots=True)
class Usage:
    """Tokens of one call, from the provider's usage fields, and what they cost.

    ``estimated`` marks counts the arena worked out itself: a call cut off by the
    deadline, or a provider that sends no usage.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    estimated: bool = False
    cost: float | None = None
    """In the currency of the seat's ``prices``; None when the seat has no prices."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "estimated": self.estimated,
            "cost": self.cost,
        }


@dataclass(slots=True)
class CallReport:
    """One call of a model seat to its provider, for one attempt at a decision."""

    provider: str
    model: str
    usage: Usage
    latency_ms: float
    """From the call's start to its answer or failure, provider retries included."""
    prompt: list[dict[str, Any]] = field(default_factory=list)
    """The messages sent in this call (system, user, and on a retry the model's own
    answer and the table's reason). Replay only."""
    raw_text: str | None = None
    """The model's text as it came (for a forced tool: the tool input as JSON). Replay only."""
    reasoning: str | None = None
    """Reasoning or thinking text, where the provider returns it. Replay only."""
    provider_retries: int = 0
    """Calls retried after a 429 or a 5xx within this attempt."""
    error: str | None = None
    """What went wrong with the provider, if anything (no key, ever)."""
    notice: Mapping[str, Any] | None = None
    """Something to say on stream, e.g. ``{"kind": "budget_spent", "switched_to":
    "gpt-4o-mini"}``; the table emits it as a ``budget_spent`` event."""

    def public(self) -> dict[str, Any]:
        """The figures viewers may see: no prompt, no text, no reasoning."""
        return {
            "provider": self.provider,
            "model": self.model,
            **self.usage.to_dict(),
            "latency_ms": round(self.latency_ms, 1),
            "provider_retries": self.provider_retries,
        }

    def to_dict(self) -> dict[str, Any]:
        """Everything, for the replay."""
        return {
            **self.public(),
            "prompt": self.prompt,
            "raw_text": self.raw_text,
            "reasoning": self.reasoning,
            "error": self.error,
            "notice": dict(self.notice) if self.notice is not None else None,
        }


@runtime_checkable
class Reporting(Protocol):
    """An agent that reports its calls (model seats). Optional for any agent."""

    def take_report(self) -> CallReport | None:
        """The report of the call since the last take, or None; taking clears it."""
        ...
