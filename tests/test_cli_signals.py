"""Stopping `arena play` from outside ends the programs its seats started.

Specification (issue 8, subprocess seats: "a hung one is killed at close"): programs run
in sessions of their own, so no signal sent to the arena reaches them; whatever stops
the arena (SIGTERM from a service manager, `timeout` or a CI runner; Ctrl-C) must close
the agents, and so end those programs, before the arena exits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

PROGRAM = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def wait_for(condition: object, within_s: float, what: str) -> None:
    deadline = time.monotonic() + within_s
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def start_arena(
    tmp_path: Path, *extra: str, startup_s: float = 0.3
) -> tuple[subprocess.Popen[str], Path]:
    """`arena play` with a program that answers nothing and ignores SIGTERM and the end
    of its stdin (and so does a child it starts): the match waits on it."""
    pids = tmp_path / "pids"
    command = json.dumps(
        [sys.executable, str(PROGRAM), "--mode", "silent", "--pid-file", str(pids)]
    )
    config = tmp_path / "arena.toml"
    config.write_text(
        "[table]\ndecision_timeout_s = 60.0\n"
        f'[[seats]]\nname = "Mute"\ntype = "subprocess"\n'
        f"options = {{ command = {command}, startup_s = {startup_s} }}\n"
        '[[seats]]\nname = "B"\n[[seats]]\nname = "C"\n'
    )
    run_main = "from arena.cli import main; raise SystemExit(main())"
    arena = subprocess.Popen(
        [sys.executable, "-c", run_main, "play", "--config", str(config), "--no-live", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return arena, pids


def running_pids(pids: Path) -> list[int]:
    wait_for(lambda: pids.exists() and pids.read_text().endswith("\n"), 20, "no pid file")
    return [int(p) for p in pids.read_text().split()]


@pytest.mark.parametrize(
    ("sent", "status", "said"),
    [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")],
    ids=["SIGTERM", "Ctrl-C"],
)
def test_stopping_the_arena_ends_the_programs_of_its_seats(
    tmp_path: Path, sent: signal.Signals, status: int, said: str
) -> None:
    arena, pids = start_arena(tmp_path)
    try:
        program, child = running_pids(pids)
        time.sleep(0.5)  # the match is under way, waiting on the silent program
        arena.send_signal(sent)
        _, err = arena.communicate(timeout=30)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.communicate()
    assert arena.returncode == status, err
    assert said in err
    wait_for(lambda: gone(program) and gone(child), 5, "a program of a seat outlived the arena")


def test_ctrl_c_while_a_program_starts_ends_it(tmp_path: Path) -> None:
    """Interrupted in `open` (the start-up watch), before the match: nothing is left."""
    arena, pids = start_arena(tmp_path, startup_s=30)
    try:
        program, child = running_pids(pids)
        arena.send_signal(signal.SIGINT)
        _, err = arena.communicate(timeout=30)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.communicate()
    assert arena.returncode == 130, err
    wait_for(lambda: gone(program) and gone(child), 5, "a program of a seat outlived the arena")


@pytest.mark.parametrize(
    ("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["Ctrl-C", "SIGTERM"]
)
def test_a_stopped_match_says_where_its_replay_so_far_is(
    tmp_path: Path, sent: signal.Signals, status: int
) -> None:
    """The partial replay is kept (and `arena replay` calls its cut-off round
    incomplete): the arena says so, as a finished match says where its replay is."""
    replay = tmp_path / "m.jsonl"
    arena, pids = start_arena(tmp_path, "--record", str(replay))
    try:
        running_pids(pids)
        assert replay.exists()  # opened before the match (written in 64 KB blocks)
        time.sleep(0.5)  # the round is under way, waiting on the silent program
        arena.send_signal(sent)
        _, err = arena.communicate(timeout=30)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.communicate()
    assert arena.returncode == status, err
    assert f"arena: the replay so far is in {replay} (its last round is incomplete)" in err
    assert "replay written" not in err
    assert replay.read_text(encoding="utf-8").startswith('{"kind":')
