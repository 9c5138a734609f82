"""Gifts from MQTT: every message on ``<prefix>/gifts/in``, judged and delivered.

Bridges (a platform's webhook receiver, ``arena gift send``) publish one gift event as
JSON per message, QoS 1. The listener connects with the ``[mqtt]`` settings (the same
broker as the live feed, TLS and protocol version included, credentials from the
variables they name) under a client id of its own, random each time: never the feed's,
which the broker would hand the session of. When the broker goes away it connects again,
waiting 0.5 s, then twice as long each time up to 10 s; gifts published meanwhile are
not kept for it (a clean session each time), which suits gifts that expire anyway. An
outage is told once: its first failure at warning (``gift_source_disconnected``, the
broker and the retry), the further attempts at debug, and ``gift_source_listening`` at
warning again (``back``) once subscribed after it.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Mapping
from typing import Final

import aiomqtt

from arena.config import MqttSettings
from arena.logs import get_logger
from arena.sinks.mqtt_client import mqtt_client, mqtt_credentials
from arena.sinks.mqtt_publisher import broker_url
from gifts.sources.inbox import Inbox
from gifts.sources.parse import deliver

__all__ = ["gift_client", "gifts_topic", "listen_for_gifts", "subscription_refused"]

log = get_logger(__name__)

FIRST_BACKOFF_S: Final = 0.5
BACKOFF_CAP_S: Final = 10.0
_FAILED: Final = 0x80
"""SUBACK return codes from this one up are refusals (MQTT 3.1.1 and 5 alike)."""


def gifts_topic(settings: MqttSettings) -> str:
    """Where gifts are published and listened for: ``<prefix>/gifts/in``."""
    return f"{settings.topic_prefix}/gifts/in"


def gift_client(
    settings: MqttSettings, *, client_id: str, environ: Mapping[str, str] | None = None
) -> aiomqtt.Client:
    """An aiomqtt client for ``settings``, not yet connected (``async with`` connects)."""
    return mqtt_client(
        settings, client_id=client_id, credentials=mqtt_credentials(settings, environ)
    )


async def listen_for_gifts(
    settings: MqttSettings,
    inbox: Inbox,
    *,
    ready: asyncio.Event | None = None,
    first_backoff_s: float = FIRST_BACKOFF_S,
    backoff_cap_s: float = BACKOFF_CAP_S,
    environ: Mapping[str, str] | None = None,
) -> None:
    """Deliver every message of ``<prefix>/gifts/in`` to ``inbox`` until cancelled.

    ``ready`` is set while subscribed and cleared while the broker is away, so a caller
    can wait for the listener to be reachable. A broker that is away, refuses or breaks
    the connection is logged (once an outage, see the module) and tried again with
    backoff; an inbox that raises is logged and the next message is read; anything
    else that goes wrong is logged in full and tried again too. Only a credential
    variable that is unset (ConfigError, at once, before connecting) and cancellation
    end it.
    """
    topic = gifts_topic(settings)
    broker = broker_url(settings.host, settings.port, tls=settings.tls)
    found = mqtt_credentials(settings, environ)  # a ConfigError now, not a retry forever
    backoff = first_backoff_s
    outage: _Outage | None = None
    while True:
        client = mqtt_client(
            settings, client_id=f"ddz-arena-gifts-{os.urandom(8).hex()}", credentials=found
        )
        try:
            async with client:
                await _subscribe(client, topic)
                if outage is None:
                    log.info("gift_source_listening", broker=broker, topic=topic)
                else:
                    log.warning(
                        "gift_source_listening",
                        broker=broker,
                        topic=topic,
                        back=True,
                        detail=f"back after {outage.seconds():.1f} s away and "
                        f"{outage.failures} failed attempt(s)",
                    )
                    outage = None
                backoff = first_backoff_s
                if ready is not None:
                    ready.set()
                async for message in client.messages:
                    await _handle(inbox, message.payload)
        except aiomqtt.MqttError as exc:
            if ready is not None:
                ready.clear()
            error = str(exc) or type(exc).__name__
            if outage is None:
                outage = _Outage()
                log.warning(
                    "gift_source_disconnected",
                    broker=broker,
                    error=error,
                    retry_in_s=backoff,
                    detail=f"retrying, at most {backoff_cap_s:g} s apart; further failures "
                    "are logged at debug until it is back",
                )
            else:
                outage.failures += 1
                log.debug(
                    "gift_source_disconnected",
                    broker=broker,
                    error=error,
                    retry_in_s=backoff,
                    failures=outage.failures,
                )
        except Exception:  # not the broker's doing: said in full, and tried again all the same
            if ready is not None:
                ready.clear()
            if outage is None:
                outage = _Outage()
            else:
                outage.failures += 1
            log.exception("gift_source_failed", broker=broker, retry_in_s=backoff)
        await asyncio.sleep(backoff)
        backoff = min(backoff * 2, backoff_cap_s)


class _Outage:
    """Since when the listener has been without its broker, and how many attempts
    failed (the first one included)."""

    def __init__(self) -> None:
        self.began = time.monotonic()
        self.failures = 1

    def seconds(self) -> float:
        return time.monotonic() - self.began


async def _subscribe(client: aiomqtt.Client, topic: str) -> None:
    """Subscribe at QoS 1; a refusal (an ACL) is an MqttError, retried like any other."""
    granted = await client.subscribe(topic, qos=1)
    if any(subscription_refused(code) for code in granted):
        raise aiomqtt.MqttError(f"the broker refused the subscription to {topic}")


def subscription_refused(code: object) -> bool:
    """Whether one SUBACK code refuses: a ReasonCode that says so, or an int from 0x80."""
    failure = getattr(code, "is_failure", None)
    if isinstance(failure, bool):
        return failure
    return isinstance(code, int) and code >= _FAILED


async def _handle(inbox: Inbox, payload: object) -> None:
    """One message to the inbox; the inbox's own failure is logged, not raised, so one
    bad consumer call does not drop the connection."""
    try:
        if isinstance(payload, bytes | bytearray | str):
            await deliver(inbox, payload)
        else:  # aiomqtt gives bytes; a None or a number would be its own doing
            await inbox.refuse("payload is not bytes")
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("gift_inbox_failed")
