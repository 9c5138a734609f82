"""The public events are a documented contract: every event a real match emits matches
its type's model in ``protocol.events``, and ``arena schema`` writes their JSON Schemas.

Specification: issue 10, "Events are a documented contract": typed models of each event
type's ``data``, a schema version, the schemas beside the messages', and ``turn_started``
with the decision's deadline. Real tables and the real engine play the matches: scripted
bots, bots that answer garbage (faults, fallbacks, stand-ins), and model seats of the real
OpenAI adapter against a local fake provider (decisions, budgets). The models forbid
unknown keys, so a renamed key fails here instead of vanishing from an overlay.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import FakeAgent
from fake_providers import (  # noqa: F401 (an autouse fixture)
    FakeOpenAI,
    RecordedRequest,
    Reply,
    legal_answer,
    request_in,
    shared_clients,
)

from arena.agents.llm.openai_seat import OpenAIAgent
from arena.cli import main
from arena.errors import IllegalActionError
from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.engine import Rules
from arena.games.ddz.events import (
    EVENT_DATA,
    EVENT_TYPES,
    BidData,
    MatchRules,
    PlayData,
    PublicSettlement,
    parse_event,
)
from arena.games.ddz.messages import BidRequest, BidResponse, PlayRequest, PlayResponse
from arena.replay import ReplayWriter
from arena.sinks.base import CollectingSink
from arena.table import SafePointHandle, Table, TableSettings, play_match
from arena.table.match import match_id_of
from arena.table.safe_point import PHASE_PLAY
from gifts.events import GiftEffect, GiftEvent
from gifts.router import attach_gift_desks
from gifts.settings import GiftSettings
from protocol import Emotion, ProtocolError
from protocol.events import (
    EVENT_SCHEMA_VERSION,
    EventData,
    EventEnvelope,
    SeatReplacedData,
    SeatStats,
    TurnStartedData,
)
from protocol.schema import ENVELOPE_SCHEMA_NAME, VERSION_KEY

KEY = "sk-events-test-0123456789"
KEY_ENV = "ARENA_TEST_EVENTS_KEY"


# ─── matches that produce every event type ──────────────────────────────────────────────


async def events_of(
    agents: list[Any], *, rounds: int = 2, seed: int = 5, timeouts: float = 5, **options: Any
) -> list[Event]:
    """Every event of a real match at a table with a collecting sink."""
    sink = CollectingSink()
    table = Table(
        agents,
        sinks=[sink],
        timeouts=[timeouts] * 3,
        rules=options.pop("rules", Rules()),
        settings=options.pop("settings", None),
        safe_points=options.pop("safe_points", ()),
    )
    await table.open()
    try:
        await play_match(table, rounds=rounds, seed=seed)
    finally:
        await table.close()
    return sink.events


async def chatty_play(request: PlayRequest, n: int) -> PlayResponse:
    """A greedy play with everything an agent may say: comment, emotion, hint."""
    reply = await GreedyAgent(request.player_id).play(request)
    return reply.model_copy(
        update={"comment": f"move {n}", "emotion": Emotion.CONFIDENT, "strategy_hint": "bleed"}
    )


def never_bid(request: BidRequest, n: int) -> BidResponse:
    return BidResponse(player_id=request.player_id, bid=0, request_id=request.request_id)


def garbage(request: Any, n: int) -> Any:
    """Something no table can use: unreadable, then the wrong shape, then a crash."""
    if n % 3 == 1:
        return "this is not JSON"
    if n % 3 == 2:
        return {"type": "PLAY_RESPONSE", "cards": 7}
    raise RuntimeError("the agent fell over")


async def scripted_and_chatty() -> list[Event]:
    """Scripted bots, one that talks, in grab bidding (bids carry ``grab``)."""
    agents = [FakeAgent("Alpha", play=chatty_play), GreedyAgent("Beta"), GreedyAgent("Gamma")]
    return await events_of(agents, rounds=3, rules=Rules(bidding="grab", doubling=True))


async def nobody_bids() -> list[Event]:
    """Nobody ever bids: redeals, then a landlord forced by the rules."""
    agents = [FakeAgent(name, bid=never_bid) for name in ("Alpha", "Beta", "Gamma")]
    return await events_of(agents, rounds=1, rules=Rules(max_redeals=1))


async def faulty_seats() -> list[Event]:
    """Garbage from two seats: faults, fallbacks, stand-ins for the round and the match."""
    agents = [
        FakeAgent("Broken", bid=garbage, double=garbage, play=garbage),
        GreedyAgent("Beta"),
        GreedyAgent("Gamma"),
    ]
    per_round = await events_of(agents, rounds=2, settings=TableSettings(max_retries=1))
    agents = [GreedyAgent("Alpha"), FakeAgent("Crashy", play=garbage), GreedyAgent("Gamma")]
    per_match = await events_of(
        agents, rounds=2, settings=TableSettings(max_retries=0, standin_for="match")
    )
    return per_round + per_match


async def viewer_gifts(handle: SafePointHandle) -> None:
    """A gift whenever a farmer is to act: a swap, a transfer or a double, by the cards
    left (the engine refuses some: the doubles cap reached, a hand too small)."""
    seat, other = handle.to_act, handle.game_part.landlord  # Dou Dizhu's own part
    if handle.phase != PHASE_PLAY or seat is None or other is None or seat == other:
        return
    with contextlib.suppress(IllegalActionError):
        match sum(handle.hand_sizes) % 3:
            case 0:
                handle.swap_cards(seat, handle.hand(seat)[0], other, handle.hand(other)[0])
            case 1:
                handle.transfer_card(other, seat, handle.hand(other)[0])
            case _:
                handle.game_part.add_gift_double()


async def with_a_gift_desk() -> list[Event]:
    """Gifts through the gifts layer: queued, applied (between rounds too), rejected and
    expired, each a ``gift`` event; a round a gift reshuffled says so when it starts."""
    sink = CollectingSink()
    table = Table([GreedyAgent("Alpha"), GreedyAgent("Beta"), GreedyAgent("Gamma")], sinks=[sink])
    router = attach_gift_desks([table], GiftSettings(viewer_cooldown_s=0), match_seed=3)
    gifts = [("ROLE_SWAP", 2), ("RESHUFFLE", None), ("CHEER", 1), ("SWAP", 0), ("SWAP", 1)]
    for number, (effect, seat) in enumerate(gifts):
        gift = GiftEvent(
            event_id=f"g{number}", platform="test", effect=GiftEffect(effect), target_seat=seat
        )
        await router.accept(gift)
    await router.accept(GiftEvent(event_id="g0", platform="test", effect=GiftEffect.CHEER))
    await play_match(table, rounds=2, seed=5)
    await router.close()
    return sink.events


async def with_gifts() -> list[Event]:
    """Viewers' gifts change the rounds between turns (``effect_applied``)."""
    agents = [GreedyAgent("Alpha"), GreedyAgent("Beta"), GreedyAgent("Gamma")]
    return await events_of(agents, rounds=1, safe_points=[viewer_gifts])


