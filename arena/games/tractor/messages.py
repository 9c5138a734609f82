"""Tractor's wire messages: strict, frozen, tagged by ``type`` (docs/protocol-tractor.md).

The same envelope as Dou Dizhu's: every message names its match, table and round; a
request carries a ``request_id`` and a ``time_limit_ms``; a reply may add a
``comment``, an ``emotion`` and a ``strategy_hint`` for viewers. A round goes:

- DEAL (each seat its own hand), then declaration windows: DECLARE_REQUEST to every
  seat at once, DECLARE_RESPONSE; TRUMP_CANDIDATE after a window with a declaration,
  TRUMP_LOCKED when a window passes quietly;
- BURY_REQUEST to the banker only (its hand with the kitty), BURY_RESPONSE;
- PLAY_REQUEST / PLAY_RESPONSE, one seat at a time; THROW_PUNISHED when a throw does not
  stand; TRICK_WON after each trick;
- ROUND_RESULT (the buried kitty shown to all), GAME_OVER when a team wins the match;
  REPLY_REJECTED and MATCH_END are every game's (:mod:`protocol.messages`).

Cards the arena sends are ids (``D1_H_10``, ``D2_S_A``, ``D1_SJ``, ``D2_BJ``); a reply
may also name a face alone (``♥10``, ``H10``, ``10h``, ``大王``), any copy held.
Messages are pure data: they check shape, never the rules, which the engine owns.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, TypeAlias, TypeVar, overload

from pydantic import Field, StrictBool, StrictInt, field_validator

from protocol.messages import (
    DEFAULT_TIME_LIMIT_MS,
    MAX_AGENT_SEED,
    AudienceLine,
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
    "BuryRequest",
    "BuryResponse",
    "CardId",
    "Deal",
    "DeclarationOption",
    "DeclareRequest",
    "DeclareResponse",
    "Declared",
    "FollowShape",
    "GameOver",
    "Lead",
    "LevelRank",
    "PlayKind",
    "PlayRequest",
    "PlayResponse",
    "PlayedCards",
    "RoundResult",
    "Strength",
    "SuitGroup",
    "SuitLetter",
    "TableRules",
    "ThrowPunishedMessage",
    "TrickWonMessage",
    "TrumpCandidateMessage",
    "TrumpLockedMessage",
    "parse_message",
]

M = TypeVar("M", bound=Message)

CARD_ID_PATTERN: Final = "^D[12]_([SHDC]_(10|[2-9JQKA])|SJ|BJ)$"
CardId = Annotated[str, Field(pattern=CARD_ID_PATTERN)]
"""A card as the arena sends it: deck, suit letter, rank (``D1_H_10``), or a joker
(``D2_SJ`` small, ``D1_BJ`` big)."""

LevelRank: TypeAlias = Literal["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
"""A team's level, and the rank whose cards are trump this round."""
SuitLetter: TypeAlias = Literal["S", "H", "D", "C"]
SuitGroup: TypeAlias = Literal["S", "H", "D", "C", "TRUMP"]
"""A suit group: a plain suit, or all the trumps together."""
PlayKind: TypeAlias = Literal["SINGLE", "PAIR", "TRACTOR", "THROW", "MIXED"]
"""A play's pattern. MIXED: a follow of cards from several suit groups (a player short
of the lead's); it never wins a trick."""
Strength: TypeAlias = Literal[
    "level_single", "level_pair", "small_joker", "big_joker", "small_joker_pair", "big_joker_pair"
]
"""A declaration's strength, weakest first (pair of big jokers is the strongest)."""
Team = Annotated[StrictInt, Field(ge=0, le=1)]
Count = Annotated[StrictInt, Field(ge=0)]
Points = Annotated[StrictInt, Field(ge=0, le=1000)]

_MAX_REPLY_CARDS: Final = 40  # a banker's hand with the kitty (6 players: 16 + 12 = 28)


def _unique(value: list[str]) -> list[str]:
    no_duplicates(value)
    return value


# ─── nested records ─────────────────────────────────────────────────────────────────────


class TableRules(Record):
    """The rules in force at the table, as a DEAL tells them (docs/rules-tractor.md)."""

    players: Literal[4, 6]
    kitty: StrictInt = Field(ge=2, le=36)
    deal_steps: StrictInt = Field(ge=1)
    play_through: StrictBool
    round_limit: StrictInt | None = Field(ge=1)


