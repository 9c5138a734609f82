"""The public events' contract, for every game: the envelope, and the ``data`` models of
the events every game publishes alike.

A table emits plain dicts (about 120 events a round, on a tight instruction budget), so
these models never run on the table's path: they document the events (``arena schema``
writes their JSON Schemas, docs/events.md explains them) and let a test or a consumer
check one (:func:`read_event`, given the game's models: Dou Dizhu's are
``arena.games.ddz.events``). Every model forbids unknown keys, so a renamed key fails a
check instead of vanishing from an overlay.

What is here: the turn (``turn_started``), gifts, faults, model decisions and budgets,
stand-ins, and the per-seat figures a round's and a match's results carry. A game adds
its own events (its bids, plays, tricks) and its match, round and result data.

An event never carries hidden information: no hand before the round ends, no prompt, no
model's reasoning.

``EVENT_SCHEMA_VERSION`` changes when a key is renamed or removed or its meaning changes;
a new optional key does not change it. Consumers see it as the MQTT feed's ``v``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Annotated, Any, Final, Literal, TypeAlias

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    JsonValue,
    StrictBool,
    StrictInt,
    StrictStr,
    ValidationError,
)

from protocol.messages import (
    MAX_JSON_INT,
    Emotion,
    PlayerId,
    ProtocolError,
    RejectReason,
    RequestType,
    TableId,
    describe_errors,
    load_object,
)

__all__ = [
    "EVENT_SCHEMA_VERSION",
    "MAX_SEATS",
    "ActionData",
    "BudgetFigures",
    "BudgetSpentData",
    "Count",
    "DecisionData",
    "EventData",
    "EventEnvelope",
    "FaultCounts",
    "FaultData",
    "GiftData",
    "GiftEffect",
    "GiftStatus",
    "SaidData",
    "Seat",
    "SeatReplacedData",
    "SeatStats",
    "TurnStartedData",
    "read_event",
]

EVENT_SCHEMA_VERSION: Final = 1
"""The events' contract version (the MQTT feed's ``v``)."""

MAX_SEATS: Final = 6
"""The most seats a table of any game has (Tractor's six); a game's own models bound a
seat by its own count."""

Seat = Annotated[StrictInt, Field(ge=0, lt=MAX_SEATS)]
#: A count or an amount: at most MAX_JSON_INT, which every JSON reader holds exactly.
Count = Annotated[StrictInt, Field(ge=0, le=MAX_JSON_INT)]


class EventData(BaseModel):
    """Base of every event's ``data``: strict and frozen; an unknown key is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class SaidData(EventData):
    """What an agent said with its action, as viewers may see it (after the moderator)."""

    comment: StrictStr | None = Field(
        default=None, description="The agent's comment for the audience (about 200 chars at most)."
    )
    emotion: Emotion | None = Field(default=None, description="Its mood, for a face or an emoji.")
    hint: StrictStr | None = Field(
        default=None, description="Its strategy hint: what it says it is planning."
    )


class ActionData(SaidData):
    """An action a seat took (or the table took for it), with what it said."""

    fallback: StrictBool = Field(
        description="The table decided for the seat (no usable reply in time, after retries)."
    )


class TurnStartedData(EventData):
    """A seat is asked to decide; its action's event follows (after any faults)."""

    request: RequestType = Field(
        description="What the seat is asked for: the request's type (``PLAY_REQUEST``)."
    )
    agent: StrictStr = Field(description="Who decides: the seat's agent, or its stand-in.")
    time_limit_ms: Annotated[StrictInt, Field(gt=0)] = Field(
        description="The time the seat has to reply, in milliseconds (each retry gets it again)."
    )
    deadline_at: StrictInt = Field(
        description="When the first reply is due: Unix time in milliseconds (wall clock), "
        "for a countdown."
    )


GiftStatus: TypeAlias = Literal["queued", "applied", "rejected", "expired"]


class GiftEffect(StrEnum):
    """What a viewer's gift does in the match; the comment beside each says when it may
    apply in Dou Dizhu. Each game offers those that mean something in it
    (``arena.games.base.Game.gift_effects``); docs/gifts.md lists them."""

    CHEER = "CHEER"  # 加油, play phase: a banner, a quoted audience line for the target
    EMOTE = "EMOTE"  # 表情, play phase: overlay only
    PEEK = "PEEK"  # 偷看牌, play phase: the target's hand on the delayed spectator feed only
    SWAP = "SWAP"  # 换牌: a card of the target for one of an opponent, before it leads
    ADD = "ADD"  # 加牌: the target takes a card from another player, before it leads
    DOUBLE = "DOUBLE"  # 翻倍, any time: +1 to the round's exponent, capped
    EFFECT = "EFFECT"  # 全场特效, any time: overlay only
    ROLE_SWAP = "ROLE_SWAP"  # 角色互换: between rounds, the target is the next landlord
    RESHUFFLE = "RESHUFFLE"  # 重新洗牌: between rounds, the next deal is dealt afresh


class GiftData(EventData):
    """A viewer's gift (one unit of a count-N gift) was queued, or ended: ``applied``,
    ``rejected`` with a reason, or ``expired``. ``seat`` is its target, if any. Viewer
    text is cleaned and capped, but is still the viewer's: show it as text, never markup.
    A PEEK's cards are never here (only on the delayed spectator feed)."""

    id: StrictStr = Field(description="The unit's id: ``<platform>:<event_id>#<unit>``.")
    event_id: StrictStr | None = Field(description="The platform's id of the delivery.")
    platform: StrictStr | None
    status: GiftStatus
    reason: StrictStr | None = Field(
        description="Why it was rejected: ``duplicate``, ``ranked_mode``, ``queue_full``, "
        "``cooldown``, ``last_cards``, ``unmapped``, ``no_target``, ``match_over``, "
        "``not_offered: <game>``, ``unknown_table: <table>``, ``invalid: ...``, "
        "``error: ...``, a reason of the game's own rules (docs/gifts.md lists them), or "
        "the rules' words; null otherwise."
    )
    effect: GiftEffect | None = Field(description="What it does; null when nothing maps it.")
    target: Seat | None = Field(description="The seat it is for, if any.")
    viewer: StrictStr = Field(description="The viewer's shown name (``a viewer`` if anonymous).")
    gift: StrictStr = Field(description="The platform gift's name.")
    kind: StrictStr = Field(description="``gift``, ``super_chat``, ``cheer``, ``points``...")
    value: Count = Field(description="What it cost, in the platform's units (``currency``).")
    currency: StrictStr | None
    message: StrictStr = Field(description="The viewer's message, cleaned (a CHEER's line).")
    test: StrictBool = Field(description="A streamer's or platform's test gift.")
    refund: StrictBool = Field(
        description="It did not apply and the platform can give the viewer their points "
        "back (a Twitch channel-points redemption): a bridge should refund it."
    )
    waiting: Count = Field(description="Gifts waiting in the table's queue once this happened.")
    units: Annotated[StrictInt, Field(ge=1)] = Field(
        default=1,
        description="Units of the gift this event settles: more than 1 when a gift of "
        "count N had units rejected at once for one reason (``id`` ends ``#first-last``).",
    )


# ─── faults, stand-ins and model seats ──────────────────────────────────────────────────


class FaultData(EventData):
    """A seat's reply could not be used; it is asked again while retries are left."""

    category: RejectReason = Field(description="Why the reply was rejected.")
    retries_left: Count = Field(description="Attempts the seat still has for this decision.")


class SeatReplacedData(EventData):
    """A stand-in now plays for the seat (its agent kept failing, or said it cannot go on)."""

    by: StrictStr = Field(description="The stand-in's kind, e.g. ``greedy``.")
    reason: StrictStr = Field(description="Why, in words.")
    until: Literal["round_end", "match_end"] = Field(
        description="How long the stand-in plays for the seat."
    )


class DecisionData(EventData):
    """A model seat's decision, over all its attempts (before its action's event).

    Only seats whose agent reports its calls (model seats) have these.
    """

    model: StrictStr | None = Field(description="The model of the last call, if known.")
    provider: StrictStr | None = Field(description="Its provider, if known.")
    attempts: Annotated[StrictInt, Field(ge=1)] = Field(description="Replies asked for.")
    legal_first_try: StrictBool = Field(description="The first reply was used.")
    fell_back: StrictBool = Field(description="No reply was used: the table decided.")
    faults: list[RejectReason] = Field(description="Why each rejected attempt was rejected.")
    latency_ms: float = Field(description="Time spent on all attempts, in milliseconds.")
    input_tokens: Count = Field(description="Tokens read over all attempts.")
    output_tokens: Count = Field(description="Tokens written (reasoning included).")
    reasoning_tokens: Count = Field(description="Of those, reasoning tokens.")
    estimated: StrictBool = Field(description="Some counts are estimates (no usage reported).")
    cost: float | None = Field(description="Cost of the calls; null without prices.")


class BudgetFigures(EventData):
    """Tokens and cost; a figure not set (or without prices, the cost) is absent."""

    tokens: Count | None = Field(default=None, description="Tokens (input + output).")
    cost: float | None = Field(default=None, description="Cost, in the seat's prices' currency.")


class BudgetSpentData(EventData):
    """A model seat spent its match budget: a cheaper model, or its stand-in, goes on."""

    switched_to: StrictStr = Field(
        description="The cheaper model now playing, or ``standin`` (a stand-in takes the seat)."
    )
    spent: BudgetFigures = Field(description="What the seat spent this match.")
    limit: BudgetFigures = Field(description="The budget's limits that are set.")


# ─── results ────────────────────────────────────────────────────────────────────────────


class FaultCounts(EventData):
    """A player's faults by category: rejected replies, and decisions made for it."""

    timeout: Count
    empty: Count
    unparsable: Count
    truncated: Count
    illegal: Count
    agent_error: Count
    fallback: Count = Field(description="Decisions the table made for the player.")


class SeatStats(EventData):
    """A player's decision figures (a round's, or the match's)."""

    decisions: Count = Field(description="Decisions its own agent was asked for.")
    legal_first_try: Count
    legal_after_retry: Count
    fell_back: Count
    standin_decisions: Count = Field(description="Decisions a stand-in made for it.")
    latency_ms: float = Field(description="Its agent's total time, in milliseconds.")
    input_tokens: Count
    output_tokens: Count
    reasoning_tokens: Count
    estimated_calls: Count = Field(description="Model calls whose usage was estimated.")
    cost: float | None = Field(description="Null when the seat has no prices.")
    filtered: Count = Field(description="Comments or hints the moderator changed.")


class EventEnvelope(BaseModel):
    """One event as published: who, where, in which order, and its ``data``.

    ``arena.events.Event.to_dict()`` gives the first eight keys; the MQTT feed adds
    ``v`` and ``run``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: StrictStr = Field(description="The event type; it says which model ``data`` follows.")
    table: TableId = Field(description="The table's id.")
    round: Count = Field(description="The round (from 1; 0 before the match's first round).")
    seq: Annotated[StrictInt, Field(ge=1)] = Field(
        description="Position in the table's events: 1, 2, 3 ... with no gaps (a duplicate "
        "has a seq already seen)."
    )
    seat: Seat | None = Field(description="The seat the event is about (from 0), if any.")
    player: PlayerId | None = Field(description="That seat's player name, if any.")
    data: dict[str, JsonValue] = Field(description="The event type's data.")
    game: StrictStr = Field(
        default="ddz",
        description="The game the table plays: ``ddz`` (斗地主); absent before the arena "
        "played more than one game, which means ``ddz``.",
    )
    v: StrictInt | None = Field(
        default=None, description="EVENT_SCHEMA_VERSION; set by the MQTT feed."
    )
    run: StrictStr | None = Field(
        default=None, description="The run's id; set by the MQTT feed (two runs never mix)."
    )


def read_event(
    data: str | bytes | Mapping[str, Any], event_data: Mapping[str, type[EventData]]
) -> tuple[EventEnvelope, EventData]:
    """Check one event (JSON text or a decoded object) of a game whose events' ``data``
    models are ``event_data`` (by event type): its envelope, then its ``data``.

    Raises :class:`ProtocolError` naming the offending path (``play.data.cards[0]: ...``).
    """
    obj = load_object(data)
    tag = obj.get("type")
    name = tag if isinstance(tag, str) else "event"
    try:
        envelope = EventEnvelope.model_validate(obj)
    except ValidationError as exc:
        raise ProtocolError(describe_errors(name, exc), message_type=name) from exc
    model = event_data.get(envelope.type)
    if model is None:
        known = ", ".join(event_data)
        raise ProtocolError(
            f"type: unknown event type {envelope.type!r}; expected one of {known}",
            message_type=name,
        )
    try:
        body = model.model_validate(obj["data"])
    except ValidationError as exc:
        raise ProtocolError(describe_errors(f"{name}.data", exc), message_type=name) from exc
    return envelope, body
