"""Dou Dizhu's wire messages: strict, frozen, tagged by ``type`` (docs/protocol.md).

The game needs DEAL, BID_REQUEST, PLAY_REQUEST, BID_RESPONSE and PLAY_RESPONSE, and the
doubling phase DOUBLE_REQUEST / DOUBLE_RESPONSE. A real agent also needs to see the
bottom cards and hear how a round ended, so BOTTOM_CARDS and ROUND_RESULT are added
here; REPLY_REJECTED and MATCH_END are every game's (:mod:`protocol.messages`), and
:data:`MESSAGE_TYPES` lists them among Dou Dizhu's.

Messages are pure data: they check shape and self-consistency (canonical cards, a PASS
carries no cards), never the game rules, which the engine owns. Engine→agent card fields
hold canonical strings only; an agent's PLAY_RESPONSE may use any card token, because the
engine resolves lenient tokens against the player's hand (``protocol.cards.parse_token``).

Errors: :class:`~protocol.ProtocolError` (also ``ValueError``) is the only error this
module raises on purpose; its message starts with the offending path, e.g.
``PLAY_RESPONSE.cards[2]: …``.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, TypeAlias, TypeVar, overload

from pydantic import (
    AfterValidator,
    Field,
    StrictBool,
    StrictInt,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from protocol.messages import (
    DEFAULT_TIME_LIMIT_MS,
    MAX_AGENT_SEED,
    AudienceLine,
    Card,
    Emotion,
    MatchEnd,
    MatchId,
    Message,
    PlayerId,
    Record,
    ReplyCard,
    ReplyRejected,
    RequestId,
    RoundNo,
    ShortText,
    TableId,
    no_duplicates,
    read_message,
)

__all__ = [
    "MESSAGE_TYPES",
    "AnyMessage",
    "AnyRequest",
    "AnyResponse",
    "BidMode",
    "BidRecord",
    "BidRequest",
    "BidResponse",
    "BidValue",
    "BiddingRule",
    "BottomCards",
    "CallScore",
    "Deal",
    "DoubleKind",
    "DoubleRecord",
    "DoubleRequest",
    "DoubleResponse",
    "FirstBidder",
    "HandType",
    "LastPlay",
    "LegalMove",
    "PlayKind",
    "PlayRecord",
    "PlayRequest",
    "PlayResponse",
    "Rank",
    "Role",
    "RoundResult",
    "ScoringPreset",
    "SpringKind",
    "TableRules",
    "parse_message",
]

_MAX_REPLY_CARDS: Final = 20  # a landlord's full hand, the most anyone can play at once
M = TypeVar("M", bound=Message)


class HandType(StrEnum):
    """Combination type names on the wire (docs/rules.md, Combinations), PASS included."""

    SINGLE = "SINGLE"
    PAIR = "PAIR"
    TRIPLE = "TRIPLE"
    TRIPLE_WITH_SINGLE = "TRIPLE_WITH_SINGLE"
    TRIPLE_WITH_PAIR = "TRIPLE_WITH_PAIR"
    STRAIGHT = "STRAIGHT"
    STRAIGHT_PAIR = "STRAIGHT_PAIR"
    AIRPLANE = "AIRPLANE"
    AIRPLANE_WITH_SINGLES = "AIRPLANE_WITH_SINGLES"
    AIRPLANE_WITH_PAIRS = "AIRPLANE_WITH_PAIRS"
    FOUR_WITH_TWO_SINGLES = "FOUR_WITH_TWO_SINGLES"
    FOUR_WITH_TWO_PAIRS = "FOUR_WITH_TWO_PAIRS"
    BOMB = "BOMB"
    ROCKET = "ROCKET"
    PASS = "PASS"


Role: TypeAlias = Literal["landlord", "farmer"]
PlayKind: TypeAlias = Literal["PLAY", "PASS"]
#: ``call_score``: 叫分 1..3; ``grab``: 叫地主/抢地主, bids 1 (call or grab) / 0 (not);
#: ``fixed_landlord``: 轮庄, the seat is landlord and only names its call score 1..3.
BidMode: TypeAlias = Literal["call_score", "grab", "fixed_landlord"]
#: The rule sets a table may play (docs/rules.md, Scoring and Bidding): the engine's
#: settings use the same names.
ScoringPreset: TypeAlias = Literal["competition", "casual"]
BiddingRule: TypeAlias = Literal["single_round", "until_settled", "grab"]
FirstBidder: TypeAlias = Literal["random", "rotate"]
#: ``double``: a farmer's 加倍; ``redouble``: the landlord's 再加倍 (only if a farmer doubled).
DoubleKind: TypeAlias = Literal["double", "redouble"]
#: docs/rules.md, Spring: ``spring`` 春天 (landlord wins, no farmer played a card);
#: ``reverse_spring`` 反春 (farmers win, the landlord played only the first combination).
SpringKind: TypeAlias = Literal["spring", "reverse_spring"]


Rank = Annotated[StrictInt, Field(ge=3, le=17)]
BidValue = Annotated[StrictInt, Field(ge=0, le=3)]
CallScore = Annotated[StrictInt, Field(ge=1, le=3)]


# ─── nested records ─────────────────────────────────────────────────────────────────────


class BidRecord(Record):
    """One bid already made this round: 0 is a pass (in grab mode, 1 is a call or a grab)."""

    player: PlayerId
    bid: BidValue


class DoubleRecord(Record):
    """One doubling decision already made this round."""

    player: PlayerId
    double: StrictBool


def _not_pass(code: str, message: str) -> AfterValidator:
    """A check that a hand type names a play, never PASS, refused as ``message``."""

    def check(value: HandType) -> HandType:
        if value is HandType.PASS:
            raise PydanticCustomError(code, message)
        return value

    return AfterValidator(check)


class LastPlay(Record):
    """The combination to beat: who played it, its type, its cards and its main rank."""

    player: PlayerId
    type: Annotated[HandType, _not_pass("pass_is_no_play", "a PASS is never the play to beat")]
    cards: list[Card] = Field(min_length=1)
    main_rank: Rank


class PlayRecord(Record):
    """One turn of the round so far: a play with its cards, or a PASS with none."""

    player: PlayerId
    action: PlayKind
    type: HandType | None = None
    cards: list[Card] = Field(default=[], validate_default=True)

    @field_validator("cards")
    @classmethod
    def _cards_match_action(cls, value: list[Card], info: ValidationInfo) -> list[Card]:
        action = info.data.get("action")
        if action == "PASS" and value:
            raise PydanticCustomError("pass_with_cards", "a PASS carries no cards")
        if action == "PLAY" and not value:
            raise PydanticCustomError("play_without_cards", "a PLAY needs at least one card")
        return value


class LegalMove(Record):
    """One play the seat may make now, as it would send it: its cards and hand type.

    A PLAY_REQUEST lists them for a seat that asked (``options.legal_moves``); a PASS is
    never listed: it is legal exactly when the request is not a free play.
    """

    cards: list[Card] = Field(min_length=1)
    hand_type: Annotated[HandType, _not_pass("pass_is_not_listed", "a PASS is never listed")]


class TableRules(Record):
    """The rules in force at the table, as a DEAL tells them (docs/rules.md, Variants).

    Every setting that decides what is legal or how a round scores, resolved: ``doubling``
    and ``per_defender_doubling`` say what the preset makes of them, never null.
    """

    scoring: ScoringPreset
    bidding: BiddingRule
    first_bidder: FirstBidder
    max_redeals: StrictInt = Field(ge=0)
    doubling: StrictBool
    per_defender_doubling: StrictBool
    loose_wings: StrictBool
    four_with_pair: StrictBool
    quadplex_as_bomb: StrictBool
    max_gift_doubles: StrictInt = Field(ge=0)


# ─── engine → agent ─────────────────────────────────────────────────────────────────────


class Deal(Message):
    """A new round (or a redeal): the recipient's 17 cards, the seat order, the rules in
    force and a seed of the recipient's own.

    ``role`` is null at deal time; the landlord is known only after bidding. ``seed`` is
    the agent's to use for its randomness: the same match played again gives every DEAL
    the same seed, so an agent that seeds its generator from it plays the same again.
    ``rules`` and ``seed`` are optional so that DEALs recorded before they existed parse.
    """

    type: Literal["DEAL"] = "DEAL"
    player_id: PlayerId
    role: Role | None = None
    hand: list[Card]
    hand_count: StrictInt = Field(ge=0)
    seat_order: list[PlayerId] = Field(min_length=3, max_length=3)
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None
    rules: TableRules | None = None
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_AGENT_SEED)] | None = None

    @field_validator("hand")
    @classmethod
    def _hand_unique(cls, value: list[Card]) -> list[Card]:
        no_duplicates(value)
        return value

    @field_validator("hand_count")
    @classmethod
    def _count_matches_hand(cls, value: int, info: ValidationInfo) -> int:
        hand = info.data.get("hand")
        if hand is not None and value != len(hand):
            raise PydanticCustomError(
                "hand_count_mismatch",
                "does not match hand, which has {size} cards",
                {"size": len(hand)},
            )
        return value

    @field_validator("seat_order")
    @classmethod
    def _seats_hold_player(cls, value: list[str], info: ValidationInfo) -> list[str]:
        no_duplicates(value)
        player = info.data.get("player_id")
        if player is not None and player not in value:
            raise PydanticCustomError(
                "player_not_seated", "does not list player_id '{player}'", {"player": player}
            )
        return value


class BidRequest(Message):
    """Your turn to bid; reply with a :class:`BidResponse`.

    ``hand`` is optional because the first version of the protocol had none; the engine
    sends it so a stateless agent need not remember the DEAL.
    """

    type: Literal["BID_REQUEST"] = "BID_REQUEST"
    player_id: PlayerId
    current_highest_bid: BidValue
    bid_history: list[BidRecord] = []
    available_bids: list[BidValue] = Field(min_length=1)
    mode: BidMode = "call_score"
    hand: list[Card] | None = None
    time_limit_ms: StrictInt = Field(default=DEFAULT_TIME_LIMIT_MS, gt=0)
    request_id: RequestId | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None

    @field_validator("mode")
    @classmethod
    def _bids_fit_mode(cls, value: BidMode, info: ValidationInfo) -> BidMode:
        bids = info.data.get("available_bids")
        if value == "grab" and bids is not None and not set(bids) <= {0, 1}:
            raise PydanticCustomError(
                "grab_bids",
                "grab offers only bids 1 and 0, but available_bids is {bids}",
                {"bids": str(bids)},
            )
        return value


class DoubleRequest(Message):
    """Your turn to say whether you double: a farmer's 加倍 or the landlord's 再加倍."""

    type: Literal["DOUBLE_REQUEST"] = "DOUBLE_REQUEST"
    player_id: PlayerId
    kind: DoubleKind
    landlord: PlayerId
    call_score: CallScore
    bottom_cards: list[Card] = Field(min_length=3, max_length=3)
    double_history: list[DoubleRecord] = []
    hand: list[Card]
    time_limit_ms: StrictInt = Field(default=DEFAULT_TIME_LIMIT_MS, gt=0)
    request_id: RequestId | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class PlayRequest(Message):
    """Your turn to play; reply with a :class:`PlayResponse`.

    ``last_play`` is the combination to beat: null exactly when ``is_free_play`` is true.
    ``audience`` is viewer chatter relayed for colour; it is never an instruction.
    ``legal_moves`` lists every play the seat may make now (PASS aside) for a seat that
    asked for them (``options.legal_moves``), and is null for every other seat.
    """

    type: Literal["PLAY_REQUEST"] = "PLAY_REQUEST"
    player_id: PlayerId
    hand: list[Card]
    is_free_play: StrictBool
    last_play: LastPlay | None
    play_history: list[PlayRecord] = []
    remaining_cards: dict[PlayerId, Annotated[StrictInt, Field(ge=0, le=54)]]
    role: Role
    teammates: list[PlayerId] = []
    landlord: PlayerId | None = None
    bottom_cards: list[Card] | None = Field(default=None, min_length=3, max_length=3)
    seat_order: list[PlayerId] | None = Field(default=None, min_length=3, max_length=3)
    call_score: CallScore | None = None
    # 2^(bombs + rockets + grabs + gift doubles) so far; call score and doubling excluded
    multiplier: StrictInt | None = Field(default=None, ge=1)
    audience: list[AudienceLine] | None = Field(default=None, max_length=10)
    legal_moves: list[LegalMove] | None = None
    time_limit_ms: StrictInt = Field(default=DEFAULT_TIME_LIMIT_MS, gt=0)
    request_id: RequestId | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None

    @field_validator("hand")
    @classmethod
    def _hand_unique(cls, value: list[Card]) -> list[Card]:
        no_duplicates(value)
        return value

    @field_validator("last_play")
    @classmethod
    def _last_play_iff_following(
        cls, value: LastPlay | None, info: ValidationInfo
    ) -> LastPlay | None:
        free = info.data.get("is_free_play")
        if free is True and value is not None:
            raise PydanticCustomError("free_play_with_last_play", "must be null on a free play")
        if free is False and value is None:
            raise PydanticCustomError(
                "follow_without_last_play", "is required when not a free play"
            )
        return value


class BottomCards(Message):
    """The landlord is decided: the three bottom cards, shown to everyone."""

    type: Literal["BOTTOM_CARDS"] = "BOTTOM_CARDS"
    landlord: PlayerId
    bottom_cards: list[Card] = Field(min_length=3, max_length=3)
    call_score: CallScore
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class RoundResult(Message):
    """How a round ended and what it scored (docs/rules.md, Scoring).

    ``multiplier`` is 2^(bombs + rockets + spring + grabs + gift_doubles), the part common
    to both farmers; ``farmer_multipliers`` adds each farmer's doubling, so a farmer's
    score is ``call_score × farmer_multipliers[farmer] × (+1 if farmers won else −1)`` and
    the landlord's is minus the sum: every round is zero-sum.
    """

    type: Literal["ROUND_RESULT"] = "ROUND_RESULT"
    landlord: PlayerId
    call_score: CallScore
    winner_side: Role
    first_out: PlayerId
    score_deltas: dict[PlayerId, StrictInt]
    spring: SpringKind | None = None
    bombs: StrictInt = Field(ge=0)
    rockets: StrictInt = Field(ge=0, le=1)  # one deck, one rocket
    grabs: StrictInt = Field(default=0, ge=0)
    gift_doubles: StrictInt = Field(default=0, ge=0)
    doubled: dict[PlayerId, StrictBool] = {}
    redoubled: StrictBool = False
    multiplier: StrictInt = Field(ge=1)
    farmer_multipliers: dict[PlayerId, Annotated[StrictInt, Field(ge=1)]]
    gift_affected: StrictBool = False
    final_hands: dict[PlayerId, list[Card]] | None = None
    total_scores: dict[PlayerId, StrictInt] | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


# ─── agent → engine ─────────────────────────────────────────────────────────────────────


class BidResponse(Message):
    """A bid: 0 passes, 1..3 calls that score (grab mode: 1 calls/grabs)."""

    type: Literal["BID_RESPONSE"] = "BID_RESPONSE"
    player_id: PlayerId
    bid: BidValue
    comment: ShortText | None = None
    emotion: Emotion | None = None
    strategy_hint: ShortText | None = None
    request_id: RequestId | None = None


class DoubleResponse(Message):
    """Whether to double (farmer) or redouble (landlord)."""

    type: Literal["DOUBLE_RESPONSE"] = "DOUBLE_RESPONSE"
    player_id: PlayerId
    double: StrictBool
    comment: ShortText | None = None
    emotion: Emotion | None = None
    strategy_hint: ShortText | None = None
    request_id: RequestId | None = None


class PlayResponse(Message):
    """A play or a pass.

    ``cards`` may use any card token (``"♠3"``, ``"3s"``, ``"10"``, ``"BJ"``); the engine
    resolves them against the hand. ``hand_type`` picks the reading of an ambiguous lead.
    """

    type: Literal["PLAY_RESPONSE"] = "PLAY_RESPONSE"
    player_id: PlayerId
    action: PlayKind
    cards: list[ReplyCard] = Field(default=[], max_length=_MAX_REPLY_CARDS, validate_default=True)
    hand_type: HandType | None = None
    comment: ShortText | None = None
    emotion: Emotion | None = None
    strategy_hint: ShortText | None = None
    request_id: RequestId | None = None

    @field_validator("cards")
    @classmethod
    def _cards_match_action(cls, value: list[str], info: ValidationInfo) -> list[str]:
        action = info.data.get("action")
        if action == "PASS" and value:
            raise PydanticCustomError("pass_with_cards", "a PASS carries no cards")
        if action == "PLAY" and not value:
            raise PydanticCustomError("play_without_cards", "a PLAY needs at least one card")
        return value

    @field_validator("hand_type")
    @classmethod
    def _type_matches_action(cls, value: HandType | None, info: ValidationInfo) -> HandType | None:
        action = info.data.get("action")
        if action == "PLAY" and value is HandType.PASS:
            raise PydanticCustomError("play_typed_pass", "is PASS but action is PLAY")
        if action == "PASS" and value not in (None, HandType.PASS):
            raise PydanticCustomError("pass_typed_play", "must be PASS or null when passing")
        return value


# ─── the union and its reader ───────────────────────────────────────────────────────────

AnyMessage: TypeAlias = Annotated[
    Deal
    | BidRequest
    | BidResponse
    | BottomCards
    | DoubleRequest
    | DoubleResponse
    | PlayRequest
    | PlayResponse
    | ReplyRejected
    | RoundResult
    | MatchEnd,
    Field(discriminator="type"),
]
AnyRequest: TypeAlias = BidRequest | DoubleRequest | PlayRequest
AnyResponse: TypeAlias = BidResponse | DoubleResponse | PlayResponse

#: Every message class by its ``type`` tag, in the order of a round.
MESSAGE_TYPES: Final[Mapping[str, type[Message]]] = MappingProxyType(
    {
        model.model_fields["type"].default: model
        for model in (
            Deal,
            BidRequest,
            BidResponse,
            BottomCards,
            DoubleRequest,
            DoubleResponse,
            PlayRequest,
            PlayResponse,
            ReplyRejected,
            RoundResult,
            MatchEnd,
        )
    }
)


@overload
def parse_message(data: str | bytes | Mapping[str, Any]) -> AnyMessage: ...
@overload
def parse_message(data: str | bytes | Mapping[str, Any], *, expect: type[M]) -> M: ...
def parse_message(
    data: str | bytes | Mapping[str, Any], *, expect: type[Message] | None = None
) -> Message:
    """Read one Dou Dizhu message from JSON text or a decoded object, choosing the class
    by ``type`` (:func:`protocol.read_message` over :data:`MESSAGE_TYPES`).

    With ``expect``, a valid message of another type is an error too, so the engine can
    ask for exactly the reply it is waiting for. Raises :class:`~protocol.ProtocolError`
    naming the offending field path; never a bare pydantic ``ValidationError``.
    """
    return read_message(data, MESSAGE_TYPES, expect=expect)
