"""Every secret the arena knows is masked in everything it writes or sends (issue 25).

The whole path, as a streamer runs it: ``arena play`` in its own process with an OpenAI
and an Anthropic seat (the real SDKs, loopback fake providers) and an HTTP seat (a real
loopback bot), publishing to a real Mosquitto that wants a password, taking gifts over
MQTT and the signed webhook, serving the overlay, recording a replay, logging at debug
level in either format. Outsiders put the secrets where the arena reads text: the models'
replies, reasoning and comments, the HTTP bot's error body and comments, viewers' names
and messages. No secret, and no long piece of one, may then be in the replay, the logs,
the board, the MQTT feed, the overlay's feeds, the REPLY_REJECTED details the bot was
sent, or ``arena replay --decisions``.

A tournament with workers checks that the secrets the main process knows reach the
worker processes: an HTTP seat playing in a worker quotes a model seat's key (read in the
main process only) in its error bodies, and the store and the output never hold it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import sqlite3
import sys
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiomqtt
import httpx
import pytest
import websockets
import zstandard
from fake_providers import (
    Behaviour,
    FakeAnthropic,
    FakeOpenAI,
    RecordedRequest,
    Reply,
    answer,
    legal_answer,
    legal_model,
    request_in,
    shared_clients,  # noqa: F401 (an autouse fixture)
)
from mosquitto import Mosquitto
from test_http_agent import StartServer, serve_fixture  # noqa: F401 (the fixture)

from gifts.signatures import sign_arena_webhook
from tournaments import workers as workers_module
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

REPO = Path(__file__).resolve().parent.parent

OPENAI_KEY = "sk-proj-Xq7v2LmN9pR4tK8wZ3yB6cD1"
ANTHROPIC_KEY = "sk-ant-api03-Hj5kL9mN2pQ7rS4tV8wX"
HTTP_TOKEN = "agent-bearer-7f3e9a1c5b8d2e6f0a4c"
SERVER_TOKEN = "server-token-4c8e2a6f1b9d3e7a5c0b"
MQTT_PASSWORD = "mqtt-password-9b2d6f1a8c4e7b3d1f"
SECRETS = (OPENAI_KEY, ANTHROPIC_KEY, HTTP_TOKEN, SERVER_TOKEN, MQTT_PASSWORD)
ALL_OF_THEM = " ".join(SECRETS)


def pieces(secret: str) -> tuple[str, ...]:
    """The secret and its long pieces: a quote cut in the middle of one leaks its start,
    a cut from the end its tail."""
    return secret, secret[:14], secret[-12:]


def assert_no_secret(where: str, text: str) -> None:
    for secret in SECRETS:
        for piece in pieces(secret):
            assert piece not in text, f"{piece!r} (of {secret[:6]}…) is in {where}"


def talkative_model() -> Callable[[RecordedRequest], Behaviour]:
    """A provider's ``respond``: the first answer is every secret and no decision (a
    rejection quotes its start), each later one a legal decision whose comment and
    reasoning hold every secret."""
    calls = itertools.count()

    def respond(recorded: RecordedRequest) -> Behaviour:
        if next(calls) == 0:
            return Reply(text=f"{ALL_OF_THEM} is all I will say", reasoning=ALL_OF_THEM)
        decision = legal_answer(request_in(recorded))
        decision["comment"] = ALL_OF_THEM
        return answer(recorded, decision, reasoning=f"remember {ALL_OF_THEM}")

    return respond


CONFIG = """
[table]
decision_timeout_s = 20.0
max_retries = 2
pace_s = 0.05

[gifts]
enabled = true

[gifts.cooldowns]
CHEER = 0.0

[mqtt]
username_env = "TEST_MQTT_USER"
password_env = "TEST_MQTT_PASSWORD"

[[seats]]
name = "GPT"
type = "openai"
[seats.options]
model = "fake-gpt"
provider = "vllm"
base_url = "{openai}"
api_key_env = "TEST_OPENAI_KEY"
structured = "none"

[[seats]]
name = "Claude"
type = "anthropic"
options = {{ model = "claude-fake", base_url = "{anthropic}" }}

