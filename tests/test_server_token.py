"""The controls' token a run makes when ``ARENA_SERVER_TOKEN`` is unset (issue 25): the
real ``arena serve`` (and ``play --serve``, ``tournament run --serve``) in a process of
its own prints a control link whose token opens ``/control/api``, and the token goes
nowhere else: not in its log lines (console or JSON, at debug), not on the overlay's
websocket, not over MQTT (a real Mosquitto, tests/mosquitto.py)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import stat
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
import websockets
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import subscribed_as
from test_spectator_wiring import RawSubscriber

REPO = Path(__file__).resolve().parent.parent
LINK = re.compile(r"open the controls at (http://127\.0\.0\.1:\d+)/control#token=([A-Za-z0-9_-]+)")


@contextlib.asynccontextmanager
async def arena(*argv: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``arena ARGV`` in a process of its own, without ``ARENA_SERVER_TOKEN``; killed at
    the end if it still runs."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "arena.cli",
        *argv,
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
        await process.wait()


async def line_matching(
    process: asyncio.subprocess.Process, pattern: re.Pattern[str] | str, seen: list[str]
) -> re.Match[str]:
    """Read stderr lines (kept in ``seen``) until one matches ``pattern``."""
    assert process.stderr is not None
    async with asyncio.timeout(30):
        while True:
            raw = await process.stderr.readline()
            assert raw, f"stderr ended before {pattern!r}: {seen}"
            line = raw.decode()
            seen.append(line)
            found = re.search(pattern, line)
            if found:
                return found


async def the_rest(process: asyncio.subprocess.Process, seen: list[str]) -> int:
    """Stop the command as a streamer does (Ctrl-C); its exit status, its last lines read."""
    assert process.stderr is not None
    process.send_signal(signal.SIGINT)
    async with asyncio.timeout(30):
        rest = await process.stderr.read()
        status = await process.wait()
    seen.extend(rest.decode().splitlines(keepends=True))
    return status


async def assert_token_opens_the_controls(base: str, token: str) -> None:
    async with httpx.AsyncClient(base_url=base, timeout=5) as http:
        wrong = await http.get("/control/api/state", headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        right = await http.get("/control/api/state", headers={"Authorization": f"Bearer {token}"})
        assert right.status_code == 200, right.text


async def test_serve_prints_a_link_whose_token_works_and_is_nowhere_else(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = tmp_path / "stream.toml"
    config.write_text(
        f"[match]\nrounds = 1\n[table]\npace_s = 0.0\n"
        f"[mqtt]\nenabled = true\nport = {mosquitto.port}\n",
        encoding="utf-8",
    )
    seen: list[str] = []
    async with (
        subscribed_as(mosquitto, RawSubscriber()) as feed,
        arena("serve", "--config", str(config), "--port", "0", "--log-level", "debug") as served,
    ):
        found = await line_matching(served, LINK, seen)
        base, token = found.group(1), found.group(2)
        await line_matching(served, "waiting for Start", seen)
        await assert_token_opens_the_controls(base, token)
        overlay: list[str] = []
        async with websockets.connect(base.replace("http://", "ws://") + "/ws") as ws:
            overlay.append(str(await ws.recv()))  # the page is current: the match can start
            async with httpx.AsyncClient(base_url=base, timeout=5) as http:
                started = await http.post(
                    "/control/api/start", headers={"Authorization": f"Bearer {token}"}
                )
            assert started.status_code == 200, started.text
            async with asyncio.timeout(30):
                while '"status":"ended"' not in overlay[-1]:
                    overlay.append(str(await ws.recv()))
        await line_matching(served, "waiting for Start", seen)  # the match was played
        await feed.wait_for(lambda ms: any(t.endswith("/status") for t, _, _ in ms), within_s=10)
        status = await the_rest(served, seen)

    assert status == 130
    stderr = "".join(seen)
    assert stderr.count(token) == 1, stderr  # the link's line, and no log line
    [shown] = [line for line in seen if token in line]
    assert shown.startswith("arena: open the controls at ")
    assert any("mqtt_" in line or "server_started" in line for line in seen)  # debug lines
    assert len(overlay) > 3
    assert not [m for m in overlay if token in m]
    assert len(feed.messages) > 10  # the match was published
    assert not [m for m in feed.messages if token.encode() in m[1]]


async def test_json_logs_name_a_private_file_holding_the_link_never_the_token() -> None:
    """With --log-format json stderr is a log collector's: the token is not printed;
    the link is in a file only this user may read, removed when the server stops."""
    seen: list[str] = []
    async with arena(
        "serve", "--port", "0", "--log-format", "json", "--log-level", "debug"
    ) as served:
        found = await line_matching(served, r'"event": "server_control_link"', seen)
        said = json.loads(found.string)
        path = Path(said["link_file"])
        mode = (await asyncio.to_thread(path.stat)).st_mode
        assert stat.S_IMODE(mode) == 0o600
        link = (await asyncio.to_thread(path.read_text, encoding="utf-8")).strip()
        assert link.startswith(f"{said['control']}#token=")
        token = link.partition("#token=")[2]
        await assert_token_opens_the_controls(said["control"].removesuffix("/control"), token)
        await line_matching(served, r'"event": "server_waiting"', seen)
        status = await the_rest(served, seen)
    assert status == 130
    assert [json.loads(line)["event"] for line in seen if line.strip()]  # every line JSON
    assert not [line for line in seen if token in line]
    assert not await asyncio.to_thread(path.exists)


@pytest.mark.parametrize("command", ["play", "tournament"])
async def test_play_and_tournament_serving_make_a_token_too(command: str, tmp_path: Path) -> None:
    argv: tuple[str, ...]
    if command == "play":
        argv = ("play", "--serve", "--rounds", "50", "--pace", "0.05", "--no-live")
    else:
        cup = tmp_path / "cup.toml"
        agents = "".join(
            f'[[agents]]\nname = "{n}"\ntype = "{t}"\n'
            for n, t in (("A", "heuristic"), ("B", "greedy"), ("C", "random"))
        )
        cup.write_text(
            f'[tournament]\nname = "Cup"\nformat = "standard"\n[table]\npace_s = 0.05\n{agents}',
            encoding="utf-8",
        )
        argv = ("tournament", "run", str(cup), "--db", str(tmp_path / "cup.db"), "--serve")
    seen: list[str] = []
    async with arena(*argv, "--port", "0") as served:
        found = await line_matching(served, LINK, seen)
        await assert_token_opens_the_controls(found.group(1), found.group(2))
        async with httpx.AsyncClient(base_url=found.group(1), timeout=5) as http:
            auth = {"Authorization": f"Bearer {found.group(2)}"}
            paused = await http.post("/control/api/pause", headers=auth)
        assert paused.json()["ok"], paused.text
        served.kill()


def test_serving_beyond_loopback_still_needs_a_token_set(tmp_path: Path) -> None:
    """A token made for the run is for this machine only: beyond it, the streamer sets
    one (a bridge elsewhere signs with it)."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    done = subprocess.run(
        [sys.executable, "-m", "arena.cli", "serve", "--host", "0.0.0.0", "--port", "0"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "--host 0.0.0.0: serving beyond this machine needs a token" in done.stderr
    assert "#token=" not in done.stderr
