"""Sending one gift to a running arena: what ``arena gift send`` and bridges do.

The gift goes as JSON to ``<prefix>/gifts/in`` at QoS 1, on the broker of the ``[mqtt]``
settings, where :func:`gifts.sources.mqtt_in.listen_for_gifts` reads it. The publish is
awaited until the broker acknowledges it, so a return means the broker has the gift
(not that an arena was listening: nothing is retained, a gift is for now or never).
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime

import aiomqtt

from arena.config import MqttSettings
from arena.errors import ArenaError
from arena.sinks.mqtt_publisher import broker_url
from gifts.events import Effect, GiftEvent, GiftKind
from gifts.sources.mqtt_in import gift_client, gifts_topic

__all__ = ["GiftSendError", "gift_for_test", "send_gift"]


class GiftSendError(ArenaError):
    """The gift could not be handed to the broker: which broker, and why."""


async def send_gift(settings: MqttSettings, gift: GiftEvent) -> None:
    """Publish ``gift`` to ``<prefix>/gifts/in`` and wait for the broker's acknowledgement.

    A broker that cannot be reached, refuses or does not answer is a GiftSendError
    naming it; a credential variable unset is a ConfigError.
    """
    broker = broker_url(settings.host, settings.port, tls=settings.tls)
    payload = gift.model_dump_json(exclude_none=True)
    try:
        try:
            await _publish(settings, payload)
        except aiomqtt.MqttCodeError as exc:
            if settings.protocol != "5" or not _speaks_only_311(exc):
                raise
            # an MQTT 3.1.1 broker (the arena's embedded one): as it speaks
            await _publish(settings.model_copy(update={"protocol": "3.1.1"}), payload)
    except aiomqtt.MqttError as exc:
        raise GiftSendError(
            f"cannot send the gift to the MQTT broker at {broker}: {exc or type(exc).__name__}"
        ) from exc


async def _publish(settings: MqttSettings, payload: str) -> None:
    client = gift_client(settings, client_id=f"ddz-arena-gift-send-{os.urandom(8).hex()}")
    async with client:
        await client.publish(gifts_topic(settings), payload, qos=1)


def _speaks_only_311(error: aiomqtt.MqttCodeError) -> bool:
    """The broker refused MQTT 5 for its version (CONNACK 0x84, or 3.1.1's code 1)."""
    code = error.rc
    value = getattr(code, "value", code)
    return value in (1, 0x84)


def gift_for_test(
    effect: Effect,
    *,
    viewer: str | None = None,
    table: str | None = None,
    event_id: str | None = None,
    target: int | None = None,
    message: str = "",
) -> GiftEvent:
    """A streamer's test gift naming its effect (platform ``test``, marked ``test``);
    the event id is ``test-`` and 12 random hex digits unless given. A value the gift
    event refuses (a seat out of 0-2, a bad table name) is its ValidationError."""
    return GiftEvent(
        event_id=event_id if event_id is not None else f"test-{uuid.uuid4().hex[:12]}",
        platform="test",
        kind=GiftKind.GIFT,
        display_name=viewer or "",
        table=table,
        target_seat=target,
        message=message,
        effect=effect,
        test=True,
        sent_at=datetime.now(UTC),
    )
