"""The publish-only MQTT connection (arena/sinks/mqtt_publisher.py) against a real
Mosquitto (tests/mosquitto.py, on free ports) and small fake brokers on loopback that
answer, stay silent, hang up or send garbage on cue."""

from __future__ import annotations

import asyncio
import re
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, contextmanager
from pathlib import Path

import aiomqtt
import pytest
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import Subscriber, subscribed_as

from arena.sinks.mqtt_publisher import Message, MqttError, Publisher

WILL = ("ddz-arena/test/status", b"offline")
CONNACK_311 = b"\x20\x02\x00\x00"
CONNACK_5 = b"\x20\x03\x00\x00\x00"
Script = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Lost:
    """An ``on_lost`` callback that counts its calls."""

    def __init__(self) -> None:
        self.calls = 0
        self.event = asyncio.Event()

    def __call__(self) -> None:
        self.calls += 1
        self.event.set()

    async def wait(self, within_s: float = 5.0) -> None:
        async with asyncio.timeout(within_s):
            await self.event.wait()


async def publisher_for(
    port: int,
    *,
    version: int = 4,
    on_lost: Callable[[], None] = lambda: None,
    **options: object,
) -> Publisher:
    return await Publisher.connect(
        host="127.0.0.1",
        port=port,
        client_id=f"publisher-test-{version}",
        version=version,
        will=WILL,
        on_lost=on_lost,
        **options,  # type: ignore[arg-type]
    )


def message(topic: str, payload: bytes, *, kind: int = 0, item: object = None) -> Message:
    return topic.encode(), payload, False, kind, item


# A real subscriber (aiomqtt)


class Received(Subscriber):
    """A subscriber to ``ddz-arena/#`` that keeps each payload as the bytes published
    (these tests publish more than the feed's JSON)."""

    def add(self, message: aiomqtt.Message) -> None:
        assert isinstance(message.payload, bytes)
        self.messages.append((str(message.topic), message.payload, bool(message.retain)))
        self._arrived.set()

    async def until(self, count: int, *, within_s: float = 5.0) -> None:
        await self.wait_for(lambda messages: len(messages) >= count, within_s=within_s)


def subscribed(broker: Mosquitto) -> AbstractAsyncContextManager[Received]:
    return subscribed_as(broker, Received())


@contextmanager
def running(broker: Mosquitto) -> Iterator[Mosquitto]:
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


async def accepting(port: int, *, within_s: float = 5.0) -> None:
    """Until something accepts connections on the port."""
    async with asyncio.timeout(within_s):
        while True:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                await asyncio.sleep(0.02)
            else:
                writer.close()
                await writer.wait_closed()
                return


def configured(broker: Mosquitto, pattern: str, replacement: str) -> None:
    """Change one line of the broker's config (before it starts); fails if it is gone."""
    text, count = re.subn(pattern, replacement, broker.config.read_text(), count=1, flags=re.M)
    assert count == 1, f"{pattern!r} is not in {broker.config}"
    broker.config.write_text(text)


# Fake brokers


