"""Subprocess seats: a program in any language as an agent, JSON lines on stdin/stdout.

Specification (issue 8, "Seat types"): one process per seat per match, every message the
seat may see on its stdin, one a line; lines are capped in size; stderr goes to the log
with the seat named, bounded; a crash is a fault and the program is restarted for the
next decision (a bounded number of times, then the stand-in); a hung one is killed at
close; a program that cannot start is a clear error before the match. Real programs
(``tests/programs/stdio_bot.py``) play real matches: each match finishes, its replay
verifies, and the faults are counted by kind.
"""

from __future__ import annotations

import ast
import asyncio
import json
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest

from arena.agents import create_agent
from arena.agents.base import Agent
from arena.agents.lines import LineSplitter, LineTooLong
from arena.agents.process import SubprocessAgent
from arena.cli import main
from arena.config import parse_config
from arena.errors import AgentStartError, ConfigError
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.logs import EVENT_ATTRIBUTE
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.runner import build_tables, open_tables
from arena.table import MatchSummary, Table, TableSettings, play_match

BOT = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"
NO_FAULTS = {
    "timeout": 0,
    "empty": 0,
    "unparsable": 0,
    "truncated": 0,
    "illegal": 0,
    "agent_error": 0,
    "fallback": 0,
}


def bot(name: str, *args: str, **options: Any) -> SubprocessAgent:
    """A seat running the test program with these arguments."""
    return SubprocessAgent(name, command=[sys.executable, str(BOT), *args], **options)


async def play(
    tmp_path: Path,
    agents: list[Agent],
    *,
    rounds: int = 1,
    seed: int = 7,
    timeout_s: float = 3.0,
    settings: TableSettings | None = None,
    open_first: bool = True,
) -> MatchSummary:
    """Play a match, close the table, and check that every round of the replay verifies."""
    writer = ReplayWriter(tmp_path / "replay.jsonl")
    table = Table(
        agents,
        recorder=writer.for_table("t1"),
        timeouts=[timeout_s] * 3,
        settings=settings,
    )
    try:
        if open_first:
            await table.open()
        summary = await play_match(table, rounds=rounds, seed=seed)
    finally:
        await table.close()
        writer.close()
    recorded = load_replay(tmp_path / "replay.jsonl").rounds
    assert len(recorded) == rounds
    for record in recorded:
        verify_round(record)
    return summary


def seated(agent: Agent) -> list[Agent]:
    """The agent under test in seat 0, two scripted bots beside it."""
    return [agent, HeuristicAgent("B"), HeuristicAgent("C")]


def faults(summary: MatchSummary, name: str, **expected: int) -> None:
    """The seat's faults are exactly these (every other kind zero)."""
    assert summary.faults[name] == {**NO_FAULTS, **expected}


