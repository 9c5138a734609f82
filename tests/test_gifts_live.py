"""Viewer gifts end to end (issue 11): a real ``arena play`` against a real Mosquitto.

Each test starts its own broker on free ports (tests/mosquitto.py), subscribes to
``ddz-arena/#`` before the match, runs ``arena play --mqtt`` in a process of its own
(paced, so the match lasts while gifts are sent), and sends gifts as a second client
would: :func:`gifts.send.send_gift`, the ``arena gift send`` command, or raw payloads.
What it checks is what a stream sees: the gift outcomes on ``<prefix>/tables/t1/gifts``,
the round results the gifts changed (or did not), a PEEK's cards on the delayed
spectator topic only, and the command line's summary, usage errors and replay.

The arena's gift listener subscribes a moment after the match starts and a gift sent
before then is lost (nothing is retained): :func:`send_until_heard` sends a gift again,
with the same event id, until its first outcome arrives; a second delivery is rejected
``duplicate``, which the tests allow for (and one test asserts on purpose).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import Subscriber, said, subscribed_as
from test_spectator_feed import hidden_cards_in

from arena.cli import main
from arena.config import MqttSettings
from gifts.events import GiftEffect, GiftEvent
from gifts.send import gift_for_test, send_gift

REPO = Path(__file__).resolve().parent.parent
ARENA = (sys.executable, "-m", "arena.cli")
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
GIFTS_IN = "ddz-arena/gifts/in"
GIFTS = "ddz-arena/tables/t1/gifts"
SPECTATOR = "ddz-arena/tables/t1/spectator"
SUMMARY = re.compile(
    r"^arena: gifts: (?P<applied>\d+) applied, (?P<rejected>\d+) rejected(?: \((?P<why>[^)]*)\))?"
    r", (?P<expired>\d+) expired$",
    re.MULTILINE,
)


class GiftWatcher(Subscriber):
    """A subscriber to ``ddz-arena/#`` that keeps what was sent to ``gifts/in`` raw (a
    malformed payload is no JSON) and reads the gift outcomes of table t1."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[bytes] = []

    def add(self, message: aiomqtt.Message) -> None:
        if str(message.topic) == GIFTS_IN:
            assert isinstance(message.payload, bytes)
            self.sent.append(message.payload)
            return
        super().add(message)

    def gifts(self) -> list[dict[str, Any]]:
        """The gift events of t1 as the gifts topic carried them, in order."""
        return [p for t, p, _ in self.messages if t == GIFTS]

    def outcomes(self, event_id: str | None) -> list[tuple[str, str | None]]:
        """(status, reason) of every gift event of one delivery, in order."""
        return [
            (e["data"]["status"], e["data"]["reason"])
            for e in self.gifts()
            if e["data"]["event_id"] == event_id
        ]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events("t1") if e["type"] == kind]

    def spectator(self) -> list[dict[str, Any]]:
        return [p for t, p, _ in self.messages if t == SPECTATOR]


async def send_until_heard(
    settings: MqttSettings, gift: GiftEvent, watcher: GiftWatcher, *, within_s: float = 20
) -> None:
    """Send ``gift`` until its first outcome is on the gifts topic: the arena's listener
    may not be subscribed yet (a resend has the same event id: at most a duplicate)."""
    async with asyncio.timeout(within_s):
        while True:
            await send_gift(settings, gift)
            try:
                await watcher.wait_for(
                    lambda _: bool(watcher.outcomes(gift.event_id)), within_s=0.5
                )
            except TimeoutError:
                continue
            return


