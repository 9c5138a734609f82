"""Replays and the ``arena`` command: play, replay, schema, config errors, JSON logs.

Specification: the issue's "Replay: every round as JSON lines; `arena replay FILE`
prints a round and re-checks every move with the engine; the same seed and the same
scripted agents give an identical replay apart from timing fields", the CLI flags, the
config ("errors naming the bad key and the file") and structlog with table/round bound.
Everything runs in-process through :func:`arena.cli.main`, which returns the exit code.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.config import ArenaConfig, load_config, parse_config
from arena.errors import ConfigError
from arena.games.ddz.messages import MESSAGE_TYPES
from arena.replay import ReplayWriter, load_replay, strip_timing, verify_round
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from gifts.settings import GiftSettings, load_gift_settings

REPO = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = REPO / "config" / "arena.toml"


def record(path: Path, *, seed: int = 7, rounds: int = 2, extra: tuple[str, ...] = ()) -> Path:
    argv = ["play", "--no-live", "--rounds", str(rounds), "--seed", str(seed)]
    assert main([*argv, "--record", str(path), *extra]) == 0
    return path


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def timeless(path: Path) -> list[dict[str, Any]]:
    return list(strip_timing(path.read_text(encoding="utf-8").splitlines()))


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


# ─── recording ──────────────────────────────────────────────────────────────────────────


def test_play_records_every_round_as_json_lines(tmp_path: Path) -> None:
    lines = lines_of(record(tmp_path / "match.jsonl"))
    kinds = {line["kind"] for line in lines}
    assert kinds == {"round_start", "message", "event", "round_end"}
    starts = [line for line in lines if line["kind"] == "round_start"]
    assert [s["round"] for s in starts] == [1, 2]
    assert len([line for line in lines if line["kind"] == "round_end"]) == 2
    rounds = load_replay(tmp_path / "match.jsonl").rounds
    assert [(r.table, r.round) for r in rounds] == [("t1", 1), ("t1", 2)]
    for recorded in rounds:
        assert recorded.summary is not None
        assert any(e["type"] == "play" for e in recorded.events)
        verify_round(recorded)


def test_the_same_seed_gives_the_same_replay_apart_from_timing(tmp_path: Path) -> None:
    first = record(tmp_path / "a.jsonl", seed=13)
    second = record(tmp_path / "b.jsonl", seed=13)
    other = record(tmp_path / "c.jsonl", seed=14)
    assert timeless(first) == timeless(second)
    assert timeless(first) != timeless(other)
    assert any("t_ms" in line for line in lines_of(first))  # there was timing to strip


async def test_the_api_writes_the_same_replay_as_the_cli(tmp_path: Path) -> None:
    cli_file = tmp_path / "cli.jsonl"
    argv = ["play", "--no-live", "--rounds", "2", "--seed", "7", "--record", str(cli_file)]
    assert await asyncio.to_thread(main, argv) == 0  # main runs its own event loop
    api_file = tmp_path / "api.jsonl"
    config = parse_config({"match": {"rounds": 2, "seed": 7}, "table": {"pace_s": 0}})
    writer = ReplayWriter(api_file)
    try:
        summaries = await run_arena(config, seed=7, replay=writer)
    finally:
        writer.close()
    assert len(summaries[0].rounds) == 2
    assert timeless(api_file) == timeless(cli_file)


async def test_the_api_names_the_seat_whose_agent_cannot_be_built() -> None:
    """A library user gets the key and the seat (no file: the config may be no file)."""
    seats: list[dict[str, Any]] = [{"name": n} for n in ("A", "B", "C")]
    seats[1]["options"] = {"colour": "red"}
    config = ArenaConfig.model_validate({"seats": seats, "table": {"pace_s": 0}})
    sink = CollectingSink()
    with pytest.raises(ConfigError) as caught:
        await run_arena(config, seed=1, sinks=[sink])
    assert str(caught.value) == (
        "seats.1.options (seat 'B'): heuristic got unknown options: colour (it takes no options)"
    )
    assert sink.events == []


# ─── arena replay ───────────────────────────────────────────────────────────────────────


def test_replay_prints_the_rounds_and_the_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path / "match.jsonl")
    capsys.readouterr()
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "== table t1, round 1" in out
    assert "== table t1, round 2" in out
    assert " plays " in out
    assert out.count("every move legal, messages agree, scores match") == 2
    assert "✗" not in out


def test_replay_quiet_prints_only_the_verdicts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path / "match.jsonl")
    capsys.readouterr()
    assert main(["replay", "--quiet", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 2
    assert all(line.startswith("✓") for line in out)


def tamper(path: Path, change: Any) -> Path:
    """Apply ``change(lines)`` to a replay and write it next to the original."""
    lines = lines_of(path)
    change(lines)
    return write_lines(path.with_name("tampered.jsonl"), lines)


def round1_events(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        line["event"]
        for line in lines
        if line["kind"] == "event" and line["event"]["type"] == kind and line["event"]["round"] == 1
    ]


def test_a_tampered_play_fails_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    changed: list[int] = []

    def play_an_already_played_card(lines: list[dict[str, Any]]) -> None:
        plays = round1_events(lines, "play")
        gone = plays[0]["data"]["cards"][0]  # played in the first move: nobody holds it now
        plays[2]["data"]["cards"][0] = gone
        changed.append(plays[2]["seq"])

    path = tamper(record(tmp_path / "match.jsonl"), play_an_already_played_card)
    capsys.readouterr()
    assert main(["replay", str(path)]) != 0
    out = capsys.readouterr().out
    assert "✗ table t1 round 1" in out
    assert f"event {changed[0]}" in out
    assert "✓ table t1 round 2" in out  # the untouched round still checks


def test_a_tampered_result_score_fails_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change_the_score(lines: list[dict[str, Any]]) -> None:
        end = next(line for line in lines if line["kind"] == "round_end" and line["round"] == 1)
        end["summary"]["result"]["scores"][0] += 10

    path = tamper(record(tmp_path / "match.jsonl"), change_the_score)
    capsys.readouterr()
    assert main(["replay", "--quiet", str(path)]) != 0
    out = capsys.readouterr().out
    assert "✗ table t1 round 1" in out
    assert "scores" in out


def test_a_tampered_score_shown_by_replay_fails_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The scores `arena replay` prints come from the round_result event: a forged one
    must not be printed under a "scores match" verdict."""

    def change_the_shown_score(lines: list[dict[str, Any]]) -> None:
        [result] = round1_events(lines, "round_result")
        first = next(iter(result["data"]["scores"]))
        result["data"]["scores"][first] += 100
        result["data"]["result"]["scores"][0] += 100

    path = tamper(record(tmp_path / "match.jsonl"), change_the_shown_score)
    capsys.readouterr()
    code = main(["replay", str(path)])
    out = capsys.readouterr().out
    shown = [line for line in out.splitlines() if "r1] the " in line or "round 1:" in line]
    assert code != 0, shown
    assert "✗ table t1 round 1" in out


