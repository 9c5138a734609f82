"""A person at the terminal takes a seat: the streamer against two AIs.

The hand is shown, moves are typed in the lenient card syntax (``3 3 3 4``, ``♠10 J Q K A``,
``pass``), and a mistake is explained and asked again here, before it ever reaches the
table, so a typo costs the player nothing. The terminal is read through the event loop,
so Ctrl-C at a prompt stops the match at once; Ctrl-D (the end of input) means the player
left, and the seat goes to a stand-in for the rest of the match.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final

from arena.agents.base import BaseAgent
from arena.errors import AgentUnavailableError, IllegalActionError
from arena.games.ddz.agents.reading import hand_of, legal_for, pass_reply, trick_of
from arena.games.ddz.engine import DEFAULT_RULES, Combo, Rules, playable_reading, resolve_cards
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)
from protocol import Message, ReplyRejected

__all__ = ["HumanAgent", "parse_human_bid", "parse_human_double", "parse_human_move"]

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


PASS_WORDS: Final = frozenset({"pass", "p", "不出", "过", "要不起"})
"""A pass at the move prompt."""
BID_PASS_WORDS: Final = PASS_WORDS | {"no", "n", "不叫", "不要"}
"""A bid of 0: the move prompt's pass words work here too, so a player need not switch."""
YES_WORDS: Final = frozenset({"y", "yes", "1", "加倍", "double", "redouble"})
NO_WORDS: Final = BID_PASS_WORDS | {"", "0", "不加倍"}
"""Not doubling; Enter alone too (the prompt's default)."""


def parse_human_bid(line: str, allowed: Sequence[int]) -> int:
    """Read a typed bid: a number, or a pass word (or Enter) for 0. Raises
    IllegalActionError explaining the problem, so the player is asked again."""
    text = line.strip().lower()
    if not text or text in BID_PASS_WORDS:
        value = 0
    else:
        try:
            value = int(text)
        except ValueError:
            raise IllegalActionError(
                f"{line.strip()!r} is not a bid: type a number or 'pass'"
            ) from None
    if value not in allowed:
        shown = "/".join(str(b) for b in allowed)
        raise IllegalActionError(f"{value} is not allowed now; allowed: {shown}")
    return value


def parse_human_double(line: str) -> bool:
    """Read a yes or no to doubling. Raises IllegalActionError for anything else: a typo
    is asked again rather than read as no."""
    text = line.strip().lower()
    if text in YES_WORDS:
        return True
    if text in NO_WORDS:
        return False
    raise IllegalActionError(f"{line.strip()!r}: answer y (yes) or n (no, also 'pass')")


def parse_human_move(line: str, request: PlayRequest, rules: Rules = DEFAULT_RULES) -> Combo | None:
    """Read a typed move; None means pass. Raises IllegalActionError explaining the problem."""
    text = line.strip()
    if text.lower() in PASS_WORDS:
        if request.is_free_play:
            raise IllegalActionError("you lead this trick: you must play something")
        return None
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise IllegalActionError("type some cards, or 'pass'")
    cards = resolve_cards(tokens, hand_of(request))
    return playable_reading(cards, trick_of(request), rules)


class HumanAgent(BaseAgent):
    """Asks a person at the terminal (or any async ``prompt`` function, for tests)."""

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
        """Show why a reply was refused (rare: moves are checked before sending)."""
        if isinstance(message, ReplyRejected):
            print(f"  ✗ {message.detail}")

    async def bid(self, request: BidRequest) -> BidResponse:
        """Ask for a bid among the allowed ones."""
        hand = " ".join(request.hand or [])
        allowed = "/".join(str(b) for b in request.available_bids)
        while True:
            answer = await self._prompt(
                f"\n[{self.name}] hand: {hand}\n  bid ({allowed}, 0 = pass)? "
            )
            try:
                value = parse_human_bid(answer, request.available_bids)
            except IllegalActionError as exc:
                print(f"  ✗ {exc}")
                continue
            return BidResponse(
                player_id=request.player_id, bid=value, request_id=request.request_id
            )

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Ask whether to double (or redouble) until the answer is a yes or a no."""
        word = "redouble" if request.kind == "redouble" else "double"
        while True:
            answer = await self._prompt(f"\n[{self.name}] {word}? (y/N) ")
            try:
                double = parse_human_double(answer)
            except IllegalActionError as exc:
                print(f"  ✗ {exc}")
                continue
            return DoubleResponse(
                player_id=request.player_id, double=double, request_id=request.request_id
            )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Show the hand and the trick; read moves until one is legal."""
        hand = " ".join(request.hand)
        if request.last_play and not request.is_free_play:
            last = request.last_play
            trick = f"{last.player} played {' '.join(last.cards)} ({last.type.value})"
        else:
            trick = "you lead"
        hint = len(legal_for(request, self.rules))
        while True:
            line = await self._prompt(
                f"\n[{self.name}] {trick}\n  hand: {hand}\n  your move ({hint} legal; 'pass')? "
            )
            try:
                move = parse_human_move(line, request, self.rules)
            except IllegalActionError as exc:
                print(f"  ✗ {exc}")
                continue
            if move is None:
                return pass_reply(request)
            return PlayResponse(
                player_id=request.player_id,
                action="PLAY",
                cards=[c.text for c in move.cards],
                hand_type=move.type,
                request_id=request.request_id,
            )
