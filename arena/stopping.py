"""How a command stops on SIGTERM: as on Ctrl-C, its agents closed and their programs ended.

Its own module so that every command (``arena`` and the packages above it, which
``arena.cli`` reaches into) uses it without importing the command line back.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from typing import Final

__all__ = ["is_sigterm", "stop_on_sigterm"]

_SIGTERM: Final = "SIGTERM"


def is_sigterm(exc: BaseException) -> bool:
    """Whether ``exc`` is the cancellation :func:`stop_on_sigterm` makes (a command that
    says how to go on says it for SIGTERM as for Ctrl-C)."""
    return isinstance(exc, asyncio.CancelledError) and exc.args == (_SIGTERM,)


def stop_on_sigterm() -> None:
    """Let SIGTERM (a service manager, ``timeout``, a CI runner cancelling a job) stop
    the running command as Ctrl-C does: the main task is cancelled, so every agent is
    closed and every program it started is ended, where SIGTERM's default would kill
    the arena alone and leave those programs running. Call it inside the command's
    coroutine; ``arena.cli.main`` turns the cancellation into exit status 143."""
    task = asyncio.current_task()
    if task is None:
        return
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        # no signal handlers on Windows' loop, or off the main thread
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel, _SIGTERM)
