"""The seam every gift source delivers through: :class:`Inbox`, and a collecting one.

A module of its own, below the sources: each source module takes an inbox, and the
package's ``__init__`` imports every source, so the sources cannot take it from there.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from gifts.events import GiftEvent

__all__ = ["CollectingInbox", "Inbox", "Refusal"]


class Inbox(Protocol):
    """What every source delivers to (the gift desk, or a test's collector)."""

    async def accept(self, gift: GiftEvent) -> None:
        """A valid, normalized gift."""
        ...

    async def refuse(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        """A payload that is no gift: ``reason`` names the field and the problem, short;
        ``event_id`` and ``platform`` are what the payload claimed, when it did."""
        ...


class Refusal(NamedTuple):
    """One refused payload, as :class:`CollectingInbox` keeps it."""

    reason: str
    event_id: str | None
    platform: str | None


@dataclass
class CollectingInbox:
    """An inbox that keeps everything, in order: for tests and for trying a source out."""

    accepted: list[GiftEvent] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    _changed: asyncio.Event = field(default_factory=asyncio.Event, repr=False)

    async def accept(self, gift: GiftEvent) -> None:
        self.accepted.append(gift)
        self._changed.set()

    async def refuse(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        self.refused.append(Refusal(reason, event_id, platform))
        self._changed.set()

    @property
    def received(self) -> int:
        """How many payloads came in, accepted or refused."""
        return len(self.accepted) + len(self.refused)

    async def wait_for(self, count: int) -> None:
        """Until ``count`` payloads came in; the caller bounds the wait (asyncio.timeout)."""
        while self.received < count:
            self._changed.clear()
            await self._changed.wait()
