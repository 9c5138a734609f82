"""Where viewer gifts come from, and the one seam they are delivered through.

Every source (the MQTT topic ``<prefix>/gifts/in``, a JSON-lines file replayed, a
simulated audience) turns what it receives into :class:`~gifts.events.GiftEvent` and
hands it to an :class:`Inbox`: ``accept`` for a valid gift, ``refuse`` with a short
reason for a payload that is no gift. What happens next (the queue, the table) is the
inbox's business; a source never waits on a table and never stops for a bad payload.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

from gifts.events import GiftEvent
from gifts.sources.jsonl import replay_gift_file
from gifts.sources.mqtt_in import gifts_topic, listen_for_gifts
from gifts.sources.parse import MAX_PAYLOAD_BYTES, decode_object, gift_from_object, parse_gift
from gifts.sources.simulated import simulate_audience

__all__ = [
    "MAX_PAYLOAD_BYTES",
    "CollectingInbox",
    "Inbox",
    "Refusal",
    "decode_object",
    "gift_from_object",
    "gifts_topic",
    "listen_for_gifts",
    "parse_gift",
    "replay_gift_file",
    "simulate_audience",
]


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
