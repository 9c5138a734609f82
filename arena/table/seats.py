"""What a table keeps per seat: the agent and its stand-in, faults and decision figures.

Kept apart from the turn loop in ``table.py``; the figures' bookkeeping (a round's
counts folded into the match's, a stand-in's decisions counted apart) lives here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from arena.agents.base import Agent
from arena.agents.reports import CallReport
from arena.table.faults import Faults
from arena.table.stats import DecisionStats

__all__ = ["SeatState"]


@dataclass
class SeatState:
    """One seat at a table: its agent, deadline, faults, stand-in and decision figures."""

    index: int
    agent: Agent
    name: str
    timeout_s: float
    faults: Faults = field(default_factory=Faults)
    round_faults: Faults = field(default_factory=Faults)
    standin: Agent | None = None
    standin_until: str | None = None
    """``round_end`` or ``match_end`` while a stand-in holds the seat."""
    failed_in_row: int = 0
    waits: bool = False
    """The agent has awaited before: bind log context before its calls start."""
    reporter: Callable[[], CallReport | None] | None = None
    """The own agent's ``take_report`` (model seats), looked up once."""
    reporting: Callable[[], CallReport | None] | None = None
    """``reporter`` while the own agent plays, None while a stand-in does."""
    stats: DecisionStats = field(default_factory=DecisionStats)
    """This round's decisions of the own agent."""
    standin_stats: DecisionStats | None = None
    """This round's decisions of a stand-in, once one has played (only their number is
    kept: ``standin_decisions``)."""
    tally: DecisionStats = field(init=False)
    """Where the decision in hand is counted: ``stats`` or ``standin_stats``."""
    match_stats: DecisionStats = field(default_factory=DecisionStats)
    """Finished rounds of this match (the own agent's)."""
    match_standin_decisions: int = 0

    def __post_init__(self) -> None:
        reporter = getattr(self.agent, "take_report", None)
        self.reporter = self.reporting = reporter if callable(reporter) else None
        self.tally = self.stats

    @property
    def active(self) -> Agent:
        return self.standin or self.agent

    def seat_standin(self, standin: Agent, until: str) -> None:
        self.standin, self.standin_until = standin, until
        self.reporting = None
        if self.standin_stats is None:
            self.standin_stats = DecisionStats()
        self.tally = self.standin_stats

    def give_back(self) -> None:
        """The own agent plays again."""
        self.standin = self.standin_until = None
        self.reporting = self.reporter
        self.tally = self.stats

    def fold_round(self) -> None:
        """Add this round's counts to the match's and start the next round's from zero
        (once a round: cheap, as scripted tables play thousands)."""
        self.match_stats.merge(self.stats)
        self.tally = self.stats = DecisionStats()
        if self.standin_stats is not None:
            self.match_standin_decisions += self.standin_stats.decisions
            self.standin_stats = None
            if self.standin is not None:
                self.tally = self.standin_stats = DecisionStats()

    def reset_match(self) -> None:
        """A new match: the own agent plays, every count (faults too) starts from zero."""
        self.give_back()
        self.failed_in_row = 0
        self.faults = Faults()
        self.tally = self.stats = DecisionStats()
        self.standin_stats = None
        self.match_stats = DecisionStats()
        self.match_standin_decisions = 0

    def stats_dict(self) -> dict[str, Any]:
        """This round's figures, JSON-ready."""
        standin = self.standin_stats
        return self.stats.to_dict(0 if standin is None else standin.decisions)

    def totals(self) -> DecisionStats:
        """The match so far, this round included."""
        total = DecisionStats()
        total.merge(self.match_stats)
        total.merge(self.stats)
        return total

    def standin_decisions(self, *, match: bool) -> int:
        """Decisions stand-ins made for this seat, this round (or this match so far)."""
        now = 0 if self.standin_stats is None else self.standin_stats.decisions
        return now + self.match_standin_decisions if match else now
