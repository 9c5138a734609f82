"""One publish-only connection to an MQTT broker, cheap enough for every event.

:class:`Publisher` connects (TCP or TLS, MQTT 3.1.1 or 5, a last will, credentials),
then sends batches of QoS 1 messages written at once and awaits their acknowledgements
together: one write and one future per batch, not per message (the packets are
:mod:`arena.sinks.mqtt_packets`; why not aiomqtt is said there). It never subscribes.
It keeps the connection alive with PINGREQ when idle, and any failure (refused, reset,
the broker gone quiet) is an :class:`MqttError` saying what happened; the connection is
then over and the caller connects again.
"""

from __future__ import annotations

import asyncio
import ssl
import time
from collections.abc import Callable, Sequence
from typing import Final

from arena.errors import ArenaError
from arena.sinks import mqtt_packets as packets

__all__ = ["KINDS", "Message", "MqttError", "Publisher", "broker_url"]

Message = tuple[bytes, bytes, bool, int, object]
"""(topic, payload, retain, kind, item), published at QoS 1. ``kind`` (a small number,
below :data:`KINDS`) is what the acknowledgements are counted by; ``item`` is what
:meth:`Publisher.unacknowledged` gives back if the connection ends first."""

KINDS: Final = 4
"""How many kinds of message the counters tell apart."""

_NEVER: Final = float("inf")


def broker_url(host: str, port: int, *, tls: bool) -> str:
    """How a broker is named in every line: ``mqtt://host:port`` (``mqtts://`` with TLS),
    an IPv6 address in brackets as in any URL (``mqtt://[::1]:1883``)."""
    shown = f"[{host}]" if ":" in host else host
    return f"{'mqtts' if tls else 'mqtt'}://{shown}:{port}"


class MqttError(ArenaError):
    """The connection could not be made, or broke: why, in words."""


