"""The live feed over MQTT, against a real Mosquitto on the project's config.

Each test starts its own broker (tests/mosquitto.py) on free ports, plays scripted
matches with an :class:`MqttSink` attached, and reads what arrived with a real
subscriber: every event in order, the retained snapshot and status for a late
subscriber, the broker going away mid-match, a slow subscriber, the command line.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)

from arena.cli import main
from arena.config import MqttSettings, parse_config
from arena.errors import ConfigError
from arena.events import Event
from arena.games.ddz.events import parse_event
from arena.games.ddz.public_state import PublicTableState
from arena.logs import EVENT_ATTRIBUTE
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.mqtt import MqttSink, broker_from_url
from arena.sinks.mqtt_packets import connect as mqtt_connect
from protocol.cards import CANONICAL_CARDS
from protocol.events import EVENT_SCHEMA_VERSION

REPO = Path(__file__).resolve().parent.parent
Message = tuple[str, Any, bool]
"""A message as received: topic, payload (JSON decoded; a status as its word), retained
flag."""


class Subscriber:
    """Everything a client subscribed to ``ddz-arena/#`` received, in order. A status
    (``{"status": "online", "run": ..., "degraded": [...]}``) is kept whole in
    :attr:`statuses`, and in :attr:`messages` as its word (``online``, ``offline``)."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.statuses: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()

    def add(self, message: aiomqtt.Message) -> None:
        raw = message.payload
        assert isinstance(raw, bytes)
        payload: Any = orjson.loads(raw)
        if str(message.topic) == "ddz-arena/status":
            self.statuses.append(payload)
            payload = payload["status"]
        self.messages.append((str(message.topic), payload, bool(message.retain)))
        self._arrived.set()

    async def wait_for(self, done: Callable[[list[Message]], bool], *, within_s: float) -> None:
        """Until ``done(messages)`` holds; fails the test after ``within_s``."""
        async with asyncio.timeout(within_s):
            while not done(self.messages):
                self._arrived.clear()
                await self._arrived.wait()

    def events(self, table: str) -> list[dict[str, Any]]:
        return [p for t, p, _ in self.messages if t == f"ddz-arena/tables/{table}/events"]

    def last(self, topic: str) -> Any:
        return [p for t, p, _ in self.messages if t == topic][-1]


class HasPort(Protocol):
    port: int


AnySubscriber = TypeVar("AnySubscriber", bound=Subscriber)


@asynccontextmanager
async def subscribed_as(
    broker: HasPort,
    subscriber: AnySubscriber,
    *,
    protocol: aiomqtt.ProtocolVersion | None = None,
    username: str | None = None,
    password: str | None = None,
) -> AsyncIterator[AnySubscriber]:
    """``subscriber`` fed from ``ddz-arena/#`` (QoS 1) for the block's length; only our
    topics are kept (an embedded amqtt broker may send others)."""
    async with aiomqtt.Client(
        "127.0.0.1", broker.port, protocol=protocol, username=username, password=password
    ) as client:
        await client.subscribe("ddz-arena/#", qos=1)

        async def read() -> None:
            async for message in client.messages:
                if str(message.topic).startswith("ddz-arena/"):
                    subscriber.add(message)

        reader = asyncio.create_task(read())
        try:
            yield subscriber
        finally:
            reader.cancel()


def subscribed(broker: Mosquitto) -> AbstractAsyncContextManager[Subscriber]:
    """A subscriber to ``ddz-arena/#`` (QoS 1) for the block's length."""
    return subscribed_as(broker, Subscriber())


def said(messages: list[Message], status: str) -> bool:
    """Whether the status was published (retained or live: a subscriber may come first)."""
    return any(t == "ddz-arena/status" and p == status for t, p, _ in messages)


def sink_for(broker: Mosquitto, *, run_id: str = "run-1", **settings: Any) -> MqttSink:
    sink = MqttSink(
        MqttSettings(enabled=True, port=broker.port, **settings), run_id=run_id, environ={}
    )
    sink.backoff_cap_s = 0.5
    return sink


async def eventually(check: Callable[[], bool], *, within_s: float = 5.0) -> None:
    """Until ``check()`` holds: the sink's figures come from its worker, a moment late."""
    async with asyncio.timeout(within_s):
        while not check():  # noqa: ASYNC110 (polled: the figures arrive from a process)
            await asyncio.sleep(0.01)


