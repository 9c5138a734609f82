"""Tractor at a real table: declaration windows ask every seat at once (a late reply is a
pass, one seat's fault delays nobody, speed never wins a tie), refused replies are told
the engine's reason and asked again, and a match carries levels and the banker until a
team reaches A."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from typing import Any

import pytest

from arena.games.registry import get_game
from arena.games.tractor.agents.base import (
    TractorAgent,
    declare_reply,
    pass_reply,
    play_reply,
    read_play,
)
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import Round, TractorRules, card_ids, face_text, fill_follow
from arena.games.tractor.messages import (
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
)
from arena.sinks.base import CollectingSink
from arena.table import Table
from arena.table.match import play_match
from arena.table.settings import TableSettings
from protocol import Message, ReplyRejected

GAME = get_game("tractor")


class Declarer(TractorAgent):
    """Declares its strongest option after ``delay_s``; plays like ``random``."""

    def __init__(self, name: str, *, delay_s: float = 0.0, **options: Any) -> None:
        super().__init__(name, **options)
        self.delay_s = delay_s
        self.player = RandomAgent(name, seed=1)
        self.windows: list[float] = []

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        self.windows.append(time.monotonic())
        await asyncio.sleep(self.delay_s)
        if not request.options:
            return pass_reply(request)
        return declare_reply(request, request.options[-1].cards)

    async def play(self, request: PlayRequest) -> PlayResponse:
        return await self.player.play(request)


class Passer(RandomAgent):
    """Never declares."""

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        return pass_reply(request)


def _table(agents: list[Any], **settings: Any) -> tuple[Table, CollectingSink]:
    sink = CollectingSink()
    table = Table(
        agents,
        game=GAME,
        rules=TractorRules(round_limit=1),
        settings=TableSettings(**settings),
        sinks=[sink],
    )
    return table, sink


def _first_declarers(seed: int) -> list[int]:
    """The seats holding a level 2 (something to declare) in round 1 of ``seed``."""
    rnd = Round(TractorRules(), seed=seed)
    return [seat for seat in range(4) if rnd.declaration_options(seat)]


async def test_a_reply_after_the_window_is_a_pass_and_delays_nobody() -> None:
    seed = next(s for s in range(200) if {0, 1} <= set(_first_declarers(s)))
    table, sink = _table(
        [
            Declarer("Fast"),
            Declarer("Slow", delay_s=5.0),
            Passer("P2", seed=2),
            Passer("P3", seed=3),
        ],
        declaration_window_s=0.4,
        max_retries=0,
    )
    started = time.monotonic()
    await play_match(table, rounds=1, seed=seed)
    took = time.monotonic() - started
    declares = [e for e in sink.events if e.type == "declare" and e.data["window"] == 1]
    assert [e.seat for e in declares] == [0, 1, 2, 3]  # every seat, in seat order
    slow = declares[1]
    assert slow.data["declared"] is False
    assert slow.data["fallback"] is True
    faults = [e for e in sink.events if e.type == "fault" and e.seat == 1]
    assert faults
    assert faults[0].data["category"] == "timeout"
    # the slow seat's 5 s never held the table: each window is 0.4 s at most
    windows = {e.data["window"] for e in sink.events if e.type == "declare"}
    assert took < 0.4 * len(windows) + 2.0
    assert declares[0].data["declared"] is True  # the fast seat's declaration counted
    candidates = [e for e in sink.events if e.type == "trump_candidate"]
    assert candidates[0].seat == 0


async def test_speed_never_wins_a_tie_between_equal_declarations() -> None:
    """Two seats declaring with equal strength in one window: the same seat wins the
    candidacy whichever of them answers first."""
    seed = next(s for s in range(200) if {0, 2} <= set(_first_declarers(s)))

    async def candidate(delays: tuple[float, float]) -> tuple[int | None, list[Any]]:
        class Single(Declarer):
            async def declare(self, request: DeclareRequest) -> DeclareResponse:
                await asyncio.sleep(self.delay_s)
                singles = [o for o in request.options if o.strength == "level_single"]
                if request.window > 1 or not singles:
                    return pass_reply(request)
                return declare_reply(request, singles[0].cards)

        table, sink = _table(
            [
                Single("A", delay_s=delays[0]),
                Passer("B", seed=1),
                Single("C", delay_s=delays[1]),
                Passer("D", seed=3),
            ],
            declaration_window_s=2.0,
        )
        await play_match(table, rounds=1, seed=seed)
        found = [e for e in sink.events if e.type == "trump_candidate"]
        return (found[0].seat if found else None), found

    first, events = await candidate((0.0, 0.3))
    second, _ = await candidate((0.3, 0.0))
    assert first in (0, 2)
    assert first == second
    assert events[0].data["strength"] == "level_single"


class Stubborn(RandomAgent):
    """Answers its first play request of each trick it follows with one card too many,
    then legally; records what it was told."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(name, **options)
        self.rejections: list[ReplyRejected] = []
        self.refused_once: set[str] = set()

    async def notify(self, message: Message) -> None:
        await super().notify(message)
        if isinstance(message, ReplyRejected):
            self.rejections.append(message)

    async def play(self, request: PlayRequest) -> PlayResponse:
        seen = read_play(request)
        if seen.lead is not None and request.request_id not in self.refused_once:
            self.refused_once.add(request.request_id or "")
            legal = fill_follow(seen.hand, seen.lead, seen.trump)
            extra = [c for c in seen.hand if c not in legal][:1]
            if extra:
                return play_reply(request, [*legal, *extra])
        return await super().play(request)


