"""The MQTT feed itself: buffers, snapshots, one connection after another.

It runs in the MQTT worker process (:mod:`arena.sinks.mqtt_worker`), away from the
tables, which hand it events through :class:`arena.sinks.mqtt.MqttSink`. Each event
comes already encoded as it is published; it is folded into its table's public
snapshot and appended to a bounded buffer (full: the oldest is dropped, counted,
logged once per overflow). A task owns the connection (:mod:`arena.sinks.mqtt_publisher`):
it publishes the buffer in order through the broker's window, and the snapshots of the
tables that changed whenever the buffer runs dry (at least every ``_STATES_EVERY_S``
while it does not). When the broker goes away it reconnects with exponential backoff
(capped), keeps buffering, and after each reconnect publishes the status and every
table's latest snapshot again (retained). Messages in flight when the connection
dropped are sent again: a subscriber may see an event twice, and its ``seq`` says so.

The retained status (:func:`status_payload`) says ``online`` or ``offline`` and which
sinks are degraded (:mod:`arena.sinks.health`): those the arena's process reports
(:meth:`MqttFeed.set_health`), and this feed itself when events it is given keep
failing (counted, logged, and the next event taken all the same).

Whether the feed delivers at all (the broker away past a grace, or refusing what it is
sent) is followed by a :class:`~arena.sinks.health.DeliveryWatch`; the worker tells the
arena's process the condition (:meth:`MqttFeed.delivery`), which says it where viewers'
tools look (``/healthz``, the overlay) and hands it back for the status. A status
published once the feed delivers again leaves that echo out (it is stale by then) and
says the outage that ended (``last_outage``): what happened meanwhile.

Spectator items (hidden information, already delayed by the spectator feed) have a
buffer of their own, as bounded (a spectator burst never drops a public event), and
go to the ``spectator`` topic alone, never retained.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

import orjson

from arena.config import MqttSettings
from arena.events import Event
from arena.games.registry import DEFAULT_GAME
from arena.sinks.health import (
    DELIVER,
    DELIVERY_GRACE_S,
    Degraded,
    DeliveryWatch,
    SinkHealthBoard,
    health_of,
)
from arena.sinks.mqtt_publisher import KINDS, Message, MqttError, Publisher, broker_url
from arena.sinks.public_state import PublicState

__all__ = ["Logger", "MqttFeed", "MqttStats", "status_payload"]


class Logger(Protocol):
    """Where the feed's lines go: a structlog logger, or the worker's pipe."""

    def info(self, event: str, **fields: Any) -> Any: ...
    def warning(self, event: str, **fields: Any) -> Any: ...
    def error(self, event: str, **fields: Any) -> Any: ...
    def exception(self, event: str, **fields: Any) -> Any: ...


def status_payload(
    state: Literal["online", "offline"],
    run_id: str,
    degraded: Degraded | None = None,
    last_outage: dict[str, Any] | None = None,
    *,
    game: str = DEFAULT_GAME,
) -> bytes:
    """The retained ``<prefix>/status``: ``{"status", "run", "game", "degraded"}``, and
    ``last_outage`` once the feed had one; without ``degraded`` (None) as the last will,
    which cannot know."""
    status: dict[str, Any] = {"status": state, "run": run_id, "game": game}
    if degraded is not None:
        status["degraded"] = degraded
    if last_outage is not None:
        status["last_outage"] = last_outage
    return orjson.dumps(status)


_BATCH: Final = 256
"""Messages written at once at most (the broker's receive maximum may cap it lower)."""
_STATES_EVERY_S: Final = 0.1
"""While events keep coming faster than they go out, the retained snapshots are
published this often (and whenever the buffers run dry)."""
_EVENT, _SPECTATOR, _OTHER = 0, 1, 2
"""Kinds of message, as the publisher counts their acknowledgements."""
_FIRST_RETRY_S: Final = 0.1
_STABLE_S: Final = 5.0
"""A connection that lasted this long starts the backoff afresh; one dropped sooner (a
broker that refuses what it is sent, a session taken over) keeps backing off."""


@dataclass
class MqttStats:
    """What the sink did so far; ``undelivered`` is final once it is closed."""

    published: int = 0
    """Events the broker acknowledged (QoS 1); a ``gift`` event counts twice, once on
    the ``events`` topic and once on the ``gifts`` topic."""
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
    worker_cpu_s: float = 0.0
    """CPU seconds the MQTT worker process used so far (its start included)."""


class _Outbox:
    """One feed's messages waiting for the broker: bounded, oldest dropped first when
    full, each drop counted, and one warning per overflow (not one per message)."""

    __slots__ = ("_dropping", "_event", "_limit", "_log", "_log_fields", "dropped", "items")

    def __init__(self, limit: int, event: str, log: Logger, **log_fields: object) -> None:
        self._log = log
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
            self._log.warning(self._event, queue_size=self._limit, **self._log_fields)


class MqttFeed:
    """Publishes the events, snapshots and spectator items it is given (see the module).

    ``connect`` holds :meth:`Publisher.connect`'s keywords (credentials resolved);
    ``log`` is where its lines go (the worker sends them to the arena's process).
    """

    def __init__(
        self,
        settings: MqttSettings,
        *,
        run_id: str,
        connect: dict[str, Any],
        log: Logger,
        game: str = DEFAULT_GAME,
        close_within_s: float = 5.0,
        backoff_cap_s: float = 5.0,
        unreachable_grace_s: float = DELIVERY_GRACE_S,
    ) -> None:
        self.close_within_s = close_within_s
        """How long ``close`` may take to deliver what is left and say offline."""
        self.backoff_cap_s = backoff_cap_s
        """The longest wait between two connection attempts."""
        self._log = log
        self.settings = settings
        self.run_id = run_id
        self.game = game
        """The game the arena plays, which the status names."""
        self._stats = MqttStats()
        prefix = settings.topic_prefix
        self.status_topic = f"{prefix}/status"
        self._status_topic = self.status_topic.encode()
        self._tables_prefix = f"{prefix}/tables/"
        self._event_topics: dict[str, bytes] = {}
        self._connect_options = connect
        self._events = _Outbox(
            settings.queue_size,
            "mqtt_buffer_full",
            log,
            broker=self.url,
            detail="the oldest buffered events are dropped until the broker catches up",
        )
        self._spectator = _Outbox(
            settings.queue_size,
            "mqtt_spectator_buffer_full",
            log,
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
        self._refusal: str | None = None
        """The last refusal's reason, of the connections before the current one."""
        self._watch = DeliveryWatch(grace_s=unreachable_grace_s)
        """Whether the feed delivers: what the worker tells the arena's process."""
        self._states = PublicState(run_id)
        self._dirty: set[str] = set()
        self._reported: Degraded = []
        """The degraded sinks the arena's process reported last."""
        self._own: Degraded = []
        """This feed, while degraded (events it could not take)."""
        self._status_dirty = False
        self.health = health_of(self, "mqtt worker", log=log)
        """Events this feed could not take (an event it cannot fold, say)."""
        self._health = SinkHealthBoard()
        self._health.track(self)  # it reports its own health in the status
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = self._closed = False

    @property
    def url(self) -> str:
        """Where it publishes: ``mqtt://host:port`` (``mqtts://`` with TLS)."""
        return broker_url(self.settings.host, self.settings.port, tls=self.settings.tls)

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

    def start(self) -> None:
        """Start connecting now (``emit`` does it otherwise): the status goes online
        before the first event. Call it inside the running event loop."""
        if self._task is None and not self._closing:
            self._task = asyncio.create_task(self._run(), name="mqtt-sink")

    def put_event(self, payload: bytes) -> None:
        """One event as published (JSON with ``v`` and ``run``): folded into its
        table's snapshot and buffered; never waits. One that cannot be is counted in
        :attr:`health` (logged, and said in the status if it goes on), never raised."""
        try:
            self._put_event(payload)
        except Exception as exc:
            self.health.failed(exc)
        else:
            if self.health.unwell:
                self.health.succeeded()

    def _put_event(self, payload: bytes) -> None:
        fields = orjson.loads(payload)
        event = Event(
            fields["type"],
            fields["table"],
            fields["round"],
            fields["seq"],
            fields["seat"],
            fields["player"],
            fields["data"],
            fields.get("game", DEFAULT_GAME),
        )
        table = event.table
        if self._states.apply(event) is not None:
            self._dirty.add(table)
        topic = self._event_topics.get(table)
        if topic is None:
            topic = self._event_topics[table] = f"{self._tables_prefix}{table}/events".encode()
        self._events.put((topic, payload))
        if event.type == "gift":  # also on the table's gifts topic, for overlays and bridges
            self._events.put((f"{self._tables_prefix}{table}/gifts".encode(), payload))
        self._wake.set()
        if self._task is None:
            self.start()

    def put_spectator(self, payload: bytes) -> None:
        """One released spectator item (JSON with ``run``) for its table's
        ``spectator`` topic (QoS 1, never retained) and no other; never waits."""
        if self._closing:
            self._spectator_late += 1
            return
        table = orjson.loads(payload)["table"]
        self._spectator.put((f"{self._tables_prefix}{table}/spectator".encode(), payload))
        self._wake.set()
        if self._task is None:
            self.start()

    def set_health(self, payload: bytes) -> None:
        """The degraded sinks the arena's process reports (JSON, as in the status): the
        retained status says them from the next moment on."""
        self._reported = orjson.loads(payload)
        self._status_changed()

    def health_changed(self, degraded: Degraded) -> None:
        """This feed's own health changed (its board says so)."""
        self._own = degraded
        self._status_changed()

    def _status_changed(self) -> None:
        self._status_dirty = True
        self._wake.set()

    def _status(self, state: Literal["online", "offline"]) -> bytes:
        reported = self._reported
        if self._watch.kind() is None:  # delivering: an echo of its outage is stale
            reported = [entry for entry in reported if entry.get("during") != DELIVER]
        return status_payload(
            state, self.run_id, [*reported, *self._own], self._watch.last_outage, game=self.game
        )

    def delivery(self) -> tuple[bool, str | None]:
        """(whether it is news, the feed's condition: None while it delivers), for the
        arena's process (:class:`~arena.sinks.health.DeliveryWatch` says when); the
        worker asks often. The status is republished when an outage ends."""
        watch = self._watch
        outage = watch.last_outage
        watch.counted(*self._delivered())
        if watch.last_outage is not outage:
            self._status_changed()
        return watch.news(waiting=len(self._events.items), dropped=self._events.dropped)

    def _delivered(self) -> tuple[int, int, str | None]:
        """Messages of every kind the broker took and refused so far, and the last
        refusal's reason."""
        acked, refused, refusal = sum(self._acked), sum(self._refused), self._refusal
        publisher = self._publisher
        if publisher is not None:
            acked += sum(publisher.acked)
            refused += sum(publisher.refused)
            refusal = publisher.refusal or refusal
        return acked - refused, refused, refusal

    async def close(self) -> None:
        """Deliver what is left, the final snapshots and ``offline``, then disconnect;
        within :attr:`close_within_s`. What was not delivered is counted in
        :attr:`stats` (the sink that started the worker says so)."""
        if self._closed:
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
        self._stats.connected = False

    async def _run(self) -> None:
        """Connect, publish, reconnect with backoff: until closed."""
        delay = _FIRST_RETRY_S
        said = None  # the last failure logged: the same one again is not repeated
        while True:
            connections = self._stats.connections
            began = time.monotonic()
            try:
                error = await self._connection()
            except Exception as exc:  # a bug of ours: logged, never the table's problem
                self._log.exception("mqtt_sink_failed", broker=self.url)
                self._watch.stopped(f"the MQTT feed stopped: {type(exc).__name__} (an arena bug)")
                return
            if self._stats.connections > connections:
                said = None
                if time.monotonic() - began >= _STABLE_S:  # not dropped at once again
                    delay = _FIRST_RETRY_S
            if error is None:
                return
            self._watch.counted(*self._delivered())  # what it took before it went
            self._watch.away(str(error), dropped=self._events.dropped)
            if self._stats.connected:
                self._stats.connected = False
                self._log.warning("mqtt_disconnected", broker=self.url, error=str(error))
            elif str(error) != said:
                said = str(error)
                self._log.warning(
                    "mqtt_unreachable",
                    broker=self.url,
                    error=said,
                    retry_in_s=delay,
                    detail=f"retrying, at most {self.backoff_cap_s:g} s apart; "
                    "said again only if the error changes",
                )
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
        self._refusal = publisher.refusal or self._refusal
        self._publisher = None

    async def _session(self, publisher: Publisher) -> None:
        """One connection: online, every snapshot, then the buffers until closed."""
        self._stats.connections += 1
        self._stats.connected = True
        if self._stats.connections > 1:  # the warnings said it was away: say it is back
            self._log.warning(
                "mqtt_reconnected",
                broker=self.url,
                connections=self._stats.connections,
                detail="publishing again: what was buffered, then the current snapshots",
            )
        else:
            self._log.info("mqtt_connected", broker=self.url, run_id=self.run_id)
        self._watch.connected(waiting=len(self._events.items), dropped=self._events.dropped)
        self._status_dirty = False
        publisher.send([(self._status_topic, self._status("online"), True, _OTHER, None)])
        self._dirty.update(state.table for state in self._states)  # current after a reconnect
        await self._pump(publisher)
        await publisher.wait_room()
        publisher.send([(self._status_topic, self._status("offline"), True, _OTHER, None)])
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
            messages += [
                (topic, payload, False, _EVENT, (topic, payload))
                for topic, payload in self._events.take(room - shown)
            ]
            publisher.send(messages)
            if sum(publisher.refused) > refused:
                refused = self._report_refusals(publisher)
            if (self._dirty or self._status_dirty) and (
                time.monotonic() - states_at >= _STATES_EVERY_S
            ):
                await self._publish_states(publisher)
                states_at = time.monotonic()
            await asyncio.sleep(0)  # the acknowledgements come in between batches

    async def _publish_states(self, publisher: Publisher) -> None:
        """The snapshots that changed, and the status if it did."""
        if self._status_dirty and not self._closing:  # closing: offline says it last
            await publisher.wait_room()
            self._status_dirty = False
            status = self._status("online")
            publisher.send([(self._status_topic, status, True, _OTHER, None)])
        while self._dirty:
            await publisher.wait_room()
            table = self._dirty.pop()  # changed again after this: dirty again
            state = self._states.get(table)
            assert state is not None  # dirty only once it folded an event
            payload = orjson.dumps(state.snapshot())
            topic = f"{self._tables_prefix}{table}/state".encode()
            publisher.send([(topic, payload, True, _OTHER, None)])

    def _report_refusals(self, publisher: Publisher) -> int:
        """Say (once per connection) that the broker refuses messages, which, and why:
        events and spectator items are counted undelivered; a refused snapshot or status
        leaves a late subscriber without them."""
        refused = sum(publisher.refused)
        if refused and self._refusals_reported is not publisher:
            self._refusals_reported = publisher
            self._log.warning(
                "mqtt_publish_refused",
                broker=self.url,
                reason=publisher.refusal,
                events=publisher.refused[_EVENT],
                spectator_items=publisher.refused[_SPECTATOR],
                status_or_snapshots=publisher.refused[_OTHER],
                hint="the broker refused messages (an ACL, a quota or a size limit on its "
                "side); refused events and spectator items are counted undelivered",
            )
        return refused
