"""Tractor's public events: the ``data`` model of each event type it publishes
(docs/events.md, "Tractor's events"), and :func:`parse_event` to check one.

Every game's events (the turn, gifts, faults, decisions, stand-ins) are
:mod:`protocol.events`'; here are the rest: the match and its rounds, the declaration
windows, trump and the kitty, the burial, play and tricks, a gift's effect on a round,
the result and the match's end. No event names a card a seat holds unseen: a
declaration shows the cards declared, a play the cards played, a punished throw the
cards thrown (all shown at the table), and the buried kitty is shown only in
``round_result``. Levels are numbers here: 2..10, J = 11, Q = 12, K = 13, A = 14.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Annotated, Any, Final, Literal, TypeAlias, get_args

from pydantic import Field, StrictBool, StrictInt, StrictStr

from arena.games.tractor.messages import CardId, PlayKind, Strength, SuitGroup, SuitLetter
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
from protocol.messages import PlayerId, Standing, TableId

__all__ = [
    "EVENT_DATA",
    "EVENT_TYPES",
    "BuryData",
    "DealStepData",
    "DeclareData",
    "EffectAppliedData",
    "EventType",
    "GameOverData",
    "KittyTakenData",
    "MatchEndedData",
    "MatchRules",
    "MatchStartedData",
    "PlayData",
    "PublicResult",
    "RoundResultData",
    "RoundStartedData",
    "ThrowPunishedData",
    "TrickWonData",
    "TrumpCandidateData",
    "TrumpLockedData",
    "parse_event",
]

EventType: TypeAlias = Literal[
    "match_started",
    "round_started",
    "turn_started",
    "declare",
    "trump_candidate",
    "deal_step",
    "trump_locked",
    "kitty_taken",
    "bury",
    "throw_punished",
    "play",
    "trick_won",
    "effect_applied",
    "gift",
    "fault",
    "decision",
    "budget_spent",
    "seat_replaced",
    "round_result",
    "game_over",
    "match_ended",
]
EVENT_TYPES: Final[tuple[EventType, ...]] = get_args(EventType)

Seat = Annotated[StrictInt, Field(ge=0, le=5)]
Team = Annotated[StrictInt, Field(ge=0, le=1)]
Level = Annotated[StrictInt, Field(ge=2, le=14)]
Levels = Annotated[list[Level], Field(min_length=2, max_length=2)]
Players = Annotated[list[PlayerId], Field(min_length=4, max_length=6)]
Points = Annotated[StrictInt, Field(ge=0, le=1000)]
Cards = Annotated[list[CardId], Field(min_length=1)]


# ─── the match and its rounds ───────────────────────────────────────────────────────────


class MatchRules(EventData):
    """The rules an overlay needs to follow the match (docs/rules-tractor.md)."""

    players: Literal[4, 6] = Field(description="Seats at the table.")
    kitty: Annotated[StrictInt, Field(ge=2, le=36)] = Field(
        description="Cards in the kitty (底牌): 8 for 4 players, 12 for 6 unless set."
    )
    deal_steps: Annotated[StrictInt, Field(ge=1)] = Field(
        description="1: the whole hand is dealt before trump is declared; N: in N steps, "
        "a declaration window after each."
    )
    play_through: StrictBool = Field(
        description="A team at A must still win a round as bankers at A to win the match."
    )
    round_limit: Annotated[StrictInt, Field(ge=1)] | None = Field(
        description="The most rounds of the match (the higher level wins, then the points); "
        "null: until a team wins by the level rule."
    )
    teams: Annotated[list[list[Seat]], Field(min_length=2, max_length=2)] = Field(
        description="Each team's seats: team 0 the even seats, team 1 the odd ones."
    )


class MatchStartedData(EventData):
    """A match begins at the table (``round`` is 0 before its first round)."""

    players: Players = Field(description="The players' names, by seat 0, 1, 2 ...")
    rounds: Annotated[StrictInt, Field(ge=1)] | None = Field(
        description="Rounds the match will play at most; null when open-ended."
    )
    rules: MatchRules
    match_id: StrictStr | None = Field(
        default=None,
        description="The match's id, as every message to the agents names it (not the seed).",
    )


class RoundStartedData(EventData):
    """A round begins: the cards are dealt (the hands are never in an event)."""

    players: Players = Field(description="The players' names, by seat.")
    levels: Levels = Field(description="Each team's level (team 0 first).")
    level: Level = Field(description="The level this round is played at: the bankers' team's.")
    banker: Seat | None = Field(
        description="The banker (庄家); null in a match's first round, where the declaration "
        "that locks trump decides."
    )
    cards: Annotated[list[Count], Field(min_length=4, max_length=6)] = Field(
        description="Each seat's cards as dealt (under deal_steps, the first step's)."
    )
    reshuffled: StrictBool = Field(
        default=False,
        description="Set when gifts changed the round before it began: a viewer's 重新洗牌 "
        "(RESHUFFLE) threw the prepared deal away.",
    )


# ─── declaring, trump and the kitty ─────────────────────────────────────────────────────


class DeclareData(ActionData):
    """A seat's reply in a declaration window (亮主): every seat is asked at once, and the
    window's replies are shown together, in seat order."""

    window: Annotated[StrictInt, Field(ge=1)] = Field(description="The window, from 1.")
    cards: Annotated[list[CardId], Field(max_length=2)] = Field(
        description="The cards declared (a level card, a pair of them, or jokers); none: a pass."
    )
    declared: StrictBool = Field(description="The seat declared (false: it passed).")


