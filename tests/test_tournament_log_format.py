"""``--log-format`` on ``arena tournament``: with ``json`` every stderr line is a JSON
object (the run's own lines, its progress, the resume hint, the lines of worker
processes); with ``console`` a worker's log lines look like the main process's. Each
in a real ``arena`` process, as an operator's log collector would read it."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from processes import ctrl_c_once_stored
from rosters import roster

REPO = Path(__file__).resolve().parent.parent
BOT = REPO / "tests" / "programs" / "stdio_bot.py"

ALL_IN_WORKERS = (
    "import tournaments.workers as w; w.PLAY_HERE_WHILE_STARTING = False; "
    "from arena.cli import main; raise SystemExit(main())"
)
"""``arena`` whose tables all play in its workers (not in the main process while the
workers start), so every table's log line comes from a worker."""

CONSOLE_LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z \[(debug|info|warning|error|critical) *\] \S+"
)
"""A log line as ``configure_logging``'s console renderer writes it off a terminal."""


def crash_cup(tmp_path: Path) -> Path:
    """Four agents, one of them a program that crashes on its second play request:
    its tables log its exits, restarts and the stand-in that replaces it."""
    crashy = [sys.executable, str(BOT), "--mode", "crash", "--crash-on", "2"]
    file = tmp_path / "crash.toml"
    file.write_text(
        '[tournament]\nname = "crash cup"\nformat = "standard"\nseed = 23\n'
        "[table]\npace_s = 0.0\n"
        f'[[agents]]\nname = "Crashy"\ntype = "subprocess"\n'
        f"[agents.options]\ncommand = {json.dumps(crashy)}\n" + roster(3),
        encoding="utf-8",
    )
    return file


def daily_file(tmp_path: Path, *, pace: float = 0.0) -> Path:
    file = tmp_path / "daily.toml"
    file.write_text(
        f'[tournament]\nname = "daily"\nformat = "daily"\nseed = 5\n[table]\npace_s = {pace}\n'
        + roster(3),
        encoding="utf-8",
    )
    return file