@asynccontextmanager
async def fake_broker(script: Script) -> AsyncIterator[int]:
    """A TCP server on loopback running ``script`` for each connection: its port."""
    tasks: list[asyncio.Task[None]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        tasks.append(task)
        try:
            await script(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    try:
        yield server.sockets[0].getsockname()[1]
    finally:
        server.close()
        if tasks:  # each ends when the client hangs up; a stuck one is cancelled
            await asyncio.wait(tasks, timeout=2)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await server.wait_closed()


async def read_packet(reader: asyncio.StreamReader) -> tuple[int, bytes]:
    """One packet off the stream, as the broker reads it: (first byte, body)."""
    first = (await reader.readexactly(1))[0]
    length = shift = 0
    while True:
        byte = (await reader.readexactly(1))[0]
        length |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    return first, await reader.readexactly(length)


def answering(*answers: bytes) -> Script:
    """A broker that reads CONNECT, writes ``answers`` a moment apart (each its own
    read for the client), then only reads until the end."""

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_packet(reader)
        for answer in answers:
            writer.write(answer)
            await writer.drain()
            await asyncio.sleep(0.05)
        await reader.read()

    return script


def packet_id(publish_body: bytes) -> int:
    """The packet id of a QoS 1 PUBLISH: the two bytes after the topic."""
    topic_end = 2 + int.from_bytes(publish_body[:2], "big")
    return int.from_bytes(publish_body[topic_end : topic_end + 2], "big")


class AckingBroker:
    """A fake broker that accepts, acknowledges every PUBLISH and answers PINGREQ,
    recording the packets it got; ``ended`` is set when the client hangs up."""

    def __init__(self, connack: bytes = CONNACK_311) -> None:
        self.connack = connack
        self.packets: list[tuple[int, bytes]] = []
        self.ended = asyncio.Event()
        self._arrived = asyncio.Event()

    async def __call__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                first, body = await read_packet(reader)
                self.packets.append((first, body))
                self._arrived.set()
                if first == 0x10:
                    writer.write(self.connack)
                elif first & 0xF0 == 0x30 and first & 0x06:
                    writer.write(b"\x40\x02" + packet_id(body).to_bytes(2, "big"))
                elif first == 0xC0:
                    writer.write(b"\xd0\x00")
        except asyncio.IncompleteReadError:
            self.ended.set()
            self._arrived.set()

    def pings(self) -> int:
        return sum(1 for first, _ in self.packets if first == 0xC0)

    async def until_pinged(self, count: int, *, within_s: float) -> None:
        """Until the broker has had ``count`` PINGREQs, or the client hung up; the
        ``within_s`` is a hang guard (a keepalive that never pings), not a measure."""
        async with asyncio.timeout(within_s):
            while self.pings() < count and not self.ended.is_set():
                self._arrived.clear()
                await self._arrived.wait()


# Against a real Mosquitto


@pytest.mark.parametrize("version", [4, 5])
async def test_qos_1_messages_arrive_in_order_and_the_retained_one_stays(
    mosquitto: Mosquitto, version: int
) -> None:
    events = [message("ddz-arena/test/events", b"event %d" % n, kind=1) for n in range(30)]
    state = (b"ddz-arena/test/state", b"the state", True, 2, None)
    async with subscribed(mosquitto) as live:
        publisher = await publisher_for(mosquitto.port, version=version)
        try:
            publisher.send(events[:10])
            publisher.send([*events[10:], state])
            await publisher.drained()
        finally:
            await publisher.disconnect()
        await live.until(31)
    assert publisher.acked == [0, 30, 1, 0]
    assert publisher.refused == [0, 0, 0, 0]
    assert publisher.error is not None  # over: disconnected
    assert live.messages[:30] == [
        ("ddz-arena/test/events", b"event %d" % n, False) for n in range(30)
    ]
    assert live.messages[30][:2] == ("ddz-arena/test/state", b"the state")
    async with subscribed(mosquitto) as late:
        await late.until(1)
        await asyncio.sleep(0.2)
    assert late.messages == [("ddz-arena/test/state", b"the state", True)]


async def test_a_small_receive_maximum_is_kept_to_and_more_messages_get_through(
    tmp_path: Path,
) -> None:
    broker = Mosquitto(tmp_path)
    configured(broker, r"^max_inflight_messages \d+$", "max_inflight_messages 5")
    with running(broker):
        async with subscribed(broker) as live:
            publisher = await publisher_for(broker.port, version=5)
            try:
                assert publisher.receive_maximum == 5
                assert publisher.room == 5
                rooms: list[int] = []
                sent = 0
                while sent < 60:
                    await publisher.wait_room()
                    batch = min(publisher.room, 3, 60 - sent)
                    publisher.send(
                        [message("ddz-arena/test/n", b"%d" % (sent + n)) for n in range(batch)]
                    )
                    sent += batch
                    rooms.append(publisher.room)
                await publisher.drained()
                assert publisher.room == 5
            finally:
                await publisher.disconnect()
            await live.until(60)
    assert rooms[:2] == [2, 0]  # the window filled before any acknowledgement came
    assert min(rooms) >= 0
    assert publisher.acked[0] == 60
    assert [payload for _, payload, _ in live.messages] == [b"%d" % n for n in range(60)]


# Mosquitto 2.0 answers a wrong password with "not authorized" (3.1.1 code 5, MQTT 5
# 0x87); other brokers say "bad user name or password" (code 4, 0x86), as the fakes below.
@pytest.mark.parametrize("version", [4, 5])
async def test_a_wrong_password_is_refused_in_words_that_never_show_the_password(
    tmp_path: Path, version: int
) -> None:
    with running(Mosquitto(tmp_path, users={"studio": "pa55-word"})) as broker:
        with pytest.raises(MqttError) as caught:
            await publisher_for(
                broker.port, version=version, username="studio", password="wr0ng-s3cret"
            )
        good = await publisher_for(
            broker.port, version=version, username="studio", password="pa55-word"
        )
        await good.disconnect()
    assert re.fullmatch(
        rf"mqtt://127\.0\.0\.1:{broker.port} refused the connection: "
        r"(not authorized|bad user name or password) \(the user name and password come "
        r"from the variables \[mqtt\] username_env and password_env name\)",
        str(caught.value),
    )
    assert "wr0ng-s3cret" not in str(caught.value)


@pytest.mark.parametrize(
    ("version", "connack", "words"),
    [
        (4, b"\x20\x02\x00\x04", "bad user name or password"),
        (4, b"\x20\x02\x00\x05", "not authorized"),
        (5, b"\x20\x03\x00\x86\x00", "bad user name or password"),
        (5, b"\x20\x03\x00\x87\x00", "not authorized"),
        (5, b"\x20\x07\x00\x87\x04\x1f\x00\x01!", "not authorized: !"),
    ],
    ids=["311-code-4", "311-code-5", "v5-0x86", "v5-0x87", "v5-reason-string"],
)
async def test_a_refused_connect_is_said_in_the_standards_words(
    version: int, connack: bytes, words: str
) -> None:
    lost = Lost()
    async with fake_broker(answering(connack)) as port:
        with pytest.raises(MqttError) as caught:
            await publisher_for(
                port, version=version, username="studio", password="wr0ng-s3cret", on_lost=lost
            )
    hint = (
        " (the user name and password come from the variables [mqtt] username_env and "
        "password_env name)"
    )
    said = f"mqtt://127.0.0.1:{port} refused the connection: {words}"
    assert str(caught.value) in (said, said + hint)
    assert ("password" in words or "not authorized" in words) == str(caught.value).endswith(hint)
    assert "wr0ng-s3cret" not in str(caught.value)
    assert lost.calls == 0


def acl_broker(tmp_path: Path) -> Mosquitto:
    """Mosquitto where user ``studio`` may publish to ddz-arena/# and nothing else."""
    acl = tmp_path / "acl"
    acl.write_text("user studio\ntopic write ddz-arena/#\n")
    acl.chmod(0o600)
    broker = Mosquitto(tmp_path, users={"studio": "pa55-word"})
    configured(broker, r"^(password_file .*)$", rf"\1\nacl_file {acl}")
    return broker


async def test_an_acl_refusal_is_counted_and_named_with_mqtt_5(tmp_path: Path) -> None:
    with running(acl_broker(tmp_path)) as broker:
        publisher = await publisher_for(
            broker.port, version=5, username="studio", password="pa55-word"
        )
        try:
            publisher.send(
                [
                    message("ddz-arena/test/ok", b"1", kind=1),
                    message("forbidden/topic", b"2", kind=2),
                    message("ddz-arena/test/ok", b"3", kind=1),
                ]
            )
            await publisher.drained()
        finally:
            await publisher.disconnect()
    assert publisher.acked == [0, 2, 1, 0]
    assert publisher.refused == [0, 0, 1, 0]
    assert publisher.refusal == "not authorized"


async def test_with_mqtt_311_an_acl_refusal_is_an_ordinary_acknowledgement(
    tmp_path: Path,
) -> None:
    with running(acl_broker(tmp_path)) as broker:
        publisher = await publisher_for(
            broker.port, version=4, username="studio", password="pa55-word"
        )
        try:
            publisher.send([message("forbidden/topic", b"2", kind=2)])
            await publisher.drained()
        finally:
            await publisher.disconnect()
    assert publisher.acked == [0, 0, 1, 0]
    assert publisher.refused == [0, 0, 0, 0]
    assert publisher.refusal is None


@pytest.mark.parametrize("version", [4, 5])
async def test_a_connection_ended_without_disconnect_makes_the_broker_publish_the_will(
    mosquitto: Mosquitto, version: int
) -> None:
    lost = Lost()
    async with subscribed(mosquitto) as live:
        publisher = await publisher_for(mosquitto.port, version=version, on_lost=lost)
        publisher.close()  # the socket closes, no DISCONNECT said
        await live.until(1)
    assert live.messages == [("ddz-arena/test/status", b"offline", False)]
    assert lost.calls == 0  # close() is ours, not a loss
    async with subscribed(mosquitto) as late:
        await late.until(1)
    assert late.messages == [("ddz-arena/test/status", b"offline", True)]


@pytest.mark.parametrize("version", [4, 5])
async def test_disconnect_says_goodbye_and_the_broker_drops_the_will(
    mosquitto: Mosquitto, version: int
) -> None:
    async with subscribed(mosquitto) as live:
        publisher = await publisher_for(mosquitto.port, version=version)
        publisher.send([message("ddz-arena/test/events", b"last")])
        await publisher.drained()
        await publisher.disconnect()
        await asyncio.sleep(0.5)
        marker = await publisher_for(mosquitto.port, version=version)
        marker.send([message("ddz-arena/test/marker", b"after")])
        await marker.drained()
        await marker.disconnect()
        await live.until(2)
    assert [topic for topic, _, _ in live.messages] == [
        "ddz-arena/test/events",
        "ddz-arena/test/marker",
    ]
    async with subscribed(mosquitto) as late:
        await asyncio.sleep(0.3)
    assert late.messages == []


# Failures, against fake brokers


async def test_nothing_listening_is_cannot_connect() -> None:
    port = free_port()
    with pytest.raises(MqttError, match=rf"^cannot connect to mqtt://127\.0\.0\.1:{port}: "):
        await publisher_for(port)


async def test_a_broker_that_never_answers_connect_times_out() -> None:
    async with fake_broker(answering()) as port:
        started = time.monotonic()
        with pytest.raises(MqttError, match=r"did not answer within 0\.3 s"):
            async with asyncio.timeout(4.5):  # hang guard, under the default 5 s deadline
                await publisher_for(port, timeout_s=0.3)
        waited = time.monotonic() - started
    assert waited >= 0.3  # it waited its deadline: load only makes this longer


async def test_a_broker_gone_silent_is_noticed_by_the_keepalive() -> None:
    got: list[bytes] = []

    answered: list[float] = []

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_packet(reader)
        answered.append(time.monotonic())
        writer.write(CONNACK_311)
        got.append(await reader.read())

    lost = Lost()
    lost_at: list[float] = []

    def on_lost() -> None:
        lost_at.append(time.monotonic())
        lost()

    async with fake_broker(script) as port:
        publisher = await publisher_for(port, keepalive_s=1, on_lost=on_lost)
        await lost.wait(within_s=30)  # a hang guard: a keepalive that never gives up
        await asyncio.sleep(0.6)  # no second call
    # The broker's last word (the CONNACK) was read after `answered`: the loss waited
    # out 1.5 keepalives of silence. Load only makes the wait longer.
    assert lost_at[0] - answered[0] > 1.5
    assert lost.calls == 1
    assert publisher.error is not None
    assert str(publisher.error).endswith("stopped answering")
    assert got[0].startswith(b"\xc0\x00")  # it did ask, with PINGREQ
    assert got[0] == b"\xc0\x00" * (len(got[0]) // 2)
    # How soon, counted in keepalive ticks rather than seconds: a ping every 0.5 s of
    # idleness and the loss at the first tick past 1.5 s of silence leave room for three
    # pings at most (a slow tick only means fewer); a keepalive that gives up late, or
    # never, keeps pinging.
    assert len(got[0]) // 2 <= 3


async def test_an_idle_connection_pings_and_stays_up_while_the_broker_answers() -> None:
    broker = AckingBroker()
    lost = Lost()
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port, keepalive_s=1, on_lost=lost)
        # Four pings: the fourth tick comes 2 s or more after the CONNACK, past the
        # 1.5 s of silence that would end the connection if the answers went unheard.
        await broker.until_pinged(4, within_s=30)
        # The last PINGRESP is already on loopback: one turn of the loop reads it (a
        # close with unread data would be a reset, not the goodbye checked below).
        await asyncio.sleep(0.1)
        assert publisher.error is None
        await publisher.disconnect()
        async with asyncio.timeout(2):
            await broker.ended.wait()
    assert broker.pings() >= 4
    assert broker.packets[-1] == (0xE0, b"")  # DISCONNECT
    assert lost.calls == 0


async def test_a_broker_that_hangs_up_leaves_the_unacknowledged_items_in_order() -> None:
    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_packet(reader)
        writer.write(CONNACK_311)
        for _ in range(5):
            await read_packet(reader)
        writer.write(b"\x40\x02\x00\x02")  # acknowledges the second message only
        writer.write(b"\x40\x02\x00\x63")  # and one that was never sent: ignored

    lost = Lost()
    async with fake_broker(script) as port:
        publisher = await publisher_for(port, on_lost=lost)
        publisher.send(
            [
                message("ddz-arena/a", b"", kind=1, item="a"),
                message("ddz-arena/x", b"", kind=2, item="x"),
                message("ddz-arena/b", b"", kind=1, item="b"),
                message("ddz-arena/c", b"", kind=1, item="c"),
            ]
        )
        publisher.send([message("ddz-arena/d", b"", kind=1, item="d")])
        with pytest.raises(MqttError, match=r"connection to .* was lost"):
            await publisher.drained()
        await asyncio.sleep(0.1)
    assert lost.calls == 1
    assert publisher.unacknowledged(1) == ["a", "b", "c", "d"]
    assert publisher.unacknowledged(2) == []
    assert publisher.unacknowledged(0) == []
    assert publisher.acked == [0, 0, 1, 0]
    with pytest.raises(MqttError, match="was lost") as caught:
        publisher.send([message("ddz-arena/e", b"")])
    assert caught.value is publisher.error
    with pytest.raises(MqttError, match="was lost"):
        await publisher.drained()


async def test_garbage_from_the_broker_is_a_malformed_packet() -> None:
    lost = Lost()
    async with fake_broker(answering(CONNACK_311, b"\xff\xff\xff\xff\xff")) as port:
        publisher = await publisher_for(port, on_lost=lost)
        await lost.wait()
    assert lost.calls == 1
    assert re.search(r"mqtt://127\.0\.0\.1:\d+ sent a malformed packet", str(publisher.error))


async def test_garbage_instead_of_a_connack_fails_the_connect_as_malformed() -> None:
    async with fake_broker(answering(b"\xff\xff\xff\xff\xff")) as port:
        with pytest.raises(MqttError, match="sent a malformed packet"):
            await publisher_for(port)


async def test_a_broker_that_hangs_up_before_connack_fails_the_connect() -> None:
    """connect raises; on_lost is for a connection that was made, so it is not called."""
    lost = Lost()

    async def script(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_packet(reader)

    async with fake_broker(script) as port:
        with pytest.raises(MqttError, match="was lost"):
            await publisher_for(port, on_lost=lost)
    assert lost.calls == 0


async def test_a_connack_cut_inside_a_property_fails_the_connect_as_malformed() -> None:
    async with fake_broker(answering(b"\x20\x04\x00\x00\x01\x25")) as port:
        with pytest.raises(MqttError, match="sent a malformed packet: a property runs past"):
            await publisher_for(port, version=5)


async def test_a_puback_too_short_is_a_malformed_packet_and_a_loss() -> None:
    lost = Lost()
    async with fake_broker(answering(CONNACK_311, b"\x40\x01\x00")) as port:
        publisher = await publisher_for(port, on_lost=lost)
        await lost.wait()
    assert lost.calls == 1
    assert "sent a malformed packet: a PUBACK shorter than 2 bytes" in str(publisher.error)


async def test_a_v5_disconnect_from_the_broker_names_its_reason() -> None:
    lost = Lost()
    async with fake_broker(answering(CONNACK_5, b"\xe0\x02\x8e\x00")) as port:
        publisher = await publisher_for(port, version=5, on_lost=lost)
        await lost.wait()
    assert lost.calls == 1
    assert re.search(r"closed the connection: session taken over", str(publisher.error))
    with pytest.raises(MqttError, match="session taken over"):
        publisher.send([message("ddz-arena/a", b"")])


@pytest.mark.parametrize(
    ("announced", "kept"), [(b"\x00\x02", 2), (b"\x00\x00", 1)], ids=["two", "zero-means-one"]
)
async def test_the_window_is_the_receive_maximum_the_v5_connack_announces(
    announced: bytes, kept: int
) -> None:
    broker = AckingBroker(b"\x20\x06\x00\x00\x03\x21" + announced)
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port, version=5)
        try:
            assert publisher.receive_maximum == kept
            publisher.send([message("ddz-arena/a", b"%d" % n) for n in range(kept)])
            assert publisher.room == 0
            await publisher.wait_room()
            assert publisher.room >= 1
            await publisher.drained()
            assert publisher.room == kept
        finally:
            await publisher.disconnect()
    ids = [packet_id(body) for first, body in broker.packets if first & 0xF0 == 0x30]
    assert ids == list(range(1, kept + 1))


async def test_packet_ids_count_up_across_batches_and_publishes_are_qos_1() -> None:
    broker = AckingBroker()
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port)
        try:
            publisher.send([message("t", b"a"), message("t", b"b")])
            publisher.send([(b"t", b"c", True, 0, None)])
            await publisher.drained()
        finally:
            await publisher.disconnect()
    publishes = [(first, body) for first, body in broker.packets if first & 0xF0 == 0x30]
    assert publishes == [
        (0x32, b"\x00\x01t\x00\x01a"),
        (0x32, b"\x00\x01t\x00\x02b"),
        (0x33, b"\x00\x01t\x00\x03c"),
    ]
    assert publisher.acked == [3, 0, 0, 0]


async def test_close_says_no_disconnect_and_never_calls_on_lost() -> None:
    broker = AckingBroker()
    lost = Lost()
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port, on_lost=lost)
        publisher.close()
        async with asyncio.timeout(2):
            await broker.ended.wait()
    assert [first for first, _ in broker.packets] == [0x10]
    assert lost.calls == 0
    assert "was closed" in str(publisher.error)