def metered(recorded: RecordedRequest) -> Reply:
    """A legal answer that costs 100 tokens in and 10 out."""
    return Reply(
        text=json.dumps(legal_answer(request_in(recorded))), prompt_tokens=100, completion_tokens=10
    )


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAI(api_key=KEY, respond=metered) as fake:
        yield fake


def model_seat(server: FakeOpenAI, name: str, **options: Any) -> OpenAIAgent:
    return OpenAIAgent(
        name,
        model="gpt-big",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        structured="none",
        **options,
    )


async def model_seats(server: FakeOpenAI) -> list[Event]:
    """Model seats that report their calls and spend their budgets (a cheaper model for
    one, the stand-in for the other), one of them with prices (costs in its figures)."""
    prices = {"input": 1000.0, "output": 5000.0}
    agents = [
        model_seat(server, "A", prices=prices, budget={"cost": 0.3, "then": "gpt-small"}),
        model_seat(server, "B", budget={"tokens": 500}),
        model_seat(server, "C"),
    ]
    return await events_of(agents, rounds=1, seed=7)


# ─── every event matches its model ──────────────────────────────────────────────────────


async def test_every_event_of_real_matches_matches_its_model(server: FakeOpenAI) -> None:
    events = [
        *await scripted_and_chatty(),
        *await nobody_bids(),
        *await faulty_seats(),
        *await model_seats(server),
        *await with_gifts(),
        *await with_a_gift_desk(),
    ]
    checked: dict[str, list[Any]] = {}
    for event in events:
        envelope, data = parse_event(json.loads(json.dumps(event.to_dict(), ensure_ascii=False)))
        assert envelope.type == event.type
        assert type(data) is EVENT_DATA[event.type]
        checked.setdefault(event.type, []).append(data)
    assert set(checked) == set(EVENT_TYPES)  # every type was seen, so every model was used
    # the optional parts were there too, and checked
    plays = [d for d in checked["play"] if isinstance(d, PlayData)]
    assert any(d.comment and d.emotion is Emotion.CONFIDENT and d.hint for d in plays)
    assert any(isinstance(d, BidData) and d.grab for d in checked["bid"])
    untils = {d.until for d in checked["seat_replaced"] if isinstance(d, SeatReplacedData)}
    assert untils == {"round_end", "match_end"}
    assert any(d.model_dump()["forced"] for d in checked["landlord_chosen"])
    assert {d.model_dump()["effect"] for d in checked["effect_applied"]} == {
        "swap",
        "transfer",
        "double",
    }
    spent = [d.model_dump() for d in checked["budget_spent"]]
    assert {d["switched_to"] for d in spent} == {"gpt-small", "standin"}
    assert any(d["spent"]["cost"] is not None for d in spent)
    assert any(d.model_dump()["cost"] is not None for d in checked["decision"])


