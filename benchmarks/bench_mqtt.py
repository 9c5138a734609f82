"""The live feed over MQTT (issue 10): messages per second to a local Mosquitto, and
what the MQTT sink costs the scripted tables.

Three measurements against a real Mosquitto started for the run (the project's
``config/mosquitto.conf``, its listeners moved to free loopback ports; never the
system's broker at 1883):

(a) **raw publishing**, the payloads real events of a scripted match as the sink sends
    them (``{**event.to_dict(), "v", "run"}``): with aiomqtt at QoS 0, at QoS 1 one at a
    time (each awaits its PUBACK) and QoS 1 in windows of 32; and with the arena's own
    publish-only client (``arena.sinks.mqtt_publisher``, QoS 1 through its window);
(b) **the MqttSink itself**: events handed to ``emit`` at once, timed until the broker
    acknowledged them all (and the snapshots) and the worker exited; events per second,
    the arena's CPU per event and its MQTT worker's;
(c) **scripted tables** (``--no-live``-like: ``run_arena`` with the configured seats,
    no pacing) with a null sink (off) and with the MQTT sink (on), alternated: rounds per
    second at "match end" (``run_arena`` returned) and at "all published" (the sink closed:
    everything acknowledged, final snapshots and ``offline`` included, the worker gone),
    and the CPU of the arena, of its MQTT worker and of Mosquitto. Goal: on < 10 %
    slower than off.

Run: ``.venv/bin/python -m benchmarks.bench_mqtt [--quick]`` (about a minute). Figures
are in ``benchmarks/README.md``; they are wall-clock rates, so run on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import aiomqtt
import orjson

from arena.config import ArenaConfig, MqttSettings, parse_config
from arena.events import Event
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.runner import run_arena
from arena.sinks.mqtt import MqttSink
from arena.sinks.mqtt_publisher import Publisher
from arena.table import Table, play_match
from protocol.events import EVENT_SCHEMA_VERSION

_CONFIG = Path(__file__).resolve().parent.parent / "config" / "mosquitto.conf"
_LISTENER = re.compile(r"^listener\s+(\d+)(.*)$", re.MULTILINE)
_WINDOW = 32


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _mosquitto() -> Iterator[tuple[int, int]]:
    """A Mosquitto on the project's config, its listeners on free ports; yields its TCP
    port and process id."""
    binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(binary).is_file():
        raise SystemExit("mosquitto is not installed (apt-get install mosquitto)")
    with tempfile.TemporaryDirectory() as folder:
        ports = iter((_free_port(), _free_port()))
        text = _LISTENER.sub(lambda m: f"listener {next(ports)}{m.group(2)}", _CONFIG.read_text())
        port = int(_LISTENER.findall(text)[0][0])
        config = Path(folder) / "mosquitto.conf"
        config.write_text(text)
        log = (Path(folder) / "mosquitto.log").open("wb")
        process = subprocess.Popen([binary, "-c", str(config)], stdout=log, stderr=log)
        try:
            deadline = time.monotonic() + 10
            while True:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("mosquitto did not start")
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                    break
                except OSError:
                    time.sleep(0.02)
            yield port, process.pid
        finally:
            process.terminate()
            process.wait(timeout=5)
            log.close()


class _Collecting:
    def __init__(self) -> None:
        self.events: list[Event] = []

    async def emit(self, event: Event) -> None:
        self.events.append(event)

    async def close(self) -> None:
        pass


class _Null:
    async def emit(self, event: Event) -> None:
        pass

    async def close(self) -> None:
        pass


async def _events(rounds: int) -> list[Event]:
    """The events of a scripted match, in order."""
    sink = _Collecting()
    agents = [HeuristicAgent(name, seed=i) for i, name in enumerate(("A", "B", "C"))]
    await play_match(Table(agents, sinks=[sink]), rounds=rounds, seed=7)
    return sink.events


def _payloads(events: list[Event]) -> list[tuple[str, bytes]]:
    out = []
    for event in events:
        body = {**event.to_dict(), "v": EVENT_SCHEMA_VERSION, "run": "bench"}
        out.append((f"ddz-arena/tables/{event.table}/events", orjson.dumps(body)))
    return out


async def _raw(port: int, messages: list[tuple[str, bytes]]) -> dict[str, tuple[float, float]]:
    """(messages/s, client CPU µs/message) for each way of publishing."""
    results = {}
    async with aiomqtt.Client("127.0.0.1", port, identifier="bench-raw") as client:
        client.pending_calls_threshold = 4 * _WINDOW

        async def qos0() -> None:
            for topic, payload in messages:
                await client.publish(topic, payload, qos=0)
            # the broker handles a connection's packets in order: this PUBACK means
            # every QoS 0 message before it has been read
            await client.publish("ddz-arena/bench/end", b"", qos=1)

        async def qos1_serial() -> None:
            for topic, payload in messages:
                await client.publish(topic, payload, qos=1)

        async def qos1_window() -> None:
            for start in range(0, len(messages), _WINDOW):
                async with asyncio.TaskGroup() as tasks:
                    for topic, payload in messages[start : start + _WINDOW]:
                        tasks.create_task(client.publish(topic, payload, qos=1))

        for name, run in (
            ("aiomqtt, QoS 0", qos0),
            ("aiomqtt, QoS 1, one at a time", qos1_serial),
            (f"aiomqtt, QoS 1, windows of {_WINDOW}", qos1_window),
        ):
            await run()  # warm up
            wall, cpu = time.perf_counter(), time.process_time()
            await run()
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            results[name] = (len(messages) / wall, cpu / len(messages) * 1e6)
    publisher = await Publisher.connect(
        host="127.0.0.1", port=port, client_id="bench-own", version=5, will=("x/status", b"")
    )
    own = [(topic.encode(), payload, False, 0, None) for topic, payload in messages]

    async def windowed() -> None:
        at = 0
        while at < len(own):
            await publisher.wait_room()
            count = min(publisher.room, 256)
            publisher.send(own[at : at + count])
            at += count
        await publisher.drained()

    await windowed()  # warm up
    wall, cpu = time.perf_counter(), time.process_time()
    await windowed()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    results[f"arena's client, QoS 1 (window {publisher.receive_maximum})"] = (
        len(messages) / wall,
        cpu / len(messages) * 1e6,
    )
    await publisher.disconnect()
    return results


def _settings(port: int, **extra: Any) -> MqttSettings:
    return MqttSettings(enabled=True, port=port, queue_size=1_000_000, **extra)


async def _connected(sink: MqttSink) -> None:
    sink.start()
    for _ in range(500):
        if sink.stats.connected:
            return
        await asyncio.sleep(0.01)
    raise RuntimeError("the MQTT sink did not connect")


async def _sink_rate(
    port: int, events: list[Event], copies: int, protocol: str
) -> tuple[float, float, float, int]:
    """(events/s acknowledged, arena CPU µs/event, worker CPU µs/event, events) of
    MqttSink, ``copies`` tables' worth."""
    stream = [e._replace(table=f"b{k}") for k in range(copies) for e in events]
    sink = MqttSink(_settings(port, protocol=protocol), run_id="bench")
    await _connected(sink)
    worker_before = sink.stats.worker_cpu_s
    wall, cpu = time.perf_counter(), time.process_time()
    for event in stream:
        await sink.emit(event)
    await sink.close()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if sink.stats.published != len(stream):
        raise RuntimeError(f"the sink published {sink.stats.published} of {len(stream)}")
    worker = sink.stats.worker_cpu_s - worker_before
    return len(stream) / wall, cpu / len(stream) * 1e6, worker / len(stream) * 1e6, len(stream)


