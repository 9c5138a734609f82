"""Decision accounting: how each seat decided, how fast, and what its model calls cost.

Every decision of every seat is counted, so the counting sits on the table's hot path
and costs a scripted bot's decision two additions: which outcome, and the time it took.
Everything else (tokens, cost, estimates) comes from the reports of agents that make
them (model seats: :class:`~arena.agents.reports.CallReport`), off the hot path.

``decisions`` is not counted: it is the sum of the three outcomes of the seat's own
agent (legal on the first try, legal after retries, fallen back). Decisions a stand-in
made for the seat are ``standin_decisions`` and count in none of those.
"""

from __future__ import annotations

from typing import Any

from arena.agents.reports import CallReport

__all__ = ["DecisionStats", "DecisionTrace"]


class DecisionStats:
    """Running counters of one seat (or of its stand-in): a round's or a match's."""

    __slots__ = (
        "cost",
        "estimated_calls",
        "fell_back",
        "filtered",
        "input_tokens",
        "latency_s",
        "legal_after_retry",
        "legal_first_try",
        "output_tokens",
        "reasoning_tokens",
    )

    def __init__(self) -> None:
        self.legal_first_try = 0
        self.legal_after_retry = 0
        self.fell_back = 0
        self.latency_s = 0.0
        self.input_tokens = 0
        self.output_tokens = 0
        self.reasoning_tokens = 0
        self.estimated_calls = 0
        self.cost: float | None = None
        """None until a report names a cost (a seat without prices never does)."""
        self.filtered = 0

    @property
    def decisions(self) -> int:
        """Decisions this agent was asked for and that ended (answered or fallen back)."""
        return self.legal_first_try + self.legal_after_retry + self.fell_back

    def add_report(self, report: CallReport) -> None:
        """Count one call's usage and cost."""
        usage = report.usage
        self.input_tokens += usage.input_tokens
        self.output_tokens += usage.output_tokens
        self.reasoning_tokens += usage.reasoning_tokens
        if usage.estimated:
            self.estimated_calls += 1
        if usage.cost is not None:
            self.cost = usage.cost if self.cost is None else self.cost + usage.cost

    def merge(self, other: DecisionStats) -> None:
        """Add another tally into this one (a finished round into the match)."""
        self.legal_first_try += other.legal_first_try
        self.legal_after_retry += other.legal_after_retry
        self.fell_back += other.fell_back
        self.latency_s += other.latency_s
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.estimated_calls += other.estimated_calls
        if other.cost is not None:
            self.cost = other.cost if self.cost is None else self.cost + other.cost
        self.filtered += other.filtered

    def to_dict(self, standin_decisions: int = 0) -> dict[str, Any]:
        """JSON-ready figures, with the decisions stand-ins made for the seat.

        Written out, not built by a loop: this runs three times a round on the hot path.
        """
        cost = self.cost
        first, after, fell_back = self.legal_first_try, self.legal_after_retry, self.fell_back
        return {
            "decisions": first + after + fell_back,
            "legal_first_try": first,
            "legal_after_retry": after,
            "fell_back": fell_back,
            "standin_decisions": standin_decisions,
            "latency_ms": int(self.latency_s * 10_000 + 0.5) / 10,  # round() costs 4x this
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "estimated_calls": self.estimated_calls,
            "cost": None if cost is None else round(cost, 9),
            "filtered": self.filtered,
        }


class DecisionTrace:
    """One decision of a reporting seat, attempt by attempt: the ``decision`` event's data.

    Made only for seats whose own agent reports its calls (model seats).
    """

    __slots__ = ("attempts", "faults", "latency_s", "notices", "reports")

    def __init__(self) -> None:
        self.attempts = 0
        self.latency_s = 0.0
        self.faults: list[str] = []
        self.reports: list[CallReport] = []
        self.notices: list[dict[str, Any]] = []

    def add(self, elapsed_s: float, fault: str | None, report: CallReport | None) -> None:
        """One attempt: its time, its fault category (None when accepted), its report."""
        self.attempts += 1
        self.latency_s += elapsed_s
        if fault is not None:
            self.faults.append(fault)
        if report is not None:
            self.reports.append(report)
            notice = report.notice
            if notice is not None and notice.get("kind") == "budget_spent":
                self.notices.append({k: v for k, v in notice.items() if k != "kind"})

    def event_data(self, *, fell_back: bool) -> dict[str, Any]:
        """The public figures of the decision: sums over its attempts; never a prompt,
        a reply's text or reasoning."""
        reports = self.reports
        last = reports[-1] if reports else None
        costs = [r.usage.cost for r in reports if r.usage.cost is not None]
        return {
            "model": last.model if last is not None else None,
            "provider": last.provider if last is not None else None,
            "attempts": self.attempts,
            "legal_first_try": not fell_back and not self.faults,
            "fell_back": fell_back,
            "faults": list(self.faults),
            "latency_ms": round(self.latency_s * 1000, 1),
            "input_tokens": sum(r.usage.input_tokens for r in reports),
            "output_tokens": sum(r.usage.output_tokens for r in reports),
            "reasoning_tokens": sum(r.usage.reasoning_tokens for r in reports),
            "estimated": any(r.usage.estimated for r in reports),
            "cost": round(sum(costs), 9) if costs else None,
        }
