"""An API key never leaves the environment: not in the output, the logs or the replay.

The whole path, as a streamer runs it: ``arena play`` in its own process, with debug
logs as JSON, a replay, and model seats talking to a loopback provider through the real
SDKs. One seat's key is refused, and the provider's error message quotes that key back
(as OpenAI's 401 does, in part), so the refusal's report, log line and event are where a
leak would show.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from fake_providers import FakeAnthropic, FakeOpenAI, Fault, RecordedRequest, legal_model

GOOD_KEY = "sk-good-5f2c9a7e41d8b3c6a0e9f7d2"
BAD_KEY = "sk-refused-8e1b4d7a2c9f6e3b0a5d"
ANTHROPIC_KEY = "sk-ant-api03-b7e2c9d4a1f8e5c3b6a9"


def _config(openai_url: str, anthropic_url: str) -> str:
    return f"""
[table]
decision_timeout_s = 10.0
standin_for = "match"

[[seats]]
name = "Good"
type = "openai"
[seats.options]
model = "fake-good"
provider = "vllm"
base_url = "{openai_url}"
api_key_env = "TEST_GOOD_KEY"
structured = "none"
prices = {{ input = 1.0, output = 2.0 }}

[[seats]]
name = "Refused"
type = "openai"
[seats.options]
model = "fake-refused"
provider = "vllm"
base_url = "{openai_url}"
api_key_env = "TEST_BAD_KEY"

[[seats]]
name = "Claude"
type = "anthropic"
options = {{ model = "claude-fake", base_url = "{anthropic_url}" }}
"""


def _refuse_quoting_the_key(request: RecordedRequest) -> Fault | object:
    if request.headers.get("authorization") == f"Bearer {BAD_KEY}":
        return Fault(401, message=f"Incorrect API key provided: {BAD_KEY}.", code="invalid_api_key")
    return legal_model(request)


def test_no_key_in_output_logs_or_replay(tmp_path: Path) -> None:
    with (
        FakeOpenAI(api_key=None, respond=_refuse_quoting_the_key) as openai_server,  # type: ignore[arg-type]
        FakeAnthropic(api_key=ANTHROPIC_KEY, respond=legal_model) as anthropic_server,
    ):
        config = tmp_path / "models.toml"
        config.write_text(_config(openai_server.base_url, anthropic_server.base_url))
        replay = tmp_path / "match.jsonl"
        env = {
            **os.environ,
            "TEST_GOOD_KEY": GOOD_KEY,
            "TEST_BAD_KEY": BAD_KEY,
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "NO_PROXY": "127.0.0.1,localhost",
        }
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from arena.cli import main; raise SystemExit(main())",
                "play",
                "--config",
                str(config),
                "--rounds",
                "2",
                "--seed",
                "7",
                "--no-live",
                "--record",
                str(replay),
                "--log-format",
                "json",
                "--log-level",
                "debug",
            ],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        sent_keys = {r.headers.get("authorization") for r in openai_server.requests}

    assert done.returncode == 0, done.stderr[-2000:]
    # The keys did reach the providers: the test exercised them.
    assert f"Bearer {GOOD_KEY}" in sent_keys
    assert f"Bearer {BAD_KEY}" in sent_keys
    recorded = replay.read_text()
    lines = [json.loads(line) for line in recorded.splitlines()]
    decisions = [line for line in lines if line["kind"] == "decision"]
    assert {d["seat"] for d in decisions} == {0, 1, 2}
    refused = [d for d in decisions if d["seat"] == 1]
    assert refused[0]["outcome"] == "agent_error"
    assert "HTTP 401" in refused[0]["report"]["error"]
    benched = [
        line["event"]
        for line in lines
        if line["kind"] == "event" and line["event"]["type"] == "seat_replaced"
    ]
    assert [(e["seat"], e["data"]["until"]) for e in benched] == [(1, "match_end")]
    assert "seat_replaced" in done.stdout or "stand-in" in done.stdout
    assert "agent_unavailable" in done.stderr

    for key in (GOOD_KEY, BAD_KEY, ANTHROPIC_KEY):
        for where, text in (
            ("stdout", done.stdout),
            ("stderr", done.stderr),
            ("replay", recorded),
        ):
            assert key not in text, f"{key[:6]}… leaked into {where}"
            assert key[-12:] not in text, f"the tail of {key[:6]}… leaked into {where}"
