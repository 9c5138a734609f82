"""Counting what went wrong with an agent's decisions, by category."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Final, Literal, TypeAlias, get_args

from protocol import RejectReason

__all__ = ["FAULT_CATEGORIES", "FaultCategory", "Faults"]

FaultCategory: TypeAlias = Literal[RejectReason, "fallback"]
"""Each reason a reply is rejected for, and ``fallback``: the table decided for the agent."""
FAULT_CATEGORIES: Final[tuple[FaultCategory, ...]] = get_args(FaultCategory)


@dataclass
class Faults:
    """Faults of one agent: each rejected reply by why, and each decision made for it.

    One field per :data:`FAULT_CATEGORIES`, in that order (a test holds them in step).
    """

    timeout: int = 0
    empty: int = 0
    unparsable: int = 0
    truncated: int = 0
    illegal: int = 0
    agent_error: int = 0
    fallback: int = 0

    def add(self, category: FaultCategory, count: int = 1) -> None:
        """Count one more fault of this category."""
        setattr(self, category, getattr(self, category) + count)

    def merge(self, other: Faults) -> None:
        """Add another tally into this one."""
        for key, value in asdict(other).items():
            setattr(self, key, getattr(self, key) + value)

    @property
    def total(self) -> int:
        """All faults, fallbacks included."""
        return sum(asdict(self).values())

    def to_dict(self) -> dict[str, int]:
        """Counts by category (written out: ``asdict`` deep-copies, and this runs per round)."""
        return {
            "timeout": self.timeout,
            "empty": self.empty,
            "unparsable": self.unparsable,
            "truncated": self.truncated,
            "illegal": self.illegal,
            "agent_error": self.agent_error,
            "fallback": self.fallback,
        }
