"""What ``arena tournament verify`` must not let pass (issue 13's acceptance review): a
round a viewer gift changed (tournaments are ranked), a round or a duplicate seating
missing from the store or from an export, a garbled stored seed, a ``rounds.seed``
column that disagrees with the round's header, and what the report says when a seed
is not in the file or too small."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from rosters import roster
from test_between_rounds import NAMES, SEED, TABLE, gift, play
from test_tournament_verify import AGENTS, arena, only_id, verify

from gifts.events import GiftEffect


def run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    *,
    fmt: str = "quick",
    extra: str = "",
) -> tuple[Path, str]:
    """A finished tournament of the three agents, in its own file, and its id."""
    file = tmp_path / f"{fmt}.toml"
    file.write_text(f'[tournament]\nname = "Gaps"\nformat = "{fmt}"\n{extra}{AGENTS}')
    db = tmp_path / f"{fmt}.db"
    code, _, err = arena(capsys, "tournament", "run", str(file), "--db", str(db))
    assert code == 0, err
    return db, only_id(db, capsys)


def exported(db: Path, tid: str, capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code, out, err = arena(capsys, "tournament", "export", tid, "--replay", "--db", str(db))
    assert code == 0, err
    return [json.loads(line) for line in out.splitlines()]


def verify_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[dict[str, Any]]
) -> tuple[int, str]:
    file = tmp_path / "edited.jsonl"
    file.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    return verify(capsys, "--from-file", str(file))


def tampered(db: Path, tid: str, capsys: pytest.CaptureFixture[str], *sql: str) -> tuple[int, str]:
    copy = db.with_name("copy.db")
    copy.write_bytes(db.read_bytes())
    with sqlite3.connect(copy) as connection:
        for statement in sql:
            changed = connection.execute(statement).rowcount
        assert changed >= 1, sql[-1]  # the last statement is the one that must change rows
    return verify(capsys, tid, "--db", str(copy))


def without_round(lines: list[dict[str, Any]], table: str, round_no: int) -> list[dict[str, Any]]:
    """The export with one round gone: its lines and its entry in the tournament line."""
    head, *rest = lines
    for entry in head["tables"]:
        if entry["table"] == table:
            entry["rounds"] = [pair for pair in entry["rounds"] if pair[0] != round_no]
    kept = [line for line in rest if _place(line) != (table, round_no)]
    for line in kept:  # as a forger would: the match ends after the round before
        event = line.get("event")
        if event is not None and event["table"] == table and event["round"] == round_no:
            event["round"] = round_no - 1
    return [head, *kept]


def _place(line: dict[str, Any]) -> tuple[Any, Any] | None:
    """The table and round a line of a round belongs to (None: the match's own events)."""
    event = line.get("event")
    if event is None:
        return line.get("table"), line.get("round")
    if str(event["type"]).startswith("match_"):
        return None
    return event["table"], event["round"]


# --- 1. a gift changed a round ------------------------------------------------------------


@pytest.mark.parametrize("effect", [GiftEffect.RESHUFFLE, GiftEffect.ROLE_SWAP])
async def test_a_round_a_gift_changed_fails_tournaments_are_ranked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], effect: GiftEffect
) -> None:
    played = await play(tmp_path, [gift(0, effect, 1 if effect is GiftEffect.ROLE_SWAP else None)])
    text = str(SEED)
    header = {
        "kind": "tournament",
        "tournament": "t-gifted",
        "name": "gifted",
        "status": "finished",
        "settings": {"format": "daily", "landlord_policy": "bid", "duplicate": "off"},
        "seeds": {
            "verifiable": False,
            "epochs": [
                {
                    "epoch": 1,
                    "commitment": hashlib.sha256(text.encode()).hexdigest(),
                    "verifiable": False,
                    "seed": text,
                    "committed_at": "x",
                    "revealed_at": "y",
                }
            ],
        },
        "tables": [
            {
                "table": TABLE,
                "deal_table": TABLE,
                "stage": "s1",
                "players": list(NAMES),
                "status": "finished",
                "rounds": [[1, 1], [2, 1]],
            }
        ],
    }
    export = tmp_path / "gifted.jsonl"
    export.write_text(json.dumps(header) + "\n" + played.path.read_text(encoding="utf-8"))
    code, said = verify(capsys, "--from-file", str(export))
    assert code == 1, said
    assert (
        f"✗ table {TABLE} round 2 (epoch 1): tournaments are ranked: no gift may change a round"
        in said
    )
    assert effect.value in said
    assert f"table {TABLE} round 1 " not in said  # the round before the gift is fine