async def connected(sink: MqttSink) -> MqttSink:
    """The sink started and connected (its worker takes a moment to start)."""
    sink.start()
    await eventually(lambda: sink.stats.connected, within_s=10)
    return sink


def config(*, rounds: int = 1, tables: int = 1) -> Any:
    return parse_config({"match": {"rounds": rounds, "tables": tables}, "table": {"pace_s": 0}})


def expected_state(events: Sequence[Event], run_id: str) -> dict[str, Any]:
    """The snapshot the events of one table fold into."""
    state = PublicTableState(events[0].table, run_id=run_id)
    for event in events:
        state.apply(event)
    return dict(state.snapshot())


def payloads(events: Sequence[Event], run_id: str) -> list[dict[str, Any]]:
    """The events as a subscriber decodes them: their dict, its run id, JSON round trip."""
    return [
        orjson.loads(orjson.dumps({**e.to_dict(), "v": EVENT_SCHEMA_VERSION, "run": run_id}))
        for e in events
    ]


@pytest.mark.parametrize("protocol", ["5", "3.1.1"])
async def test_every_event_arrives_in_order_with_its_seq_run_and_version(
    mosquitto: Mosquitto, protocol: str
) -> None:
    collected = CollectingSink()
    sink = sink_for(mosquitto, protocol=protocol)
    async with subscribed(mosquitto) as subscriber:
        await run_arena(config(rounds=2, tables=2), seed=7, sinks=[collected, sink])
        await sink.close()
        await subscriber.wait_for(
            lambda ms: ("ddz-arena/status", "offline", False) in ms, within_s=10
        )
    for table in ("t1", "t2"):
        sent = [e for e in collected.events if e.table == table]
        received = subscriber.events(table)
        assert [p["seq"] for p in received] == list(range(1, len(sent) + 1))
        assert received == payloads(sent, "run-1")
        for payload in received:
            parse_event(payload)  # the documented contract (docs/events.md)
        assert subscriber.last(f"ddz-arena/tables/{table}/state") == expected_state(sent, "run-1")
    statuses = [p for t, p, _ in subscriber.messages if t == "ddz-arena/status"]
    assert statuses == ["online", "offline"]
    assert sink.stats.published == len(collected.events)
    assert sink.stats.undelivered == sink.stats.dropped == 0
    level = "p5" if protocol == "5" else "p2"  # as Mosquitto logs MQTT 5 and 3.1.1
    # the client id is random, never the run id, which every payload shows
    assert re.search(rf"as ddz-arena-[0-9a-f]{{16}} \({level},", mosquitto.log.read_text())
    assert "ddz-arena-run-1" not in mosquitto.log.read_text()
    await sink.close()  # a second close changes nothing
    assert sink.stats.published == len(collected.events)
    assert sink.stats.undelivered == 0


def still_hidden(events: Sequence[dict[str, Any]], upto: int) -> set[str]:
    """The cards nobody may see after a table's events up to seq ``upto``: all but those
    played and the bottom once shown; none once the round's result shows the hands."""
    shown: set[str] = set(CANONICAL_CARDS)
    for event in events:
        if event["seq"] > upto:
            break
        kind, data = event["type"], event["data"]
        if kind == "round_started":
            shown = set()
        elif kind == "landlord_chosen":
            shown |= set(data["bottom_cards"])
        elif kind == "play":
            shown |= set(data["cards"])
        elif kind == "round_result":
            shown = set(CANONICAL_CARDS)
    return set(CANONICAL_CARDS) - shown


async def test_nothing_hidden_is_published_on_any_topic(mosquitto: Mosquitto) -> None:
    """Every message, events and snapshots taken while the rounds were played (a
    paced table lets the publisher run mid-round), shows no card still hidden then."""
    sink = await connected(sink_for(mosquitto, run_id="hidden"))
    rounds = parse_config({"match": {"rounds": 1}, "table": {"pace_s": 0.002, "auto_pass": False}})
    async with subscribed(mosquitto) as subscriber:
        await run_arena(rounds, seed=9, sinks=[sink])
        await sink.close()
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    events = subscriber.events("t1")
    states = [p for t, p, _ in subscriber.messages if t == "ddz-arena/tables/t1/state"]
    assert len(states) > 20, "the snapshots were taken mid-round"
    assert any(still_hidden(events, state["seq"]) for state in states)
    for message in [*events, *states]:
        text = orjson.dumps(message).decode()
        hidden = still_hidden(events, message["seq"])
        assert [card for card in hidden if card in text] == [], message
    published = {t for t, _, _ in subscriber.messages}
    assert published == {
        "ddz-arena/status",
        "ddz-arena/tables/t1/events",
        "ddz-arena/tables/t1/state",
    }