[[seats]]
name = "Bot"
type = "http"
options = {{ url = "{bot}", token_env = "TEST_AGENT_TOKEN" }}
"""


class RawFeed:
    """Every MQTT message under ``ddz-arena/`` as it came, and each gift event's id."""

    def __init__(self) -> None:
        self.payloads: list[bytes] = []
        self.gift_ids: set[str] = set()
        self.viewers: list[str] = []
        self.events = 0
        self._arrived = asyncio.Event()

    def add(self, message: aiomqtt.Message) -> None:
        raw = message.payload
        assert isinstance(raw, bytes)
        topic = str(message.topic)
        if topic.endswith("/gifts/in"):
            return  # what the test itself sent
        self.payloads.append(raw)
        if topic.endswith("/events"):
            self.events += 1
        if topic.endswith("/gifts"):
            told = json.loads(raw)["data"]
            self.gift_ids.add(told["event_id"])
            self.viewers.append(told["viewer"])
        self._arrived.set()

    async def until(self, done: Callable[[], bool], within_s: float) -> None:
        async with asyncio.timeout(within_s):
            while not done():
                self._arrived.clear()
                await self._arrived.wait()


@contextlib.asynccontextmanager
async def subscribed(broker: Mosquitto) -> AsyncIterator[tuple[RawFeed, aiomqtt.Client]]:
    feed = RawFeed()
    async with aiomqtt.Client(
        "127.0.0.1", broker.port, username="studio", password=MQTT_PASSWORD
    ) as client:
        await client.subscribe("ddz-arena/#", qos=1)

        async def read() -> None:
            async for message in client.messages:
                feed.add(message)

        reader = asyncio.create_task(read())
        try:
            yield feed, client
        finally:
            reader.cancel()


async def overlay_messages(url: str, into: list[str]) -> None:
    """Every message of one overlay feed until the server goes away."""
    with contextlib.suppress(websockets.ConnectionClosed, OSError):
        async with websockets.connect(url, max_size=None) as ws:
            async for message in ws:
                into.append(message if isinstance(message, str) else message.decode())


async def lines_of(stream: asyncio.StreamReader, into: list[str], found: asyncio.Event) -> None:
    while line := await stream.readline():
        into.append(line.decode())
        if re.search(r"http://127\.0\.0\.1:\d+/overlay", into[-1]):
            found.set()


def gift(event_id: str, viewer: str, message: str) -> dict[str, Any]:
    return {
        "event_id": event_id,
        "platform": "test",
        "display_name": viewer,
        "message": message,
        "effect": "CHEER",
    }


async def send_until_told(
    feed: RawFeed, event_id: str, send: Callable[[], Any], within_s: float = 30
) -> None:
    """Send a gift until its outcome is on the gifts topic (the listener subscribes a
    moment after the match starts; a resend is at most a duplicate)."""
    async with asyncio.timeout(within_s):
        while event_id not in feed.gift_ids:
            await send()
            with contextlib.suppress(TimeoutError):
                await feed.until(lambda: event_id in feed.gift_ids, within_s=0.5)


