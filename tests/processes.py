"""Watching the processes a test started, and the tournament store they write (Linux's
/proc): shared by the tests that kill, signal and count arena processes."""

from __future__ import annotations

import contextlib
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Final


def children(pid: int) -> list[int]:
    """The processes ``pid`` started, from any of its threads (/proc lists them per
    thread: the fork server is started from a thread)."""
    found: list[int] = []
    for thread in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            found.extend(int(child) for child in (thread / "children").read_text().split())
    return found


def workers_of(pid: int) -> list[int]:
    """The worker processes of the arena ``pid``: its fork server's children."""
    return [
        worker
        for child in children(pid)
        if "forkserver" in Path(f"/proc/{child}/cmdline").read_text()
        for worker in children(child)
    ]


def alive(pid: int) -> bool:
    """Running: not gone, and not a zombie (one whose parent was killed too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # it may end between the two looks: then its stat is gone
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[1]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return not state.startswith("Z")


def wait_for(condition: Callable[[], object], within_s: float, what: str) -> None:
    """Until ``condition()`` holds; fails with ``what`` after ``within_s``."""
    deadline = time.monotonic() + within_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def rounds_in(db: Path) -> int:
    """Rounds stored so far in a tournament database another process writes."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as connection:
            return int(connection.execute("SELECT count(*) FROM rounds").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


REPO: Final = Path(__file__).resolve().parent.parent


def ctrl_c_once_stored(argv: list[str], db: Path, rounds: int = 2) -> tuple[int, str]:
    """Run ``arena ARGV`` (a tournament writing ``db``) until ``rounds`` are stored, then
    send one SIGINT (a terminal's first Ctrl-C): its exit status and its stderr."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *argv],
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: rounds_in(db) >= rounds, 60, "no rounds stored")
        os.kill(process.pid, signal.SIGINT)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    return process.returncode, err