async def test_an_illegal_follow_is_refused_with_the_engines_reason_and_asked_again() -> None:
    stubborn = Stubborn("Stubborn", seed=4)
    table, sink = _table([stubborn, *(RandomAgent(f"R{i}", seed=i) for i in range(1, 4))])
    await play_match(table, rounds=1, seed=21)
    assert stubborn.rejections
    rejected = stubborn.rejections[0]
    assert rejected.reason == "illegal"
    assert rejected.retries_left >= 1
    assert rejected.detail.startswith("play ")
    assert rejected.detail.endswith("as many as the lead")  # the engine's own words
    plays = [e for e in sink.events if e.type == "play" and e.seat == 0]
    assert plays
    assert not any(e.data["fallback"] for e in plays)  # the second answer was taken
    assert table.faults(0).to_dict()["illegal"] == len(stubborn.rejections)


async def test_a_declaration_that_is_not_one_is_refused_and_asked_again_in_the_window() -> None:
    class Confused(Passer):
        def __init__(self, name: str, **options: Any) -> None:
            super().__init__(name, **options)
            self.rejections: list[ReplyRejected] = []

        async def notify(self, message: Message) -> None:
            await super().notify(message)
            if isinstance(message, ReplyRejected):
                self.rejections.append(message)

        async def declare(self, request: DeclareRequest) -> DeclareResponse:
            if not self.rejections:
                level = {"2"} | {c for c in request.hand if "_2" in c}
                plain = next(c for c in request.hand if c not in level and "J" not in c[3:])
                return declare_reply(request, [plain])
            return pass_reply(request)

    confused = Confused("Confused", seed=1)
    table, sink = _table([confused, *(Passer(f"P{i}", seed=i) for i in range(1, 4))])
    await play_match(table, rounds=1, seed=5)
    assert confused.rejections
    assert confused.rejections[0].request_type == "DECLARE_REQUEST"
    assert "level" in confused.rejections[0].detail or "joker" in confused.rejections[0].detail
    first_window = [e for e in sink.events if e.type == "declare" and e.data["window"] == 1]
    assert first_window[0].data["fallback"] is False  # its second reply, a pass, was taken


async def test_a_match_carries_levels_and_the_banker_until_a_team_reaches_a() -> None:
    for players in (4, 6):
        agents = [RandomAgent(f"S{i}", seed=i) for i in range(players)]
        sink = CollectingSink()
        table = Table(agents, game=GAME, rules=TractorRules(players=players), sinks=[sink])
        summary = await play_match(table, rounds=200, seed=players)
        results = [r.result for r in summary.rounds]
        assert len(results) < 200  # the level rule ended it, not the count
        assert results[-1].match_over
        assert 14 in results[-1].score.levels_after
        assert not any(r.match_over for r in results[:-1])
        for before, after in itertools.pairwise(results):
            assert after.score.levels_before == before.score.levels_after
            assert after.score.banker == before.score.next_banker
        over = [e for e in sink.events if e.type == "game_over"]
        assert len(over) == 1
        assert over[0].data["winner_team"] == results[-1].winner_team
        totals = summary.totals
        assert sum(totals.values()) == 0
        # each seat's total is its team's levels gained less the other team's
        gained = [after - 2 for after in results[-1].score.levels_after]
        assert totals["S0"] == gained[0] - gained[1]


@pytest.mark.parametrize("limit", [1, 3])
async def test_a_round_limit_ends_the_match_and_names_the_leader(limit: int) -> None:
    agents = [RandomAgent(f"S{i}", seed=i) for i in range(4)]
    table = Table(agents, game=GAME, rules=TractorRules(round_limit=limit))
    summary = await play_match(table, rounds=50, seed=9)
    assert len(summary.rounds) == limit
    last = summary.rounds[-1].result
    assert last.match_over
    levels = last.score.levels_after
    if levels[0] != levels[1]:
        assert last.winner_team == (0 if levels[0] > levels[1] else 1)


def _face_as(style: int, face: str) -> str:
    """``♥10`` as itself (0), ``H10`` (1) or ``10h`` (2); jokers as they are."""
    if style == 0 or face in ("小王", "大王"):
        return face
    suit = "♠♥♦♣".index(face[0])
    return "SHDC"[suit] + face[1:] if style == 1 else face[1:] + "shdc"[suit]


class FacePlayer(RandomAgent):
    """Answers with faces (``♥10``, ``H10``, ``10h``, ``大王``) instead of card ids."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        reply = await super().play(request)
        style = len(request.played) % 3
        faces = [_face_as(style, face_text(card)) for card in card_ids(reply.cards)]
        return reply.model_copy(update={"cards": faces})


async def test_replies_may_name_faces_instead_of_card_ids() -> None:
    table, sink = _table(
        [FacePlayer("Faces", seed=1), *(Passer(f"P{i}", seed=i) for i in (1, 2, 3))]
    )
    await play_match(table, rounds=1, seed=8)
    assert table.faults(0).to_dict()["illegal"] == 0
    plays = [e for e in sink.events if e.type == "play" and e.seat == 0]
    assert len(plays) >= 20
    assert not any(e.data["fallback"] for e in plays)
    assert all(card.startswith("D") for e in plays for card in e.data["cards"])  # ids again


def test_a_served_table_of_six_shows_six_empty_seats_before_its_first_snapshot() -> None:
    from arena.server.hub import OverlayHub

    for seats, shown in ((6, 6), (None, 3)):  # unknown: the default game's three
        hub = OverlayHub(run_id="run-1", seats=seats)
        page = hub.subscribe("public")
        server = json.loads(hub.picture(page)[0])
        assert server["type"] == "server"
        assert server["seats"] == shown
