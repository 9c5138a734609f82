"""Where a match of ``arena play`` goes besides the terminal: the MQTT publisher of
``--mqtt`` (with an embedded broker when none answers), the delayed spectator feed of
``--spectator-delay``, each set up with a line saying where and closed with a line
saying what never got there."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from typing import TYPE_CHECKING

from arena.commands.play_config import DEFAULT_BROKER
from arena.config import ArenaConfig
from arena.logs import say

if TYPE_CHECKING:  # imported when used: the parser is built for every command
    from arena.server.wiring import ArenaServer
    from arena.sinks.embedded_broker import EmbeddedBroker
    from arena.sinks.mqtt import MqttSink
    from arena.sinks.spectator import SpectatorFeed

__all__ = [
    "close_spectator_feed",
    "default_broker",
    "mqtt_sink",
    "say_undelivered",
    "spectator_feed",
]


def default_broker(
    config: ArenaConfig, args: argparse.Namespace
) -> tuple[ArenaConfig, EmbeddedBroker | None]:
    """``--mqtt`` without URL: the broker answering at the [mqtt] address (127.0.0.1:1883
    by default), said; when none answers there, an embedded one (amqtt, MQTT 3.1.1) to
    start on it, bound to 127.0.0.1 only. The config to publish with, and that broker."""
    settings = config.mqtt
    if (
        args.mqtt != DEFAULT_BROKER
        or settings.tls
        or settings.host
        not in (
            "127.0.0.1",
            "localhost",
        )
    ):
        return config, None
    from arena.sinks.embedded_broker import EmbeddedBroker, broker_answers

    address = f"{settings.host}:{settings.port}"
    if broker_answers(settings.host, settings.port):
        return config, None  # the publishing line says where
    broker = EmbeddedBroker(settings.port)  # a ConfigError when amqtt is not installed
    say(
        args.log_format,
        "mqtt_broker_embedded",
        f"no MQTT broker answers at {address}: starting an embedded one (amqtt, MQTT 3.1.1) "
        f"on {broker.host}:{broker.port} for this match; for streams run Mosquitto "
        "(docs/mqtt.md)",
        broker=f"{broker.host}:{broker.port}",
    )
    mqtt = settings.model_copy(update={"host": broker.host, "protocol": "3.1.1"})
    return config.model_copy(update={"mqtt": mqtt}), broker


def mqtt_sink(config: ArenaConfig, args: argparse.Namespace, *, embedded: bool) -> MqttSink:
    """The MQTT publisher of ``--mqtt`` or ``[mqtt] enabled``, and a line saying where."""
    from arena.sinks.mqtt import MqttSink, new_run_id

    run_id = new_run_id()
    mqtt = MqttSink(config.mqtt, run_id=run_id, game=config.game)
    default = ""
    if args.mqtt == DEFAULT_BROKER:
        default = (
            " (the embedded one)" if embedded else " (it answers there; --mqtt URL names another)"
        )
    say(
        args.log_format,
        "mqtt_publishing",
        f"publishing the match to {mqtt.url}{default}, topics {config.mqtt.topic_prefix}/#, "
        f"run id {run_id}",
        broker=mqtt.url,
        topic_prefix=config.mqtt.topic_prefix,
        run_id=run_id,
    )
    return mqtt


def spectator_feed(
    config: ArenaConfig, mqtt: MqttSink | None, log_format: str, server: ArenaServer | None = None
) -> SpectatorFeed | None:
    """The delayed spectator feed of ``--spectator-delay`` or ``[spectator] enabled``,
    published through the MQTT sink and shown by the server's spectator view; None when
    off, or when enabled with nowhere to go (``[spectator]`` in a file played without
    ``--mqtt`` or ``--serve``: said, not refused)."""
    settings = config.spectator
    if not settings.enabled:
        return None
    if mqtt is None and server is None:
        say(
            log_format,
            "spectator_feed_off",
            "[spectator] is enabled but nothing publishes it: the spectator feed needs "
            "--mqtt or --serve to go anywhere, so it is off",
            level="warning",
        )
        return None
    from arena.server.wiring import spectator_outputs
    from arena.sinks.spectator import SpectatorFeed
    from arena.table.moderation import build_moderator

    outputs, where = spectator_outputs(mqtt, server)
    feed = SpectatorFeed(
        outputs,
        delay_s=settings.delay_s,
        max_pending=settings.max_pending,
        moderator=build_moderator(config.moderation),  # the tables' filter, for reasoning
    )
    if settings.delay_s < 1:
        say(
            log_format,
            "spectator_feed_live",
            f"the spectator delay is {settings.delay_s:g} s: every hand is shown as it is "
            "played, to anyone watching, players' authors too (fine for a match nobody "
            "plays for; a stream wants 30 s or more)",
            level="warning",
            delay_s=settings.delay_s,
        )
    say(
        log_format,
        "spectator_feed",
        f"every hand goes to {' and '.join(where)} {settings.delay_s:g} s after it happened",
        delay_s=settings.delay_s,
        to=where,
    )
    return feed


async def close_spectator_feed(feed: SpectatorFeed, log_format: str) -> None:
    """Release what the feed holds, each item no earlier than its delay: the match's
    last hands are shown. At most the delay and 5 s; 0.5 s once interrupted (Ctrl-C,
    SIGTERM), the rest dropped then. What never went out is counted and said."""
    task = asyncio.current_task()
    interrupted = task is not None and task.cancelling() > 0
    bound = 0.5 if interrupted else feed.delay_s + 5.0
    if not interrupted and feed.delay_s >= 2 and feed.pending:
        say(
            log_format,
            "spectator_feed_draining",
            f"the match is over; the spectator feed's last {feed.pending} item(s) go out "
            f"after their delay (up to {feed.delay_s:g} s; Ctrl-C drops them)",
            pending=feed.pending,
            delay_s=feed.delay_s,
        )
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(bound):
            await feed.close()
    if feed.dropped:
        say(
            log_format,
            "spectator_items_dropped",
            f"{feed.dropped} spectator item(s) were never published "
            f"({feed.released} were; see the warnings)",
            level="warning",
            dropped=feed.dropped,
            released=feed.released,
        )


def say_undelivered(log_format: str, mqtt: MqttSink) -> None:
    """After the match: how many events never reached the broker, if any."""
    missed = mqtt.stats.undelivered
    if missed:
        say(
            log_format,
            "mqtt_undelivered",
            f"{missed} event(s) were not acknowledged by the MQTT broker at {mqtt.url} "
            "(see the warnings above for why)",
            level="warning",
            undelivered=missed,
            broker=mqtt.url,
        )
    items = mqtt.stats.spectator_undelivered
    if items:
        say(
            log_format,
            "mqtt_spectator_undelivered",
            f"{items} spectator item(s) never reached the MQTT broker at {mqtt.url}",
            level="warning",
            spectator_undelivered=items,
            broker=mqtt.url,
        )