def _tables_config(tables: int, rounds: int, pace_s: float = 0.0) -> ArenaConfig:
    return parse_config(
        {"match": {"rounds": rounds, "tables": tables}, "table": {"pace_s": pace_s}},
        source="<bench>",
    )


async def _tables_once(
    config: ArenaConfig, port: int | None, queue_size: int = 1_000_000
) -> dict[str, float]:
    """Seconds (wall) to match end and to all published, and CPU seconds, one run."""
    settings = (
        None if port is None else _settings(port).model_copy(update={"queue_size": queue_size})
    )
    mqtt = None if settings is None else MqttSink(settings, run_id="bench")
    if mqtt is not None:
        await _connected(mqtt)  # as `arena play` does before the match: not timed
    worker = 0.0 if mqtt is None else mqtt.stats.worker_cpu_s
    broker = _cpu_of(_broker_pid)
    wall, cpu = time.perf_counter(), time.process_time()
    await run_arena(config, seed=11, sinks=[_Null() if mqtt is None else mqtt])
    ended = time.perf_counter() - wall
    if mqtt is not None:
        await mqtt.close()
    return {
        "ended": ended,
        "published": time.perf_counter() - wall,
        "cpu": time.process_time() - cpu,
        "worker_cpu": 0.0 if mqtt is None else mqtt.stats.worker_cpu_s - worker,
        "broker_cpu": _cpu_of(_broker_pid) - broker,
        "events": 0 if mqtt is None else mqtt.stats.published,
        "dropped": 0 if mqtt is None else mqtt.stats.undelivered,
    }


_broker_pid = 0
"""The benchmark's Mosquitto, whose CPU time (c) reports."""


