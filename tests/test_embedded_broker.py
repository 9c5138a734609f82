"""The live feed against the embedded broker (amqtt), and ``--mqtt`` without a URL.

As tests/test_mqtt.py does against Mosquitto: every event in order, the retained state
and status for a fresh subscriber, the broker going away mid-match and coming back, a
slow subscriber; then the command line's choice of broker.

amqtt 0.12.1 speaks MQTT 3.1.1 only and may send a late subscriber a message twice, so
the subscribers here use 3.1.1, read their topics only and drop an event whose ``seq``
they already have, as docs/mqtt.md tells consumers to.
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import (
    Subscriber,
    check_a_stuck_subscriber_does_not_slow_the_table,
    config,
    expected_state,
    payloads,
    said,
    subscribed_as,
)

from arena.cli import main
from arena.config import MqttSettings
from arena.events import Event
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.embedded_broker import EmbeddedBroker, broker_answers
from arena.sinks.mqtt import MqttSink


@pytest.fixture
async def embedded() -> AsyncIterator[EmbeddedBroker]:
    broker = EmbeddedBroker(free_port())
    await broker.start()
    try:
        yield broker
    finally:
        await broker.stop()


def subscribed(broker: EmbeddedBroker) -> AbstractAsyncContextManager[Subscriber]:
    """A 3.1.1 subscriber to ``ddz-arena/#`` (QoS 1) for the block's length."""
    return subscribed_as(broker, Subscriber(), protocol=aiomqtt.ProtocolVersion.V311)


def sink_for(broker: EmbeddedBroker, run_id: str = "run-1") -> MqttSink:
    settings = MqttSettings(enabled=True, port=broker.port, protocol="3.1.1")
    sink = MqttSink(settings, run_id=run_id, environ={})
    sink.backoff_cap_s = 0.5
    return sink


