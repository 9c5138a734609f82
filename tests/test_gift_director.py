"""Gifts applied at a real table's safe points (issue 11): the queue meets the engine.

A match of scripted seats with a GiftDirector as its safe point and a queue holding one
gift of each effect: every gift ends in one outcome, the in-round effects change the
round through the engine's hooks (announced, replayed and verified like any round), the
cards moved are the same for the same seed and gifts, and a peek reaches only its output.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.gifts import DdzGifts
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.sinks.base import CollectingSink
from arena.table import Table, TableSettings, play_match
from gifts.director import GiftDirector
from gifts.events import GiftEffect, GiftEvent
from gifts.queue import GiftQueue, Pending, QueueSettings

SEED = 11


def no_cooldowns() -> QueueSettings:
    return QueueSettings(
        effect_cooldown_s=dict.fromkeys(GiftEffect, 0.0),
        viewer_cooldown_s=0.0,
        strong_cooldown_s=0.0,
        ttl_s=1e9,
    )


def gifts() -> list[tuple[GiftEvent, GiftEffect, int]]:
    effects = [
        GiftEffect.CHEER,
        GiftEffect.EMOTE,
        GiftEffect.EFFECT,
        GiftEffect.PEEK,
        GiftEffect.SWAP,
        GiftEffect.ADD,
        GiftEffect.DOUBLE,
        GiftEffect.SWAP,
        GiftEffect.ROLE_SWAP,
    ]
    return [
        (GiftEvent(event_id=f"g{n}", platform="test", viewer_id=f"v{n}"), effect, n % 3)
        for n, effect in enumerate(effects)
    ]


async def play(path: Path) -> tuple[GiftQueue, CollectingSink, list[tuple[int, list[str]]]]:
    queue = GiftQueue(no_cooldowns())
    for gift, effect, target in gifts():
        queue.submit(gift, effect, target=target, now=0.0)
    peeks: list[tuple[int, list[str]]] = []

    def on_peek(pending: Pending, seat: int, cards: list[str]) -> None:
        peeks.append((seat, cards))

    director = GiftDirector(
        queue,
        match_seed=SEED,
        clock=lambda: 1.0,
        on_peek=on_peek,
        game_gifts=DdzGifts(),  # DOUBLE is Dou Dizhu's own: its gift operations apply it
    )
    sink = CollectingSink()
    writer = ReplayWriter(path)
    table = Table(
        [GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C")],
        sinks=[sink],
        recorder=writer.for_table("t1"),
        settings=TableSettings(auto_pass=False),
        safe_points=[director],
    )
    try:
        await play_match(table, rounds=1, seed=SEED)
    finally:
        writer.close()
    queue.close(now=2.0)
    return queue, sink, peeks


async def test_every_gift_ends_once_and_the_round_verifies(tmp_path: Path) -> None:
    queue, sink, peeks = await play(tmp_path / "gifts.jsonl")
    outcomes = {o.id: o for o in queue.outcomes}
    assert len(outcomes) == len(queue.outcomes) == len(gifts())
    by_effect = Counter((o.effect, o.status) for o in queue.outcomes)
    assert by_effect[(GiftEffect.ROLE_SWAP, "expired")] == 1  # between rounds: not built yet
    applied = {o.effect for o in queue.outcomes if o.status == "applied"}
    assert {
        GiftEffect.CHEER,
        GiftEffect.EMOTE,
        GiftEffect.EFFECT,
        GiftEffect.PEEK,
        GiftEffect.DOUBLE,
    } <= applied
    assert GiftEffect.SWAP in applied or GiftEffect.ADD in applied
    moved = [e for e in sink.events if e.type == "effect_applied"]
    engine_effects = sum(
        1
        for o in queue.outcomes
        if o.status == "applied"
        and o.effect in (GiftEffect.SWAP, GiftEffect.ADD, GiftEffect.DOUBLE)
    )
    assert len(moved) == engine_effects
    for recorded in load_replay(tmp_path / "gifts.jsonl").rounds:
        rnd = verify_round(recorded)  # the effects applied again: the round checks out
        assert rnd.effects_applied == engine_effects
    [(seat, cards)] = peeks
    assert seat == 0  # the PEEK gift is the fourth: target 3 % 3
    assert len(cards) == len(set(cards)) > 0


async def test_the_same_seed_and_gifts_move_the_same_cards(tmp_path: Path) -> None:
    await play(tmp_path / "a.jsonl")
    await play(tmp_path / "b.jsonl")

    def effect_lines(path: Path) -> list[str]:
        return [line for line in path.read_text().splitlines() if '"kind":"effect"' in line]

    first = effect_lines(tmp_path / "a.jsonl")
    assert first
    assert first == effect_lines(tmp_path / "b.jsonl")


async def test_nothing_a_peek_shows_reaches_a_public_event(tmp_path: Path) -> None:
    _, sink, peeks = await play(tmp_path / "peek.jsonl")
    [(_, cards)] = peeks
    for event in sink.events:
        if event.type in ("round_result", "match_ended", "play", "landlord_chosen"):
            continue  # cards shown by the game itself
        text = str(event.data)
        assert not any(card in text for card in cards), event
