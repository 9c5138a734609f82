"""A person at the terminal takes a seat: the streamer against the AIs.

What every game's human seat shares (:class:`HumanSeat`): the terminal, read through
the event loop, so Ctrl-C at a prompt stops the match at once; Ctrl-D (the end of input)
means the player left, and the seat goes to a stand-in for the rest of the match; and a
mistake explained and asked again here, before it ever reaches the table, so a typo
costs the player nothing. What is shown and how a typed answer reads are the game's
(``Game.human_seat`` names its seat, the type ``human`` at its tables).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

from arena.agents.base import AgentBase, default_game_export
from arena.errors import AgentUnavailableError, IllegalActionError
from protocol import Message, ReplyRejected

__all__ = ["LEFT", "HumanSeat", "Prompt"]

T = TypeVar("T")

Prompt = Callable[[str], Awaitable[str]]


LEFT: Final = "left the table (end of input, Ctrl-D)"
"""Why a human seat is given up: the player closed the input, nothing more can be read."""


class _StdinLines:
    """Lines of standard input read through the event loop, so that waiting for one can
    be cancelled at once: Ctrl-C stops the match without waiting for Enter, and a seat's
    deadline leaves the unread line to the next prompt. ``input()`` in a thread could
    not be cancelled, and ``asyncio.run`` waited for that thread before it returned."""

    def __init__(self) -> None:
        self._pending = bytearray()  # read past the end of the last line given

    async def readline(self) -> str | None:
        """The next line without its newline; None at the end of input."""
        try:
            fd = sys.stdin.fileno()
            loop = asyncio.get_running_loop()
            ready = asyncio.Event()
            loop.add_reader(fd, ready.set)
        except (AttributeError, OSError, ValueError, NotImplementedError):
            # no file descriptor (a test's StringIO), a regular file, or a loop without
            # add_reader: reading does not wait for a person, so a thread is harmless
            return await asyncio.to_thread(_readline_from_stream)
        try:
            while b"\n" not in self._pending:
                await ready.wait()
                ready.clear()
                try:
                    chunk = os.read(fd, 4096)
                except OSError:  # EIO: the terminal hung up, the player is gone as well
                    chunk = b""
                if not chunk:
                    break
                self._pending += chunk
        finally:
            loop.remove_reader(fd)
        if not self._pending:
            return None
        line, _, rest = bytes(self._pending).partition(b"\n")
        self._pending[:] = rest
        return line.rstrip(b"\r").decode(sys.stdin.encoding or "utf-8", errors="replace")


def _readline_from_stream() -> str | None:
    """A line of a standard input without a descriptor to watch; None at its end."""
    line = sys.stdin.readline()
    return line.rstrip("\r\n") if line else None


_STDIN = _StdinLines()


async def _terminal_prompt(text: str) -> str:
    """Show ``text`` and read the answer from the terminal; AgentUnavailableError at the
    end of input (the player pressed Ctrl-D or closed the terminal)."""
    sys.stdout.write(text)
    sys.stdout.flush()
    try:
        line = await _STDIN.readline()
    except asyncio.CancelledError:  # Ctrl-C or the deadline: what follows starts a line
        print()
        raise
    if line is None:
        print()  # the terminal echoed nothing: end the prompt's line
        raise AgentUnavailableError(LEFT)
    return line


class HumanSeat(AgentBase):
    """Asks a person at the terminal (or any async ``prompt`` function, for tests); a
    game's human seat subclasses it with the methods of its requests, each showing what
    the player needs and reading the answer with :meth:`ask_person`."""

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        prompt: Prompt | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name, seed=seed, **options)
        self._prompt: Prompt = prompt or _terminal_prompt

    async def notify(self, message: Message) -> None:
        """Show why a reply was refused (rare: answers are checked before sending)."""
        if isinstance(message, ReplyRejected):
            print(f"  ✗ {message.detail}")

    async def ask_person(self, text: str, read: Callable[[str], T]) -> T:
        """Show ``text`` and read the answer with ``read`` until it reads: each
        IllegalActionError it raises is shown, and the question asked again."""
        while True:
            answer = await self._prompt(text)
            try:
                return read(answer)
            except IllegalActionError as exc:
                print(f"  ✗ {exc}")


def __getattr__(name: str) -> Any:
    """The default game's human seat and its readers, where they were before the game
    seam (:func:`arena.agents.base.default_game_export`)."""
    return default_game_export(__name__, name)
