"""A tournament's leaderboard over MQTT: retained, after every round, the latest only.

The leaderboard goes to ``<prefix>/tournaments/<id>/leaderboard`` as one JSON document,
QoS 1, retained: a viewer or an overlay that subscribes at any time gets the current
standings at once. The tournament never waits for the broker: :meth:`publish` keeps the
newest document and wakes a task that sends it; a document that a newer one replaced
before it went out is skipped (only the latest standings matter). When the broker goes
away the task connects again with backoff (0.5 s, doubling, at most 10 s), one warning
per outage, and sends the latest document once back.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Mapping
from typing import Any, Final

import aiomqtt
import orjson

from arena.config import MqttSettings
from arena.logs import get_logger
from arena.sinks.mqtt_client import mqtt_client, mqtt_credentials
from arena.sinks.mqtt_publisher import broker_url

__all__ = ["LeaderboardPublisher", "leaderboard_topic"]

log = get_logger(__name__)

FIRST_BACKOFF_S: Final = 0.5
BACKOFF_CAP_S: Final = 10.0


def leaderboard_topic(settings: MqttSettings, tournament_id: str) -> str:
    """``<prefix>/tournaments/<id>/leaderboard``."""
    return f"{settings.topic_prefix}/tournaments/{tournament_id}/leaderboard"


class LeaderboardPublisher:
    """Sends the newest leaderboard, retained (see the module)."""

    def __init__(
        self,
        settings: MqttSettings,
        tournament_id: str,
        *,
        environ: Mapping[str, str] | None = None,
        first_backoff_s: float = FIRST_BACKOFF_S,
    ) -> None:
        self.settings = settings
        self.topic = leaderboard_topic(settings, tournament_id)
        self.url = broker_url(settings.host, settings.port, tls=settings.tls)
        self._credentials = mqtt_credentials(settings, environ)  # a ConfigError now
        self._first_backoff_s = first_backoff_s
        self._latest: bytes | None = None
        self._sent: bytes | None = None
        self._wake = asyncio.Event()
        self._went = asyncio.Event()
        """Set whenever a document reached the broker (close waits on it)."""
        self._task: asyncio.Task[None] | None = None
        self.published = 0
        """Documents the broker acknowledged."""

    def publish(self, leaderboard: Mapping[str, Any]) -> None:
        """Keep ``leaderboard`` as the one to send next; never waits."""
        self._latest = orjson.dumps(dict(leaderboard))
        self._wake.set()
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="leaderboard-publisher")

    @property
    def delivered(self) -> bool:
        """Whether the latest document has reached the broker."""
        return self._latest is not None and self._latest == self._sent

    async def close(self, within_s: float = 5.0) -> bool:
        """Send the latest document if it has not gone yet (within ``within_s``), then
        stop; whether it went. A broker that is away costs the bound, never an error."""
        task = self._task
        if task is None:
            return self._latest is None
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                while not self.delivered:
                    self._went.clear()
                    await self._went.wait()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if not self.delivered:
            log.warning(
                "leaderboard_undelivered",
                broker=self.url,
                topic=self.topic,
                detail="the last standings did not reach the broker before the end",
            )
        return self.delivered

    async def _run(self) -> None:
        backoff = self._first_backoff_s
        away = False
        while True:
            client = mqtt_client(
                self.settings,
                client_id=f"ddz-arena-board-{os.urandom(8).hex()}",
                credentials=self._credentials,
            )
            try:
                async with client:
                    if away:
                        log.warning("leaderboard_broker_back", broker=self.url)
                    away, backoff = False, self._first_backoff_s
                    await self._send_while_connected(client)
            except aiomqtt.MqttError as exc:
                if not away:
                    log.warning(
                        "leaderboard_broker_away",
                        broker=self.url,
                        error=str(exc) or type(exc).__name__,
                        retry_in_s=backoff,
                    )
                away = True
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, BACKOFF_CAP_S)

    async def _send_while_connected(self, client: aiomqtt.Client) -> None:
        while True:
            latest = self._latest
            if latest is None or latest == self._sent:
                self._wake.clear()
                await self._wake.wait()
                continue
            await client.publish(self.topic, latest, qos=1, retain=True)
            self._sent = latest
            self.published += 1
            self._went.set()
