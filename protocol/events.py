"""The public events' contract: the envelope, and one strict model per event type's ``data``.

A table emits plain dicts (about 120 events a round, on a tight instruction budget), so
these models never run on the table's path: they document the events (``arena schema``
writes their JSON Schemas, docs/events.md explains them) and let a test or a consumer
check one (:func:`parse_event`). Every model forbids unknown keys, so a renamed key fails
a check instead of vanishing from an overlay.

An event never carries hidden information: no hand before the round ends (the round's
result shows the final hands, then public), no prompt, no model's reasoning.

``EVENT_SCHEMA_VERSION`` changes when a key is renamed or removed or its meaning changes;
a new optional key does not change it. Consumers see it as the MQTT feed's ``v``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, TypeAlias, get_args

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
    BidMode,
    BidValue,
    CallScore,
    Card,
    DoubleKind,
    Emotion,
    HandType,
    PlayerId,
    ProtocolError,
    Rank,
    RejectReason,
    SpringKind,
    Standing,
    TableId,
    _describe,
    _load,
)

__all__ = [
    "EVENT_DATA",
    "EVENT_SCHEMA_VERSION",
    "EVENT_TYPES",
    "BidData",
    "BudgetFigures",
    "BudgetSpentData",
    "DecisionData",
    "DoubleData",
    "EffectAppliedData",
    "EventData",
    "EventEnvelope",
    "EventType",
    "FaultCounts",
    "FaultData",
    "GiftData",
    "LandlordChosenData",
    "MatchEndedData",
    "MatchRules",
    "MatchStartedData",
    "PassData",
    "PlayData",
    "PublicSettlement",
    "RedealData",
    "RoundResultData",
    "RoundStartedData",
    "SeatReplacedData",
    "SeatStats",
    "TrickWonData",
    "TurnStartedData",
    "parse_event",
]

EVENT_SCHEMA_VERSION: Final = 1
"""The events' contract version (the MQTT feed's ``v``)."""

EventType: TypeAlias = Literal[
    "match_started",
    "round_started",
    "redeal",
    "turn_started",
    "bid",
    "landlord_chosen",
    "double",
    "play",
    "pass",
    "trick_won",
    "effect_applied",
    "gift",
    "fault",
    "decision",
    "budget_spent",
    "seat_replaced",
    "round_result",
    "match_ended",
]
EVENT_TYPES: Final[tuple[EventType, ...]] = get_args(EventType)

Seat = Annotated[StrictInt, Field(ge=0, le=2)]
#: A count or an amount: at most MAX_JSON_INT, which every JSON reader holds exactly.
Count = Annotated[StrictInt, Field(ge=0, le=MAX_JSON_INT)]
Players = Annotated[list[PlayerId], Field(min_length=3, max_length=3)]


class EventData(BaseModel):
    """Base of every event's ``data``: strict and frozen; an unknown key is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class _Said(EventData):
    """What an agent said with its action, as viewers may see it (after the moderator)."""

    comment: StrictStr | None = Field(
        default=None, description="The agent's comment for the audience (about 200 chars at most)."
    )
    emotion: Emotion | None = Field(default=None, description="Its mood, for a face or an emoji.")
    hint: StrictStr | None = Field(
        default=None, description="Its strategy hint: what it says it is planning."
    )


class _Action(_Said):
    fallback: StrictBool = Field(
        description="The table decided for the seat (no usable reply in time, after retries)."
    )


# ─── the match and its rounds ───────────────────────────────────────────────────────────


class MatchRules(EventData):
    """The rules an overlay needs to score live (docs/rules.md)."""

    scoring: Literal["competition", "casual"] = Field(description="The scoring preset.")
    bidding: Literal["single_round", "until_settled", "grab"] = Field(
        description="叫分: one round of bids, or bids until settled; or 抢地主."
    )
    doubling: StrictBool = Field(description="Farmers are asked to double (加倍).")
    per_defender_doubling: StrictBool = Field(
        description="A farmer's double counts only between that farmer and the landlord."
    )
    quadplex_as_bomb: StrictBool = Field(description="A four-with-two counts as a bomb.")
    max_gift_doubles: Count = Field(description="Viewer gifts that may double one round.")


class MatchStartedData(EventData):
    """A match begins at the table (``round`` is 0 before its first round)."""

    players: Players = Field(description="The three players' names, by seat 0, 1, 2.")
    rounds: Annotated[StrictInt, Field(ge=1)] | None = Field(
        description="Rounds the match will play at most; null when open-ended (a tournament's "
        "daily format: rounds until stopped)."
    )
    rules: MatchRules
    match_id: StrictStr | None = Field(
        default=None,
        description="The match's id, as every message to the agents names it (not the seed).",
    )


class RoundStartedData(EventData):
    """A round begins: the cards are dealt (the hands are never in an event)."""

    players: Players = Field(description="The three players' names, by seat.")
    landlord: Seat | None = Field(
        default=None,
        description="Set when bidding is skipped: a viewer's 角色互换 (ROLE_SWAP) made this "
        "seat landlord.",
    )
    reshuffled: StrictBool = Field(
        default=False, description="A viewer's 重新洗牌 (RESHUFFLE) threw the prepared deal away."
    )