def gone(pid: int) -> bool:
    """Whether a process no longer runs (a zombie waiting for its reaper counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_gone(pid: int, within_s: float = 5.0) -> bool:
    deadline = time.monotonic() + within_s
    while not gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def read_pids(path: Path, within_s: float = 10.0) -> tuple[int, int]:
    """The silent program's pid and its child's (written once both run)."""
    deadline = time.monotonic() + within_s
    while not path.exists() or not path.read_text().endswith("\n"):
        assert time.monotonic() < deadline, "the program never wrote its pid file"
        time.sleep(0.02)
    program, child = map(int, path.read_text().split())
    return program, child


def received(record: Path) -> list[tuple[int, dict[str, Any]]]:
    """What the program wrote down: (its pid, a message it got), in order."""
    lines = record.read_text().splitlines()
    return [(entry["pid"], entry["message"]) for entry in map(json.loads, lines)]


def events(caplog: pytest.LogCaptureFixture, name: str) -> list[dict[str, Any]]:
    found = [getattr(r, EVENT_ATTRIBUTE, {}) for r in caplog.records]
    return [e for e in found if e.get("event") == name]


# --- framing --------------------------------------------------------------------------


def test_lines_are_cut_at_newlines_crlf_accepted_blank_lines_skipped() -> None:
    splitter = LineSplitter(100)
    assert splitter.feed(b'{"a":1}\r\n\n  \r\n{"b"') == [b'{"a":1}']
    assert splitter.feed(b":2}\n{") == [b'{"b":2}']
    assert splitter.end() == [b"{"]  # a last line without its newline still counts


def test_a_line_over_the_cap_is_one_marker_and_never_held_whole() -> None:
    splitter = LineSplitter(1000)
    out: list[bytes | LineTooLong] = []
    for _ in range(500):  # 500 KB without a newline, in pieces
        out += splitter.feed(b"x" * 1000)
        assert splitter.buffered <= 1001
    out += splitter.feed(b"xxx\nnext\n")
    assert out == [LineTooLong(1000), b"next"]
    assert splitter.feed(b"y" * 1000 + b"\r\n") == [b"y" * 1000]  # exactly the cap is fine
    assert splitter.feed(b"z" * 1001 + b"\n") == [LineTooLong(1000)]


# --- options --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "words"),
    [
        pytest.param({"command": ["nod", "bot.js"]}, ["program 'nod' not found on PATH"], id="nod"),
        pytest.param(
            {"command": ["bot.py"]},
            ["'bot.py' not found on PATH", 'put it first, as ["python3", "bot.py"]'],
            id="script-first",
        ),
        pytest.param(
            {"command": "node bot.js"},
            ['options.command must be a list of strings such as ["node", "bot.js"]', "shell"],
            id="string",
        ),
        pytest.param({}, ["options.command is required"], id="missing"),
        pytest.param({"command": []}, ["an empty list"], id="empty"),
        pytest.param({"command": ["node", 3]}, ["options.command[1]"], id="not-str"),
        pytest.param(
            {"command": ["./nothing-here"]}, ["'./nothing-here' not found (looked in"], id="path"
        ),
        pytest.param({"command": ["sh"], "cwd": "/no/such/folder"}, ["options.cwd"], id="cwd"),
        pytest.param({"command": ["sh"], "env": {"DEBUG": 1}}, ["options.env.DEBUG"], id="env"),
        pytest.param(
            {"command": ["sh"], "max_restarts": -1}, ["options.max_restarts"], id="restarts"
        ),
        pytest.param({"command": ["sh"], "startup_s": "1"}, ["options.startup_s"], id="startup"),
        pytest.param({"comand": ["sh"]}, ["did you mean 'command'?"], id="typo"),
    ],
)
def test_a_bad_option_is_a_config_error_naming_the_seats_options(
    options: dict[str, Any], words: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bot.py").write_text("print('hi')\n")
    with pytest.raises(ConfigError) as raised:
        create_agent("subprocess", "Beta", options=options, seat_key="seats.1")
    message = str(raised.value)
    assert message.startswith("seats.1.options (seat 'Beta'): ")
    for word in words:
        assert word in message


def test_a_program_is_found_on_the_path_of_its_own_environment(tmp_path: Path) -> None:
    (tmp_path / "mybot").write_text("#!/bin/sh\n")
    (tmp_path / "mybot").chmod(0o755)
    agent = SubprocessAgent("A", command=["mybot"], env={"PATH": str(tmp_path)})
    assert agent.program == str(tmp_path / "mybot")
    assert agent.env["PYTHONUNBUFFERED"] == "1"
    local = SubprocessAgent("A", command=["./mybot", "--fast"], cwd=tmp_path)
    assert local.program == str(tmp_path / "mybot")


# --- matches --------------------------------------------------------------------------


async def test_good_programs_play_a_whole_match_echoing_request_id_or_not(
    tmp_path: Path,
) -> None:
    agents = [bot("A"), bot("B", "--no-echo"), bot("C")]
    summary = await play(tmp_path, list(agents), rounds=2)
    for agent in agents:
        faults(summary, agent.name)
        assert (agent.restarts, agent.stale_replies) == (0, 0)
        assert agent.pid is None  # closed
    assert sum(summary.totals.values()) == 0


async def test_a_program_never_opened_starts_with_its_first_message(tmp_path: Path) -> None:
    agent = bot("A")
    summary = await play(tmp_path, seated(agent), open_first=False)
    faults(summary, "A")
    assert agent.restarts == 0


async def test_a_crash_mid_round_is_a_fault_and_the_restarted_program_gets_the_deal_again(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.agents.process")
    record = tmp_path / "received.jsonl"
    args = ["--mode", "crash", "--crash-on", "2", "--once", str(tmp_path / "crashed")]
    agent = bot("A", *args, "--record", str(record))
    summary = await play(tmp_path, seated(agent))

    faults(summary, "A", agent_error=1)
    assert agent.restarts == 1
    seen = received(record)
    first, second = dict.fromkeys(pid for pid, _ in seen)
    later = [m for pid, m in seen if pid == second]
    assert later[0]["type"] == "DEAL"  # the restarted program is told its hand again
    assert later[0]["hand"] == next(
        m["hand"] for p, m in seen if p == first and m["type"] == "DEAL"
    )
    assert later[1]["type"] == "BOTTOM_CARDS"
    rejected = later[2]
    assert rejected["type"] == "REPLY_REJECTED"
    assert rejected["reason"] == "agent_error"
    assert "exited with code 3" in rejected["detail"]
    assert "crashing on purpose" in rejected["detail"]  # its last stderr line says why
    assert later[3]["type"] == "PLAY_REQUEST"
    assert later[3]["request_id"] == rejected["request_id"]  # the same question again
    [exited] = events(caplog, "agent_process_exited")
    assert (exited["agent"], exited["code"], exited["table"]) == ("A", 3, "t1")
    [restarted] = events(caplog, "agent_process_restarted")
    assert restarted["table"] == "t1"  # several tables' seats may share a name
    [said] = [e for e in events(caplog, "agent_stderr") if "crashing" in e["line"]]
    assert (said["agent"], said["table"], said["pid"]) == ("A", "t1", first)
    assert events(caplog, "agent_process_started")[-1]["table"] == "t1"


async def test_a_program_that_ends_between_rounds_is_started_again_without_a_fault(
    tmp_path: Path,
) -> None:
    # It owed nothing when it ended: the next round's DEAL starts it again (a restart,
    # within max_restarts), and no decision of it is refused.
    agent = bot("A", "--mode", "exit-after-result", max_restarts=3)
    summary = await play(tmp_path, seated(agent), rounds=3)

    faults(summary, "A")
    assert agent.restarts == 2  # before rounds 2 and 3


async def test_a_program_that_keeps_crashing_is_restarted_max_restarts_times_then_replaced(
    tmp_path: Path,
) -> None:
    agent = bot("A", "--mode", "crash", "--crash-on", "1", max_restarts=2)
    summary = await play(tmp_path, seated(agent))

    assert agent.restarts == 2
    fallbacks = TableSettings().max_failed_decisions
    # 3 programs died, then every attempt of the decisions left failed at once
    faults(summary, "A", agent_error=3 * fallbacks, fallback=fallbacks)


async def test_a_program_printing_garbage_is_counted_unparsable_and_replaced(
    tmp_path: Path,
) -> None:
    agent = bot("A", "--mode", "garbage")
    summary = await play(tmp_path, seated(agent))
    settings = TableSettings()
    attempts = settings.max_retries + 1
    faults(
        summary,
        "A",
        unparsable=attempts * settings.max_failed_decisions,
        fallback=settings.max_failed_decisions,
    )
    assert agent.stale_replies == 0  # every garbage line answered the request it followed


async def test_a_program_that_never_answers_times_out_and_is_killed_at_close(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    pids = tmp_path / "pids"
    agent = bot("A", "--mode", "silent", "--pid-file", str(pids), close_timeout_s=0.3)
    settings = TableSettings(max_retries=0, max_failed_decisions=2)
    summary = await play(tmp_path, seated(agent), timeout_s=0.5, settings=settings)

    faults(summary, "A", timeout=2, fallback=2)
    # the usual cause of a program that never answers (no flush) is named, once
    [silent] = events(caplog, "agent_silent_on_stdout")
    assert "flush" in silent["hint"]
    program, child = read_pids(pids)
    # it ignores SIGTERM and the end of its stdin, and so does its child
    assert wait_gone(program)
    assert wait_gone(child)


async def test_close_ends_a_program_that_ignores_eof_and_sigterm(tmp_path: Path) -> None:
    """Without a deadline around close: EOF, then SIGTERM, then SIGKILL to its group."""
    pids = tmp_path / "pids"
    agent = bot("A", "--mode", "silent", "--pid-file", str(pids), close_timeout_s=0.2)
    await agent.open()
    program, child = read_pids(pids)
    assert agent.pid == program
    await agent.close()
    assert agent.pid is None
    assert wait_gone(program)
    assert wait_gone(child)


async def test_a_program_flooding_stdout_is_counted_truncated_and_the_match_finishes(
    tmp_path: Path,
) -> None:
    agent = bot("A", "--mode", "flood", "--count", "2")
    summary = await play(tmp_path, seated(agent), timeout_s=5)
    # two 10 MB lines, each refused and asked again; the junk after them is discarded
    faults(summary, "A", truncated=2)
    assert agent.stale_replies >= 2 * 500


@pytest.mark.parametrize("echo", [False, True], ids=["no-request-id", "request-id"])
async def test_a_late_reply_is_never_taken_for_the_next_request(tmp_path: Path, echo: bool) -> None:
    args = ["--mode", "late", "--delay", "1.3"] + ([] if echo else ["--no-echo"])
    agent = bot("A", *args)
    settings = TableSettings(max_retries=0)
    summary = await play(tmp_path, seated(agent), timeout_s=1.0, settings=settings)
    # the late reply (a joker played twice) would be a fault for any request: it is
    # discarded, and every later reply answers its own request
    faults(summary, "A", timeout=1, fallback=1)
    assert agent.stale_replies == 1


async def test_a_program_echoing_request_id_that_skips_one_reply_times_out_once(
    tmp_path: Path,
) -> None:
    # the retry's answer names the request: it answers both attempts, and every later
    # reply its own request
    agent = bot("A", "--mode", "skip", "--count", "2")
    summary = await play(tmp_path, seated(agent), rounds=2, timeout_s=1.0)
    faults(summary, "A", timeout=1)
    assert agent.stale_replies == 0


async def test_a_late_reply_taken_for_the_retry_leaves_the_retrys_own_reply_owed(
    tmp_path: Path,
) -> None:
    """No request_id: the late reply to the first attempt (a bad one) is taken for the
    second; the program's reply to the second then answers the third, and its reply to
    the third (0.1 s later: the next request is out by then) is discarded, never taken
    for the next request."""
    agent = bot("A", "--mode", "late", "--delay", "1.3", "--pace", "0.1", "--no-echo")
    summary = await play(tmp_path, seated(agent), rounds=2, timeout_s=1.0)
    faults(summary, "A", timeout=1, unparsable=1)  # a PLAY_RESPONSE for the bid
    assert agent.stale_replies == 1


def bid_request(request_id: str) -> bytes:
    """A BID_REQUEST line as far as the test program reads it."""
    message = {"type": "BID_REQUEST", "player_id": "A", "available_bids": [0, 1]}
    return json.dumps({**message, "request_id": request_id}).encode()


async def test_a_reply_late_by_far_is_never_taken_for_a_later_request(tmp_path: Path) -> None:
    """However late, an in-order program's reply answers the attempt it was written
    for: a first answer held up 1.5 s (deadline 0.3 s) arrives while the next request
    waits, and is discarded; the next line answers that request."""
    agent = bot("A", "--mode", "late", "--delay", "1.5", "--no-echo")
    await agent.open()
    try:
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.3):
                await agent.exchange(bid_request("r1"), "r1")
        await asyncio.sleep(0.6)  # long past r1's deadline; the program still stalls
        async with asyncio.timeout(10):
            reply = await agent.exchange(bid_request("r2"), "r2")
        assert json.loads(reply) == {"player_id": "A", "type": "BID_RESPONSE", "bid": 0}
        assert agent.stale_replies == 1  # the answer to r1, discarded
    finally:
        await agent.close()


async def test_a_reply_naming_a_request_never_sent_is_refused_at_once_as_unparsable(
    tmp_path: Path,
) -> None:
    record = tmp_path / "received.jsonl"
    agent = bot("A", "--mode", "wrong-id", "--record", str(record))
    settings = TableSettings(max_retries=1, max_failed_decisions=2)
    summary = await play(tmp_path, seated(agent), timeout_s=3.0, settings=settings)
    faults(summary, "A", unparsable=4, fallback=2)  # never a timeout
    assert agent.stale_replies == 0
    rejected = [m for _, m in received(record) if m["type"] == "REPLY_REJECTED"]
    assert rejected[0]["reason"] == "unparsable"
    assert "answers another request" in rejected[0]["detail"]
    assert f"'bogus-{rejected[0]['request_id']}'" in rejected[0]["detail"]


async def test_a_crash_is_seen_when_a_child_of_the_program_holds_its_stdout(
    tmp_path: Path,
) -> None:
    child_pid = tmp_path / "child"
    args = ["--mode", "orphan", "--crash-on", "2", "--once", str(tmp_path / "crashed")]
    agent = bot("A", *args, "--pid-file", str(child_pid))
    settings = TableSettings(max_retries=1, max_failed_decisions=2)
    summary = await play(tmp_path, seated(agent), timeout_s=3.0, settings=settings)
    # a fault of its own kind, at once, and the program started again: no timeouts
    faults(summary, "A", agent_error=1)
    assert agent.restarts == 1
    [child] = map(int, child_pid.read_text().split())
    assert wait_gone(child)  # its process group was killed


async def test_a_program_that_closes_its_stdout_is_told_so_not_that_it_was_killed(
    tmp_path: Path,
) -> None:
    record = tmp_path / "received.jsonl"
    args = ["--mode", "close-stdout", "--crash-on", "2", "--once", str(tmp_path / "closed")]
    agent = bot("A", *args, "--record", str(record))
    summary = await play(tmp_path, seated(agent), timeout_s=5.0)
    faults(summary, "A", agent_error=1)
    [rejected] = [m for _, m in received(record) if m["type"] == "REPLY_REJECTED"]
    assert rejected["detail"].startswith("the program closed its stdout (so it was stopped)")
    assert "SIGKILL" not in rejected["detail"]


LEAVER = """
import asyncio, sys
from arena.agents.process import SubprocessAgent

