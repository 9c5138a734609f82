"""``arena tournament show`` of a tournament another process is playing (issue 12).

Two real processes on one SQLite file: ``arena tournament run`` writes rounds (WAL)
while ``arena tournament show ID --json`` reads the leaderboard so far. The run is then
stopped with Ctrl-C (SIGINT: after the current round) and left resumable.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ARENA = (sys.executable, "-m", "arena.cli", "tournament")
NAMES = ("Ann", "Bob", "Cid")


def cup(tmp_path: Path) -> Path:
    """Three agents, one 20-round match, paced: it lasts. (Three, so that every agent
    has played by the time it is shown: the leaderboard lists agents with rounds.)"""
    file = tmp_path / "cup.toml"
    roster = "".join(
        f'[[agents]]\nname = "{name}"\ntype = "{kind}"\n\n'
        for name, kind in zip(NAMES, ("greedy", "heuristic", "random"), strict=True)
    )
    file.write_text(
        '[tournament]\nname = "long cup"\nformat = "championship"\nseed = 3\n\n'
        f"{roster}[table]\npace_s = 0.005\n"
    )
    return file


def stored(db: Path) -> tuple[str | None, int]:
    """The tournament's id and its rounds stored so far (none yet: None, 0)."""
    if not db.exists():
        return None, 0
    try:
        with sqlite3.connect(db) as connection:
            row = connection.execute("SELECT id FROM tournaments").fetchone()
            rounds = connection.execute("SELECT count(*) FROM rounds").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is being made
        return None, 0
    return (None if row is None else str(row[0])), int(rounds)


def test_show_reads_the_leaderboard_of_a_tournament_another_process_plays(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arena.db"
    run = subprocess.Popen(
        [*ARENA, "run", str(cup(tmp_path)), "--db", str(db)],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        tid, rounds = None, 0
        while time.monotonic() < deadline and (tid is None or rounds < 3):
            time.sleep(0.05)
            tid, rounds = stored(db)
        assert tid is not None
        assert rounds >= 3
        shown = subprocess.run(
            [*ARENA, "show", tid, "--json", "--db", str(db)],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        assert run.poll() is None  # the run still plays while it is shown
        board = json.loads(shown.stdout)
        assert board["tournament"] == tid
        assert board["status"] == "running"
        assert 0 < board["rounds"] < 20
        assert sorted(agent["name"] for agent in board["agents"]) == sorted(NAMES)
        for agent in board["agents"]:
            assert isinstance(agent["points"], int)
            assert isinstance(agent["rounds"], int)
        assert sum(agent["rounds"] for agent in board["agents"]) == 3 * board["rounds"]
        assert all(agent["rounds"] == board["rounds"] for agent in board["agents"])
        os.kill(run.pid, signal.SIGINT)  # stops after the current round
        assert run.wait(60) == 130
    finally:
        if run.poll() is None:
            run.kill()
            run.wait(10)
    final = subprocess.run(
        [*ARENA, "show", tid, "--json", "--db", str(db)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    after = json.loads(final.stdout)
    assert after["status"] == "interrupted"
    assert after["rounds"] >= board["rounds"]
