"""Watching the processes a test started, and the tournament store they write (Linux's
/proc): shared by the tests that kill, signal and count arena processes."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path


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
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[1].startswith("Z"))


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
