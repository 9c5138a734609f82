"""No Tractor seat is told a card it may not know, no public event names a hidden card,
and every round accounts for its 108 cards and 200 points.

Specification (issue 29, Tractor at the arena; docs/rules-tractor.md, "What each seat
may see"; docs/events.md, "Tractor's events"): a seat knows its own cards (while trump
is declared under ``deal_steps``, those dealt so far), every card shown at the table (a
declaration, a play, a thrown hand), the kitty only once it is banker and has taken it,
and the buried cards only at the round's end unless it buried them; the audience knows
only what is shown at the table, and the buried kitty at ``round_result``. Real tables of
4 and 6 scripted seats play; each seat writes down every message it receives and a sink
every event, in one timeline, while the engine's own deal and burial are read beside
them as the truth to judge by. A card is named in a message or event as an id
(``D1_H_10``) or, in words, as a face (``♥10``): both are checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from tractor_matches import names, play_tractor, tractor_rules

from arena.events import Event
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import CARD_COUNT, DECK, card_id, card_text, face_text, points_of
from arena.games.tractor.messages import CARD_ID_PATTERN
from arena.games.tractor.turns import TractorTurns
from arena.table import Table
from protocol import Message

CARD_ID = re.compile(CARD_ID_PATTERN.strip("^$"))
FACE = re.compile(r"[♠♥♦♣](?:10|[2-9JQKA])|小王|大王")


def named(value: Any) -> Iterator[str]:
    """Every card id in a JSON value, at any depth, inside text too."""
    if isinstance(value, str):
        yield from (m.group(0) for m in CARD_ID.finditer(value))
    elif isinstance(value, dict):
        for item in value.values():
            yield from named(item)
    elif isinstance(value, list):
        for item in value:
            yield from named(item)


def faces(value: Any) -> Iterator[str]:
    """Every card face (``♥10``, ``大王``) written in a JSON value's text."""
    if isinstance(value, str):
        yield from FACE.findall(value)
    elif isinstance(value, dict):
        for item in value.values():
            yield from faces(item)
    elif isinstance(value, list):
        for item in value:
            yield from faces(item)


@dataclass
class Truth:
    """The engine's own round: each seat's cards in the order dealt, the kitty, the
    buried cards once buried."""

    dealt: list[tuple[int, ...]]
    kitty: tuple[int, ...]
    steps: int
    buried: tuple[int, ...] = ()


