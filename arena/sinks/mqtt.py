"""The live feed over MQTT: a sink that publishes every public event to a broker.

Topics (``<prefix>`` is ``[mqtt] topic_prefix``, ``ddz-arena`` by default; docs/mqtt.md)::

    <prefix>/status                  "online" / "offline", retained; "offline" is also
                                     the last will, sent by the broker if we vanish
    <prefix>/tables/<table>/events   every event as JSON, QoS 1, with its seq, the run's
                                     id ``run`` and the schema version ``v``
    <prefix>/tables/<table>/state    the table's public snapshot, retained
    <prefix>/tables/<table>/spectator  the delayed spectator feed's items (every hand),
                                     QoS 1, never retained; only when the feed is on

The table never waits for the broker. ``emit`` folds the event into the table's
snapshot and appends it to a bounded buffer; when the buffer is full the oldest message
is dropped, counted and logged. A background task owns the connection: it publishes
the buffer in order, and the snapshots of the tables that changed after each batch.
When the broker goes away it reconnects with exponential backoff (capped), keeps
buffering, and after each reconnect publishes the status and every table's latest
snapshot again (retained). Messages in flight when the connection dropped are sent
again: a subscriber may see an event twice, and its ``seq`` says so.

``close`` publishes the final snapshots and ``offline``, then disconnects, within a
bound; what it could not deliver is counted in :attr:`MqttSink.stats` and logged.
Events carry no hidden information, and nothing but them, the snapshots and the status
is published, unless a :class:`~arena.sinks.spectator.SpectatorFeed` is given this sink
as its output: its items (hidden information, released only after the feed's delay)
come through :meth:`MqttSink.emit_spectator`, a buffer of their own (as bounded: a
spectator burst never drops a public event) and the ``spectator`` topic alone; they
never touch the events, the snapshots or the status.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import ssl
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

import aiomqtt
import orjson

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.logs import get_logger
from arena.sinks.public_state import PublicTableState
from arena.table.events import Event
from protocol.events import EVENT_SCHEMA_VERSION

__all__ = ["MqttSink", "MqttStats", "broker_from_url", "new_run_id"]

log = get_logger(__name__)

_BATCH: Final = 32
"""Events published at once (QoS 1: each awaits its PUBACK, so they are pipelined).
Enough for ~1600 events/s to a broker 20 ms away; more costs CPU (aiomqtt scans its
pending calls on each publish): about 65 µs of CPU an event on loopback at 32."""
_FIRST_RETRY_S: Final = 0.1


@dataclass
class MqttStats:
    """What the sink did so far; ``undelivered`` is final once it is closed."""

    published: int = 0
    """Events the broker acknowledged (QoS 1)."""
    dropped: int = 0
    """Events dropped because the buffer was full (the broker slow or away)."""
    undelivered: int = 0
    """Events never acknowledged: the dropped ones, and those left when it closed."""
    spectator_published: int = 0
    """Spectator items the broker acknowledged."""
    spectator_dropped: int = 0
    """Spectator items dropped: their buffer was full, or they came after ``close``."""
    spectator_undelivered: int = 0
    """Spectator items never acknowledged (final once closed)."""
    connections: int = 0
    """Successful connections: more than 1 means it reconnected."""
    connected: bool = False


def broker_from_url(url: str) -> dict[str, Any]:
    """``mqtt://host[:port]`` (or ``mqtts://`` for TLS) as ``[mqtt]`` settings:
    ``{"host": ..., "port": ..., "tls": ...}``. A ConfigError says what is wrong; a URL
    holding credentials is not shown (they come from the environment)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(
            f"{url!r} is no broker URL ({exc}); such as mqtt://127.0.0.1:1883"
        ) from None
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            "the broker URL holds a user name or password, so it is not shown: credentials "
            "come from the environment ([mqtt] username_env / password_env name the "
            "variables); give the URL as mqtt://host:port"
        )
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ConfigError(
            f"{url!r}: the URL must start with mqtt:// (or mqtts:// for TLS), such as "
            "mqtt://127.0.0.1:1883"
        )
    if not parts.hostname:
        raise ConfigError(f"{url!r} names no host, such as mqtt://127.0.0.1:1883")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(
            f"{url!r}: a broker URL is mqtt://host:port, without a path or query "
            "(the topics' prefix is [mqtt] topic_prefix)"
        )
    tls = parts.scheme == "mqtts"
    return {"host": parts.hostname, "port": port or (8883 if tls else 1883), "tls": tls}


