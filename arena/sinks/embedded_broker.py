"""An MQTT broker inside the arena's process, for ``arena play --mqtt`` without a broker.

``arena play --mqtt`` (no URL) publishes to the broker at 127.0.0.1:1883 when one
answers there; when none does, it starts this one (the ``amqtt`` package, the
``broker`` install extra) on that address, bound to 127.0.0.1 only, for as long as the
match lasts. It is for trying the feed out on one machine, not for streams
(config/mosquitto.conf is). amqtt 0.12.1 speaks MQTT 3.1.1 only (no MQTT 5), may
deliver retained messages to a client that never subscribed to their topic and may
send a late subscriber a message twice: consumers filter by topic, and each event's
``seq`` makes a duplicate harmless (docs/mqtt.md).
"""

from __future__ import annotations

import asyncio
import logging
import socket
from typing import Any, Final

from arena.errors import ConfigError

__all__ = ["INSTALL_HINT", "EmbeddedBroker", "broker_answers"]

INSTALL_HINT: Final = "install the broker extra: pip install -e '.[broker]'"
_PROBE_TIMEOUT_S: Final = 0.5


def broker_answers(host: str, port: int, timeout_s: float = _PROBE_TIMEOUT_S) -> bool:
    """Whether something accepts TCP connections at ``host:port`` (a broker, presumably)."""
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


class EmbeddedBroker:
    """An amqtt broker on ``127.0.0.1:port``, anonymous, in the running event loop."""

    host: Final = "127.0.0.1"

    def __init__(self, port: int) -> None:
        try:
            from amqtt.broker import Broker
        except ImportError:
            raise ConfigError(
                "no MQTT broker answers and the embedded one is not installed: "
                f"{INSTALL_HINT} (or give --mqtt the URL of a broker)"
            ) from None
        self.port = port
        self._make = Broker
        self._broker: Any = None

    @property
    def url(self) -> str:
        return f"mqtt://{self.host}:{self.port}"

    async def start(self) -> None:
        """Listen (amqtt binds its broker to the running loop); a ConfigError when the
        port cannot be had."""
        config: dict[str, Any] = {
            "listeners": {"default": {"type": "tcp", "bind": f"{self.host}:{self.port}"}},
            "plugins": {
                "amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}
            },
        }
        # amqtt reports every client's connect and disconnect at INFO and above
        logging.getLogger("amqtt").setLevel(logging.ERROR)
        broker = self._make(config)
        try:
            await broker.start()
        except Exception as exc:
            raise ConfigError(
                f"the embedded MQTT broker could not listen on {self.host}:{self.port}: {exc}"
            ) from exc
        self._broker = broker

    async def stop(self) -> None:
        """Disconnect every client and stop listening (after the MQTT sink closed)."""
        broker, self._broker = self._broker, None
        if broker is not None:
            await asyncio.wait_for(broker.shutdown(), timeout=5.0)
