"""The secrets registry (arena/secrets.py) and the places it masks, each on its own.

``test_secrets_masked.py`` runs the whole arena with secrets put everywhere outsiders
write; these tests pin each piece: the written forms a secret is found in, a short
secret (used, not masked, warned about), the replay file that masks whole lines a buffer
at a time, the log lines of both formats, a rejection's detail cut at 500 characters, a
program's stderr and replies, a viewer's name cut at 40 characters, the overlay's
messages, the MQTT feed, the replay and the tournament store's lines.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
import pytest
import zstandard
from agents_for_tests import MinimalAgent
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import Subscriber, connected, said, sink_for, subscribed_as

from arena.agents.process import SubprocessAgent
from arena.agents.scripted import HeuristicAgent
from arena.logs import EVENT_ATTRIBUTE, configure_logging, get_logger, say
from arena.replay import ReplayWriter
from arena.secrets import (
    MaskedLines,
    forget_secrets,
    known_secrets,
    mask,
    mask_bytes,
    mask_keys,
    masked,
    register_secret,
    register_secrets,
)
from arena.server.hub import OverlayHub
from arena.sinks.base import CollectingSink
from arena.table import Table, play_match
from arena.table.events import Event
from gifts.events import GiftEvent
from protocol import Message, PlayRequest, PlayResponse, ReplyRejected
from tournaments.round_lines import RoundLines

SECRET = "tok-9f8e7d6c5b4a3f2e1d0c"
BOT = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"


def no_piece_of(secret: str, text: str) -> bool:
    """Neither the secret nor a long piece of it (its start, its end) is in ``text``."""
    return all(piece not in text for piece in (secret, secret[:10], secret[-10:]))


# --- the registry ------------------------------------------------------------------------


def test_a_secret_is_masked_in_every_form_the_arena_writes_it() -> None:
    odd = 'pa"ss\\wörd-8c1d'
    register_secret(odd, "ODD_SECRET")
    assert mask(f"said {odd}.") == "said ***."
    assert mask(json.dumps({"a": odd}, ensure_ascii=False)) == '{"a": "***"}'
    assert mask(json.dumps({"a": odd})) == '{"a": "***"}'  # \\u00f6 for ö
    assert mask(f"detail={odd!r}") == "detail='***'"  # the console log's repr
    assert mask(f"https://x/?key={quote(odd, safe='')}") == "https://x/?key=***"
    assert mask_bytes(orjson.dumps({"a": odd})) == b'{"a":"***"}'


def test_with_no_secret_known_nothing_is_copied() -> None:
    text, data, value = "some text", b"some bytes", {"a": ["b"]}
    assert mask(text) is text
    assert mask_bytes(data) is data
    assert masked(value) is value


def test_masked_copies_strings_inside_lists_tuples_and_dicts() -> None:
    register_secret(SECRET, "TEST_SECRET")
    inner = [SECRET, (1, f"x{SECRET}")]
    value = {"k": inner, SECRET: None, "n": 3}
    assert masked(value) == {"k": ["***", (1, "x***")], "***": None, "n": 3}
    assert inner[0] == SECRET  # a copy: the original is left alone


def test_a_provider_error_also_loses_what_is_shaped_like_a_key() -> None:
    register_secret(SECRET, "TEST_SECRET")
    said = f"Incorrect API key provided: sk-proj-abc1****wxyz (you sent {SECRET})"
    assert mask_keys(said) == "Incorrect API key provided: sk-*** (you sent ***)"


def test_a_short_secret_is_used_but_not_masked_and_its_variable_is_named(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    assert register_secret("abc123", "SHORT_TOKEN") is False
    assert register_secret("abc123", "SHORT_TOKEN") is False
    assert mask("abc123 is abc123") == "abc123 is abc123"
    warnings = [r for r in caplog.records if "secret_too_short_to_mask" in r.getMessage()]
    assert len(warnings) == 1  # once per variable
    event = getattr(warnings[0], EVENT_ATTRIBUTE)
    assert (event["secret"], event["length"]) == ("SHORT_TOKEN", 6)
    assert "abc123" not in repr(warnings[0].__dict__)


def test_known_secrets_are_what_a_worker_registers() -> None:
    register_secret(SECRET, "TEST_SECRET")
    handed = known_secrets()
    assert handed == {SECRET: "TEST_SECRET"}
    forget_secrets()
    assert mask(SECRET) == SECRET
    register_secrets(handed)
    assert mask(SECRET) == "***"


def test_masked_lines_are_written_a_batch_at_a_time(tmp_path: Path) -> None:
    register_secret(SECRET, "TEST_SECRET")
    path = tmp_path / "lines.jsonl"
    lines = MaskedLines(path, batch=6)
    for n in range(40):
        lines.append(orjson.dumps({"n": n, "text": f"{SECRET} y"}) + b"\n")
        lines.flush_if_full()
    written = path.read_bytes()
    assert 0 < written.count(b"\n") < 40  # whole batches so far, the rest kept
    assert written.endswith(b"\n")
    lines.close()
    texts = [orjson.loads(line)["text"] for line in path.read_bytes().splitlines()]
    assert texts == ["*** y"] * 40


# --- logs --------------------------------------------------------------------------------


def boom() -> None:
    raise RuntimeError(f"boom {SECRET}")


@pytest.mark.parametrize("log_format", ["console", "json"])
def test_log_lines_lose_secrets_in_fields_tracebacks_and_other_libraries(
    capsys: pytest.CaptureFixture[str], log_format: Any
) -> None:
    register_secret(SECRET, "TEST_SECRET")
    configure_logging(log_format, "info")
    log = get_logger("arena.test")
    log.warning("in_fields", detail=f"got {SECRET}", nested={"k": [SECRET]})
    try:
        boom()
    except RuntimeError:
        log.exception("in_a_traceback")
    logging.getLogger("somebody.else").warning("GET /?key=%s", SECRET)
    say(log_format, "said", f"the secret {SECRET}", secret=SECRET)
    err = capsys.readouterr().err
    assert no_piece_of(SECRET, err), err
    for masked_text in ("got ***", "boom ***", "/?key=***"):
        assert masked_text in err
    assert "RuntimeError: boom ***" in err  # the traceback, in either format
    assert err.count("***") >= 5


def test_any_handler_gets_the_fields_masked(caplog: pytest.LogCaptureFixture) -> None:
    """Unconfigured (arena as a library): the record a handler gets holds no secret."""
    register_secret(SECRET, "TEST_SECRET")
    caplog.set_level(logging.WARNING)
    get_logger("arena.test").warning("in_fields", detail=f"got {SECRET}")
    [record] = caplog.records
    assert record.getMessage() == "in_fields detail='got ***'"
    assert SECRET not in repr(record.__dict__)


# --- where outsiders' text comes in ------------------------------------------------------


class LeakyAgent(MinimalAgent):
    """Fails every play with an error whose secret the 500-character cut of a
    REPLY_REJECTED's detail would split, and keeps what it is told."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(name, **options)
        self.told: list[Message] = []

    async def notify(self, message: Message) -> None:
        self.told.append(message)

    async def play(self, request: PlayRequest) -> PlayResponse:
        raise ValueError("x" * 480 + SECRET)


