"""The table orchestrator: rounds between agents, decisions under deadlines, events."""

from arena.table.faults import FAULT_CATEGORIES, FaultCategory, Faults
from arena.table.match import MatchSummary, derive_seed, play_match
from arena.table.moderation import ModerationSettings, Moderator, build_moderator
from arena.table.records import (
    DecisionRecorder,
    EffectRecorder,
    Recorder,
    RoundRecord,
    TeeRecorder,
    public_result,
    tee_recorders,
)
from arena.table.safe_point import (
    BetweenRounds,
    BetweenRoundsHandle,
    NextRound,
    SafePoint,
    SafePointHandle,
)
from arena.table.settings import TableSettings, seat_deadline
from arena.table.stats import DecisionStats
from arena.table.table import Table

__all__ = [
    "FAULT_CATEGORIES",
    "BetweenRounds",
    "BetweenRoundsHandle",
    "DecisionRecorder",
    "DecisionStats",
    "EffectRecorder",
    "FaultCategory",
    "Faults",
    "MatchSummary",
    "ModerationSettings",
    "Moderator",
    "NextRound",
    "Recorder",
    "RoundRecord",
    "SafePoint",
    "SafePointHandle",
    "Table",
    "TableSettings",
    "TeeRecorder",
    "build_moderator",
    "derive_seed",
    "play_match",
    "public_result",
    "seat_deadline",
    "tee_recorders",
]