async def main() -> None:
    agent = SubprocessAgent("A", command=sys.argv[1:])
    await agent.open()
    print(agent.pid, flush=True)
    await asyncio.sleep(0.2)

asyncio.run(main())  # the agent is never closed
"""


def test_programs_left_running_are_killed_when_the_arena_exits(tmp_path: Path) -> None:
    """A second Ctrl-C during cleanup, or any other way out that skips close(): the
    program (which ignores SIGTERM and the end of its stdin) and its child end too."""
    pids = tmp_path / "pids"
    command = [sys.executable, str(BOT), "--mode", "silent", "--pid-file", str(pids)]
    leaver = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(LEAVER), *command],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=Path(__file__).resolve().parent.parent,
    )
    program, child = read_pids(pids)
    try:
        assert leaver.returncode == 0, leaver.stderr
        assert int(leaver.stdout) == program
        assert wait_gone(program)
        assert wait_gone(child)
    finally:
        for pid in (program, child):
            if not gone(pid):
                os.kill(pid, signal.SIGKILL)


async def test_stderr_is_logged_with_the_seat_named_and_bounded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.agents.process")
    agent = bot("A", "--mode", "chatty", "--count", "699")
    summary = await play(tmp_path, seated(agent))

    faults(summary, "A")
    assert agent.stderr_lines == 700
    logged = events(caplog, "agent_stderr")
    assert len(logged) == 500
    assert {e["agent"] for e in logged} == {"A"}
    assert logged[0]["line"] == "bot: thinking out loud 0"
    assert len(events(caplog, "agent_stderr_suppressed")) == 1


async def test_stderr_lines_are_cut_to_a_readable_length(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="arena.agents.process")
    agent = bot("A", "--mode", "chatty", "--count", "0")
    await agent.open()
    await agent.close()
    [line] = [e["line"] for e in events(caplog, "agent_stderr")]
    assert line.startswith("xxx")
    assert len(line) <= 1001


# --- starting -------------------------------------------------------------------------


async def test_a_program_that_exits_at_once_cannot_start(tmp_path: Path) -> None:
    agent = bot("A", "--mode", "exit", startup_s=5)
    with pytest.raises(AgentStartError) as raised:
        await agent.open()
    message = str(raised.value)
    assert "exited at once with code 3" in message
    assert "cannot load the model weights" in message
    assert agent.pid is None


async def test_a_program_that_cannot_start_shows_the_first_and_last_lines_of_its_stderr(
    tmp_path: Path,
) -> None:
    """Node's "Cannot find module" and a Rust panic come first, a Python traceback's
    reason comes last, and launchers print a dozen lines around them: both ends show."""
    script = tmp_path / "noisy.py"
    script.write_text(
        "import sys\n"
        "print('Error: Cannot find module bott.js', file=sys.stderr)\n"
        "for n in range(30):\n"
        "    print(f'    at frame {n}', file=sys.stderr)\n"
        "print('Node.js v20', file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    agent = SubprocessAgent("A", command=[sys.executable, str(script)], startup_s=5)
    with pytest.raises(AgentStartError) as raised:
        await agent.open()
    message = str(raised.value)
    assert "its stderr: Error: Cannot find module bott.js |     at frame 0" in message
    assert "| … |" in message
    assert message.endswith("at frame 29 | Node.js v20")
    assert "frame 10 " not in message


def exiting_config(tmp_path: Path) -> Path:
    command = json.dumps([sys.executable, str(BOT), "--mode", "exit"])
    path = tmp_path / "arena.toml"
    path.write_text(
        "[match]\nrounds = 1\n"
        '[[seats]]\nname = "A"\n'
        '[[seats]]\nname = "B"\ntype = "subprocess"\n'
        f"options = {{ command = {command}, startup_s = 5 }}\n"
        '[[seats]]\nname = "C"\n'
    )
    return path


async def test_open_tables_names_the_seat_whose_program_exits_at_once(tmp_path: Path) -> None:
    config = parse_config(tomllib.loads(exiting_config(tmp_path).read_text()), source="test")
    tables = build_tables(config, seed=1)
    with pytest.raises(AgentStartError) as raised:
        await open_tables(tables)
    assert "table t1 seat 1 ('B') could not start: the program exited at once" in str(raised.value)


def test_arena_play_with_a_program_that_exits_at_once_is_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--config", str(exiting_config(tmp_path)), "--no-live"]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert "seat 1 ('B') could not start: the program exited at once with code 3" in line
    assert "cannot load the model weights" in line


def test_the_test_program_needs_only_the_standard_library() -> None:
    """Like an agent in another language, it knows nothing of the arena's code."""
    tree = ast.parse(BOT.read_text())
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
    assert imported <= sys.stdlib_module_names