async def arena_output(*args: str, env: dict[str, str]) -> tuple[int, str, str]:
    """``arena ARGS`` run to its end: its exit status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "arena.cli", *args),
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    async with asyncio.timeout(60):
        out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


@pytest.mark.parametrize("log_format", ["console", "json"])
async def test_no_secret_in_replay_logs_feed_or_rejections(
    tmp_path: Path, serve: StartServer, log_format: str
) -> None:
    broker = Mosquitto(tmp_path, users={"studio": MQTT_PASSWORD})
    broker.start()
    bot = serve(
        *("--fail-with", f"internal error: {ALL_OF_THEM} refused", "--comment", ALL_OF_THEM),
        env={**os.environ, "EXPECTED_TOKEN": HTTP_TOKEN},
    )
    replay = tmp_path / "match.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "NO_PROXY": "127.0.0.1,localhost",
        "TEST_OPENAI_KEY": OPENAI_KEY,
        "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
        "TEST_AGENT_TOKEN": HTTP_TOKEN,
        "ARENA_SERVER_TOKEN": SERVER_TOKEN,
        "TEST_MQTT_USER": "studio",
        "TEST_MQTT_PASSWORD": MQTT_PASSWORD,
    }
    stdout: list[str] = []
    stderr: list[str] = []
    public: list[str] = []
    spectator: list[str] = []
    try:
        with (
            FakeOpenAI(api_key=OPENAI_KEY, respond=talkative_model()) as openai_server,
            FakeAnthropic(api_key=ANTHROPIC_KEY, respond=talkative_model()) as anthropic_server,
        ):
            config = tmp_path / "arena.toml"
            config.write_text(
                CONFIG.format(
                    openai=openai_server.base_url, anthropic=anthropic_server.root, bot=bot.url
                )
            )
            async with subscribed(broker) as (feed, client):
                process = await asyncio.create_subprocess_exec(
                    *(sys.executable, "-m", "arena.cli", "play", "--config", str(config)),
                    *("--rounds", "2", "--seed", "11", "--no-live", "--record", str(replay)),
                    *("--mqtt", broker.url, "--gifts", "--spectator-delay", "0.2"),
                    *("--serve", "--exit-when-done", "--port", "0", "--round-pause", "0"),
                    *("--log-format", log_format, "--log-level", "debug"),
                    cwd=REPO,
                    env=env,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.PIPE,
                )
                assert process.stdout is not None
                assert process.stderr is not None
                served = asyncio.Event()
                readers = [
                    asyncio.create_task(lines_of(process.stdout, stdout, asyncio.Event())),
                    asyncio.create_task(lines_of(process.stderr, stderr, served)),
                ]
                try:
                    async with asyncio.timeout(60):
                        await served.wait()
                    base = re.findall(r"http://127\.0\.0\.1:\d+", "".join(stderr))[0]
                    ws = base.replace("http://", "ws://")
                    watchers = [
                        asyncio.create_task(overlay_messages(f"{ws}/ws", public)),
                        asyncio.create_task(overlay_messages(f"{ws}/ws/spectator", spectator)),
                    ]
                    await feed.until(lambda: feed.events > 0, within_s=60)

                    async def over_mqtt() -> None:
                        payload = gift("leak-mqtt", HTTP_TOKEN, ALL_OF_THEM)
                        await client.publish("ddz-arena/gifts/in", json.dumps(payload), qos=1)

                    async def over_webhook() -> None:
                        body = json.dumps(gift("leak-hook", SERVER_TOKEN, ALL_OF_THEM)).encode()
                        signed = sign_arena_webhook(body, SERVER_TOKEN.encode(), int(time.time()))
                        async with httpx.AsyncClient() as http:
                            sent = await http.post(
                                f"{base}/gifts/webhook",
                                content=body,
                                headers={"X-Arena-Signature": signed},
                            )
                        assert sent.status_code == 202, sent.text

                    await send_until_told(feed, "leak-mqtt", over_mqtt)
                    await send_until_told(feed, "leak-hook", over_webhook)
                    async with asyncio.timeout(120):
                        code = await process.wait()
                    await asyncio.gather(*readers)
                    async with asyncio.timeout(10):
                        await asyncio.gather(*watchers)
                finally:
                    if process.returncode is None:
                        process.kill()
                        await process.wait()
    finally:
        broker.stop()

    err = "".join(stderr)
    assert code == 0, err[-3000:]
    shown_code, shown, shown_err = await arena_output("replay", str(replay), "--decisions", env=env)
    assert shown_code == 0, shown_err
    recorded = replay.read_text()

    assert_no_secret("the replay", recorded)
    assert_no_secret(f"the {log_format} logs", err)
    assert_no_secret("stdout", "".join(stdout))
    for payload in feed.payloads:
        assert_no_secret("the MQTT feed", payload.decode())
    assert_no_secret("the overlay feed", "\n".join(public))
    assert_no_secret("the spectator feed", "\n".join(spectator))
    assert_no_secret("what the HTTP bot was sent", bot.log.read_text())
    assert_no_secret("arena replay --decisions", shown + shown_err)

    # The secrets were where the arena reads text, and are masked there: every path ran.
    lines = [json.loads(line) for line in recorded.splitlines()]
    decisions = [line for line in lines if line["kind"] == "decision"]
    assert {d["seat"] for d in decisions} == {0, 1}
    assert any(d["outcome"] != "accepted" for d in decisions)
    assert any("*** *** ***" in (d["report"]["raw_text"] or "") for d in decisions)
    assert any("*** *** ***" in (d["report"]["reasoning"] or "") for d in decisions)
    rejections = [
        line["message"]
        for line in lines
        if line["kind"] == "message" and line["message"]["type"] == "REPLY_REJECTED"
    ]
    assert {r["player_id"] for r in rejections} >= {"GPT", "Claude", "Bot"}
    told = [json.loads(line) for line in bot.log.read_text().splitlines()]
    assert any(
        m["type"] == "REPLY_REJECTED" and "HTTP 500" in m["detail"] and "*** ***" in m["detail"]
        for m in told
    )
    assert feed.gift_ids >= {"leak-mqtt", "leak-hook"}
    assert "***" in feed.viewers
    assert any('"comment"' in m and "*** *** ***" in m for m in public)
    assert spectator
    assert "*** *** ***" in shown


def stored_text(db: Path) -> str:
    """Everything the store holds as text, its compressed round lines expanded."""
    texts: list[str] = []
    decompress = zstandard.ZstdDecompressor().decompress
    with contextlib.closing(sqlite3.connect(db)) as connection:
        found = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = [row[0] for row in found]
        for table in tables:
            if not re.fullmatch(r"[a-z_]+", table):
                continue
            for row in connection.execute(f"SELECT * FROM {table}"):
                for value in row:
                    if isinstance(value, bytes):
                        with contextlib.suppress(zstandard.ZstdError):
                            value = decompress(value)
                        texts.append(value.decode("utf-8", "replace"))
                    else:
                        texts.append(str(value))
    return "\n".join(texts)


def cup_with_a_model(base_url: str, key_env: str, *others: dict[str, Any]) -> TournamentConfig:
    """A quick tournament of an OpenAI seat of the fake provider (its key in ``key_env``)
    and ``others``: the tables without the model seat play in the workers."""
    model = {
        "name": "GPT",
        "type": "openai",
        "options": {
            "model": "fake-gpt",
            "provider": "vllm",
            "base_url": base_url,
            "api_key_env": key_env,
            "structured": "none",
        },
    }
    return parse_tournament_config(
        {
            "tournament": {"name": "masked", "format": "quick", "seed": 5},
            "table": {"decision_timeout_s": 20.0},
            "agents": [model, *others],
        },
        source="test",
    )


async def test_secrets_reach_the_tournament_workers(
    tmp_path: Path,
    serve: StartServer,
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> None:
    """The HTTP bot's table without the model seat plays in a worker, and every error
    body of the bot quotes the model seat's key, which only this process reads (when
    the run builds its agents): the worker must know it to mask it."""
    monkeypatch.setattr(workers_module, "PLAY_HERE_WHILE_STARTING", False)
    monkeypatch.setenv("TEST_OPENAI_KEY", OPENAI_KEY)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    bot = serve("--failures", "0", "--fail-with", f"upstream said: {OPENAI_KEY} is wrong")
    db = tmp_path / "cup.db"
    with FakeOpenAI(api_key=OPENAI_KEY, respond=legal_model) as openai_server:
        config = cup_with_a_model(
            openai_server.base_url,
            "TEST_OPENAI_KEY",
            {"name": "Bot", "type": "http", "options": {"url": bot.url}},
            {"name": "A", "type": "heuristic"},
            {"name": "B", "type": "greedy"},
        )
        with TournamentStore(db) as store:
            run = await run_tournament(store, config, workers=2)
            assert run.finished
            players = [m.players for m in store.table_matches(run.tournament_id)]
    assert any("GPT" not in seated for seated in players)  # a table for the workers
    told = [json.loads(line) for line in bot.log.read_text().splitlines()]
    tables = {m["table_id"] for m in told if m["type"] == "REPLY_REJECTED"}
    assert len(tables) == 3, tables  # its three tables, one of them in a worker
    stored = stored_text(db)
    assert "upstream said: *** is wrong" in stored
    output = capfd.readouterr()
    for piece in pieces(OPENAI_KEY):
        assert piece not in stored
        assert piece not in bot.log.read_text()
        assert piece not in output.out + output.err


# --- issue 25's review: escapes, programs' environments, the server token unserved -------

BOT_PROGRAM = REPO / "tests" / "programs" / "stdio_bot.py"
MODEL_KEY = "sk-test-SECRET1234567890"
AGENT_TOKEN = "httptok-SECRET-abcdef123456"


def escaping_model(comment_json: str) -> Callable[[RecordedRequest], Behaviour]:
    """A provider's ``respond``: legal decisions whose comment is ``comment_json`` as
    written between the quotes (escapes and all)."""

    def respond(recorded: RecordedRequest) -> Behaviour:
        decision = {**legal_answer(request_in(recorded)), "comment": "\0"}
        text = json.dumps(decision).replace('"\\u0000"', f'"{comment_json}"')
        return Reply(text=text)

    return respond


def toml_list(items: list[str]) -> str:
    return json.dumps(items)  # a JSON list of strings is a TOML array


def model_seat(base_url: str) -> str:
    """A ``[[seats]]`` entry: an OpenAI seat of the fake provider, keyed by TEST_OPENAI_KEY."""
    return f"""