@dataclass
class Knowledge:
    """What each seat and the audience may know, as a round goes; each message and event
    judged against it (:meth:`message`, :meth:`event` return the leaks found)."""

    truth: Truth
    step: int = 1
    locked: bool = False
    banker: int | None = None
    kitty_taken: bool = False
    ended: set[int] = field(default_factory=set)
    """Seats told the round's result (the buried cards are theirs to know then)."""
    public: set[int] = field(default_factory=set)
    """Cards shown at the table: declared, played, thrown."""

    def own(self, seat: int) -> set[int]:
        """The cards dealt to ``seat`` so far."""
        cards = self.truth.dealt[seat]
        if self.locked:
            return set(cards)
        shown = -(-len(cards) * self.step // self.truth.steps)
        return set(cards[:shown])

    def held(self, seat: int) -> set[int]:
        """The cards ``seat`` may play or throw: its own, the kitty if it took it, none
        it buried."""
        cards = self.own(seat)
        if self.kitty_taken and seat == self.banker:
            cards |= set(self.truth.kitty)
        return cards - set(self.truth.buried)

    def allowed(self, seat: int) -> set[int]:
        """What ``seat`` may be told now."""
        known = self.public | self.own(seat)
        if self.kitty_taken and seat == self.banker:
            known |= set(self.truth.kitty)
        if seat in self.ended:
            known |= set(self.truth.buried)
        return known

    def message(self, seat: int, message: dict[str, Any]) -> list[str]:
        if message["type"] == "ROUND_RESULT":
            self.ended.add(seat)
        return _leaks(f"{message['type']} to seat {seat}", message, self.allowed(seat))

    def event(self, kind: str, seat: int | None, data: dict[str, Any]) -> list[str]:
        reveals: set[int] = set()
        if kind == "declare" and seat is not None:
            reveals = self.own(seat)
        elif kind in ("play", "throw_punished") and seat is not None:
            reveals = self.held(seat)
        elif kind == "round_result":
            reveals = set(self.truth.buried)
        leaks = _leaks(f"event {kind}", data, self.public | reveals)
        if kind in ("declare", "play", "throw_punished"):
            self.public |= {card_id(c) for c in named(data)}
        elif kind == "deal_step":
            self.step = data["step"]
        elif kind == "trump_locked":
            self.locked, self.banker = True, data["banker"]
        elif kind == "kitty_taken":
            self.kitty_taken = True
        return leaks


def _leaks(what: str, value: Any, allowed: set[int]) -> list[str]:
    """The cards and faces ``value`` names beyond ``allowed``."""
    ids = sorted({c for c in named(value) if card_id(c) not in allowed})
    known_faces = {face_text(c) for c in allowed}
    shown = sorted({f for f in faces(value) if f not in known_faces})
    return [f"{what} names {card}" for card in ids + shown]


class Timeline:
    """One table's messages (by the seats' agents) and events (by a sink), in order, with
    the engine's deal and burial read from the table as each round starts and buries."""

    def __init__(self) -> None:
        self.entries: list[tuple[str, Any]] = []
        self.table: Table | None = None

    async def emit(self, event: Event) -> None:
        assert self.table is not None
        turns = self.table.turns
        assert isinstance(turns, TractorTurns)
        rnd = turns.round
        assert rnd is not None
        if event.type == "round_started":
            truth = Truth([tuple(h) for h in rnd.hands], tuple(rnd.kitty), rnd.rules.deal_steps)
            self.entries.append(("truth", truth))
        elif event.type == "bury":
            self.entries.append(("buried", tuple(rnd.buried)))
        self.entries.append(("event", event))

    async def close(self) -> None:
        """Nothing to release."""


class Listening(RandomAgent):
    """A random seat that writes down every message it receives into the timeline."""

    def __init__(self, name: str, seat: int, timeline: Timeline, **options: Any) -> None:
        super().__init__(name, **options)
        self.seat, self.timeline = seat, timeline

    def _heard(self, message: Message) -> None:
        self.timeline.entries.append(("message", (self.seat, message.model_dump(mode="json"))))

    async def notify(self, message: Message) -> None:
        self._heard(message)
        await super().notify(message)

    async def declare(self, request: Any) -> Any:
        self._heard(request)
        return await super().declare(request)

    async def bury(self, request: Any) -> Any:
        self._heard(request)
        return await super().bury(request)

    async def play(self, request: Any) -> Any:
        self._heard(request)
        return await super().play(request)


async def timeline_of(players: int, seed: int, *, deal_steps: int = 1) -> Timeline:
    """A match of three rounds at a table of listening seats."""
    rules = tractor_rules(players, 3, deal_steps=deal_steps)
    timeline = Timeline()
    agents = [
        Listening(name, seat, timeline, seed=seat, rules=rules)
        for seat, name in enumerate(names(players))
    ]

    def watch(table: Table) -> None:
        timeline.table = table

    await play_tractor(rules, seed=seed, sinks=[timeline], agents=agents, watch=watch)
    return timeline


@dataclass
class Round:
    """One round of a timeline, walked: the leaks found, and its cards and points."""

    leaks: list[str] = field(default_factory=list)
    played: list[str] = field(default_factory=list)
    """Every card played, from the ``play`` events."""
    tricks: list[dict[str, Any]] = field(default_factory=list)
    result: dict[str, Any] | None = None
    plays: int = 0
    requests: int = 0
    """PLAY_REQUESTs whose counts were checked against 108 cards (one a play)."""


def rounds_of(timeline: Timeline) -> list[Round]:
    """Each round of the timeline, walked beside the knowledge it allows."""
    found: list[Round] = []
    knowing: Knowledge | None = None
    for kind, entry in timeline.entries:
        if kind == "truth":
            knowing = Knowledge(entry)
            found.append(Round())
            continue
        if knowing is None:  # the match's start, before any round
            continue
        walked = found[-1]
        if kind == "buried":
            knowing.truth.buried = entry
        elif kind == "event":
            walked.leaks += knowing.event(entry.type, entry.seat, dict(entry.data))
            if entry.type == "play":
                walked.played += entry.data["cards"]
                walked.plays += 1
            elif entry.type == "trick_won":
                walked.tricks.append(dict(entry.data))
            elif entry.type == "round_result":
                walked.result = entry.data["result"]
        else:
            seat, message = entry
            walked.leaks += knowing.message(seat, message)
            if message["type"] == "PLAY_REQUEST":
                _accounts(message, walked)
    return found


def _accounts(request: dict[str, Any], walked: Round) -> None:
    """A PLAY_REQUEST's hand and counts, the cards played so far and the buried ones are
    the 108 cards, the hand none of those played."""
    seat_cards = request["hand"]
    others = sum(n for player, n in request["cards_left"].items() if player != request["player_id"])
    assert request["cards_left"][request["player_id"]] == len(seat_cards)
    assert not set(seat_cards) & set(walked.played)
    assert len(seat_cards) + others + len(walked.played) + request["kitty_count"] == CARD_COUNT
    walked.requests += 1


MATCHES = [(4, 3, 1), (6, 8, 1), (4, 5, 4), (6, 2, 3)]
"""Seats, seed and deal steps of each match."""


@pytest.fixture(scope="module", params=MATCHES, ids=lambda m: f"{m[0]}-seats-{m[2]}-steps")
def walked(request: pytest.FixtureRequest) -> list[Round]:
    import asyncio

    players, seed, steps = request.param
    return rounds_of(asyncio.run(timeline_of(players, seed, deal_steps=steps)))


def test_no_message_tells_a_seat_a_card_it_may_not_know_and_no_event_a_hidden_one(
    walked: list[Round],
) -> None:
    assert len(walked) == 3
    assert [r.leaks for r in walked] == [[], [], []]


def test_every_round_accounts_for_108_cards_and_200_points(walked: list[Round]) -> None:
    for one in walked:
        result = one.result
        assert result is not None
        assert one.requests == one.plays
        every = one.played + result["kitty"]
        assert len(every) == CARD_COUNT
        assert sorted(card_id(c) for c in every) == list(DECK)
        points = sum(t["points"] for t in one.tricks)
        defenders = sum(t["points"] for t in one.tricks if t["counted"])
        bankers = points - defenders
        kitty = points_of(card_id(c) for c in result["kitty"])
        assert (result["trick_points"], result["kitty_points"]) == (defenders, kitty)
        assert defenders + bankers + kitty == 200
        assert result["defender_points"] == defenders + kitty * result["multiplier"]
        assert one.tricks[-1]["defender_points"] == defenders


# ─── the check itself can fail ──────────────────────────────────────────────────────────


def test_the_knowledge_check_names_what_a_seat_or_the_audience_may_not_know() -> None:
    dealt = [tuple(range(s, 100, 4))[:25] for s in range(4)]
    truth = Truth(dealt, kitty=tuple(range(100, 108)), steps=1)
    knowing = Knowledge(truth)
    mine, theirs = card_text(dealt[0][0]), card_text(dealt[1][0])
    kitty = card_text(truth.kitty[0])

    assert knowing.message(0, {"type": "PLAY_REQUEST", "hand": [mine]}) == []
    assert knowing.message(0, {"type": "PLAY_REQUEST", "hand": [mine, theirs]}) == [
        f"PLAY_REQUEST to seat 0 names {theirs}"
    ]
    said = f"an opponent holds {face_text(dealt[1][0])}"
    if face_text(dealt[1][0]) not in {face_text(c) for c in dealt[0]}:
        assert knowing.message(0, {"type": "REPLY_REJECTED", "detail": said})
    assert knowing.event("bury", 0, {"count": 8, "cards": [kitty]}) == [f"event bury names {kitty}"]
    knowing.event("trump_locked", 0, {"banker": 0})
    assert knowing.message(0, {"type": "BURY_REQUEST", "kitty": [kitty]}) == [
        f"BURY_REQUEST to seat 0 names {kitty}"
    ]
    knowing.event("kitty_taken", 0, {"count": 8})
    assert knowing.message(0, {"type": "BURY_REQUEST", "kitty": [kitty]}) == []
    assert knowing.message(1, {"type": "TRICK_WON", "plays": [kitty]}) != []
    truth.buried = truth.kitty
    assert knowing.event("play", 0, {"cards": [kitty]}) == [f"event play names {kitty}"]
    assert knowing.message(1, {"type": "ROUND_RESULT", "kitty": [kitty]}) == []
    assert knowing.event("round_result", 1, {"result": {"kitty": [kitty]}}) == []
