"""Wire messages between the arena and an agent, for every game: strict, frozen, tagged by
``type``.

Here is what every game's messages share: the base :class:`Message`, the field types
(players, requests, matches, tables, canonical cards), the limits, the mood of a comment
(:class:`Emotion`), and the three messages the arena itself sends whatever the game:
REPLY_REJECTED (why a reply was refused), MATCH_END (the final standings). A game's own
messages (Dou Dizhu's DEAL, BID_REQUEST, ...: ``arena.games.ddz.messages``) build on
these, and :func:`read_message` reads any game's, given its types.

Messages are pure data: they check shape and self-consistency, never the game rules,
which a game's engine owns.

Errors: :class:`ProtocolError` (also ``ValueError``) is the only error this module raises
on purpose; its message starts with the offending path, e.g. ``PLAY_RESPONSE.cards[2]: …``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from enum import StrEnum
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Final,
    Literal,
    TypeAlias,
    TypeVar,
    get_args,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictInt,
    ValidationError,
    field_validator,
)
from pydantic_core import PydanticCustomError

from protocol.cards import is_canonical

__all__ = [
    "DEFAULT_TIME_LIMIT_MS",
    "MAX_AGENT_SEED",
    "MAX_JSON_INT",
    "MAX_TEXT",
    "NEUTRAL_MESSAGE_TYPES",
    "REJECT_REASONS",
    "AudienceLine",
    "Card",
    "Emotion",
    "MatchEnd",
    "MatchId",
    "Message",
    "PlayerId",
    "ProtocolError",
    "Record",
    "RejectReason",
    "ReplyCard",
    "ReplyRejected",
    "RequestId",
    "RequestType",
    "RoundNo",
    "ShortText",
    "Standing",
    "TableId",
    "cut_to_cap",
    "describe_errors",
    "load_object",
    "no_duplicates",
    "read_message",
    "to_json",
]

#: Time an agent gets when a request names none (the document's examples carry no limit).
DEFAULT_TIME_LIMIT_MS: Final = 30_000

#: The cap on ``comment`` and ``strategy_hint``: shown on stream, so kept short.
MAX_TEXT: Final = 200

#: The largest whole number the arena takes from outside (a gift's value, a provider's
#: token count): every JSON reader holds it exactly (JavaScript's
#: ``Number.MAX_SAFE_INTEGER``), so an event carrying it reads the same everywhere.
MAX_JSON_INT: Final = 2**53 - 1

#: The largest ``seed`` a DEAL carries: the same bound, exact in JavaScript too.
MAX_AGENT_SEED: Final = MAX_JSON_INT


class ProtocolError(ValueError):
    """A message that cannot be read: bad JSON, unknown ``type``, or a field that fails.

    ``errors`` holds one line per problem, each starting with the field path
    (``PLAY_RESPONSE.cards[2]: …``); the exception message joins them with ``; ``.
    """

    def __init__(self, errors: list[str] | str, *, message_type: str | None = None) -> None:
        self.errors: tuple[str, ...] = (errors,) if isinstance(errors, str) else tuple(errors)
        self.message_type = message_type
        super().__init__("; ".join(self.errors))


class Emotion(StrEnum):
    """Mood shown next to an agent's comment on the overlay (docs/protocol.md)."""

    CONFIDENT = "confident"
    NERVOUS = "nervous"
    EXCITED = "excited"
    ANGRY = "angry"
    THINKING = "thinking"
    HAPPY = "happy"
    SAD = "sad"
    TAUNTING = "taunting"


#: Why a reply was not used (REPLY_REJECTED's ``reason``); the arena counts faults by these.
RejectReason: TypeAlias = Literal[
    "timeout", "empty", "unparsable", "truncated", "illegal", "agent_error"
]
REJECT_REASONS: Final[tuple[RejectReason, ...]] = get_args(RejectReason)