[[seats]]
name = "GPT"
type = "openai"
options = {{ model = "fake-gpt", provider = "vllm", base_url = "{base_url}", \
api_key_env = "TEST_OPENAI_KEY", structured = "none" }}
"""


async def play_recorded(
    tmp_path: Path, config: str, env: dict[str, str], log_level: str
) -> tuple[str, str, str]:
    """``arena play`` of ``config`` (its seats; the deadline is 20 s) in its own process,
    two rounds, plain lines, recorded: its stdout, its stderr and the replay."""
    path = tmp_path / "arena.toml"
    path.write_text(f"[table]\ndecision_timeout_s = 20.0\n{config}")
    replay = tmp_path / "match.jsonl"
    code, out, err = await arena_output(
        *("play", "--config", str(path), "--rounds", "2", "--seed", "5", "--no-live"),
        *("--record", str(replay), "--log-level", log_level),
        env={**env, "PYTHONPATH": str(REPO), "NO_PROXY": "127.0.0.1,localhost"},
    )
    assert code == 0, err[-3000:]
    return out, err, replay.read_text()


async def test_a_secret_written_with_json_escapes_is_nowhere(
    tmp_path: Path, serve: StartServer
) -> None:
    """A program's reply and a model's answer write a secret with JSON escapes (its first
    letter as \\u0068, mixed-case hex): the raw text held no written form of it, and the
    parsed comment held the secret, which the board's plain lines printed."""
    bot = serve("--mode", "good", env={**os.environ, "EXPECTED_TOKEN": AGENT_TOKEN})
    said = tmp_path / "said.txt"  # not in its command line, which the log shows
    said.write_text(r"\u0068ttptok-SECRET-abcdef123456")
    program = [sys.executable, str(BOT_PROGRAM), "--say-json-file", str(said)]
    env = {**os.environ, "TEST_OPENAI_KEY": MODEL_KEY, "TEST_AGENT_TOKEN": AGENT_TOKEN}
    with FakeOpenAI(
        api_key=MODEL_KEY, respond=escaping_model(r"\u0073k-test\u002DSECRET1234567890")
    ) as provider:
        seats = f"""{model_seat(provider.base_url)}
[[seats]]
name = "Esc"
type = "subprocess"
options = {{ command = {toml_list(program)} }}

[[seats]]
name = "Bot"
type = "http"
options = {{ url = "{bot.url}", token_env = "TEST_AGENT_TOKEN" }}
"""
        out, err, recorded = await play_recorded(tmp_path, seats, env, "debug")
    shown_code, shown, shown_err = await arena_output(
        "replay", str(tmp_path / "match.jsonl"), "--decisions", "--full", env=env
    )
    assert shown_code == 0, shown_err
    for where, text in (
        ("stdout (the board's lines)", out),
        ("the logs", err),
        ("the replay", recorded),
        ("arena replay --decisions --full", shown + shown_err),
        ("what the HTTP bot was sent", bot.log.read_text()),
    ):
        for piece in ("SECRET1234567890", "SECRET-abcdef123456", "u0068ttptok", "u0073k-test"):
            assert piece not in text, f"{piece!r} is in {where}"
    for seat in ("GPT", "Esc"):  # both spoke on the board's lines, masked
        assert re.search(rf"\] {seat} .*「\*\*\*」", out), out[:2000]
    lines = [json.loads(line) for line in recorded.splitlines()]
    raw = [d["report"]["raw_text"] for d in lines if d["kind"] == "decision" and d["seat"] == 0]
    assert raw
    assert all('"comment": "***"' in text for text in raw)


