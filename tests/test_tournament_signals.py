"""Stopping ``arena tournament run`` from outside, each in a real process: Ctrl-C while
the streamer's pause holds the tables, SIGTERM (a service manager, ``timeout``), and a
main process killed while a worker's table runs a program.

Signals are sent from Python (``send_signal``, ``os.kill``): a shell's background job
ignores SIGINT, which would test nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from processes import alive, rounds_in, wait_for
from rosters import roster

from arena.server.control import MatchControl
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

REPO = Path(__file__).resolve().parent.parent
PROGRAM = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"
TOKEN = "signals-test-token"
RUN_MAIN = "from arena.cli import main; raise SystemExit(main())"


def arena(*args: str, prelude: str = "", token: str | None = None) -> subprocess.Popen[str]:
    """``arena ARGS`` in a process of its own; ``prelude``: Python run before ``main``."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    if token is not None:
        env["ARENA_SERVER_TOKEN"] = token
    return subprocess.Popen(
        [sys.executable, "-c", prelude + RUN_MAIN, "tournament", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def parent_of(pid: int) -> int:
    """The process that started ``pid`` (Linux's /proc)."""
    return int(Path(f"/proc/{pid}/stat").read_text().split(") ")[1].split()[1])


def ended(process: subprocess.Popen[str], within_s: float) -> str:
    """The process's stderr once it has exited (killed, and the test failed, if not)."""
    try:
        _, err = process.communicate(timeout=within_s)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
        raise AssertionError(f"still running {within_s} s later:\n{err[-2000:]}") from None
    return err


def mute_cup(tmp_path: Path, pids: Path) -> Path:
    """Three agents, one of them a program that answers nothing and ignores SIGTERM and
    the end of its stdin (as does a child it starts): its table waits on it."""
    command = json.dumps(
        [sys.executable, str(PROGRAM), "--mode", "silent", "--pid-file", str(pids)]
    )
    cup = tmp_path / "mute.toml"
    cup.write_text(
        '[tournament]\nname = "Mute cup"\nformat = "standard"\nseed = 7\n'
        "[table]\ndecision_timeout_s = 60.0\n"
        f'[[agents]]\nname = "Mute"\ntype = "subprocess"\noptions = {{ command = {command} }}\n'
        + roster(2),
        encoding="utf-8",
    )
    return cup


def program_pids(pids: Path) -> list[int]:
    wait_for(lambda: pids.exists() and pids.read_text().endswith("\n"), 30, "no pid file")
    return [int(p) for p in pids.read_text().split()]


async def test_a_release_opens_the_gate_of_a_paused_table_for_good() -> None:
    control = MatchControl()
    assert control.pause()
    held = asyncio.create_task(control.gate("s1t1"))
    await asyncio.sleep(0.05)
    assert not held.done()
    assert control.paused
    assert control.waiting == {"s1t1"}
    control.release()
    await asyncio.wait_for(held, 1)
    assert not control.paused
    assert control.waiting == set()
    await asyncio.wait_for(control.gate("s1t2"), 1)  # still paused, but released: no wait


def test_ctrl_c_while_paused_stops_the_tables_there_and_says_how_to_resume(
    tmp_path: Path,
) -> None:
    """The pause holds the table between two rounds; the first Ctrl-C lets it go, and
    it stops there without playing another round (a second Ctrl-C is not needed)."""
    cup = tmp_path / "cup.toml"
    cup.write_text(
        '[tournament]\nname = "Cup"\nformat = "standard"\nseed = 3\n[table]\npace_s = 0.01\n'
        + roster(3),
        encoding="utf-8",
    )
    db = tmp_path / "cup.db"
    process = arena("run", str(cup), "--db", str(db), "--serve", "--port", "0", token=TOKEN)
    try:
        base = ""
        while not base:
            line = process.stderr.readline() if process.stderr else ""
            assert line, "no overlay line"
            if "/overlay" in line:
                base = line.split("overlay: ")[1].split("/overlay")[0]
        auth = {"Authorization": f"Bearer {TOKEN}"}
        wait_for(lambda: rounds_in(db) >= 1, 60, "no round stored")
        assert httpx.post(f"{base}/control/api/pause", headers=auth, timeout=5).is_success

        def paused() -> bool:
            state = httpx.get(f"{base}/control/api/state", headers=auth, timeout=5).json()
            return bool(state["paused"])

        wait_for(paused, 30, "the pause never held the table")
        stored = rounds_in(db)
        time.sleep(0.3)
        process.send_signal(signal.SIGINT)
        err = ended(process, 20)  # not held at the pause for a second Ctrl-C
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 130, err
    assert "stopping after the current round" in err
    assert "stopped after the current round; go on with: arena tournament resume" in err
    assert rounds_in(db) == stored < 10  # the table released stopped there
    with TournamentStore(db, create=False) as store:  # and resumes to the end
        (row,) = store.tournaments()
        assert row.status == "interrupted"
        run = asyncio.run(run_tournament(store, tournament_id=row.id))
    assert run.finished
    assert run.leaderboard.rounds == 10


@pytest.mark.parametrize("workers", [1, 2], ids=["in-process", "workers"])
def test_sigterm_ends_the_programs_says_terminated_and_how_to_resume(
    tmp_path: Path, workers: int
) -> None:
    """As ``arena play`` does: the agents are closed (a hung program is killed, a
    worker's too), the tournament is left resumable and says so, exit status 143."""
    pids = tmp_path / "pids"
    db = tmp_path / "mute.db"
    cup = mute_cup(tmp_path, pids)
    if workers == 1:
        process = arena("run", str(cup), "--db", str(db))
    else:
        in_workers = "import tournaments.workers as w; w.PLAY_HERE_WHILE_STARTING = False; "
        process = arena("run", str(cup), "--db", str(db), "--workers", "2", prelude=in_workers)
    try:
        program, child = program_pids(pids)
        if workers > 1:
            assert parent_of(program) != process.pid  # started by a worker
        time.sleep(0.5)  # the round is under way, waiting on the silent program
        process.send_signal(signal.SIGTERM)
        err = ended(process, 30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 143, err
    assert "terminated; go on with: arena tournament resume" in err
    assert err.rstrip().endswith("arena: terminated")
    assert "Traceback" not in err
    wait_for(
        lambda: not alive(program) and not alive(child), 5, "a program outlived the tournament"
    )
    with TournamentStore(db, create=False) as store:
        (row,) = store.tournaments()
        assert row.status == "interrupted"


def test_a_worker_whose_main_process_is_killed_leaves_no_program_behind(
    tmp_path: Path,
) -> None:
    """kill -9 of the main process: nothing of it runs, but its worker sees its pipe
    close, closes its table's agents and ends their programs before it exits."""
    pids = tmp_path / "pids"
    db = tmp_path / "mute.db"
    in_workers = "import tournaments.workers as w; w.PLAY_HERE_WHILE_STARTING = False; "
    cup = mute_cup(tmp_path, pids)
    process = arena("run", str(cup), "--db", str(db), "--workers", "2", prelude=in_workers)
    try:
        program, child = program_pids(pids)
        parent = parent_of(program)
        assert parent != process.pid  # a worker's program, not the main process's
        time.sleep(0.5)
        os.kill(process.pid, signal.SIGKILL)
        process.wait(10)
        wait_for(
            lambda: not alive(program) and not alive(child), 10, "a worker's program outlived it"
        )
        wait_for(lambda: not alive(parent), 10, "the worker outlived its main process")
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate()
