"""Sending one gift to a running arena: what ``arena gift send`` and bridges do.

The gift goes as JSON to ``<prefix>/gifts/in`` at QoS 1, on the broker of the ``[mqtt]``
settings, where :func:`gifts.sources.mqtt_in.listen_for_gifts` reads it. The publish is
awaited until the broker acknowledges it, so a return means the broker took the gift
(not that an arena was listening: nothing is retained, a gift is for now or never).

Over MQTT 5 (the default) the acknowledgement carries a reason code, and a refusal (an
ACL that does not let this client write ``gifts/in``: "Not authorized", 135) is a
:class:`GiftSendError`. Over MQTT 3.1.1 (``[mqtt] protocol = "3.1.1"``, or a broker that
speaks only that, such as the arena's embedded one) there is no reason code: a broker
that refuses the publish still acknowledges it (Mosquitto drops it silently), so a
return then does not prove the broker took the gift.
"""

from __future__ import annotations

import os
import uuid
from datetime import UTC, datetime
from typing import Any

import aiomqtt
from paho.mqtt.reasoncodes import ReasonCode

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

    A broker that cannot be reached, refuses the connection or does not answer is a
    GiftSendError naming it, and so is an MQTT 5 broker that acknowledges the publish
    with a refusal (a reason code from 0x80: an ACL's "Not authorized"); an MQTT 3.1.1
    broker cannot say it refused (see the module). A credential variable unset is a
    ConfigError.
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
    refusals = _hear_refusals(client)
    async with client:
        await client.publish(gifts_topic(settings), payload, qos=1)
    if refusals:
        code = refusals[0]
        broker = broker_url(settings.host, settings.port, tls=settings.tls)
        who = (
            f"as the user named by ${settings.username_env}"
            if settings.username_env
            else "anonymously"
        )
        raise GiftSendError(
            f"the broker refused the gift: {code.getName()} ({code.value}), sent {who} to "
            f"{gifts_topic(settings)} at {broker}; with config/mosquitto.acl only the gifts "
            "user may send ([mqtt] username_env and password_env name its variables)"
        )


def _hear_refusals(client: aiomqtt.Client) -> list[ReasonCode]:
    """The refusals the broker acknowledges this client's publishes with, filled in as
    the acknowledgements come. aiomqtt's ``publish`` returns on any PUBACK, whatever its
    reason code, so paho's ``on_publish`` (which gets the code) is wrapped to note it."""
    paho = client._client  # aiomqtt offers no other way to the PUBACK's reason code
    forward = paho.on_publish
    refusals: list[ReasonCode] = []

    def on_publish(*args: Any) -> None:  # (client, userdata, mid, reason_code, properties)
        code = args[3]
        if isinstance(code, ReasonCode) and code.is_failure:
            refusals.append(code)
        if forward is not None:
            forward(*args)

    paho.on_publish = on_publish
    return refusals


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
