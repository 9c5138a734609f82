"""The wire protocol between the arena and agents, for every game: card notation, the
messages and events every game shares, and their JSON Schemas.

Pure data (pydantic + stdlib); never imports ``arena``. A game's own messages and events
build on these and live in its package (Dou Dizhu's: ``arena.games.ddz.messages`` and
``arena.games.ddz.events``). Agent authors in other languages should read
docs/protocol.md, or run ``arena schema DIR`` for JSON Schemas; the public events are
documented in docs/events.md.
"""

from protocol.cards import (
    ACE,
    BIG_JOKER,
    CANONICAL_CARDS,
    RANK_NAMES,
    SMALL_JOKER,
    SUITS,
    TWO,
    CardNotationError,
    is_canonical,
    parse_token,
    rank_name,
)
from protocol.events import (
    EVENT_SCHEMA_VERSION,
    EventData,
    EventEnvelope,
    GiftEffect,
    read_event,
)
from protocol.messages import (
    DEFAULT_TIME_LIMIT_MS,
    MAX_AGENT_SEED,
    MAX_JSON_INT,
    MAX_TEXT,
    REJECT_REASONS,
    Emotion,
    MatchEnd,
    Message,
    ProtocolError,
    RejectReason,
    ReplyRejected,
    Standing,
    cut_to_cap,
    read_message,
    to_json,
)
from protocol.schema import (
    ENVELOPE_SCHEMA_NAME,
    UNION_SCHEMA_NAME,
    envelope_schema,
    event_json_schemas,
    json_schemas,
    union_schema,
    write_event_schemas,
    write_schemas,
)

__all__ = [
    "ACE",
    "BIG_JOKER",
    "CANONICAL_CARDS",
    "DEFAULT_TIME_LIMIT_MS",
    "ENVELOPE_SCHEMA_NAME",
    "EVENT_SCHEMA_VERSION",
    "MAX_AGENT_SEED",
    "MAX_JSON_INT",
    "MAX_TEXT",
    "RANK_NAMES",
    "REJECT_REASONS",
    "SMALL_JOKER",
    "SUITS",
    "TWO",
    "UNION_SCHEMA_NAME",
    "CardNotationError",
    "Emotion",
    "EventData",
    "EventEnvelope",
    "GiftEffect",
    "MatchEnd",
    "Message",
    "ProtocolError",
    "RejectReason",
    "ReplyRejected",
    "Standing",
    "cut_to_cap",
    "envelope_schema",
    "event_json_schemas",
    "is_canonical",
    "json_schemas",
    "parse_token",
    "rank_name",
    "read_event",
    "read_message",
    "to_json",
    "union_schema",
    "write_event_schemas",
    "write_schemas",
]
