"""What the terminal says about model seats: each seat's figures, and the events they add.

A model seat's ``decision`` events (model, attempts, legal at the first try, fell back,
tokens, cost, latency) add up per player to the headline figures viewers want: how
often it plays legally at the first answer and what it costs so far. The board shows
them beside the seat, a plain line adds a decision's figures to the action it led to,
and a match's end sums them up. Events are read defensively (``.get`` with defaults): a
field the table leaves out, or one a newer table adds, must never stop a display.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ModelTally",
    "budget_words",
    "decision_suffix",
    "duration",
    "money",
    "replaced_words",
]


@dataclass
class ModelTally:
    """A model seat's decisions so far in a match, from its ``decision`` events."""

    model: str = ""
    """The model now playing (the budget's cheaper one after a switch)."""
    models: list[str] = field(default_factory=list)
    """Every model that played, in order: ``["gpt-4o", "gpt-4o-mini"]`` after a switch."""
    decisions: int = 0
    legal_first_try: int = 0
    fell_back: int = 0
    attempts: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    cost: float | None = None
    """None while no decision had a price (a seat without ``prices``)."""
    latency_ms: float = 0.0

    def add(self, data: Mapping[str, Any]) -> None:
        """Count one decision event's figures."""
        self.model = str(data.get("model") or self.model)
        if self.model and (not self.models or self.models[-1] != self.model):
            self.models.append(self.model)
        self.decisions += 1
        self.legal_first_try += bool(data.get("legal_first_try"))
        self.fell_back += bool(data.get("fell_back"))
        self.attempts += _int(data.get("attempts"), 1)
        self.input_tokens += _int(data.get("input_tokens"))
        self.output_tokens += _int(data.get("output_tokens"))
        self.reasoning_tokens += _int(data.get("reasoning_tokens"))
        self.latency_ms += _number(data.get("latency_ms"))
        cost = data.get("cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            self.cost = (self.cost or 0.0) + cost

    def absorb(self, other: ModelTally) -> None:
        """Add another table's figures for the same seat (a total over tables)."""
        for model in other.models:
            if model not in self.models:
                self.models.append(model)
        self.model = other.model or self.model
        self.decisions += other.decisions
        self.legal_first_try += other.legal_first_try
        self.fell_back += other.fell_back
        self.attempts += other.attempts
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.latency_ms += other.latency_ms
        if other.cost is not None:
            self.cost = (self.cost or 0.0) + other.cost

    def board_text(self) -> str:
        """``gpt-4o 7/8 legal 1st · 0.0123``: the board's column for the seat."""
        spent = money(self.cost) if self.cost is not None else f"{_thousands(self.tokens)} tok"
        model = self.model if len(self.model) <= 16 else f"{self.model[:15]}…"
        return f"{model} {self.legal_first_try}/{self.decisions} legal 1st · {spent}"

    @property
    def tokens(self) -> int:
        """Input and output tokens together."""
        return self.input_tokens + self.output_tokens

    def summary(self, player: str) -> str:
        """The match's headline figures of one model seat, in one line; after a budget
        switch it names both models (``gpt-4o → gpt-4o-mini``), since it counts both."""
        after_retry = self.decisions - self.legal_first_try - self.fell_back
        n = self.decisions
        parts = [
            f"{self.legal_first_try} of {n} decision{'s' if n != 1 else ''} legal at the "
            f"first try, {after_retry} after a retry, {self.fell_back} fell back",
            f"{self.input_tokens:,} tokens in, {self.output_tokens:,} out"
            + (f" ({self.reasoning_tokens:,} reasoning)" if self.reasoning_tokens else ""),
        ]
        if self.cost is not None:
            parts.append(f"cost {money(self.cost)}")
        if n:
            parts.append(f"{duration(self.latency_ms / n)} a decision")
        models = " → ".join(self.models) or self.model  # the figures count every model's
        return f"{player} ({models}): {'; '.join(parts)}"


def decision_suffix(data: Mapping[str, Any]) -> str:
    """``  [gpt-4o · 2.1 s · 2 attempts · cost 0.0012]``: a decision's figures after the
    action line it led to."""
    parts = [str(data.get("model") or "model")]
    parts.append(duration(_number(data.get("latency_ms"))))
    attempts = _int(data.get("attempts"), 1)
    if attempts != 1:
        parts.append(f"{attempts} attempts")
    cost = data.get("cost")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        parts.append(f"cost {money(cost)}")
    if data.get("estimated"):
        parts.append("tokens estimated")
    return f"  [{' · '.join(parts)}]"


def budget_words(data: Mapping[str, Any]) -> str:
    """``has spent its budget (cost 0.52, 48,000 tokens): gpt-4o-mini plays on``."""
    spent = data.get("spent")
    shown = ""
    if isinstance(spent, Mapping):
        # a seat without prices spends tokens only: its cost (0) means nothing
        figures = [_figure(key, value) for key, value in spent.items() if value != 0]
        shown = f" ({', '.join(figures)})" if figures else ""
    switched = data.get("switched_to")
    if not switched or switched == "standin":
        then = "a stand-in plays on for it"
    else:
        then = f"{switched} plays on"
    return f"has spent its budget{shown}: {then}"


def replaced_words(data: Mapping[str, Any]) -> str:
    """``is replaced by a heuristic stand-in for the rest of the match: <why>``."""
    until = " for the rest of the match" if data.get("until") == "match_end" else ""
    return f"is replaced by a {data.get('by', '')} stand-in{until}: {data.get('reason', '')}"


def money(cost: float) -> str:
    """Enough digits to tell a cheap call from a free one: 0.00021, 0.0123, 1.23; never
    scientific notation (``7.24e-05`` on a stream overlay): 0.0000724."""
    if cost >= 0.9995:  # what would round to 1
        return f"{cost:.2f}"
    if cost <= 0:
        return "0"
    places = max(2, 2 - math.floor(math.log10(cost)))  # three significant digits
    return f"{cost:.{places}f}".rstrip("0").rstrip(".")


def duration(ms: float) -> str:
    """``4 ms``, ``850 ms``, ``2.1 s``: milliseconds under a second (a local server
    answers in a few), so a fast decision never reads ``0.0 s``."""
    return f"{ms:.0f} ms" if ms < 999.5 else seconds(ms / 1000)


def seconds(value: float) -> str:
    """``0.8 s``, ``12 s``: tenths while they matter."""
    return f"{value:.1f} s" if value < 10 else f"{value:.0f} s"


def _figure(key: str, value: object) -> str:
    if key == "cost" and isinstance(value, int | float):
        return f"cost {money(value)}"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,} {key}"
    return f"{key} {value}"


def _thousands(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 1000 else str(n)


def _int(value: object, default: int = 0) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _number(value: object) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool)
    return float(value) if ok else 0.0  # type: ignore[arg-type]