# --- 2. missing rounds and seatings -------------------------------------------------------


def test_a_round_deleted_from_the_store_or_dropped_from_an_export_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run(tmp_path, capsys)
    with sqlite3.connect(db) as connection:
        (last,) = connection.execute("SELECT max(round_no) FROM rounds").fetchone()
    assert last >= 3

    def gone(round_no: int) -> tuple[str, str]:
        delete = f"(SELECT id FROM rounds WHERE round_no = {round_no})"
        code, said = tampered(
            db,
            tid,
            capsys,
            f"DELETE FROM faults WHERE round_id IN {delete}",
            f"DELETE FROM gift_outcomes WHERE round_id IN {delete}",
            f"DELETE FROM rounds WHERE round_no = {round_no}",
        )
        assert code == 1, said
        lines = without_round(exported(db, tid, capsys), "s1t1", round_no)
        code, from_file = verify_lines(tmp_path, capsys, lines)
        assert code == 1, from_file
        return said, from_file

    for said in gone(2):
        assert "✗ table s1t1: round(s) 2 missing" in said
    said, from_file = gone(last)  # the last one: the quick rule says the match went on
    assert f"round {last} is missing" in from_file
    assert "a finished quick match ends when a player has 3 round wins" in from_file
    # in the store, the lines told after it (its result) are left without their round
    assert f"✗ the stored lines are no whole replay: tournament {tid}" in said
    assert f"table s1t1 round {last} before its round_start" in said


def test_a_finished_standard_match_has_all_its_ten_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run(tmp_path, capsys, fmt="standard")
    lines = exported(db, tid, capsys)
    assert verify_lines(tmp_path, capsys, lines)[0] == 0
    code, said = verify_lines(tmp_path, capsys, without_round(lines, "s1t1", 10))
    assert code == 1
    assert "✗ table s1t1: a finished standard match has 10 rounds; this one has 9: round(s) 10" in (
        said
    )
    lines[0]["tables"][0]["status"] = "running"  # cut off: arena tournament finish
    code, said = verify_lines(tmp_path, capsys, without_round(lines, "s1t1", 10))
    assert code == 3, said  # never "verified": whether it played more cannot be told
    assert (
        "not verifiable: table s1t1 was cut off after 9 round(s), before its standard match "
        "ended (the tournament was finished early)"
    ) in said


