"""The server's commands as a streamer runs them (issue 14): ``arena play --serve``,
``arena serve`` started from the controls, ``arena tournament run --serve``, and the
mistakes they refuse, each in a real process."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from gifts.signatures import sign_arena_webhook

REPO = Path(__file__).resolve().parent.parent
TOKEN = "cli-test-token"


def arena(*args: str, token: str | None = None) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    if token is not None:
        env["ARENA_SERVER_TOKEN"] = token
    return subprocess.Popen(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def lines_until(
    stream: object, pattern: str, *, timeout: float = 30.0
) -> tuple[re.Match[str], list[str]]:
    """Read lines until one matches ``pattern``: the match and the lines read."""
    seen: list[str] = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = stream.readline()  # type: ignore[attr-defined]
        if not line:
            break
        seen.append(line)
        found = re.search(pattern, line)
        if found:
            return found, seen
    raise AssertionError(f"no line matching {pattern!r} in {seen}")


def run_arena(*args: str) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` to its end, without a token in its environment."""
    return subprocess.run(
        [sys.executable, "-m", "arena.cli", *args],
        cwd=REPO,
        env={k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"},
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.fixture
def processes() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)


def test_play_serve_prints_the_overlay_url_and_stays_up_after_the_match(
    processes: list[subprocess.Popen[str]],
) -> None:
    """The session, not just the match: the server plays, then keeps serving the final
    picture (an open overlay does not freeze on "connecting") until Ctrl-C, which ends
    the show cleanly (status 0, the replay kept as written)."""
    process = arena(
        "play",
        "--serve",
        "--port",
        "0",
        "--rounds",
        "2",
        "--pace",
        "0.05",
        "--no-live",
        "--round-pause",
        "0",
    )
    processes.append(process)
    found, _ = lines_until(process.stderr, r"overlay: (http://127\.0\.0\.1:\d+)/overlay")
    base = found.group(1)
    health = httpx.get(f"{base}/healthz", timeout=5).json()
    assert health["mode"] == "play"
    assert health["status"] == "ok"
    assert "<html" in httpx.get(f"{base}/overlay", timeout=5).text.lower()
    lines_until(process.stderr, r"the match is over; .*/overlay shows the final standings")
    assert process.poll() is None  # still serving
    ended = httpx.get(f"{base}/healthz", timeout=5).json()
    assert ended["status"] == "ok"
    assert ended["match"] == "ended"
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=30) == 0


def test_exit_when_done_stops_serving_when_the_match_ends(
    processes: list[subprocess.Popen[str]],
) -> None:
    process = arena(
        *("play", "--serve", "--exit-when-done", "--port", "0", "--rounds", "1"),
        *("--pace", "0", "--no-live"),
    )
    processes.append(process)
    assert process.wait(timeout=60) == 0
    assert "the final standings" not in (process.stderr.read() if process.stderr else "")


def test_wait_for_start_deals_once_an_overlay_page_opens(
    processes: list[subprocess.Popen[str]],
) -> None:
    """OBS connecting is the cue: nothing is dealt while no page is open; the first
    overlay page's feed starts the match (the control page's preview would not)."""
    import websockets.sync.client as ws_client

    process = arena(
        *("play", "--serve", "--wait-for-start", "--exit-when-done", "--port", "0"),
        *("--rounds", "1", "--pace", "0", "--no-live"),
    )
    processes.append(process)
    found, _ = lines_until(process.stderr, r"overlay: (http://127\.0\.0\.1:\d+)/overlay")
    base = found.group(1)
    lines_until(process.stderr, r"waiting for Start on .* or open the overlay")
    with ws_client.connect(base.replace("http://", "ws://") + "/ws?preview=1") as preview:
        first = json.loads(preview.recv(timeout=5))
        assert first["type"] == "server"
        time.sleep(0.5)
        assert httpx.get(f"{base}/healthz", timeout=5).json()["match"] == "waiting"
    with ws_client.connect(base.replace("http://", "ws://") + "/ws") as page:
        kinds = set()
        while "match_ended" not in kinds:
            kinds.add(json.loads(page.recv(timeout=30)).get("type"))
        assert {"server", "snapshot", "play", "round_result"} <= kinds
    assert process.wait(timeout=30) == 0


