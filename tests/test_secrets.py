"""The secrets registry (arena/secrets.py), its masking (arena/masking.py) and the
places it masks, each on its own.

``test_secrets_masked.py`` runs the whole arena with secrets put everywhere outsiders
write; these tests pin each piece: the written forms a secret is found in, a short
secret (used, not masked, warned about), the replay file that masks whole lines a buffer
at a time, the log lines of both formats, a rejection's detail cut at 500 characters, a
program's stderr and replies, a viewer's name cut at 40 characters, the overlay's
messages, the MQTT feed, the replay and the tournament store's lines. And (issue 25's
review) a secret written with JSON escapes, the consoles' own masking, the server's JSON
answers, and what a program's environment holds.
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
import sys
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx
import orjson
import pytest
import zstandard
from agents_for_tests import MinimalAgent
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from rich.console import Console
from test_mqtt import Subscriber, connected, said, sink_for, subscribed_as
from test_server import TOKEN as SERVER_TOKEN
from test_server import _NoInbox as NoInbox
from test_server import config as server_config
from test_server import play, served

from arena.agents.process import SubprocessAgent
from arena.cli import main
from arena.errors import ConfigError
from arena.events import Event
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.messages import PlayRequest, PlayResponse
from arena.logs import EVENT_ATTRIBUTE, configure_logging, get_logger, say
from arena.masking import (
    MaskedLines,
    mask,
    mask_bytes,
    mask_incoming,
    mask_incoming_bytes,
    mask_keys,
    masked,
    unescaped,
)
from arena.replay import ReplayWriter
from arena.secrets import (
    forget_secrets,
    known_secrets,
    register_secret,
    register_secrets,
    secret_variables,
    variable_name,
)
from arena.server.hub import OverlayHub
from arena.sinks.base import CollectingSink
from arena.sinks.console import LiveConsoleSink, PlainConsoleSink, shown_event
from arena.table import Table, play_match
from gifts.events import GiftEvent
from gifts.webhook import WebhookIntake
from protocol import Message, ReplyRejected
from tournaments.round_lines import RoundLines

SECRET = "tok-9f8e7d6c5b4a3f2e1d0c"
BOT = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"
REPO = Path(__file__).resolve().parent.parent


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


# --- a secret behind JSON escapes (issue 25's review) ------------------------------------

TOKEN = "httptok-SECRET-abcdef123456"


@pytest.mark.parametrize(
    "written",
    [
        r"\u0068ttptok-SECRET-abcdef123456",  # its first letter escaped
        r"httptok\u002DSECRET\u002dabcdef123456",  # upper and lower case hex
        r"\u0068\u0074\u0074\u0070\u0074\u006f\u006b-SECRET-abcdef123456",
    ],
)
def test_a_secret_written_with_escapes_is_masked_where_it_comes_in(written: str) -> None:
    register_secret(TOKEN, "TEST_TOKEN")
    reply = '{"type":"BID_RESPONSE","bid":0,"comment":"said ' + written + '"}'
    assert json.loads(reply)["comment"] == f"said {TOKEN}"  # what the parsed reply holds
    text = mask_incoming(reply)
    data = mask_incoming_bytes(reply.encode())
    assert text == '{"type":"BID_RESPONSE","bid":0,"comment":"said ***"}'
    assert data == text.encode()
    assert json.loads(text)["comment"] == "said ***"


def test_escapes_of_slashes_surrogate_pairs_and_quotes_are_read_as_json_reads_them() -> None:
    secret = 'a/b"c-🔑-d\\e-ñ-0123'
    register_secret(secret, "TEST_TOKEN")
    escaped = json.dumps(secret)[1:-1].replace("/", "\\/").replace("a", "\\u0061")
    assert "\\ud83d\\udd11" in escaped  # the key emoji as a surrogate pair
    reply = f'{{"comment":"{escaped}","n":"\\\\u0061\\ud800"}}'
    assert json.loads(reply)["comment"] == secret
    masked_reply = mask_incoming(reply)
    assert json.loads(masked_reply) == {"comment": "***", "n": "\\u0061\ud800"}
    # an escaped backslash stays one, and so does a lone surrogate: the same JSON
    assert masked_reply.endswith('"n":"\\\\u0061\\ud800"}')
    assert mask_incoming_bytes(reply.encode()) == masked_reply.encode()


def test_text_without_a_secret_behind_its_escapes_is_kept_as_it_came() -> None:
    register_secret(TOKEN, "TEST_TOKEN")
    reply = r'{"comment":"caf\u00e9 \/ \u0068ttptok-other"}'
    assert mask_incoming(reply) is reply
    assert mask_incoming_bytes(reply.encode()) == reply.encode()
    forget_secrets()
    assert mask_incoming(r"\u0068ttptok-SECRET-abcdef123456").startswith("\\u0068")


def test_unescaped_writes_out_only_what_json_reads_the_same() -> None:
    text = r'"\u0041\/\"\\\n\u001F\u00e9\uD83D\uDE00\ud800\u005c\u0022"'
    plain = unescaped(text)
    assert plain == '"A/\\"\\\\\\n\\u001f\u00e9\U0001f600\\ud800\\\\\\""'
    assert json.loads(plain) == json.loads(text)


async def test_a_programs_escaped_comment_reaches_no_sink_or_replay(tmp_path: Path) -> None:
    """The program writes the secret with its first letter escaped: masking the raw line
    found nothing, and the parsed comment held the secret (the board printed it)."""
    register_secret(TOKEN, "TEST_TOKEN")
    args = ["--say-json", r"\u0068ttptok-SECRET-abcdef123456"]
    agent = SubprocessAgent("A", command=[sys.executable, str(BOT), *args])
    writer = ReplayWriter(tmp_path / "replay.jsonl")
    sink = CollectingSink()
    out = io.StringIO()
    table = Table(
        [agent, HeuristicAgent("B"), HeuristicAgent("C")],
        recorder=writer.for_table("t1"),
        sinks=[sink, PlainConsoleSink(out)],
    )
    try:
        await play_match(table, rounds=1, seed=7)
    finally:
        await table.close()
        writer.close()
    comments = [e.data["comment"] for e in sink.events if e.seat == 0 and e.data.get("comment")]
    assert comments
    assert set(comments) == {"***"}
    replay = (tmp_path / "replay.jsonl").read_text()
    assert '"comment":"***"' in replay
    for text in (replay, out.getvalue()):
        assert "SECRET-abcdef123456" not in text
        assert "u0068ttptok" not in text


# --- the console's own backstop ----------------------------------------------------------


def spoken(comment: str) -> Event:
    return Event("bid", "t1", 1, 5, 0, "Ann", {"bid": 0, "comment": comment, "mode": "score"})


async def test_the_plain_lines_and_the_live_board_mask_what_reaches_them() -> None:
    """An event that got past every entry (an in-process agent's comment, say) is masked
    as a console shows it, before the board cuts the comment to its cell's width."""
    register_secret(TOKEN, "TEST_TOKEN")
    out = io.StringIO()
    plain = PlainConsoleSink(out)
    await plain.emit(spoken(f"my token is {TOKEN}"))
    assert out.getvalue() == "[t1 r1] Ann passes the bid  「my token is ***」\n"
    board = io.StringIO()
    live = LiveConsoleSink(Console(file=board, width=60, height=30, color_system=None))
    await live.emit(spoken("x" * 12 + TOKEN))  # cut in its cell, the token would be split
    await live.close()
    shown = board.getvalue()
    assert "xxx" in shown
    for piece in (TOKEN, TOKEN[:8], "SECRET-ab", "ttptok-S"):
        assert piece not in shown


def test_without_a_secret_the_console_gets_the_event_itself() -> None:
    said = spoken("hello")
    assert shown_event(said) is said


# --- the server's JSON answers -----------------------------------------------------------


async def test_the_control_api_never_repeats_a_secret_the_caller_sent() -> None:
    register_secret(TOKEN, "TEST_TOKEN")
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        auth = {"Authorization": f"Bearer {SERVER_TOKEN}"}
        server.parts.gifts = WebhookIntake(NoInbox(), secret=SERVER_TOKEN)
        await play(server, server_config(rounds=1))
        answers = [
            await http.post("/control/api/gift", headers=auth, json={"effect": "CHEER", **body})
            for body in ({"table": TOKEN}, {"table": SERVER_TOKEN}, {"viewer": [TOKEN]})
        ]
        answers.append(await http.post("/control/api/gift", headers=auth, json={"effect": TOKEN}))
        answers.append(await http.post("/control/api/pause", headers=auth, json={TOKEN: 1}))
    assert [a.status_code for a in answers] == [404, 404, 400, 400, 400]
    assert "no table '***' (tables: t1)" in answers[0].json()["error"]
    for answer in answers:
        assert "***" in answer.text
        assert "SECRET-abcdef" not in answer.text
        assert SERVER_TOKEN not in answer.text


def test_the_short_secret_hint_is_the_command_the_docs_give(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING)
    register_secret("abc123", "SHORT_TOKEN")
    [warning] = [r for r in caplog.records if "secret_too_short_to_mask" in r.getMessage()]
    command = "python3 -c 'import secrets; print(secrets.token_urlsafe(24))'"
    assert command in getattr(warning, EVENT_ATTRIBUTE)["hint"]
    assert command in (REPO / "docs" / "models.md").read_text()


# --- what a program's environment holds --------------------------------------------------


async def environment_of(tmp_path: Path, **options: Any) -> dict[str, str]:
    """The environment a subprocess seat's program starts with."""
    found = tmp_path / "env.json"
    command = [sys.executable, str(BOT), "--env-file", str(found)]
    agent = SubprocessAgent("A", command=command, startup_s=0, **options)
    bid = {"type": "BID_REQUEST", "player_id": "A", "available_bids": [0], "request_id": "r1"}
    try:
        await agent.open()
        async with asyncio.timeout(20):  # it answers after it wrote the file
            await agent.exchange(json.dumps(bid).encode(), "r1")
    finally:
        await agent.close()
    environ: dict[str, str] = json.loads(found.read_text())["environ"]
    return environ


async def test_a_program_gets_no_variable_that_holds_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = {
        "ARENA_SERVER_TOKEN": SERVER_TOKEN,  # well-known, read or not
        "OPENAI_API_KEY": "sk-preset-0a1b2c3d4e5f",  # a preset's, used by no seat
        "TEST_SEAT_KEY": "sk-named-9f8e7d6c5b4a",  # named by a setting
        "TEST_READ_TOKEN": "read-token-1a2b3c4d5e",  # a secret was read from it
        "TEST_COPY": "read-token-1a2b3c4d5e",  # the same value under another name
        "TEST_PLAIN": "just-a-setting-value",
    }
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    variable_name("TEST_SEAT_KEY", "options.api_key_env", example="X", secret="the key")
    register_secret(values["TEST_READ_TOKEN"], "TEST_READ_TOKEN")
    environ = await environment_of(tmp_path, env={"BOT_LEVEL": "3"})
    assert environ["TEST_PLAIN"] == "just-a-setting-value"
    assert environ["BOT_LEVEL"] == "3"
    assert environ["PYTHONUNBUFFERED"] == "1"
    for name in ("ARENA_SERVER_TOKEN", "OPENAI_API_KEY", "TEST_SEAT_KEY", "TEST_READ_TOKEN"):
        assert name not in environ
    assert "TEST_COPY" not in environ
    for value in list(values.values())[:-1]:
        assert value not in environ.values()


async def test_pass_env_hands_a_program_the_variables_it_names_and_masks_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-mine-0a1b2c3d4e5f6a")
    monkeypatch.setenv("ARENA_SERVER_TOKEN", SERVER_TOKEN)
    environ = await environment_of(tmp_path, pass_env=["OPENAI_API_KEY"])
    assert environ["OPENAI_API_KEY"] == "sk-mine-0a1b2c3d4e5f6a"
    assert "ARENA_SERVER_TOKEN" not in environ
    assert mask("sk-mine-0a1b2c3d4e5f6a") == "***"  # the program may print it now


@pytest.mark.parametrize(
    ("pass_env", "message"),
    [
        ("OPENAI_API_KEY", "must be a list of variable names"),
        (["sk-pasted-0a1b2c3d"], "must be the NAME of an environment variable"),
        (["TEST_NOT_SET_ANYWHERE"], "TEST_NOT_SET_ANYWHERE is not set"),
    ],
)
def test_pass_env_names_set_variables(pass_env: Any, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as raised:
        SubprocessAgent("A", command=[sys.executable, str(BOT)], pass_env=pass_env)
    assert "sk-pasted" not in str(raised.value)


def test_every_command_registers_the_well_known_secrets_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("ARENA_SERVER_TOKEN", SERVER_TOKEN)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-unused-0a1b2c3d4e")
    assert main(["schema", str(tmp_path)]) == 0
    capsys.readouterr()
    assert mask(f"{SERVER_TOKEN} sk-ant-unused-0a1b2c3d4e") == "*** ***"
    assert {"ARENA_SERVER_TOKEN", "ANTHROPIC_API_KEY"} <= secret_variables()
