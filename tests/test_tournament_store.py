"""The tournament store (issue 12): every round written whole, in one transaction, or not
at all; read back equal to what the match returned; a round never counted twice; the
stored lines a replay the engine check accepts; no secrets in the file."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import FakeAgent

from arena.games.ddz.agents.scripted import GreedyAgent
from arena.replay import load_replay, read_replay, verify_round
from arena.table import Table, play_match
from arena.table.match import MatchSummary
from tournaments.store import (
    MIGRATIONS,
    RoundExists,
    StoreError,
    TournamentStore,
    round_record,
)

NAMES = ("Alpha", "Beta", "Gamma")
CONFIG: dict[str, Any] = {
    "name": "weekly",
    "format": "round_robin",
    "seats": [{"name": n, "agent": "greedy"} for n in NAMES],
}


def opened(path: Path, *, table_id: str = "T1", seed: int = 7) -> tuple[TournamentStore, str, int]:
    store = TournamentStore(path)
    tid = store.new_tournament("weekly", CONFIG, seed=seed)
    match_id = store.open_match(tid, stage="group", table_id=table_id, players=NAMES, seed=seed)
    return store, tid, match_id


def untimed(record: dict[str, Any]) -> dict[str, Any]:
    """A round's record without its stats (latencies differ from run to run)."""
    return {k: v for k, v in record.items() if k != "stats"}


async def played(store: TournamentStore, match_id: int, rounds: int, seed: int) -> MatchSummary:
    match = store.match(match_id)
    table = Table(
        [GreedyAgent(n) for n in NAMES], table_id=match.table_id, recorder=store.recorder(match_id)
    )
    return await play_match(table, rounds=rounds, seed=seed)


async def test_a_match_reads_back_from_a_reopened_file_as_play_match_returned_it(
    tmp_path: Path,
) -> None:
    store, tid, match_id = opened(tmp_path / "t.db")
    summary = await played(store, match_id, rounds=4, seed=7)
    store.close()

    again = TournamentStore(tmp_path / "t.db")
    assert again.rounds_of(match_id) == [r.to_dict() for r in summary.rounds]
    assert again.rounds(tid) == [r.to_dict() for r in summary.rounds]
    assert again.round_records(match_id) == summary.rounds  # rebuilt whole: resume's `done`
    assert again.last_round(match_id) == 4
    header = again.header(match_id, 2)
    assert header["seed"] == summary.rounds[1].seed
    assert header["deal"] is None  # the table's own header
    assert header["rules"]["scoring"] == "competition"
    (match,) = again.table_matches(tid)
    assert match.status == "finished"  # the match_ended event marked it, with its summary
    assert match.summary is not None
    assert match.summary["totals"] == summary.totals
    assert match.players == NAMES
    tournament = again.tournament(tid)
    assert tournament.status == "running"
    assert tournament.config == CONFIG
    assert [t.id for t in again.tournaments()] == [tid]


async def test_each_round_is_one_transaction(tmp_path: Path) -> None:
    store, _, match_id = opened(tmp_path / "t.db")
    statements: list[str] = []
    store.connection.set_trace_callback(statements.append)
    await played(store, match_id, rounds=3, seed=2)
    commits = [s for s in statements if s.strip().upper() == "COMMIT"]
    inserts = [s for s in statements if s.lstrip().upper().startswith("INSERT INTO ROUNDS")]
    assert len(inserts) == 3
    assert len(commits) == 3 + 1  # one per round, one at match_ended (the trailing lines)


async def test_a_round_that_fails_to_write_leaves_nothing_of_itself(tmp_path: Path) -> None:
    store, _, match_id = opened(tmp_path / "t.db")
    # every play's first reply is nonsense: each round has faults to write
    faulty: list[Any] = [FakeAgent(NAMES[0], play=lambda request, n: "nonsense" if n % 2 else None)]
    table = Table(
        [*faulty, GreedyAgent(NAMES[1]), GreedyAgent(NAMES[2])],
        table_id="T1",
        recorder=store.recorder(match_id),
    )
    await table.play_round(1, seed=5)  # round 1 stored, with its fault
    assert store.last_round(match_id) == 1
    store.connection.execute(  # round 2's fault rows will break the transaction midway
        "CREATE TRIGGER no_faults BEFORE INSERT ON faults WHEN NEW.round_id > 1"
        " BEGIN SELECT RAISE(ABORT, 'disk on fire'); END"
    )
    with pytest.raises(sqlite3.IntegrityError, match="disk on fire"):
        await table.play_round(2, seed=6)
    assert store.last_round(match_id) == 1
    count = store.connection.execute("SELECT count(*) FROM rounds").fetchone()[0]
    assert count == 1
    assert store.connection.execute("SELECT count(*) FROM faults").fetchone()[0] >= 1
    round_1 = store.rounds_of(match_id)[0]["faults"][NAMES[0]]["unparsable"]
    assert store.faults(store.match(match_id).tournament_id)[NAMES[0]]["unparsable"] == round_1