@asynccontextmanager
async def playing(
    broker: Mosquitto, *options: str, environ: dict[str, str] | None = None
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``arena play --mqtt`` (seed 3, plain lines) in a process of its own, ``environ``
    added to its environment; killed if the block leaves it running (a failed test)."""
    process = await asyncio.create_subprocess_exec(
        *ARENA,
        *("play", "--mqtt", broker.url, "--no-live", "--seed", "3", *options),
        cwd=REPO,
        env={**ENV, **(environ or {})},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()


async def gift_send(*argv: str) -> tuple[int | None, bytes, bytes]:
    """``arena gift send ARGV`` in a process of its own: its exit status, stdout, stderr."""
    command = await asyncio.create_subprocess_exec(
        *ARENA,
        *("gift", "send", *argv),
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    async with asyncio.timeout(30):
        out, err = await command.communicate()
    return command.returncode, out, err


async def finished(process: asyncio.subprocess.Process, watcher: GiftWatcher) -> str:
    """The arena's stderr once it exited 0 and said offline."""
    async with asyncio.timeout(60):
        _, err = await process.communicate()
    text = err.decode()
    assert process.returncode == 0, text
    await watcher.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    return text


async def match_started(watcher: GiftWatcher) -> None:
    await watcher.wait_for(lambda _: bool(watcher.events("t1")), within_s=30)


def summary_of(err: str) -> dict[str, str | None]:
    found = SUMMARY.search(err)
    assert found is not None, err
    return found.groupdict()


def check_whole_match(watcher: GiftWatcher, rounds: int) -> None:
    """Every round was played and the match ended, no event missing."""
    events = watcher.events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert [e["round"] for e in watcher.of_type("round_result")] == list(range(1, rounds + 1))
    assert events[-1]["type"] == "match_ended"


# ---------------------------------------------------------------- the acceptance test


async def test_gifts_from_other_clients_change_the_running_match(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """A DOUBLE from a library client and one from ``arena gift send`` both apply to the
    running match (each doubles its round: the round result counts it), and each
    outcome is on the public gifts topic; the library's gift sent again is a duplicate."""
    config = tmp_path / "arena.toml"
    config.write_text("[gifts]\nenabled = true\n\n[gifts.cooldowns]\nDOUBLE = 0.0\n")
    settings = MqttSettings(port=mosquitto.port)
    lib = gift_for_test(GiftEffect.DOUBLE, viewer="小明", event_id="lib-1")
    async with (
        subscribed_as(mosquitto, GiftWatcher()) as watcher,
        playing(mosquitto, "--config", str(config), "--rounds", "2", "--pace", "0.05") as arena,
    ):
        await match_started(watcher)
        await send_until_heard(settings, lib, watcher)
        status, out, command_err = await gift_send(
            *("double", "--viewer", "小红", "--event-id", "cli-1"),
            *("--table", "t1", "--mqtt", mosquitto.url),
        )
        assert status == 0, command_err.decode()
        assert out.decode().startswith("sent DOUBLE (event cli-1, table t1, from 小红")
        await watcher.wait_for(lambda _: bool(watcher.outcomes("cli-1")), within_s=10)
        await send_gift(settings, lib)  # the same delivery once more
        await watcher.wait_for(
            lambda _: ("rejected", "duplicate") in watcher.outcomes("lib-1"), within_s=10
        )
        err = await finished(arena, watcher)
        late = await gift_send(  # the match is over: nothing takes it
            "double", "--event-id", "late-1", "--mqtt", mosquitto.url
        )

    assert "taking gifts (show mode) from MQTT topic ddz-arena/gifts/in" in err
    check_whole_match(watcher, rounds=2)
    assert late[:2] == (1, b"")
    assert f"the arena at {mosquitto.url} is offline" in late[2].decode()
    assert not [raw for raw in watcher.sent if b"late-1" in raw]  # never published
    assert watcher.outcomes("cli-1") == [("queued", None), ("applied", None)]
    lib_outcomes = watcher.outcomes("lib-1")
    assert lib_outcomes[0] == ("queued", None)
    assert lib_outcomes.count(("applied", None)) == 1
    duplicates = [o for o in lib_outcomes if o[0] == "rejected"]
    assert duplicates
    assert set(duplicates) == {("rejected", "duplicate")}
    assert lib_outcomes.count(("queued", None)) == 1  # a duplicate is never queued

    # each DOUBLE doubled the round it applied in
    results = {e["round"]: e["data"] for e in watcher.of_type("round_result")}
    applied = [e for e in watcher.gifts() if e["data"]["status"] == "applied"]
    assert sorted(e["data"]["event_id"] for e in applied) == ["cli-1", "lib-1"]
    for event in applied:
        result = results[event["round"]]
        assert result["result"]["gift_doubles"] >= 1, result
        assert "DOUBLE" in result["gifts"], result
    assert sum(r["result"]["gift_doubles"] for r in results.values()) == 2
    assert sum(r["gifts"].count("DOUBLE") for r in results.values()) == 2
    doubles = [e for e in watcher.of_type("effect_applied") if e["data"]["effect"] == "double"]
    assert len(doubles) == 2

    # the gifts topic carries exactly the gift events of the events topic, in order
    assert watcher.gifts() == watcher.of_type("gift")
    assert {e["data"]["viewer"] for e in applied} == {"小明", "小红"}
    found = summary_of(err)
    assert (found["applied"], found["expired"]) == ("2", "0")
    assert found["rejected"] == str(len(duplicates))
    assert found["why"] == f"{len(duplicates)} duplicate"


# ---------------------------------------------------------------- malformed payloads


MALFORMED = (
    b"not json at all",
    b"[1, 2]",
    orjson.dumps({"event_id": "bad-1", "platform": "test", "effect": "DOUBLE", "count": "3"}),
)


async def test_a_malformed_payload_is_told_rejected_and_the_match_goes_on(
    mosquitto: Mosquitto,
) -> None:
    settings = MqttSettings(port=mosquitto.port)
    async with (
        subscribed_as(mosquitto, GiftWatcher()) as watcher,
        playing(mosquitto, "--gifts", "--rounds", "2", "--pace", "0.03") as arena,
    ):
        await match_started(watcher)
        await send_until_heard(settings, gift_for_test(GiftEffect.EMOTE, event_id="probe"), watcher)
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
            for raw in MALFORMED:
                await client.publish(GIFTS_IN, raw, qos=1)

        def invalid() -> list[dict[str, Any]]:
            return [
                e["data"]
                for e in watcher.gifts()
                if (e["data"]["reason"] or "").startswith("invalid:")
            ]

        await watcher.wait_for(lambda _: len(invalid()) >= len(MALFORMED), within_s=10)
        err = await finished(arena, watcher)

    told = invalid()
    assert len(told) == len(MALFORMED)
    assert {d["status"] for d in told} == {"rejected"}
    reasons = [d["reason"] for d in told]
    assert reasons[0].startswith("invalid: not JSON")
    assert reasons[1] == "invalid: not a JSON object: a list"
    assert reasons[2] == "invalid: count: Input should be a valid integer"
    assert [d["event_id"] for d in told] == [None, None, "bad-1"]
    assert {d["effect"] for d in told} == {None}
    # the match went on, whole, and the malformed DOUBLE did nothing to it
    check_whole_match(watcher, rounds=2)
    for result in watcher.of_type("round_result"):
        assert (result["data"]["result"]["gift_doubles"], result["data"]["gifts"]) == (0, [])
    assert watcher.of_type("effect_applied") == []
    assert watcher.outcomes("probe")[:2] == [("queued", None), ("applied", None)]
    assert "3 invalid" in (summary_of(err)["why"] or "")


# ---------------------------------------------------------------- PEEK


async def test_a_peek_shows_the_cards_on_the_spectator_topic_only(mosquitto: Mosquitto) -> None:
    settings = MqttSettings(port=mosquitto.port)
    peek = gift_for_test(GiftEffect.PEEK, viewer="小明", event_id="peek-1", target=1)
    async with (
        subscribed_as(mosquitto, GiftWatcher()) as watcher,
        playing(
            mosquitto, "--gifts", "--spectator-delay", "0", "--rounds", "2", "--pace", "0.04"
        ) as arena,
    ):
        await match_started(watcher)
        await send_until_heard(settings, peek, watcher)
        await watcher.wait_for(
            lambda _: ("applied", None) in watcher.outcomes("peek-1"), within_s=20
        )
        await finished(arena, watcher)

    items = watcher.spectator()
    peeks = [i for i in items if i["kind"] == "peek"]
    assert len(peeks) == 1, peeks
    (seen,) = peeks
    assert (seen["gift"], seen["seat"], seen["viewer"]) == ("test:peek-1#0", 1, "小明")
    assert seen["cards"], seen
    # the cards are the target's hand as it was then: the last hands shown before it
    before = [i for i in items[: items.index(seen)] if i["kind"] == "hands"]
    assert before, "no hands item before the peek"
    assert before[-1]["round"] == seen["round"]
    assert seen["cards"] == before[-1]["hands"][1]
    # ...and no public topic carries them while they are hidden
    for topic in ("events", "gifts"):
        gift_events = [p for t, p, _ in watcher.messages if t == f"ddz-arena/tables/t1/{topic}"]
        gift_events = [e for e in gift_events if e["type"] == "gift"]
        assert gift_events, topic
        assert all("cards" not in e["data"] for e in gift_events), topic
        assert not any(card in str(e) for e in gift_events for card in seen["cards"]), topic
    assert hidden_cards_in(watcher.events("t1")) == []
    assert not any(t.endswith("/peek") for t, _, _ in watcher.messages)


# ---------------------------------------------------------------- ranked mode


async def test_ranked_mode_rejects_a_double_sent_over_mqtt(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    config = tmp_path / "ranked.toml"
    config.write_text('[gifts]\nenabled = true\nmode = "ranked"\n')
    settings = MqttSettings(port=mosquitto.port)
    async with (
        subscribed_as(mosquitto, GiftWatcher()) as watcher,
        playing(mosquitto, "--config", str(config), "--rounds", "2", "--pace", "0.03") as arena,
    ):
        await match_started(watcher)
        await send_until_heard(settings, gift_for_test(GiftEffect.EMOTE, event_id="probe"), watcher)
        await send_gift(settings, gift_for_test(GiftEffect.DOUBLE, event_id="rank-1"))
        await watcher.wait_for(lambda _: bool(watcher.outcomes("rank-1")), within_s=10)
        err = await finished(arena, watcher)

    assert "taking gifts (ranked mode) from MQTT topic ddz-arena/gifts/in" in err
    assert watcher.outcomes("rank-1") == [("rejected", "ranked_mode")]
    check_whole_match(watcher, rounds=2)
    for result in watcher.of_type("round_result"):
        assert (result["data"]["result"]["gift_doubles"], result["data"]["gifts"]) == (0, [])
    assert watcher.of_type("effect_applied") == []
    assert ("applied", None) in watcher.outcomes("probe")  # an overlay-only gift still is
    found = summary_of(err)
    assert found["why"] is not None
    assert "1 ranked_mode" in found["why"]


# ---------------------------------------------------------------- the MQTT sink's figures


async def test_a_run_with_gifts_says_nothing_was_lost(mosquitto: Mosquitto) -> None:
    async with (
        subscribed_as(mosquitto, GiftWatcher()) as watcher,
        playing(mosquitto, "--simulate-gifts", "100", "--rounds", "1", "--pace", "0.01") as arena,
    ):
        err = await finished(arena, watcher)
    assert watcher.gifts(), "no gift event: nothing to check"
    assert "were not acknowledged" not in err


# ---------------------------------------------------------------- the command line


def test_a_simulated_audience_is_summed_up(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "--no-live", "--rounds", "2", "--simulate-gifts", "50"]
    assert main([*argv, "--pace", "0.02", "--seed", "3"]) == 0
    err = capsys.readouterr().err
    assert "taking gifts (show mode) from a simulated audience (50 a second)" in err
    found = summary_of(err)
    assert int(found["applied"] or 0) >= 1
    assert "invalid" not in (found["why"] or "")  # a simulated audience sends only gifts


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (
            ["--simulate-gifts", "0"],
            "arena: error: --simulate-gifts: 0 gifts a second: give a rate above 0, at most 1000",
        ),
        (["--simulate-gifts", "1001"], "arena: error: --simulate-gifts: 1001 gifts a second"),
        (
            ["--gift-file", "missing.jsonl"],
            "arena: error: --gift-file: missing.jsonl: no such file",
        ),
    ],
)
def test_a_gift_flag_out_of_range_is_a_usage_error(
    flags: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--no-live", "--rounds", "1", *flags]) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(expected), captured.err
    assert captured.err.count("\n") == 1
    assert "taking gifts" not in captured.err + captured.out  # refused before anything ran


@pytest.mark.parametrize(
    ("section", "lines"),
    [
        (
            '[gifts]\nmode = "fun"\ncolour = 1\n',
            [
                "gifts.mode: Input should be 'show' or 'ranked' (got 'fun')",
                "gifts.colour: unknown key",
            ],
        ),
        (
            "[gifts]\nenabled = true\nmood = 'show'\n",
            ["gifts.mood: unknown key; did you mean 'mode'?"],
        ),
        (  # checked before any agent starts, against the tables the match will have
            "[match]\ntables = 2\n[gifts]\ndefault_table = 't3'\n",
            ["gifts.default_table: no table 't3' (the tables are t1, t2)"],
        ),
    ],
)
def test_a_broken_gifts_section_names_the_file_and_key(
    section: str, lines: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Refused even while gifts are off (the first file does not turn them on)."""
    file = tmp_path / "arena.toml"
    file.write_text(section)
    assert main(["play", "--no-live", "--rounds", "1", "--config", str(file)]) == 2
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [f"arena: error: {file}: {line}" for line in lines]
    assert captured.out == ""


def test_a_gift_file_is_played_recorded_and_the_replay_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gift_file = tmp_path / "gifts.jsonl"
    gift_file.write_text(
        '{"event_id": "f1", "platform": "test", "effect": "DOUBLE", "at": 0}\n'
        "this line is no gift\n"
        '{"event_id": "f2", "platform": "test", "effect": "EMOTE", "at": 0.1}\n',
        encoding="utf-8",
    )
    record = tmp_path / "match.jsonl"
    argv = ["play", "--no-live", "--rounds", "2", "--pace", "0.02", "--seed", "3"]
    assert main([*argv, "--gift-file", str(gift_file), "--record", str(record)]) == 0
    err = capsys.readouterr().err
    assert f"taking gifts (show mode) from the file {gift_file}" in err
    found = summary_of(err)
    assert (found["applied"], found["rejected"], found["expired"]) == ("2", "1", "0")
    assert found["why"] == "1 invalid"  # the junk line: a payload that was no gift

    assert main(["replay", str(record)]) == 0
    out = capsys.readouterr().out
    for round_no in (1, 2):
        assert f"✓ table t1 round {round_no}: every move legal" in out
    lines = [orjson.loads(line) for line in record.read_bytes().splitlines()]
    gifts = [
        line["event"]["data"]
        for line in lines
        if line["kind"] == "event" and line["event"]["type"] == "gift"
    ]
    for event_id in ("f1", "f2"):
        told = [g["status"] for g in gifts if g["event_id"] == event_id]
        assert told == ["queued", "applied"], event_id
    junk = [g for g in gifts if g["event_id"] is None]
    assert len(junk) == 1
    assert junk[0]["reason"].startswith("invalid: line 2: not JSON")
    events = [line["event"] for line in lines if line["kind"] == "event"]
    doubles = [e for e in events if e["type"] == "effect_applied"]
    assert [e["data"]["effect"] for e in doubles] == ["double"]


def test_a_simulated_audience_sends_to_every_table_and_an_unpaced_file_is_warned(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "match.jsonl"
    argv = ["play", "--no-live", "--rounds", "1", "--tables", "2", "--seed", "5"]
    assert main([*argv, "--simulate-gifts", "100", "--pace", "0.02", "--record", str(record)]) == 0
    told: dict[str, int] = {}
    for line in record.read_text(encoding="utf-8").splitlines():
        event = json.loads(line).get("event", {})
        if event.get("type") == "gift":
            told[event["table"]] = told.get(event["table"], 0) + 1
    assert set(told) == {"t1", "t2"}  # an audience at each table, not the first alone
    capsys.readouterr()
    gift_file = tmp_path / "gifts.jsonl"
    gift_file.write_text('{"event_id": "u1", "platform": "test", "effect": "EMOTE"}\n')
    assert main(["play", "--no-live", "--rounds", "1", "--gift-file", str(gift_file)]) == 0
    assert "the match is not paced" in capsys.readouterr().err