class TrumpCandidateData(EventData):
    """A window's strongest declaration (``seat`` made it): trump, until a stronger one."""

    window: Annotated[StrictInt, Field(ge=1)]
    cards: Annotated[list[CardId], Field(min_length=1, max_length=2)]
    strength: Strength = Field(description="Weakest ``level_single`` to ``big_joker_pair``.")
    suit: SuitLetter | None = Field(description="The suit it names; null: no trump (jokers).")


class DealStepData(EventData):
    """A deal step revealed more of each hand (``deal_steps`` > 1); seat ``null``."""

    step: Annotated[StrictInt, Field(ge=2)] = Field(description="The step now dealt, from 2.")
    cards: Annotated[list[Count], Field(min_length=4, max_length=6)] = Field(
        description="Cards each seat has been dealt so far, by seat."
    )


class TrumpLockedData(EventData):
    """Trump is fixed (``seat``: the banker)."""

    level: Level
    trump_suit: SuitLetter | None = Field(description="null: no trump.")
    declarer: Seat | None = Field(description="Who declared it; null: nobody declared.")
    banker: Seat
    kitty_count: Count = Field(description="The kitty's cards, which the banker now takes.")


class KittyTakenData(EventData):
    """The banker (``seat``) took the kitty into its hand; its cards stay hidden."""

    count: Count


class BuryData(ActionData):
    """The banker (``seat``) buried as many cards as the kitty had (埋底); which stays
    hidden until ``round_result``."""

    count: Count


# ─── play ───────────────────────────────────────────────────────────────────────────────


class ThrowPunishedData(EventData):
    """A throw (甩牌, ``seat`` led it) did not stand: an opponent holds a higher part; it
    is played as ``punished`` (its next ``play``), the rest goes back to the hand."""

    original: Annotated[list[CardId], Field(min_length=2)] = Field(
        description="The cards thrown, shown to all."
    )
    punished: Cards = Field(description="The part it is played as.")
    reason: StrictStr = Field(description="Why, in words (it names no card of another seat).")


class PlayData(ActionData):
    """A seat leads or follows."""

    cards: Cards = Field(description="The cards played (a punished throw: the part played).")
    kind: PlayKind = Field(
        description="SINGLE, PAIR, TRACTOR, THROW, or MIXED: a follow from several suit "
        "groups (a seat short of the lead's), which never wins."
    )
    suit_group: SuitGroup | None = Field(
        description="A suit letter or TRUMP; null for a MIXED follow."
    )
    leading: StrictBool = Field(description="The play leads the trick.")
    cards_left: Count = Field(description="Cards the seat still holds.")
    punished: StrictBool = Field(
        default=False,
        description="The play is a punished throw's part (after its ``throw_punished``).",
    )


class TrickWonData(EventData):
    """A trick is over: ``seat`` won it and leads the next."""

    trick: Annotated[StrictInt, Field(ge=1)] = Field(description="The trick's number, from 1.")
    points: Points = Field(description="Points in its cards (5s, 10s and Ks).")
    counted: StrictBool = Field(description="A defender won it: its points count for them.")
    defender_points: Points = Field(description="The defenders' trick points so far.")