async def test_the_connect_packet_carries_the_will_and_credentials() -> None:
    broker = AckingBroker()
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port, username="studio", password="pw", keepalive_s=7)
        await publisher.disconnect()
        async with asyncio.timeout(2):
            await broker.ended.wait()
    first, body = broker.packets[0]
    assert first == 0x10
    assert body[:10] == b"\x00\x04MQTT\x04\xee\x00\x07"
    assert body.endswith(b"\x00\x07offline\x00\x06studio\x00\x02pw")


async def test_packet_ids_wrap_from_65535_to_1_never_0() -> None:
    broker = AckingBroker()
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port)
        try:
            publisher.send([message("t", b"")] * 65_535)
            await publisher.drained()
            publisher.send([message("t", b""), message("t", b"")])
            await publisher.drained()
        finally:
            await publisher.disconnect()
    ids = [packet_id(body) for first, body in broker.packets if first & 0xF0 == 0x30]
    assert ids[-4:] == [65_534, 65_535, 1, 2]
    assert publisher.acked[0] == 65_537


async def test_tls_connects_when_the_certificate_is_trusted_and_fails_in_words_if_not(
    tmp_path: Path, certificate: tuple[Path, Path]
) -> None:
    with running(Mosquitto(tmp_path, tls=certificate)) as broker:
        await accepting(broker.tls_port)  # start() waits for the TCP listener only
        with pytest.raises(
            MqttError, match=rf"^cannot connect to mqtts://127\.0\.0\.1:{broker.tls_port}: .*verif"
        ):
            await publisher_for(broker.tls_port, tls=ssl.create_default_context())
        trusted = ssl.create_default_context(cafile=str(certificate[0]))
        publisher = await publisher_for(broker.tls_port, version=5, tls=trusted)
        try:
            assert publisher.broker == f"mqtts://127.0.0.1:{broker.tls_port}"
            publisher.send([message("ddz-arena/test/tls", b"over tls")])
            await publisher.drained()
        finally:
            await publisher.disconnect()
    assert publisher.acked[0] == 1


