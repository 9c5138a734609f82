"""``verify ID`` re-plans the schedule from the stored config and seed: a whole table
match removed from the store fails (or, in the last stage, is never verified)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rosters import roster
from test_tournament_verify import arena, only_id, verify
from test_tournament_verify_gaps import tampered

FOUR = """
[tournament]
name = "Four"
format = "quick"
seed = "0x0123456789abcdef0123456789abcdef"
""" + roster(4)


def without_table(table: str) -> list[str]:
    """SQL removing one table match and all it stored (the last statement must change)."""
    match = f"(SELECT id FROM table_matches WHERE table_id = '{table}')"
    rounds = f"(SELECT id FROM rounds WHERE table_match_id IN {match})"
    return [
        "PRAGMA foreign_keys = OFF",
        f"DELETE FROM faults WHERE round_id IN {rounds}",
        f"DELETE FROM gift_outcomes WHERE table_match_id IN {match}",
        f"DELETE FROM match_lines WHERE table_match_id IN {match}",
        f"DELETE FROM rounds WHERE table_match_id IN {match}",
        f"DELETE FROM table_matches WHERE table_id = '{table}'",
    ]


@pytest.fixture
def four(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, str]:
    file = tmp_path / "four.toml"
    file.write_text(FOUR, encoding="utf-8")
    db = tmp_path / "four.db"
    code, _, err = arena(capsys, "tournament", "run", str(file), "--db", str(db))
    assert code == 0, err
    return db, only_id(db, capsys)


def test_the_whole_schedule_stored_verifies(
    four: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = four
    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 0, said


def test_a_table_match_removed_before_the_last_stage_fails(
    four: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = four
    code, said = tampered(db, tid, capsys, *without_table("s2t1"))
    assert code == 1, said
    assert "stage 2: table s2t1" in said
    assert "is missing: the schedule plays it and later stages were played" in said


def test_a_table_match_removed_from_the_last_stage_is_never_verified(
    four: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = four
    code, said = tampered(db, tid, capsys, *without_table("s4t1"))  # stage 4's only table
    assert code == 3, said
    assert "stage 4 of the schedule never played" in said
