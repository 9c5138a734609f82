"""The tournament's leaderboard over MQTT (issue 12): retained, every round's while the
broker keeps up, coalesced only under backpressure, never holding the tournament up,
with the tournament's name and status; read back from a real Mosquitto."""

from __future__ import annotations

import asyncio
import logging
import os
import signal

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)

from arena.config import MqttSettings
from arena.errors import ConfigError
from tournaments.publish import MAX_PENDING, LeaderboardPublisher, leaderboard_topic


def board(n: int) -> dict[str, object]:
    return {"tournament": "t-1", "after_rounds": n, "agents": [{"name": "A", "points": n}]}


async def retained(broker: Mosquitto, topic: str) -> list[bytes]:
    """What a subscriber that arrives now gets at once: the retained message, if any."""
    async with aiomqtt.Client("127.0.0.1", broker.port, identifier="fresh-reader") as client:
        await client.subscribe(topic, qos=1)
        got: list[bytes] = []
        try:
            async with asyncio.timeout(1.0):
                async for message in client.messages:
                    assert message.retain
                    got.append(bytes(message.payload))
        except TimeoutError:
            pass
        return got


def doc(n: int, status: str = "running", name: str | None = None) -> dict[str, object]:
    """What the publisher sends for ``board(n)``."""
    return {**board(n), "name": name, "status": status}


async def test_a_fresh_subscriber_reads_the_latest_leaderboard(mosquitto: Mosquitto) -> None:
    settings = MqttSettings(port=mosquitto.port)
    publisher = LeaderboardPublisher(settings, "t-1")
    for n in range(1, 6):  # all at once: queued, sent in order
        publisher.publish(board(n))
    assert await publisher.close(within_s=5)
    topic = leaderboard_topic(settings, "t-1")
    assert topic == "ddz-arena/tournaments/t-1/leaderboard"
    assert [orjson.loads(p) for p in await retained(mosquitto, topic)] == [doc(5)]
    assert publisher.published == 5
    assert publisher.skipped == 0


async def live(
    broker: Mosquitto, topic: str, ready: asyncio.Event, got: list[dict[str, object]]
) -> None:
    """A subscriber watching ``topic`` until a document that is not ``running`` comes."""
    async with aiomqtt.Client("127.0.0.1", broker.port, identifier="live-reader") as client:
        await client.subscribe(topic, qos=1)
        ready.set()
        async for message in client.messages:
            got.append(orjson.loads(bytes(message.payload)))
            if got[-1]["status"] != "running":
                return


async def test_a_live_subscriber_sees_every_round_then_the_end(mosquitto: Mosquitto) -> None:
    settings = MqttSettings(port=mosquitto.port)
    topic = leaderboard_topic(settings, "t-5")
    ready, got = asyncio.Event(), list[dict[str, object]]()
    watcher = asyncio.create_task(live(mosquitto, topic, ready, got))
    await ready.wait()
    publisher = LeaderboardPublisher(settings, "t-5", name="Cup")
    rounds = 40
    for n in range(1, rounds + 1):  # a fast run's pace: a round every few milliseconds
        publisher.publish(board(n))
        await asyncio.sleep(0.005)
    publisher.finish("finished")
    assert await publisher.close(within_s=5)
    async with asyncio.timeout(5):
        await watcher
    assert got == [doc(n, name="Cup") for n in range(1, rounds + 1)] + [
        doc(rounds, "finished", "Cup")
    ]
    assert publisher.skipped == 0
    kept = [orjson.loads(p) for p in await retained(mosquitto, topic)]
    assert kept == [doc(rounds, "finished", "Cup")]


async def test_an_interrupted_tournament_says_so_with_its_last_standings(
    mosquitto: Mosquitto,
) -> None:
    settings = MqttSettings(port=mosquitto.port)
    publisher = LeaderboardPublisher(settings, "t-6", name="Daily show")
    publisher.publish(board(7))
    publisher.finish("interrupted")
    with pytest.raises(RuntimeError, match="interrupted"):
        publisher.publish(board(8))  # over: the runner's mistake, said plainly
    assert await publisher.close(within_s=5)
    topic = leaderboard_topic(settings, "t-6")
    kept = [orjson.loads(p) for p in await retained(mosquitto, topic)]
    assert kept == [doc(7, "interrupted", "Daily show")]


