"""The message path of remote agents: every message out as schema JSON, replies read back.

Specification (issue 8, "The message path"): a remote agent gets every message its seat
may see, serialised as ``arena schema`` describes, each naming its match, table and round
(and a request its ``request_id``); its reply, text as it came, is read with the
protocol's own models by the table, recorded, and checked like any other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.agents.remote import RemoteAgent, reply_request_id, wire_bytes
from arena.errors import AgentReplyError
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.messages import (
    MESSAGE_TYPES,
    BidRequest,
    DoubleRequest,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.table import Table, play_match
from arena.table.calls import as_reply
from protocol import Message, json_schemas, to_json


class LoopbackAgent(RemoteAgent):
    """A remote agent whose "program" is a scripted bot behind JSON text both ways."""

    def __init__(self, name: str, *, reply_prefix: str = "", **options: Any) -> None:
        super().__init__(name, **options)
        self.inner = HeuristicAgent(name, seed=1)
        self.sent: list[dict[str, Any]] = []
        self.reply_prefix = reply_prefix

    async def deliver(self, line: bytes) -> None:
        self.sent.append(json.loads(line))
        await self.inner.notify(parse_message(line))

    async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        self.sent.append(json.loads(line))
        request = parse_message(line)
        if isinstance(request, BidRequest):
            reply: Message = await self.inner.bid(request)
        elif isinstance(request, DoubleRequest):
            reply = await self.inner.double(request)
        else:
            assert isinstance(request, PlayRequest)
            reply = await self.inner.play(request)
        return self.reply_prefix + to_json(reply)


async def test_every_message_goes_out_whole_and_names_its_match_table_and_round(
    tmp_path: Path,
) -> None:
    agents = [LoopbackAgent(n) for n in ("A", "B", "C")]
    writer = ReplayWriter(tmp_path / "r.jsonl")
    table = Table(agents, table_id="t9", recorder=writer.for_table("t9"))
    summary = await play_match(table, rounds=2, seed=5, match_id="m-1")
    writer.close()

    sent = agents[0].sent
    kinds = {m["type"] for m in sent}
    assert {"DEAL", "BID_REQUEST", "BOTTOM_CARDS", "PLAY_REQUEST", "ROUND_RESULT"} <= kinds
    assert sent[-1]["type"] == "MATCH_END"
    schemas = json_schemas(MESSAGE_TYPES)
    for message in sent:
        assert message["match_id"] == "m-1"
        assert message["table_id"] == "t9"
        # every field the schema knows is written, null included, in the schema's order
        assert list(message) == list(schemas[message["type"]]["properties"])
        if message["type"] != "MATCH_END":
            assert message["round_no"] in (1, 2)
        if message["type"].endswith("_REQUEST"):
            assert message["request_id"].startswith("t9-")
    assert [m["round_no"] for m in sent if m["type"] == "DEAL"] == [1, 2]
    assert sum(summary.totals.values()) == 0
    assert all(f["unparsable"] == 0 for f in summary.faults.values())
    for recorded in load_replay(tmp_path / "r.jsonl").rounds:
        verify_round(recorded)


async def test_a_reply_that_is_not_json_is_refused_recorded_and_the_match_goes_on(
    tmp_path: Path,
) -> None:
    agents = [LoopbackAgent("A", reply_prefix="ok: "), LoopbackAgent("B"), LoopbackAgent("C")]
    writer = ReplayWriter(tmp_path / "r.jsonl")
    table = Table(agents, recorder=writer.for_table("t1"))
    summary = await play_match(table, rounds=1, seed=3)
    writer.close()

    assert summary.faults["A"]["unparsable"] > 0
    assert summary.faults["A"]["fallback"] > 0
    rejected = [m for m in agents[0].sent if m["type"] == "REPLY_REJECTED"]
    assert rejected
    assert rejected[0]["reason"] == "unparsable"
    assert "JSON" in rejected[0]["detail"]
    [recorded] = load_replay(tmp_path / "r.jsonl").rounds
    verify_round(recorded)


def test_a_reply_that_is_not_json_is_quoted_in_the_rejection() -> None:
    """A stray print on stdout or prose from a model: its author sees what was said."""
    with pytest.raises(AgentReplyError) as raised:
        as_reply(b"thinking about it...\n", PlayResponse)
    assert raised.value.detail == (
        "expected a PLAY_RESPONSE as JSON, got 'thinking about it...' (not JSON)"
    )
    with pytest.raises(AgentReplyError) as raised:
        as_reply('{"type": "PLAY_RESPONSE", "action": PASS}', PlayResponse)
    assert raised.value.detail.startswith(
        'expected a PLAY_RESPONSE as JSON, got \'{"type": "PLAY_RESPONSE", "action": PASS}\' '
        "(broken JSON: Expecting value: line 1"
    )


def test_a_stale_reply_is_told_by_its_request_id() -> None:
    assert reply_request_id(b'{"type":"PLAY_RESPONSE","request_id":"t1-1-4"}') == "t1-1-4"
    assert reply_request_id('{"type":"PLAY_RESPONSE"}') is None
    assert reply_request_id(b"not json") is None
    assert reply_request_id(b'["request_id"]') is None


def test_wire_bytes_is_one_line_of_utf8_json() -> None:
    message = parse_message(
        '{"type":"BOTTOM_CARDS","landlord":"A","bottom_cards":["♠3","大王","♥10"],"call_score":2}'
    )
    line = wire_bytes(message)
    assert b"\n" not in line
    assert "大王".encode() in line
    assert json.loads(line)["match_id"] is None
