"""How the store keeps a round's lines (tournaments/round_lines.py): a compact array a
round, read back as exactly the lines a replay file holds, whatever the agents returned,
and as they were when told even if an agent changes its request afterwards."""

from __future__ import annotations

import sqlite3
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest
from agents_for_tests import FakeAgent

from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.messages import PlayRequest
from arena.replay import ReplayWriter, read_replay, strip_timing, verify_round
from arena.table import Table, play_match
from tournaments.round_lines import RoundLines, expand
from tournaments.store import MIGRATIONS, StoreError, TournamentStore

NAMES = ("Alpha", "Beta", "Gamma")


class Both:
    """One table's recorder feeding a replay file and the store alike."""

    def __init__(self, *recorders: Any) -> None:
        self.recorders = recorders

    def round_started(self, header: dict[str, Any]) -> None:
        for recorder in self.recorders:
            recorder.round_started(header)

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        for recorder in self.recorders:
            recorder.message(direction, seat, message, elapsed_ms, late=late)

    def event(self, event: Event) -> None:
        for recorder in self.recorders:
            recorder.event(event)

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        for recorder in self.recorders:
            recorder.decision(seat, record)

    def effect(self, record: dict[str, Any]) -> None:
        for recorder in self.recorders:
            recorder.effect(record)

    def round_ended(self, summary: dict[str, Any]) -> None:
        for recorder in self.recorders:
            recorder.round_ended(summary)


def opened(path: Path, table_id: str = "T1") -> tuple[TournamentStore, int]:
    store = TournamentStore(path)
    tid = store.new_tournament("weekly", {"name": "weekly"}, seed=3)
    return store, store.open_match(tid, stage="1", table_id=table_id, players=NAMES, seed=3)


def odd_replies(request: PlayRequest, n: int) -> object:
    """Now and then something that is no reply: text, a dict, a list."""
    return {1: "nonsense", 2: {"type": "PLAY_RESPONSE"}, 3: [1, 2]}.get(n % 7)


async def test_the_store_reads_back_the_very_lines_of_the_replay_file(tmp_path: Path) -> None:
    store, match_id = opened(tmp_path / "t.db")
    writer = ReplayWriter(tmp_path / "match.jsonl")
    recorder = Both(writer.for_table("T1"), store.recorder(match_id))
    agents: list[Any] = [FakeAgent(NAMES[0], play=odd_replies), GreedyAgent(NAMES[1])]
    table = Table([*agents, GreedyAgent(NAMES[2])], table_id="T1", recorder=recorder)
    await play_match(table, rounds=3, seed=21)
    writer.close()

    from_file = list(strip_timing((tmp_path / "match.jsonl").read_text().splitlines()))
    from_store = list(strip_timing(line.decode() for line in store.replay_lines(match_id)))
    assert len(from_store) > 300
    assert from_store == from_file  # every line, in order, timing aside
    kinds = {line["message"].get("python_type") for line in from_file if line["kind"] == "message"}
    assert {"str", "dict", "list"} <= kinds  # the odd replies are in both, as their repr


async def test_a_request_is_kept_as_told_though_the_agent_changes_it_after(
    tmp_path: Path,
) -> None:
    async def answer_then_spoil(request: PlayRequest, n: int) -> object:
        reply = await GreedyAgent(NAMES[0]).play(request)
        request.hand.clear()  # an in-process agent may change the lists it was handed
        return reply

    store, match_id = opened(tmp_path / "t.db")
    agents: list[Any] = [FakeAgent(NAMES[0], play=answer_then_spoil)]
    agents += [GreedyAgent(NAMES[1]), GreedyAgent(NAMES[2])]
    table = Table(agents, table_id="T1", recorder=store.recorder(match_id))
    await play_match(table, rounds=2, seed=5)

    replay = read_replay(store.replay_lines(match_id))
    requests = [
        m["message"]
        for r in replay.rounds
        for m in r.messages
        if m["seat"] == 0 and m["message"]["type"] == "PLAY_REQUEST"
    ]
    assert requests
    assert all(request["hand"] for request in requests)
    for recorded in replay.rounds:
        assert verify_round(recorded).result is not None  # hands as the engine dealt them