async def test_a_program_gets_no_secret_and_the_server_token_is_masked_unserved(
    tmp_path: Path,
) -> None:
    """``arena play`` without ``--serve``: a program printing the server's token (on
    stderr as it crashes, in its comments) shows it nowhere, and no program finds a
    model seat's key, the token or the MQTT password in its environment."""
    with FakeOpenAI(api_key=OPENAI_KEY, respond=legal_model) as provider:
        crash = [sys.executable, str(BOT_PROGRAM), "--mode", "crash", "--say", SERVER_TOKEN]
        crash += ["--once", str(tmp_path / "crashed"), "--env-file", str(tmp_path / "crash.json")]
        calm = [sys.executable, str(BOT_PROGRAM), "--env-file", str(tmp_path / "calm.json")]
        seats = f"""
[mqtt]
username_env = "TEST_MQTT_USER"
password_env = "TEST_MQTT_PASSWORD"
{model_seat(provider.base_url)}
[[seats]]
name = "Crash"
type = "subprocess"
options = {{ command = {toml_list(crash)} }}

[[seats]]
name = "Calm"
type = "subprocess"
options = {{ command = {toml_list(calm)}, env = {{ BOT_LEVEL = "3" }} }}
"""
        env = {
            **os.environ,
            "TEST_OPENAI_KEY": OPENAI_KEY,
            "ARENA_SERVER_TOKEN": SERVER_TOKEN,
            "TEST_MQTT_USER": "studio",
            "TEST_MQTT_PASSWORD": MQTT_PASSWORD,
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,  # a preset's, used by no seat here
            "TEST_PLAIN": "kept-for-programs",
        }
        out, err, recorded = await play_recorded(tmp_path, seats, env, "info")
    for where, text in (("stdout", out), ("the logs", err), ("the replay", recorded)):
        assert_no_secret(where, text)
    assert "crashing on purpose: ***" in err  # its stderr, logged
    rejected = [
        line["message"]["detail"]
        for line in map(json.loads, recorded.splitlines())
        if line["kind"] == "message" and line["message"]["type"] == "REPLY_REJECTED"
    ]
    assert any("crashing on purpose: ***" in detail for detail in rejected)
    assert re.search(r"\] Crash .*「\*\*\*」", out), out[:2000]
    for name in ("crash.json", "calm.json"):
        environ = json.loads((tmp_path / name).read_text())["environ"]
        assert environ["TEST_PLAIN"] == "kept-for-programs"
        for variable in (
            "TEST_OPENAI_KEY",
            "ARENA_SERVER_TOKEN",
            "TEST_MQTT_USER",
            "TEST_MQTT_PASSWORD",
            "ANTHROPIC_API_KEY",
        ):
            assert variable not in environ, f"{variable} is in {name}"
        assert_no_secret(f"the environment of {name}", json.dumps(environ))
    assert json.loads((tmp_path / "calm.json").read_text())["environ"]["BOT_LEVEL"] == "3"