async def test_turn_started_says_when_the_reply_is_due() -> None:
    before_ms = time.time() * 1000
    events = await events_of(
        [GreedyAgent("Alpha"), GreedyAgent("Beta"), GreedyAgent("Gamma")], rounds=1, timeouts=7
    )
    after_ms = time.time() * 1000
    turns = [e for e in events if e.type == "turn_started"]
    assert turns
    for turn in turns:
        data = TurnStartedData.model_validate(turn.data)
        assert data.time_limit_ms == 7000
        assert before_ms + 7000 - 1 <= data.deadline_at <= after_ms + 7000 + 1
    # a pass the table makes for a seat that cannot beat the trick asks nobody: no countdown
    auto = [i for i, e in enumerate(events) if e.type == "pass" and e.data["auto"]]
    assert auto
    assert all(events[i - 1].type != "turn_started" for i in auto)
    asked = [i for i, e in enumerate(events) if e.type in ("bid", "double", "play", "pass")]
    assert all(events[i - 1].type == "turn_started" for i in asked if i not in auto)


async def test_a_late_subscriber_learns_the_rules_and_the_running_totals() -> None:
    """match_started says how the match scores; each round_result, the totals so far."""
    rules = Rules(scoring="casual", quadplex_as_bomb=True)
    events = await events_of(
        [GreedyAgent("Alpha"), GreedyAgent("Beta"), GreedyAgent("Gamma")], rounds=3, rules=rules
    )
    [started] = [e for e in events if e.type == "match_started"]
    assert started.data["rules"] == {
        "scoring": "casual",
        "bidding": "single_round",
        "doubling": False,
        "per_defender_doubling": False,
        "quadplex_as_bomb": True,
        "max_gift_doubles": 2,
    }
    # the match's id, as the agents' messages name it: a digest, never the seed (5),
    # which deals the cards
    assert started.data["match_id"] == match_id_of(5)
    assert started.data["match_id"] != "5"
    running = dict.fromkeys(("Alpha", "Beta", "Gamma"), 0)
    for result in (e for e in events if e.type == "round_result"):
        for player, score in result.data["scores"].items():
            running[player] += score
        assert result.data["totals"] == running
    [ended] = [e for e in events if e.type == "match_ended"]
    assert ended.data["totals"] == running


async def test_a_replay_says_which_events_it_holds(tmp_path: Path) -> None:
    writer = ReplayWriter(tmp_path / "match.jsonl")
    agents = [GreedyAgent("Alpha"), GreedyAgent("Beta"), GreedyAgent("Gamma")]
    table = Table(agents, recorder=writer.for_table("t1"))
    try:
        await play_match(table, rounds=2, seed=3)
    finally:
        writer.close()
    lines = [
        json.loads(line)
        for line in (tmp_path / "match.jsonl").read_text("utf-8").split("\n")
        if line
    ]
    headers = [line for line in lines if line["kind"] == "round_start"]
    assert [h["event_schema"] for h in headers] == [EVENT_SCHEMA_VERSION] * 2


