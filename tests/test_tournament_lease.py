"""Who plays a tournament (tournaments/lease.py): a lock the kernel lets go of when its
process dies, so a crashed run shows as interrupted and a second run is refused."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

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