async def test_the_broker_going_away_is_a_loss_reported_once(mosquitto: Mosquitto) -> None:
    lost = Lost()
    publisher = await publisher_for(mosquitto.port, version=5, on_lost=lost)
    try:
        mosquitto.stop()
        await lost.wait()
        await asyncio.sleep(0.2)
    finally:
        publisher.close()
    assert lost.calls == 1
    assert str(publisher.error).startswith(
        f"the connection to mqtt://127.0.0.1:{mosquitto.port} was lost"
    )
    with pytest.raises(MqttError, match="was lost"):
        publisher.send([message("ddz-arena/a", b"")])


# What an MQTT 5 CONNACK asks for


async def test_a_message_over_the_brokers_maximum_packet_size_is_refused_not_sent() -> None:
    """Sending it would cost the connection (the broker drops the client): it is
    counted refused instead, with why, and the rest goes on."""
    broker = AckingBroker(b"\x20\x08\x00\x00\x05\x27\x00\x00\x00\x40")  # at most 64 bytes
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port, version=5)
        try:
            assert publisher.maximum_packet_size == 64
            publisher.send(
                [
                    message("ddz-arena/a", b"small"),
                    message("ddz-arena/a", b"x" * 100, kind=1),
                    message("ddz-arena/a", b"small too"),
                ]
            )
            await publisher.drained()
        finally:
            await publisher.disconnect()
    sent = [body for first, body in broker.packets if first & 0xF0 == 0x30]
    assert len(sent) == 2
    assert publisher.acked[:2] == [2, 1]
    assert publisher.refused[:2] == [0, 1]
    assert publisher.refusal is not None
    assert "over the broker's maximum packet size (64)" in publisher.refusal


