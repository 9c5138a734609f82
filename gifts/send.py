"""Sending one gift to a running arena: what ``arena gift send`` and bridges do.

The gift goes as JSON to ``<prefix>/gifts/in`` at QoS 1, on the broker of the ``[mqtt]``
settings, where :func:`gifts.sources.mqtt_in.listen_for_gifts` reads it. The publish is
awaited until the broker acknowledges it, so a return means the broker took the gift.
Nothing is retained (a gift is for now or never), so a gift no arena listens for is
lost: with ``require_arena`` (``arena gift send`` without ``--force``) the arena's
retained status (``<prefix>/status``) is read first, on the same connection, and a
broker where it is missing or ``offline`` gets no gift (:class:`NoArenaError`); an
MQTT 5 broker that acknowledges the gift with "No matching subscribers" (16: nothing
subscribes to ``gifts/in``, an arena playing without gifts) is a NoArenaError too.

Over MQTT 5 (the default) the acknowledgement carries a reason code, and a refusal (an
ACL that does not let this client write ``gifts/in``: "Not authorized", 135) is a
:class:`GiftSendError`. Over MQTT 3.1.1 (``[mqtt] protocol = "3.1.1"``, or a broker that
speaks only that, such as the arena's embedded one) there is no reason code: a broker
that refuses the publish still acknowledges it (Mosquitto drops it silently), and one
with no subscriber cannot say so, so a return then does not prove the broker took the
gift, nor that a listener got it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import uuid
from datetime import UTC, datetime
from typing import Any, Final

import aiomqtt
import orjson
from paho.mqtt.reasoncodes import ReasonCode

from arena.config import MqttSettings
from arena.errors import ArenaError
from arena.sinks.mqtt import status_topic
from arena.sinks.mqtt_publisher import broker_url
from gifts.events import GiftEffect, GiftEvent, GiftKind
from gifts.sources.mqtt_in import gift_client, gifts_topic, subscription_refused

__all__ = ["STATUS_WAIT_S", "GiftSendError", "NoArenaError", "gift_for_test", "send_gift"]

STATUS_WAIT_S: Final = 2.0
"""How long to wait for the arena's retained status once subscribed: a broker sends a
retained message right after its SUBACK, so a short wait tells "none" apart."""
_NO_MATCHING_SUBSCRIBERS: Final = 0x10
"""An MQTT 5 PUBACK's reason code: the broker took the message, and nobody subscribes."""


class GiftSendError(ArenaError):
    """The gift could not be handed to the broker: which broker, and why."""


class NoArenaError(GiftSendError):
    """No arena takes gifts on that broker now (no status, ``offline``, or no listener):
    a gift sent would be lost."""


async def send_gift(
    settings: MqttSettings, gift: GiftEvent, *, require_arena: bool = False
) -> None:
    """Publish ``gift`` to ``<prefix>/gifts/in`` and wait for the broker's acknowledgement.

    A broker that cannot be reached, refuses the connection or does not answer is a
    GiftSendError naming it, and so is an MQTT 5 broker that acknowledges the publish
    with a refusal (a reason code from 0x80: an ACL's "Not authorized"); an MQTT 3.1.1
    broker cannot say it refused (see the module). With ``require_arena``, no arena
    online there (or, over MQTT 5, none listening for gifts) is a NoArenaError, and the
    gift is not sent (see the module). A credential variable unset is a ConfigError.
    """
    broker = broker_url(settings.host, settings.port, tls=settings.tls)
    payload = gift.model_dump_json(exclude_none=True)
    try:
        try:
            await _publish(settings, payload, require_arena=require_arena)
        except aiomqtt.MqttCodeError as exc:
            if settings.protocol != "5" or not _speaks_only_311(exc):
                raise
            # an MQTT 3.1.1 broker (the arena's embedded one): as it speaks
            as_311 = settings.model_copy(update={"protocol": "3.1.1"})
            await _publish(as_311, payload, require_arena=require_arena)
    except aiomqtt.MqttError as exc:
        raise GiftSendError(
            f"cannot send the gift to the MQTT broker at {broker}: {exc or type(exc).__name__}"
        ) from exc


