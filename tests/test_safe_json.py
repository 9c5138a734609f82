"""Nothing can make an event unwritable (issue 25): every encoder writes a valid line.

Numbers and text from outside are bounded where they are parsed; these tests hand the
encoders what got past that all the same (an event built past the checks): an integer
of 2^64, a lone surrogate, a key that is no string, a set, nesting past orjson's depth.
Each encoder (the replay, the MQTT feed's lines, the overlay's pages, a tournament's
stored rounds, a model seat's decision line) writes a line that is valid JSON with the
rest intact and the value replaced, and says so in the log. Through a real table: the
table goes on and keeps every sink.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import orjson
import pytest

from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.logs import EVENT_ATTRIBUTE
from arena.replay import ReplayWriter, encoded_decision, load_replay
from arena.safe_json import dumps, json_safe
from arena.server.hub import OverlayHub
from arena.sinks.base import CollectingSink
from arena.sinks.mqtt import event_line
from arena.table import Table
from tournaments.round_lines import RoundLines, expand


def deep(depth: int) -> list[Any]:
    outer: list[Any] = []
    inner = outer
    for _ in range(depth):
        inner.append([])
        inner = inner[0]
    return outer


UNWRITABLE: dict[Any, Any] = {
    "value": 2**64,
    "negative": -(2**70),
    "text": "a\ud800b",
    "\udc00key": 1,
    7: "a number as a key",
    "seen": {1, 2},
    "nan": math.nan,
    "deep": deep(300),
    "fine": "加油 🎉",
}


def logged(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, Any]]:
    found = [getattr(r, EVENT_ATTRIBUTE, None) for r in caplog.records]
    return [e for e in found if e is not None and e.get("event") == event]


def test_what_orjson_cannot_write_is_replaced_and_said(caplog: pytest.LogCaptureFixture) -> None:
    for value in (2**64, "a\ud800", {1: 2}, {1, 2}, deep(300)):
        with pytest.raises(TypeError):
            orjson.dumps({"x": value})
    line = dumps(UNWRITABLE, where="a test line")
    read = json.loads(line)
    assert read["value"] == "18446744073709551616"
    assert read["negative"] == str(-(2**70))
    assert read["text"] == "a\ufffdb"
    assert read["\ufffdkey"] == 1
    assert read["7"] == "a number as a key"
    assert read["seen"] == "{1, 2}"
    assert read["nan"] is None
    assert read["fine"] == "加油 🎉"
    [said] = logged(caplog, "json_value_replaced")
    assert said["where"] == "a test line"
    assert said["replaced"] == 8
    assert said["at"][:2] == [
        "$.value: an integer beyond 64 bits",
        "$.negative: an integer beyond 64 bits",
    ]


def test_what_orjson_writes_is_written_by_orjson_and_not_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    plain = {"a": [1, 2.5, None, True], "b": {"c": "text"}, "n": 2**64 - 1, "m": -(2**63)}
    assert dumps(plain, where="x") == orjson.dumps(plain)
    assert json_safe(plain) == (plain, [])
    assert not logged(caplog, "json_value_replaced")


def forged(data: dict[str, Any], seq: int = 1) -> Event:
    return Event("gift", "t1", 1, seq, None, None, data)


def test_the_replay_writes_an_unwritable_event_as_a_valid_line(tmp_path: Path) -> None:
    writer = ReplayWriter(tmp_path / "r.jsonl")
    recorder = writer.for_table("t1")
    recorder.round_started({"round": 1, "table": "t1"})
    recorder.event(forged(UNWRITABLE))
    recorder.event(forged({"value": 3}, seq=2))
    recorder.round_ended({"result": {"score": 2**65}})
    writer.close()
    lines = [json.loads(line) for line in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert [line["kind"] for line in lines] == ["round_start", "event", "event", "round_end"]
    assert lines[1]["event"]["data"]["value"] == "18446744073709551616"
    assert lines[2]["event"]["data"] == {"value": 3}
    assert lines[3]["summary"] == {"result": {"score": str(2**65)}}
    assert load_replay(tmp_path / "r.jsonl").rounds[0].events[1]["seq"] == 2


def test_a_decision_line_keeps_a_models_text_with_a_lone_surrogate() -> None:
    """A provider's JSON may hold ``"\\ud800"``: the SDK's text has a lone surrogate."""
    line = {
        "kind": "decision",
        "report": {"raw_text": "PLAY ♠3 \ud83d", "input_tokens": 2**64, "prompt": []},
    }
    read = json.loads(encoded_decision(line))
    assert read["report"] == {
        "raw_text": "PLAY ♠3 \ufffd",
        "input_tokens": str(2**64),
        "prompt": [],
    }


def test_the_mqtt_line_of_an_unwritable_event_is_valid_json() -> None:
    read = json.loads(event_line(forged(UNWRITABLE), "run-1"))
    assert (read["type"], read["run"], read["data"]["value"]) == ("gift", "run-1", str(2**64))


def test_a_stored_round_holding_an_unwritable_event_expands_to_valid_lines() -> None:
    lines = RoundLines()
    lines.event(forged(UNWRITABLE))
    lines.line({"kind": "effect", "cards": {"♠3", "♠4"}, "n": 2**64})
    stored = lines.take()
    event, effect = (json.loads(line) for line in expand(stored, "t1", 1))
    assert event["event"]["data"]["text"] == "a\ufffdb"
    assert effect["n"] == str(2**64)


async def test_a_table_emitting_an_unwritable_event_keeps_its_sinks_and_writes_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Through the table's own ``emit``: the replay line, the overlay's page and a
    collecting sink all get the event, and no sink is dropped."""
    hub = OverlayHub(run_id="run-1")
    page = hub.subscribe("public", "t1")
    collected = CollectingSink()
    writer = ReplayWriter(tmp_path / "r.jsonl")
    table = Table(
        [GreedyAgent(name) for name in ("A", "B", "C")],
        sinks=[hub, collected],
        recorder=writer.for_table("t1"),
        table_id="t1",
    )
    await table.emit("gift", None, {"value": 2**64, "message": "a\ud800", "viewer": "Ada"})
    writer.close()
    assert table.sinks == [hub, collected]
    assert collected.events[-1].data["value"] == 2**64
    sent = [json.loads(await page.next()) for _ in range(page.pending())]
    [gift] = [message for message in sent if message["type"] == "gift"]
    assert gift["data"] == {"value": str(2**64), "message": "a\ufffd", "viewer": "Ada"}
    [line] = [json.loads(x) for x in (tmp_path / "r.jsonl").read_text().splitlines()]
    assert line["event"]["data"]["message"] == "a\ufffd"
    assert {said["where"] for said in logged(caplog, "json_value_replaced")} == {
        "a replay event",
        "an overlay message",
    }