class RedealData(EventData):
    """Nobody bid: the cards are dealt again."""

    deal_number: Annotated[StrictInt, Field(ge=2)] = Field(
        description="Which deal of the round this is (2 for the first redeal)."
    )
    first_bidder: Seat = Field(description="The seat that bids first on the new deal.")


class TurnStartedData(EventData):
    """A seat is asked to decide; its action's event follows (after any faults)."""

    request: Literal["BID_REQUEST", "DOUBLE_REQUEST", "PLAY_REQUEST"] = Field(
        description="What the seat is asked for."
    )
    agent: StrictStr = Field(description="Who decides: the seat's agent, or its stand-in.")
    time_limit_ms: Annotated[StrictInt, Field(gt=0)] = Field(
        description="The time the seat has to reply, in milliseconds (each retry gets it again)."
    )
    deadline_at: StrictInt = Field(
        description="When the first reply is due: Unix time in milliseconds (wall clock), "
        "for a countdown."
    )


# ─── bidding and doubling ───────────────────────────────────────────────────────────────


class BidData(_Action):
    """A seat's bid (叫分), or in grab bidding its call or grab (叫地主 / 抢地主)."""

    bid: BidValue = Field(description="0 is a pass; 1-3 a score (grab bidding: 1 calls or grabs).")
    mode: BidMode = Field(description="The bidding rules in play.")
    grab: StrictBool | None = Field(
        default=None,
        description="Grab bidding only: true when someone had called already (抢, not 叫).",
    )


class LandlordChosenData(EventData):
    """Bidding is over: ``seat`` is the landlord and takes the bottom cards, shown to all."""

    call_score: CallScore = Field(description="The winning bid: the round's base score.")
    bottom_cards: Annotated[list[Card], Field(min_length=3, max_length=3)] = Field(
        description="The three bottom cards (canonical, e.g. '♠10', '大王')."
    )
    forced: StrictBool = Field(description="Made landlord by the rules after too many redeals.")
    grabs: Count = Field(description="Grabs in grab bidding (each doubles the stakes); else 0.")


class DoubleData(_Action):
    """A farmer's double (加倍) or the landlord's redouble (再加倍), or not."""

    double: StrictBool = Field(description="True when the seat doubled.")
    kind: DoubleKind = Field(description="``double`` (a farmer) or ``redouble`` (the landlord).")


# ─── play ───────────────────────────────────────────────────────────────────────────────


class PlayData(_Action):
    """A seat plays a combination."""

    cards: Annotated[list[Card], Field(min_length=1)] = Field(description="The cards played.")
    hand_type: HandType = Field(description="The combination (SINGLE, BOMB, ...; never PASS).")
    main_rank: Rank = Field(description="Its main rank, 3..17 (J=11, A=14, 2=15, jokers 16-17).")
    length: Annotated[StrictInt, Field(ge=1)] = Field(
        description="Ranks in a chain (straight, airplane); 1 otherwise."
    )
    cards_left: Count = Field(description="Cards the seat still holds (2 or fewer: a warning).")


class PassData(_Action):
    """A seat passes."""

    auto: StrictBool = Field(
        description="The table passed because nothing in the hand beats the trick (no "
        "``turn_started`` before it)."
    )


class TrickWonData(EventData):
    """Two passes closed the trick: ``seat`` won it and leads the next. No data."""