async def test_a_round_cut_off_midway_leaves_only_whole_rounds(tmp_path: Path) -> None:
    """A process killed mid-round: its recorder never hears round_ended. Resuming plays the
    round again from its start, dealt the same, and it counts once."""
    store, tid, match_id = opened(tmp_path / "t.db")
    whole = await play_match(
        Table([GreedyAgent(n) for n in NAMES], table_id="T1"), rounds=3, seed=9
    )

    recorder = store.recorder(match_id)

    class Crash(BaseException):
        """Not an Exception: the table does not catch it, as a kill -9 is not caught."""

    def crash_in_round_3(request: Any, n: int) -> Any:
        if recorder.current_round == 3:
            raise Crash
        return None

    agents: list[Any] = [
        FakeAgent(NAMES[0], play=crash_in_round_3),
        GreedyAgent(NAMES[1]),
        GreedyAgent(NAMES[2]),
    ]
    table = Table(agents, table_id="T1", recorder=recorder)
    with pytest.raises(Crash):
        await play_match(table, rounds=3, seed=9)
    store.close()

    store = TournamentStore(tmp_path / "t.db")
    assert store.last_round(match_id) == 2
    assert [r["round_no"] for r in store.rounds(tid)] == [1, 2]
    assert store.match(match_id).status == "running"  # show works on it meanwhile
    resumed_table = Table(
        [GreedyAgent(n) for n in NAMES], table_id="T1", recorder=store.recorder(match_id)
    )
    resumed = await play_match(  # on from the next unfinished round, totals intact
        resumed_table, rounds=3, seed=9, done=store.round_records(match_id)
    )
    assert resumed.totals == whole.totals
    assert [untimed(r) for r in store.rounds_of(match_id)] == [
        untimed(r.to_dict()) for r in whole.rounds
    ]  # dealt and played as if never cut off, round 3 once
    assert store.match(match_id).status == "finished"
    exported = read_replay(store.replay_lines(match_id))
    assert [verify_round(r).result is not None for r in exported.rounds] == [True] * 3
    with pytest.raises(RoundExists, match="round 3 is stored already"):
        await resumed_table.play_round(3, seed=whole.rounds[2].seed)
    assert len(store.rounds_of(match_id)) == 3  # refused: the first copy only


async def test_the_stored_lines_are_a_replay_the_engine_check_accepts(tmp_path: Path) -> None:
    store, _, match_id = opened(tmp_path / "t.db")
    agents: list[Any] = [
        FakeAgent(NAMES[0], play=lambda request, n: "nonsense" if n % 4 == 1 else None),
        GreedyAgent(NAMES[1]),
        GreedyAgent(NAMES[2]),
    ]
    table = Table(agents, table_id="T1", recorder=store.recorder(match_id))
    summary = await play_match(table, rounds=3, seed=11)
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"".join(store.replay_lines(match_id)))

    replay = load_replay(path)
    assert replay.notes == []  # the match starts and ends: nothing missing
    assert [r.round for r in replay.rounds] == [1, 2, 3]
    for recorded, record in zip(replay.rounds, summary.rounds, strict=True):
        engine = verify_round(recorded)  # every action is there, in order
        assert engine.result is not None
        assert engine.result.to_dict() == record.result.to_dict()
        assert recorded.summary == record.to_dict()
        assert any(m["dir"] == "from_agent" for m in recorded.messages)
    kinds = [e["type"] for r in replay.rounds for e in r.events]
    assert "fault" in kinds
    assert store.faults(store.match(match_id).tournament_id)[NAMES[0]]["unparsable"] >= 3