async def test_a_workers_programs_get_no_variable_the_main_process_knows_a_secret_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model seat's key too short to mask is still a secret: its variable is withheld
    from every program, those a tournament's workers start included (the worker never
    builds the model seat, whose tables play in the main process)."""
    monkeypatch.setattr(workers_module, "PLAY_HERE_WHILE_STARTING", False)
    monkeypatch.setenv("TEST_SHORT_KEY", "short1k")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    monkeypatch.setenv("TEST_PLAIN", "kept-for-programs")
    envs = tmp_path / "envs"
    envs.mkdir()
    program = [sys.executable, str(BOT_PROGRAM), "--env-file", str(envs / "{pid}.json")]
    with FakeOpenAI(api_key="short1k", respond=legal_model) as provider:
        config = cup_with_a_model(
            provider.base_url,
            "TEST_SHORT_KEY",
            {"name": "Prog", "type": "subprocess", "options": {"command": program}},
            {"name": "A", "type": "heuristic"},
            {"name": "B", "type": "greedy"},
        )
        with TournamentStore(tmp_path / "cup.db") as store:
            run = await run_tournament(store, config, workers=2)
            assert run.finished
            players = [m.players for m in store.table_matches(run.tournament_id)]
    assert any("GPT" not in seated for seated in players)  # a table for the workers
    parents = set()
    environments = []
    for found in envs.glob("*.json"):
        started = json.loads(found.read_text())
        environments.append(started["environ"])
        parents.add(started["parent"])
    assert len(parents) >= 2  # programs of the main process and of a worker
    for environ in environments:
        assert environ["TEST_PLAIN"] == "kept-for-programs"
        assert "TEST_SHORT_KEY" not in environ
        assert "short1k" not in environ.values()