async def test_the_brokers_keep_alive_wins_over_ours() -> None:
    broker = AckingBroker(b"\x20\x06\x00\x00\x03\x13\x00\x01")  # server keep alive: 1 s
    async with fake_broker(broker) as port:
        publisher = await publisher_for(port, version=5, keepalive_s=60)
        try:
            # Ours would ping after 30 s idle, the broker's after 0.5 s; the 10 s is
            # a hang guard between the two.
            await broker.until_pinged(1, within_s=10)
        finally:
            await publisher.disconnect()
    assert broker.pings() >= 1


@pytest.mark.parametrize(
    ("connack", "words"),
    [
        (b"\x20\x05\x00\x00\x02\x25\x00", "keeps no retained messages"),
        (b"\x20\x05\x00\x00\x02\x24\x00", "takes QoS 0 only"),
        (b"\x20\x02\x00\x01", "refused the protocol version"),  # a 3.1.1 broker's answer
    ],
)
async def test_a_broker_the_feed_cannot_use_is_refused_in_words(connack: bytes, words: str) -> None:
    async with fake_broker(answering(connack)) as port:
        with pytest.raises(MqttError, match=f"refused the connection: .*{words}"):
            await publisher_for(port, version=5)


async def test_no_answer_to_an_mqtt_5_connect_suggests_mqtt_3_1_1() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read()

    async with fake_broker(silent) as port:
        with pytest.raises(MqttError, match=re.escape('try [mqtt] protocol = "3.1.1"')):
            await publisher_for(port, version=5, timeout_s=0.3)