def test_a_finished_daily_verifies_though_its_match_never_ends(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "daily.toml"
    file.write_text(f'[tournament]\nname = "Day"\nformat = "daily"\n{AGENTS}')
    db = tmp_path / "daily.db"
    assert arena(capsys, "tournament", "run", str(file), "--rounds", "2", "--db", str(db))[0] == 0
    tid = only_id(db, capsys)
    code, _, err = arena(capsys, "tournament", "finish", tid, "--db", str(db))
    assert code == 0, err
    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 0, said
    assert "2 round(s) verified" in said


def test_duplicate_groups_keep_every_seating_in_order_with_the_same_rounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run(tmp_path, capsys, fmt="standard", extra='duplicate = "rotations"\n')
    lines = exported(db, tid, capsys)
    head = lines[0]
    assert head["settings"] == {
        "format": "standard",
        "landlord_policy": "bid",
        "duplicate": "rotations",
        "standin_rounds": "forfeit",
    }
    assert [t["table"] for t in head["tables"]] == ["s1t1.1", "s1t1.2", "s1t1.3"]
    assert verify_lines(tmp_path, capsys, lines)[0] == 0

    dropped = dict(head, tables=[t for t in head["tables"] if t["table"] != "s1t1.2"])
    rest = [line for line in lines[1:] if line.get("table") != "s1t1.2"]
    code, said = verify_lines(tmp_path, capsys, [dropped, *rest])
    assert code == 1, said
    assert "✗ group s1t1: seating(s) s1t1.2 missing (duplicate rotations plays every deal in 3" in (
        said
    )

    swapped = json.loads(json.dumps(head))
    players = swapped["tables"][2]["players"]
    players[0], players[1] = players[1], players[0]
    code, said = verify_lines(tmp_path, capsys, [swapped, *lines[1:]])
    assert code == 1
    assert f"✗ table s1t1.3 seats {players}" in said

    shorter = json.loads(json.dumps(lines))
    shorter[0]["status"] = "running"
    shorter[0]["tables"][1]["status"] = "running"
    code, said = verify_lines(tmp_path, capsys, without_round(shorter, "s1t1.2", 10))
    assert code == 0, said  # a seating under way may lag a deal behind: not a failure
    shorter[0]["tables"][1]["status"] = "finished"
    code, said = verify_lines(tmp_path, capsys, without_round(shorter, "s1t1.2", 10))
    assert code == 1
    assert "✗ group s1t1: its finished seatings have different numbers of rounds" in said
    assert "s1t1.1 10, s1t1.2 9, s1t1.3 10" in said


# --- 3. and 4. the store's seeds ----------------------------------------------------------


def test_a_garbled_stored_seed_is_named_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run(tmp_path, capsys)
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE seeds SET revealed_at = NULL, seed = ''")
    for action in ("verify", "show"):
        code, out, err = arena(capsys, "tournament", action, tid, "--db", str(db))
        assert code in (1, 2), (action, out, err)
        said = out + err
        assert "Traceback" not in said
        assert f"tournament {tid}" in said, action
        assert "epoch 1" in said, action
        assert "'' is no seed" in said, action


def test_the_rounds_seed_column_must_agree_with_the_header(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run(tmp_path, capsys)
    code, said = tampered(db, tid, capsys, "UPDATE rounds SET seed = seed + 1 WHERE round_no = 2")
    assert code == 1, said
    assert "✗ table s1t1 round 2: the stored rounds.seed" in said
    assert "is not the header's seed" in said


# --- 5. what the report says --------------------------------------------------------------


def test_the_report_says_why_a_finished_tournament_is_not_verifiable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run(tmp_path, capsys, extra="seed = 42\n")
    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 3
    assert "not verifiable: a small seed (6 bits, epoch 1) could have been chosen" in said
    assert "(yet)" not in said

    lines = exported(db, tid, capsys)
    lines[0]["seeds"]["epochs"][0]["seed"] = None
    code, said = verify_lines(tmp_path, capsys, lines)
    assert code == 3
    assert "seed not in this file (not revealed" in said
    assert "under way" not in said

    del lines[0]["seeds"]
    code, said = verify_lines(tmp_path, capsys, lines)
    assert code == 2
    assert "a malformed tournament line: the tournament line has no key 'seeds'" in said
    assert "KeyError" not in said


def test_an_export_of_one_table_is_never_verified_as_the_whole_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    four = roster(4)
    file = tmp_path / "four.toml"
    file.write_text(f'[tournament]\nname = "Four"\nformat = "quick"\n{four}')
    db = tmp_path / "four.db"
    assert arena(capsys, "tournament", "run", str(file), "--db", str(db))[0] == 0
    tid = only_id(db, capsys)
    whole = exported(db, tid, capsys)
    assert whole[0]["partial"] is False
    assert verify_lines(tmp_path, capsys, whole)[0] == 0
    code, out, _ = arena(
        capsys, "tournament", "export", tid, "--replay", "--table", "s2t1", "--db", str(db)
    )
    assert code == 0
    one = tmp_path / "one.jsonl"
    one.write_text(out)
    assert json.loads(out.splitlines()[0])["partial"] is True
    code, said = verify(capsys, "--from-file", str(one))
    assert code == 3, said
    assert "the file holds only some of the tournament's table matches" in said
