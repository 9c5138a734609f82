"""The example agents of ``examples/``: real programs, real pipes and sockets, real matches.

Specification (issue 8, "For agent developers"): a Python and a Node.js agent, each
runnable over stdin/stdout or as a small HTTP server, each playing legal moves without
the arena's code. Here each one plays whole matches at two tables at once as a
``subprocess`` seat and as an ``http`` seat with no fault of any kind, the replay
verifies, the configs shipped beside them run as the docs say, and each passes
``arena agent check``. The Node.js example needs ``node`` on the PATH: CI installs it,
and a machine without it fails here, loudly, rather than skipping.

``config/llm-match.toml`` (issue 9: three providers side by side) loads and builds its
three model seats with the keys in the environment, and a missing key stops
``arena play`` before the first deal, naming the variable and never a key.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.config import load_config, parse_config
from arena.errors import ConfigError
from arena.games.ddz.engine import DEFAULT_RULES
from arena.games.ddz.views import deal_seeds, table_rules
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.runner import build_tables, run_arena
from arena.table import FAULT_CATEGORIES

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
SCRIPTS = {"python": EXAMPLES / "python" / "agent.py", "node": EXAMPLES / "node" / "agent.js"}
SEAT_NAMES = {"python": "MyPython", "node": "MyNode"}
"""The example's seat in the config shipped beside it."""

NO_FAULTS = dict.fromkeys(FAULT_CATEGORIES, 0)
SEED = 2024
ROUNDS = 3
TABLES = 2


def node_program() -> str:
    """The ``node`` on the PATH; without one the test fails and says what to install."""
    node = shutil.which("node")
    if node is None:
        pytest.fail(
            "node is not on the PATH: the Node.js example agent (examples/node/agent.js) is "
            "tested by running it; install Node.js 18 or newer"
        )
    return node


def example_command(language: str) -> list[str]:
    """How to start the example, with absolute paths: any working folder will do."""
    program = sys.executable if language == "python" else node_program()
    return [program, str(SCRIPTS[language])]