class EffectAppliedData(EventData):
    """A viewer gift's effect changed the round between two plays (before the next
    ``turn_started``). Which cards moved stays hidden."""

    effect: StrictStr = Field(description="The effect, e.g. ``swap``.")
    seats: Annotated[list[Seat], Field(max_length=2)] = Field(description="The seats it touched.")
    cards_moved: Annotated[StrictInt, Field(ge=0, le=2)]


# ─── the result ─────────────────────────────────────────────────────────────────────────


class PublicResult(EventData):
    """How a round was scored (docs/rules-tractor.md, Scoring); the buried kitty shown."""

    banker: Seat
    trick_points: Points = Field(description="Points in the tricks the defenders won.")
    kitty: list[CardId] = Field(description="The buried cards, shown to all now.")
    kitty_points: Points
    multiplier: Literal[0, 2, 4] = Field(
        description="The kill (抠底): 0 when the bankers took the last trick, else 2, or 4 "
        "when its lead was a pair or tractor."
    )
    defender_points: Points = Field(description="trick_points + kitty_points × multiplier.")
    last_trick_winner: Seat
    up_team: Team = Field(description="The team that went up.")
    delta: Annotated[StrictInt, Field(ge=0, le=3)] = Field(description="Levels it went up.")
    levels_before: Levels
    levels_after: Levels
    next_banker: Seat
    scores: Annotated[list[StrictInt], Field(min_length=4, max_length=6)] = Field(
        description="Score change by seat: +delta for the team that went up, −delta else."
    )
    winners: list[Seat] = Field(description="The seats of the team that went up.")
    match_over: StrictBool = Field(description="This round ended the match.")
    winner_team: Team | None = Field(
        description="The match's winning team once over; null: not over, or a draw at the "
        "round limit."
    )


class RoundResultData(EventData):
    """A round ended (``seat``: the next banker); everything keyed by player name."""

    table: TableId
    round_no: Annotated[StrictInt, Field(ge=1)]
    players: Players
    scores: dict[str, StrictInt] = Field(description="Score change by player.")
    faults: dict[str, FaultCounts] = Field(description="This round's faults by player.")
    standins: list[PlayerId] = Field(description="Players a stand-in played for this round.")
    stats: dict[str, SeatStats] = Field(description="This round's decision figures by player.")
    result: PublicResult
    gifts: list[GiftEffect] = Field(
        default_factory=list,
        description="The result-changing gifts that touched the round, in order.",
    )
    totals: dict[str, StrictInt] = Field(description="The match's total scores so far.")


class GameOverData(EventData):
    """A team won the match (or the round limit decided it); seat ``null``."""

    winner_team: Team | None = Field(description="null: a draw at the round limit.")
    levels: Levels = Field(description="Each team's level at the end.")
    rounds: Annotated[StrictInt, Field(ge=1)] = Field(description="Rounds played.")
    points: Annotated[list[Count], Field(min_length=2, max_length=2)] = Field(
        description="Each team's points as defenders over the match (the round limit's tie-break)."
    )


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
        "turn_started": TurnStartedData,
        "declare": DeclareData,
        "trump_candidate": TrumpCandidateData,
        "deal_step": DealStepData,
        "trump_locked": TrumpLockedData,
        "kitty_taken": KittyTakenData,
        "bury": BuryData,
        "throw_punished": ThrowPunishedData,
        "play": PlayData,
        "trick_won": TrickWonData,
        "effect_applied": EffectAppliedData,
        "gift": GiftData,
        "fault": FaultData,
        "decision": DecisionData,
        "budget_spent": BudgetSpentData,
        "seat_replaced": SeatReplacedData,
        "round_result": RoundResultData,
        "game_over": GameOverData,
        "match_ended": MatchEndedData,
    }
)
"""Each event type's ``data`` model."""


def parse_event(data: str | bytes | Mapping[str, Any]) -> tuple[EventEnvelope, EventData]:
    """Check one Tractor event (JSON text or a decoded object): its envelope, then its
    ``data`` (:func:`protocol.events.read_event` over :data:`EVENT_DATA`).

    Raises :class:`~protocol.ProtocolError` naming the offending path
    (``play.data.cards[0]: ...``).
    """
    return read_event(data, EVENT_DATA)
