"""A tournament file damaged on disk (bytes flipped, as a failing disk or a careless
edit does): ``show``, ``export`` and ``list`` say in one line what is damaged, exit
status 2, and ``verify`` reports the damaged round as a failure (exit 1), never a
traceback. A file that is no SQLite database at all is one line too."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest
from rosters import played_cup

from arena.cli import main

DAMAGED = re.compile(r"cup\.db: round (\d+) of table (s\d+t\d+) is damaged \(.+\)")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A finished standard tournament of three scripted agents (10 rounds), its file
    and id; each test damages a copy."""
    return played_cup(tmp_path_factory.mktemp("damaged"), seed=5)


def copy_of(played: tuple[Path, str], tmp_path: Path) -> tuple[Path, str]:
    db, tid = played
    copy = tmp_path / "cup.db"
    copy.write_bytes(db.read_bytes())
    return copy, tid


def flip(db: Path, found: bytes, put: bytes) -> None:
    """Change the first ``found`` in the file's bytes to ``put`` (as long): no SQL, as
    a disk would."""
    data = db.read_bytes()
    assert len(found) == len(put)
    at = data.index(found)
    db.write_bytes(data[:at] + put + data[at + len(found) :])


def round_of(db: Path, round_id: int) -> tuple[str, int]:
    with sqlite3.connect(db) as connection:
        table, number = connection.execute(
            "SELECT m.table_id, r.round_no FROM rounds r"
            " JOIN table_matches m ON m.id = r.table_match_id WHERE r.id = ?",
            (round_id,),
        ).fetchone()
    return str(table), int(number)


@pytest.mark.parametrize(
    "action",
    [
        ["show"],
        ["show", "--json"],
        ["export", "--csv"],
        ["export", "--json"],
        ["export", "--replay"],
    ],
    ids=["show", "show-json", "csv", "json", "replay"],
)
def test_a_result_that_is_no_utf8_any_more_is_named_in_one_line(
    played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str], action: list[str]
) -> None:
    db, tid = copy_of(played, tmp_path)
    flip(db, b'"scores"', b'"sc\xffres"')  # one byte in a round's stored result
    assert main(["tournament", action[0], tid, *action[1:], "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert DAMAGED.search(err), err
    assert "its result does not read back" in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_result_with_a_changed_key_is_damage_named_by_show(
    played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Still JSON, but no round record: damage all the same."""
    db, tid = copy_of(played, tmp_path)
    flip(db, b'"scores"', b'"scorez"')
    assert main(["tournament", "show", tid, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert DAMAGED.search(err), err
    assert "its result is no round record: KeyError" in err


def test_resuming_a_tournament_with_a_damaged_round_names_it(
    played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = copy_of(played, tmp_path)
    flip(db, b'"scores"', b'"scorez"')
    with sqlite3.connect(db) as connection:  # as if it had been interrupted
        connection.execute("UPDATE tournaments SET status = 'interrupted'")
    assert main(["tournament", "resume", tid, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert DAMAGED.search(err), err
    assert "Traceback" not in err


def test_verify_reports_a_damaged_round_as_not_verified(
    played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = copy_of(played, tmp_path)
    with sqlite3.connect(db) as connection:  # the lines' format column: -3 (as flipped)
        connection.execute("UPDATE rounds SET lines_format = -3 WHERE id = 4")
    table, number = round_of(db, 4)
    assert main(["tournament", "verify", tid, "--db", str(db)]) == 1
    out = capsys.readouterr().out
    assert f"✗ {db}: round {number} of table {table} is damaged (lines of format -3" in out
    assert "NOT verified" in out
    assert "upgrade the arena" not in out


def test_verify_reports_flipped_bytes_as_not_verified(
    played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = copy_of(played, tmp_path)
    flip(db, b'"scores"', b'"sc\xffres"')
    assert main(["tournament", "verify", tid, "--db", str(db)]) == 1
    captured = capsys.readouterr()
    assert DAMAGED.search(captured.out), captured
    assert "NOT verified" in captured.out
    assert "Traceback" not in captured.err


@pytest.mark.parametrize("action", ["show", "verify", "export", "list"])
def test_a_file_that_is_no_sqlite_database_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], action: str
) -> None:
    db = tmp_path / "notes.db"
    db.write_bytes(b"these are my notes, not a database\n" * 200)
    args = {"show": ["show", "t-1"], "verify": ["verify", "t-1"], "list": ["list"]}.get(
        action, ["export", "t-1", "--csv"]
    )
    assert main(["tournament", *args, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert f"{db}: not a tournament database" in err
    assert len(err.strip().splitlines()) == 1
    assert db.read_bytes() == b"these are my notes, not a database\n" * 200  # untouched


def edit_round(db: Path, round_no: int, change: str) -> None:
    """Change one stored round's result with SQL, as someone editing the file would:
    ``change`` is a ``json_set`` of the ``result`` column (still a whole record)."""
    with sqlite3.connect(db) as connection:
        connection.execute(
            f"UPDATE rounds SET result = {change} WHERE round_no = ?",
            (round_no,),
        )


EDITS = {
    "a score": (
        "json_set(result, '$.result.scores[1]', 99)",
        "its stored scores ",
    ),
    "who won": (
        "json_set(result, '$.result.landlord_won',"
        " json(CASE WHEN json_extract(result, '$.result.landlord_won') THEN 'false' ELSE 'true'"
        " END))",
        "it says the landlord ",
    ),
    "a player's score": (
        "json_set(result, '$.scores.Ann', 48)",
        "its scores by player ",
    ),
}
"""An edit of a round's stored result, and what ``show`` says of it."""


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_show_flags_results_that_were_edited(
    played: tuple[Path, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: str,
) -> None:
    db, tid = copy_of(played, tmp_path)
    change, said = EDITS[edit]
    edit_round(db, 3, change)
    assert main(["tournament", "show", tid, "--db", str(db)]) == 1
    captured = capsys.readouterr()
    assert "Leaderboard" in captured.out  # still shown: the problem is said beside it
    assert "results: every round's stored scores follow" not in captured.out
    assert f"table s1t1 round 3: {said}" in captured.err
    assert f"the full check, every move and deal: arena tournament verify {tid}" in captured.err
    assert "Traceback" not in captured.err
    assert main(["tournament", "show", tid, "--json", "--db", str(db)]) == 1
    problems = json.loads(capsys.readouterr().out)["result_problems"]
    assert problems
    assert all(problem.startswith("table s1t1 round 3: ") for problem in problems)
    assert any(said in problem for problem in problems)


def test_show_says_what_it_checked_of_a_store_nobody_edited(
    played: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = copy_of(played, tmp_path)
    assert main(["tournament", "show", tid, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "results: every round's stored scores follow from its stored settlement" in out
    assert f"arena tournament verify {tid}" in out
    assert main(["tournament", "show", tid, "--json", "--db", str(db)]) == 0
    assert json.loads(capsys.readouterr().out)["result_problems"] == []
