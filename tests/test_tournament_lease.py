"""Who plays a tournament (tournaments/lease.py): a lock the kernel lets go of when its
process dies, so a crashed run shows as interrupted and a second run is refused."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import REPO
from rosters import roster

from arena.cli import main
from tournaments.lease import RunLease, TournamentBusy, is_played, lock_path

HOLD = """
import sys, time
from pathlib import Path
from tournaments.lease import RunLease
with RunLease(Path(sys.argv[1]), "t-1"):
    print("held", flush=True)
    time.sleep(60)
"""


def holder(db: Path) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(db)], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    assert process.stdout.readline() == "held\n"
    return process


def test_a_lease_held_by_a_live_process_refuses_a_second_and_goes_when_it_dies(
    tmp_path: Path,
) -> None:
    db = tmp_path / "arena.db"
    process = holder(db)
    try:
        assert is_played(db, "t-1")
        assert not is_played(db, "t-2")  # another tournament in the same file
        with pytest.raises(TournamentBusy, match=rf"t-1 is being played .*pid {process.pid}"):
            RunLease(db, "t-1").__enter__()
    finally:
        process.send_signal(signal.SIGKILL)
        process.communicate()
    assert lock_path(db, "t-1").exists()  # left behind by kill -9 ...
    assert not is_played(db, "t-1")  # ... and no one holds it
    with RunLease(db, "t-1"):
        assert is_played(db, "t-1")
    assert not lock_path(db, "t-1").exists()  # a clean end removes it
    assert not is_played(db, "t-1")


def test_a_lease_is_let_go_on_an_exception(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    with pytest.raises(KeyboardInterrupt), RunLease(db, "t-9"):
        raise KeyboardInterrupt
    started = time.monotonic()
    with RunLease(db, "t-9"):  # at once: nothing still holds it
        assert time.monotonic() - started < 1


def as_any_user() -> list[str]:
    """A command prefix under which file permissions bind this test's processes, as
    they bind any user: for root, its capabilities to override them dropped."""
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search"]


def test_a_lock_file_resume_cannot_write_is_one_line_and_exit_2(tmp_path: Path) -> None:
    cup = tmp_path / "cup.toml"
    cup.write_text('[tournament]\nname = "Cup"\nseed = 5\n' + roster(3), encoding="utf-8")
    db = tmp_path / "cup.db"
    assert main(["tournament", "run", str(cup), "--db", str(db)]) == 0
    with sqlite3.connect(db) as connection:  # as if it had been interrupted
        connection.execute("UPDATE tournaments SET status = 'interrupted'")
        (tid,) = connection.execute("SELECT id FROM tournaments").fetchone()
    lock = lock_path(db, tid)
    lock.write_text("")
    lock.chmod(0)  # another user's, say: this one may not open it

    def arena(*argv: str) -> subprocess.CompletedProcess[str]:
        command = [*as_any_user(), sys.executable, "-m", "arena.cli", "tournament", *argv]
        return subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)

    resumed = arena("resume", tid, "--db", str(db))
    assert resumed.returncode == 2, resumed.stderr
    (line,) = resumed.stderr.splitlines()
    assert line == (
        f"arena: error: {lock}: cannot use the lock file of tournament {tid} (Permission "
        "denied): a run writes it beside the database; fix its permissions (or remove it, "
        "if no process plays the tournament)"
    )
    listed = arena("list", "--db", str(db))  # who plays it cannot be told: as stored
    assert listed.returncode == 0, listed.stderr
    assert f"{tid}  interrupted" in listed.stdout
    with sqlite3.connect(db) as connection:
        assert connection.execute("SELECT status FROM tournaments").fetchone() == ("interrupted",)