class EffectAppliedData(EventData):
    """A viewer gift's effect changed the round, between two turns (before the next
    ``turn_started``). Which cards a swap or a transfer moved stays hidden."""

    effect: Literal["swap", "transfer", "double"] = Field(
        description="``swap`` (换牌: one card each way), ``transfer`` (加牌: one card from "
        "the first seat to the second) or ``double`` (翻倍: the stakes double)."
    )
    seats: Annotated[list[Seat], Field(max_length=2)] = Field(
        description="A swap's two seats; a transfer's source, then its target; none for a double."
    )
    cards_moved: Annotated[StrictInt, Field(ge=0, le=2)] = Field(
        description="Cards that changed hands: 2 for a swap, 1 for a transfer, 0 for a double."
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
        "``cooldown``, ``last_cards``, ``double_cap``, ``unmapped``, ``no_target``, "
        "``match_over``, ``unknown_table: <table>``, ``invalid: ...``, ``error: ...``, or "
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


class PublicSettlement(EventData):
    """How a round was scored (docs/rules.md): the settlement without the seed or the deal."""

    landlord: Seat
    call_score: CallScore
    landlord_won: StrictBool
    winner_side: Literal["landlord", "farmer"]
    winner_seat: Seat = Field(description="The seat that went out first.")
    winners: list[Seat]
    spring: SpringKind | None
    bombs: Count
    rockets: Count
    bombs_by_seat: Annotated[list[Count], Field(min_length=3, max_length=3)] = Field(
        default_factory=lambda: [0, 0, 0],
        description="Bombs and rockets each seat played (absent from older records).",
    )
    grabs: Count
    gift_doubles: Count = Field(description="Doubles bought by viewers' gifts.")
    doubled: dict[str, StrictBool] = Field(description="Each farmer's double, by seat ('1').")
    redoubled: StrictBool
    common_exponent: Count = Field(description="Doublings shared by all: the stakes are 2^this.")
    exponents: dict[str, Count] = Field(description="Each farmer's own exponent, by seat.")
    scores: Annotated[list[StrictInt], Field(min_length=3, max_length=3)] = Field(
        description="Score change by seat."
    )
    deals: Annotated[StrictInt, Field(ge=1)] = Field(description="Deals it took (redeals + 1).")
    forced_landlord: StrictBool
    first_bidder: Seat
    plays_by_seat: Annotated[list[Count], Field(min_length=3, max_length=3)]
    effects_applied: Count = Field(description="Gift effects that changed the round.")
    bottom: Annotated[list[Card], Field(min_length=3, max_length=3)]
    final_hands: Annotated[list[list[Card]], Field(min_length=3, max_length=3)] = Field(
        description="Cards left in each hand at the end (public once the round is over)."
    )


class RoundResultData(EventData):
    """A round ended (``seat``: who went out first); everything keyed by player name."""

    table: TableId
    round_no: Annotated[StrictInt, Field(ge=1)]
    players: Players
    scores: dict[str, StrictInt] = Field(description="Score change by player.")
    faults: dict[str, FaultCounts] = Field(description="This round's faults by player.")
    standins: list[PlayerId] = Field(description="Players a stand-in played for this round.")
    stats: dict[str, SeatStats] = Field(description="This round's decision figures by player.")
    result: PublicSettlement
    gifts: list[GiftEffect] = Field(
        default_factory=list,
        description="The result-changing gifts that touched the round, in order (between "
        "rounds ``ROLE_SWAP``, ``RESHUFFLE``; during it ``SWAP``, ``ADD``, ``DOUBLE``).",
    )
    totals: dict[str, StrictInt] = Field(description="The match's total scores so far.")


class MatchEndedData(EventData):
    """The match is over: totals and standings."""

    table: TableId
    players: Players
    rounds: Count = Field(description="Rounds played.")
    totals: dict[str, StrictInt] = Field(description="Total score by player.")
    rounds_won: dict[str, Count]
    faults: dict[str, FaultCounts] = Field(description="The match's faults by player.")
    stats: dict[str, SeatStats] = Field(description="The match's decision figures by player.")
    standings: list[Standing] = Field(description="Players by total score; ties share a rank.")


EVENT_DATA: Final[Mapping[str, type[EventData]]] = MappingProxyType(
    {
        "match_started": MatchStartedData,
        "round_started": RoundStartedData,
        "redeal": RedealData,
        "turn_started": TurnStartedData,
        "bid": BidData,
        "landlord_chosen": LandlordChosenData,
        "double": DoubleData,
        "play": PlayData,
        "pass": PassData,
        "trick_won": TrickWonData,
        "effect_applied": EffectAppliedData,
        "gift": GiftData,
        "fault": FaultData,
        "decision": DecisionData,
        "budget_spent": BudgetSpentData,
        "seat_replaced": SeatReplacedData,
        "round_result": RoundResultData,
        "match_ended": MatchEndedData,
    }
)
"""Each event type's ``data`` model."""


class EventEnvelope(BaseModel):
    """One event as published: who, where, in which order, and its ``data``.

    ``arena.events.Event.to_dict()`` gives the first eight keys; the MQTT feed adds
    ``v`` and ``run``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: EventType = Field(description="The event type; it says which model ``data`` follows.")
    table: TableId = Field(description="The table's id.")
    round: Count = Field(description="The round (from 1; 0 before the match's first round).")
    seq: Annotated[StrictInt, Field(ge=1)] = Field(
        description="Position in the table's events: 1, 2, 3 ... with no gaps (a duplicate "
        "has a seq already seen)."
    )
    seat: Seat | None = Field(description="The seat the event is about (0-2), if any.")
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


def parse_event(data: str | bytes | Mapping[str, Any]) -> tuple[EventEnvelope, EventData]:
    """Check one event (JSON text or a decoded object): its envelope, then its ``data``.

    Raises :class:`ProtocolError` naming the offending path (``play.data.cards[0]: ...``).
    """
    obj = _load(data)
    tag = obj.get("type")
    name = tag if isinstance(tag, str) else "event"
    try:
        envelope = EventEnvelope.model_validate(obj)
    except ValidationError as exc:
        raise ProtocolError(_describe(name, exc), message_type=name) from exc
    try:
        body = EVENT_DATA[envelope.type].model_validate(obj["data"])
    except ValidationError as exc:
        raise ProtocolError(_describe(f"{name}.data", exc), message_type=name) from exc
    return envelope, body