async def test_gift_outcomes_are_rows_in_their_round_or_between_rounds(tmp_path: Path) -> None:
    store, _, match_id = opened(tmp_path / "t.db")
    table: Table | None = None

    def gift(gift_id: str, status: str, reason: str | None = None) -> dict[str, Any]:
        return {
            "id": gift_id,
            "status": status,
            "reason": reason,
            "effect": "CHEER",
            "target": 1,
            "units": 1,
        }

    async def cheer_on_first_play(request: Any, n: int) -> Any:
        if n == 1 and table is not None:
            await table.emit("gift", 1, gift("tiktok:9#1", "queued"))
            await table.emit("gift", 1, gift("tiktok:9#1", "applied"))
        return None

    agents: list[Any] = [FakeAgent(NAMES[0], play=cheer_on_first_play), GreedyAgent(NAMES[1])]
    table = Table(
        [*agents, GreedyAgent(NAMES[2])], table_id="T1", recorder=store.recorder(match_id)
    )
    recorder = table.recorder
    assert recorder is not None
    await table.play_round(1, seed=3)
    await table.emit("gift", 1, gift("tiktok:10#1", "rejected", "cooldown"))  # between rounds
    assert len(store.gift_outcomes(match_id)) == 1  # not yet: it goes with the next round
    await table.play_round(2, seed=4)
    outcomes = store.gift_outcomes(match_id)
    assert [(o["id"], o["status"], o["round"]) for o in outcomes] == [
        ("tiktok:9#1", "applied", 1),
        ("tiktok:10#1", "rejected", None),
    ]
    assert outcomes[0] == {
        "id": "tiktok:9#1",
        "status": "applied",
        "reason": None,
        "effect": "CHEER",
        "target": 1,
        "units": 1,
        "round": 1,
    }
    replay = read_replay(store.replay_lines(match_id))
    gift_lines = [e for r in replay.rounds for e in r.events if e["type"] == "gift"]
    assert len(gift_lines) == len(outcomes) + 1  # the queued one is a line, no outcome


def test_a_config_with_a_secret_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path / "t.db")
    leaky = {**CONFIG, "seats": [{"name": "M", "options": {"api_key": "sk-live-123"}}]}
    with pytest.raises(StoreError, match=r"seats\[0\]\.options\.api_key holds a value") as caught:
        store.new_tournament("leaky", leaky, seed=1)
    assert "sk-live" not in str(caught.value)
    assert store.tournaments() == []
    named = {**CONFIG, "seats": [{"name": "M", "options": {"api_key_env": "OPENAI_API_KEY"}}]}
    tid = store.new_tournament("named", named, seed=1)
    assert store.tournament(tid).config == named
    raw = (tmp_path / "t.db").read_bytes() + (tmp_path / "t.db-wal").read_bytes()
    assert b"sk-live" not in raw


def test_ids_schema_version_and_a_newer_file(tmp_path: Path) -> None:
    store = TournamentStore(tmp_path / "t.db")
    tid = store.new_tournament("x", {}, seed=1)
    assert tid.startswith("t-")
    assert len(tid) == len("t-YYYYMMDD-abcdef")
    with pytest.raises(StoreError, match="exists already"):
        store.new_tournament("y", {}, seed=1, tournament_id=tid)
    assert store.schema_version == len(MIGRATIONS)
    mode = store.connection.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.mark_tournament(tid, "interrupted")
    assert store.tournament(tid).status == "interrupted"
    store.mark_tournament(tid, "finished")
    assert store.tournament(tid).finished_at is not None
    with pytest.raises(StoreError, match="no tournament"):
        store.mark_tournament("t-nope", "finished")
    store.connection.execute("UPDATE schema_version SET version = 99")
    store.close()
    with pytest.raises(StoreError, match="newer than this arena"):
        TournamentStore(tmp_path / "t.db")


def test_opening_a_match_again_gives_the_same_id_or_says_why_not(tmp_path: Path) -> None:
    store, tid, match_id = opened(tmp_path / "t.db")
    again = store.open_match(tid, stage="group", table_id="T1", players=NAMES, seed=7)
    assert again == match_id
    with pytest.raises(StoreError, match="is stored with players"):
        store.open_match(tid, stage="group", table_id="T1", players=NAMES[::-1], seed=7)
    other = store.open_match(tid, stage="final", table_id="T1", players=NAMES, seed=7)
    assert other != match_id
    assert [m.id for m in store.table_matches(tid)] == [match_id, other]