async def test_a_tournament_ending_before_its_first_round_still_says_its_status(
    mosquitto: Mosquitto,
) -> None:
    settings = MqttSettings(port=mosquitto.port)
    publisher = LeaderboardPublisher(settings, "t-7", name="Cup")
    publisher.finish("interrupted")
    assert await publisher.close(within_s=5)
    kept = [orjson.loads(p) for p in await retained(mosquitto, leaderboard_topic(settings, "t-7"))]
    assert kept == [{"tournament": "t-7", "name": "Cup", "status": "interrupted"}]


async def test_a_stalled_broker_never_slows_the_tables_and_the_last_state_arrives(
    mosquitto: Mosquitto,
) -> None:
    settings = MqttSettings(port=mosquitto.port)
    publisher = LeaderboardPublisher(settings, "t-8", name="Cup")
    publisher.publish(board(0))
    for _ in range(100):  # connected and the first document gone
        if publisher.published:
            break
        await asyncio.sleep(0.02)
    assert publisher.published == 1
    assert mosquitto._process is not None
    pid = mosquitto._process.pid
    os.kill(pid, signal.SIGSTOP)  # the broker stops answering: its socket still open
    try:
        loop = asyncio.get_running_loop()
        started = loop.time()
        rounds = 1000
        for n in range(1, rounds + 1):  # a round each time the loop turns
            publisher.publish(board(n))
            await asyncio.sleep(0)
        assert loop.time() - started < 1.0  # never held up by the stalled broker
        assert publisher.skipped >= rounds - MAX_PENDING  # coalesced: memory bounded
    finally:
        os.kill(pid, signal.SIGCONT)
    publisher.finish("finished")
    assert await publisher.close(within_s=10)
    kept = [orjson.loads(p) for p in await retained(mosquitto, leaderboard_topic(settings, "t-8"))]
    assert kept == [doc(1000, "finished", "Cup")]


async def test_publishing_never_waits_and_an_absent_broker_costs_only_the_bound(
    caplog: pytest.LogCaptureFixture,
) -> None:
    settings = MqttSettings(port=free_port())  # nobody listens there
    publisher = LeaderboardPublisher(settings, "t-2", first_backoff_s=0.05)
    caplog.set_level(logging.DEBUG)
    loop = asyncio.get_running_loop()
    started = loop.time()
    for n in range(100):
        publisher.publish(board(n))
    assert loop.time() - started < 0.05  # the tournament is never held up
    assert publisher.skipped == 100 - MAX_PENDING  # bounded while nobody takes them
    await asyncio.sleep(0.5)  # several connection attempts
    assert await publisher.close(within_s=0.2) is False
    away = [r for r in caplog.records if "leaderboard_broker_away" in r.getMessage()]
    assert len(away) == 1  # one warning per outage, not one per attempt
    assert any("leaderboard_undelivered" in r.getMessage() for r in caplog.records)


async def test_the_latest_goes_out_once_the_broker_is_back(tmp_path: object) -> None:
    from pathlib import Path

    broker = Mosquitto(Path(str(tmp_path)))
    settings = MqttSettings(port=broker.port)
    publisher = LeaderboardPublisher(settings, "t-3", first_backoff_s=0.05)
    publisher.publish(board(1))  # the broker is not up yet
    await asyncio.sleep(0.2)
    broker.start()
    try:
        publisher.publish(board(2))
        assert await publisher.close(within_s=5)
        topic = leaderboard_topic(settings, "t-3")
        assert [orjson.loads(p) for p in await retained(broker, topic)] == [doc(2)]
    finally:
        broker.stop()


def test_an_unset_credential_variable_is_refused_at_once() -> None:
    settings = MqttSettings(username_env="NO_SUCH_VARIABLE_FOR_THE_BOARD")
    with pytest.raises(ConfigError, match="NO_SUCH_VARIABLE_FOR_THE_BOARD"):
        LeaderboardPublisher(settings, "t-4", environ={})