def test_serve_waits_for_start_from_the_controls_and_plays_again(
    processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    config = tmp_path / "stream.toml"
    config.write_text("[match]\nrounds = 1\n[table]\npace_s = 0.0\n", encoding="utf-8")
    process = arena("serve", "--config", str(config), "--port", "0", token=TOKEN)
    processes.append(process)
    found, _ = lines_until(process.stderr, r"controls: (http://127\.0\.0\.1:\d+)/control")
    base = found.group(1)
    lines_until(process.stderr, r"waiting for Start")
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.get(f"{base}/healthz", timeout=5).json()["match"] == "waiting"
    refused = httpx.post(f"{base}/control/api/start", headers={"Authorization": "Bearer no"})
    assert refused.status_code == 401
    for _ in range(2):  # a match, then the next one on the next Start
        started = httpx.post(f"{base}/control/api/start", headers=auth, timeout=5)
        assert started.status_code == 200, started.text
        lines_until(process.stderr, r"waiting for Start")
        state = httpx.get(f"{base}/control/api/state", headers=auth, timeout=5).json()
        assert state["match"] == "ended"
        assert state["can_start"]
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=15) == 130


def test_serve_next_in_counts_down_between_matches_then_deals_the_next(
    processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    """Between two matches the pages are told when the next is dealt (``next_at``,
    which the overlay counts down to), and at zero it is dealt without a Start."""
    import websockets.sync.client as ws_client

    config = tmp_path / "stream.toml"
    config.write_text("[match]\nrounds = 1\n[table]\npace_s = 0.0\n", encoding="utf-8")
    process = arena(
        *("serve", "--config", str(config), "--port", "0", "--start", "--next-in", "2"),
        token=TOKEN,
    )
    processes.append(process)
    found, _ = lines_until(process.stderr, r"controls: (http://127\.0\.0\.1:\d+)/control")
    base = found.group(1)
    lines_until(process.stderr, r"the next match is dealt in 2 s")
    with ws_client.connect(base.replace("http://", "ws://") + "/ws") as page:
        told = json.loads(page.recv(timeout=5))
        assert told["type"] == "server"
        now_ms = time.time() * 1000
        if told["next_at"] is not None:  # (the countdown may just have ended)
            assert now_ms - 1000 < told["next_at"] <= now_ms + 2500
        kinds = set()
        while "match_ended" not in kinds:  # the second match, dealt by the countdown
            message = json.loads(page.recv(timeout=30))
            kinds.add(message.get("type"))
            if message.get("type") == "server":
                assert message["next_at"] is None or message["next_at"] > now_ms - 1000
    lines_until(process.stderr, r"the next match is dealt in 2 s")  # and again after it
    assert httpx.get(f"{base}/healthz", timeout=5).json()["next_at"] is not None
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=15) == 130


