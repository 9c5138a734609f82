"""Forfeits through real ``arena tournament`` processes (issue 25): an agent whose
program crashes on every message used to win its tournament on the stand-in's points;
now it forfeits every round, shown by ``show``, ``export`` and the retained MQTT
leaderboard, and checked by ``verify``. ``standin_rounds = "count"`` keeps the table's
scores, and so does a tournament stored before the setting existed."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiomqtt
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from processes import REPO, ctrl_c_once_stored

CRASH = "import sys\nfor line in sys.stdin:\n    raise SystemExit(1)\n"
"""A program that dies on every message it is sent (the arena restarts it, then gives up)."""


def arena(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def cup(folder: Path, *, setting: str = "") -> Path:
    crash = folder / "crash.py"
    crash.write_text(CRASH, encoding="utf-8")
    file = folder / "cup.toml"
    file.write_text(
        f'[tournament]\nname = "crash cup"\nformat = "standard"\nseed = 7\n{setting}'
        '\n[[agents]]\nname = "Ann"\ntype = "random"\n'
        '\n[[agents]]\nname = "Bob"\ntype = "random"\n'
        '\n[[agents]]\nname = "Crash"\ntype = "subprocess"\n'
        f"options = {{ command = [{json.dumps(sys.executable)}, {json.dumps(str(crash))}] }}\n",
        encoding="utf-8",
    )
    return file


def played(folder: Path, *more: str, setting: str = "") -> tuple[Path, str]:
    db = folder / "cup.db"
    run = arena("tournament", "run", str(cup(folder, setting=setting)), "--db", str(db), *more)
    assert run.returncode == 0, run.stderr
    with sqlite3.connect(db) as connection:
        (tid,) = connection.execute("SELECT id FROM tournaments").fetchone()
    return db, str(tid)


def shown(db: Path, tid: str) -> dict[str, Any]:
    show = arena("tournament", "show", tid, "--json", "--db", str(db))
    assert show.returncode == 0, show.stderr
    document: dict[str, Any] = json.loads(show.stdout)
    return document


def by_name(board: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {agent["name"]: agent for agent in board["agents"]}


def table_scores(db: Path, player: str) -> list[int]:
    """The player's score in each stored round, as the table settled it."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT result FROM rounds ORDER BY round_no").fetchall()
    return [int(json.loads(result)["scores"][player]) for (result,) in rows]


def round_stakes(db: Path) -> list[int]:
    """What each stored round was played for: the landlord's score, won or lost (it
    pays or takes both farmers' stakes)."""
    with sqlite3.connect(db) as connection:
        rows = connection.execute("SELECT result FROM rounds ORDER BY round_no").fetchall()
    return [max(abs(int(s)) for s in json.loads(result)["scores"].values()) for (result,) in rows]


async def test_an_agent_crashing_on_every_message_forfeits_every_round(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    db, tid = await asyncio.to_thread(played, tmp_path, "--mqtt", url)
    document = shown(db, tid)
    agents = by_name(document)
    crash = agents["Crash"]
    raw = table_scores(db, "Crash")
    assert sum(raw) > max(sum(table_scores(db, name)) for name in ("Ann", "Bob"))
    # the stand-in's points: counted as Crash's, they ranked it first
    assert crash["rank"] == 3
    assert crash["forfeits"] == crash["rounds"] == 10
    assert crash["forfeits_standin"] + crash["forfeits_fallback"] == 10
    assert crash["round_wins"] == 0
    # a loss at each round's stakes: what the landlord played for, the largest loss
    assert crash["points"] == -sum(round_stakes(db))
    assert crash["points"] < -sum(abs(score) for score in raw)  # more than a farmer's own
    for name in ("Ann", "Bob"):  # the others keep what the table gave them
        assert agents[name]["points"] == sum(table_scores(db, name))
        assert agents[name]["forfeits"] == 0
    assert document["standin_rounds"] == "forfeit"
    assert document["result_problems"] == []  # a forfeit is no stored result's problem

    exported = arena("tournament", "export", tid, "--csv", "--db", str(db))
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO(exported.stdout))}
    assert rows["Crash"]["forfeits"] == "10"
    assert rows["Ann"]["forfeits"] == "0"
    text = arena("tournament", "show", tid, "--db", str(db))
    assert "Forfeits" in text.stdout

    async with aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="forfeit-reader") as client:
        await client.subscribe(f"ddz-arena/tournaments/{tid}/leaderboard", qos=1)
        async with asyncio.timeout(5):
            message = await anext(aiter(client.messages))
    board = json.loads(bytes(message.payload))
    assert board["standin_rounds"] == "forfeit"
    assert by_name(board)["Crash"]["forfeits"] == 10
    assert by_name(board)["Crash"]["points"] == crash["points"]

    verify = arena("tournament", "verify", tid, "--db", str(db))
    assert verify.returncode == 3, verify.stdout  # a small seed; nothing differs
    assert "nothing differs" in verify.stdout