def _cpu_of(pid: int) -> float:
    """A process's CPU seconds so far (user and system), from /proc; 0 if unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _tables(
    port: int, config: ArenaConfig, repeats: int, *, warm_up: bool = True
) -> dict[str, list[dict[str, float]]]:
    if warm_up:
        await _tables_once(config, None)
        await _tables_once(config, port)
    runs: dict[str, list[dict[str, float]]] = {"off": [], "on": []}
    for _ in range(repeats):  # alternated: a drift of the machine hits both
        runs["off"].append(await _tables_once(config, None))
        runs["on"].append(await _tables_once(config, port))
    return runs


async def measure(quick: bool) -> None:
    rounds = 2 if quick else 10
    events = await _events(rounds)
    messages = _payloads(events)
    sizes = [len(p) for _, p in messages]
    global _broker_pid
    with _mosquitto() as (port, _broker_pid):
        raw = await _raw(port, messages * (1 if quick else 10))
        print(
            f"(a) raw publishing to Mosquitto on loopback: "
            f"{len(messages) * (1 if quick else 10)} event payloads of a scripted match "
            f"({statistics.mean(sizes):.0f} bytes on average, {min(sizes)}–{max(sizes)})"
        )
        print(f"{'':<44}{'messages/s':>12}{'client CPU/msg':>18}")
        for name, (rate, cpu) in raw.items():
            print(f"{name:<44}{rate:>12,.0f}{cpu:>15.1f} µs")

        print("\n(b) MqttSink: events emitted at once, timed until all acknowledged and closed")
        for protocol in ("5", "3.1.1"):
            samples = [
                await _sink_rate(port, events, 2 if quick else 8, protocol)
                for _ in range(1 if quick else 5)
            ]
            rate = statistics.median(s[0] for s in samples)
            cpu = statistics.median(s[1] for s in samples)
            worker = statistics.median(s[2] for s in samples)
            print(
                f"MQTT {protocol:<6}{rate:>10,.0f} events/s   CPU/event: arena {cpu:.1f} µs, "
                f"its MQTT worker {worker:.1f} µs ({samples[0][3]} events, median of "
                f"{len(samples)})"
            )

        tables, table_rounds, repeats = (3, 3, 2) if quick else (4, 40, 9)
        runs = await _tables(port, _tables_config(tables, table_rounds), repeats)
        default = await _tables_once(
            _tables_config(tables, table_rounds), port, MqttSettings().queue_size
        )
        paced_rounds, pace = (1, 0.002) if quick else (2, 0.01)
        paced = await _tables(
            port, _tables_config(tables, paced_rounds, pace), 1 if quick else 3, warm_up=False
        )
    print(
        f"\n(c) {tables} scripted tables × {table_rounds} rounds, no pacing, "
        f"median of {repeats} runs each (alternated)"
    )
    _report(runs, tables * table_rounds)
    if any(r["dropped"] for r in runs["on"]):
        print("(some events were dropped: the figures above are not all published)")
    print(
        f"with the default [mqtt] queue_size ({MqttSettings().queue_size:,}): "
        f"{default['dropped']:.0f} of {default['events'] + default['dropped']:.0f} events "
        "dropped (buffer full)"
    )
    print(f"\n(c') the same {tables} tables × {paced_rounds} rounds paced at pace_s = {pace}")
    _report(paced, tables * paced_rounds)


def _report(runs: dict[str, list[dict[str, float]]], total: int) -> None:
    off = statistics.median(r["ended"] for r in runs["off"])
    off_cpu = statistics.median(r["cpu"] for r in runs["off"])
    print(f"{'':<30}{'rounds/s':>10}{'time vs off':>13}   CPU s: arena, worker, broker")
    print(f"{'MQTT off':<30}{total / off:>10.1f}{'':>13}{off_cpu:>8.2f}")
    worst = 0.0
    for label, key in (("MQTT on, match end", "ended"), ("MQTT on, all published", "published")):
        seconds = statistics.median(r[key] for r in runs["on"])
        slower = seconds / off - 1
        worst = max(worst, slower)
        if key == "published":
            cpu = statistics.median(r["cpu"] for r in runs["on"])
            worker = statistics.median(r["worker_cpu"] for r in runs["on"])
            broker = statistics.median(r["broker_cpu"] for r in runs["on"])
            shown = f"{cpu:>8.2f}{worker:>8.2f}{broker:>8.2f}"
        else:
            shown = ""
        print(f"{label:<30}{total / seconds:>10.1f}{slower:>+13.1%}{shown}")
    published = runs["on"][0]["events"]
    print(f"({published:.0f} events published a run, {published / total:.0f} a round)")
    print(f"goal (< 10 % slower, all published): {'met' if worst < 0.10 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args()
    asyncio.run(measure(args.quick))


if __name__ == "__main__":
    main()
