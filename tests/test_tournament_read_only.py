"""A tournament file that cannot be written (a read-only folder or medium, a published
copy): the commands that only read it (``list``, ``show``, ``export``, ``verify``) read
it as they would a writable one, and leave nothing beside it. A file whose schema is
older than the arena's cannot be brought up to date there: one line says so.

Permissions do not stop root, so as root each command runs without the capabilities
that override them (``setpriv``), as an ordinary user would."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from rosters import played_cup

from tournaments.store import MIGRATIONS

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished standard tournament of three scripted agents (a drawn seed, so that
    ``verify`` can say verified): its file and id."""
    return played_cup(tmp_path_factory.mktemp("read-only"))


def read_only_copy(played: Path, folder: Path) -> Path:
    """The store copied (through SQLite: whatever its log held is in the copy) into
    ``folder``, which is then made read-only, the file too."""
    folder.mkdir()
    copy = folder / "cup.db"
    with sqlite3.connect(played) as source, sqlite3.connect(copy) as target:
        source.backup(target)
    return read_only(copy)


def read_only(db: Path) -> Path:
    db.chmod(0o444)
    db.parent.chmod(0o555)
    return db


@pytest.fixture
def locked(tmp_path: Path) -> Iterator[Path]:
    """A folder to make read-only; writable again after the test (to be removed)."""
    folder = tmp_path / "published"
    yield folder
    if folder.exists():
        folder.chmod(0o755)


def as_reader(*argv: str) -> subprocess.CompletedProcess[str]:
    """``arena`` in a process of its own that file permissions bind (root's override
    dropped)."""
    unprivileged = (
        ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"] if os.geteuid() == 0 else []
    )
    return subprocess.run(
        [*unprivileged, sys.executable, "-m", "arena.cli", *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def test_the_reading_commands_read_a_store_nobody_may_write(
    played: tuple[Path, str], locked: Path
) -> None:
    db, tid = played
    copy = read_only_copy(db, locked)
    before = sorted(p.name for p in locked.iterdir())
    writing = as_reader("tournament", "resume", tid, "--db", str(copy))
    assert writing.returncode == 2  # the permissions do bind this process
    listed = as_reader("tournament", "list", "--db", str(copy))
    assert listed.returncode == 0, listed.stderr
    assert tid in listed.stdout
    shown = as_reader("tournament", "show", tid, "--db", str(copy), "--json")
    assert shown.returncode == 0, shown.stderr
    document = json.loads(shown.stdout)
    assert document["status"] == "finished"
    assert document["result_problems"] == []
    writable = subprocess.run(
        [sys.executable, "-m", "arena.cli", "tournament", "show", tid, "--db", str(db), "--json"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=True,
    )
    assert document == json.loads(writable.stdout)  # the same as from the writable file
    exported = as_reader("tournament", "export", tid, "--db", str(copy), "--csv")
    assert exported.returncode == 0, exported.stderr
    assert exported.stdout.splitlines()[0].startswith("rank,")
    verified = as_reader("tournament", "verify", tid, "--db", str(copy))
    assert verified.returncode == 0, verified.stdout + verified.stderr
    assert sorted(p.name for p in locked.iterdir()) == before  # nothing left beside it


def test_an_older_store_that_cannot_be_written_says_so_in_one_line(locked: Path) -> None:
    """A store of the schema before this arena's (its migrations but the last)."""
    locked.mkdir()
    older = len(MIGRATIONS) - 1
    db = locked / "old.db"
    with sqlite3.connect(db) as connection:
        connection.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        connection.execute("INSERT INTO schema_version (version) VALUES (?)", (older,))
        for migration in MIGRATIONS[:older]:
            connection.executescript(migration)
    read_only(db)
    listed = as_reader("tournament", "list", "--db", str(db))
    assert listed.returncode == 2
    assert listed.stderr.splitlines() == [
        f"arena: error: {db}: it cannot be written here, and its schema (version {older}) "
        f"is older than this arena's ({len(MIGRATIONS)}): copy it somewhere writable and "
        "read it there (it is brought up to date)"
    ]