def test_count_keeps_the_stand_ins_points_as_the_table_scored_them(tmp_path: Path) -> None:
    db, tid = played(tmp_path, setting='standin_rounds = "count"\n')
    crash = by_name(shown(db, tid))["Crash"]
    assert crash["points"] == sum(table_scores(db, "Crash")) > 0
    assert crash["forfeits"] == 0
    assert crash["round_wins"] > 0


def test_a_tournament_stored_before_forfeits_is_counted_as_it_was_played(
    tmp_path: Path,
) -> None:
    db, tid = played(tmp_path)
    with sqlite3.connect(db) as connection:  # as an older arena stored it
        connection.execute(
            "UPDATE tournaments SET config = json_remove(config, '$.tournament.standin_rounds')"
        )
    document = shown(db, tid)
    assert document["standin_rounds"] == "count"
    crash = by_name(document)["Crash"]
    assert crash["forfeits"] == 0
    assert crash["points"] == sum(table_scores(db, "Crash"))
    export = arena("tournament", "export", tid, "--replay", "--db", str(db))
    head = json.loads(export.stdout.splitlines()[0])
    assert head["settings"]["standin_rounds"] == "count"
    verify = arena("tournament", "verify", tid, "--db", str(db))
    assert verify.returncode == 3, verify.stdout


def test_verify_fails_a_round_whose_decision_figures_were_changed_to_hide_a_forfeit(
    tmp_path: Path,
) -> None:
    db, tid = played(tmp_path)
    edited = tmp_path / "edited.db"
    shutil.copy(db, edited)
    with sqlite3.connect(edited) as connection:  # round 4: "Crash played it itself"
        connection.execute(
            "UPDATE rounds SET result = json_set(result, '$.stats.Crash.legal_first_try', 40,"
            " '$.stats.Crash.decisions', 43) WHERE round_no = 4"
        )
    assert by_name(shown(edited, tid))["Crash"]["forfeits"] == 9  # the edit, believed
    verify = arena("tournament", "verify", tid, "--db", str(edited))
    assert verify.returncode == 1, verify.stdout
    assert "table s1t1 round 4 (epoch 1): the record's decision figures of seat" in verify.stdout
    assert "(Crash)" in verify.stdout
    assert "actions not made automatically" in verify.stdout


def test_an_older_tournament_resumed_goes_on_counting_as_it_was_played(tmp_path: Path) -> None:
    """Interrupted by an arena from before forfeits (its stored config has no
    standin_rounds), resumed by this one: every round, old and new, counts as the table
    scored it, as the rounds before the interruption did."""
    db = tmp_path / "cup.db"
    file = cup(tmp_path, setting="\n[table]\npace_s = 0.02\n")
    code, err = ctrl_c_once_stored(["tournament", "run", str(file), "--db", str(db)], db)
    assert code == 130, err
    with sqlite3.connect(db) as connection:
        connection.execute(
            "UPDATE tournaments SET config = json_remove(config, '$.tournament.standin_rounds')"
        )
        (tid,) = connection.execute("SELECT id FROM tournaments").fetchone()
    resumed = arena("tournament", "resume", tid, "--db", str(db))
    assert resumed.returncode == 0, resumed.stderr
    document = shown(db, tid)
    assert document["status"] == "finished"
    assert document["standin_rounds"] == "count"
    crash = by_name(document)["Crash"]
    assert crash["rounds"] == 10
    assert crash["forfeits"] == 0
    assert crash["points"] == sum(table_scores(db, "Crash"))