def test_a_renamed_or_missing_key_fails_the_check() -> None:
    """The check is strict: it is what catches a table that changed an event."""
    play: dict[str, Any] = {
        "type": "play",
        "table": "t1",
        "round": 1,
        "seq": 9,
        "seat": 2,
        "player": "Gamma",
        "data": {
            "cards": ["♠3"],
            "hand_type": "SINGLE",
            "main_rank": 3,
            "length": 1,
            "cards_left": 16,
            "fallback": False,
        },
    }
    parse_event(play)
    renamed = {**play, "data": {**play["data"], "left": 16}}
    del renamed["data"]["cards_left"]
    with pytest.raises(ProtocolError) as caught:
        parse_event(renamed)
    assert {line.split(":")[0] for line in caught.value.errors} == {
        "play.data.cards_left",
        "play.data.left",
    }
    with pytest.raises(ProtocolError, match=r"^play\.data\.cards\[0\]"):
        parse_event({**play, "data": {**play["data"], "cards": ["S3"]}})
    with pytest.raises(ProtocolError, match=r"^play\.seq"):
        parse_event({**play, "seq": 0})


def test_the_mqtt_feed_keys_are_part_of_the_envelope() -> None:
    event = Event("trick_won", "t1", 2, 40, 1, "Beta")
    envelope, _ = parse_event({**event.to_dict(), "v": EVENT_SCHEMA_VERSION, "run": "r-1"})
    assert (envelope.v, envelope.run) == (EVENT_SCHEMA_VERSION, "r-1")


# ─── arena schema ───────────────────────────────────────────────────────────────────────


def test_arena_schema_writes_each_event_schema_and_the_envelope(tmp_path: Path) -> None:
    assert main(["schema", str(tmp_path)]) == 0
    folder = tmp_path / "events"
    names = {p.name for p in folder.iterdir()}
    assert names == {f"{t}.schema.json" for t in EVENT_TYPES} | {ENVELOPE_SCHEMA_NAME}
    for event_type in EVENT_TYPES:
        schema = json.loads((folder / f"{event_type}.schema.json").read_text(encoding="utf-8"))
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema[VERSION_KEY] == EVENT_SCHEMA_VERSION
        assert schema["type"] == "object"
        assert schema["additionalProperties"] is False
        model = EVENT_DATA[event_type]
        assert set(schema.get("properties", {})) == set(model.model_fields)
        required = {n for n, f in model.model_fields.items() if f.is_required()}
        assert set(schema.get("required", [])) == required
    envelope = json.loads((folder / ENVELOPE_SCHEMA_NAME).read_text(encoding="utf-8"))
    assert envelope[VERSION_KEY] == EVENT_SCHEMA_VERSION
    assert set(envelope["required"]) == {"type", "table", "round", "seq", "seat", "player", "data"}
    assert envelope["properties"]["type"]["enum"] == list(EVENT_TYPES)
    chosen = {}
    for rule in envelope["allOf"]:
        ref = rule["then"]["properties"]["data"]["$ref"]
        assert ref.startswith("#/$defs/")
        chosen[rule["if"]["properties"]["type"]["const"]] = envelope["$defs"][ref[8:]]["title"]
    assert chosen == {name: model.__name__ for name, model in EVENT_DATA.items()}


# ─── docs/events.md ─────────────────────────────────────────────────────────────────────


def test_docs_name_every_event_type_and_every_key() -> None:
    """docs/events.md is the contract overlay authors read: it must not miss a key."""
    text = (Path(__file__).parent.parent / "docs" / "events.md").read_text(encoding="utf-8")
    assert f"`EVENT_SCHEMA_VERSION` in `protocol/events.py`: **{EVENT_SCHEMA_VERSION}**" in text
    missing: list[str] = [t for t in EVENT_TYPES if f"**`{t}`**" not in text]
    models: list[type[EventData]] = [*EVENT_DATA.values(), PublicSettlement, SeatStats, MatchRules]
    missing += [
        f"{model.__name__}.{key}"
        for model in models
        for key in model.model_fields
        if f"`{key}`" not in text
    ]
    missing += [
        f"EventEnvelope.{key}" for key in EventEnvelope.model_fields if f"`{key}`" not in text
    ]
    assert missing == []
