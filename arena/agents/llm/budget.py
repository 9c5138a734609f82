"""A model seat's spending in the current match, against its ``budget`` option.

Checked before each call, so the call that spends the budget still completes and the
next one changes: to the cheaper model named by ``budget.then`` (once, for the rest of
the match), or to nothing (``then = "standin"``: the seat refuses, and the table seats
its stand-in). Either way the first such call carries a ``budget_spent`` notice, which
the table turns into an event on stream. A new ``match_id`` in a request starts afresh.

The budget is one limit for the whole match, and it buys the first model's calls: once
it is spent, the cheaper model plays to the end of the match and the budget is not
checked again (a second limit would only hand the seat to its stand-in later, which
``then = "standin"`` already offers). Its calls still count here, costed at
``budget.then_prices`` when given (else at the seat's ``prices``), so the seat's spending
and its stats say what the whole match cost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from arena.agents.llm.options import STANDIN, Budget
from arena.agents.reports import Usage

__all__ = ["Spending", "Verdict"]

_NO_MATCH: Final = object()


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the next call may do: call ``model`` (None: the budget refuses, ``refusal``
    says why), and the notice to put in its report, if any."""

    model: str | None
    notice: dict[str, Any] | None = None
    refusal: str | None = None


class Spending:
    """Tokens and cost spent this match by one seat."""

    __slots__ = (
        "_announced",
        "_budget",
        "_currency",
        "_match",
        "_model",
        "_switched",
        "cost",
        "tokens",
    )

    def __init__(self, budget: Budget | None, model: str, *, currency: str | None) -> None:
        """``currency``: the seat's prices' (None when it has no prices: no cost)."""
        self._budget = budget
        self._model = model
        self._currency = currency
        self._match: object = _NO_MATCH
        self._switched: str | None = None
        self._announced = False
        self.tokens = 0
        self.cost = 0.0

    def check(self, match_id: str | None) -> Verdict:
        """The verdict before a call of the match ``match_id``."""
        if match_id != self._match:
            self._match = match_id
            self.tokens, self.cost = 0, 0.0
            self._switched = None
            self._announced = False
        budget = self._budget
        if self._switched is not None:
            return Verdict(self._switched)
        if budget is None or not budget.spent(self.tokens, self.cost):
            return Verdict(self._model)
        spent: dict[str, Any] = {"tokens": self.tokens}
        if self._currency is not None:  # a seat without prices has no cost to tell
            spent["cost"] = round(self.cost, 6)
        notice = {
            "kind": "budget_spent",
            "switched_to": budget.then,
            "spent": spent,
            "limit": budget.limits(),
        }
        if budget.then != STANDIN:
            self._switched = budget.then
            return Verdict(budget.then, notice)
        currency = self._currency
        limits = []
        if budget.tokens is not None:
            limits.append(f"{budget.tokens} tokens")
        if budget.cost is not None:
            limits.append(f"cost {budget.cost:g} {currency}")
        refusal = (
            f"budget spent: {self.tokens} tokens"
            + (f", cost {self.cost:.4g} {currency}" if currency is not None else "")
            + f" (the budget: {' or '.join(limits)})"
        )
        announce, self._announced = not self._announced, True
        return Verdict(None, notice if announce else None, refusal)

    def spend(self, usage: Usage) -> None:
        """Count one call's tokens (reasoning is part of the output) and cost."""
        self.tokens += usage.input_tokens + usage.output_tokens
        if usage.cost is not None:
            self.cost += usage.cost
