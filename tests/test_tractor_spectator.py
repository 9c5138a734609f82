"""Tractor on the delayed spectator feed: every seat's hand, followed as the round goes.

The oracle is the table itself: every PLAY_REQUEST, BURY_REQUEST and DECLARE_REQUEST
carries the hand its seat holds, so a checker teed *before* the spectator's table reads
what the spectator believed just before each request arrived, and it must be that hand.
Real matches of random seats, four seats dealt whole and six dealt in three steps; a
banker that names its burial by faces (any copy held) and one whose burial the table
makes for it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest

from arena.events import Event
from arena.games.registry import get_game
from arena.games.tractor.agents.base import bury_reply
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import TractorRules, card_ids, card_text, face_text
from arena.games.tractor.messages import (
    BuryRequest,
    BuryResponse,
    Deal,
    DeclareRequest,
    PlayRequest,
)
from arena.games.tractor.spectator import TractorSpectatorTable
from arena.sinks.base import CollectingSink
from arena.sinks.spectator import CollectingSpectatorOutput, SpectatorFeed
from arena.table import Table, TableSettings, play_match
from arena.table.records import tee_recorders

HAND_MESSAGES = (DeclareRequest, BuryRequest, PlayRequest)


class Checker:
    """A recorder teed before the spectator's table: at each message that shows a hand,
    what the spectator held for that seat then (it has not read the message yet)."""

    def __init__(self, spectator: TractorSpectatorTable) -> None:
        self.spectator = spectator
        self.checked: Counter[str] = Counter()
        self.wrong: list[tuple[str, int]] = []
        self.deals: dict[int, list[str]] = {}
        self.kitties: list[list[str]] = []

    def round_started(self, header: dict[str, Any]) -> None:
        self.deals = {}

    def message(
        self, direction: str, seat: int, message: object, elapsed_ms: Any, *, late: bool = False
    ) -> None:
        if direction != "to_agent":
            return
        if isinstance(message, Deal):
            self.deals[seat] = list(message.hand)
        if isinstance(message, BuryRequest):
            self.kitties.append(list(message.kitty))
        if isinstance(message, HAND_MESSAGES) and message.type != "DECLARE_REQUEST":
            held = self.spectator.hands[seat] if seat < len(self.spectator.hands) else None
            believed = None if held is None else sorted(card_ids_of(held))
            shown = sorted(message.hand)
            if isinstance(message, BuryRequest):
                # the kitty joins the hand with this very request: the hand before it
                shown = sorted(set(shown) - set(message.kitty))
            self.checked[message.type] += 1
            if believed != shown:
                self.wrong.append((message.type, seat))

    def event(self, event: Event) -> None:
        pass

    def round_ended(self, summary: dict[str, Any]) -> None:
        pass


def card_ids_of(cards: list[int]) -> list[str]:
    return [card_text(c) for c in cards]


class FaceBurier(RandomAgent):
    """Buries the cheapest cards, naming them by face (``♥10``): any copy held."""

    async def bury(self, request: BuryRequest) -> BuryResponse:
        reply = await super().bury(request)
        faces = [face_text(c) for c in card_ids(reply.cards)]
        return reply.model_copy(update={"cards": faces})


class BadBurier(RandomAgent):
    """Names cards it does not hold when it buries: the table buries for it."""

    async def bury(self, request: BuryRequest) -> BuryResponse:
        absent = sorted(set(card_ids(request.hand)) ^ set(range(108)))[: request.count]
        return bury_reply(request, absent)


async def watched(
    agent: type[RandomAgent], players: int, *, rounds: int = 2, seed: int = 3, **rules: Any
) -> tuple[Checker, CollectingSpectatorOutput, CollectingSink]:
    game = get_game("tractor")
    settled = TractorRules.model_validate({"players": players, **rules})
    agents = [agent(f"P{i}", seed=seed + i, rules=settled) for i in range(players)]
    out = CollectingSpectatorOutput()
    feed = SpectatorFeed([out], delay_s=0)
    spectator = feed.for_table("t1", "tractor")
    assert isinstance(spectator, TractorSpectatorTable)
    checker = Checker(spectator)
    sink = CollectingSink()
    table = Table(
        agents,
        game=game,
        rules=settled,
        table_id="t1",
        settings=TableSettings(pace_s=0, max_retries=0),
        sinks=[sink],
        recorder=tee_recorders(checker, spectator),
    )
    await play_match(table, rounds=rounds, seed=seed)
    await table.close()
    await feed.close()
    return checker, out, sink


@pytest.mark.parametrize(
    ("players", "steps"), [(4, 1), (6, 3)], ids=["4-seats-whole", "6-seats-in-3-steps"]
)
async def test_every_hand_is_known_before_each_request_shows_it(players: int, steps: int) -> None:
    checker, out, sink = await watched(FaceBurier, players, deal_steps=steps)
    assert checker.wrong == []
    assert checker.checked["PLAY_REQUEST"] > 40
    assert checker.checked["BURY_REQUEST"] == 2
    hands = out.of_kind("hands")
    reasons = Counter(item["reason"] for item in hands)
    assert reasons["sync"] == 0  # never had to be told: it followed every change
    assert reasons["deal"] == 2 * steps
    assert reasons["kitty"] == reasons["bury"] == 2
    assert reasons["play"] == len(sink.of_type("play"))


async def test_the_deal_item_shows_each_dealt_hand_and_the_kitty_as_the_rest() -> None:
    checker, out, _ = await watched(RandomAgent, 4, rounds=1)
    deal = next(i for i in out.of_kind("hands") if i["reason"] == "deal")
    assert [sorted(h) for h in deal["hands"]] == [sorted(checker.deals[s]) for s in range(4)]
    assert sorted(deal["kitty"]) == sorted(checker.kitties[0])
    assert deal["players"] == ["P0", "P1", "P2", "P3"]


async def test_the_burial_shows_under_buried_and_matches_the_kitty_revealed() -> None:
    _, out, sink = await watched(FaceBurier, 4, rounds=2)
    results = sink.of_type("round_result")
    burials = [i for i in out.of_kind("hands") if i["reason"] == "bury"]
    assert [sorted(i["buried"]) for i in burials] == [
        sorted(r.data["result"]["kitty"]) for r in results
    ]
    for item in burials:
        assert all(len(h) == 25 for h in item["hands"])  # the banker back to a dealt hand
        assert item["banker"] == item["seat"]
    last = out.of_kind("hands")[-1]
    assert last["hands"] == [[], [], [], []]  # every card played


async def test_a_burial_the_table_makes_is_put_right_at_the_bankers_next_request() -> None:
    checker, out, sink = await watched(BadBurier, 4, rounds=1)
    bury = sink.of_type("bury")
    assert bury[0].data["fallback"] is True
    banker = bury[0].seat
    assert checker.wrong == [("PLAY_REQUEST", banker)]  # the one hand it could not follow
    syncs = [i for i in out.of_kind("hands") if i["reason"] == "sync"]
    assert len(syncs) == 1
    assert syncs[0]["seat"] == banker
    assert len(syncs[0]["hands"][banker]) == 25
    assert sorted(syncs[0]["buried"]) == sorted(
        sink.of_type("round_result")[0].data["result"]["kitty"]
    )


async def test_hands_show_the_plain_suits_then_the_trumps() -> None:
    _, out, sink = await watched(RandomAgent, 4, rounds=1)
    locked = sink.of_type("trump_locked")[0].data
    item = next(i for i in out.of_kind("hands") if i["reason"] == "bury")
    level_rank = {2: "2", 3: "3"}[locked["level"]]
    for hand in item["hands"]:
        trumps = [c for c in hand if c.endswith(("SJ", "BJ", f"_{level_rank}"))]
        if locked["trump_suit"] is not None:
            trumps += [c for c in hand if c[3] == locked["trump_suit"] and c not in trumps]
        assert set(hand[len(hand) - len(trumps) :]) == set(trumps)  # the trumps last
        jokers = [c for c in hand if c.endswith(("SJ", "BJ"))]
        assert hand[len(hand) - len(jokers) :] == sorted(jokers, key=lambda c: c[-2:] == "BJ")
