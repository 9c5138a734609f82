"""Which process plays a tournament: a lock the operating system lets go of when it dies.

The store says ``running`` from the start of a run to its end, and a process killed with
``kill -9`` (or a power cut) never gets to say otherwise. So a run also holds an
exclusive lock (``flock``) on a small file beside the database,
``<db>.<tournament id>.lock``, which holds its process id. The kernel releases the lock
when the process ends, however it ends, so:

- ``list`` and ``show`` tell a tournament still being played from one whose process
  died (:func:`is_played`): the second is shown as ``interrupted``;
- a second ``run``/``resume`` of a tournament that is being played is refused at once
  (:class:`TournamentBusy`), rather than failing later on a round stored twice.

A lock file left behind by a dead process is harmless: nobody holds its lock. A lock
file the run cannot open or write (its permissions, another user's file, a read-only
folder) is a :class:`LockFileError` naming it: one line, like every store error.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING

from arena.errors import ArenaError

if TYPE_CHECKING:
    from tournaments.store import TournamentRow, TournamentStore

__all__ = [
    "LeaseError",
    "LockFileError",
    "RunLease",
    "TournamentBusy",
    "is_played",
    "lock_path",
    "shown_status",
]


class LeaseError(ArenaError):
    """The run cannot take its tournament's lease; the message says why."""


class TournamentBusy(LeaseError):
    """Another process plays this tournament now."""


class LockFileError(LeaseError):
    """The lock file cannot be opened or written (permissions, a read-only folder)."""


def lock_path(db: Path, tournament_id: str) -> Path:
    """The lock file of a tournament in the database ``db``."""
    return db.with_name(f"{db.name}.{tournament_id}.lock")


class RunLease:
    """Held while a process plays a tournament (a context manager)."""

    def __init__(self, db: Path, tournament_id: str) -> None:
        self.path = lock_path(db, tournament_id)
        self.tournament_id = tournament_id
        self._fd: int | None = None

    def __enter__(self) -> RunLease:
        try:
            return self._take()
        except OSError as exc:
            raise LockFileError(
                f"{self.path}: cannot use the lock file of tournament {self.tournament_id} "
                f"({exc.strerror or exc}): a run writes it beside the database; fix its "
                "permissions (or remove it, if no process plays the tournament)"
            ) from None

    def _take(self) -> RunLease:
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode(errors="replace").strip() or "?"
                os.close(fd)
                raise TournamentBusy(
                    f"tournament {self.tournament_id} is being played by another process "
                    f"(pid {holder}): stop that one first"
                ) from None
            except OSError:
                os.close(fd)
                raise
            if _same_file(fd, self.path):
                break
            os.close(fd)  # locked a file its last holder removed as it ended: again
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._fd is None:
            return
        with contextlib.suppress(OSError):  # a folder it cannot write: the file stays, harmless
            self.path.unlink(missing_ok=True)  # while still locked: no one takes a stale file
        os.close(self._fd)  # lets go of the lock
        self._fd = None


def _same_file(fd: int, path: Path) -> bool:
    try:
        return os.path.samestat(os.fstat(fd), os.stat(path))
    except FileNotFoundError:
        return False


def is_played(db: Path, tournament_id: str) -> bool:
    """Whether a live process holds the tournament's lease now; True when the lock file
    cannot be read (its permissions): who plays cannot be told, the stored status stands."""
    try:
        fd = os.open(lock_path(db, tournament_id), os.O_RDONLY)
    except FileNotFoundError:
        return False
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False


def shown_status(store: TournamentStore, row: TournamentRow) -> str:
    """The stored status, but ``interrupted`` for a ``running`` one no process plays: a
    run killed (``kill -9``, a crash) could not say so itself."""
    if row.status == "running" and not is_played(store.path, row.id):
        return "interrupted"
    return row.status
