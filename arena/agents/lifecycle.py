"""Starting and closing an agent, the same way wherever it happens (a table, agent check).

``open`` is optional (most agents have nothing to start); a failure there is an
:class:`~arena.errors.AgentStartError` naming the seat, whatever the agent raised. A
close never raises: it gets the seat's deadline or :data:`CLOSE_ALLOWANCE_S`, whichever
is longer, and what goes wrong is logged.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, Final

from arena.errors import AgentStartError, error_text
from arena.logs import get_logger

__all__ = ["CLOSE_ALLOWANCE_S", "close_agent", "open_agent"]

log = get_logger(__name__)

CLOSE_ALLOWANCE_S: Final = 10.0
"""The least time an agent gets to close (a program to exit) at the end of a match."""


async def open_agent(agent: Any, where: str) -> None:
    """Run the agent's ``open`` if it has one; ``where`` (``"seat 1 ('Kit')"``) names the
    seat in the AgentStartError that any failure becomes."""
    opener = getattr(agent, "open", None)
    if opener is None:
        return
    try:
        await opener()
    except AgentStartError as exc:
        raise AgentStartError(f"{where} could not start: {exc}") from exc
    except Exception as exc:  # an agent author's bug in open()
        log.debug("agent_open_raised", where=where, exc_info=exc)
        raise AgentStartError(f"{where} could not start: {type(exc).__name__}: {exc}") from exc


async def close_agent(agent: Any, timeout_s: float, /, **log_fields: object) -> None:
    """Close the agent within ``max(timeout_s, CLOSE_ALLOWANCE_S)``: a program asked to
    exit may take a moment, and one that will not is killed by its agent within that
    time. Failures are logged (with ``log_fields``), never raised."""
    allowed = max(timeout_s, CLOSE_ALLOWANCE_S)
    try:
        async with asyncio.timeout(allowed):
            closing = agent.close()
            if inspect.isawaitable(closing):  # a plain method is tolerated, as elsewhere
                await closing
    except TimeoutError:
        log.warning("agent_close_timed_out", seconds=allowed, **log_fields)
    except Exception as exc:
        log.warning("agent_close_failed", error=error_text(exc), **log_fields)
        log.debug("agent_close_raised", exc_info=exc, **log_fields)