async def test_round_record_rebuilds_what_to_dict_wrote() -> None:
    summary = await play_match(Table([GreedyAgent(n) for n in NAMES]), rounds=5, seed=31)
    for record in summary.rounds:
        assert round_record(record.to_dict()) == record


KILLED_MID_ROUND = """
import asyncio, os, signal, sys
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.table import Table, play_match
from tournaments.store import TournamentStore

store = TournamentStore(sys.argv[1])
tid = store.new_tournament("killed", {}, seed=5, tournament_id="t-killed")
match_id = store.open_match(tid, stage="s", table_id="T1", players=["A", "B", "C"], seed=5)
recorder = store.recorder(match_id)

class Doomed(GreedyAgent):
    async def play(self, request):
        if recorder.current_round == 3:
            os.kill(os.getpid(), signal.SIGKILL)
        return await super().play(request)

table = Table([Doomed("A"), GreedyAgent("B"), GreedyAgent("C")], table_id="T1", recorder=recorder)
asyncio.run(play_match(table, rounds=5, seed=5))
"""


def test_kill_9_mid_round_leaves_the_whole_rounds_before_it(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    done = subprocess.run(
        [sys.executable, "-c", KILLED_MID_ROUND, str(path)], capture_output=True, timeout=60
    )
    assert done.returncode == -signal.SIGKILL, done.stderr.decode()
    store = TournamentStore(path)
    (match,) = store.table_matches("t-killed")
    assert store.last_round(match.id) == 2
    assert [r["round_no"] for r in store.rounds_of(match.id)] == [1, 2]
    assert match.status == "running"
    replay = read_replay(store.replay_lines(match.id))
    for recorded in replay.rounds:
        verify_round(recorded)  # each stored round whole


async def test_a_round_stored_before_bombs_by_seat_reads_back_with_none(tmp_path: Path) -> None:
    store, _, match_id = opened(tmp_path / "t.db")
    await played(store, match_id, rounds=1, seed=3)
    stored = store.rounds_of(match_id)[0]
    assert round_record(stored).result.bombs_by_seat == tuple(stored["result"]["bombs_by_seat"])
    del stored["result"]["bombs_by_seat"]  # as a file from before the key holds it
    assert round_record(stored).result.bombs_by_seat == (0, 0, 0)


def test_a_file_that_is_no_store_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    text = tmp_path / "notes.db"
    text.write_text("hello\n")
    with pytest.raises(StoreError, match=r"notes\.db: not a tournament database \(file is not"):
        TournamentStore(text)
    assert text.read_text() == "hello\n"

    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(StoreError, match=r"empty\.db: not a tournament database"):
        TournamentStore(empty, create=False)  # show, list, export, resume
    assert empty.stat().st_size == 0  # nothing written into it
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE mine (x)")
    for create in (False, True):  # not even `run` writes into another program's file
        with pytest.raises(StoreError, match=r"other\.db: not a tournament database"):
            TournamentStore(other, create=create)
    with sqlite3.connect(other) as db:
        assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["mine"]

    store, tid, _ = opened(tmp_path / "t.db")
    store.close()
    with TournamentStore(tmp_path / "t.db", create=False) as reopened:
        assert reopened.tournament(tid).name == "weekly"


async def test_only_a_tournament_with_no_round_stored_can_be_discarded(tmp_path: Path) -> None:
    """A new tournament whose agents could not start is removed whole (the runner does
    it); one with a round stored is refused, untouched: a played round is never lost."""
    store, tid, match_id = opened(tmp_path / "t.db")
    await played(store, match_id, rounds=1, seed=3)
    with pytest.raises(StoreError, match=rf"tournament {tid} has 1 round\(s\) stored"):
        store.discard_tournament(tid)
    assert store.round_count(tid) == 1
    unplayed = store.new_tournament("unplayed", CONFIG, seed=4)
    store.open_match(unplayed, stage="1", table_id="s1t1", players=NAMES, seed=4)
    assert store.has_tournament(unplayed)
    store.discard_tournament(unplayed)
    assert not store.has_tournament(unplayed)
    assert [row.id for row in store.tournaments()] == [tid]
    left = [
        store.connection.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
        for table in ("table_matches", "seeds")
    ]
    assert left == [1, 1]  # the played tournament's only
    store.close()
