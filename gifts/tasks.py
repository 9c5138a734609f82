"""Running gift sources as tasks: started logged, stopped firmly, one audience a table.

``arena play`` (:mod:`gifts.run`) and a tournament (:mod:`tournaments.gifts`) both run
their sources (MQTT, a gift file, simulated audiences) as asyncio tasks beside the
tables; these are the pieces they share.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Iterable
from typing import Any, Final

from arena.logs import get_logger
from gifts.events import GiftEvent
from gifts.sources import Inbox

__all__ = ["STOP_TRIES", "STOP_WAIT_S", "AtTable", "cancel_firmly", "start_logged"]

log = get_logger("gifts.tasks")

STOP_TRIES: Final = 5
STOP_WAIT_S: Final = 1.0
"""A source still running this long after its cancellation is cancelled again."""


def start_logged(source: Coroutine[Any, Any, Any]) -> asyncio.Task[None]:
    """Run a source as a task whose failure is logged (the match goes on without it),
    never raised. A task cancelled before its first step (a table over at once) closes
    its source, which would otherwise be reported as never awaited."""
    task = asyncio.create_task(_logged(source))
    task.add_done_callback(lambda _: source.close())  # no-op for one that ran
    return task


async def _logged(source: Coroutine[Any, Any, Any]) -> None:
    try:
        await source
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        log.exception("gift_source_failed", error=str(exc) or type(exc).__name__)


async def cancel_firmly(tasks: Iterable[asyncio.Task[Any]]) -> None:
    """Cancel the sources and wait for them, cancelling again while one is still there
    after a moment: the MQTT listener cancelled while its client connects may take the
    first cancellation for its own (aiomqtt waits for a disconnection then), and one
    more wakes it. What is left after a few tries is logged, never waited for."""
    pending = set(tasks)
    for _ in range(STOP_TRIES):
        for task in pending:
            task.cancel()
        if not pending:
            return
        _, pending = await asyncio.wait(pending, timeout=STOP_WAIT_S)
    if pending:
        log.warning("gift_source_stuck", tasks=[task.get_name() for task in pending])


class AtTable:
    """An inbox that sends every gift to one table (a simulated audience per table)."""

    def __init__(self, inbox: Inbox, table_id: str) -> None:
        self._inbox = inbox
        self._table = table_id

    async def accept(self, gift: GiftEvent) -> None:
        await self._inbox.accept(gift.model_copy(update={"table": self._table}))

    async def refuse(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        await self._inbox.refuse(reason, event_id=event_id, platform=platform)
