"""Gifts from a JSON-lines file, replayed on their schedule: for rehearsals and tests.

Each non-blank line is a JSON object: a :class:`~gifts.events.GiftEvent`'s fields, plus
an optional ``"at"``, the seconds since the replay started when it is due. Lines are
sent in the file's order (never sorted): a line whose ``at`` is still ahead is waited
for, one whose ``at`` has passed, or that has none, goes right after the line before.
``speed`` 2 plays the schedule twice as fast. A bad line is refused with its number
and the replay goes on, so one typo does not end a rehearsal. A replay cancelled before
its end (the match ended first) logs one warning, ``gift_file_unsent``, counting the
lines not sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, BinaryIO

from arena.errors import ConfigError
from arena.logs import get_logger
from gifts.sources.inbox import Inbox
from gifts.sources.parse import claimed_identity, decode_object, gift_from_object

__all__ = ["replay_gift_file"]

log = get_logger(__name__)

Sleep = Callable[[float], Awaitable[Any]]


async def replay_gift_file(
    path: Path,
    inbox: Inbox,
    *,
    speed: float = 1.0,
    sleep: Sleep = asyncio.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """Send every line of ``path`` to ``inbox`` on its schedule (see the module) and
    return how many non-blank lines there were. ``sleep`` and ``clock`` are the waiting
    and the time (a test gives fakes). A file that cannot be read is a ConfigError
    naming it. Cancelled with lines still to send (the one waited for among them), it
    logs how many at warning and lets the cancellation through."""
    if not (speed > 0 and math.isfinite(speed)):
        raise ValueError(f"speed must be a positive number, not {speed!r}")
    start = clock()
    read = 0
    try:
        with path.open("rb") as file:
            for number, line in enumerate(file, start=1):
                if not line.strip():
                    continue
                read += 1
                try:
                    await _one_line(line, number, inbox, start, speed, sleep, clock)
                except asyncio.CancelledError:
                    _unsent(path, 1 + _left(file))
                    raise
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    return read


def _unreadable(path: Path, error: OSError) -> ConfigError:
    """Why ``path`` cannot be replayed, in words: a folder (whichever error opening one
    gives: IsADirectoryError here, PermissionError on Windows), missing, unreadable."""
    if isinstance(error, IsADirectoryError) or path.is_dir():
        return ConfigError(f"{path}: is a folder, not a gift file")
    if isinstance(error, FileNotFoundError):
        return ConfigError(f"{path}: no such gift file")
    return ConfigError(f"{path}: cannot read: {error.strerror or error}")


def _left(file: BinaryIO) -> int:
    """The non-blank lines left in ``file``: those it could read (a read failing now
    must not turn the cancellation into a ConfigError)."""
    left = 0
    with contextlib.suppress(OSError):
        for rest in file:
            left += bool(rest.strip())
    return left


def _unsent(path: Path, count: int) -> None:
    """The replay was cancelled with ``count`` non-blank lines not sent: said once."""
    log.warning(
        "gift_file_unsent",
        path=str(path),
        unsent=count,
        detail=f"{count} line(s) of {path} were not sent: the match ended first (slow the "
        "match with --pace, or shorten the file's times)",
    )


async def _one_line(
    line: bytes,
    number: int,
    inbox: Inbox,
    start: float,
    speed: float,
    sleep: Sleep,
    clock: Callable[[], float],
) -> None:
    """Wait for the line's time if it has one ahead, then accept or refuse it."""
    data = decode_object(line)
    if isinstance(data, str):
        await inbox.refuse(f"line {number}: {data}")
        return
    event_id, platform = claimed_identity(data)
    at = data.pop("at", None)
    if at is not None and (
        isinstance(at, bool) or not isinstance(at, int | float) or not 0 <= at < math.inf
    ):
        await inbox.refuse(
            f"line {number}: at: should be seconds since the start, 0 or more",
            event_id=event_id,
            platform=platform,
        )
        return
    gift = gift_from_object(data)
    if isinstance(gift, str):
        await inbox.refuse(f"line {number}: {gift}", event_id=event_id, platform=platform)
        return
    if at is not None:
        wait = at / speed - (clock() - start)
        if wait > 0:
            await sleep(wait)
    await inbox.accept(gift)
