"""The table orchestrator: rounds between agents, decisions under deadlines, events."""

from arena.table.events import EVENT_TYPES, Event, EventType
from arena.table.faults import FAULT_CATEGORIES, FaultCategory, Faults
from arena.table.match import MatchSummary, derive_seed, play_match
from arena.table.records import Recorder, RoundRecord, public_result
from arena.table.settings import TableSettings
from arena.table.table import SafePoint, Table
from arena.table.views import SeatViews

__all__ = [
    "EVENT_TYPES",
    "FAULT_CATEGORIES",
    "Event",
    "EventType",
    "FaultCategory",
    "Faults",
    "MatchSummary",
    "Recorder",
    "RoundRecord",
    "SafePoint",
    "SeatViews",
    "Table",
    "TableSettings",
    "derive_seed",
    "play_match",
    "public_result",
]
