"""``arena tournament`` (issue 12): run, list, show, export, resume; a run killed with
SIGKILL midway and resumed ends with the standings of an uninterrupted run; the
leaderboard retained on a real broker."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from rosters import roster

from arena.cli import main
from tournaments.store import TournamentStore

REPO = Path(__file__).resolve().parent.parent

CUP = """\
[tournament]
name = "test cup"
format = "standard"
seed = 23

[table]
pace_s = {pace}
""" + roster(4)


def cup(tmp_path: Path, *, pace: float = 0.0) -> Path:
    file = tmp_path / "cup.toml"
    file.write_text(CUP.format(pace=pace), encoding="utf-8")
    return file


def shown(db: Path, tid: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["tournament", "show", tid, "--json", "--db", str(db)]) == 0
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def standings(document: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(a["name"], a["points"], a["rounds"]) for a in document["agents"]]


def only_id(db: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["tournament", "list", "--json", "--db", str(db)]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["tournaments"]
    return str(listed["id"])


def test_run_list_show_export_and_the_mistakes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cup.db"
    assert main(["tournament", "run", str(cup(tmp_path)), "--db", str(db)]) == 0
    tid = only_id(db, capsys)
    document = shown(db, tid, capsys)
    assert document["status"] == "finished"
    assert {a["name"] for a in document["agents"]} == {"Ann", "Bob", "Cid", "Dee"}
    assert all(a["rounds"] == 30 for a in document["agents"])  # 3 matches of 10 each
    capsys.readouterr()
    assert main(["tournament", "export", tid, "--csv", "--db", str(db)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith("rank,name,points,rounds")
    assert len(rows) == 5
    assert main(["tournament", "export", tid, "--json", "--db", str(db)]) == 0
    exported = json.loads(capsys.readouterr().out)
    assert exported == document  # show --json's document: name, status and tables too
    for argv, said in [
        (["resume", tid], "is finished: nothing to resume"),
        (["show", "t-nope"], "no tournament 't-nope'"),
        (["show", tid, "--db", str(tmp_path / "none.db")], "no tournament database here"),
        (["run", str(tmp_path / "missing.toml")], "no such tournament file"),
    ]:
        db_flag = [] if "--db" in argv else ["--db", str(db)]
        assert main(["tournament", *argv, *db_flag]) == 2
        assert said in capsys.readouterr().err


def test_a_run_killed_midway_resumes_to_the_standings_of_an_uninterrupted_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    whole_db = tmp_path / "whole.db"
    assert main(["tournament", "run", str(cup(tmp_path)), "--db", str(whole_db)]) == 0
    whole = standings(shown(whole_db, only_id(whole_db, capsys), capsys))

    killed_db = tmp_path / "killed.db"
    file = cup(tmp_path, pace=0.004)  # slow enough to be caught midway
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", "tournament", "run", str(file), "--db", str(killed_db)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until a dozen rounds are stored
            time.sleep(0.05)
            if killed_db.exists():
                with sqlite3.connect(killed_db) as db:
                    try:
                        stored = db.execute("SELECT count(*) FROM rounds").fetchone()[0]
                    except sqlite3.OperationalError:
                        continue
                if stored >= 12:
                    break
        tid = only_id(killed_db, capsys)
        assert shown(killed_db, tid, capsys)["status"] == "running"
        again = ["tournament", "resume", tid, "--db", str(killed_db)]
        assert main(again) == 2  # a second run while it plays is refused
        assert f"tournament {tid} is being played by another process (pid {process.pid})" in (
            capsys.readouterr().err
        )
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(10)
    cut = shown(killed_db, tid, capsys)
    assert cut["status"] == "interrupted"  # stored as running, but no process plays it
    assert "interrupted" in {t["status"] for t in cut["tables"]}  # the one cut off
    assert "running" not in {t["status"] for t in cut["tables"]}
    assert 12 <= cut["rounds"] < 30  # midway
    assert main(["tournament", "resume", tid, "--db", str(killed_db)]) == 0
    resumed = shown(killed_db, tid, capsys)
    assert resumed["status"] == "finished"
    assert standings(resumed) == whole


async def test_the_leaderboard_is_retained_on_the_broker(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    db = tmp_path / "cup.db"
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    argv = ["tournament", "run", str(cup(tmp_path)), "--db", str(db), "--mqtt", url]
    assert await asyncio.to_thread(main, argv) == 0
    async with aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="late-reader") as client:
        await client.subscribe("ddz-arena/tournaments/+/leaderboard", qos=1)
        async with asyncio.timeout(5):
            message = await anext(aiter(client.messages))
    board = json.loads(bytes(message.payload))
    assert message.retain
    assert str(message.topic) == f"ddz-arena/tournaments/{board['tournament']}/leaderboard"
    assert board["rounds"] == 40  # the last standings: 4 matches of 10 rounds
    assert board["status"] == "finished"  # a late reader knows it is over
    assert board["name"] == "test cup"
    assert {a["name"] for a in board["agents"]} == {"Ann", "Bob", "Cid", "Dee"}


def a_board(rounds: int) -> dict[str, Any]:
    agent = {"rank": 1, "name": "Ann", "points_per_round": 1.5, "points": 3 * rounds}
    return {"rounds": rounds, "agents": [{**agent, "mu": 25.0, "sigma": 8.0}]}


def test_off_a_terminal_progress_is_a_line_every_tenth_of_the_rounds() -> None:
    from rich.console import Console

    from tournaments.cli import RunView

    out = io.StringIO()
    view = RunView(Console(file=out, force_terminal=False, width=120))
    view.start(planned=40, played=8)  # resumed: 8 played before
    for rounds in range(9, 41):
        view.update(a_board(rounds))
    view.stop()
    lines = out.getvalue().splitlines()
    assert lines[0] == "arena: 12/40 rounds; leader Ann (1.50 a round)"
    assert lines[-1] == "arena: 40/40 rounds; leader Ann (1.50 a round)"
    assert len(lines) == 8  # 12, 16, ... 40


def test_on_a_terminal_progress_is_a_bar_with_the_top_of_the_leaderboard() -> None:
    from rich.console import Console

    from tournaments.cli import RunView

    out = io.StringIO()
    view = RunView(Console(file=out, force_terminal=True, width=100))
    view.start(planned=40, played=0)
    view.update(a_board(10))
    view.stop()
    shown = out.getvalue()
    assert "10/40" in shown
    assert "Ann" in shown
    assert "25.0 ± 8.0" in shown


def test_a_finished_run_fills_the_bar_though_quick_matches_ended_early() -> None:
    from rich.console import Console

    from tournaments.cli import RunView

    out = io.StringIO()
    view = RunView(Console(file=out, force_terminal=True, width=100))
    view.start(planned=50, played=0)  # ten quick matches: at most 5 rounds each
    view.update(a_board(36))
    view.finished()
    view.stop()
    assert "36/36" in out.getvalue()


def test_agents_yet_to_play_show_a_dash_for_their_points_a_round() -> None:
    from rich.console import Console

    from tournaments.cli import RunView
    from tournaments.leaderboard import Leaderboard

    board = Leaderboard(names=["Ann", "Bob", "Cid", "Dee"]).to_dict()
    assert board["agents"][0]["points_per_round"] is None
    for terminal in (True, False):
        out = io.StringIO()
        view = RunView(Console(file=out, force_terminal=terminal, width=100))
        view.start(planned=None, played=0)
        view.update({**board, "rounds": 50})  # the leader line of an open-ended run
        view.stop()
        assert ("Dee" if terminal else "leader Ann (- a round)") in out.getvalue()


def test_an_agent_that_cannot_be_built_is_named_with_the_file_before_anything_is_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = cup(tmp_path)
    text = file.read_text(encoding="utf-8")
    file.write_text(
        text + '\n[[agents]]\nname = "D"\ntype = "openai"\n[agents.options]\n'
        'api_key = "sk-not-here"\n',
        encoding="utf-8",
    )
    db = tmp_path / "cup.db"
    assert main(["tournament", "run", str(file), "--db", str(db)]) == 2
    said = capsys.readouterr().err
    assert f"{file}: agents." in said
    assert "(agent 'D'): openai" in said
    assert "sk-not-here" not in said
    assert not db.exists()


def test_the_stored_rounds_export_as_a_replay_that_arena_replay_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "cup.db"
    assert main(["tournament", "run", str(cup(tmp_path)), "--db", str(db)]) == 0
    tid = only_id(db, capsys)
    tables = shown(db, tid, capsys)["tables"]
    assert [t["table"] for t in tables] == ["s1t1", "s2t1", "s3t1", "s4t1"]
    assert all(t["status"] == "finished" and t["rounds"] == 10 for t in tables)
    assert sorted({p for t in tables for p in t["players"]}) == ["Ann", "Bob", "Cid", "Dee"]

    def export(*more: str) -> subprocess.CompletedProcess[bytes]:
        argv = ["tournament", "export", tid, "--replay", "--db", str(db), *more]
        command = [sys.executable, "-m", "arena.cli", *argv]
        return subprocess.run(command, cwd=REPO, capture_output=True, check=False)

    whole = export()
    assert whole.returncode == 0, whole.stderr
    path = tmp_path / "cup.jsonl"
    path.write_bytes(whole.stdout)
    capsys.readouterr()
    assert main(["replay", str(path), "--quiet"]) == 0
    verdicts = capsys.readouterr().out.splitlines()
    assert len(verdicts) == 40
    assert all(line.startswith("✓ table s") for line in verdicts)

    one = export("--table", "s2t1")
    assert one.returncode == 0
    first, *rest = one.stdout.splitlines()  # the tournament line, then the table's lines
    assert json.loads(first)["kind"] == "tournament"
    assert [t["table"] for t in json.loads(first)["tables"]] == ["s2t1"]
    assert {json.loads(line)["table"] for line in rest} == {"s2t1"}
    missing = export("--table", "s9t9")
    assert missing.returncode == 2
    assert b"has no table 's9t9' (its tables: s1t1, s2t1, s3t1, s4t1)" in missing.stderr


def test_show_lists_the_whole_roster_before_anyone_has_played(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tournaments.config import parse_tournament_config
    from tournaments.store import TournamentStore

    names = ["Ann", "Bob", "Cid", "Dee", "Eve"]
    config = parse_tournament_config(
        {"tournament": {"name": "Five"}, "agents": [{"name": n, "type": "greedy"} for n in names]}
    )
    db = tmp_path / "five.db"
    with TournamentStore(db) as store:
        tid = store.new_tournament("Five", config, seed=1)
    document = shown(db, tid, capsys)
    assert [(a["name"], a["points"], a["rounds"]) for a in document["agents"]] == [
        (n, 0, 0) for n in names
    ]
    assert document["status"] == "interrupted"  # stored running, but nobody plays it


def test_a_run_says_its_seed_commitment_or_that_a_small_seed_is_not_verifiable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small = cup(tmp_path)
    assert main(["tournament", "run", str(small), "--db", str(tmp_path / "a.db")]) == 0
    said = capsys.readouterr().err
    assert "seed: not verifiable, the file's small seed could have been chosen" in said
    fresh = tmp_path / "fresh.toml"
    fresh.write_text(small.read_text(encoding="utf-8").replace("seed = 23\n", ""), "utf-8")
    assert main(["tournament", "run", str(fresh), "--db", str(tmp_path / "b.db")]) == 0
    said = capsys.readouterr().err
    (line,) = [line for line in said.splitlines() if "seed committed" in line]
    commitment = line.split("sha256 ")[1].split()[0]
    assert len(commitment) == 64
    assert int(commitment, 16) >= 0


def test_each_progress_line_is_said_once_in_a_duplicate_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    three = tmp_path / "dup.toml"
    text = CUP.format(pace=0).replace(
        'format = "standard"', 'format = "standard"\nduplicate = "rotations"'
    )
    three.write_text(text.split('[[agents]]\nname = "Dee"')[0], encoding="utf-8")
    assert main(["tournament", "run", str(three), "--db", str(tmp_path / "d.db")]) == 0
    progress = [line for line in capsys.readouterr().err.splitlines() if " rounds; leader " in line]
    assert progress  # a line every tenth of the 30 rounds
    assert len(progress) == len(set(progress))
    assert progress[-1].startswith("arena: 30/30 rounds")


@pytest.mark.parametrize("flag", [["--simulate-gifts"], ["--gifts"]])
def test_gifts_with_duplicate_mode_are_refused_before_they_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flag: list[str]
) -> None:
    three = tmp_path / "dup.toml"
    text = CUP.format(pace=0).replace(
        'format = "standard"', 'format = "standard"\nduplicate = "rotations"'
    )
    three.write_text(text.split('[[agents]]\nname = "Dee"')[0], encoding="utf-8")
    code = main(["tournament", "run", str(three), *flag, "--db", str(tmp_path / "d.db")])
    said = capsys.readouterr().err
    assert code == 2
    assert "not with tournament.duplicate" in said
    assert "taking gifts" not in said
    assert not (tmp_path / "d.db").exists()  # refused before its database file is made


def test_finish_ends_a_daily_for_good_and_reveals_its_last_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    daily = tmp_path / "daily.toml"
    three = CUP.format(pace=0).replace('format = "standard"\nseed = 23', 'format = "daily"')
    daily.write_text(three.split('[[agents]]\nname = "Dee"')[0], encoding="utf-8")
    db = str(tmp_path / "d.db")
    assert main(["tournament", "run", str(daily), "--rounds", "4", "--db", db]) == 0
    capsys.readouterr()
    assert main(["tournament", "list", "--json", "--db", db]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["tournaments"]
    tid = listed["id"]
    assert shown(Path(db), tid, capsys)["seeds"]["epochs"][-1]["seed"] is None  # secret
    assert main(["tournament", "finish", tid, "--db", db]) == 0
    said = capsys.readouterr().out
    assert f"tournament {tid} (test cup) finished after 4 rounds" in said
    document = shown(Path(db), tid, capsys)
    assert document["status"] == "finished"
    assert document["seeds"]["epochs"][-1]["seed"].startswith("0x")  # revealed
    assert main(["tournament", "finish", tid, "--db", db]) == 2
    assert "is finished already" in capsys.readouterr().err
    assert main(["tournament", "resume", tid, "--db", db]) == 2
    assert "nothing to resume" in capsys.readouterr().err


def test_finish_is_refused_while_a_run_plays_the_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from tournaments.lease import RunLease
    from tournaments.store import TournamentStore

    db = tmp_path / "a.db"
    assert main(["tournament", "run", str(cup(tmp_path)), "--db", str(db)]) == 0
    capsys.readouterr()
    with TournamentStore(db) as store:
        (row,) = store.tournaments()
        store.mark_tournament(row.id, "interrupted")
        with RunLease(store.path, row.id):  # as a live run holds it
            assert main(["tournament", "finish", row.id, "--db", str(db)]) == 2
    assert "pid" in capsys.readouterr().err
    with TournamentStore(db) as store:
        assert store.tournament(row.id).status == "interrupted"


async def test_a_run_whose_agents_cannot_start_leaves_no_tournament_behind(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    """A program that exits at once: the run stops with one error naming the seat, and
    the tournament it stored is removed again (nothing was played, nothing to resume),
    so `list` shows none, and its retained leaderboard is cleared from the broker."""
    file = tmp_path / "cup.toml"
    file.write_text(
        CUP.format(pace=0).split('[[agents]]\nname = "Cid"')[0]
        + '\n[[agents]]\nname = "Gone"\ntype = "subprocess"\n'
        'options = { command = ["sh", "-c", "exit 3"] }\n',
        encoding="utf-8",
    )
    db = tmp_path / "cup.db"
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    argv = ["tournament", "run", str(file), "--db", str(db), "--mqtt", url]
    command = [sys.executable, "-m", "arena.cli", *argv]
    async with aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="live-reader") as client:
        await client.subscribe("ddz-arena/tournaments/+/leaderboard", qos=1)
        run = await asyncio.to_thread(
            subprocess.run, command, cwd=REPO, capture_output=True, text=True, check=False
        )
        payloads: list[bytes] = []
        async with asyncio.timeout(10):
            async for message in client.messages:  # until the board is withdrawn
                payloads.append(bytes(message.payload))
                if not payloads[-1]:
                    break
    assert run.returncode == 2, run.stderr
    assert run.stderr.splitlines()[-1] == (
        "arena: error: table s1t1 seat 2 ('Gone') could not start: the program exited at "
        "once with code 3; it wrote nothing to stderr"
    )
    assert "resume" not in run.stderr  # nothing to go on with
    assert json.loads(payloads[0])["status"] == "running"  # its commitment, told at once
    assert payloads[-1] == b""  # then forgotten: no retained board of a dead tournament
    with TournamentStore(db, create=False) as store:
        assert store.tournaments() == []  # `list` shows none
