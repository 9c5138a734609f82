"""Sending a test gift: :func:`gifts.send.send_gift`, :func:`gifts.send.gift_for_test`
and ``arena gift send`` (:mod:`gifts.cli_send`), against a real Mosquitto of the test's
own (tests/mosquitto.py) read back by the gift listener."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)
from pydantic import ValidationError

from arena.config import MqttSettings
from gifts.cli_send import EFFECTS_TEXT, add_gift_command, run_gift_command
from gifts.events import GiftEffect
from gifts.send import GiftSendError, NoArenaError, gift_for_test, send_gift
from gifts.sources import CollectingInbox, listen_for_gifts


def test_a_test_gift_names_its_effect_and_is_marked() -> None:
    gift = gift_for_test(GiftEffect.PEEK)
    assert gift.platform == "test"
    assert gift.test is True
    assert gift.effect is GiftEffect.PEEK
    assert re.fullmatch(r"test-[0-9a-f]{12}", gift.event_id)
    assert gift_for_test(GiftEffect.PEEK).event_id != gift.event_id
    assert gift.anonymous  # no viewer named
    named = gift_for_test(
        GiftEffect.SWAP, viewer="小明", table="t2", event_id="mine", target=2, message="hi"
    )
    assert (named.display_name, named.table, named.event_id, named.target_seat) == (
        "小明",
        "t2",
        "mine",
        2,
    )
    with pytest.raises(ValidationError, match="target_seat"):
        gift_for_test(GiftEffect.SWAP, target=6)  # no game seats seven


async def test_sending_to_a_broker_that_is_not_there_names_it() -> None:
    port = free_port()
    with pytest.raises(GiftSendError, match=f"127.0.0.1:{port}"):
        await send_gift(MqttSettings(port=port), gift_for_test(GiftEffect.CHEER))


# ---------------------------------------------------------------- arena gift send


def parser() -> argparse.ArgumentParser:
    """A parser shaped like ``arena``'s: commands under ``command``."""
    parser = argparse.ArgumentParser(prog="arena")
    add_gift_command(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"))
    return parser


def parsed(*argv: str) -> argparse.Namespace:
    return parser().parse_args(["gift", "send", *argv])


def test_the_command_parses_every_option() -> None:
    args = parsed(
        "swap",
        "--viewer",
        "小明",
        "--table",
        "t1",
        "--event-id",
        "e-1",
        "--seat",
        "2",
        "--message",
        "换牌给 Alpha",
        "--mqtt",
        "mqtt://127.0.0.1:1999",
        "--config",
        "arena.toml",
    )
    assert (args.command, args.gift_action, args.effect) == ("gift", "send", "swap")
    assert (args.viewer, args.table, args.event_id, args.seat) == ("小明", "t1", "e-1", 2)
    assert (args.message, args.mqtt, args.config) == (
        "换牌给 Alpha",
        "mqtt://127.0.0.1:1999",
        Path("arena.toml"),
    )
    assert (args.log_format, args.log_level) == ("console", "warning")  # arena's main reads them
    defaults = parsed("CHEER")
    assert (defaults.viewer, defaults.seat, defaults.message, defaults.mqtt) == (
        None,
        None,
        "",
        None,
    )


def test_an_unknown_effect_is_one_line_listing_the_effects(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run_gift_command(parsed("teleport")) == 2
    err = capsys.readouterr().err
    assert err == f"arena: error: EFFECT: 'teleport' is no effect: one of {EFFECTS_TEXT}\n"
    assert "RESHUFFLE" in err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["double", "--seat", "6"], "--seat: Input should be less than or equal to 5"),
        (["double", "--table", "no spaces"], "--table: String should match pattern"),
        (["double", "--event-id", ""], "--event-id: String should have at least 1 character"),
        (["double", "--mqtt", "http://x"], "--mqtt: 'http://x': the URL must start with mqtt://"),
        (["double", "--config", "/nowhere/arena.toml"], "no such config file"),
    ],
)
def test_a_usage_mistake_is_one_line_and_status_2(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_gift_command(parsed(*argv)) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("arena: error: ")
    assert expected in captured.err
    assert captured.err.count("\n") == 1


def test_a_broker_that_does_not_answer_is_one_line_and_status_1(
    capsys: pytest.CaptureFixture[str],
) -> None:
    port = free_port()
    assert run_gift_command(parsed("cheer", "--mqtt", f"mqtt://127.0.0.1:{port}")) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert f"cannot send the gift to the MQTT broker at mqtt://127.0.0.1:{port}" in captured.err


def test_json_log_format_gives_the_error_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_gift_command(parsed("nope", "--log-format", "json")) == 2
    record = orjson.loads(capsys.readouterr().err)
    assert record["event"] == "command_failed"
    assert record["level"] == "error"
    assert "is no effect" in record["error"]


async def arena_status(port: int, status: str | None, prefix: str = "ddz-arena") -> None:
    """Leave ``status`` retained on ``<prefix>/status`` as an arena's feed does (``online``
    while it plays, ``offline`` after); None clears it."""
    async with aiomqtt.Client("127.0.0.1", port) as client:
        payload = b"" if status is None else status.encode()
        await client.publish(f"{prefix}/status", payload, qos=1, retain=True)


@asynccontextmanager
async def listening(settings: MqttSettings) -> AsyncIterator[CollectingInbox]:
    inbox, ready = CollectingInbox(), asyncio.Event()
    task = asyncio.create_task(listen_for_gifts(settings, inbox, ready=ready))
    try:
        async with asyncio.timeout(5):
            await ready.wait()
        yield inbox
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_the_command_sends_the_gift_to_the_listener(
    mosquitto: Mosquitto, capsys: pytest.CaptureFixture[str]
) -> None:
    args = parsed(
        "Swap",  # any case
        "--viewer",
        "小明",
        "--seat",
        "1",
        "--table",
        "t1",
        "--event-id",
        "cli-1",
        "--message",
        "换牌",
        "--mqtt",
        mosquitto.url,
    )
    await arena_status(mosquitto.port, "online")
    async with listening(MqttSettings(port=mosquitto.port)) as inbox:
        assert await asyncio.to_thread(run_gift_command, args) == 0
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    [gift] = inbox.accepted
    assert (gift.effect, gift.event_id, gift.platform, gift.test) == (
        GiftEffect.SWAP,
        "cli-1",
        "test",
        True,
    )
    assert (gift.display_name, gift.target_seat, gift.table, gift.message) == (
        "小明",
        1,
        "t1",
        "换牌",
    )
    out = capsys.readouterr().out
    assert out == (
        "sent SWAP (event cli-1, table t1, seat 1, from 小明, message '换牌') to "
        f"{mosquitto.url}, topic ddz-arena/gifts/in\n"
    )


async def test_the_config_file_says_the_broker_and_prefix(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "arena.toml"
    config.write_text(
        f'[mqtt]\nport = {mosquitto.port}\ntopic_prefix = "studio/ddz"\nprotocol = "3.1.1"\n',
        encoding="utf-8",
    )
    settings = MqttSettings(port=mosquitto.port, topic_prefix="studio/ddz")
    await arena_status(mosquitto.port, "online", prefix="studio/ddz")
    async with listening(settings) as inbox:
        from_file = parsed("emote", "--config", str(config), "--event-id", "file")
        assert await asyncio.to_thread(run_gift_command, from_file) == 0
        elsewhere = f"mqtt://127.0.0.1:{free_port()}"  # --mqtt wins over the file's broker
        overridden = parsed("emote", "--config", str(config), "--mqtt", elsewhere)
        assert await asyncio.to_thread(run_gift_command, overridden) == 1
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    assert [g.event_id for g in inbox.accepted] == ["file"]
    assert "topic studio/ddz/gifts/in" in capsys.readouterr().out


async def test_a_gift_reaches_the_embedded_broker_which_speaks_mqtt_3_1_1() -> None:
    """`arena play --mqtt` starts an embedded broker (amqtt, MQTT 3.1.1) when none
    answers; `arena gift send` asks for MQTT 5 by default and must fall back, the
    arena's status read over 3.1.1 too."""
    from arena.sinks.embedded_broker import EmbeddedBroker

    broker = EmbeddedBroker(free_port())
    await broker.start()
    try:
        settings = MqttSettings(port=broker.port)  # protocol "5", the default
        with pytest.raises(NoArenaError, match="holds no status"):
            await send_gift(settings, gift_for_test(GiftEffect.CHEER), require_arena=True)
        v311 = aiomqtt.ProtocolVersion.V311
        async with aiomqtt.Client("127.0.0.1", broker.port, protocol=v311) as client:
            await client.publish("ddz-arena/status", b"online", qos=1, retain=True)
        listening = MqttSettings(port=broker.port, protocol="3.1.1")
        inbox, ready = CollectingInbox(), asyncio.Event()
        listener = asyncio.create_task(listen_for_gifts(listening, inbox, ready=ready))
        try:
            await asyncio.wait_for(ready.wait(), 10)
            gift = gift_for_test(GiftEffect.DOUBLE, event_id="to-embedded")
            await send_gift(settings, gift, require_arena=True)
            await asyncio.wait_for(inbox.wait_for(1), 10)
        finally:
            listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await listener
    finally:
        await broker.stop()
    assert [g.event_id for g in inbox.accepted] == ["to-embedded"]


# ---------------------------------------------------------------- a broker's ACL

ACL = Path(__file__).resolve().parent.parent / "config" / "mosquitto.acl"
ACL_USERS = {"arena": "arena-secret", "gifts": "gifts-secret"}
GIFTS_USER = {"GIFT_USER": "gifts", "GIFT_PW": ACL_USERS["gifts"]}


@pytest.fixture(name="guarded")
def guarded_fixture(tmp_path: Path) -> Iterator[Mosquitto]:
    """A Mosquitto with config/mosquitto.acl: anonymous clients may not send gifts."""
    broker = Mosquitto(tmp_path, users=ACL_USERS, acl=ACL)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()


async def test_a_gift_the_broker_refuses_is_an_error_naming_the_refusal(
    guarded: Mosquitto,
) -> None:
    """Over MQTT 5 Mosquitto acknowledges a publish its ACL forbids with reason code 135:
    the gift is lost, and send_gift says so rather than return as if it were sent."""
    with pytest.raises(GiftSendError) as refused:
        await send_gift(MqttSettings(port=guarded.port), gift_for_test(GiftEffect.CHEER))
    text = str(refused.value)
    assert text.startswith("the broker refused the gift: Not authorized (135)")
    assert f"anonymously to ddz-arena/gifts/in at {guarded.url}" in text
    assert "only the gifts user may send" in text


async def test_the_gifts_user_sends_through_the_acl(
    guarded: Mosquitto, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in GIFTS_USER.items():
        monkeypatch.setenv(name, value)
    arena = MqttSettings(port=guarded.port, username_env="ARENA_USER", password_env="ARENA_PW")
    monkeypatch.setenv("ARENA_USER", "arena")
    monkeypatch.setenv("ARENA_PW", ACL_USERS["arena"])
    sender = MqttSettings(port=guarded.port, username_env="GIFT_USER", password_env="GIFT_PW")
    async with listening(arena) as inbox:
        await send_gift(sender, gift_for_test(GiftEffect.PEEK, event_id="allowed"))
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    assert [g.event_id for g in inbox.accepted] == ["allowed"]


async def test_over_mqtt_3_1_1_a_refusal_cannot_be_told(guarded: Mosquitto) -> None:
    """MQTT 3.1.1's PUBACK has no reason code and Mosquitto drops a forbidden publish
    silently: the limitation send_gift's docstring states."""
    settings = MqttSettings(port=guarded.port, protocol="3.1.1")
    await send_gift(settings, gift_for_test(GiftEffect.CHEER))  # returns: nothing to tell


def test_the_command_says_the_refusal_in_one_line_and_status_1(
    guarded: Mosquitto, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_gift_command(parsed("cheer", "--mqtt", guarded.url, "--force")) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1
    assert captured.err.startswith(
        "arena: error: the broker refused the gift: Not authorized (135)"
    )


# ---------------------------------------------------------------- no arena to take it


async def test_with_no_arena_on_the_broker_nothing_is_sent_and_the_command_says_so(
    mosquitto: Mosquitto, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broker where no arena plays: no status there (none ever played), then
    ``offline`` (its match is over). The command sends nothing, says why in one line and
    exits 1; --force sends all the same."""
    settings = MqttSettings(port=mosquitto.port)
    async with listening(settings) as inbox:  # a listener, but no arena's status
        none = parsed("cheer", "--mqtt", mosquitto.url, "--event-id", "unchecked-1")
        assert await asyncio.to_thread(run_gift_command, none) == 1
        first = capsys.readouterr()
        await arena_status(mosquitto.port, "offline")
        assert await asyncio.to_thread(run_gift_command, none) == 1
        second = capsys.readouterr()
        await arena_status(mosquitto.port, '{"status": "offline", "run": "r1"}')  # as JSON
        assert await asyncio.to_thread(run_gift_command, none) == 1
        assert capsys.readouterr() == second
        forced = parsed("cheer", "--mqtt", mosquitto.url, "--event-id", "forced", "--force")
        assert await asyncio.to_thread(run_gift_command, forced) == 0
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    assert [g.event_id for g in inbox.accepted] == ["forced"]  # the others never went
    assert first.out == second.out == ""
    assert first.err == (
        f"arena: error: no arena is playing at {mosquitto.url}: ddz-arena/status holds no "
        "status (an arena playing with --mqtt keeps 'online' there); start one with --mqtt "
        "--gifts on this broker and topic prefix, or --force sends the gift unchecked\n"
    )
    assert second.err == (
        f"arena: error: the arena at {mosquitto.url} is offline (ddz-arena/status: its match "
        "is over, or it stopped): nothing would take the gift; --force sends it unchecked\n"
    )
    assert capsys.readouterr().out.startswith("sent CHEER (event forced")


async def test_an_arena_online_without_gifts_is_said_to_take_none(mosquitto: Mosquitto) -> None:
    """Online, but nothing subscribes to gifts/in (an arena playing without --gifts):
    Mosquitto acknowledges the gift with MQTT 5's "No matching subscribers"."""
    await arena_status(mosquitto.port, '{"status": "online", "run": "r1", "degraded": []}')
    with pytest.raises(NoArenaError, match="is online but takes no gifts: nothing subscribes"):
        await send_gift(
            MqttSettings(port=mosquitto.port), gift_for_test(GiftEffect.CHEER), require_arena=True
        )
    await send_gift(MqttSettings(port=mosquitto.port), gift_for_test(GiftEffect.CHEER))  # unchecked


async def test_the_gifts_user_may_read_the_status_through_the_acl(
    guarded: Mosquitto, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config/mosquitto.acl lets the gifts user read the arena's status: the check works
    for a bridge's user as well."""
    for name, value in GIFTS_USER.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("ARENA_USER", "arena")
    monkeypatch.setenv("ARENA_PW", ACL_USERS["arena"])
    arena = MqttSettings(port=guarded.port, username_env="ARENA_USER", password_env="ARENA_PW")
    sender = MqttSettings(port=guarded.port, username_env="GIFT_USER", password_env="GIFT_PW")
    async with aiomqtt.Client(
        "127.0.0.1", guarded.port, username="arena", password=ACL_USERS["arena"]
    ) as client:
        await client.publish("ddz-arena/status", b"online", qos=1, retain=True)
    elsewhere = sender.model_copy(update={"topic_prefix": "other"})  # the ACL hides it
    with pytest.raises(NoArenaError, match=r"ACL must let the user named by \$GIFT_USER read"):
        await send_gift(elsewhere, gift_for_test(GiftEffect.PEEK), require_arena=True)
    async with listening(arena) as inbox:
        await send_gift(
            sender, gift_for_test(GiftEffect.PEEK, event_id="checked"), require_arena=True
        )
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    assert [g.event_id for g in inbox.accepted] == ["checked"]