class Declared(Record):
    """A declaration made: who, with which cards, its strength and the suit it names
    (null: no trump, a joker declaration)."""

    player: PlayerId
    cards: list[CardId] = Field(min_length=1, max_length=2)
    strength: Strength
    suit: SuitLetter | None


class DeclarationOption(Record):
    """A declaration the seat may make in this window, as it would send it."""

    cards: list[CardId] = Field(min_length=1, max_length=2)
    strength: Strength
    suit: SuitLetter | None


class PlayedCards(Record):
    """One seat's cards in a trick (a punished throw: the part it was played as)."""

    player: PlayerId
    cards: list[CardId] = Field(min_length=1)


class Lead(Record):
    """The trick's lead: who, its cards, its pattern and suit group, and its shape (the
    pair count of each part: a tractor of 3 pairs and a single is ``[3, 0]``)."""

    player: PlayerId
    cards: list[CardId] = Field(min_length=1)
    kind: Literal["SINGLE", "PAIR", "TRACTOR", "THROW"]
    suit_group: SuitGroup
    shape: list[Count] = Field(min_length=1)


class FollowShape(Record):
    """What a follow of this lead from this hand must contain (docs/rules-tractor.md,
    Following): ``count`` cards; all of ``suit_group`` first if the seat holds no more
    of it than that (``void``: none at all, any cards); else only that group, with
    tractors of these pair counts and at least ``pairs`` pairs (those in the tractors
    included)."""

    suit_group: SuitGroup
    count: StrictInt = Field(ge=1)
    held: Count
    void: StrictBool
    short: StrictBool
    tractors: list[Annotated[StrictInt, Field(ge=2)]] = []
    pairs: Count = 0


# ─── engine → agent ─────────────────────────────────────────────────────────────────────


class Deal(Message):
    """A new round: the recipient's cards (under ``deal_steps`` > 1, the first step's:
    each DECLARE_REQUEST's ``hand`` shows what has come since), the seats and teams,
    both teams' levels, the round's level, the banker if already known (null in a
    match's first round: the declaration that locks decides), the rules in force and a
    seed of the recipient's own."""

    type: Literal["DEAL"] = "DEAL"
    player_id: PlayerId
    hand: list[CardId]
    hand_count: Count
    seat: Annotated[StrictInt, Field(ge=0, le=5)]
    seat_order: list[PlayerId] = Field(min_length=4, max_length=6)
    teams: list[list[PlayerId]] = Field(min_length=2, max_length=2)
    team: Team
    levels: list[LevelRank] = Field(min_length=2, max_length=2)
    level: LevelRank
    banker: PlayerId | None = None
    rules: TableRules
    seed: Annotated[StrictInt, Field(ge=0, le=MAX_AGENT_SEED)] | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None

    _hand_unique = field_validator("hand")(_unique)
    _seats_unique = field_validator("seat_order")(_unique)


class DeclareRequest(Message):
    """A declaration window is open: declare trump with one of ``options`` or pass.
    Every seat is asked at once with the same window; a reply after it is a pass, and a
    faster reply counts no more than a slower one."""

    type: Literal["DECLARE_REQUEST"] = "DECLARE_REQUEST"
    player_id: PlayerId
    hand: list[CardId]
    level: LevelRank
    window: StrictInt = Field(ge=1)
    deal_step: StrictInt = Field(ge=1)
    deal_steps: StrictInt = Field(ge=1)
    candidate: Declared | None = None
    options: list[DeclarationOption] = []
    required: str = Field(max_length=500)
    time_limit_ms: StrictInt = Field(default=DEFAULT_TIME_LIMIT_MS, gt=0)
    request_id: RequestId | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None

    _hand_unique = field_validator("hand")(_unique)


