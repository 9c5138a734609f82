"""The gift sources: payloads judged, the MQTT listener, a JSON-lines replay, a simulated
audience.

The MQTT tests run a real Mosquitto of their own on free ports (tests/mosquitto.py),
publish with :func:`gifts.send.send_gift` or a raw aiomqtt client, and read what the
listener handed to a :class:`CollectingInbox`.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.logs import EVENT_ATTRIBUTE
from gifts.events import GiftEffect, GiftEvent, GiftKind
from gifts.send import gift_for_test, send_gift
from gifts.sources import (
    MAX_PAYLOAD_BYTES,
    CollectingInbox,
    Refusal,
    gifts_topic,
    listen_for_gifts,
    parse_gift,
    replay_gift_file,
    simulate_audience,
)
from gifts.sources.simulated import simulated_gifts

GOOD = {"event_id": "m-1", "platform": "bilibili", "gift_name": "小花花", "effect": "CHEER"}


def payload(**fields: Any) -> bytes:
    return orjson.dumps({**GOOD, **fields})


# ---------------------------------------------------------------- payloads judged


def test_a_valid_payload_is_a_gift_whatever_its_form() -> None:
    for form in (payload(), payload().decode(), dict(GOOD), bytearray(payload())):
        gift = parse_gift(form)
        assert isinstance(gift, GiftEvent), form
        assert gift.effect is GiftEffect.CHEER
        assert gift.gift_name == "小花花"
    timed = parse_gift(payload(sent_at="2026-01-02T03:04:05Z", kind="super_chat"))
    assert isinstance(timed, GiftEvent)
    assert timed.kind is GiftKind.SUPER_CHAT  # JSON's rules: enums and times as strings
    assert timed.sent_at is not None
    assert timed.sent_at.year == 2026


HUGE = "x" * 5000


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (b"not json at all", "not JSON"),
        (b"", "not JSON"),
        (b"\xff\xfe{}", "not JSON"),
        (b"[1, 2]", "not a JSON object: a list"),
        (b'"a gift"', "not a JSON object: a string"),
        (b"42", "not a JSON object: a number"),
        (b"null", "not a JSON object: null"),
        (payload(count="3"), "count: Input should be a valid integer"),
        (payload(event_id=7), "event_id: Input should be a valid string"),
        (payload(target_seat=6), "target_seat: Input should be less than or equal to 5"),
        (payload(effect="TELEPORT"), "effect: Input should be 'CHEER'"),
        (payload(color="red"), "color: Extra inputs are not permitted"),
        (payload(message=HUGE), "message: 5000 characters: far more than any viewer text"),
        (orjson.dumps({"platform": "bilibili"}), "event_id: Field required"),
        (payload(raw={"blob": "y" * 17_000}), "raw: the raw payload is"),
        (payload(padding="z" * MAX_PAYLOAD_BYTES), "payload too large"),
    ],
)
def test_a_payload_that_is_no_gift_is_refused_with_a_short_reason(
    raw: bytes, expected: str
) -> None:
    reason = parse_gift(raw)
    assert isinstance(reason, str)
    assert expected in reason
    assert len(reason) < 400
    assert "xxxxxxxxxx" not in reason
    assert "zzzzzzzzzz" not in reason


def test_a_refusal_names_a_few_problems_and_counts_the_rest() -> None:
    reason = parse_gift(orjson.dumps({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5}))
    assert isinstance(reason, str)
    assert reason == (
        "event_id: Field required; platform: Field required; "
        "a: Extra inputs are not permitted; and 4 more"  # b to e
    )
    long_key = parse_gift(orjson.dumps({**GOOD, "k" * 5000 + "\n": 1}))
    assert isinstance(long_key, str)
    assert len(long_key) < 200
    assert "\n" not in long_key


# ---------------------------------------------------------------- the MQTT listener


def settings_for(broker: Mosquitto, **fields: Any) -> MqttSettings:
    return MqttSettings(port=broker.port, **fields)


@asynccontextmanager
async def listening(
    settings: MqttSettings, inbox: CollectingInbox, ready: asyncio.Event | None = None
) -> AsyncIterator[asyncio.Task[None]]:
    """The listener running, subscribed, for the block's length; cancelled after."""
    ready = ready or asyncio.Event()
    task = asyncio.create_task(
        listen_for_gifts(settings, inbox, ready=ready, first_backoff_s=0.05, backoff_cap_s=0.2)
    )
    try:
        async with asyncio.timeout(5):
            await ready.wait()
        yield task
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task


