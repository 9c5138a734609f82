"""Tractor through the game-neutral transports: real programs on real pipes and sockets.

Specification (issue 29, "agents in other processes and languages play Tractor"): a
subprocess agent and an HTTP agent on loopback, seated from a config through the agent
registry, play a Tractor match of four seats to its end with no fault; an illegal
follow is refused with the engine's own reason in REPLY_REJECTED and the same request
comes again, which the program, told why, answers legally; a program that crashes
mid-round is started again and is first told the round's DEAL (Tractor's replayed
notification) and nothing else of the past; a declaration that comes after its window
is a pass, never applied. And "from the docs alone": ``tests/programs/tractor_reader.py``,
written from docs/protocol-tractor.md only, plays matches of four and six seats with no
illegal reply.

The programs: ``tests/programs/tractor_reader.py`` (its moves) and
``tests/programs/tractor_bot.py`` (the same moves over stdin/stdout or HTTP, and the ways
a program goes wrong), both standard library only.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.config import parse_config
from arena.games.tractor.agents.base import read_play
from arena.games.tractor.engine import card_ids, check_follow
from arena.games.tractor.messages import PlayRequest, parse_message
from arena.runner import build_tables, open_tables, play_tables
from arena.table import FAULT_CATEGORIES, MatchSummary, Table

PROGRAMS = Path(__file__).resolve().parent / "programs"
READER = PROGRAMS / "tractor_reader.py"
BOT = PROGRAMS / "tractor_bot.py"
NO_FAULTS = dict.fromkeys(FAULT_CATEGORIES, 0)
SEED = 85


def program(*args: str) -> dict[str, Any]:
    """A subprocess seat's options running the Tractor test program."""
    return {"command": [sys.executable, str(BOT), *args]}


def config(
    seats: list[dict[str, Any]], *, players: int = 4, rounds: int = 1, **table: Any
) -> dict[str, Any]:
    """A Tractor match of ``rounds`` rounds (the round limit), the seats given first and
    random bots in the others."""
    named = [*seats]
    while len(named) < players:
        named.append({"name": f"Bot{len(named)}", "type": "random"})
    return {
        "game": "tractor",
        "rules": {"players": players, "round_limit": rounds},
        "match": {"rounds": rounds, "seed": SEED},
        # generous: a good answer takes milliseconds, but the machine may be loaded
        "table": {"decision_timeout_s": 10.0, "pace_s": 0.0, **table},
        "seats": named,
    }


async def play(data: dict[str, Any]) -> tuple[MatchSummary, Table]:
    """Build the table from the config (agents from the registry), play, close."""
    [table] = build_tables(parse_config(data), seed=SEED)
    await open_tables([table])
    [summary] = await play_tables([table], rounds=data["match"]["rounds"], seed=SEED)
    return summary, table


def received(record: Path) -> list[dict[str, Any]]:
    """What a program wrote down: ``{"pid", "from", "message"}``, in order."""
    return [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]


