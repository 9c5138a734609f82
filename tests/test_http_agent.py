"""HTTP seats against real servers on loopback sockets.

Specification (issue 8, seat types): ``type = "http"`` POSTs every message the seat may
see as JSON to ``options.url``; a request's reply is read from the response body (a
notification's body is ignored), under the table's deadline, with a size cap, one
connection pool per agent, TLS verification on, and a bearer token taken from the
environment variable ``options.token_env`` that appears nowhere but in the header.
Whatever the server does, the match finishes, the replay verifies, and the faults are
counted by kind. The servers are ``tests/programs/http_bot.py`` run as processes.
"""

from __future__ import annotations

import json
import logging
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import engine_moves_of, listed_moves_of

from arena.agents.http import HttpAgent
from arena.agents.registry import create_agent
from arena.cli import main
from arena.config import parse_config
from arena.errors import AgentStartError, ConfigError
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.logs import EVENT_ATTRIBUTE
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.runner import run_arena
from arena.table import MatchSummary, Table, TableSettings, play_match

PROGRAM = Path(__file__).resolve().parent / "programs" / "http_bot.py"
NO_FAULTS = {
    "timeout": 0,
    "empty": 0,
    "unparsable": 0,
    "truncated": 0,
    "illegal": 0,
    "agent_error": 0,
    "fallback": 0,
}


@dataclass
class Server:
    """A bot server process: its URL, and the messages it has received so far."""

    url: str
    log: Path

    def messages(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text("utf-8").splitlines()]


StartServer = Callable[..., Server]