def test_decisions_effects_late_and_unwritable_replies_read_back_as_the_file_has_them(
    tmp_path: Path,
) -> None:
    store, match_id = opened(tmp_path / "t.db", table_id="T9")
    writer = ReplayWriter(tmp_path / "calls.jsonl")
    both = Both(writer.for_table("T9"), store.recorder(match_id))
    header = {"table": "T9", "round": 1, "seed": 4, "players": list(NAMES)}
    both.event(Event("match_started", "T9", 0, 1, data={"players": list(NAMES)}))
    both.round_started(header)
    both.message("to_agent", 1, "not a message", None)
    both.message("from_agent", 1, None, 12.34567, late=True)
    both.message("from_agent", 2, {"cards": {1, 2}}, 0.5)  # a set: no JSON for it
    both.decision(1, {"request_id": "r1", "attempt": 0, "report": {"raw": object()}})
    both.effect({"effect": "SWAP", "seats": [0, 1], "cards": ["♠3", "♥4"]})
    both.event(Event("play", "T9", 1, 2, seat=1, player=NAMES[1], data={"cards": ["♠3"]}))
    both.round_ended({"players": list(NAMES), "faults": {n: {} for n in NAMES}})
    writer.close()

    from_file = list(strip_timing((tmp_path / "calls.jsonl").read_text().splitlines()))
    from_store = list(strip_timing(line.decode() for line in store.replay_lines(match_id)))
    assert from_store == from_file
    late = [line for line in from_store if line.get("late")]
    assert len(late) == 1
    assert late[0]["message"] == {
        "invalid_reply": "None",
        "python_type": "NoneType",
    }
    assert [line["kind"] for line in from_store][5:7] == ["decision", "effect"]


def test_messages_keep_their_timing_to_the_microsecond() -> None:
    lines = RoundLines()
    lines.message("from_agent", 0, "x", 1.23456789)
    (line,) = [orjson.loads(raw) for raw in expand(lines.take(), "T1", 4)]
    assert line["round"] == 4
    assert line["table"] == "T1"
    assert line["elapsed_ms"] == 1.235
    assert 0 <= line["t_ms"] < 1000
    assert round(line["t_ms"], 3) == line["t_ms"]
    assert not lines  # taken: nothing kept


def test_a_version_1_file_is_migrated_and_its_rounds_still_read(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    old = sqlite3.connect(path, isolation_level=None)
    old.executescript(MIGRATIONS[0])
    old.executescript(
        "CREATE TABLE schema_version (version INTEGER NOT NULL);"
        "INSERT INTO schema_version VALUES (1);"
        "INSERT INTO tournaments VALUES ('t-old', 'old', '{}', 1, 'finished', 'then', NULL);"
        "INSERT INTO table_matches (tournament_id, stage, table_id, players, seed, status,"
        " started_at) VALUES ('t-old', '1', 'T1', '[\"A\",\"B\",\"C\"]', 1, 'finished', 'then');"
    )
    line = {"kind": "event", "table": "T1", "event": {"type": "play", "seq": 2}}
    old.execute(
        "INSERT INTO rounds (table_match_id, round_no, seed, header, result, lines,"
        " committed_at) VALUES (1, 1, 1, ?, ?, ?, 'then')",
        ('{"table": "T1", "round": 1}', "{}", zlib.compress(orjson.dumps(line) + b"\n")),
    )
    old.close()

    store = TournamentStore(path)
    assert store.schema_version == len(MIGRATIONS) == 3
    stored = [orjson.loads(raw) for raw in store.replay_lines(1)]
    assert [entry["kind"] for entry in stored] == ["round_start", "event", "round_end"]
    assert stored[1] == line
    store.connection.execute("UPDATE rounds SET lines_format = 7")  # a newer file is refused
    with pytest.raises(StoreError, match=r"round 1 of table T1 is damaged \(lines of format 7"):
        list(store.replay_lines(1))