async def test_a_rejection_detail_is_masked_before_it_is_cut(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    register_secret(SECRET, "TEST_SECRET")
    caplog.set_level(logging.WARNING)
    leaky = LeakyAgent("A")
    writer = ReplayWriter(tmp_path / "replay.jsonl")
    table = Table(
        [leaky, HeuristicAgent("B"), HeuristicAgent("C")], recorder=writer.for_table("t1")
    )
    try:
        await play_match(table, rounds=1, seed=7)
    finally:
        await table.close()
        writer.close()
    rejections = [m for m in leaky.told if isinstance(m, ReplyRejected)]
    assert rejections
    assert all(r.detail.endswith("x***") for r in rejections)
    assert no_piece_of(SECRET, (tmp_path / "replay.jsonl").read_text())
    assert no_piece_of(SECRET, "\n".join(repr(r.__dict__) for r in caplog.records))


async def test_a_programs_stderr_and_replies_are_masked_as_they_are_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    register_secret(SECRET, "TEST_SECRET")
    caplog.set_level(logging.INFO)
    record = tmp_path / "received.jsonl"
    args = ["--mode", "crash", "--once", str(tmp_path / "crashed"), "--say", SECRET]
    agent = SubprocessAgent("A", command=[sys.executable, str(BOT), *args, "--record", str(record)])
    writer = ReplayWriter(tmp_path / "replay.jsonl")
    sink = CollectingSink()
    table = Table(
        [agent, HeuristicAgent("B"), HeuristicAgent("C")],
        recorder=writer.for_table("t1"),
        sinks=[sink],
    )
    try:
        await play_match(table, rounds=1, seed=7)
    finally:
        await table.close()
        writer.close()
    told = [json.loads(line)["message"] for line in record.read_text().splitlines()]
    [rejected] = [m for m in told if m["type"] == "REPLY_REJECTED"]
    assert "crashing on purpose: ***" in rejected["detail"]
    replay = (tmp_path / "replay.jsonl").read_text()
    assert '"comment":"***"' in replay  # its replies, as they came
    assert no_piece_of(SECRET, replay + record.read_text())
    comments = [e.data["comment"] for e in sink.events if e.seat == 0 and e.data.get("comment")]
    assert comments  # a sink (the board, say) gets the replies' comments, masked
    assert set(comments) == {"***"}
    assert no_piece_of(SECRET, "\n".join(repr(r.__dict__) for r in caplog.records))


def test_a_viewers_text_is_masked_before_it_is_cut() -> None:
    register_secret(SECRET, "TEST_SECRET")
    gift = GiftEvent(
        event_id="g-1",
        platform="test",
        display_name="v" * 30 + SECRET,  # cut at 40 characters, the secret would be split
        message=f"{'m' * 190} {SECRET}",
    )
    assert gift.display_name == "v" * 30 + "***"
    assert gift.message == f"{'m' * 190} ***"


# --- where the arena sends or writes -----------------------------------------------------


def leaked_event(seq: int = 1) -> Event:
    return Event("turn_started", "t1", 1, seq, 0, "A", {"comment": f"my key is {SECRET}"})


def test_the_overlay_sends_no_secret() -> None:
    register_secret(SECRET, "TEST_SECRET")
    hub = OverlayHub(run_id="run-1")
    page = hub.subscribe("public", "t1")
    hub.on_event(leaked_event())
    hub.flush()
    sent = []
    while page.pending():
        sent.append(page._queue.popleft())  # what the page's socket would send
    text = "\n".join(sent)
    assert "my key is ***" in text
    assert no_piece_of(SECRET, text)


def test_the_store_keeps_no_secret_in_a_rounds_lines() -> None:
    register_secret(SECRET, "TEST_SECRET")
    lines = RoundLines()
    lines.event(leaked_event())
    lines.line({"kind": "effect", "note": SECRET})
    stored = zstandard.ZstdDecompressor().decompress(lines.take()).decode()
    assert stored.count("***") == 2
    assert no_piece_of(SECRET, stored)


def test_the_replay_writes_no_secret(tmp_path: Path) -> None:
    register_secret(SECRET, "TEST_SECRET")
    writer = ReplayWriter(tmp_path / "replay.jsonl")
    writer.for_table("t1").event(leaked_event())
    writer.close()
    written = (tmp_path / "replay.jsonl").read_text()
    assert "my key is ***" in written
    assert no_piece_of(SECRET, written)


async def test_the_mqtt_feed_publishes_no_secret(mosquitto: Mosquitto) -> None:
    register_secret(SECRET, "TEST_SECRET")
    async with subscribed_as(mosquitto, Subscriber()) as watcher:
        sink = await connected(sink_for(mosquitto))
        await sink.emit(leaked_event())
        await sink.close()
        await watcher.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    [event] = watcher.events("t1")
    assert event["data"]["comment"] == "my key is ***"
    assert no_piece_of(SECRET, json.dumps(watcher.messages, ensure_ascii=False))
