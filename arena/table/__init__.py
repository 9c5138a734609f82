"""The table orchestrator: rounds between agents, decisions under deadlines, events."""

from arena.table.events import EVENT_TYPES, Event, EventType
from arena.table.faults import FaultCategory, Faults
from arena.table.match import MatchSummary, derive_seed, play_match
from arena.table.settings import TableSettings
from arena.table.table import Recorder, RoundRecord, SafePoint, Table

__all__ = [
    "EVENT_TYPES",
    "Event",
    "EventType",
    "FaultCategory",
    "Faults",
    "MatchSummary",
    "Recorder",
    "RoundRecord",
    "SafePoint",
    "Table",
    "TableSettings",
    "derive_seed",
    "play_match",
]