async def test_a_late_subscriber_reads_the_retained_state_and_status(
    mosquitto: Mosquitto,
) -> None:
    collected = CollectingSink()
    sink = sink_for(mosquitto, run_id="late")
    await run_arena(config(), seed=3, sinks=[collected, sink])
    await sink.close()
    async with subscribed(mosquitto) as subscriber:
        await subscriber.wait_for(
            lambda ms: {t for t, _, _ in ms} >= {"ddz-arena/status", "ddz-arena/tables/t1/state"},
            within_s=10,
        )
        await asyncio.sleep(0.2)  # anything else retained would have come with them
    assert all(retained for _, _, retained in subscriber.messages)
    assert subscriber.last("ddz-arena/status") == "offline"
    state = subscriber.last("ddz-arena/tables/t1/state")
    assert state == expected_state(collected.events, "late")
    assert state["status"] == "ended"
    assert state["run"] == "late"
    assert subscriber.events("t1") == []  # events are not retained


VANISHING = """
import asyncio, sys
from arena.config import MqttSettings
from arena.sinks.mqtt import MqttSink

async def main() -> None:
    sink = MqttSink(MqttSettings(port=int(sys.argv[1])), run_id="gone", environ={})
    sink.start()
    while not sink.stats.connected:
        await asyncio.sleep(0.01)
    print("connected", flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


async def test_the_status_is_online_then_offline_when_the_arenas_process_vanishes(
    mosquitto: Mosquitto,
) -> None:
    """Killed, the arena says no goodbye; its MQTT worker sees its input end and says
    offline (were the worker killed too, the broker's last will would)."""
    publisher = await asyncio.create_subprocess_exec(
        sys.executable, "-c", VANISHING, str(mosquitto.port), stdout=subprocess.PIPE, cwd=REPO
    )
    try:
        assert publisher.stdout is not None
        assert await publisher.stdout.readline() == b"connected\n"
        async with subscribed(mosquitto) as subscriber:
            await subscriber.wait_for(lambda ms: said(ms, "online"), within_s=10)
    finally:
        publisher.kill()
        await publisher.wait()
    async with subscribed(mosquitto) as late:
        # the worker runs niced: on a loaded machine it may wait for a core a while
        await late.wait_for(lambda ms: ("ddz-arena/status", "offline", True) in ms, within_s=30)


async def test_the_broker_going_away_mid_match_neither_stops_nor_slows_it(
    mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    collected = CollectingSink()

    class StopTheBroker(CollectingSink):
        async def emit(self, event: Event) -> None:
            if event.seq == 40 and event.table == "t1":
                mosquitto.stop()
            await super().emit(event)

    sink = sink_for(mosquitto, run_id="outage", queue_size=50)
    sink.start()
    async with subscribed(mosquitto) as subscriber:
        await subscriber.wait_for(lambda ms: bool(ms), within_s=10)  # online
    started = time.monotonic()
    await run_arena(config(rounds=3), seed=11, sinks=[StopTheBroker(), collected, sink])
    took = time.monotonic() - started
    assert not mosquitto.running
    assert took < 6.0, f"the match took {took:.1f} s with the broker away"
    await eventually(lambda: not sink.stats.connected)
    await eventually(lambda: sink.stats.dropped > 0)  # 3 rounds are far more than 50 events

    published_before = sink.stats.published
    mosquitto.start()  # a new broker: nothing retained until the sink republishes it
    final = expected_state(collected.events, "outage")
    async with subscribed(mosquitto) as subscriber:
        await subscriber.wait_for(
            lambda ms: any(m[:2] == ("ddz-arena/tables/t1/state", final) for m in ms),
            within_s=15,
        )
    await eventually(lambda: sink.stats.connections == 2)
    # the 50 buffered events reached the new broker (acknowledged): the sink may reconnect
    # before the subscriber above has subscribed, so the broker's word is the proof
    await eventually(lambda: sink.stats.published - published_before >= 50)
    # said at the default level, as the warnings that it was away were
    assert any(
        getattr(r, EVENT_ATTRIBUTE, {}).get("event") == "mqtt_reconnected"
        and r.levelname == "WARNING"
        for r in caplog.records
    )
    # the newest events were kept and sent in order (what the subscriber saw of them: the
    # last ones, in order); the state has the dropped ones too
    newest = payloads(collected.events[-50:], "outage")
    seen = subscriber.events("t1")
    assert seen == newest[len(newest) - len(seen) :]
    async with subscribed(mosquitto) as late:  # the retained topics are current
        await late.wait_for(
            lambda ms: (
                ("ddz-arena/tables/t1/state", final, True) in ms
                and ("ddz-arena/status", "online", True) in ms
            ),
            within_s=10,
        )
    async with subscribed(mosquitto) as subscriber:
        await sink.close()
        await subscriber.wait_for(
            lambda ms: ("ddz-arena/status", "offline", False) in ms, within_s=10
        )
    # some may have gone out before the broker stopped (when the table let the sink run)
    assert sink.stats.published >= 50
    assert sink.stats.undelivered == sink.stats.dropped
    assert sink.stats.published + sink.stats.dropped == len(collected.events)


async def test_a_match_with_no_broker_at_all_ends_and_counts_every_event_undelivered(
    tmp_path: Path,
) -> None:
    absent = Mosquitto(tmp_path)  # never started: nothing listens on its port
    collected = CollectingSink()
    sink = sink_for(absent, queue_size=100_000)
    sink.close_within_s = 0.5
    started = time.monotonic()
    await run_arena(config(rounds=2), seed=5, sinks=[collected, sink])
    await sink.close()
    assert time.monotonic() - started < 4.5  # under one 5-s connect attempt
    assert sink.stats.connections == 0
    assert sink.stats.published == 0
    assert sink.stats.undelivered == len(collected.events)


@asynccontextmanager
async def stuck_subscriber(port: int) -> AsyncIterator[None]:
    """A subscriber to ``ddz-arena/#`` at QoS 1 that stops reading once subscribed, with
    small buffers: what the broker sends it piles up (the broker's matter), and it never
    acknowledges a message. A client library would read and acknowledge into a queue of
    its own, so this one speaks MQTT 3.1.1 on a raw socket."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.setblocking(False)
    await asyncio.get_running_loop().sock_connect(sock, ("127.0.0.1", port))
    reader, writer = await asyncio.open_connection(sock=sock, limit=1024)
    writer.write(mqtt_connect(client_id="stuck-subscriber", version=4, keepalive_s=600))
    assert (await reader.readexactly(4))[:2] == b"\x20\x02"  # CONNACK
    topic = b"ddz-arena/#"
    body = b"\x00\x01" + len(topic).to_bytes(2, "big") + topic + b"\x01"  # id 1, QoS 1
    writer.write(b"\x82" + bytes((len(body),)) + body)
    assert (await reader.readexactly(5))[:2] == b"\x90\x03"  # SUBACK
    try:
        yield  # from here on nothing is read: the reader's buffer fills and pauses
    finally:
        writer.close()


async def check_a_stuck_subscriber_does_not_slow_the_table(
    broker: HasPort, sink_for_broker: Callable[[], MqttSink]
) -> None:
    """The same match with and without a subscriber that never reads: as fast, and every
    event acknowledged by the broker (not by the subscriber)."""

    async def match_seconds() -> tuple[float, int]:
        sink = sink_for_broker()
        collected = CollectingSink()
        assert await sink.started()
        started = time.monotonic()
        await run_arena(config(rounds=5, tables=2), seed=2, sinks=[collected, sink])
        await sink.close()
        took = time.monotonic() - started
        assert sink.stats.published == len(collected.events)
        return took, len(collected.events)

    # each the faster of two: a moment's load on a shared machine is not the subscriber
    (alone, events), (again, _) = await match_seconds(), await match_seconds()
    alone = min(alone, again)
    async with stuck_subscriber(broker.port):
        watched = min((await match_seconds())[0], (await match_seconds())[0])
    assert events > 700  # far more than the subscriber's buffers hold (~5 kB)
    assert watched < alone + 1.0, f"{watched:.2f} s with a stuck reader, {alone:.2f} s without"


async def test_a_subscriber_that_never_reads_does_not_slow_the_table(
    mosquitto: Mosquitto,
) -> None:
    await check_a_stuck_subscriber_does_not_slow_the_table(mosquitto, lambda: sink_for(mosquitto))


PLAY = ("--rounds", "1", "--no-live", "--seed", "4")


def test_arena_play_mqtt_publishes_the_match_end_to_end(mosquitto: Mosquitto) -> None:
    async def run() -> tuple[subprocess.CompletedProcess[str], Subscriber]:
        async with subscribed(mosquitto) as subscriber:
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "arena.cli", "play", "--mqtt", mosquitto.url, *PLAY],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            await subscriber.wait_for(
                lambda ms: ("ddz-arena/status", "offline", False) in ms, within_s=10
            )
            return done, subscriber

    done, subscriber = asyncio.run(run())
    assert done.returncode == 0, done.stderr
    assert f"publishing the match to {mosquitto.url}" in done.stderr
    events = subscriber.events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[0]["type"] == "match_started"
    assert events[-1]["type"] == "match_ended"
    assert len({e["run"] for e in events}) == 1
    state = subscriber.last("ddz-arena/tables/t1/state")
    assert state["status"] == "ended"
    assert state["run"] == events[0]["run"]


async def terminate_arena_mid_match(
    broker: Mosquitto, subscriber: Subscriber, *options: str
) -> tuple[str, float]:
    """``arena play --mqtt`` (a long paced match, with ``options``) in a process of its
    own, sent SIGTERM once 20 events of t1 arrived; its stderr, and the seconds from the
    signal to its exit (143). The caller then waits for what it wants on the broker."""
    arena = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "arena.cli", "play", "--mqtt", broker.url, *options),
        *("--rounds", "100", "--pace", "0.01", "--no-live", "--seed", "1"),
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        await subscriber.wait_for(lambda ms: len(subscriber.events("t1")) >= 20, within_s=30)
    finally:
        arena.send_signal(signal.SIGTERM)
        stopped = time.monotonic()
        _, err = await arena.communicate()
    took = time.monotonic() - stopped
    assert arena.returncode == 143, err.decode()
    return err.decode(), took


async def test_a_terminated_arena_publishes_what_it_played_and_says_offline(
    mosquitto: Mosquitto,
) -> None:
    async with subscribed(mosquitto) as subscriber:
        err, _ = await terminate_arena_mid_match(mosquitto, subscriber)
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    events = subscriber.events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert events[-1]["type"] != "match_ended"  # cut off mid-match
    played = [
        Event(e["type"], e["table"], e["round"], e["seq"], e["seat"], e["player"], e["data"])
        for e in events
    ]
    async with subscribed(mosquitto) as late:
        await late.wait_for(
            lambda ms: {t for t, _, _ in ms} >= {"ddz-arena/status", "ddz-arena/tables/t1/state"},
            within_s=10,
        )
    assert late.last("ddz-arena/status") == "offline"
    assert late.last("ddz-arena/tables/t1/state") == expected_state(played, events[0]["run"])
    assert "never reached" not in err


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://127.0.0.1:1883", "must start with mqtt://"),
        ("127.0.0.1:1883", "must start with mqtt://"),
        ("mqtt://127.0.0.1:99999", "is no broker URL"),
        ("mqtt://127.0.0.1:1883/topic", "without a path"),
        ("mqtt://", "names no host"),
    ],
)
def test_a_bad_broker_url_says_what_a_good_one_looks_like(url: str, words: str) -> None:
    with pytest.raises(ConfigError, match=words) as caught:
        broker_from_url(url)
    assert "mqtt://127.0.0.1:1883" in str(caught.value) or "mqtt://host:port" in str(caught.value)


def test_a_broker_url_gives_host_port_and_tls() -> None:
    assert broker_from_url("mqtt://broker.lan") == {
        "host": "broker.lan",
        "port": 1883,
        "tls": False,
    }
    assert broker_from_url("mqtts://b:8884") == {"host": "b", "port": 8884, "tls": True}
    assert broker_from_url("mqtts://b") == {"host": "b", "port": 8883, "tls": True}


@pytest.mark.parametrize(
    "url", ["mqtt://127.0.0.1:1883", "mqtts://broker.lan:8884", "mqtt://[::1]:1883"]
)
def test_a_sink_names_its_broker_as_the_url_it_was_given(url: str) -> None:
    """An IPv6 address keeps its brackets, as in the URL."""
    sink = MqttSink(MqttSettings(enabled=True, **broker_from_url(url)), run_id="r", environ={})
    assert sink.url == url


def test_a_url_with_credentials_is_refused_without_showing_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--no-live", "--mqtt", "mqtt://me:hunter2@127.0.0.1:1883"]) == 2
    err = capsys.readouterr().err
    assert "--mqtt" in err
    assert "username_env / password_env" in err
    assert "hunter2" not in err


def test_a_bad_url_on_the_command_line_is_one_clear_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--no-live", "--mqtt", "http://127.0.0.1"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "arena: error: --mqtt: 'http://127.0.0.1': the URL must start with mqtt:// "
        "(or mqtts:// for TLS), such as mqtt://127.0.0.1:1883"
    ]


def test_a_password_pasted_where_its_variable_belongs_is_refused_unseen(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "arena.toml"
    file.write_text('[mqtt]\nusername_env = "MQTT_USER"\npassword_env = "s3cr3t-p@ss"\n')
    assert main(["play", "--no-live", "--config", str(file), "--mqtt"]) == 2
    err = capsys.readouterr().err
    assert "mqtt.password_env" in err
    assert "NAME of an environment variable" in err
    assert "s3cr3t" not in err


def test_an_unset_credential_variable_is_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("MQTT_TEST_USER", raising=False)
    settings = MqttSettings(username_env="MQTT_TEST_USER")
    with pytest.raises(ConfigError, match="variable MQTT_TEST_USER is not set"):
        MqttSink(settings, run_id="x")


async def test_the_credentials_come_from_the_variables_the_config_names(tmp_path: Path) -> None:
    broker = Mosquitto(tmp_path, users={"studio": "pa55-word"})
    broker.start()
    try:
        settings = MqttSettings(
            port=broker.port, username_env="MQTT_TEST_USER", password_env="MQTT_TEST_PASS"
        )
        good = MqttSink(
            settings,
            run_id="auth",
            environ={"MQTT_TEST_USER": "studio", "MQTT_TEST_PASS": "pa55-word"},
        )
        bad = MqttSink(
            settings, run_id="nope", environ={"MQTT_TEST_USER": "studio", "MQTT_TEST_PASS": "x"}
        )
        bad.close_within_s = 0.5
        collected = CollectingSink()
        await run_arena(config(), seed=1, sinks=[collected, good, bad])
        await good.close()
        await bad.close()
    finally:
        broker.stop()
    assert good.stats.published == len(collected.events)
    assert bad.stats.connections == 0
    assert bad.stats.undelivered == len(collected.events)
    assert "pa55-word" not in broker.log.read_text()


async def test_mqtts_verifies_the_broker_and_trusts_a_private_ca_from_ssl_cert_file(
    tmp_path: Path,
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    broker = Mosquitto(tmp_path, tls=certificate)
    broker.start()
    url = f"mqtts://127.0.0.1:{broker.tls_port}"
    settings = MqttSettings(**broker_from_url(url))
    try:
        # A certificate nobody trusts: never connected, every event undelivered...
        untrusted = MqttSink(settings, run_id="untrusted", environ={})
        untrusted.close_within_s = 0.5
        collected = CollectingSink()
        await run_arena(config(), seed=1, sinks=[collected, untrusted])
        await untrusted.close()
        assert untrusted.stats.connections == 0
        assert untrusted.stats.undelivered == len(collected.events)
        assert "CERTIFICATE_VERIFY_FAILED" in caplog.text
        # ...and used once trusted, the way Python trusts a private CA: SSL_CERT_FILE.
        monkeypatch.setenv("SSL_CERT_FILE", str(certificate[0]))
        trusted = MqttSink(settings, run_id="trusted", environ={})
        await run_arena(config(), seed=1, sinks=[trusted])
        await trusted.close()
    finally:
        broker.stop()
    assert trusted.stats.connections == 1
    assert trusted.stats.published == len(collected.events)
    assert trusted.stats.undelivered == 0


def test_an_empty_broker_url_is_refused_not_taken_for_the_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``--mqtt ""`` (a variable that was never set) is no URL; ``--mqtt`` alone is the
    default broker."""
    assert main(["play", "--no-live", "--mqtt", ""]) == 2
    assert "--mqtt: '': the URL must start with mqtt://" in capsys.readouterr().err


# --- sinks that keep failing (issue 25) -------------------------------------------------


def last_status(subscriber: Subscriber) -> dict[str, Any]:
    return subscriber.statuses[-1]


def degraded_sinks(subscriber: Subscriber) -> list[str] | None:
    """The sinks the last status names degraded (None before any status)."""
    if not subscriber.statuses:
        return None
    return [entry["sink"] for entry in last_status(subscriber).get("degraded", [])]


async def test_a_sink_that_keeps_failing_is_degraded_in_the_retained_status_until_it_recovers(
    mosquitto: Mosquitto,
) -> None:
    """The console breaks for a whole match (behind its queue, as ``arena play`` has it):
    the retained status names it, its count and its error's class, for anyone who
    subscribes later too. Once it takes its events again it recovers, and the status
    says so; it was handed every event of the second match."""
    from test_sink_health import Clock, FlakySink

    from arena.sinks.health import DEGRADED_AFTER, WINDOW_S, SinkHealthBoard

    clock = Clock()
    console = FlakySink(broken=True)
    collected = CollectingSink()
    sink = sink_for(mosquitto, run_id="sick")
    async with subscribed(mosquitto) as subscriber:
        with SinkHealthBoard({"console": console, "mqtt": sink}, clock=clock):
            await connected(sink)
            await run_arena(config(), seed=7, sinks=[console, collected, sink])
            await subscriber.wait_for(
                lambda _: degraded_sinks(subscriber) == ["console"], within_s=10
            )
            [entry] = last_status(subscriber)["degraded"]
            assert entry["failures"] >= DEGRADED_AFTER
            assert (entry["last_error"], entry["during"]) == ("RuntimeError", "emit")
            assert last_status(subscriber)["status"] == "online"
            assert last_status(subscriber)["run"] == "sick"
            async with subscribed(mosquitto) as late:  # what a tool that starts now sees
                await late.wait_for(lambda _: bool(late.statuses), within_s=10)
                assert degraded_sinks(late) == ["console"]
            assert console.refused == collected.events  # handed every event all the same
            console.broken = False
            clock.now += WINDOW_S + 1  # its failures are old news now
            collected.events.clear()
            await run_arena(config(), seed=8, sinks=[console, collected, sink])
            await subscriber.wait_for(lambda _: degraded_sinks(subscriber) == [], within_s=10)
        await sink.close()
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    assert console.events == collected.events
    assert last_status(subscriber) == {
        "status": "offline",
        "run": "sick",
        "game": "ddz",
        "degraded": [],
    }


async def test_the_feed_says_itself_degraded_when_it_cannot_take_the_events_it_is_given(
    mosquitto: Mosquitto,
) -> None:
    """An event the MQTT worker cannot fold into its snapshot (``cards`` no list) is
    counted there and the next one taken; three in a row, and the status says so."""
    sink = sink_for(mosquitto, run_id="folds")
    async with subscribed(mosquitto) as subscriber:
        await connected(sink)
        for seq in range(1, 4):
            await sink.emit(Event("play", "t1", 1, seq, 0, "A", {"cards": 7}))
        await subscriber.wait_for(
            lambda _: degraded_sinks(subscriber) == ["mqtt worker"], within_s=10
        )
        [entry] = last_status(subscriber)["degraded"]
        assert (entry["failures"], entry["last_error"]) == (3, "TypeError")
        await sink.emit(Event("play", "t1", 1, 4, 0, "A", {"cards": ["♠3"]}))
        await subscriber.wait_for(lambda ms: len(subscriber.events("t1")) == 1, within_s=10)
        await sink.close()
    assert [e["seq"] for e in subscriber.events("t1")] == [4]