def arena(*argv: str, code: str | None = None) -> subprocess.CompletedProcess[str]:
    """``arena ARGV`` in a process of its own, to its end."""
    start = ["-c", code] if code is not None else ["-m", "arena.cli"]
    return subprocess.run(
        [sys.executable, *start, *argv],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def json_lines(err: str) -> list[dict[str, Any]]:
    """Every stderr line as a JSON object with an event, a level and a timestamp (a
    line that is not one fails, named)."""
    records = []
    for line in err.splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            pytest.fail(f"not a JSON line on stderr: {line!r}")
        assert isinstance(record, dict), line
        assert {"event", "level", "timestamp"} <= record.keys(), line
        records.append(record)
    return records


@pytest.mark.parametrize("workers", [1, 2])
def test_with_json_logs_every_line_of_a_tournament_run_is_json(
    tmp_path: Path, workers: int
) -> None:
    db = tmp_path / "cup.db"
    argv = ["tournament", "run", str(crash_cup(tmp_path)), "--db", str(db)]
    done = arena(*argv, "--workers", str(workers), "--log-format", "json", code=ALL_IN_WORKERS)
    assert done.returncode == 0, done.stderr
    records = json_lines(done.stderr)
    events = [r["event"] for r in records]
    assert events[:2] == ["tournament_started", "tournament_seed"]
    assert records[0]["db"] == str(db)
    assert records[1]["verifiable"] is False  # seed 23: small
    progress = [r for r in records if r["event"] == "tournament_progress"]
    assert progress[-1]["rounds"] == progress[-1]["planned_rounds"] == 40
    assert progress[-1]["leader"] in {"Crashy", "Ann", "Bob", "Cid"}
    replaced = [r for r in records if r["event"] == "seat_replaced"]
    assert replaced  # the tables' lines, from the workers with --workers 2
    assert all(r["agent"] == "Crashy" for r in replaced)
    assert all(r["level"] not in ("debug", "info") for r in records if "logger" in r)
    # the default level (warning) in the workers too


def test_worker_lines_in_console_mode_are_the_main_process_format(tmp_path: Path) -> None:
    argv = ["tournament", "run", str(crash_cup(tmp_path)), "--db", str(tmp_path / "c.db")]
    done = arena(*argv, "--workers", "2", "--log-level", "info", code=ALL_IN_WORKERS)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    logged = [line for line in lines if not line.startswith("arena: ")]
    strays = [line for line in logged if not CONSOLE_LINE.match(line)]
    assert not strays, strays[:3]
    main_process = [line for line in logged if "workers_started" in line]
    from_workers = [line for line in logged if "seat_replaced" in line]
    assert main_process  # both there, in the same format
    assert from_workers
    assert any("agent_process_started" in line for line in logged)  # --log-level info, there too


def test_with_json_logs_a_session_and_the_read_commands_say_json(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    file = str(daily_file(tmp_path))
    done = arena(
        "tournament", "run", file, "--rounds", "2", "--db", str(db), "--log-format", "json"
    )
    assert done.returncode == 0, done.stderr
    records = json_lines(done.stderr)
    assert [r["event"] for r in records] == [
        "tournament_started",
        "tournament_seed",
        "session_started",
        "tournament_progress",  # a line a round: 2 planned
        "tournament_progress",
        "tournament_resumable",
    ]
    tid = records[0]["tournament"]
    assert records[-1]["resume"] == f"arena tournament resume {tid} --db {db}"
    assert records[-1]["why"] == "session over"
    for argv in (
        ["resume", tid, "--rounds", "1"],
        ["show", tid],
        ["list"],
        ["export", tid, "--csv"],
        ["finish", tid],
        ["verify", tid],
        ["show", "t-none"],  # a mistake: one JSON line too
    ):
        run = arena("tournament", *argv, "--db", str(db), "--log-format", "json")
        assert run.returncode in (0, 2, 3), run.stderr
        json_lines(run.stderr)
        if argv[0] == "resume":
            assert "tournament_resumable" in run.stderr
        if argv == ["show", "t-none"]:
            assert '"command_failed"' in run.stderr


def test_with_json_logs_ctrl_c_says_json(tmp_path: Path) -> None:
    db = tmp_path / "d.db"
    file = daily_file(tmp_path, pace=0.002)
    argv = ["tournament", "run", str(file), "--db", str(db), "--log-format", "json"]
    code, err = ctrl_c_once_stored(argv, db)
    assert code == 130
    events = [r["event"] for r in json_lines(err)]
    assert "stopping_after_round" in events
    assert events[-1] == "tournament_resumable"


def test_with_json_logs_a_served_tournament_says_where_the_pages_are_in_json(
    tmp_path: Path,
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(
        '[tournament]\nname = "Cup"\nformat = "quick"\n[table]\npace_s = 0.0\n' + roster(3),
        encoding="utf-8",
    )
    argv = ["tournament", "run", str(file), "--db", str(tmp_path / "s.db"), "--serve"]
    done = arena(*argv, "--port", "0", "--log-format", "json")
    assert done.returncode == 0, done.stderr
    records = {r["event"]: r for r in json_lines(done.stderr)}
    assert records["server_started"]["overlay"].startswith("http://127.0.0.1:")
    assert records["server_unpaced"]["level"] == "warning"


def test_off_a_terminal_or_on_one_json_progress_is_a_json_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import io

    from rich.console import Console

    from tournaments.cli import RunView

    out = io.StringIO()
    view = RunView(Console(file=out, force_terminal=True, width=100), log_format="json")
    view.start(planned=20, played=0)
    for rounds in range(1, 21):
        board = {"rounds": rounds, "agents": [{"name": "Ann", "points_per_round": 1.5}]}
        view.update(board)
    view.finished()
    view.stop()
    assert out.getvalue() == ""  # no bar: it is no JSON line
    records = json_lines(capsys.readouterr().err)
    assert [r["rounds"] for r in records] == list(range(2, 21, 2))
    assert records[-1] == {**records[-1], "event": "tournament_progress", "leader": "Ann"}


def test_with_json_logs_arena_serve_says_everything_in_json(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    argv = ["serve", "--port", "0", "--log-format", "json", "--log-level", "info"]
    process = subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *argv],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    try:
        seen = []
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and (line := process.stderr.readline()):
            seen.append(line)
            if "server_waiting" in line:
                break
        process.send_signal(signal.SIGTERM)
        _, rest = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)
    assert process.returncode == 143
    events = [r["event"] for r in json_lines("".join(seen) + rest)]
    assert events.index("server_started") < events.index("server_waiting")
    assert "server_control_link" in events  # a token made for the run, its link in a file
    assert events[-1] == "terminated"