@pytest.fixture(name="serve")
def serve_fixture(tmp_path: Path) -> Iterator[StartServer]:
    """Start ``http_bot.py`` with the given switches; every server is killed afterwards."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Server:
        log = tmp_path / f"server{len(started)}.jsonl"
        process = subprocess.Popen(
            [sys.executable, str(PROGRAM), "--log", str(log), *args],
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        started.append(process)
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first.strip().isdigit(), f"the server did not start (exit {process.poll()})"
        port = int(first)
        _wait_until_accepting(port)
        return Server(url=f"http://127.0.0.1:{port}/ddz", log=log)

    yield start
    for process in started:
        process.kill()
        process.wait()
        assert process.stdout is not None
        process.stdout.close()


def _wait_until_accepting(port: int) -> None:
    deadline = time.monotonic() + 20
    while True:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@dataclass
class Played:
    summary: MatchSummary
    replay: Path

    def faults(self, name: str = "Alpha") -> dict[str, int]:
        return self.summary.faults[name]


async def play_with(
    tmp_path: Path,
    agent: HttpAgent,
    *,
    rounds: int = 1,
    seed: int = 11,
    timeout_s: float = 3.0,
    settings: TableSettings | None = None,
    match_id: str | None = None,
    table_id: str = "t1",
) -> Played:
    """A match of the HTTP seat (seat 0) against two scripted bots, recorded; the
    replay must hold every round, each of which verifies."""
    path = tmp_path / "replay.jsonl"
    writer = ReplayWriter(path)
    agents = [agent, HeuristicAgent("Beta", seed=1), HeuristicAgent("Gamma", seed=2)]
    table = Table(
        agents,
        table_id=table_id,
        recorder=writer.for_table(table_id),
        timeouts=[timeout_s, None, None],
        settings=settings,
    )
    try:
        await table.open()
        summary = await play_match(table, rounds=rounds, seed=seed, match_id=match_id)
    finally:
        await table.close()
        writer.close()
    recorded = load_replay(path).rounds
    assert len(recorded) == rounds
    for one in recorded:
        verify_round(one)
    return Played(summary, path)


def _events(caplog: pytest.LogCaptureFixture, name: str) -> list[dict[str, Any]]:
    return [
        getattr(r, EVENT_ATTRIBUTE)
        for r in caplog.records
        if getattr(r, EVENT_ATTRIBUTE, {}).get("event") == name
    ]


# --- a good server ----------------------------------------------------------------------


async def test_a_good_server_plays_a_match_without_a_fault(
    serve: StartServer, tmp_path: Path
) -> None:
    server = serve("--mode", "good")
    played = await play_with(tmp_path, HttpAgent("Alpha", url=server.url), rounds=2)

    assert played.faults() == NO_FAULTS
    requests = [m for m in server.messages() if m["type"].endswith("_REQUEST")]
    assert requests
    assert all(m["request_id"].startswith("t1-") for m in requests)


async def test_every_message_the_seat_may_see_arrives_and_notification_bodies_are_ignored(
    serve: StartServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # Notifications are answered with 200 and a body that is not JSON; the first play
    # is illegal on purpose, so that a REPLY_REJECTED is sent too.
    server = serve("--mode", "good", "--notify-body", "--illegal-first-play")
    agent = HttpAgent("Alpha", url=server.url)
    played = await play_with(tmp_path, agent, rounds=2, match_id="m-http", table_id="t7")

    assert played.faults() == {**NO_FAULTS, "illegal": 1}
    messages = server.messages()
    kinds = {m["type"] for m in messages}
    assert {"DEAL", "BID_REQUEST", "BOTTOM_CARDS", "PLAY_REQUEST", "REPLY_REJECTED"} <= kinds
    assert {"ROUND_RESULT", "MATCH_END"} <= kinds
    assert [m["round_no"] for m in messages if m["type"] == "DEAL"] == [1, 2]
    assert messages[-1]["type"] == "MATCH_END"
    assert all(m["match_id"] == "m-http" and m["table_id"] == "t7" for m in messages)
    [rejected] = [m for m in messages if m["type"] == "REPLY_REJECTED"]
    assert rejected["reason"] == "illegal"
    assert not _events(caplog, "agent_notify_failed")


@pytest.mark.parametrize("asked", [True, False])
async def test_a_seat_that_asks_gets_its_legal_moves_in_every_play_request(
    serve: StartServer, tmp_path: Path, asked: bool
) -> None:
    # Issue 25: options.legal_moves lists the engine's legal moves (canonical cards and
    # hand type, PASS aside) in every PLAY_REQUEST; a seat that did not ask gets null.
    record = tmp_path / "received.jsonl"
    server = serve("--mode", "good", "--record", str(record))
    options: dict[str, Any] = {"url": server.url}
    if asked:  # a seat that does not ask leaves the option out, as a config would
        options["legal_moves"] = True
    agent = create_agent("http", "Alpha", options=options)
    assert isinstance(agent, HttpAgent)
    played = await play_with(tmp_path, agent, rounds=2, seed=8)

    assert played.faults() == NO_FAULTS
    received = [json.loads(line) for line in record.read_text("utf-8").splitlines()]
    requests = [m for m in received if m["type"] == "PLAY_REQUEST"]
    assert len(requests) >= 4
    for message in requests:
        if not asked:
            assert message["legal_moves"] is None
            continue
        assert listed_moves_of(message) == engine_moves_of(message)


# --- servers that misbehave -------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "options", "timeout_s", "category"),
    [
        pytest.param("garbage", {}, 3.0, "unparsable", id="garbage"),
        pytest.param("hang", {}, 0.5, "timeout", id="never-answers"),
        pytest.param("huge", {}, 3.0, "truncated", id="10-MB-body"),
        pytest.param("good", {"max_response_bytes": 40}, 3.0, "truncated", id="over-own-cap"),
        pytest.param("status500", {}, 3.0, "agent_error", id="HTTP-500"),
        pytest.param("redirect", {}, 3.0, "agent_error", id="redirect-not-followed"),
        pytest.param("empty", {}, 3.0, "empty", id="no-body"),
    ],
)
async def test_a_misbehaving_server_is_counted_by_kind_and_replaced_by_a_stand_in(
    serve: StartServer,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    mode: str,
    options: dict[str, Any],
    timeout_s: float,
    category: str,
) -> None:
    # Two failed decisions (each asked twice) put the stand-in in the seat. The 10 MB
    # server never ends its body: a client reading to the end would time out instead.
    server = serve("--mode", mode)
    settings = TableSettings(max_retries=1, max_failed_decisions=2)
    agent = HttpAgent("Alpha", url=server.url, **options)
    played = await play_with(tmp_path, agent, timeout_s=timeout_s, settings=settings)

    assert played.faults() == {**NO_FAULTS, category: 4, "fallback": 2}
    assert [e["agent"] for e in _events(caplog, "seat_replaced")] == ["Alpha"]
    details = [m["detail"] for m in server.messages() if m["type"] == "REPLY_REJECTED"]
    assert len(details) == 4
    if mode == "status500":
        assert details[0] == (f"HTTP 500 from {server.url}: internal trouble: the bot fell over")
    if mode == "redirect":
        assert details[0] == (
            f"HTTP 307 from {server.url} (redirects are not followed): (empty body)"
        )
    if category == "truncated":
        cap = options.get("max_response_bytes", 1 << 20)
        assert details[0] == f"the response body is over {cap} bytes"


async def test_a_server_that_dies_mid_round_is_an_agent_error_then_a_stand_in(
    serve: StartServer, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = serve("--mode", "crash", "--crash-after", "3")
    played = await play_with(tmp_path, HttpAgent("Alpha", url=server.url), rounds=2)

    faults = played.faults()
    # the dying request, then every connection refused: three failed decisions a round
    assert faults == {**NO_FAULTS, "agent_error": 18, "fallback": 6}
    assert [e["agent"] for e in _events(caplog, "seat_replaced")] == ["Alpha", "Alpha"]
    rejected = [
        e["detail"] for e in _events(caplog, "agent_reply_rejected") if e["agent"] == "Alpha"
    ]
    # it died while answering: reached, the exchange broke off; then nobody listens. A
    # pooled connection may still look open for the very next request (the process is
    # still being reaped), so that one may break off too; after it, nobody is reached.
    broke_off, unreached = (
        f"the exchange with {server.url} failed: ",
        f"cannot reach {server.url}: ",
    )
    assert rejected[0].startswith(broke_off)
    assert rejected[1].startswith((broke_off, unreached))
    assert all(d.startswith(unreached) for d in rejected[2:])
    assert any("ConnectError" in d for d in rejected)
    failed = _events(caplog, "agent_notify_failed")  # the next round's DEAL, and so on
    assert failed
    # said as the arena says it, not as Python's repr of the exception; a notification
    # racing the death on a pooled connection may break off, as a request may
    assert all(e["error"].startswith((broke_off, unreached)) for e in failed)
    assert failed[-1]["error"].startswith(unreached)


async def test_a_late_answer_is_never_taken_for_the_next_request(
    serve: StartServer, tmp_path: Path
) -> None:
    # The first request is answered after 3 s (a legal reply marked "late", with no
    # request_id, so nothing but the transport could tell it from a good answer); the
    # deadline is 1.5 s. Every later request is answered at once.
    server = serve("--mode", "late", "--late-s", "3.0")
    played = await play_with(tmp_path, HttpAgent("Alpha", url=server.url), timeout_s=1.5)

    assert played.faults() == {**NO_FAULTS, "timeout": 1}
    assert b'"late"' not in played.replay.read_bytes()
    requests = [m for m in server.messages() if m["type"].endswith("_REQUEST")]
    assert requests[0]["request_id"] == requests[1]["request_id"]  # the retry


# --- TLS ------------------------------------------------------------------------------


async def test_a_certificate_nobody_trusts_is_refused_and_a_trusted_one_is_used(
    serve: StartServer,
    tmp_path: Path,
    certificate: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # TLS verification is always on: a self-signed certificate fails every message...
    cert, key = certificate
    server = serve("--mode", "good", "--tls", str(cert), str(key))
    url = server.url.replace("http://", "https://")
    settings = TableSettings(max_retries=0, max_failed_decisions=1)
    played = await play_with(tmp_path, HttpAgent("Alpha", url=url), settings=settings)
    assert played.faults() == {**NO_FAULTS, "agent_error": 1, "fallback": 1}
    [detail] = [
        e["detail"] for e in _events(caplog, "agent_reply_rejected") if e["agent"] == "Alpha"
    ]
    assert detail.startswith(f"cannot reach {url}: ConnectError: ")
    assert "CERTIFICATE_VERIFY_FAILED" in detail
    assert not server.messages()

    # ...and is used once trusted, the way httpx trusts a private CA: SSL_CERT_FILE.
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))
    played = await play_with(tmp_path, HttpAgent("Alpha", url=url))
    assert played.faults() == NO_FAULTS
    assert server.messages()


# --- the bearer token -------------------------------------------------------------------


async def test_the_token_reaches_the_server_and_nothing_else(
    serve: StartServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A config as a user writes it; the server refuses (401) a message without the token.
    token = "sk-test-7f3a9c0e1d2b"
    monkeypatch.setenv("DDZ_TEST_TOKEN", token)
    env = {"EXPECTED_TOKEN": token}
    good = serve("--mode", "good", env=env)
    failing = serve("--mode", "status500", env=env)
    caplog.set_level(logging.DEBUG)
    config = parse_config(
        {
            "match": {"rounds": 1},
            "table": {"max_retries": 1, "max_failed_decisions": 2},
            "seats": [
                {
                    "name": "Alpha",
                    "type": "http",
                    "timeout_s": 3.0,
                    "options": {"url": good.url, "token_env": "DDZ_TEST_TOKEN"},
                },
                {
                    "name": "Beta",
                    "type": "http",
                    "timeout_s": 3.0,
                    "options": {"url": failing.url, "token_env": "DDZ_TEST_TOKEN"},
                },
                {"name": "Gamma", "type": "heuristic"},
            ],
        }
    )
    writer = ReplayWriter(tmp_path / "replay.jsonl")
    try:
        [summary] = await run_arena(config, seed=5, replay=writer)
    finally:
        writer.close()

    assert summary.faults["Alpha"] == NO_FAULTS
    assert summary.faults["Beta"]["agent_error"] == 4
    received = good.messages() + failing.messages()
    assert received
    assert all(m["authorized"] for m in received)
    [recorded] = load_replay(tmp_path / "replay.jsonl").rounds
    verify_round(recorded)
    assert any(r.levelno == logging.DEBUG for r in caplog.records)  # httpx, httpcore too
    assert token not in caplog.text
    assert all(token not in repr(getattr(r, EVENT_ATTRIBUTE, "")) for r in caplog.records)
    assert token not in (tmp_path / "replay.jsonl").read_text("utf-8")
    assert token not in good.log.read_text("utf-8") + failing.log.read_text("utf-8")


def test_a_missing_or_empty_token_variable_names_the_variable_and_the_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DDZ_NO_SUCH_TOKEN", raising=False)
    monkeypatch.setenv("DDZ_EMPTY_TOKEN", "")
    options = {"url": "https://bots.example/ddz", "token_env": "DDZ_NO_SUCH_TOKEN"}
    with pytest.raises(ConfigError) as missing:
        create_agent("http", "Alpha", options=options, seat_key="seats.0")
    assert str(missing.value).startswith("seats.0.options (seat 'Alpha')")
    assert "'DDZ_NO_SUCH_TOKEN' is not set" in str(missing.value)

    options["token_env"] = "DDZ_EMPTY_TOKEN"
    with pytest.raises(ConfigError, match="'DDZ_EMPTY_TOKEN' is empty"):
        create_agent("http", "Alpha", options=options, seat_key="seats.0")


@pytest.mark.parametrize(
    "value",
    ["sk-secret-pasted-0123456789", "DDZ_TOKEN=sk-secret-pasted-0123456789", ["sk-secret"]],
)
def test_a_token_pasted_into_token_env_is_refused_without_being_shown(value: object) -> None:
    options = {"url": "https://bots.example/ddz", "token_env": value}
    with pytest.raises(ConfigError) as caught:
        create_agent("http", "Alpha", options=options, seat_key="seats.0")
    text = str(caught.value)
    assert text.count("options.token_env must") == 1
    assert "sk-secret" not in text


def test_the_token_is_not_in_the_agents_repr(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DDZ_TEST_TOKEN", "sk-secret-in-repr")
    agent = HttpAgent("Alpha", url="https://bots.example/ddz?key=k1", token_env="DDZ_TEST_TOKEN")
    assert repr(agent) == "HttpAgent(name='Alpha', url='https://bots.example/ddz')"


# --- options ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "options.url is required"),
        ({"url": "localhost:8765"}, "(did you mean 'http://localhost:8765'?)"),
        ({"url": "ftp://bots.example/"}, "options.url must start with http:// or https://"),
        ({"url": "http://"}, "and name a host"),
        ({"url": 8765}, "options.url must be a string"),
        ({"url": "http://bot:hunter2@h/"}, "options.url must not hold a user name or password"),
        ({"url": "http://h/", "max_response_bytes": 0}, "options.max_response_bytes must be"),
        ({"url": "http://h/", "max_response_bytes": True}, "options.max_response_bytes must"),
        ({"url": "http://h/", "headers": {"Authorization": "x"}}, "options.token_env"),
        ({"url": "http://h/", "headers": {"X-Team": "a\nb"}}, "options.headers.X-Team"),
        ({"url": "http://h/", "headers": ["X-Team"]}, "options.headers must be a table"),
    ],
)
def test_options_are_checked_when_the_seat_is_built(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent("http", "Alpha", options=options, seat_key="seats.1")
    text = str(caught.value)
    assert text.startswith("seats.1.options (seat 'Alpha'): http: ")
    assert message in text
    assert "hunter2" not in text


async def test_extra_headers_go_with_the_agents_own(serve: StartServer, tmp_path: Path) -> None:
    server = serve("--mode", "good")
    agent = HttpAgent("Alpha", url=server.url, headers={"X-Team": "blue"})
    played = await play_with(tmp_path, agent)

    assert played.faults() == NO_FAULTS
    messages = server.messages()
    assert messages
    for message in messages:
        assert message["X-Team"] == "blue"
        assert message["Content-Type"] == "application/json; charset=utf-8"
        assert message["User-Agent"].startswith("ddz-arena/")


# --- a server that is not there ---------------------------------------------------------


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def test_a_server_that_is_not_running_cannot_start(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    agent = HttpAgent("A", url=f"http://127.0.0.1:{_closed_port()}/play")
    with pytest.raises(AgentStartError) as raised:
        await agent.open()
    await agent.close()
    assert str(raised.value) == (
        f"cannot reach {agent.where}: Connection refused (is the agent's server running?)"
    )


async def test_behind_a_proxy_the_server_is_not_probed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Through a proxy the arena cannot tell a server from the proxy: the match finds out."""
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{_closed_port()}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    agent = HttpAgent("A", url="http://agents.example:8765/")
    await agent.open()
    await agent.close()


def test_arena_play_and_agent_check_stop_before_the_match_when_the_server_is_down(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    config = tmp_path / "arena.toml"
    config.write_text(
        '[[seats]]\nname = "A"\n'
        f'[[seats]]\nname = "B"\ntype = "http"\noptions.url = "http://127.0.0.1:{_closed_port()}/"\n'
        '[[seats]]\nname = "C"\n'
    )
    for argv in (
        ["play", "--config", str(config), "--no-live"],
        ["agent", "check", str(config), "--seat", "B"],
    ):
        capsys.readouterr()
        assert main(argv) == 2
        [line] = capsys.readouterr().err.splitlines()
        assert "seat 1 ('B') could not start: cannot reach http://127.0.0.1:" in line
