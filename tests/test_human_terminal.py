"""A human seat in a real terminal: `arena play` on a pseudo-terminal, keys typed into it.

Ctrl-C at a prompt stops the match at once (it used to wait for Enter: the prompt was
``input()`` in a thread that ``asyncio.run`` waited for), Ctrl-D gives the seat to a
stand-in instead of counting "EOFError" faults, and ``pass`` is a bid of 0.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.agents.human import LEFT, _StdinLines, _terminal_prompt
from arena.errors import AgentUnavailableError
from arena.games.ddz.agents.human import HumanAgent
from arena.games.ddz.messages import BidRequest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")

ROOT = Path(__file__).resolve().parent.parent
CONFIG = '[match]\nrounds = 1\nseed = 3\n[[seats]]\nname = "Me"\ntype = "human"\n'
CONFIG += '[[seats]]\nname = "B"\ntype = "greedy"\n[[seats]]\nname = "C"\ntype = "heuristic"\n'
BID_PROMPT = "bid (3/2/1/0, 0 = pass)? "  # with seed 3, Me bids first
# a session leader's first terminal opened becomes its controlling terminal: Ctrl-C typed
# into it is a SIGINT from the line discipline, as for a person at a real one
LAUNCH = """\
import os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
for n in (0, 1, 2):
    os.dup2(fd, n)
os.close(fd)
from arena.cli import main
raise SystemExit(main(sys.argv[2:]))
"""


class Terminal:
    """`arena play` with a pseudo-terminal as its controlling terminal."""

    def __init__(self, config: Path) -> None:
        self.master, slave = os.openpty()
        argv = ["play", "--config", str(config), "--no-live"]
        self.process = subprocess.Popen(
            [sys.executable, "-c", LAUNCH, os.ttyname(slave), *argv],
            cwd=ROOT,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(slave)
        self.output = ""

    def read_until(self, text: str, within_s: float = 30) -> None:
        """Read the screen until ``text`` shows (colours stripped)."""
        deadline = time.monotonic() + within_s
        while text not in self.output:
            left = deadline - time.monotonic()
            assert left > 0, f"{text!r} never showed:\n{self.output}"
            if not self._read(left):
                assert text in self.output, f"the arena ended before {text!r}:\n{self.output}"

    def type(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def exit_status(self, within_s: float) -> int:
        """The arena's exit status, reading the screen until it ends."""
        deadline = time.monotonic() + within_s
        while self.process.poll() is None:
            left = deadline - time.monotonic()
            assert left > 0, f"still running after {within_s} s:\n{self.output}"
            self._read(min(left, 0.1))
        while self._read(0.1):
            pass
        return self.process.returncode

    def _read(self, timeout_s: float) -> bool:
        """Some output within the time; False at the end of the terminal (the arena left)."""
        ready, _, _ = select.select([self.master], [], [], timeout_s)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536)
        except OSError:  # EIO: no process holds the terminal (not yet, or no more)
            if self.process.poll() is None:
                time.sleep(0.05)
                return True
            return False
        self.output += re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", chunk.decode("utf-8", "replace"))
        return bool(chunk)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        os.close(self.master)


@pytest.fixture
def terminal(tmp_path: Path) -> Iterator[Terminal]:
    config = tmp_path / "human.toml"
    config.write_text(CONFIG, encoding="utf-8")
    at = Terminal(config)
    try:
        yield at
    finally:
        at.close()


def test_ctrl_c_at_a_human_prompt_stops_the_match_at_once(terminal: Terminal) -> None:
    """No Enter needed: the same message and status as Ctrl-C anywhere in `arena play`."""
    terminal.read_until(BID_PROMPT)
    terminal.type(b"2")  # half an answer: Ctrl-C drops it with the match
    time.sleep(0.2)
    terminal.type(b"\x03")
    assert terminal.exit_status(within_s=10) == 130
    assert "arena: interrupted" in terminal.output
    assert "Traceback" not in terminal.output
    assert "bids 2" not in terminal.output


def test_ctrl_d_at_a_human_prompt_gives_the_seat_to_a_stand_in(terminal: Terminal) -> None:
    terminal.read_until(BID_PROMPT)
    terminal.type(b"\x04")
    assert terminal.exit_status(within_s=60) == 0
    out = terminal.output
    assert f"Me is replaced by a heuristic stand-in for the rest of the match: {LEFT}" in out
    assert "match over" in out
    assert "EOFError" not in out
    assert out.count(BID_PROMPT) == 1  # not asked again: nobody is there to answer


def test_pass_typed_at_the_bid_prompt_is_a_bid_of_0(terminal: Terminal) -> None:
    terminal.read_until(BID_PROMPT)
    terminal.type(b"pass\r")
    terminal.read_until("Me passes the bid")
    assert "✗" not in terminal.output
    terminal.type(b"\x03")
    assert terminal.exit_status(within_s=10) == 130


# ─── the reader itself, on a pipe ───────────────────────────────────────────────────────


@pytest.fixture
def piped_stdin(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """Standard input from a pipe; yields the end to write to."""
    read_end, write_end = os.pipe()
    with open(read_end, encoding="utf-8") as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        try:
            yield write_end
        finally:
            with contextlib.suppress(OSError):  # a test closed it already
                os.close(write_end)


async def test_a_cancelled_prompt_leaves_the_line_to_the_next_one(piped_stdin: int) -> None:
    """A seat's deadline (or Ctrl-C) ends the wait; the line typed later is not lost to a
    reader still waiting in a thread."""
    lines = _StdinLines()
    waiting = asyncio.ensure_future(lines.readline())
    await asyncio.sleep(0.05)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    os.write(piped_stdin, "3\r\n不叫\npartial".encode())
    assert await asyncio.wait_for(lines.readline(), 5) == "3"
    assert await asyncio.wait_for(lines.readline(), 5) == "不叫"
    os.close(piped_stdin)
    assert await asyncio.wait_for(lines.readline(), 5) == "partial"
    assert await asyncio.wait_for(lines.readline(), 5) is None


async def test_the_end_of_input_makes_the_human_seat_unavailable(
    piped_stdin: int, capsys: pytest.CaptureFixture[str]
) -> None:
    os.close(piped_stdin)
    request = BidRequest(player_id="Me", current_highest_bid=0, available_bids=[1, 0], hand=["♠3"])
    with pytest.raises(AgentUnavailableError, match="left the table"):
        await asyncio.wait_for(HumanAgent("Me").bid(request), 5)
    assert "bid (1/0, 0 = pass)?" in capsys.readouterr().out


async def test_without_a_file_descriptor_the_prompt_reads_the_stream(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("pass\n"))
    assert await _terminal_prompt("? ") == "pass"
    with pytest.raises(AgentUnavailableError):
        await _terminal_prompt("? ")
