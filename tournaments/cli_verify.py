"""``arena tournament verify``, and the seed lines ``show`` prints.

``verify ID`` builds the export's lines from the store (``tournaments.export``) and
checks them exactly as ``verify --from-file FILE`` checks a published export
(``tournaments.verify``): one code path, so what the organiser sees is what a third
party sees. Exit status: 0 verified, 1 something differs, 3 not verifiable (yet), 2 a
mistake naming the tournament or the file.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from tournaments.cli import TournamentCommandError

__all__ = ["run_verify", "seed_lines"]


def run_verify(args: argparse.Namespace) -> int:
    """Check a tournament by id (in ``--db``) or a published export (``--from-file``);
    print the report; the exit status."""
    from tournaments.verify import VerifyError, verify_export

    if (args.tournament_id is None) == (args.from_file is None):
        raise TournamentCommandError(
            "verify: give a tournament ID (in --db) or --from-file FILE (an export), one of them"
        )
    try:
        if args.from_file is not None:
            with _opened(args.from_file) as handle:
                verification = verify_export(handle, source=str(args.from_file))
        else:
            verification = _verify_stored(args.db, args.tournament_id)
    except VerifyError as exc:
        raise TournamentCommandError(str(exc)) from None
    print("\n".join(verification.report()))
    return verification.exit_code


def _verify_stored(db: Path, tournament_id: str) -> Any:
    from tournaments.cli import _status
    from tournaments.export import export_lines
    from tournaments.store import StoreError, TournamentStore
    from tournaments.verify import verify_export

    if not db.is_file():
        raise TournamentCommandError(f"{db}: no tournament database here (--db PATH)")
    try:
        with TournamentStore(db, create=False) as store:
            row = store.tournament(tournament_id)
            lines = export_lines(store, row, _status(store, row), store.table_matches(row.id))
            return verify_export(lines, source=f"tournament {row.id} in {db}")
    except StoreError as exc:
        raise TournamentCommandError(str(exc)) from None


@contextmanager
def _opened(path: Path) -> Iterator[IO[bytes]]:
    """The export, open; a missing or unreadable file is one clear line."""
    if path.is_dir():
        raise TournamentCommandError(f"--from-file: {path}: is a folder, not an export")
    try:
        with path.open("rb") as handle:
            yield handle
    except FileNotFoundError:
        raise TournamentCommandError(f"--from-file: {path}: no such file") from None
    except OSError as exc:
        raise TournamentCommandError(f"--from-file: {path}: cannot read: {exc}") from None


def seed_lines(seeds: dict[str, Any]) -> list[str]:
    """The committed seeds as ``show`` prints them under the leaderboard."""
    epochs = seeds["epochs"]
    if not epochs:
        return ["seed: none committed"]
    worth = (
        "verifiable (arena tournament verify)"
        if seeds["verifiable"]
        else "NOT verifiable: a seed under 128 bits could have been chosen by trying seeds"
    )
    lines = [f"seeds: {worth}"]
    for epoch in epochs:
        shown = (
            f"seed {epoch['seed']} (revealed {epoch['revealed_at']})"
            if epoch["seed"] is not None
            else "seed secret until the epoch is over"
        )
        lines.append(
            f"  epoch {epoch['epoch']}: commitment sha256 {epoch['commitment']} "
            f"(committed {epoch['committed_at']}); {shown}"
        )
    return lines