class TrumpCandidateMessage(Message):
    """The window's strongest declaration: the candidate until a stronger one comes."""

    type: Literal["TRUMP_CANDIDATE"] = "TRUMP_CANDIDATE"
    candidate: Declared
    window: StrictInt = Field(ge=1)
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class TrumpLockedMessage(Message):
    """Trump is fixed: the level, the trump suit (null: no trump), who declared it
    (null: nobody), the banker, and the kitty's size."""

    type: Literal["TRUMP_LOCKED"] = "TRUMP_LOCKED"
    level: LevelRank
    trump_suit: SuitLetter | None
    declarer: PlayerId | None
    banker: PlayerId
    banker_team: Team
    kitty_count: Count
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class BuryRequest(Message):
    """The banker's turn to bury: ``hand`` holds the kitty it took (``kitty``); bury
    ``count`` of its cards, any of them."""

    type: Literal["BURY_REQUEST"] = "BURY_REQUEST"
    player_id: PlayerId
    hand: list[CardId]
    kitty: list[CardId] = Field(min_length=1)
    count: StrictInt = Field(ge=1)
    level: LevelRank
    trump_suit: SuitLetter | None
    required: str = Field(max_length=500)
    time_limit_ms: StrictInt = Field(default=DEFAULT_TIME_LIMIT_MS, gt=0)
    request_id: RequestId | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None

    _hand_unique = field_validator("hand")(_unique)


class PlayRequest(Message):
    """Your turn to play: lead (``lead`` null) or follow ``lead``. ``follow`` says what
    the follow must contain and ``required`` says it in words; ``legal_plays`` lists
    every legal play for a seat that asked for them, when they are few enough to list
    (null otherwise: play and be checked). ``buried`` is the banker's own, else null."""

    type: Literal["PLAY_REQUEST"] = "PLAY_REQUEST"
    player_id: PlayerId
    hand: list[CardId]
    leading: StrictBool
    lead: Lead | None
    trick: list[PlayedCards] = []
    follow: FollowShape | None = None
    required: str = Field(max_length=500)
    level: LevelRank
    trump_suit: SuitLetter | None
    banker: PlayerId
    team: Team
    teams: list[list[PlayerId]] = Field(min_length=2, max_length=2)
    levels: list[LevelRank] = Field(min_length=2, max_length=2)
    defender_points: Points
    tricks_done: Count
    cards_left: dict[PlayerId, Count]
    kitty_count: Count
    buried: list[CardId] | None = None
    played: list[PlayedCards] = []
    audience: list[AudienceLine] | None = Field(default=None, max_length=10)
    legal_plays: list[list[CardId]] | None = None
    time_limit_ms: StrictInt = Field(default=DEFAULT_TIME_LIMIT_MS, gt=0)
    request_id: RequestId | None = None
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None

    _hand_unique = field_validator("hand")(_unique)

    @field_validator("lead")
    @classmethod
    def _lead_iff_following(cls, value: Lead | None, info: Any) -> Lead | None:
        leading = info.data.get("leading")
        if leading is True and value is not None:
            raise ValueError("must be null when leading")
        if leading is False and value is None:
            raise ValueError("is required when following")
        return value


class ThrowPunishedMessage(Message):
    """A throw did not stand: it was played as ``punished`` (its lowest part), the rest
    went back to the thrower's hand."""

    type: Literal["THROW_PUNISHED"] = "THROW_PUNISHED"
    player: PlayerId
    original: list[CardId] = Field(min_length=2)
    punished: list[CardId] = Field(min_length=1)
    reason: str = Field(max_length=500)
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class TrickWonMessage(Message):
    """A trick's plays and winner; its points count when a defender won it."""

    type: Literal["TRICK_WON"] = "TRICK_WON"
    winner: PlayerId
    trick_no: StrictInt = Field(ge=1)
    plays: list[PlayedCards] = Field(min_length=4, max_length=6)
    points: Points
    counted: StrictBool
    defender_points: Points
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class RoundResult(Message):
    """How a round ended: the defenders' points (tricks, plus the kitty's points times
    the kill's multiplier: 0 when the bankers took the last trick, 2, or 4 when its lead
    was a pair or tractor), the team that went up and by how much, both teams' levels
    before and after, the next banker, and each seat's score (+delta for the team that
    went up, −delta for the other)."""

    type: Literal["ROUND_RESULT"] = "ROUND_RESULT"
    banker: PlayerId
    banker_team: Team
    trick_points: Points
    kitty: list[CardId]
    kitty_points: Points
    multiplier: Literal[0, 2, 4]
    defender_points: Points
    last_trick_winner: PlayerId
    up_team: Team
    level_from: LevelRank
    level_to: LevelRank
    delta: StrictInt = Field(ge=0, le=3)
    levels_before: list[LevelRank] = Field(min_length=2, max_length=2)
    levels_after: list[LevelRank] = Field(min_length=2, max_length=2)
    next_banker: PlayerId
    score_deltas: dict[PlayerId, StrictInt]
    total_scores: dict[PlayerId, StrictInt] | None = None
    game_over: StrictBool = False
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


