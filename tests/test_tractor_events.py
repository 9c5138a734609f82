"""Tractor's public events are a documented contract: every event a real match emits
matches its type's model (``arena.games.tractor.events``), ``arena schema --game
tractor`` writes the schemas of its messages and events, which accept what a match
sends, and docs/events.md names every event type and key.

Specification (issue 29, Tractor at the arena; docs/events.md, "Tractor's events"): the
models forbid unknown keys, so a renamed key, or a hidden card added where none
belongs, fails here instead of reaching an overlay. Real tables of 4 and 6 scripted
seats play the matches (one erring, for faults and a stand-in; one dealt in steps).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from schema_check import schema_errors
from tractor_matches import ClumsyAgent, names, play_tractor, tractor_rules

from arena.cli import main
from arena.events import Event
from arena.games.tractor.events import (
    EVENT_DATA,
    EVENT_TYPES,
    MatchRules,
    PublicResult,
    parse_event,
)
from arena.games.tractor.messages import MESSAGE_TYPES
from arena.sinks.base import CollectingSink
from protocol import ProtocolError
from protocol.events import EventData, SeatStats
from protocol.schema import ENVELOPE_SCHEMA_NAME, UNION_SCHEMA_NAME

NOT_PLAYED_HERE = {"gift", "decision", "budget_spent", "effect_applied"}
"""Event types these scripted tables never emit (viewers' gifts, model seats)."""
DOCS = Path(__file__).resolve().parent.parent / "docs" / "events.md"


async def match_events(players: int, *, record: Path | None = None) -> list[Event]:
    """Every event of a two-round match: 4 random seats, or 6 dealt in 3 steps with one
    seat erring on every reply and the others now and then."""
    sink = CollectingSink()
    if players == 4:
        await play_tractor(tractor_rules(4, 2), seed=3, sinks=[sink], record=record)
        return sink.events
    rules = tractor_rules(6, 2, deal_steps=3)
    agents = [
        ClumsyAgent(name, seed=i, rules=rules, hopeless=i == 3) for i, name in enumerate(names(6))
    ]
    await play_tractor(rules, seed=6, sinks=[sink], agents=agents, record=record)
    return sink.events


@pytest.mark.parametrize("players", [4, 6])
async def test_every_event_of_a_real_match_matches_its_model(players: int) -> None:
    events = await match_events(players)

    for event in events:
        envelope, data = parse_event(event.to_dict())
        assert envelope.game == "tractor"
        assert type(data) is EVENT_DATA[event.type]
    seen = Counter(e.type for e in events)
    expected = set(EVENT_TYPES) - NOT_PLAYED_HERE
    if players == 4:
        expected -= {"deal_step", "fault", "seat_replaced"}  # one step, nobody errs
    assert expected <= set(seen), expected - set(seen)
    assert seen["round_result"] == 2
    assert seen["game_over"] == 1  # the round limit ends the match


def test_an_event_that_names_the_buried_cards_early_is_refused() -> None:
    """The burial's event says how many, never which: a ``cards`` key is an error."""
    bury = Event("bury", "t1", 1, 40, 2, "South", {"count": 8, "fallback": False}, "tractor")
    parse_event(bury.to_dict())
    leaked = bury._replace(data={**bury.data, "cards": ["D1_H_5"] * 8})
    with pytest.raises(ProtocolError, match=r"bury\.data\.cards"):
        parse_event(leaked.to_dict())


async def test_arena_schema_writes_tractors_message_and_event_schemas(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "schemas"
    assert main(["schema", str(target), "--game", "tractor"]) == 0

    messages = {f"{t}.schema.json" for t in MESSAGE_TYPES} | {UNION_SCHEMA_NAME}
    assert {p.name for p in target.iterdir()} == messages | {"events"}
    events = {f"{t}.schema.json" for t in EVENT_TYPES} | {ENVELOPE_SCHEMA_NAME}
    assert {p.name for p in (target / "events").iterdir()} == events
    printed = capsys.readouterr().out.split()
    assert len(printed) == len(messages) + len(events)
    union = json.loads((target / UNION_SCHEMA_NAME).read_text(encoding="utf-8"))
    assert union["title"] == "TractorArenaMessage"
    envelope = json.loads((target / "events" / ENVELOPE_SCHEMA_NAME).read_text(encoding="utf-8"))
    assert envelope["properties"]["type"]["enum"] == list(EVENT_TYPES)

    # what a real match sends, to its agents and to its audience, fits the schemas
    replay = tmp_path / "match.jsonl"
    for event in await match_events(6, record=replay):
        found = _errors(target / "events" / f"{event.type}.schema.json", dict(event.data))
        assert found == [], (event.type, found)
    sent = [
        json.loads(line)["message"]
        for line in replay.read_text(encoding="utf-8").splitlines()
        if '"dir":"to_agent"' in line
    ]
    assert {m["type"] for m in sent} >= {"DEAL", "DECLARE_REQUEST", "PLAY_REQUEST", "TRICK_WON"}
    for message in sent:
        if "played_len" in message:  # the replay keeps the played list as its length;
            del message["played_len"]  # its records are the trick's, checked there
            message["played"] = []
        assert _errors(target / f"{message['type']}.schema.json", message) == [], message["type"]


def _errors(path: Path, value: Any) -> list[str]:
    schema = json.loads(path.read_text(encoding="utf-8"))
    return schema_errors(value, schema, schema.get("$defs", {}), path.stem)


def test_docs_name_every_tractor_event_type_and_every_key() -> None:
    """docs/events.md's Tractor section is what overlay authors read: it misses no key."""
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Tractor's events") :]
    missing: list[str] = [
        t
        for t in EVENT_TYPES
        if f"**`{t}`**" not in (text if EVENT_DATA[t].__module__ == "protocol.events" else section)
    ]
    models: list[type[EventData]] = [*EVENT_DATA.values(), PublicResult, MatchRules, SeatStats]
    missing += [
        f"{model.__name__}.{key}"
        for model in models
        for key in model.model_fields
        if f"`{key}`" not in text
    ]
    assert missing == []
