"""Verifiable seeds through ``arena tournament`` (issue 13): the commitment published at
the start and the seed at the end (``show --json``, the retained MQTT leaderboard),
``verify`` by id and from an export passing on a finished tournament and failing on a
changed seed, a changed stored round or a changed move, and a daily's epochs."""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from rosters import roster

from arena.cli import main
from arena.table.match import derive_seed

AGENTS = roster(3)


def tournament_file(tmp_path: Path, *, fmt: str = "quick", seed: str = "") -> Path:
    file = tmp_path / f"{fmt}.toml"
    line = f"seed = {seed}\n" if seed else ""
    file.write_text(f'[tournament]\nname = "Seeded"\nformat = "{fmt}"\n{line}{AGENTS}')
    return file


def arena(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_one(tmp_path: Path, capsys: pytest.CaptureFixture[str], **file: str) -> tuple[Path, str]:
    """A finished tournament in its own file, and its id."""
    db = tmp_path / "t.db"
    code, _, err = arena(
        capsys, "tournament", "run", str(tournament_file(tmp_path, **file)), "--db", str(db)
    )
    assert code == 0, err
    return db, only_id(db, capsys)


def only_id(db: Path, capsys: pytest.CaptureFixture[str]) -> str:
    code, out, _ = arena(capsys, "tournament", "list", "--json", "--db", str(db))
    assert code == 0
    (listed,) = json.loads(out)["tournaments"]
    return str(listed["id"])


def shown(db: Path, tid: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code, out, _ = arena(capsys, "tournament", "show", tid, "--json", "--db", str(db))
    assert code == 0
    document: dict[str, Any] = json.loads(out)
    return document


def verify(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code, out, err = arena(capsys, "tournament", "verify", *argv)
    return code, out + err


def test_a_finished_tournament_reveals_its_seed_and_verifies_by_id_and_from_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run_one(tmp_path, capsys)
    seeds = shown(db, tid, capsys)["seeds"]
    (epoch,) = seeds["epochs"]
    assert seeds["verifiable"] is True  # no seed in the file: 128 fresh bits
    assert epoch["seed"].startswith("0x")
    assert len(epoch["seed"]) == 34
    assert hashlib.sha256(epoch["seed"].encode()).hexdigest() == epoch["commitment"]
    assert epoch["revealed_at"] is not None

    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 0, said
    assert "epoch 1: commitment" in said
    assert "matches it" in said
    assert "verified: all" in said

    export = tmp_path / "export.jsonl"
    code, out, _ = arena(capsys, "tournament", "export", tid, "--replay", "--db", str(db))
    assert code == 0
    export.write_text(out, encoding="utf-8")
    header = json.loads(out.splitlines()[0])
    assert header["tournament"] == tid
    assert header["seeds"]["epochs"][0]["seed"] == epoch["seed"]
    table = header["tables"][0]
    assert table["deal_table"] == table["table"] == "s1t1"
    assert [epoch for _, epoch in table["rounds"]] == [1] * len(table["rounds"])
    code, said = verify(capsys, "--from-file", str(export))
    assert code == 0, said
    rounds = len(table["rounds"])
    assert f"{rounds} round(s) verified" in said
    assert arena(capsys, "replay", str(export), "--quiet")[0] == 0  # still a replay


def test_verify_fails_on_a_changed_seed_round_or_move(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run_one(tmp_path, capsys)
    copy = tmp_path / "copy.db"

    def tampered(sql: str) -> tuple[int, str]:
        copy.write_bytes(db.read_bytes())
        with sqlite3.connect(copy) as connection:
            assert connection.execute(sql).rowcount == 1
        return verify(capsys, tid, "--db", str(copy))

    code, said = tampered("UPDATE seeds SET seed = '0x' || substr(seed, 4) || '0' WHERE epoch = 1")
    assert code == 1
    assert "✗ epoch 1: the revealed seed's SHA-256 is" in said
    assert "the seed was changed" in said
    assert "NOT verified" in said

    code, said = tampered(
        "UPDATE rounds SET header = json_set(header, '$.seed', 12345) WHERE round_no = 2"
    )
    assert code == 1
    assert "✗ table s1t1 round 2 (epoch 1):" in said

    hands = "json_extract(result, '$.result.deal.hands')"
    code, said = tampered(  # seats 0 and 1 swap their hands in the stored record
        "UPDATE rounds SET result = json_set(result, '$.result.deal.hands',"
        f" json_array(json_extract({hands}, '$[1]'), json_extract({hands}, '$[0]'),"
        f" json_extract({hands}, '$[2]'))) WHERE round_no = 3"
    )
    assert code == 1
    assert "✗ table s1t1 round 3 (epoch 1): the stored record's hand of seat 0" in said

    code, out, _ = arena(capsys, "tournament", "export", tid, "--replay", "--db", str(db))
    lines = out.splitlines()
    for index, raw in enumerate(lines):  # the first card play: one card fewer, or another
        line = json.loads(raw)
        if line["kind"] == "event" and line["event"]["type"] == "play":
            cards = line["event"]["data"]["cards"]
            line["event"]["data"]["cards"] = cards[1:] or (["♥3"] if cards == ["♠3"] else ["♠3"])
            lines[index] = json.dumps(line, ensure_ascii=False)
            changed = line["event"]["round"]
            break
    export = tmp_path / "moved.jsonl"
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, said = verify(capsys, "--from-file", str(export))
    assert code == 1
    assert f"✗ table s1t1 round {changed} (epoch 1): line" in said


def test_a_small_seed_verifies_its_rounds_but_says_it_is_not_verifiable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run_one(tmp_path, capsys, seed="42")
    seeds = shown(db, tid, capsys)["seeds"]
    assert seeds["verifiable"] is False
    assert seeds["epochs"][0]["seed"] == "42"
    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 3
    assert "seed 42 matches, but it is NOT VERIFIABLE: 6 bits" in said
    code, out, _ = arena(capsys, "tournament", "show", tid, "--db", str(db))
    assert "NOT verifiable" in out


def test_a_hex_seed_from_the_file_is_the_committed_seed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    given = "0x" + "5eed" * 8
    db, tid = run_one(tmp_path, capsys, seed=f'"{given}"')
    (epoch,) = shown(db, tid, capsys)["seeds"]["epochs"]
    assert epoch["seed"] == given
    assert verify(capsys, tid, "--db", str(db))[0] == 0
    bad = tournament_file(tmp_path, seed='"0xZZ"')
    code, _, err = arena(capsys, "tournament", "run", str(bad), "--db", str(tmp_path / "x.db"))
    assert code == 2
    assert "tournament.seed: '0xZZ' is not a seed" in err


def test_a_daily_commits_a_new_seed_each_session_and_reveals_the_last_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "daily.db"
    file = tournament_file(tmp_path, fmt="daily")
    assert arena(capsys, "tournament", "run", str(file), "--rounds", "2", "--db", str(db))[0] == 0
    tid = only_id(db, capsys)
    (first,) = shown(db, tid, capsys)["seeds"]["epochs"]
    assert first["seed"] is None  # the session is over, the day is not: still secret
    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 3
    assert "seed not revealed yet" in said
    assert "2 round(s) not verifiable yet" in said

    again = ["tournament", "resume", tid, "--rounds", "3", "--db", str(db)]
    assert arena(capsys, *again)[0] == 0
    revealed, second = shown(db, tid, capsys)["seeds"]["epochs"]
    assert revealed["commitment"] == first["commitment"]
    assert hashlib.sha256(revealed["seed"].encode()).hexdigest() == first["commitment"]
    assert second["seed"] is None
    assert second["commitment"] != first["commitment"]

    code, said = verify(capsys, tid, "--db", str(db))
    assert code == 3
    assert f"seed {revealed['seed']} matches it; 2 round(s) verified" in said
    assert "epoch 2: commitment" in said
    assert "3 round(s) not verifiable yet" in said

    with sqlite3.connect(db) as connection:  # the second session dealt from its own seed
        (secret,) = connection.execute("SELECT seed FROM seeds WHERE epoch = 2").fetchone()
        rounds = connection.execute("SELECT round_no, seed, epoch FROM rounds ORDER BY round_no")
        dealt = {no: (seed, epoch) for no, seed, epoch in rounds}
    assert dealt[3] == (derive_seed(int(secret, 16), "s1t1", 3), 2)
    assert dealt[2] == (derive_seed(int(revealed["seed"], 16), "s1t1", 2), 1)


def test_verify_names_what_it_cannot_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, tid = run_one(tmp_path, capsys)
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text("this is not json\n")
    plain = tmp_path / "plain.jsonl"
    _, out, _ = arena(capsys, "tournament", "export", tid, "--replay", "--db", str(db))
    plain.write_text("".join(out.splitlines(keepends=True)[1:]))  # no tournament line
    for argv, said in [
        (["t-nope", "--db", str(db)], "no tournament 't-nope'"),
        (["--from-file", str(tmp_path / "none.jsonl")], "none.jsonl: no such file"),
        (["--from-file", str(garbled)], "not a replay file"),
        (["--from-file", str(plain)], "not a tournament export"),
        ([], "give a tournament ID (in --db) or --from-file FILE"),
        ([tid, "--db", str(tmp_path / "none.db")], "no tournament database here"),
    ]:
        code, out = verify(capsys, *argv)
        assert code == 2, argv
        assert said in out, argv


async def test_the_retained_leaderboard_publishes_the_commitment_then_the_seed(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    db = tmp_path / "t.db"
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    argv = ["tournament", "run", str(tournament_file(tmp_path)), "--db", str(db), "--mqtt", url]
    seen: list[dict[str, Any]] = []
    async with aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="watcher") as client:
        await client.subscribe("ddz-arena/tournaments/+/leaderboard", qos=1)
        run = asyncio.create_task(asyncio.to_thread(main, argv))
        async with asyncio.timeout(60):
            async for message in client.messages:
                seen.append(json.loads(bytes(message.payload)))
                if seen[-1]["status"] != "running":
                    break
        assert await run == 0
    first, last = seen[0]["seeds"], seen[-1]["seeds"]
    assert first["epochs"][0]["seed"] is None  # while it plays: the commitment only
    assert last["epochs"][0]["commitment"] == first["epochs"][0]["commitment"]
    seed = last["epochs"][0]["seed"]
    assert hashlib.sha256(seed.encode()).hexdigest() == first["epochs"][0]["commitment"]
    assert last["verifiable"] is True
    assert seen[-1]["status"] == "finished"
