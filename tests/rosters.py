"""The roster the tournament tests share, as a tournament file's ``[[agents]]`` text, and
a tournament of it played into a store."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Final

AGENTS: Final = (("Ann", "greedy"), ("Bob", "heuristic"), ("Cid", "random"), ("Dee", "greedy"))
"""Ann, Bob, Cid and Dee: three kinds of scripted agent, one of them twice."""


def roster(count: int = 4) -> str:
    """The ``[[agents]]`` tables of the first ``count`` agents of :data:`AGENTS`."""
    return "".join(
        f'\n[[agents]]\nname = "{name}"\ntype = "{kind}"\n' for name, kind in AGENTS[:count]
    )


def played_cup(folder: Path, *, seed: int | None = None) -> tuple[Path, str]:
    """A finished standard tournament of the first three agents (10 rounds) played by
    ``arena tournament run`` into ``folder/played.db``, every page in the file (no
    write-ahead log beside it): the file and the tournament's id. ``seed``: a fixed one
    (small, so ``verify`` calls it not verifiable), else one drawn."""
    from arena.cli import main

    cup = folder / "cup.toml"
    fixed = "" if seed is None else f"seed = {seed}\n"
    cup.write_text(
        f'[tournament]\nname = "Cup"\nformat = "standard"\n{fixed}' + roster(3),
        encoding="utf-8",
    )
    db = folder / "played.db"
    assert main(["tournament", "run", str(cup), "--db", str(db)]) == 0
    with sqlite3.connect(db) as connection:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        (tid,) = connection.execute("SELECT id FROM tournaments").fetchone()
    return db, str(tid)