def test_a_missing_play_fails_the_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def drop_the_last_play(lines: list[dict[str, Any]]) -> None:
        last = round1_events(lines, "play")[-1]
        lines[:] = [line for line in lines if line.get("event") is not last]

    path = tamper(record(tmp_path / "match.jsonl"), drop_the_last_play)
    capsys.readouterr()
    assert main(["replay", "--quiet", str(path)]) != 0
    assert "before the engine finished the round" in capsys.readouterr().out


def test_an_unreadable_replay_is_an_error_naming_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path / "match.jsonl")
    with path.open("a", encoding="utf-8") as handle:
        handle.write("this is not json\n")
    count = len(path.read_text(encoding="utf-8").splitlines())
    capsys.readouterr()
    assert main(["replay", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:{count}" in err


def test_a_missing_or_empty_replay_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.jsonl"
    assert main(["replay", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    assert main(["replay", str(empty)]) != 0
    assert "no rounds" in capsys.readouterr().err


# ─── arena schema ───────────────────────────────────────────────────────────────────────


def test_schema_writes_one_schema_per_message_type(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "schemas" / "nested"
    assert main(["schema", str(target)]) == 0
    expected = {f"{t}.schema.json" for t in MESSAGE_TYPES} | {"messages.schema.json"}
    assert {p.name for p in target.iterdir()} == expected | {"events"}  # events: their test
    assert len(MESSAGE_TYPES) == 11
    for type_name in MESSAGE_TYPES:
        schema = json.loads((target / f"{type_name}.schema.json").read_text(encoding="utf-8"))
        assert schema["properties"]["type"].get("const") == type_name
        assert "type" in schema["required"]
    union = json.loads((target / "messages.schema.json").read_text(encoding="utf-8"))
    assert "oneOf" in union or "anyOf" in union
    printed = capsys.readouterr().out.split()
    assert len([p for p in printed if Path(p).parent == target]) == len(expected)


# ─── arena play ─────────────────────────────────────────────────────────────────────────


def test_play_help_describes_the_command_and_its_defaults(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The defaults it names are config/arena.toml's (which equals the built-in ones)."""
    with pytest.raises(SystemExit) as done:
        main(["play", "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps to the terminal
    documented = load_config(DEFAULT_CONFIG)
    assert (
        "Play a match: agents at each table (three for Dou Dizhu, four or six for Tractor)" in text
    )
    assert "--game NAME" in text
    assert "--players N" in text
    assert "config/arena.toml" in text
    assert f"rounds per table (default: {documented.match.rounds})" in text
    assert f"tables playing at once (default: {documented.match.tables})" in text
    assert f"(default: {documented.table.pace_s} on the live board, 0 in plain lines)" in text
    seats = ", ".join(f"{seat.name} ({seat.type})" for seat in documented.seats)
    assert f"Without a file: {seats} play {documented.match.rounds} rounds" in text


def test_play_prints_plain_lines(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--no-live", "--rounds", "1", "--seed", "5"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) > 20
    assert lines[0].startswith("[t1 r0] match:")
    assert any("── round 1 ──" in line for line in lines)
    assert any(" plays " in line for line in lines)
    assert lines[-1].startswith("[t1 r1] match over:")
    assert "seed 5" in captured.err
    assert main(["play", "--no-live", "--rounds", "1", "--seed", "5"]) == 0
    assert capsys.readouterr().out.splitlines() == lines  # same seed, same match


def test_play_several_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--no-live", "--rounds", "1", "--seed", "5", "--tables", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("match over") == 2
    assert "[t2 r1]" in out


def test_play_with_pace_still_finishes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--no-live", "--rounds", "1", "--seed", "5", "--pace", "0.0005"]) == 0
    assert "match over" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("level", "hint"),
    [("warning", "details in the log (stderr)"), ("error", "details with --log-level warning")],
)
def test_play_with_a_broken_agent_points_to_the_log_and_sums_up_its_faults(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str, hint: str
) -> None:
    path = tmp_path / "faulty.toml"
    path.write_text(
        SEATS.replace('name = "B"', 'name = "B"\ntype = "agents_for_tests:FaultyAgent"'),
        encoding="utf-8",
    )
    argv = ["play", "--no-live", "--rounds", "2", "--seed", "3", "--config", str(path)]
    assert main([*argv, "--log-level", level]) == 0
    lines = capsys.readouterr().out.splitlines()
    faults = [line for line in lines if "✗ B: agent failed" in line]
    assert faults[0].endswith(f"agent failed (2 retries left) — {hint}")
    assert not any(hint in line for line in faults[1:])  # once a match, not every line
    assert lines[-2].startswith("[t1 r2] match over: ")
    assert lines[-1].startswith("[t1 r2] B: ")
    assert "agent_error" in lines[-1]
    assert "a heuristic stand-in played" in lines[-1]


# ─── configuration ──────────────────────────────────────────────────────────────────────

SEATS = """
[[seats]]
name = "A"
[[seats]]
name = "B"
[[seats]]
name = "C"
"""


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("[table]\npace = 1\n", ["table.pace", "unknown key"], id="unknown-key"),
        pytest.param("[tabel]\npace_s = 1\n", ["tabel", "unknown key"], id="unknown-section"),
        pytest.param('[match]\nrounds = "many"\n', ["match.rounds"], id="wrong-type"),
        pytest.param("[table]\nmax_retries = -1\n", ["table.max_retries"], id="out-of-range"),
        pytest.param('[rules]\nbidding = "auction"\n', ["rules.bidding"], id="bad-choice"),
        pytest.param("[match\nrounds = 3\n", ["not valid TOML"], id="invalid-toml"),
        pytest.param(
            SEATS.replace('name = "B"', 'name = "B"\ntimeout_s = "slow"'),
            ["seats.1.timeout_s"],
            id="seat-field",
        ),
        pytest.param('[[seats]]\nname = "A"\n', ["seats"], id="too-few-seats"),
    ],
)
def test_a_broken_config_exits_2_naming_the_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: list[str]
) -> None:
    path = tmp_path / "broken.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["play", "--no-live", "--rounds", "1", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    for word in words:
        assert word in err


def test_a_missing_config_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "absent.toml"
    assert main(["play", "--no-live", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert "no such config file" in err


def test_an_unknown_agent_type_in_a_config_names_the_file_and_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "seats.toml"
    path.write_text(SEATS.replace('name = "B"', 'name = "B"\ntype = "alphazero"'), "utf-8")
    assert main(["play", "--no-live", "--rounds", "1", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert "alphazero" in err
    assert str(path) in err, err
    assert "seats.1.type" in err or "seats[1].type" in err, err


def test_load_config_raises_config_error_naming_file_and_key(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[table]\nauto_pass = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(path) in str(caught.value)
    assert "table.auto_pass" in str(caught.value)


def test_a_config_file_sets_the_match(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "match.toml"
    path.write_text(
        "[match]\nrounds = 2\nseed = 99\n[table]\npace_s = 0\n"
        + SEATS.replace('name = "A"', 'name = "Rand"\ntype = "random"'),
        encoding="utf-8",
    )
    replay = tmp_path / "r.jsonl"
    assert main(["play", "--no-live", "--config", str(path), "--record", str(replay)]) == 0
    captured = capsys.readouterr()
    assert "seed 99" in captured.err
    assert "Rand" in captured.out
    starts = [line for line in lines_of(replay) if line["kind"] == "round_start"]
    assert len(starts) == 2
    assert starts[0]["players"] == ["Rand", "B", "C"]


def test_the_default_config_file_equals_the_embedded_defaults() -> None:
    assert DEFAULT_CONFIG.is_file(), f"{DEFAULT_CONFIG} must exist: it documents the defaults"
    documented = load_config(DEFAULT_CONFIG)
    assert documented.model_copy(update={"gifts": {}}) == ArenaConfig()
    assert load_gift_settings(documented.gifts, source="arena.toml") == GiftSettings()


def test_git_ignores_what_the_readmes_commands_write_and_nothing_under_tests() -> None:
    """``arena play --record match.jsonl`` and ``arena schema schemas/`` write into the
    clone's folder; a replay under tests/data is test data and must stay tracked."""
    written = [
        "match.jsonl",
        "b.jsonl",
        "schemas/PLAY_REQUEST.schema.json",
        "arena.db",
        "arena.db-wal",
    ]
    kept = ["tests/data/replay-before-issue-7.jsonl", "tests/data/new.jsonl", "docs/x.jsonl"]
    done = subprocess.run(
        ["git", "check-ignore", "--no-index", "--verbose", "--non-matching", *written, *kept],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr  # 1: nothing ignored; else git failed
    ignored = {
        line.split("\t")[-1]
        for line in done.stdout.splitlines()
        if not line.startswith("::") and ":!" not in line.split("\t")[0]
    }
    assert ignored == set(written)


# ─── logging ────────────────────────────────────────────────────────────────────────────


def test_json_logs_carry_table_and_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "faulty.toml"
    path.write_text(
        SEATS.replace('name = "B"', 'name = "B"\ntype = "agents_for_tests:FaultyAgent"'),
        encoding="utf-8",
    )
    argv = ["play", "--no-live", "--rounds", "1", "--seed", "3", "--config", str(path)]
    assert main([*argv, "--log-format", "json"]) == 0
    err = capsys.readouterr().err
    records = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    rejected = [r for r in records if r.get("event") == "agent_reply_rejected"]
    assert rejected, err[:500]
    first = rejected[0]
    assert first["level"] == "warning"
    assert (first["table"], first["round"]) == ("t1", 1)
    assert (first["seat"], first["agent"]) == (1, "B")
    assert first["category"] == "agent_error"
    assert "timestamp" in first
    assert any(r.get("event") == "seat_replaced" and r.get("round") == 1 for r in records)
    other = [line for line in err.splitlines() if line and not line.startswith("{")]
    assert all(line.startswith("arena:") for line in other), other


def test_a_reader_that_stops_early_ends_the_command_quietly(tmp_path: Path) -> None:
    """``arena replay FILE | head`` is how people skim a long replay: when the reader
    leaves, the command stops with a SIGPIPE's status and no traceback."""
    replay = tmp_path / "long.jsonl"
    assert (
        main(["play", "--rounds", "40", "--seed", "3", "--no-live", "--record", str(replay)]) == 0
    )
    run_main = "from arena.cli import main; raise SystemExit(main())"
    reader = subprocess.Popen(
        [sys.executable, "-c", run_main, "replay", str(replay)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None
    assert reader.stderr is not None
    first = reader.stdout.readline()
    reader.stdout.close()  # the reader leaves, as head does after its lines
    status = reader.wait(timeout=60)
    errors = reader.stderr.read().decode()
    reader.stderr.close()
    assert first.startswith(b"== table t1, round 1")
    assert status == 141
    assert "Traceback" not in errors
    assert "BrokenPipeError" not in errors


def test_agents_are_not_told_the_seed_that_deals_every_hand(tmp_path: Path) -> None:
    """The match id in every message is stable for a seed but is not the seed: with the
    seed, an agent could deal every hand again with the open engine. A fresh seed is
    too wide to find by trying seeds against one's own 17 cards."""
    from arena.runner import new_seed
    from arena.table.match import match_id_of

    replay = tmp_path / "m.jsonl"
    assert (
        main(["play", "--rounds", "1", "--seed", "12345", "--no-live", "--record", str(replay)])
        == 0
    )
    sent = [
        line["message"]
        for line in map(json.loads, replay.read_text().splitlines())
        if line["kind"] == "message" and line["dir"] == "to_agent"
    ]
    assert sent
    assert {m["match_id"] for m in sent} == {match_id_of(12345)}
    assert "12345" not in match_id_of(12345)
    assert match_id_of(12345) != match_id_of(12346)
    assert max(new_seed() for _ in range(20)) >= 2**31
