"""A tournament's leaderboard over MQTT: retained, every round's, never holding it up.

The leaderboard goes to ``<prefix>/tournaments/<id>/leaderboard`` as one JSON document,
QoS 1, retained, with the tournament's ``name``, its committed ``seeds``
(:attr:`LeaderboardPublisher.seeds`: each epoch's commitment, its seed once revealed)
and ``status`` (``running`` while it
plays, then ``finished`` or ``interrupted`` in a last message, :meth:`finish`): a viewer
that subscribes at any time gets the current standings at once and can tell a finished
tournament from one still playing (as ``show --json`` can). A tournament removed unplayed
(its agents could not start) has its retained message cleared (:meth:`withdraw`).

The tournament never waits for the broker: :meth:`publish` queues the document and
wakes a task that sends the queue in order, one acknowledged message at a time. While
the broker keeps up every round's leaderboard goes out (a live subscriber sees each
round). Only under backpressure (a slow or absent broker) does the queue coalesce: it
holds at most :data:`MAX_PENDING` documents, and when a newer one comes the oldest
waiting is dropped (counted in :attr:`skipped`), so memory is bounded and the newest
standings always go out. When the broker goes away the task connects again with
backoff (0.5 s, doubling, at most 10 s), one warning per outage, and sends what waits.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import Mapping
from typing import Any, Final, Literal

import aiomqtt
import orjson

from arena.config import MqttSettings
from arena.logs import get_logger
from arena.sinks.mqtt_client import mqtt_client, mqtt_credentials
from arena.sinks.mqtt_publisher import broker_url

__all__ = ["MAX_PENDING", "LeaderboardPublisher", "Status", "leaderboard_topic"]

log = get_logger(__name__)

FIRST_BACKOFF_S: Final = 0.5
BACKOFF_CAP_S: Final = 10.0
MAX_PENDING: Final = 64
"""Documents waiting for the broker at most; beyond it the oldest waiting is dropped."""

Status = Literal["running", "finished", "interrupted"]


def leaderboard_topic(settings: MqttSettings, tournament_id: str) -> str:
    """``<prefix>/tournaments/<id>/leaderboard``."""
    return f"{settings.topic_prefix}/tournaments/{tournament_id}/leaderboard"


class LeaderboardPublisher:
    """Sends every leaderboard in order, retained, coalescing only under backpressure
    (see the module)."""

    def __init__(
        self,
        settings: MqttSettings,
        tournament_id: str,
        *,
        name: str | None = None,
        environ: Mapping[str, str] | None = None,
        first_backoff_s: float = FIRST_BACKOFF_S,
        max_pending: int = MAX_PENDING,
    ) -> None:
        """``name``: the tournament's name, put in every document (a subscriber has
        no other way to learn it)."""
        if max_pending < 1:
            raise ValueError(f"max_pending must be at least 1, not {max_pending}")
        self.settings = settings
        self.tournament_id = tournament_id
        self.name = name
        self.topic = leaderboard_topic(settings, tournament_id)
        self.url = broker_url(settings.host, settings.port, tls=settings.tls)
        self._credentials = mqtt_credentials(settings, environ)  # a ConfigError now
        self._first_backoff_s = first_backoff_s
        self._pending: deque[bytes] = deque()
        self._max_pending = max_pending
        self._last_board: dict[str, Any] | None = None
        self._wake = asyncio.Event()
        self._went = asyncio.Event()
        """Set whenever a document reached the broker (close waits on it)."""
        self._task: asyncio.Task[None] | None = None
        self.seeds: dict[str, Any] | None = None
        """The committed seeds (``tournaments.epochs.seeds_document``), put in every
        document when set: commitments from the start, seeds once revealed."""
        self.status: Status = "running"
        self.published = 0
        """Documents the broker acknowledged."""
        self.skipped = 0
        """Documents dropped unsent because newer ones queued behind them (backpressure)."""

    def publish(self, leaderboard: Mapping[str, Any]) -> None:
        """Queue ``leaderboard`` (status ``running``) to go out after those before it;
        never waits."""
        if self.status != "running":
            raise RuntimeError(f"the tournament is {self.status}: no more leaderboards")
        self._last_board = dict(leaderboard)
        self._queue(self._document(self._last_board))

    def finish(
        self,
        status: Literal["finished", "interrupted"],
        leaderboard: Mapping[str, Any] | None = None,
    ) -> None:
        """Queue the last document: ``leaderboard`` (default: the last one published)
        with ``status``, so the retained message says the tournament is over or
        stopped. Never waits; :meth:`close` sends it."""
        if status not in ("finished", "interrupted"):
            raise ValueError(f"a tournament ends finished or interrupted, not {status!r}")
        self.status = status
        if leaderboard is not None:
            self._last_board = dict(leaderboard)
        board = (
            self._last_board if self._last_board is not None else {"tournament": self.tournament_id}
        )
        self._queue(self._document(board))

    def withdraw(self) -> None:
        """The tournament was removed unplayed (its agents could not start, nothing
        stored): instead of a last document, an empty retained one, which makes the
        broker forget the retained message, so no subscriber meets a tournament the
        store no longer has. Never waits; :meth:`close` sends it."""
        self.status = "interrupted"  # no more leaderboards
        self._queue(b"")  # after what waits: a subscriber sees "running", then nothing

    def _document(self, board: Mapping[str, Any]) -> bytes:
        seeds = {} if self.seeds is None else {"seeds": self.seeds}
        return orjson.dumps(
            {
                "tournament": self.tournament_id,
                "name": self.name,
                **board,
                **seeds,
                "status": self.status,
            }
        )

    def _queue(self, document: bytes) -> None:
        if len(self._pending) >= self._max_pending:
            self._pending.popleft()
            self.skipped += 1
        self._pending.append(document)
        self._wake.set()
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="leaderboard-publisher")

    @property
    def delivered(self) -> bool:
        """Whether every queued document (so the latest) has reached the broker."""
        return self._task is not None and not self._pending

    async def close(self, within_s: float = 5.0) -> bool:
        """Send what waits (within ``within_s``), then stop; whether the latest went.
        A broker that is away costs the bound, never an error."""
        task = self._task
        if task is None:
            return True  # nothing was ever queued
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                while self._pending:
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
            if not self._pending:
                self._wake.clear()
                await self._wake.wait()
                continue
            document = self._pending[0]
            await client.publish(self.topic, document, qos=1, retain=True)
            if self._pending and self._pending[0] is document:  # not dropped meanwhile
                self._pending.popleft()
            self.published += 1
            self._went.set()