async def test_a_sent_gift_arrives_at_the_listener(mosquitto: Mosquitto) -> None:
    settings = settings_for(mosquitto)
    inbox = CollectingInbox()
    gift = gift_for_test(
        GiftEffect.SWAP, viewer="小明", table="t1", target=1, message="换牌给 Alpha"
    )
    async with listening(settings, inbox):
        await send_gift(settings, gift)
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    assert inbox.accepted == [gift]
    assert inbox.refused == []


async def test_the_topic_follows_the_prefix(mosquitto: Mosquitto) -> None:
    settings = settings_for(mosquitto, topic_prefix="studio/ddz", protocol="3.1.1")
    assert gifts_topic(settings) == "studio/ddz/gifts/in"
    inbox = CollectingInbox()
    async with listening(settings, inbox):
        await send_gift(settings_for(mosquitto), gift_for_test(GiftEffect.EMOTE))  # another prefix
        await send_gift(settings, gift_for_test(GiftEffect.CHEER))
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
        await asyncio.sleep(0.1)
    assert [g.effect for g in inbox.accepted] == [GiftEffect.CHEER]


async def test_malformed_payloads_are_refused_and_the_listener_goes_on(
    mosquitto: Mosquitto,
) -> None:
    settings = settings_for(mosquitto)
    inbox = CollectingInbox()
    bad = [
        b"{not json",
        b"[1, 2, 3]",
        payload(event_id="m-2", count=1.5),
        payload(event_id="m-3", wings=True),
        payload(event_id="m-4", display_name=HUGE),
        payload(event_id="m-5", padding="z" * (MAX_PAYLOAD_BYTES + 1)),
    ]
    async with listening(settings, inbox):
        async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
            for message in [*bad, payload(event_id="m-6")]:
                await client.publish(gifts_topic(settings), message, qos=1)
        async with asyncio.timeout(5):
            await inbox.wait_for(len(bad) + 1)
    assert [g.event_id for g in inbox.accepted] == ["m-6"]
    reasons = [r.reason for r in inbox.refused]
    assert reasons[0].startswith("not JSON")
    assert reasons[1] == "not a JSON object: a list"
    assert reasons[2] == "count: Input should be a valid integer"
    assert reasons[3] == "wings: Extra inputs are not permitted"
    assert reasons[4].startswith("display_name: 5000 characters")
    assert reasons[5].startswith("payload too large")
    claimed = [(r.event_id, r.platform) for r in inbox.refused]
    assert claimed[2:5] == [("m-2", "bilibili"), ("m-3", "bilibili"), ("m-4", "bilibili")]
    assert claimed[0] == (None, None)


def logged(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, Any]]:
    found = [getattr(r, EVENT_ATTRIBUTE, None) for r in caplog.records]
    return [e for e in found if e is not None and e.get("event") == event]


async def test_the_listener_reconnects_after_the_broker_restarts(
    mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="gifts.sources.mqtt_in")
    settings = settings_for(mosquitto)
    inbox = CollectingInbox()
    ready = asyncio.Event()
    async with listening(settings, inbox, ready) as task:
        await asyncio.to_thread(mosquitto.stop)
        async with asyncio.timeout(5):
            while ready.is_set():  # noqa: ASYNC110 (cleared by the listener, no event for it)
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.5)  # a few refused attempts, under the backoff
        assert not task.done()
        await asyncio.to_thread(mosquitto.start)
        async with asyncio.timeout(5):
            await ready.wait()
        await send_gift(settings, gift_for_test(GiftEffect.DOUBLE, event_id="after"))
        async with asyncio.timeout(5):
            await inbox.wait_for(1)
    assert [g.event_id for g in inbox.accepted] == ["after"]
    disconnected = logged(caplog, "gift_source_disconnected")
    assert disconnected
    assert all(e["broker"] == f"mqtt://127.0.0.1:{mosquitto.port}" for e in disconnected)
    waits = [e["retry_in_s"] for e in disconnected]
    assert waits[0] == 0.05
    assert max(waits) == 0.2
    # the outage told once at warning, its further attempts at debug, then its end
    assert levels(caplog, "gift_source_disconnected")[0] == logging.WARNING
    assert set(levels(caplog, "gift_source_disconnected")[1:]) == {logging.DEBUG}
    assert levels(caplog, "gift_source_listening") == [logging.INFO, logging.WARNING]
    back = logged(caplog, "gift_source_listening")[1]
    assert back["back"] is True
    assert back["detail"].startswith("back after ")