class MqttSink:
    """Publishes the public events of every table it is attached to (see the module).

    ``run_id`` tells this process's tables from another's on the same broker; the
    client id defaults to ``ddz-arena-<run_id>``. ``environ`` is where the credentials'
    variables are read (the process environment by default).
    """

    close_within_s: float = 5.0
    """How long ``close`` may take to deliver what is left and say offline."""
    backoff_cap_s: float = 5.0
    """The longest wait between two connection attempts."""

    def __init__(
        self,
        settings: MqttSettings,
        *,
        run_id: str,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.settings = settings
        self.run_id = run_id
        self.stats = MqttStats()
        prefix = settings.topic_prefix
        self.status_topic = f"{prefix}/status"
        self._tables_prefix = f"{prefix}/tables/"
        environ = os.environ if environ is None else environ
        self._client_options = self._options(settings, environ)
        self._buffer: deque[Event] = deque()
        self._limit = settings.queue_size
        self._in_flight: list[Event] = []
        self._spectator: deque[tuple[str, bytes]] = deque()
        self._spectator_in_flight: list[tuple[str, bytes]] = []
        self._spectator_dropping = False
        self._states: dict[str, PublicTableState] = {}
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = self._closed = False
        self._dropping = False

    @property
    def url(self) -> str:
        """Where it publishes: ``mqtt://host:port`` (``mqtts://`` with TLS)."""
        scheme = "mqtts" if self.settings.tls else "mqtt"
        return f"{scheme}://{self.settings.host}:{self.settings.port}"

    def _options(self, settings: MqttSettings, environ: Mapping[str, str]) -> dict[str, Any]:
        """The aiomqtt.Client keywords; a credential's variable unset is a ConfigError."""
        credentials: dict[str, str | None] = {}
        for key, variable in (
            ("username", settings.username_env),
            ("password", settings.password_env),
        ):
            if variable is None:
                continue
            value = environ.get(variable)
            if not value:
                raise ConfigError(f"mqtt.{key}_env: the environment variable {variable} is not set")
            credentials[key] = value
        if "password" in credentials and "username" not in credentials:
            raise ConfigError("mqtt.password_env is set but mqtt.username_env is not")
        return {
            "hostname": settings.host,
            "port": settings.port,
            "identifier": settings.client_id or f"ddz-arena-{self.run_id}",
            "protocol": (
                aiomqtt.ProtocolVersion.V5
                if settings.protocol == "5"
                else aiomqtt.ProtocolVersion.V311
            ),
            "will": aiomqtt.Will(self.status_topic, b"offline", qos=1, retain=True),
            "tls_context": ssl.create_default_context() if settings.tls else None,
            "timeout": 5.0,
            **credentials,
        }

    def start(self) -> None:
        """Start connecting now (``emit`` does it otherwise): the status goes online
        before the first event. Call it inside the running event loop."""
        if self._task is None and not self._closing:
            self._task = asyncio.create_task(self._run(), name="mqtt-sink")

    async def emit(self, event: Event) -> None:
        """Fold the event into its table's snapshot and buffer it; never waits."""
        state = self._states.get(event.table)
        if state is None:
            state = self._states[event.table] = PublicTableState(event.table, run_id=self.run_id)
        if state.apply(event):
            self._dirty.add(event.table)
        if len(self._buffer) >= self._limit:
            self._drop(1)
        self._buffer.append(event)
        self._wake.set()
        if self._task is None:
            self.start()

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """Buffer one released spectator item for ``<prefix>/tables/<table>/spectator``
        (QoS 1, never retained), with the run id; never waits. Only the spectator feed
        calls it: its items hold every hand, so they go to that topic and nowhere else."""
        if self._closing:
            self.stats.spectator_dropped += 1
            self.stats.spectator_undelivered += 1
            return
        topic = f"{self._tables_prefix}{item['table']}/spectator"
        payload = orjson.dumps({**item, "run": self.run_id})
        if len(self._spectator) >= self._limit:
            self._drop_spectator(1)
        self._spectator.append((topic, payload))
        self._wake.set()
        if self._task is None:
            self.start()

    def _drop_spectator(self, count: int) -> None:
        for _ in range(count):
            self._spectator.popleft()
        self.stats.spectator_dropped += count
        if not self._spectator_dropping:
            self._spectator_dropping = True
            log.warning(
                "mqtt_spectator_buffer_full",
                queue_size=self._limit,
                broker=self.url,
                detail="the oldest spectator items are dropped until the broker catches up",
            )

    def _drop(self, count: int) -> None:
        for _ in range(count):
            self._buffer.popleft()
        self.stats.dropped += count
        if not self._dropping:  # once per overflow, not once per event
            self._dropping = True
            log.warning(
                "mqtt_buffer_full",
                queue_size=self._limit,
                broker=self.url,
                detail="the oldest buffered events are dropped until the broker catches up",
            )

    async def close(self) -> None:
        """Deliver what is left, the final snapshots and ``offline``, then disconnect;
        within :attr:`close_within_s`. What was not delivered is counted and logged."""
        if self._closed:  # a second close (a wrapper's, then the owner's) does nothing
            return
        self._closed = self._closing = True
        self._wake.set()
        task, self._task = self._task, None
        if task is not None:
            done, _ = await asyncio.wait({task}, timeout=self.close_within_s)
            if not done:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        stats = self.stats
        stats.undelivered = stats.dropped + len(self._buffer) + len(self._in_flight)
        stats.spectator_undelivered = (
            stats.spectator_dropped + len(self._spectator) + len(self._spectator_in_flight)
        )
        stats.connected = False
        fields = {"broker": self.url, "published": stats.published, "run_id": self.run_id}
        if stats.spectator_published or stats.spectator_undelivered:
            fields["spectator_published"] = stats.spectator_published
        if stats.spectator_undelivered:
            fields["spectator_undelivered"] = stats.spectator_undelivered
        if stats.undelivered or stats.spectator_undelivered:
            log.warning("mqtt_undelivered", undelivered=stats.undelivered, **fields)
        else:
            log.info("mqtt_closed", **fields)

    async def _run(self) -> None:
        """Connect, publish, reconnect with backoff: until closed."""
        delay = _FIRST_RETRY_S
        while True:
            connections = self.stats.connections
            try:
                error = await self._connection()
            except Exception:  # a bug of ours: logged, never the table's problem
                log.exception("mqtt_sink_failed", broker=self.url)
                return
            if self.stats.connections > connections:
                delay = _FIRST_RETRY_S
            if error is None:
                return
            self._requeue_in_flight()
            if self.stats.connected:
                self.stats.connected = False
                log.warning("mqtt_disconnected", broker=self.url, error=str(error))
            else:
                log.warning("mqtt_unreachable", broker=self.url, error=str(error), retry_in_s=delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_cap_s)

    async def _connection(self) -> aiomqtt.MqttError | None:
        """One connection until closed (None), or the error that ended it."""
        errors: list[aiomqtt.MqttError] = []
        try:
            client = aiomqtt.Client(**self._client_options)
            client.pending_calls_threshold = 2 * _BATCH  # a batch is pending at once
            async with client:
                await self._session(client)
        except* aiomqtt.MqttError as group:
            errors.extend(e for e in group.exceptions if isinstance(e, aiomqtt.MqttError))
        return errors[0] if errors else None

    async def _session(self, client: aiomqtt.Client) -> None:
        """One connection: online, every snapshot, then the buffer until closed."""
        self.stats.connections += 1
        self.stats.connected = True
        log.info("mqtt_connected", broker=self.url, run_id=self.run_id)
        await client.publish(self.status_topic, b"online", qos=1, retain=True)
        self._dirty.update(self._states)  # retained topics current after a reconnect
        async with asyncio.TaskGroup() as tasks:
            watcher = tasks.create_task(self._watch(client))
            await self._pump(client)
            await client.publish(self.status_topic, b"offline", qos=1, retain=True)
            watcher.cancel()

    @staticmethod
    async def _watch(client: aiomqtt.Client) -> None:
        """Raise MqttError as soon as the connection drops (we subscribe to nothing:
        the message iterator ends only then)."""
        async for _ in client.messages:
            pass

    async def _pump(self, client: aiomqtt.Client) -> None:
        """Publish the buffer in batches, and after each the changed snapshots; return
        once closing with nothing left."""
        buffer, spectator = self._buffer, self._spectator
        while True:
            if not buffer and not spectator:
                await self._publish_states(client)
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            # spectator items share a batch with events, at most half of it while
            # events wait: neither feed starves the other
            shown = min(len(spectator), _BATCH // 2 if buffer else _BATCH)
            batch = [buffer.popleft() for _ in range(min(len(buffer), _BATCH - shown))]
            items = [spectator.popleft() for _ in range(shown)]
            self._in_flight, self._spectator_in_flight = batch, items
            if batch:
                self._dropping = False
            if items:
                self._spectator_dropping = False
            async with asyncio.TaskGroup() as tasks:
                for event in batch:
                    tasks.create_task(client.publish(*self._event_message(event), qos=1))
                for topic, payload in items:  # never retained: hands are for a stream
                    tasks.create_task(client.publish(topic, payload, qos=1, retain=False))
            self._in_flight, self._spectator_in_flight = [], []
            self.stats.published += len(batch)
            self.stats.spectator_published += len(items)
            if batch:
                await self._publish_states(client)

    def _event_message(self, event: Event) -> tuple[str, bytes]:
        body = event.to_dict()
        body["v"], body["run"] = EVENT_SCHEMA_VERSION, self.run_id
        return f"{self._tables_prefix}{event.table}/events", orjson.dumps(body)

    async def _publish_states(self, client: aiomqtt.Client) -> None:
        while self._dirty:
            table = self._dirty.pop()  # changed again while publishing: dirty again
            payload = orjson.dumps(self._states[table].snapshot())
            topic = f"{self._tables_prefix}{table}/state"
            try:
                await client.publish(topic, payload, qos=1, retain=True)
            except BaseException:
                self._dirty.add(table)
                raise

    def _requeue_in_flight(self) -> None:
        """Events sent but not acknowledged go first again after a reconnect."""
        batch, self._in_flight = self._in_flight, []
        self._buffer.extendleft(reversed(batch))
        if len(self._buffer) > self._limit:
            self._drop(len(self._buffer) - self._limit)
        items, self._spectator_in_flight = self._spectator_in_flight, []
        self._spectator.extendleft(reversed(items))
        if len(self._spectator) > self._limit:
            self._drop_spectator(len(self._spectator) - self._limit)


def new_run_id() -> str:
    """A short id for this run: in every payload, and the default client id's end."""
    return f"{int(time.time()):x}{os.urandom(3).hex()}"
