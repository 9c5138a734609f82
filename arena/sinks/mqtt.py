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

import orjson

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.logs import get_logger
from arena.sinks.mqtt_publisher import KINDS, Message, MqttError, Publisher
from arena.sinks.public_state import PublicTableState
from arena.table.events import Event
from protocol.events import EVENT_SCHEMA_VERSION

__all__ = ["MqttSink", "MqttStats", "broker_from_url", "new_run_id"]

log = get_logger(__name__)

_BATCH: Final = 256
"""Messages written at once at most (the broker's receive maximum may cap it lower)."""
_STATES_EVERY_S: Final = 0.1
"""While events keep coming faster than they go out, the retained snapshots are
published this often (and whenever the buffers run dry)."""
_EVENT, _SPECTATOR, _OTHER = 0, 1, 2
"""Kinds of message, as the publisher counts their acknowledgements."""
_FIRST_RETRY_S: Final = 0.1


@dataclass
class MqttStats:
    """What the sink did so far; ``undelivered`` is final once it is closed."""

    published: int = 0
    """Events the broker acknowledged (QoS 1)."""
    dropped: int = 0
    """Events dropped because the buffer was full (the broker slow or away)."""
    refused: int = 0
    """Events the broker acknowledged with a refusal (MQTT 5: an ACL, a quota)."""
    undelivered: int = 0
    """Events never delivered: dropped, refused, and those left when it closed (final
    once closed)."""
    spectator_published: int = 0
    """Spectator items the broker acknowledged."""
    spectator_dropped: int = 0
    """Spectator items dropped: their buffer was full, or they came after ``close``."""
    spectator_refused: int = 0
    """Spectator items the broker refused (MQTT 5)."""
    spectator_undelivered: int = 0
    """Spectator items never delivered (final once closed)."""
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