def levels(caplog: pytest.LogCaptureFixture, event: str) -> list[int]:
    """The levels of one event's lines, in order."""
    return [
        r.levelno for r in caplog.records if getattr(r, EVENT_ATTRIBUTE, {}).get("event") == event
    ]


async def test_a_broker_that_stays_away_is_one_warning_however_many_retries(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG, logger="gifts.sources.mqtt_in")
    port = free_port()  # nobody listens
    task = asyncio.create_task(
        listen_for_gifts(
            MqttSettings(port=port), CollectingInbox(), first_backoff_s=0.01, backoff_cap_s=0.02
        )
    )
    try:
        async with asyncio.timeout(10):
            while len(logged(caplog, "gift_source_disconnected")) < 5:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    warnings = [
        getattr(r, EVENT_ATTRIBUTE)
        for r in caplog.records
        if r.name == "gifts.sources.mqtt_in" and r.levelno >= logging.WARNING
    ]
    assert len(warnings) == 1
    [first] = warnings
    assert first["event"] == "gift_source_disconnected"
    assert first["broker"] == f"mqtt://127.0.0.1:{port}"
    assert first["retry_in_s"] == 0.01
    assert "at most 0.02 s apart" in first["detail"]
    later = logged(caplog, "gift_source_disconnected")[1:]
    assert [e["failures"] for e in later[:3]] == [2, 3, 4]


async def test_credentials_come_from_the_environment_and_are_never_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    broker = Mosquitto(tmp_path, users={"gifter": "s3cret-pw"})
    broker.start()
    try:
        settings = settings_for(broker, username_env="GIFT_USER", password_env="GIFT_PASSWORD")
        monkeypatch.setenv("GIFT_USER", "gifter")
        monkeypatch.setenv("GIFT_PASSWORD", "s3cret-pw")
        inbox = CollectingInbox()
        async with listening(settings, inbox):
            await send_gift(settings, gift_for_test(GiftEffect.CHEER, event_id="with-login"))
            async with asyncio.timeout(5):
                await inbox.wait_for(1)
        assert [g.event_id for g in inbox.accepted] == ["with-login"]

        monkeypatch.setenv("GIFT_PASSWORD", "wrong-pw")
        task = asyncio.create_task(
            listen_for_gifts(settings, CollectingInbox(), first_backoff_s=0.05, backoff_cap_s=0.1)
        )
        async with asyncio.timeout(5):
            while not logged(caplog, "gift_source_disconnected"):  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    finally:
        broker.stop()
    assert "s3cret-pw" not in caplog.text
    assert "wrong-pw" not in caplog.text


async def test_an_unset_credential_variable_is_a_config_error_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_SUCH_GIFT_USER", raising=False)
    settings = MqttSettings(port=1, username_env="NO_SUCH_GIFT_USER")
    with pytest.raises(ConfigError, match="NO_SUCH_GIFT_USER is not set"):
        async with asyncio.timeout(2):
            await listen_for_gifts(settings, CollectingInbox())


