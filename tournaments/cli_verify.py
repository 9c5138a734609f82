"""``arena tournament verify``, and the seed lines ``show`` prints.

``verify ID`` builds the export's lines from the store (``tournaments.export``) and
checks them exactly as ``verify --from-file FILE`` checks a published export
(``tournaments.verify``): one code path, so what the organiser sees is what a third
party sees. Exit status: 0 verified, 1 something differs, 3 not verifiable (yet), 2 a
mistake naming the tournament or the file.

``verify ID`` also checks what only the store has: each round's ``rounds.seed`` column
against its header's seed, and a stored seed that does not parse is a failure.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from tournaments.cli_errors import TournamentCommandError, sqlite_problem
from tournaments.lease import shown_status

if TYPE_CHECKING:
    from tournaments.store import TournamentRow, TournamentStore
    from tournaments.verify import Verification

__all__ = ["EXIT_STATUS_HELP", "run_verify", "seed_lines"]

EXIT_STATUS_HELP: Final = (
    "exit status: 0 verified; 1 something differs (a seed, a deal, a move, a missing round "
    "or seating, a gift that changed a round, a stored round damaged); 2 a mistake (no "
    "such tournament or file, a file that is no tournament database or export); 3 "
    "nothing differs but not "
    "everything is verifiable (a seed not revealed yet or not in the file, a small seed, "
    "a partial export)"
)
"""What ``verify --help`` says of its exit status (the parser's epilog)."""


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


def _verify_stored(db: Path, tournament_id: str) -> Verification:
    import sqlite3

    from tournaments.export import export_lines
    from tournaments.store import DamagedSeed, DamagedStore, StoreError, TournamentStore
    from tournaments.verify import Verification, VerifyError, verify_export

    if not db.is_file():
        raise TournamentCommandError(f"{db}: no tournament database here (--db PATH)")
    try:
        with TournamentStore.for_reading(db) as store:
            named: tuple[str, str, str] = (tournament_id, "unreadable", "damaged")
            try:
                row = store.tournament(tournament_id)
                status = shown_status(store, row)
                named = (row.id, row.name, status)
                lines = export_lines(store, row, status, store.table_matches(row.id))
                verification = verify_export(lines, source=f"tournament {row.id} in {db}")
            except (DamagedSeed, DamagedStore) as exc:  # changed or damaged: a failure
                return Verification(*named, {}, [str(exc)])
            except sqlite3.DatabaseError as exc:  # a damaged page, text that is no UTF-8
                return Verification(*named, {}, [sqlite_problem(db, exc)])
            except VerifyError as exc:  # its own lines do not read back: changed, damaged
                return Verification(*named, {}, [f"the stored lines are no whole replay: {exc}"])
            verification.failures.extend(_column_problems(store, row.id))
            problems, never_played = _schedule_problems(store, row)
            verification.failures.extend(problems)
            verification.cut_off.extend(never_played)
            return verification
    except StoreError as exc:
        raise TournamentCommandError(str(exc)) from None


def _schedule_problems(store: TournamentStore, row: TournamentRow) -> tuple[list[str], list[str]]:
    """The table matches the schedule asks for, re-planned stage by stage from the
    stored config, seed and earlier stages, against those stored: a planned table
    missing, or seated with other players, before the last stage that was played is a
    failure (a table match removed); the stages after it are only "never played" (a
    tournament ended early by ``finish``, or its last stages removed: the store cannot
    tell which). The export holds no roster, so only ``verify ID`` checks this."""
    from tournaments.config import parse_stored_config
    from tournaments.deals import seating_tables
    from tournaments.runner import _history, match_points
    from tournaments.schedule import plan_stage

    config = parse_stored_config(row.config, source=f"tournament {row.id}")
    matches = store.table_matches(row.id)
    points = match_points(store, config.tournament.standin_rounds, config.game_info)  # as paired
    stored = {(str(m.stage), m.table_id): tuple(m.players) for m in matches}
    played_stages = {int(m.stage) for m in matches}
    last = max(played_stages, default=0)
    mode = config.tournament.duplicate
    problems: list[str] = []
    never: list[str] = []
    for stage in range(1, config.stage_count + 1):
        if stage > last:
            break
        history = _history(matches, before=stage, points=points)
        planned_stage = plan_stage(
            config.schedule_kind, stage, config.names, history, row.seed, size=config.seat_count
        )
        for planned in planned_stage:
            for table_id, players in seating_tables(planned.table_id, planned.players, mode):
                found = stored.get((str(stage), table_id))
                if found is None and stage < last:
                    problems.append(
                        f"stage {stage}: table {table_id} ({', '.join(players)}) is missing: "
                        "the schedule plays it and later stages were played"
                    )
                elif found is None and row.status == "finished":
                    never.append(
                        f"stage {stage}: table {table_id} was never played (ended early by "
                        "`arena tournament finish`, or removed: the store cannot tell)"
                    )
                elif found is not None and found != players:
                    problems.append(
                        f"stage {stage}: table {table_id} seats {', '.join(found)}, the "
                        f"schedule {', '.join(players)}"
                    )
    if row.status == "finished" and last < config.stage_count:
        stages = (
            f"stage {last + 1}"
            if last + 1 == config.stage_count
            else f"stages {last + 1} to {config.stage_count}"
        )
        never.append(
            f"{stages} of the schedule never played "
            "(ended early by `arena tournament finish`, or removed: the store cannot tell)"
        )
    return problems, never


def _column_problems(store: TournamentStore, tournament_id: str) -> list[str]:
    """Each round whose ``rounds.seed`` column is not its header's seed (the export
    holds the header only, so only ``verify ID`` can see it)."""
    rows = store.connection.execute(
        "SELECT m.table_id, r.round_no, r.seed, json_extract(r.header, '$.seed')"
        " FROM rounds r JOIN table_matches m ON m.id = r.table_match_id"
        " WHERE m.tournament_id = ? AND r.seed IS NOT json_extract(r.header, '$.seed')"
        " ORDER BY m.id, r.round_no",
        (tournament_id,),
    )
    return [
        f"table {table} round {round_no}: the stored rounds.seed {column} is not the "
        f"header's seed {header}"
        for table, round_no, column, header in rows
    ]


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
