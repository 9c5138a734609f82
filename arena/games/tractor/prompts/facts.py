"""What a Tractor request implies, worked out for a language model that reads it.

A model reasons badly over a flat list of card ids: these facts sort the request's own
cards into suit groups under the round's trump (trumps apart, each group high to low),
say who is partner and who is opponent, who leads the trick and who is winning it, what
has been played and how many points are still out. Everything is derived from the
request message alone (the seat's own hand, the cards played in public, the banker's
own buried cards), so a prompt built from these facts cannot name a card the seat may
not know. Pure: no I/O, no table state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from arena.games.tractor.agents.base import level_of, suit_of
from arena.games.tractor.engine import (
    TRUMP,
    Play,
    Trump,
    card_ids,
    classify,
    face_text,
    points_of,
    trick_winner,
    trump_context,
)
from arena.games.tractor.engine.cards import SUIT
from arena.games.tractor.messages import PlayRequest

__all__ = [
    "GROUP_ORDER",
    "Grouped",
    "PlayFacts",
    "TrickPlay",
    "faces",
    "grouped",
    "play_facts",
    "trump_of",
]

GROUP_ORDER: tuple[int, ...] = (TRUMP, 0, 1, 2, 3)
"""How a prompt lists suit groups: trumps first, then ♠ ♥ ♦ ♣."""

Grouped = list[tuple[int, tuple[int, ...]]]
"""Cards by suit group, in :data:`GROUP_ORDER`, each group high to low; empty groups
left out."""

TOTAL_POINTS = 200
"""The points in the two decks (every 5, 10 and K)."""


def trump_of(level: str, trump_suit: str | None) -> Trump:
    """The trump context of a request's ``level`` and ``trump_suit`` (None: no trump)."""
    return trump_context(level_of(level), suit_of(trump_suit))


def grouped(cards: Iterable[int], trump: Trump) -> Grouped:
    """``cards`` by suit group (see :data:`Grouped`): ties in power (the level cards of
    the other suits) by suit, ♠ ♥ ♦ ♣."""
    group, power = trump.group, trump.power
    found: dict[int, list[int]] = {}
    for card in cards:
        found.setdefault(group[card], []).append(card)
    return [
        (g, tuple(sorted(found[g], key=lambda c: (-power[c], SUIT[c], c))))
        for g in GROUP_ORDER
        if g in found
    ]


def faces(cards: Iterable[int]) -> str:
    """Faces joined by spaces, in the order given: ``♠A ♠A ♠K``."""
    return " ".join(face_text(c) for c in cards)


@dataclass(frozen=True, slots=True)
class TrickPlay:
    """One play of the trick so far: who, the cards, and whose side they are on."""

    player: str
    cards: tuple[int, ...]
    side: str
    """``you``, ``partner`` or ``opponent``."""


@dataclass(frozen=True, slots=True)
class PlayFacts:
    """A PLAY_REQUEST from the requesting seat's point of view."""

    me: str
    trump: Trump
    partners: tuple[str, ...]
    opponents: tuple[str, ...]
    banker: str
    bankers: bool
    """Whether the seat's team are the bankers this round."""
    my_level: str
    their_level: str
    hand: Grouped
    trick: tuple[TrickPlay, ...]
    lead: Play | None
    """The trick's lead, classified (None: the seat leads)."""
    winning: TrickPlay | None
    """The play taking the trick so far (None: the seat leads)."""
    played: Grouped
    played_count: int
    hand_points: int
    points_out: int
    """Points the seat has not seen: in the other hands or, for a defender, the kitty."""
    buried: tuple[int, ...] | None
    """The banker's own buried cards (None for everyone else)."""


def play_facts(request: PlayRequest) -> PlayFacts:
    """The facts a PLAY_REQUEST implies for its seat."""
    trump = trump_of(request.level, request.trump_suit)
    me = request.player_id
    mine = request.teams[request.team]
    partners = tuple(p for p in mine if p != me)
    opponents = tuple(request.teams[1 - request.team])
    hand = card_ids(request.hand)
    played = [c for record in request.played for c in card_ids(record.cards)]
    buried = None if request.buried is None else card_ids(request.buried)

    def side(player: str) -> str:
        return "you" if player == me else "partner" if player in partners else "opponent"

    trick = tuple(TrickPlay(p.player, card_ids(p.cards), side(p.player)) for p in request.trick)
    lead = None if request.lead is None else classify(card_ids(request.lead.cards), trump)
    winning = None
    if lead is not None and trick:
        plays = [classify(t.cards, trump) for t in trick]
        winning = trick[trick_winner(plays)]
    seen = points_of(hand) + points_of(played) + (points_of(buried) if buried else 0)
    return PlayFacts(
        me=me,
        trump=trump,
        partners=partners,
        opponents=opponents,
        banker=request.banker,
        bankers=request.banker in mine,
        my_level=request.levels[request.team],
        their_level=request.levels[1 - request.team],
        hand=grouped(hand, trump),
        trick=trick,
        lead=lead,
        winning=winning,
        played=grouped(played, trump),
        played_count=len(played),
        hand_points=points_of(hand),
        points_out=TOTAL_POINTS - seen,
        buried=buried,
    )
