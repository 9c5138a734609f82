"""The MQTT worker (issue 10): the live feed published from a process of its own.

The arena hands each event to ``python -m arena.sinks.mqtt_worker`` through a pipe; the
worker publishes. What must hold: credentials never on its command line, Ctrl-C in the
terminal is not its business (a session of its own), its death is said and counted and
leaves the status offline (the broker's last will), and the frames it reads are the
frames written, however the pipe splits them.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path
from types import MappingProxyType
from typing import Any

import orjson
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_http_agent import _events
from test_mqtt import config, eventually, said, sink_for, subscribed

from arena.config import MqttSettings
from arena.events import Event
from arena.runner import queue_sinks, run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.mqtt import MqttSink, event_line
from arena.sinks.mqtt_worker import EVENT, SPECTATOR, line, read_lines
from arena.sinks.queued import QueuedSink, close_sinks
from protocol.events import EVENT_SCHEMA_VERSION


def worker_pid(sink: MqttSink) -> int:
    process = sink._process
    assert process is not None, "the worker is not running"
    return process.pid


@pytest.mark.parametrize("chunk", [1, 2, 5, 7, 64, 10_000])
def test_lines_read_back_whole_and_in_order_however_the_pipe_splits_them(chunk: int) -> None:
    sent = [
        (EVENT, b'{"seq":1,"text":"a\\nb"}'),  # an escaped newline stays in its line
        (SPECTATOR, b'{"hands":"' + b"x" * 300 + b'"}'),
        (EVENT, b"{}"),
        (SPECTATOR, b"{}"),
    ]
    stream = b"".join(line(kind, payload) for kind, payload in sent)
    buffer, got = bytearray(), []
    for at in range(0, len(stream), chunk):
        buffer += stream[at : at + chunk]
        got += read_lines(buffer)
    assert got == sent
    assert buffer == bytearray()


@pytest.mark.parametrize("data", [{"cards": ["♠3"]}, MappingProxyType({"bid": 2}), {}])
def test_an_event_is_published_as_its_to_dict_with_version_and_run(data: Any) -> None:
    """The sink builds the JSON without to_dict (it runs for every event): the same."""
    event = Event("play", "t1", 2, 9, 1, "Beta", data)
    published = orjson.loads(event_line(event, "r"))
    assert published == {**event.to_dict(), "v": EVENT_SCHEMA_VERSION, "run": "r"}
    assert list(published) == [*event.to_dict(), "v", "run"]


async def test_credentials_reach_the_worker_but_never_its_command_line(
    tmp_path: Path,
) -> None:
    broker = Mosquitto(tmp_path, users={"arena": "pw-not-on-argv"})
    broker.start()
    try:
        settings = MqttSettings(enabled=True, port=broker.port, username_env="U", password_env="P")
        sink = MqttSink(settings, run_id="argv", environ={"U": "arena", "P": "pw-not-on-argv"})
        assert await sink.started()
        await eventually(lambda: sink.stats.connected)  # so the password was right
        cmdline = Path(f"/proc/{worker_pid(sink)}/cmdline")
        command_line = await asyncio.to_thread(cmdline.read_bytes)
        assert b"arena.sinks.mqtt_worker" in command_line
        assert b"pw-not-on-argv" not in command_line
        options = orjson.loads(command_line.split(b"\0")[-2])
        assert set(options) == {
            "settings",
            "run_id",
            "game",
            "close_within_s",
            "backoff_cap_s",
            "unreachable_grace_s",
        }
        assert options["settings"]["password_env"] == "P"  # the variable's name only
        await sink.close()
    finally:
        broker.stop()


async def test_the_worker_runs_in_a_session_of_its_own(mosquitto: Mosquitto) -> None:
    """Ctrl-C in a terminal goes to its foreground process group: the arena gets it and
    closes the feed; the worker, elsewhere, is not cut off before that."""
    sink = sink_for(mosquitto, run_id="session")
    assert await sink.started()
    pid = worker_pid(sink)
    assert os.getsid(pid) == pid != os.getsid(0)
    assert os.getpgid(pid) != os.getpgid(0)
    await sink.close()


async def test_a_worker_that_dies_is_said_counted_and_leaves_the_status_offline(
    mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    collected = CollectingSink()

    class KillTheWorker(CollectingSink):
        async def emit(self, event: Any) -> None:
            if event.seq == 30:
                os.kill(worker_pid(sink), signal.SIGKILL)
                await asyncio.sleep(0.2)  # gone before the match goes on
            await super().emit(event)

    sink = sink_for(mosquitto, run_id="dies")
    async with subscribed(mosquitto) as subscriber:
        assert await sink.started()
        await eventually(lambda: sink.stats.connected)
        await run_arena(config(rounds=2), seed=4, sinks=[KillTheWorker(), collected, sink])
        await sink.close()
        # no goodbye from the worker: the broker publishes its last will
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    assert len(collected.events) > 100  # the match went on to its end
    stats = sink.stats
    assert stats.published < len(collected.events)
    assert stats.undelivered == len(collected.events) - stats.published
    assert _events(caplog, "mqtt_worker_exited")
    assert _events(caplog, "mqtt_closed")[0]["undelivered"] == stats.undelivered


def test_the_runner_queues_no_sink_that_never_waits() -> None:
    sink = MqttSink(MqttSettings(enabled=True), run_id="q", environ={})
    other = CollectingSink()
    wrapped = queue_sinks([sink, other], config())
    assert wrapped[0] is sink
    assert isinstance(wrapped[1], QueuedSink)
    assert wrapped[1].sink is other


async def test_a_broker_refusing_the_snapshots_is_said_though_no_event_is_lost(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """An ACL that lets the arena write its status and events but not the state topic:
    MQTT 5 says so in each PUBACK, and the feed says it once, naming what it refused."""
    acl = tmp_path / "acl"
    acl.write_text(
        "user arena\ntopic write ddz-arena/status\ntopic write ddz-arena/tables/+/events\n"
    )
    broker = Mosquitto(tmp_path, users={"arena": "pw"}, acl=acl)
    broker.start()
    try:
        settings = MqttSettings(enabled=True, port=broker.port, username_env="U", password_env="P")
        sink = MqttSink(settings, run_id="acl", environ={"U": "arena", "P": "pw"})
        collected = CollectingSink()
        assert await sink.started()
        await run_arena(config(), seed=2, sinks=[collected, sink])
        await sink.close()
    finally:
        broker.stop()
    assert sink.stats.published == len(collected.events)
    assert sink.stats.undelivered == 0
    [refused] = _events(caplog, "mqtt_publish_refused")
    assert refused["events"] == refused["spectator_items"] == 0
    assert refused["status_or_snapshots"] > 0
    assert refused["reason"] == "not authorized"


async def test_an_interrupted_close_tells_the_worker_to_hurry(tmp_path: Path) -> None:
    """Ctrl-C or SIGTERM: the worker gets half a second, not its usual five, and what
    it did not deliver is counted."""
    absent = Mosquitto(tmp_path)  # never started: the worker keeps retrying
    sink = sink_for(absent)
    collected = CollectingSink()
    assert await sink.started()
    await run_arena(config(), seed=3, sinks=[collected, sink])
    started = time.monotonic()
    await sink.close(interrupted=True)
    took = time.monotonic() - started
    assert took < 2.5, f"{took:.1f} s (the uninterrupted bound is {sink.close_within_s} s)"
    assert sink.stats.undelivered == len(collected.events)
    assert sink._process is not None
    assert sink._process.returncode == 0  # it finished on its own, not killed


async def test_close_sinks_in_a_cancelled_task_hurries_the_mqtt_sink_too(tmp_path: Path) -> None:
    """close_sinks closes each sink in a task of its own, which cannot see that Ctrl-C
    is cancelling its caller: it says so to the MQTT sink, as to the queued ones."""
    absent = Mosquitto(tmp_path)
    sink = sink_for(absent)
    assert await sink.started()
    await sink.emit(Event("match_started", "t1", 0, 1, data={"players": ["A", "B", "C"]}))
    took: list[float] = []

    async def cancelled_then_closing() -> None:
        try:
            await asyncio.sleep(60)
        finally:
            started = time.monotonic()
            await close_sinks([sink])
            took.append(time.monotonic() - started)

    task = asyncio.create_task(cancelled_then_closing())
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert took[0] < 2.5, f"{took[0]:.1f} s: the long bound ({sink.close_within_s} s) was used"
    assert sink.stats.undelivered == 1