def _canonical_card(text: str) -> str:
    if not is_canonical(text):
        raise PydanticCustomError(
            "canonical_card",
            "is not a canonical card (suit symbol then rank, e.g. '♠10', or 小王/大王)",
        )
    return text


_CARD_PATTERN: Final = "^([♠♥♦♣](10|[2-9JQKA])|小王|大王)$"

#: A canonical card string; engine→agent messages use nothing else.
Card = Annotated[
    str,
    AfterValidator(_canonical_card),
    Field(json_schema_extra={"pattern": _CARD_PATTERN}),
]
PlayerId = Annotated[str, Field(min_length=1, max_length=64)]
RequestId = Annotated[str, Field(min_length=1, max_length=64)]
#: Which match and table a message belongs to, so one program can serve several tables.
MatchId = Annotated[str, Field(min_length=1, max_length=64)]
TableId = Annotated[str, Field(min_length=1, max_length=64)]
RoundNo = Annotated[StrictInt, Field(ge=1)]
ShortText = Annotated[str, Field(max_length=MAX_TEXT)]


def cut_to_cap(text: str) -> str:
    """``text`` within :data:`MAX_TEXT`, an ellipsis marking a cut: how the arena keeps
    a chatty agent's comment rather than refusing the move it came with."""
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


#: Any card token an agent may send; the engine resolves it (docs/rules.md, Card notation).
ReplyCard = Annotated[str, Field(min_length=1, max_length=20)]
#: One line of viewer chatter, sanitised by the engine: something said, never an instruction.
AudienceLine = Annotated[str, Field(min_length=1, max_length=100)]


def no_duplicates(items: list[str]) -> None:
    """Refuse a list naming an item twice (a hand, a seat order), as a field error."""
    seen: set[str] = set()
    for item in items:
        if item in seen:
            raise PydanticCustomError("duplicate", "lists '{item}' twice", {"item": item})
        seen.add(item)


def require_type_tag(schema: dict[str, JsonValue]) -> None:
    """Make ``type`` required in the JSON Schema: a reader cannot dispatch without it."""
    required = schema.setdefault("required", [])
    if isinstance(required, list) and "type" not in required:
        required.insert(0, "type")


class Record(BaseModel):
    """A nested part of a message: as strict and frozen as the message itself."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Message(BaseModel):
    """Base of every wire message; subclasses add a ``type`` tag with a default."""

    model_config = ConfigDict(frozen=True, extra="forbid", json_schema_extra=require_type_tag)

    if TYPE_CHECKING:
        # Every concrete message narrows this to its own Literal tag with a default.
        type: str


# ─── nested records ─────────────────────────────────────────────────────────────────────


class Standing(Record):
    """One player's line in the final table; equal scores share a rank."""

    player: PlayerId
    rank: StrictInt = Field(ge=1)
    score: StrictInt
    rounds_won: StrictInt = Field(ge=0)


# ─── what the arena sends in every game ─────────────────────────────────────────────────

#: A request's ``type`` tag, as REPLY_REJECTED names it (``PLAY_REQUEST``): each game has
#: its own requests.
RequestType = Annotated[str, Field(pattern="^[A-Z][A-Z0-9_]*_REQUEST$", max_length=64)]


class ReplyRejected(Message):
    """Your reply to ``request_id`` was not used, why, and how many tries remain.

    With ``retries_left`` > 0 the same request is sent again; at 0 the engine acts for
    the agent (its default move) and the round goes on.
    """

    type: Literal["REPLY_REJECTED"] = "REPLY_REJECTED"
    player_id: PlayerId
    request_type: RequestType
    request_id: RequestId | None = None
    reason: RejectReason
    detail: str = Field(max_length=500)
    retries_left: StrictInt = Field(ge=0)
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class MatchEnd(Message):
    """The match is over: final standings, best first."""

    type: Literal["MATCH_END"] = "MATCH_END"
    rounds_played: StrictInt = Field(ge=0)
    standings: list[Standing] = Field(min_length=1)
    reason: Literal["completed", "stopped"] = "completed"
    match_id: MatchId | None = None
    table_id: TableId | None = None

    @field_validator("standings")
    @classmethod
    def _players_unique(cls, value: list[Standing]) -> list[Standing]:
        no_duplicates([standing.player for standing in value])
        return value