async def _publish(settings: MqttSettings, payload: str, *, require_arena: bool) -> None:
    client = gift_client(settings, client_id=f"ddz-arena-gift-send-{os.urandom(8).hex()}")
    acknowledged = _hear_acknowledgements(client)
    async with client:
        if require_arena:
            _require_online(settings, await _arena_status(client, settings))
        await client.publish(gifts_topic(settings), payload, qos=1)
    broker = broker_url(settings.host, settings.port, tls=settings.tls)
    refusals = [code for code in acknowledged if code.is_failure]
    if refusals:
        code = refusals[0]
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
    if require_arena and any(code.value == _NO_MATCHING_SUBSCRIBERS for code in acknowledged):
        raise NoArenaError(
            f"the arena at {broker} is online but takes no gifts: nothing subscribes to "
            f"{gifts_topic(settings)}, so the broker dropped the gift (start the arena "
            "with --gifts)"
        )


async def _arena_status(client: aiomqtt.Client, settings: MqttSettings) -> str | None:
    """The arena's retained status on the broker (``online``, ``offline``), or None when
    none comes within :data:`STATUS_WAIT_S` of subscribing."""
    topic = status_topic(settings)
    granted = await client.subscribe(topic, qos=1)
    if any(subscription_refused(code) for code in granted):
        raise GiftSendError(
            f"the broker does not let this client read {topic}, where the arena says it "
            f"is online: let it read that topic (config/mosquitto.acl does, for the gifts "
            "user), or send with --force, unchecked"
        )
    try:
        async with asyncio.timeout(STATUS_WAIT_S):
            async for message in client.messages:
                if message.topic.matches(topic):  # a broker may send others (amqtt does)
                    payload = message.payload
                    return _status_word(payload if isinstance(payload, bytes) else b"")
    except TimeoutError:
        pass
    return None


def _status_word(payload: bytes) -> str:
    """``online`` or ``offline`` from a status payload: plain text, or a JSON object's
    ``status`` (``{"status": "online", "run": ..., ...}``); anything else as it is."""
    text = payload.decode("utf-8", errors="replace").strip()
    if text.startswith("{"):
        with contextlib.suppress(ValueError):
            said = orjson.loads(text)
            if isinstance(said, dict) and isinstance(said.get("status"), str):
                return str(said["status"]).strip()
    return text


def _require_online(settings: MqttSettings, status: str | None) -> None:
    """Nothing, when an arena is there; else the NoArenaError saying what the status
    says. Any status but ``offline`` is an arena there (one that is online, perhaps
    saying more than ``online``)."""
    broker = broker_url(settings.host, settings.port, tls=settings.tls)
    topic = status_topic(settings)
    if not status:
        hidden = (  # Mosquitto grants a subscription its ACL forbids, and sends nothing
            f"; a broker's ACL must let the user named by ${settings.username_env} read it"
            if settings.username_env
            else ""
        )
        raise NoArenaError(
            f"no arena is playing at {broker}: {topic} holds no status (an arena playing "
            f"with --mqtt keeps 'online' there{hidden}); start one with --mqtt --gifts on "
            "this broker and topic prefix, or --force sends the gift unchecked"
        )
    if status == "offline":
        raise NoArenaError(
            f"the arena at {broker} is offline ({topic}: its match is over, or it "
            "stopped): nothing would take the gift; --force sends it unchecked"
        )


def _hear_acknowledgements(client: aiomqtt.Client) -> list[ReasonCode]:
    """The reason codes the broker acknowledges this client's publishes with, filled in
    as the acknowledgements come. aiomqtt's ``publish`` returns on any PUBACK, whatever
    its reason code, so paho's ``on_publish`` (which gets the code) is wrapped to note it."""
    paho = client._client  # aiomqtt offers no other way to the PUBACK's reason code
    forward = paho.on_publish
    codes: list[ReasonCode] = []

    def on_publish(*args: Any) -> None:  # (client, userdata, mid, reason_code, properties)
        code = args[3]
        if isinstance(code, ReasonCode):
            codes.append(code)
        if forward is not None:
            forward(*args)

    paho.on_publish = on_publish
    return codes


def _speaks_only_311(error: aiomqtt.MqttCodeError) -> bool:
    """The broker refused MQTT 5 for its version (CONNACK 0x84, or 3.1.1's code 1)."""
    code = error.rc
    value = getattr(code, "value", code)
    return value in (1, 0x84)


def gift_for_test(
    effect: GiftEffect,
    *,
    viewer: str | None = None,
    table: str | None = None,
    event_id: str | None = None,
    target: int | None = None,
    message: str = "",
) -> GiftEvent:
    """A streamer's test gift naming its effect (platform ``test``, marked ``test``);
    the event id is ``test-`` and 12 random hex digits unless given. A value the gift
    event refuses (a seat out of 0-5, a bad table name) is its ValidationError."""
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
