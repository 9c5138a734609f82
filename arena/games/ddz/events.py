"""Dou Dizhu's public events: the ``data`` model of each event type it publishes
(docs/events.md), and :func:`parse_event` to check one.

Every game's events (the turn, gifts, faults, decisions, stand-ins) are
:mod:`protocol.events`'; here are the rest: the match and its rounds, bidding and
doubling, play, the gifts' effects on a round, and the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, TypeAlias, get_args

from pydantic import Field, StrictBool, StrictInt, StrictStr

from arena.games.ddz.messages import (
    BidMode,
    BidValue,
    CallScore,
    DoubleKind,
    HandType,
    Rank,
    SpringKind,
)
from protocol.events import (
    ActionData,
    BudgetSpentData,
    Count,
    DecisionData,
    EventData,
    EventEnvelope,
    FaultCounts,
    FaultData,
    GiftData,
    GiftEffect,
    SeatReplacedData,
    SeatStats,
    TurnStartedData,
    read_event,
)
from protocol.messages import Card, PlayerId, Standing, TableId

__all__ = [
    "EVENT_DATA",
    "EVENT_TYPES",
    "BidData",
    "DoubleData",
    "EffectAppliedData",
    "EventType",
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
    "TrickWonData",
    "parse_event",
]

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
Players = Annotated[list[PlayerId], Field(min_length=3, max_length=3)]


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


# ─── bidding and doubling ───────────────────────────────────────────────────────────────


class BidData(ActionData):
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


class DoubleData(ActionData):
    """A farmer's double (加倍) or the landlord's redouble (再加倍), or not."""

    double: StrictBool = Field(description="True when the seat doubled.")
    kind: DoubleKind = Field(description="``double`` (a farmer) or ``redouble`` (the landlord).")


# ─── play ───────────────────────────────────────────────────────────────────────────────


class PlayData(ActionData):
    """A seat plays a combination."""

    cards: Annotated[list[Card], Field(min_length=1)] = Field(description="The cards played.")
    hand_type: HandType = Field(description="The combination (SINGLE, BOMB, ...; never PASS).")
    main_rank: Rank = Field(description="Its main rank, 3..17 (J=11, A=14, 2=15, jokers 16-17).")
    length: Annotated[StrictInt, Field(ge=1)] = Field(
        description="Ranks in a chain (straight, airplane); 1 otherwise."
    )
    cards_left: Count = Field(description="Cards the seat still holds (2 or fewer: a warning).")


class PassData(ActionData):
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


def parse_event(data: str | bytes | Mapping[str, Any]) -> tuple[EventEnvelope, EventData]:
    """Check one Dou Dizhu event (JSON text or a decoded object): its envelope, then its
    ``data`` (:func:`protocol.events.read_event` over :data:`EVENT_DATA`).

    Raises :class:`~protocol.ProtocolError` naming the offending path
    (``play.data.cards[0]: ...``).
    """
    return read_event(data, EVENT_DATA)