class _Outbox:
    """One feed's messages waiting for the broker: bounded, oldest dropped first when
    full, each drop counted, and one warning per overflow (not one per message)."""

    __slots__ = ("_dropping", "_event", "_limit", "_log_fields", "dropped", "items")

    def __init__(self, limit: int, event: str, **log_fields: object) -> None:
        self.items: deque[Any] = deque()
        self.dropped = 0
        self._limit = limit
        self._event = event
        self._log_fields = log_fields
        self._dropping = False

    def put(self, item: Any) -> None:
        if len(self.items) >= self._limit:
            self._drop(1)
        self.items.append(item)

    def put_back(self, items: list[Any]) -> None:
        """Items sent but never acknowledged go first again; the oldest overflow."""
        self.items.extendleft(reversed(items))
        if len(self.items) > self._limit:
            self._drop(len(self.items) - self._limit)

    def take(self, count: int) -> list[Any]:
        items = self.items
        taken = [items.popleft() for _ in range(min(count, len(items)))]
        if taken:
            self._dropping = False  # moving again: the next overflow is worth a line
        return taken

    def _drop(self, count: int) -> None:
        for _ in range(count):
            self.items.popleft()
        self.dropped += count
        if not self._dropping:
            self._dropping = True
            log.warning(self._event, queue_size=self._limit, **self._log_fields)


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
        self._stats = MqttStats()
        prefix = settings.topic_prefix
        self.status_topic = f"{prefix}/status"
        self._status_topic = self.status_topic.encode()
        self._tables_prefix = f"{prefix}/tables/"
        self._event_topics: dict[str, bytes] = {}
        environ = os.environ if environ is None else environ
        self._connect_options = self._options(settings, environ)
        self._events = _Outbox(
            settings.queue_size,
            "mqtt_buffer_full",
            broker=self.url,
            detail="the oldest buffered events are dropped until the broker catches up",
        )
        self._spectator = _Outbox(
            settings.queue_size,
            "mqtt_spectator_buffer_full",
            broker=self.url,
            detail="the oldest spectator items are dropped until the broker catches up",
        )
        self._spectator_late = 0
        """Spectator items that came after ``close``."""
        self._acked = [0] * KINDS
        self._refused = [0] * KINDS
        """Of the connections before the current one."""
        self._publisher: Publisher | None = None
        self._refusals_reported: Publisher | None = None
        self._states: dict[str, PublicTableState] = {}
        self._dirty: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = self._closed = False

    @property
    def url(self) -> str:
        """Where it publishes: ``mqtt://host:port`` (``mqtts://`` with TLS)."""
        scheme = "mqtts" if self.settings.tls else "mqtt"
        return f"{scheme}://{self.settings.host}:{self.settings.port}"

    @property
    def stats(self) -> MqttStats:
        """What it did so far (brought up to date on each read)."""
        stats = self._stats
        acked, refused = list(self._acked), list(self._refused)
        if self._publisher is not None:
            for kind in range(KINDS):
                acked[kind] += self._publisher.acked[kind]
                refused[kind] += self._publisher.refused[kind]
        stats.published = acked[_EVENT] - refused[_EVENT]
        stats.refused = refused[_EVENT]
        stats.dropped = self._events.dropped
        stats.spectator_published = acked[_SPECTATOR] - refused[_SPECTATOR]
        stats.spectator_refused = refused[_SPECTATOR]
        stats.spectator_dropped = self._spectator.dropped + self._spectator_late
        if self._closed and self._task is None:
            stats.undelivered = stats.dropped + stats.refused + len(self._events.items)
            stats.spectator_undelivered = (
                stats.spectator_dropped + stats.spectator_refused + len(self._spectator.items)
            )
        return stats

    def _options(self, settings: MqttSettings, environ: Mapping[str, str]) -> dict[str, Any]:
        """The Publisher.connect keywords; a credential's variable unset is a ConfigError."""
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
            "host": settings.host,
            "port": settings.port,
            "client_id": settings.client_id or f"ddz-arena-{self.run_id}",
            "version": 5 if settings.protocol == "5" else 4,
            "will": (self.status_topic, b"offline"),
            "tls": ssl.create_default_context() if settings.tls else None,
            "timeout_s": 5.0,
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
        self._events.put(event)
        self._wake.set()
        if self._task is None:
            self.start()

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """Buffer one released spectator item for ``<prefix>/tables/<table>/spectator``
        (QoS 1, never retained), with the run id; never waits. Only the spectator feed
        calls it: its items hold every hand, so they go to that topic and nowhere else."""
        if self._closing:
            self._spectator_late += 1
            return
        topic = f"{self._tables_prefix}{item['table']}/spectator".encode()
        self._spectator.put((topic, orjson.dumps({**item, "run": self.run_id})))
        self._wake.set()
        if self._task is None:
            self.start()

    async def close(self) -> None:
        """Deliver what is left, the final snapshots and ``offline``, then disconnect;
        within :attr:`close_within_s`. What was not delivered is counted and logged."""
        if self._closed:  # a second close (a wrapper's, then the owner's) does nothing
            return
        self._closed = self._closing = True
        self._wake.set()
        task = self._task
        if task is not None:
            done, _ = await asyncio.wait({task}, timeout=self.close_within_s)
            if not done:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._task = None
        stats = self.stats
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
            connections = self._stats.connections
            try:
                error = await self._connection()
            except Exception:  # a bug of ours: logged, never the table's problem
                log.exception("mqtt_sink_failed", broker=self.url)
                return
            if self._stats.connections > connections:
                delay = _FIRST_RETRY_S
            if error is None:
                return
            if self._stats.connected:
                self._stats.connected = False
                log.warning("mqtt_disconnected", broker=self.url, error=str(error))
            else:
                log.warning("mqtt_unreachable", broker=self.url, error=str(error), retry_in_s=delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, self.backoff_cap_s)

    async def _connection(self) -> MqttError | None:
        """One connection until closed (None), or the error that ended it."""
        try:
            publisher = await Publisher.connect(**self._connect_options, on_lost=self._wake.set)
        except MqttError as error:
            return error
        self._publisher = publisher
        try:
            await self._session(publisher)
        except MqttError as error:
            return error
        finally:
            self._settle(publisher)
        return None

    def _settle(self, publisher: Publisher) -> None:
        """The connection is over: count what it delivered, and put what it sent but
        never had acknowledged back first in line for the next one."""
        publisher.close()
        self._events.put_back(publisher.unacknowledged(_EVENT))
        self._spectator.put_back(publisher.unacknowledged(_SPECTATOR))
        for kind in range(KINDS):
            self._acked[kind] += publisher.acked[kind]
            self._refused[kind] += publisher.refused[kind]
        self._publisher = None

    async def _session(self, publisher: Publisher) -> None:
        """One connection: online, every snapshot, then the buffers until closed."""
        self._stats.connections += 1
        self._stats.connected = True
        log.info("mqtt_connected", broker=self.url, run_id=self.run_id)
        publisher.send([(self._status_topic, b"online", True, _OTHER, None)])
        self._dirty.update(self._states)  # retained topics current after a reconnect
        await self._pump(publisher)
        await publisher.wait_room()
        publisher.send([(self._status_topic, b"offline", True, _OTHER, None)])
        await publisher.drained()
        self._report_refusals(publisher)
        await publisher.disconnect()

    async def _pump(self, publisher: Publisher) -> None:
        """Publish the buffers through the connection's window, and the changed
        snapshots when the buffers run dry (and at least every ``_STATES_EVERY_S`` while
        they do not); return once closing with nothing left."""
        events, spectator = self._events.items, self._spectator.items
        refused = 0
        states_at = time.monotonic()
        while True:
            if publisher.error is not None:
                raise publisher.error
            if not events and not spectator:
                await self._publish_states(publisher)
                states_at = time.monotonic()
                if self._closing:
                    await publisher.drained()
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            await publisher.wait_room()
            room = min(publisher.room, _BATCH)
            # spectator items share the window with events, at most half of it while
            # events wait: neither feed starves the other
            shown = min(len(spectator), room // 2 if events else room)
            messages: list[Message] = [
                (topic, payload, False, _SPECTATOR, (topic, payload))  # never retained
                for topic, payload in self._spectator.take(shown)
            ]
            messages += [self._event_message(e) for e in self._events.take(room - shown)]
            publisher.send(messages)
            if publisher.refused[_EVENT] + publisher.refused[_SPECTATOR] > refused:
                refused = self._report_refusals(publisher)
            if self._dirty and time.monotonic() - states_at >= _STATES_EVERY_S:
                await self._publish_states(publisher)
                states_at = time.monotonic()
            await asyncio.sleep(0)  # the acknowledgements come in between batches

    def _event_message(self, event: Event) -> Message:
        body = event.to_dict()
        body["v"], body["run"] = EVENT_SCHEMA_VERSION, self.run_id
        topic = self._event_topics.get(event.table)
        if topic is None:
            topic = self._event_topics[event.table] = (
                f"{self._tables_prefix}{event.table}/events".encode()
            )
        return topic, orjson.dumps(body), False, _EVENT, event

    async def _publish_states(self, publisher: Publisher) -> None:
        while self._dirty:
            await publisher.wait_room()
            table = self._dirty.pop()  # changed again after this: dirty again
            payload = orjson.dumps(self._states[table].snapshot())
            topic = f"{self._tables_prefix}{table}/state".encode()
            publisher.send([(topic, payload, True, _OTHER, None)])

    def _report_refusals(self, publisher: Publisher) -> int:
        """Say (once per connection) that the broker refuses messages, and why."""
        refused = publisher.refused[_EVENT] + publisher.refused[_SPECTATOR]
        if refused and self._refusals_reported is not publisher:
            self._refusals_reported = publisher
            log.warning(
                "mqtt_publish_refused",
                broker=self.url,
                reason=publisher.refusal,
                hint="the broker acknowledged messages but refused them (an ACL or a "
                "quota on its side); they are counted as undelivered",
            )
        return refused


def new_run_id() -> str:
    """A short id for this run: in every payload, and the default client id's end."""
    return f"{int(time.time()):x}{os.urandom(3).hex()}"