def by_seq(received: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each seq's first copy, in arrival order (a duplicate is harmless)."""
    seen: set[int] = set()
    kept = []
    for payload in received:
        if payload["seq"] not in seen:
            seen.add(payload["seq"])
            kept.append(payload)
    return kept


async def test_the_embedded_broker_listens_on_loopback_only(embedded: EmbeddedBroker) -> None:
    async with aiomqtt.Client(
        "127.0.0.1", embedded.port, protocol=aiomqtt.ProtocolVersion.V311
    ) as client:  # (a bare TCP probe would leave amqtt a socket it never closes)
        await client.publish("probe", b"x")
    outward = socket.gethostbyname(socket.gethostname())
    if outward.startswith("127."):  # no address but loopback here: nothing else to try
        return
    assert not broker_answers(outward, embedded.port)


async def test_every_event_arrives_in_order_through_the_embedded_broker(
    embedded: EmbeddedBroker,
) -> None:
    collected = CollectingSink()
    sink = sink_for(embedded)
    async with subscribed(embedded) as subscriber:
        await run_arena(config(rounds=2, tables=2), seed=7, sinks=[collected, sink])
        await sink.close()
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    assert sink.stats.undelivered == 0
    for table in ("t1", "t2"):
        sent = [e for e in collected.events if e.table == table]
        received = by_seq(subscriber.events(table))
        assert [p["seq"] for p in received] == list(range(1, len(sent) + 1))
        assert received == payloads(sent, "run-1")


async def test_a_fresh_subscriber_reads_the_retained_state_and_status(
    embedded: EmbeddedBroker,
) -> None:
    collected = CollectingSink()
    sink = sink_for(embedded, run_id="late")
    await run_arena(config(), seed=3, sinks=[collected, sink])
    async with subscribed(embedded) as late:  # the sink still online
        await late.wait_for(
            lambda ms: {t for t, _, _ in ms} >= {"ddz-arena/status", "ddz-arena/tables/t1/state"},
            within_s=10,
        )
    assert late.last("ddz-arena/status") == "online"
    assert late.last("ddz-arena/tables/t1/state") == expected_state(collected.events, "late")
    await sink.close()
    async with subscribed(embedded) as after:
        await after.wait_for(
            lambda ms: (
                said(ms, "offline") and any(t == "ddz-arena/tables/t1/state" for t, _, _ in ms)
            ),
            within_s=10,
        )
    assert after.last("ddz-arena/status") == "offline"
    assert after.last("ddz-arena/tables/t1/state")["status"] == "ended"


async def test_the_embedded_broker_going_away_mid_match_neither_stops_nor_slows_it(
    embedded: EmbeddedBroker,
) -> None:
    collected = CollectingSink()

    class StopTheBroker(CollectingSink):
        async def emit(self, event: Event) -> None:
            if event.seq == 40 and event.table == "t1":
                await embedded.stop()
            await super().emit(event)

    sink = sink_for(embedded, run_id="outage")
    sink.start()
    async with subscribed(embedded) as subscriber:
        await subscriber.wait_for(lambda ms: said(ms, "online"), within_s=10)
    started = time.monotonic()
    await run_arena(config(rounds=3), seed=11, sinks=[StopTheBroker(), collected, sink])
    took = time.monotonic() - started
    assert took < 3.0, f"the match took {took:.1f} s with the broker away"
    assert not broker_answers("127.0.0.1", embedded.port)

    again = EmbeddedBroker(embedded.port)  # a new broker: nothing retained until republished
    await again.start()
    try:
        final = expected_state(collected.events, "outage")
        async with subscribed(again) as late:
            await late.wait_for(
                lambda ms: (
                    any(m[:2] == ("ddz-arena/tables/t1/state", final) for m in ms)
                    and said(ms, "online")
                ),
                within_s=15,
            )
        async with subscribed(again) as fresh:  # the retained topics are current
            await fresh.wait_for(
                lambda ms: (
                    ("ddz-arena/tables/t1/state", final, True) in ms
                    and ("ddz-arena/status", "online", True) in ms
                ),
                within_s=10,
            )
        await sink.close()
    finally:
        await again.stop()
    assert sink.stats.connections == 2
    received = by_seq(subscriber.events("t1") + late.events("t1"))
    assert [p["seq"] for p in received] == sorted(p["seq"] for p in received)
    assert sink.stats.undelivered == 0


async def test_a_subscriber_that_never_reads_does_not_slow_the_table(
    embedded: EmbeddedBroker,
) -> None:
    await check_a_stuck_subscriber_does_not_slow_the_table(embedded, lambda: sink_for(embedded))


def _config_file(tmp_path: Path, port: int) -> Path:
    file = tmp_path / "arena.toml"
    file.write_text(f"[mqtt]\nport = {port}\n")
    return file


PLAY = ("play", "--no-live", "--rounds", "1", "--seed", "4")


def test_mqtt_without_url_starts_the_embedded_broker_when_none_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()  # the [mqtt] port stands in for 1883 (a broker may run there)
    assert main([*PLAY, "--config", str(_config_file(tmp_path, port)), "--mqtt"]) == 0
    err = capsys.readouterr().err
    assert f"no MQTT broker answers at 127.0.0.1:{port}: starting an embedded one" in err
    assert f"publishing the match to mqtt://127.0.0.1:{port}" in err
    assert "never reached" not in err  # every event delivered to it
    assert not broker_answers("127.0.0.1", port)  # stopped with the match


def test_mqtt_without_url_uses_the_broker_that_answers(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = _config_file(tmp_path, mosquitto.port)
    assert main([*PLAY, "--config", str(file), "--mqtt"]) == 0
    err = capsys.readouterr().err
    assert (
        f"publishing the match to mqtt://127.0.0.1:{mosquitto.port} (it answers there; "
        "--mqtt URL names another)"
    ) in err
    assert err.count(f"127.0.0.1:{mosquitto.port}") == 1  # said once, not twice
    assert "embedded" not in err
    assert "never reached" not in err


def test_without_amqtt_the_error_says_which_extra_to_install(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "amqtt.broker", None)  # as if not installed
    file = _config_file(tmp_path, free_port())
    assert main([*PLAY, "--config", str(file), "--mqtt"]) == 2
    err = capsys.readouterr().err
    assert "pip install -e '.[broker]'" in err