@pytest.fixture(params=["python", "node"])
def language(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextlib.contextmanager
def example_server(
    language: str, tmp_path: Path, environ: dict[str, str] | None = None
) -> Iterator[int]:
    """The example running as an HTTP server on a free loopback port: its port.

    Waits until the server accepts connections, and stops it at the end.
    """
    port = free_port()
    log = tmp_path / f"{language}-server.log"
    with log.open("wb") as stderr:
        server = subprocess.Popen(
            [*example_command(language), "--http", str(port)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            env=environ,
        )
    try:
        wait_until_listening(server, port, log)
        yield port
    finally:
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def served(language: str, tmp_path: Path) -> Iterator[str]:
    """The example's URL, served over HTTP for the test."""
    with example_server(language, tmp_path) as port:
        yield f"http://127.0.0.1:{port}/"


def test_an_example_refuses_a_wrong_token_on_a_kept_open_connection(
    language: str, tmp_path: Path
) -> None:
    """With AGENT_TOKEN set, a POST without it is refused 401, and the connection stays
    usable: the body is read even when refused (else the next request would be read
    from the leftover body, 400 and 501 on a kept-open connection)."""
    with example_server(language, tmp_path, {**os.environ, "AGENT_TOKEN": "sekrit"}) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        body = json.dumps({"type": "DEAL", "player_id": "Example", "hand": ["♠3"] * 5})
        statuses = []
        for token in ("wrong", "wrong", "sekrit", "wrong"):
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
            connection.request("POST", "/", body=body.encode(), headers=headers)
            response = connection.getresponse()
            response.read()
            statuses.append(response.status)
        connection.close()
        assert statuses[:2] == [401, 401]
        assert statuses[2] != 401  # the right token is let in on the same connection
        assert statuses[3] == 401


def wait_until_listening(server: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + 20  # a cold Node.js start on a loaded machine is slow
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the example's server exited ({server.returncode}): {log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"the example's server did not listen on port {port}: {log.read_text()}")


def arena_config(seat_type: str, options: dict[str, Any]) -> dict[str, Any]:
    """The example in seat 0 against two built-in bots, two tables at once."""
    return {
        "match": {"rounds": ROUNDS, "tables": TABLES, "seed": SEED},
        # generous: a good answer takes milliseconds, but the machine may be loaded
        "table": {"decision_timeout_s": 10.0, "pace_s": 0.0},
        "seats": [
            {"name": "Example", "type": seat_type, "options": options},
            {"name": "Beta", "type": "heuristic"},
            {"name": "Gamma", "type": "greedy"},
        ],
    }


async def play_and_verify(config_data: dict[str, Any], replay: Path) -> None:
    """Play the configured match: no fault for the example, every round re-checks."""
    config = parse_config(config_data)
    writer = ReplayWriter(replay)
    try:
        summaries = await run_arena(config, seed=SEED, replay=writer)
    finally:
        writer.close()
    assert [s.table for s in summaries] == [f"t{i + 1}" for i in range(TABLES)]
    for summary in summaries:
        assert summary.faults["Example"] == NO_FAULTS, summary.table
        assert len(summary.rounds) == ROUNDS
        assert sum(summary.totals.values()) == 0
    rounds = load_replay(replay).rounds
    assert len(rounds) == ROUNDS * TABLES
    for recorded in rounds:
        verify_round(recorded)


async def test_an_example_plays_clean_matches_as_a_subprocess_seat(
    language: str, tmp_path: Path
) -> None:
    options = {"command": example_command(language)}
    await play_and_verify(arena_config("subprocess", options), tmp_path / "r.jsonl")


async def test_an_example_plays_clean_matches_as_an_http_seat(served: str, tmp_path: Path) -> None:
    # both tables post to the one server at once
    await play_and_verify(arena_config("http", {"url": served}), tmp_path / "r.jsonl")


def test_the_config_beside_an_example_plays_as_the_docs_say(
    language: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # `arena play --config examples/<language>/arena.toml --no-live`, from the repository's root
    if language == "node":
        node_program()
    monkeypatch.chdir(REPO)
    record = tmp_path / "r.jsonl"
    config = f"examples/{language}/arena.toml"
    assert main(["play", "--config", config, "--no-live", "--record", str(record)]) == 0
    rounds = load_replay(record).rounds
    assert rounds
    for recorded in rounds:
        verify_round(recorded)
    lines = capsys.readouterr().out.splitlines()
    seat = SEAT_NAMES[language]
    assert any(seat in line for line in lines)
    # a fault is a "✗ seat: ..." line, and the match ends with "seat: N faults (...)"
    assert [line for line in lines if seat in line and ("✗" in line or "fault" in line)] == []


def test_an_example_passes_arena_agent_check_as_a_subprocess_seat(
    language: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    if language == "node":
        node_program()
    monkeypatch.chdir(REPO)
    config = f"examples/{language}/arena.toml"
    code = main(["agent", "check", config, "--seat", SEAT_NAMES[language], "--json"])
    report = json.loads(capsys.readouterr().out)
    assert_passed(report, code, SEAT_NAMES[language])


def test_an_example_passes_arena_agent_check_as_an_http_seat(
    served: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "arena.toml"
    config.write_text(
        "[[seats]]\n"
        'name = "Served"\n'
        'type = "http"\n'
        f'options.url = "{served}"\n'
        "timeout_s = 10.0\n"
        '[[seats]]\nname = "Beta"\n'
        '[[seats]]\nname = "Gamma"\n',
        encoding="utf-8",
    )
    code = main(["agent", "check", str(config), "--seat", "Served", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert_passed(report, code, "Served")


def talk(language: str, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The example's replies to these messages, sent on its stdin one a line."""
    text = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages)
    done = subprocess.run(
        example_command(language), input=text.encode(), capture_output=True, timeout=30
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return [json.loads(line) for line in done.stdout.decode().splitlines()]


def deal(seed: int, **rules: Any) -> dict[str, Any]:
    """A DEAL to seat Me of match m, with these rules and seed (the hand does not matter)."""
    return {
        "type": "DEAL",
        "player_id": "Me",
        "hand": [],
        "hand_count": 0,
        "seat_order": ["Me", "B", "C"],
        "match_id": "m",
        "table_id": "t1",
        "round_no": 1,
        "rules": {**DEFAULT_TABLE_RULES, **rules},
        "seed": seed,
    }


DEFAULT_TABLE_RULES = table_rules(DEFAULT_RULES).model_dump()
# Just short of strong (two jokers and a 2: 5 points): the examples bid on a coin toss.
BORDERLINE = ["小王", "大王", "♠2", "♠3", "♥4", "♦6", "♣8", "♠9", "♥J", "♦K"]
# Strong enough to double alone (8 points: two jokers, a 2, a bomb of 5s), not more.
DOUBLING = ["小王", "大王", "♠2", "♠5", "♥5", "♦5", "♣5", "♠7", "♥9", "♦J", "♣K", "♠A"]


def test_an_example_draws_its_random_choices_from_the_seed_of_each_deal(language: str) -> None:
    bid = {
        "type": "BID_REQUEST",
        "player_id": "Me",
        "match_id": "m",
        "table_id": "t1",
        "available_bids": [3, 2, 1, 0],
        "hand": BORDERLINE,
    }
    seeds = list(deal_seeds(2024, 1)) * 2 + list(range(10**9, 10**9 + 24))
    talked = [m for seed in seeds for m in (deal(seed), {**bid, "request_id": f"r{seed}"})]

    bids = [reply["bid"] for reply in talk(language, talked)]
    assert len(bids) == len(seeds)
    assert set(bids) == {0, 1}  # a coin toss, not a fixed answer
    assert bids[:3] == bids[3:6]  # the same seed, the same choice, whatever came before
    assert talk(language, talked) == talk(language, talked)  # and from one run to the next


def test_an_example_reads_the_rules_each_deal_tells(language: str) -> None:
    asked = {
        "type": "DOUBLE_REQUEST",
        "player_id": "Me",
        "match_id": "m",
        "table_id": "t1",
        "kind": "double",
        "landlord": "B",
        "call_score": 1,
        "bottom_cards": ["♠3", "♠4", "♠6"],
        "hand": DOUBLING,
        "request_id": "r1",
    }
    alone = talk(language, [deal(1, per_defender_doubling=True), asked])
    both = talk(language, [deal(1, per_defender_doubling=False), asked])

    # a double that counts for both farmers asks for a stronger hand
    assert [reply["double"] for reply in alone + both] == [True, False]


def assert_passed(report: dict[str, Any], code: int, seat: str) -> None:
    """Every position legal and on time, and the command says so by its exit status."""
    [checked] = report["seats"]
    assert checked["agent"] == seat
    verdicts = {r["position"]: (r["verdict"], r["detail"]) for r in checked["results"]}
    assert all(verdict == "legal" for verdict, _ in verdicts.values()), verdicts
    assert len(verdicts) >= 12
    assert report["passed"] is True
    assert code == 0


LLM_MATCH = REPO / "config" / "llm-match.toml"
LLM_KEYS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DEEPSEEK_API_KEY")


def set_keys(monkeypatch: pytest.MonkeyPatch, *, missing: str | None = None) -> None:
    """A made-up key in each variable the model-match config reads, but ``missing``."""
    for index, variable in enumerate(LLM_KEYS):
        if variable == missing:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, f"sk-test-{index}-do-not-show")


def test_the_model_match_config_seats_three_providers(monkeypatch: pytest.MonkeyPatch) -> None:
    set_keys(monkeypatch)
    config = load_config(LLM_MATCH)
    assert [seat.type for seat in config.seats] == ["openai", "anthropic", "openai"]
    assert config.table.standin_for == "match"
    assert config.moderation.enabled
    [table] = build_tables(config, seed=1)  # builds the agents: options checked, keys read
    agents: list[Any] = [seat.agent for seat in table.seats]
    assert [(agent.provider.name, agent.model) for agent in agents] == [
        ("openai", "gpt-4o-mini"),
        ("anthropic", "claude-sonnet-4-5"),
        ("deepseek", "deepseek-chat"),
    ]
    # each seat's deadline: DeepSeek's written out, the others their preset's
    assert [seat.timeout_s for seat in table.seats] == [60.0, 60.0, 90.0]


@pytest.mark.parametrize("missing", LLM_KEYS)
def test_the_model_match_config_names_a_missing_key(
    missing: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    set_keys(monkeypatch, missing=missing)
    load_config(LLM_MATCH)  # the file itself is fine: keys are read when seats are built
    with pytest.raises(ConfigError, match=missing):
        build_tables(load_config(LLM_MATCH), seed=1)
    # and as a user meets it: `arena play` stops before the first deal, exit status 2
    monkeypatch.chdir(REPO)
    assert main(["play", "--config", "config/llm-match.toml", "--no-live"]) == 2
    captured = capsys.readouterr()
    assert missing in captured.err
    assert "do-not-show" not in captured.err + captured.out
    assert "ROUND" not in captured.out.upper()