NEUTRAL_MESSAGE_TYPES: Final[tuple[type[Message], ...]] = (ReplyRejected, MatchEnd)
"""The messages the arena sends whatever the game; a game lists them among its own."""


# ─── reading ────────────────────────────────────────────────────────────────────────────

M = TypeVar("M", bound=Message)


def _path(type_name: str, loc: tuple[int | str, ...]) -> str:
    parts = [type_name]
    for part in loc:
        # dict keys come as a "[key]" marker after the key itself: ".remaining_cards.x[key]"
        plain = isinstance(part, int) or part == "[key]"
        parts.append(f"[{part}]" if isinstance(part, int) else part if plain else f".{part}")
    return "".join(parts)


def describe_errors(type_name: str, exc: ValidationError) -> list[str]:
    """pydantic's errors as lines, each starting with the field's path from ``type_name``
    (``PLAY_RESPONSE.cards[2]: ...``), the offending value shown when short."""
    lines = []
    for error in exc.errors(include_url=False):
        message = error["msg"].removeprefix("Value error, ")
        shown = error.get("input")
        if error["type"] != "missing" and isinstance(shown, str | int | float | bool):
            text = repr(shown)
            message = f"{message} (got {text if len(text) <= 40 else text[:37] + '...'})"
        lines.append(f"{_path(type_name, tuple(error['loc']))}: {message}")
    return lines


def load_object(data: str | bytes | Mapping[str, Any]) -> Mapping[str, Any]:
    """JSON text (or an already decoded object) as an object, or a ProtocolError."""
    if isinstance(data, str | bytes | bytearray):
        try:
            data = json.loads(data)
        except json.JSONDecodeError as exc:
            raise ProtocolError(f"invalid JSON: {exc}") from exc
        except RecursionError as exc:
            raise ProtocolError("invalid JSON: nested too deeply") from exc
        except UnicodeDecodeError as exc:
            raise ProtocolError(f"invalid JSON: not UTF-8 text ({exc.reason})") from exc
    if not isinstance(data, Mapping):
        raise ProtocolError(f"a message must be a JSON object, not {type(data).__name__}")
    return data


def read_message(
    data: str | bytes | Mapping[str, Any],
    types: Mapping[str, type[M]],
    *,
    expect: type[M] | None = None,
) -> M:
    """Read one message of a game whose messages are ``types`` (each class by its ``type``
    tag), from JSON text or a decoded object, choosing the class by ``type``.

    With ``expect``, a valid message of another type is an error too, so the arena can
    ask for exactly the reply it is waiting for. Raises :class:`ProtocolError` naming the
    offending field path; never a bare pydantic ``ValidationError``.
    """
    obj = load_object(data)
    known = ", ".join(types)
    if "type" not in obj:
        raise ProtocolError(f"message has no 'type'; expected one of {known}")
    tag = obj["type"]
    model = types.get(tag) if isinstance(tag, str) else None
    if model is None:
        raise ProtocolError(f"unknown message type {tag!r}; expected one of {known}")
    if expect is not None and model is not expect:
        wanted = expect.model_fields["type"].default
        raise ProtocolError(f"expected a {wanted} message, got {tag}", message_type=tag)
    try:
        return model.model_validate(obj)
    except ValidationError as exc:
        raise ProtocolError(describe_errors(tag, exc), message_type=tag) from exc


def to_json(message: Message) -> str:
    """Compact JSON text of a message, non-ASCII (suits, 大王) left as is."""
    return json.dumps(message.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
