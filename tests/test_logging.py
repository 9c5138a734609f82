"""Logging: arena is a library first, so its log lines go through the stdlib ``logging``.

Specification (issue 7): "Used as a library, the table's warnings go to stdout: library
code never writes to stdout, and the CLI's logging covers every line." Unconfigured, a
warning reaches stderr through Python's last-resort handler; ``configure_logging`` (the
``arena`` command) renders every line, arena's or another library's, as console or JSON
lines on stderr, with the context bound where it happened (table, round, seat, agent).
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path

import pytest
import structlog

from arena.errors import ConfigError
from arena.logs import (
    EVENT_ATTRIBUTE,
    configure_logging,
    configured_logging,
    get_logger,
    reset_logging,
)

TESTS = Path(__file__).resolve().parent

# A program that uses arena as a library and configures no logging at all: a faulty agent
# at a table makes the table log warnings.
LIBRARY_USER = """
import asyncio
from agents_for_tests import FaultyAgent, MinimalAgent
from arena.table import Table, play_match

agents = [MinimalAgent("A"), FaultyAgent("B"), MinimalAgent("C")]
asyncio.run(play_match(Table(agents), rounds=1, seed=3))
"""


def test_an_unconfigured_library_logs_warnings_to_stderr_and_nothing_to_stdout() -> None:
    """A fresh interpreter: no pytest logging plugin, no handler but the last resort."""
    done = subprocess.run(
        [sys.executable, "-c", LIBRARY_USER],
        capture_output=True,
        text=True,
        cwd=TESTS,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout == ""
    rejected = [line for line in done.stderr.splitlines() if "agent_reply_rejected" in line]
    assert rejected, done.stderr[-2000:]
    assert "table='t1'" in rejected[0]
    assert "seat=1" in rejected[0]
    assert "agent='B'" in rejected[0]


def log_lines(err: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in err.splitlines() if line]


def test_json_lines_carry_the_bound_context_and_the_level(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("json", "info")
    log = get_logger("arena.test")
    with structlog.contextvars.bound_contextvars(table="t9", round=4):
        log.info("something_happened", seat=2, agent="Zed")
    log.debug("too_quiet_to_show")
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = log_lines(captured.err)
    assert line["event"] == "something_happened"
    assert (line["table"], line["round"], line["seat"], line["agent"]) == ("t9", 4, 2, "Zed")
    assert line["level"] == "info"
    assert line["logger"] == "arena.test"
    assert "timestamp" in line


def fail() -> None:
    raise RuntimeError("boom")


def test_json_lines_include_other_libraries_and_tracebacks(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("json", "warning")
    logging.getLogger("somebody.else").warning("disk %s full", "/tmp")
    try:
        fail()
    except RuntimeError:
        get_logger("arena.test").exception("it_failed", table="t1")
    first, second = log_lines(capsys.readouterr().err)
    assert (first["event"], first["logger"], first["level"]) == (
        "disk /tmp full",
        "somebody.else",
        "warning",
    )
    assert second["event"] == "it_failed"
    assert second["level"] == "error"
    assert "RuntimeError: boom" in str(second["exception"])


def test_code_calling_structlog_directly_is_routed_through_the_same_handler(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("json", "warning")
    structlog.get_logger("stray").warning("stray_line", n=1)
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = log_lines(captured.err)
    assert (line["event"], line["n"], line["level"]) == ("stray_line", 1, "warning")


def test_configuring_twice_leaves_one_handler(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("console", "warning")
    configure_logging("json", "warning")
    get_logger("arena.test").warning("once")
    assert len(log_lines(capsys.readouterr().err)) == 1


def test_console_lines_are_readable_key_value_text(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("console", "warning")
    with structlog.contextvars.bound_contextvars(table="t2"):
        get_logger("arena.test").warning("seat_replaced", seat=0)
    [line] = capsys.readouterr().err.splitlines()
    assert "seat_replaced" in line
    assert "table=t2" in line
    assert "seat=0" in line


def test_records_keep_their_fields_for_any_handler(caplog: pytest.LogCaptureFixture) -> None:
    """What an application's own handler (or a test's caplog) receives."""
    with caplog.at_level(logging.WARNING, logger="arena.test"):
        get_logger("arena.test").warning("agent_timed_out", seat=1)
    [record] = caplog.records
    assert getattr(record, EVENT_ATTRIBUTE) == {"event": "agent_timed_out", "seat": 1}
    assert record.getMessage() == "agent_timed_out seat=1"


def test_an_unknown_level_names_the_levels_there_are() -> None:
    with pytest.raises(ConfigError, match="debug, info, warning, error, critical"):
        configure_logging("console", "bogus")


def test_debug_shows_the_arenas_lines_but_not_the_model_sdks_request_bodies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The SDKs log each request body at DEBUG, and a model seat's prompt holds its
    cards: ``--log-level debug`` must not put a seat's hand on a streamed terminal."""
    configure_logging("json", "debug")
    logging.getLogger("openai._base_client").debug("Request options: %s", "the prompt")
    logging.getLogger("httpx").debug("a request body")
    logging.getLogger("anthropic").info("an SDK's info line")
    get_logger("arena.test").debug("arena_detail")
    lines = log_lines(capsys.readouterr().err)
    assert [line["event"] for line in lines] == ["an SDK's info line", "arena_detail"]
    reset_logging()
    assert logging.getLogger("openai").level == logging.NOTSET


def test_reset_logging_undoes_configure_logging() -> None:
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    configure_logging("json", "DEBUG")
    assert root.level == logging.DEBUG
    assert configured_logging() == ("json", "debug")  # what a worker process is given
    reset_logging()
    assert (list(root.handlers), root.level) == before
    assert configured_logging() is None


def test_library_code_logs_only_through_arena_logs() -> None:
    """``structlog.get_logger()`` unconfigured prints to stdout: arena's packages use
    ``arena.logs.get_logger(__name__)`` instead (the CLI would cover them, a library
    user would not)."""
    root = TESTS.parent
    offenders = [
        str(path.relative_to(root))
        for package in ("arena", "protocol", "gifts", "tournaments")
        for path in sorted((root / package).rglob("*.py"))
        if path.name != "logs.py" and "structlog.get_logger" in path.read_text(encoding="utf-8")
    ]
    assert offenders == []