class Publisher(asyncio.Protocol):
    """A connection that publishes QoS 1 messages through a window (see the module)."""

    def __init__(self, *, version: int, broker: str, on_lost: Callable[[], None]) -> None:
        self.version = version
        self.broker = broker
        self._on_lost = on_lost
        self._transport: asyncio.Transport | None = None
        self._buffer = bytearray()
        loop = asyncio.get_running_loop()
        self._loop = loop
        self._connack: asyncio.Future[packets.Connack] = loop.create_future()
        self._pending: dict[int, tuple[int, object]] = {}
        """Unacknowledged messages by packet id, in the order they were sent."""
        self._waiter: asyncio.Future[None] | None = None
        self._next_id = 0
        self._last_read = time.monotonic()
        self._last_write = _NEVER
        self._keepalive: asyncio.Task[None] | None = None
        self.error: MqttError | None = None
        """Set once the connection is over: why."""
        self.receive_maximum = 65_535
        """Messages the broker takes unacknowledged at once (its CONNACK says, MQTT 5)."""
        self.acked = [0] * KINDS
        """Messages the broker acknowledged, by kind (refused ones included)."""
        self.refused = [0] * KINDS
        """Messages the broker acknowledged with a refusal (MQTT 5: an ACL, a quota)."""
        self.refusal: str | None = None
        """The last refusal's reason, in words."""
        self.maximum_packet_size = 268_435_460
        """The largest packet the broker takes (its CONNACK says, MQTT 5): a larger
        message is not sent but counted refused, since sending it would cost the
        connection."""

    @classmethod
    async def connect(
        cls,
        *,
        host: str,
        port: int,
        client_id: str,
        version: int,
        will: tuple[str, bytes],
        username: str | None = None,
        password: str | None = None,
        tls: ssl.SSLContext | None = None,
        keepalive_s: int = 60,
        timeout_s: float = 5.0,
        on_lost: Callable[[], None] = lambda: None,
    ) -> Publisher:
        """Connect and wait for the broker's CONNACK, within ``timeout_s``. ``on_lost``
        is called once if the connection ends by itself later (not by :meth:`close`)."""
        broker = broker_url(host, port, tls=tls is not None)
        loop = asyncio.get_running_loop()
        protocol = cls(version=version, broker=broker, on_lost=_nothing)
        try:
            async with asyncio.timeout(timeout_s):
                await loop.create_connection(
                    lambda: protocol, host, port, ssl=tls, server_hostname=host if tls else None
                )
                protocol._write(
                    packets.connect(
                        client_id=client_id,
                        version=version,
                        keepalive_s=keepalive_s,
                        will=will,
                        username=username,
                        password=password,
                    )
                )
                connack = await protocol._connack
        except TimeoutError:
            protocol.close()
            hint = (
                " (a broker that speaks only MQTT 3.1.1 may not answer an MQTT 5 client: "
                'try [mqtt] protocol = "3.1.1")'
                if version == 5
                else ""
            )
            raise MqttError(f"{broker} did not answer within {timeout_s:g} s{hint}") from None
        except OSError as exc:
            protocol.close()
            raise MqttError(f"cannot connect to {broker}: {exc.strerror or exc}") from None
        except MqttError:
            protocol.close()
            raise
        refused = connack.refused
        if refused is None and connack.maximum_qos < 1:
            refused = "it takes QoS 0 only, and the feed publishes at QoS 1"
        if refused is None and not connack.retain_available:
            refused = "it keeps no retained messages, which the status and snapshots need"
        if refused is not None:
            protocol.close()
            if "password" in refused or "not authorized" in refused:
                refused += (
                    " (the user name and password come from the variables [mqtt] "
                    "username_env and password_env name)"
                )
            raise MqttError(f"{broker} refused the connection: {refused}")
        protocol.receive_maximum = max(1, connack.receive_maximum)
        protocol.maximum_packet_size = connack.maximum_packet_size
        if connack.server_keep_alive is not None and connack.server_keep_alive > 0:
            keepalive_s = connack.server_keep_alive  # the broker's word wins (MQTT 5)
        protocol._on_lost = on_lost  # from now on: a failure before this is connect's
        protocol._keepalive = loop.create_task(protocol._keep_alive(keepalive_s))
        return protocol

    @property
    def room(self) -> int:
        """How many more messages may be sent before an acknowledgement comes."""
        return self.receive_maximum - len(self._pending)

    def send(self, messages: Sequence[Message]) -> None:
        """Write the messages at once, QoS 1; at most :attr:`room` of them. Raises the
        connection's :class:`MqttError` if it is over."""
        if self.error is not None:
            raise self.error
        if not messages:
            return
        pending, version, next_id = self._pending, self.version, self._next_id
        encode, largest = packets.publish, self.maximum_packet_size
        parts = []
        for topic, payload, retain, kind, item in messages:
            packet_id = next_id % 65_535 + 1
            packet = encode(topic, payload, packet_id=packet_id, version=version, retain=retain)
            if len(packet) > largest:
                self.acked[kind] += 1
                self.refused[kind] += 1
                self.refusal = (
                    f"a message of {len(packet)} bytes, over the broker's maximum "
                    f"packet size ({largest})"
                )
                continue
            next_id = packet_id
            parts.append(packet)
            pending[packet_id] = (kind, item)
        self._next_id = next_id
        if parts:
            self._write(b"".join(parts))

    async def wait_room(self) -> None:
        """Until a message may be sent (or the connection's MqttError)."""
        while self.room <= 0:
            await self._next_ack()

    async def drained(self) -> None:
        """Until every message sent is acknowledged (or the connection's MqttError)."""
        while self._pending:
            await self._next_ack()

    def unacknowledged(self, kind: int) -> list[object]:
        """The items of one kind sent but not acknowledged, in the order they were
        sent: what a new connection sends again."""
        return [item for k, item in self._pending.values() if k == kind]

    async def disconnect(self) -> None:
        """Say DISCONNECT (the broker drops the will) and close."""
        if self.error is None and self._transport is not None:
            self._write(packets.disconnect())
        self.close()

    def close(self) -> None:
        """End the connection now, without calling ``on_lost``; unacknowledged
        messages stay listed (:meth:`unacknowledged`)."""
        self._on_lost = _nothing
        self._fail(MqttError(f"the connection to {self.broker} was closed"))
        if self._transport is not None:
            self._transport.close()

    # asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self._transport = transport

    def data_received(self, data: bytes) -> None:
        self._last_read = time.monotonic()
        buffer = self._buffer
        buffer += data
        try:
            self._handle(packets.read_packets(buffer))
        except packets.MalformedPacket as exc:
            error = MqttError(f"{self.broker} sent a malformed packet: {exc}")
            if not self._connack.done():
                self._connack.set_exception(error)
            self._lost(error)
            return
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def _handle(self, received: list[tuple[int, bytes]]) -> None:
        pending, acked = self._pending, self.acked
        for first, body in received:
            kind = first & 0xF0
            if kind == packets.PUBACK:
                packet_id, code = packets.puback(body)
                sent = pending.pop(packet_id, None)
                if sent is None:
                    continue
                acked[sent[0]] += 1
                if code >= 0x80:
                    self.refused[sent[0]] += 1
                    self.refusal = packets.REASONS.get(code, f"reason code 0x{code:02X}")
            elif kind == packets.CONNACK:
                if not self._connack.done():
                    self._connack.set_result(packets.connack(body, self.version))
            elif kind == packets.DISCONNECT:
                code = body[0] if body else 0
                words = packets.REASONS.get(code, f"reason code 0x{code:02X}")
                if code == 0:
                    words = "a normal disconnection"
                self._lost(MqttError(f"{self.broker} closed the connection: {words}"))
                return

    def connection_lost(self, exc: Exception | None) -> None:
        detail = f": {exc}" if exc is not None else ""
        self._lost(MqttError(f"the connection to {self.broker} was lost{detail}"))

    # internals

    async def _next_ack(self) -> None:
        if self.error is not None:
            raise self.error
        if self._waiter is None:
            self._waiter = self._loop.create_future()
        await self._waiter

    def _write(self, data: bytes) -> None:
        transport = self._transport
        if transport is None or transport.is_closing():
            raise self.error or MqttError(f"the connection to {self.broker} is closed")
        transport.write(data)
        self._last_write = time.monotonic()

    def _lost(self, error: MqttError) -> None:
        if self.error is not None:
            return
        self._fail(error)
        if self._transport is not None:
            self._transport.abort()
        self._on_lost()

    def _fail(self, error: MqttError) -> None:
        """Every waiter gets the error; the first one is the connection's."""
        if self.error is None:
            self.error = error
        for future in (self._connack, self._waiter):
            if future is not None and not future.done():
                future.set_exception(self.error)
                future.exception()  # retrieved, whether or not anyone awaits it
        self._waiter = None
        if self._keepalive is not None and self._keepalive is not asyncio.current_task():
            self._keepalive.cancel()

    async def _keep_alive(self, keepalive_s: int) -> None:
        """PINGREQ when nothing was written for half the keepalive; give up when the
        broker has said nothing for one and a half (MQTT's own rule for the broker)."""
        every = keepalive_s / 2
        while self.error is None:
            await asyncio.sleep(every)
            now = time.monotonic()
            if now - self._last_read > 1.5 * keepalive_s:
                self._lost(MqttError(f"{self.broker} stopped answering"))
                return
            if self._last_write == _NEVER or now - self._last_write >= every:
                try:
                    self._write(packets.PINGREQ)
                except MqttError:
                    return


def _nothing() -> None:
    pass