class GameOver(Message):
    """A team won the match by the level rule (or the round limit decided; a draw has
    no winner): both teams' levels and players."""

    type: Literal["GAME_OVER"] = "GAME_OVER"
    winner_team: Team | None
    winners: list[PlayerId]
    levels: list[LevelRank] = Field(min_length=2, max_length=2)
    teams: list[list[PlayerId]] = Field(min_length=2, max_length=2)
    rounds_played: StrictInt = Field(ge=1)
    match_id: MatchId | None = None
    table_id: TableId | None = None
    round_no: RoundNo | None = None


# ─── agent → engine ─────────────────────────────────────────────────────────────────────


class DeclareResponse(Message):
    """Declare with ``cards`` (one level card, a pair of them, or jokers for no trump),
    or PASS with none."""

    type: Literal["DECLARE_RESPONSE"] = "DECLARE_RESPONSE"
    player_id: PlayerId
    action: Literal["DECLARE", "PASS"]
    cards: list[ReplyCard] = Field(default=[], max_length=2)
    comment: ShortText | None = None
    emotion: Emotion | None = None
    strategy_hint: ShortText | None = None
    request_id: RequestId | None = None

    @field_validator("cards")
    @classmethod
    def _cards_match_action(cls, value: list[str], info: Any) -> list[str]:
        action = info.data.get("action")
        if action == "PASS" and value:
            raise ValueError("a PASS carries no cards")
        if action == "DECLARE" and not value:
            raise ValueError("a DECLARE needs one card or a pair")
        return value


class BuryResponse(Message):
    """The cards the banker buries: exactly the kitty's count, any of its hand."""

    type: Literal["BURY_RESPONSE"] = "BURY_RESPONSE"
    player_id: PlayerId
    cards: list[ReplyCard] = Field(min_length=1, max_length=36)
    comment: ShortText | None = None
    emotion: Emotion | None = None
    strategy_hint: ShortText | None = None
    request_id: RequestId | None = None


class PlayResponse(Message):
    """The cards played: a lead (a single, pair, tractor or throw in one suit group) or
    a follow of the lead's count. There is no pass in Tractor."""

    type: Literal["PLAY_RESPONSE"] = "PLAY_RESPONSE"
    player_id: PlayerId
    cards: list[ReplyCard] = Field(min_length=1, max_length=_MAX_REPLY_CARDS)
    comment: ShortText | None = None
    emotion: Emotion | None = None
    strategy_hint: ShortText | None = None
    request_id: RequestId | None = None


# ─── the registry and its reader ────────────────────────────────────────────────────────

MESSAGE_TYPES: Final[Mapping[str, type[Message]]] = MappingProxyType(
    {
        model.model_fields["type"].default: model
        for model in (
            Deal,
            DeclareRequest,
            DeclareResponse,
            TrumpCandidateMessage,
            TrumpLockedMessage,
            BuryRequest,
            BuryResponse,
            PlayRequest,
            PlayResponse,
            ThrowPunishedMessage,
            TrickWonMessage,
            RoundResult,
            GameOver,
            ReplyRejected,
            MatchEnd,
        )
    }
)
"""Every Tractor message by its ``type`` tag, in the order of a round."""


@overload
def parse_message(data: str | bytes | Mapping[str, Any]) -> Message: ...
@overload
def parse_message(data: str | bytes | Mapping[str, Any], *, expect: type[M]) -> M: ...
def parse_message(
    data: str | bytes | Mapping[str, Any], *, expect: type[Message] | None = None
) -> Message:
    """Read one Tractor message (:func:`protocol.read_message` over
    :data:`MESSAGE_TYPES`); a :class:`~protocol.ProtocolError` names the bad field."""
    return read_message(data, MESSAGE_TYPES, expect=expect)
