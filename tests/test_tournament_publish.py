"""The tournament's leaderboard over MQTT (issue 12): retained, the latest only, never
holding the tournament up; read back by a fresh subscriber from a real Mosquitto."""

from __future__ import annotations

import asyncio
import logging

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)

from arena.config import MqttSettings
from arena.errors import ConfigError
from tournaments.publish import LeaderboardPublisher, leaderboard_topic


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


async def test_a_fresh_subscriber_reads_the_latest_leaderboard(mosquitto: Mosquitto) -> None:
    settings = MqttSettings(port=mosquitto.port)
    publisher = LeaderboardPublisher(settings, "t-1")
    for n in range(1, 6):  # faster than it can go: only the newest must stay
        publisher.publish(board(n))
    assert await publisher.close(within_s=5)
    topic = leaderboard_topic(settings, "t-1")
    assert topic == "ddz-arena/tournaments/t-1/leaderboard"
    assert [orjson.loads(p) for p in await retained(mosquitto, topic)] == [board(5)]
    assert 1 <= publisher.published <= 5


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
        assert [orjson.loads(p) for p in await retained(broker, topic)] == [board(2)]
    finally:
        broker.stop()


def test_an_unset_credential_variable_is_refused_at_once() -> None:
    settings = MqttSettings(username_env="NO_SUCH_VARIABLE_FOR_THE_BOARD")
    with pytest.raises(ConfigError, match="NO_SUCH_VARIABLE_FOR_THE_BOARD"):
        LeaderboardPublisher(settings, "t-4", environ={})
