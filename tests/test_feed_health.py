"""A live feed that delivers nothing says so where viewers' tools look.

Specification: issue 25's acceptance review of "One failed emit silences a sink": the
MQTT sink only writes lines to its worker process, so a worker killed mid-match, a
broker that is away, or one whose ACL refuses every publish left ``/healthz`` and the
overlay saying "ok". Now the worker tells the arena's process what keeps the feed from
delivering (arena/sinks/health.py's DeliveryWatch), the arena sees the worker exit, and
the run's SinkHealthBoard names the feed degraded on ``/healthz``, in every page's
``server`` message and in the retained status when it can be published; it clears when
the feed delivers again. Real Mosquitto, real HTTP and WebSockets on loopback, and a
real ``arena play`` process for the killed worker, as the reviewer ran it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import websockets
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import REPO, config, connected, sink_for, subscribed
from test_server import read_until, served, ws_url

from arena.config import MqttSettings
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.health import SinkHealthBoard
from arena.sinks.mqtt import MqttSink

GRACE_S = 0.5
"""The tests' grace for a broker away (the default is 5 s): short, to keep them quick."""


def told_degraded(message: dict[str, Any]) -> bool:
    return bool(message["type"] == "server" and message["degraded"])


def told_healthy(message: dict[str, Any]) -> bool:
    return bool(message["type"] == "server" and message["degraded"] == [])


async def healthz(base: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=base) as http:
        answer: dict[str, Any] = (await http.get("/healthz")).json()
        return answer


def worker_of(pid: int) -> int:
    """The pid of the MQTT worker the process ``pid`` started."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    for child in children:
        with contextlib.suppress(FileNotFoundError):
            if b"arena.sinks.mqtt_worker" in Path(f"/proc/{child}/cmdline").read_bytes():
                return int(child)
    raise AssertionError(f"no MQTT worker among the children of {pid}: {children}")


@contextlib.asynccontextmanager
async def arena_play(*args: str) -> AsyncIterator[tuple[asyncio.subprocess.Process, str]]:
    """``arena play ARGS --serve --port 0`` running: the process and the server's URL;
    SIGTERM at the end of the block. Its stderr is read all along (never left full)."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "arena.cli", "play", *args, "--serve", "--port", "0"),
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []
    found = asyncio.get_running_loop().create_future()

    async def read() -> None:
        assert process.stderr is not None
        async for raw in process.stderr:
            line = raw.decode(errors="replace")
            lines.append(line)
            url = re.search(r"overlay: (http://127\.0\.0\.1:\d+)/overlay", line)
            if url and not found.done():
                found.set_result(url.group(1))
        if not found.done():
            found.set_exception(AssertionError("".join(lines)))

    reader = asyncio.create_task(read())
    try:
        async with asyncio.timeout(30):
            base = await found
        yield process, base
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
        await process.wait()
        await reader


async def test_a_killed_mqtt_worker_is_said_degraded_on_healthz_and_every_page_for_good(
    mosquitto: Mosquitto,
) -> None:
    """The reviewer's run: ``kill -9`` of the worker mid-match. The feed is dead for the
    rest of the match (it is not started again), and ``/healthz`` and the overlay's
    ``server`` messages say so, with the exit code, while the match goes on."""
    async with (
        arena_play(
            *("--mqtt", mosquitto.url, "--rounds", "100", "--pace", "0.02", "--no-live"),
            *("--round-pause", "0"),
            *("--seed", "1"),
        ) as (arena, base),
        websockets.connect(base.replace("http://", "ws://") + "/ws") as ws,
    ):
        await read_until(ws, lambda m: m.get("type") == "play")  # the match is on
        assert (await healthz(base))["status"] == "ok"
        os.kill(worker_of(arena.pid), signal.SIGKILL)
        told = await read_until(ws, told_degraded)
        health = await healthz(base)
        # for good: plays go on, and the feed is still said degraded after them
        after = await read_until(ws, lambda m: m.get("type") == "trick_won")
        later = await healthz(base)
    assert not any(told_healthy(m) for m in after)
    [entry] = told[-1]["degraded"]
    assert entry["sink"] == "mqtt"
    assert entry["during"] == "deliver"
    assert entry["last_error"].startswith("MQTT worker exited (code -9)")
    assert health["status"] == later["status"] == "degraded"
    assert health["degraded"] == later["degraded"] == [entry]