def test_a_gift_between_two_matches_is_told_no_match_is_playing(
    processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    config = tmp_path / "stream.toml"
    config.write_text("[match]\nrounds = 1\n[table]\npace_s = 0.0\n", encoding="utf-8")
    process = arena(
        "serve", "--config", str(config), "--port", "0", "--gifts", "--start", token=TOKEN
    )
    processes.append(process)
    found, _ = lines_until(process.stderr, r"controls: (http://127\.0\.0\.1:\d+)/control")
    lines_until(process.stderr, r"waiting for Start")  # the first match has ended
    body = json.dumps({"event_id": "late-1", "effect": "CHEER", "viewer": "v"}).encode()
    signature = sign_arena_webhook(body, TOKEN.encode(), int(time.time()))
    late = httpx.post(
        f"{found.group(1)}/gifts/webhook",
        content=body,
        headers={"X-Arena-Signature": signature, "Content-Type": "application/json"},
        timeout=5,
    )
    assert late.status_code == 503
    assert late.json()["error"] == "no match is playing: gifts are taken while one plays"


def test_serving_beyond_this_machine_without_a_token_is_refused() -> None:
    done = run_arena("play", "--serve", "--host", "0.0.0.0")
    assert done.returncode == 2
    assert "--host 0.0.0.0: serving beyond this machine needs a token" in done.stderr
    assert "ARENA_SERVER_TOKEN" in done.stderr


def test_spectator_delay_goes_to_the_server_without_mqtt(
    processes: list[subprocess.Popen[str]],
) -> None:
    process = arena(
        *("play", "--serve", "--exit-when-done", "--port", "0", "--rounds", "1", "--pace", "0"),
        *("--no-live", "--spectator-delay", "0.2"),
    )
    processes.append(process)
    lines_until(process.stderr, r"every hand goes to http://127\.0\.0\.1:\d+/spectator 0\.2 s")
    assert process.wait(timeout=60) == 0
    alone = run_arena("play", "--spectator-delay", "1")
    assert alone.returncode == 2
    assert "needs --mqtt or --serve" in alone.stderr


def test_a_tournament_serves_its_leaderboard_and_refuses_workers(
    processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    import json

    import websockets.sync.client as ws_client

    cup = tmp_path / "cup.toml"
    agents = "".join(
        f'[[agents]]\nname = "{n}"\ntype = "{t}"\n'
        for n, t in (("A", "heuristic"), ("B", "greedy"), ("C", "random"))
    )
    cup.write_text(
        f'[tournament]\nname = "Cup"\nformat = "standard"\n[table]\npace_s = 0.02\n{agents}',
        encoding="utf-8",
    )
    db = tmp_path / "cup.db"
    refused = run_arena("tournament", "run", str(cup), "--db", str(db), "--serve", "--workers", "2")
    assert refused.returncode == 2
    assert "--serve with --workers 2" in refused.stderr
    process = arena(
        "tournament",
        "run",
        str(cup),
        "--db",
        str(db),
        "--serve",
        "--port",
        "0",
        "--gifts",
        token=TOKEN,
    )
    processes.append(process)
    found, _ = lines_until(process.stderr, r"overlay: (http://127\.0\.0\.1:\d+)/overlay")
    body = b'{"event_id": "t-1", "platform": "test", "effect": "CHEER"}'
    signature = sign_arena_webhook(body, TOKEN.encode(), int(time.time()))
    answer = httpx.post(
        f"{found.group(1)}/gifts/webhook",
        content=body,
        headers={"X-Arena-Signature": signature},
        timeout=5,
    )
    assert answer.status_code == 202, answer.text  # a tournament's gifts take it too
    url = found.group(1).replace("http://", "ws://") + "/ws"
    with ws_client.connect(url) as ws:
        kinds = set()
        board = None
        for _ in range(400):
            message = json.loads(ws.recv(timeout=10))
            kinds.add(message["type"])
            if message["type"] == "leaderboard":
                board = message["board"]
                break
    assert board is not None
    assert {a["name"] for a in board["agents"]} == {"A", "B", "C"}
    assert "server" in kinds
    assert process.wait(timeout=90) == 0


def test_a_port_out_of_range_is_a_usage_error() -> None:
    done = run_arena("serve", "--port", "70000")
    assert done.returncode == 2
    assert "--port: 70000 is no port" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_says_why_a_match_could_not_start_and_stays_up(
    processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text(
        '[[seats]]\nname = "Ghost"\ntype = "subprocess"\noptions.command = ["/nonexistent/bot"]\n'
        '[[seats]]\nname = "B"\n[[seats]]\nname = "C"\n',
        encoding="utf-8",
    )
    process = arena("serve", "--config", str(broken), "--port", "0", token=TOKEN)
    processes.append(process)
    found, _ = lines_until(process.stderr, r"controls: (http://127\.0\.0\.1:\d+)/control")
    base = found.group(1)
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.post(f"{base}/control/api/start", headers=auth, timeout=5).status_code == 200
    failed, _ = lines_until(process.stderr, r"error: the match could not be played")
    assert "/nonexistent/bot" in failed.string
    lines_until(process.stderr, r"waiting for Start")
    state = httpx.get(f"{base}/control/api/state", headers=auth, timeout=5).json()
    assert "/nonexistent/bot" in state["last_error"]
    assert state["can_start"]


def test_serve_keeps_the_pace_of_the_config(
    processes: list[subprocess.Popen[str]], tmp_path: Path
) -> None:
    paced = tmp_path / "paced.toml"
    paced.write_text("[match]\nrounds = 1\n[table]\npace_s = 0.3\n", encoding="utf-8")
    process = arena("serve", "--config", str(paced), "--port", "0", "--start", token=TOKEN)
    processes.append(process)
    found, _ = lines_until(process.stderr, r"controls: (http://127\.0\.0\.1:\d+)/control")
    time.sleep(2.0)  # a round has some 30 actions: 9 s at 0.3 s each; unpaced, 0.1 s
    health = httpx.get(f"{found.group(1)}/healthz", timeout=5).json()
    assert health["match"] == "live"