def from_arena(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [line["message"] for line in lines if line["from"] == "arena"]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Any]:
    """Start ``tractor_bot.py --http`` with the given switches: its URL; killed after."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str) -> str:
        process = subprocess.Popen(
            [sys.executable, str(BOT), "--http", *args], stdout=subprocess.PIPE, text=True
        )
        started.append(process)
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.strip().isdigit(), f"the server did not start (exit {process.poll()})"
        return f"http://127.0.0.1:{int(first)}/"

    yield start
    for process in started:
        process.kill()
        process.wait()
        assert process.stdout is not None
        process.stdout.close()


async def test_subprocess_and_http_programs_play_a_tractor_match_to_the_end(
    tmp_path: Path, served: Any
) -> None:
    records = {name: tmp_path / f"{name}.jsonl" for name in ("Piped", "Listed", "Served")}
    seats = [
        {
            "name": "Piped",
            "type": "subprocess",
            "options": program("--record", str(records["Piped"])),
        },
        {
            "name": "Served",
            "type": "http",
            "options": {"url": served("--record", str(records["Served"]))},
        },
        {
            "name": "Listed",
            "type": "subprocess",
            "options": {**program("--record", str(records["Listed"])), "legal_moves": True},
        },
    ]
    summary, _ = await play(config(seats))

    assert len(summary.rounds) == 1
    for name, record in records.items():
        assert summary.faults[name] == NO_FAULTS, name
        lines = received(record)
        told = [m["type"] for m in from_arena(lines)]
        assert told[0] == "DEAL"
        assert told[-3:] == ["ROUND_RESULT", "GAME_OVER", "MATCH_END"], name
        assert "TRUMP_LOCKED" in told
        assert "TRICK_WON" in told
        asked = [m for m in from_arena(lines) if m["type"].endswith("_REQUEST")]
        replies = [line["message"] for line in lines if line["from"] == "agent"]
        assert [r["request_id"] for r in replies] == [a["request_id"] for a in asked]
        plays = [m for m in asked if m["type"] == "PLAY_REQUEST"]
        listed = [m["legal_plays"] is not None for m in plays]
        # the seat that asked for its legal plays has them (but where too many to list)
        assert any(listed) if name == "Listed" else not any(listed), name


@pytest.mark.parametrize("transport", ["subprocess", "http"])
async def test_an_illegal_follow_is_refused_with_the_engines_reason_then_answered_legally(
    transport: str, tmp_path: Path, served: Any
) -> None:
    record = tmp_path / "wrong.jsonl"
    args = ("--mode", "wrong-follow", "--record", str(record))
    if transport == "http":
        seat = {"name": "Wrong", "type": "http", "options": {"url": served(*args)}}
    else:
        seat = {"name": "Wrong", "type": "subprocess", "options": program(*args)}
    summary, _ = await play(config([seat]))

    assert summary.faults["Wrong"] == {**NO_FAULTS, "illegal": 1}
    lines = received(record)
    rejected = next(
        i for i, line in enumerate(lines) if line["message"]["type"] == "REPLY_REJECTED"
    )
    request, wrong, refusal, again, right = (
        line["message"] for line in lines[rejected - 2 : rejected + 3]
    )
    assert (wrong["type"], refusal["type"], again["type"]) == (
        "PLAY_RESPONSE",
        "REPLY_REJECTED",
        "PLAY_REQUEST",
    )
    # the reason is the engine's own, for these cards from this hand after this lead
    reading = read_play(parse_message(request, expect=PlayRequest))
    assert reading.lead is not None
    reason = check_follow(reading.hand, card_ids(wrong["cards"]), reading.lead, reading.trump)
    assert reason is not None
    assert refusal["reason"] == "illegal"
    assert refusal["detail"] == reason
    assert refusal["request_id"] == request["request_id"]
    assert refusal["retries_left"] == 2
    # the same request again, and a legal answer to it: nothing more is refused
    assert again == request
    assert right["request_id"] == request["request_id"]
    assert check_follow(reading.hand, card_ids(right["cards"]), reading.lead, reading.trump) is None
    assert [line for line in lines if line["message"]["type"] == "REPLY_REJECTED"] == [
        lines[rejected]
    ]


async def test_a_program_that_crashes_mid_round_is_told_the_deal_again_and_plays_on(
    tmp_path: Path,
) -> None:
    record = tmp_path / "crash.jsonl"
    once = tmp_path / "crashed"
    args = ("--mode", "crash", "--crash-on", "3", "--once", str(once), "--record", str(record))
    seat = {"name": "Crash", "type": "subprocess", "options": program(*args)}
    summary, table = await play(config([seat]))

    assert summary.faults["Crash"] == {**NO_FAULTS, "agent_error": 1}
    assert table.seats[0].agent.restarts == 1  # type: ignore[attr-defined]
    lines = received(record)
    first, second = dict.fromkeys(line["pid"] for line in lines)
    before = from_arena([line for line in lines if line["pid"] == first])
    after = from_arena([line for line in lines if line["pid"] == second])
    # the restarted program hears the round's DEAL, as dealt, and nothing else of the past
    assert after[0] == before[0]
    assert after[0]["type"] == "DEAL"
    assert after[1]["type"] == "REPLY_REJECTED"
    assert after[1]["reason"] == "agent_error"
    assert "exited with code 3" in after[1]["detail"]
    owed = [m for m in before if m["type"] == "PLAY_REQUEST"][-1]
    assert after[2] == owed  # then the request it owed, the same again
    assert after[-1]["type"] == "MATCH_END"


async def test_a_declaration_after_its_window_is_a_pass(tmp_path: Path) -> None:
    record = tmp_path / "slow.jsonl"
    args = ("--mode", "slow-declare", "--delay", "1.3", "--record", str(record))
    seat = {"name": "Slow", "type": "subprocess", "options": program(*args)}
    summary, _ = await play(config([seat], declaration_window_s=1.0))

    # one window missed (it answers the next in time): a timeout, and the table passed for it
    assert summary.faults["Slow"] == {**NO_FAULTS, "timeout": 1, "fallback": 1}
    told = from_arena(received(record))
    [first, *_] = [m for m in told if m["type"] == "DECLARE_REQUEST"]
    assert first["window"] == 1
    assert first["time_limit_ms"] == 1000  # the window, the same for every seat
    [refusal] = [m for m in told if m["type"] == "REPLY_REJECTED"]
    assert refusal["reason"] == "timeout"
    assert refusal["detail"] == "no reply before the window closed"
    assert refusal["request_id"] == first["request_id"]
    # its late declaration was never applied: no candidate of window 1 is its
    window_one = [m for m in told if m["type"] == "TRUMP_CANDIDATE" and m["window"] == 1]
    assert all(m["candidate"]["player"] != "Slow" for m in window_one)
    assert told[-1]["type"] == "MATCH_END"


@pytest.mark.parametrize("players", [4, 6])
async def test_a_program_written_from_the_protocol_page_alone_plays_with_no_illegal_reply(
    players: int,
) -> None:
    command = [sys.executable, str(READER)]
    seats: list[dict[str, Any]] = [
        {"name": "Reader0", "type": "subprocess", "options": {"command": command}},
        {"name": "Reader1", "type": "subprocess", "options": {"command": command}},
        {"name": "Heuristic", "type": "heuristic"},
    ]
    summary, _ = await play(config(seats, players=players, rounds=2 if players == 4 else 1))

    assert summary.rounds
    for name in ("Reader0", "Reader1"):
        assert summary.faults[name] == NO_FAULTS, name
        stats = summary.stats[name]
        assert stats["legal_first_try"] == stats["decisions"] > 0, name


@pytest.mark.parametrize("path", [READER, BOT])
def test_the_test_programs_need_only_the_standard_library(path: Path) -> None:
    """Like an agent in another language, they know nothing of the arena's code."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {
        alias.name.partition(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").partition(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
    }
    assert imported
    assert imported - {"tractor_reader"} <= sys.stdlib_module_names