async def test_a_broker_away_past_the_grace_is_degraded_then_recovered_and_the_status_says_so(
    mosquitto: Mosquitto,
) -> None:
    """The broker stops mid-run: past the grace, ``/healthz`` and every page say the
    feed is degraded (how long, how many events wait); it comes back: recovered, and the
    retained status says online with nothing degraded, and what happened meanwhile."""
    sink = sink_for(mosquitto, run_id="away")
    sink.unreachable_grace_s = GRACE_S
    async with served() as server, websockets.connect(ws_url(server)) as ws:
        with SinkHealthBoard({"mqtt": sink, "overlay": server.hub}):
            await connected(sink)
            await read_until(ws, told_healthy)
            stopped = time.monotonic()
            mosquitto.stop()
            collected = CollectingSink()
            await run_arena(config(), seed=3, sinks=[collected, sink, server.hub])
            told = await read_until(ws, told_degraded)
            waited = time.monotonic() - stopped
            away = await healthz(server.url)
            mosquitto.start()
            recovered = await read_until(ws, told_healthy)
            back = await healthz(server.url)
            async with subscribed(mosquitto) as late:  # what a tool that starts now reads
                await late.wait_for(lambda _: bool(late.statuses), within_s=10)
        await sink.close()
    assert waited >= GRACE_S  # never sooner: a broker restarting is no outage
    [entry] = told[-1]["degraded"]
    assert (entry["sink"], entry["during"]) == ("mqtt", "deliver")
    assert re.match(r"broker unreachable for \d+ s, \d+ events buffered \(", entry["last_error"])
    assert mosquitto.url in entry["last_error"]  # the connection's error, with its broker
    assert away["status"] == "degraded"
    assert away["degraded"][0]["sink"] == "mqtt"
    assert recovered[-1]["degraded"] == []
    assert (back["status"], back["degraded"]) == ("ok", [])
    status = late.statuses[-1]
    assert (status["status"], status["run"], status["degraded"]) == ("online", "away", [])
    outage = status["last_outage"]
    assert outage["error"].startswith(f"broker unreachable, {len(collected.events)} events")
    assert outage["lasted_s"] >= GRACE_S


async def test_a_broker_whose_acl_refuses_every_publish_makes_the_feed_degraded(
    tmp_path: Path,
) -> None:
    """An ACL that lets the arena's user read but write nothing: every message is
    refused (MQTT 5 says so in each PUBACK). The feed cannot publish its own status, so
    ``/healthz`` and the pages are where it shows, naming the refusal."""
    acl = tmp_path / "acl"
    acl.write_text("user arena\ntopic read ddz-arena/#\n")
    broker = Mosquitto(tmp_path, users={"arena": "pw"}, acl=acl)
    broker.start()
    try:
        settings = MqttSettings(enabled=True, port=broker.port, username_env="U", password_env="P")
        sink = MqttSink(settings, run_id="acl", environ={"U": "arena", "P": "pw"})
        async with served() as server, websockets.connect(ws_url(server)) as ws:
            with SinkHealthBoard({"mqtt": sink, "overlay": server.hub}):
                assert await sink.started()
                await run_arena(config(), seed=2, sinks=[sink, server.hub])
                told = await read_until(ws, told_degraded)
                health = await healthz(server.url)
            await sink.close()
    finally:
        broker.stop()
    [entry] = told[-1]["degraded"]
    assert (entry["sink"], entry["during"]) == ("mqtt", "deliver")
    assert re.fullmatch(r"the broker refused \d+ messages \(not authorized\)", entry["last_error"])
    assert health["status"] == "degraded"
    assert health["degraded"] == [entry]
    assert sink.stats.published == 0
