"""The mistakes ``arena tournament`` reports in one line (exit status 2).

Below the command's modules (``tournaments.cli`` and ``tournaments.cli_verify`` both
raise them), and light: the parser is built for every ``arena`` command.
"""

from __future__ import annotations

from pathlib import Path

from arena.errors import ArenaError

__all__ = ["TournamentCommandError", "sqlite_problem"]


class TournamentCommandError(ArenaError):
    """A mistake naming a tournament or a file (one line, exit status 2)."""


def sqlite_problem(db: Path, exc: Exception) -> str:
    """One line for an SQLite error reading ``db``: damage said as damage (a flipped
    byte, a broken page), anything else (locked, read-only, a full disk) as it is."""
    import sqlite3  # only when there is a problem to say

    damaged = not isinstance(exc, sqlite3.OperationalError) or "decode" in str(exc)
    if damaged:
        return f"{db}: the tournament database is damaged ({exc})"
    return f"{db}: {exc}"