async def test_an_inbox_that_fails_does_not_stop_the_listener(
    mosquitto: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    class Fragile(CollectingInbox):
        async def accept(self, gift: GiftEvent) -> None:
            await super().accept(gift)
            if gift.event_id == "first":
                raise RuntimeError("the desk tripped")

    settings = settings_for(mosquitto)
    inbox = Fragile()
    async with listening(settings, inbox) as task:
        for event_id in ("first", "second"):
            await send_gift(settings, gift_for_test(GiftEffect.EMOTE, event_id=event_id))
        async with asyncio.timeout(5):
            await inbox.wait_for(2)
        assert not task.done()
    assert [g.event_id for g in inbox.accepted] == ["first", "second"]
    assert logged(caplog, "gift_inbox_failed")


# ---------------------------------------------------------------- JSON-lines replay


class FakeTime:
    """A clock that only the fake sleep moves, and the waits it was asked for."""

    def __init__(self) -> None:
        self.now = 100.0
        self.waits: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.now += seconds


def line(**fields: Any) -> str:
    return orjson.dumps(fields).decode()


def gift_file(tmp_path: Path) -> Path:
    path = tmp_path / "gifts.jsonl"
    path.write_text(
        "\n".join(
            [
                line(event_id="g1", platform="test", effect="CHEER", at=0),
                line(event_id="g2", platform="test", effect="SWAP", at=1.5),
                "",
                line(event_id="g3", platform="test", effect="EMOTE"),
                line(event_id="g4", platform="test", effect="DOUBLE", at=1.0),
                "   ",
                "{broken",
                line(event_id="g5", platform="test", effect="PEEK", at="soon"),
                line(event_id="g6", platform="test", effect="PEEK", mood="happy", at=2),
                "[]",
                line(event_id="g7", platform="test", effect="EFFECT", at=4),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    return path


async def test_a_replay_keeps_the_file_order_and_waits_for_each_time(tmp_path: Path) -> None:
    fake, inbox = FakeTime(), CollectingInbox()
    read = await replay_gift_file(gift_file(tmp_path), inbox, sleep=fake.sleep, clock=fake.clock)
    assert read == 9
    assert [g.event_id for g in inbox.accepted] == ["g1", "g2", "g3", "g4", "g7"]
    assert fake.waits == [1.5, 2.5]  # g4's time had passed: sent at once, not sorted


async def test_a_replay_at_twice_the_speed_halves_the_waits(tmp_path: Path) -> None:
    fake, inbox = FakeTime(), CollectingInbox()
    await replay_gift_file(gift_file(tmp_path), inbox, speed=2, sleep=fake.sleep, clock=fake.clock)
    assert fake.waits == [0.75, 1.25]


async def test_bad_lines_are_refused_with_their_numbers(tmp_path: Path) -> None:
    fake, inbox = FakeTime(), CollectingInbox()
    await replay_gift_file(gift_file(tmp_path), inbox, sleep=fake.sleep, clock=fake.clock)
    reasons = [r.reason for r in inbox.refused]
    assert len(reasons) == 4
    assert reasons[0].startswith("line 7: not JSON")
    assert reasons[1] == "line 8: at: should be seconds since the start, 0 or more"
    assert reasons[2] == "line 9: mood: Extra inputs are not permitted"
    assert reasons[3] == "line 10: not a JSON object: a list"
    assert inbox.refused[1] == Refusal(reasons[1], "g5", "test")


async def test_a_replay_of_a_missing_file_names_it(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"nowhere\.jsonl: no such gift file"):
        await replay_gift_file(tmp_path / "nowhere.jsonl", CollectingInbox())
    with pytest.raises(ConfigError, match="is a folder, not a gift file"):
        await replay_gift_file(tmp_path, CollectingInbox())
    with pytest.raises(ValueError, match="speed"):
        await replay_gift_file(gift_file(tmp_path), CollectingInbox(), speed=0)


async def test_a_replay_cancelled_early_counts_the_lines_not_sent(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """The match ends while the replay waits for g2's time: g2 and the 7 non-blank lines
    after it (bad ones included) were not sent, said in one warning."""
    caplog.set_level(logging.INFO, logger="gifts.sources.jsonl")
    waiting = asyncio.Event()

    async def blocking_sleep(seconds: float) -> None:
        waiting.set()
        await asyncio.Event().wait()  # until cancelled

    path, inbox = gift_file(tmp_path), CollectingInbox()
    replay = asyncio.create_task(replay_gift_file(path, inbox, sleep=blocking_sleep))
    async with asyncio.timeout(5):
        await waiting.wait()
    replay.cancel()
    with pytest.raises(asyncio.CancelledError):
        await replay
    assert [g.event_id for g in inbox.accepted] == ["g1"]
    [unsent] = logged(caplog, "gift_file_unsent")
    assert (unsent["unsent"], unsent["path"]) == (8, str(path))
    assert unsent["detail"] == (
        f"8 line(s) of {path} were not sent: the match ended first (slow the match "
        "with --pace, or shorten the file's times)"
    )
    jsonl_levels = [r.levelno for r in caplog.records if r.name == "gifts.sources.jsonl"]
    assert jsonl_levels == [logging.WARNING]


async def test_a_replay_run_to_its_end_warns_of_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG, logger="gifts.sources.jsonl")
    fake = FakeTime()
    await replay_gift_file(
        gift_file(tmp_path), CollectingInbox(), sleep=fake.sleep, clock=fake.clock
    )
    assert not logged(caplog, "gift_file_unsent")


async def test_a_replay_with_real_time_sends_on_schedule(tmp_path: Path) -> None:
    path = tmp_path / "quick.jsonl"
    path.write_text(line(event_id="q1", platform="test", at=0.2) + "\n", encoding="utf-8")
    inbox = CollectingInbox()
    loop = asyncio.get_running_loop()
    started = loop.time()
    assert await replay_gift_file(path, inbox) == 1
    assert loop.time() - started >= 0.19
    assert [g.event_id for g in inbox.accepted] == ["q1"]


# ---------------------------------------------------------------- simulated audience


PLAYERS = ("Alpha", "Beta", "Gamma")


class Waits:
    def __init__(self) -> None:
        self.seconds: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.seconds.append(seconds)


async def simulated(seed: int, count: int, **options: Any) -> tuple[CollectingInbox, Waits]:
    inbox, waits = CollectingInbox(), Waits()
    sent = await simulate_audience(
        inbox, seed=seed, players=PLAYERS, limit=count, sleep=waits, **options
    )
    assert sent == count
    return inbox, waits


async def test_the_same_seed_gives_the_same_audience() -> None:
    first, first_waits = await simulated(7, 60)
    again, again_waits = await simulated(7, 60)
    other, _ = await simulated(8, 60)
    assert first.accepted == again.accepted
    assert first_waits.seconds == again_waits.seconds
    assert first.accepted != other.accepted
    slower, _ = await simulated(7, 60, rate_per_s=0.1)
    assert slower.accepted == first.accepted  # the rate changes the gaps, not the gifts


async def test_the_simulated_gifts_are_valid_and_plausible() -> None:
    inbox, waits = await simulated(3, 600, rate_per_s=2.0)
    gifts = inbox.accepted
    assert [g.event_id for g in gifts] == [f"sim-{n}" for n in range(1, 601)]
    assert all(g.platform == "simulated" and g.effect is not None for g in gifts)
    assert all(GiftEvent.model_validate_json(g.model_dump_json()) == g for g in gifts)
    effects = [g.effect for g in gifts]
    harmless = sum(e in (GiftEffect.CHEER, GiftEffect.EMOTE, GiftEffect.EFFECT) for e in effects)
    rare = sum(e in (GiftEffect.ROLE_SWAP, GiftEffect.RESHUFFLE) for e in effects)
    assert harmless > 0.55 * len(gifts)
    assert 0 < rare < 0.08 * len(gifts)
    assert set(effects) == set(GiftEffect)
    cheers = [g.message for g in gifts if g.effect is GiftEffect.CHEER]
    assert any("加油 " in m and any(p in m for p in PLAYERS) for m in cheers)
    names = {g.display_name for g in gifts}
    assert any(n.isascii() for n in names)
    assert any(not n.isascii() for n in names)
    assert statistics.mean(waits.seconds) == pytest.approx(0.5, rel=0.2)


async def test_a_simulated_audience_runs_until_cancelled() -> None:
    inbox = CollectingInbox()
    task = asyncio.create_task(simulate_audience(inbox, seed=1, players=PLAYERS, rate_per_s=1000.0))
    async with asyncio.timeout(5):
        await inbox.wait_for(5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with pytest.raises(ValueError, match="rate_per_s"):
        await simulate_audience(inbox, seed=1, players=PLAYERS, rate_per_s=0)


def test_simulated_gifts_without_players_name_nobody() -> None:
    next_gift: Callable[[], GiftEvent] = simulated_gifts(5, ())
    messages = [next_gift().message for _ in range(300)]
    assert not any(p in m for m in messages for p in PLAYERS)
