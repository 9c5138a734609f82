"""What ``arena tournament run|resume`` adds beside the tables: the live MQTT table
feed, the delayed spectator feed, viewer gifts, and a Ctrl-C that stops gently.

Each is built only when asked for (``--mqtt``, ``[spectator]``, the gift flags), and
what it needs is imported then: a plain run loads none of it. Each says on stderr what
it does, as ``arena play`` does: through the run's ``say_line``
(``tournaments.cli._sayer``), a JSON object with ``--log-format json``.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.config import MqttSettings
    from arena.logs import Say
    from arena.server.wiring import ArenaServer
    from arena.sinks.mqtt import MqttSink
    from arena.sinks.spectator import SpectatorFeed
    from tournaments.config import TournamentConfig
    from tournaments.gifts import TournamentGifts
    from tournaments.session import Session

__all__ = [
    "close_spectator_feed",
    "run_gifts",
    "spectator_feed",
    "stop_gently_on_ctrl_c",
    "table_feed",
]


def table_feed(settings: MqttSettings | None, say_line: Say) -> MqttSink | None:
    """With a broker (``--mqtt``, ``[mqtt] enabled``), every table's events go live as
    ``arena play``'s do: ``<prefix>/tables/<table>/events``, ``gifts`` and ``state``
    (docs/mqtt.md); the MQTT sink never waits, so the tables do not either."""
    if settings is None:
        return None
    from arena.sinks.mqtt import MqttSink, new_run_id

    feed = MqttSink(settings, run_id=new_run_id())
    say_line(
        "mqtt_publishing",
        f"every table live on {settings.topic_prefix}/tables/<table>/events, its "
        "gifts' outcomes on .../gifts",
        topic_prefix=settings.topic_prefix,
    )
    return feed


def spectator_feed(
    config: TournamentConfig,
    feed: MqttSink | None,
    say_line: Say,
    server: ArenaServer | None = None,
) -> SpectatorFeed | None:
    """``[spectator] enabled``: every hand, delayed, on ``<prefix>/tables/<table>/spectator``
    through the table feed and on the server's spectator view; off, and said, with
    neither ``--mqtt`` nor ``--serve`` (nowhere to go)."""
    settings = config.spectator
    if not settings.enabled:
        return None
    if feed is None and server is None:
        say_line(
            "spectator_feed_off",
            "[spectator] is enabled but nothing publishes it: the spectator "
            "feed needs --mqtt or --serve to go anywhere, so it is off",
            level="warning",
        )
        return None
    from arena.server.wiring import spectator_outputs
    from arena.sinks.spectator import SpectatorFeed

    outputs, where = spectator_outputs(feed, server)
    say_line(
        "spectator_feed",
        f"every hand goes to {' and '.join(where)} {settings.delay_s:g} s after it happened",
        delay_s=settings.delay_s,
        to=where,
    )
    return SpectatorFeed(outputs, delay_s=settings.delay_s, max_pending=settings.max_pending)


async def close_spectator_feed(spectator: SpectatorFeed, say_line: Say) -> None:
    """Release what the feed holds, each item after its delay (the last hands are
    shown): at most the delay and 5 s, 0.5 s once interrupted; what is left is dropped,
    counted and said."""
    import contextlib

    task = asyncio.current_task()
    interrupted = task is not None and task.cancelling() > 0
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(0.5 if interrupted else spectator.delay_s + 5.0):
            await spectator.close()
    if spectator.dropped:
        say_line(
            "spectator_items_dropped",
            f"{spectator.dropped} spectator item(s) were never published "
            f"({spectator.released} were)",
            level="warning",
            dropped=spectator.dropped,
            released=spectator.released,
        )


def stop_gently_on_ctrl_c(
    session: Session, log_format: str = "console", on_stop: Callable[[], None] | None = None
) -> asyncio.Event:
    """The first Ctrl-C asks every table to stop after the round it plays (nothing is
    played twice, the tournament stays resumable) and calls ``on_stop`` (``--serve``:
    the pause lets its tables go, else they would wait for a resume); a second one
    stops at once (the rounds under way are played again from their start when
    resumed)."""
    import contextlib
    import signal

    from arena.logs import say

    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    hard = asyncio.Event()  # set by the second Ctrl-C

    def at_once() -> None:
        hard.set()
        loop.remove_signal_handler(signal.SIGINT)
        if task is not None:
            task.cancel()

    def first() -> None:
        session.stop_asked = True
        if on_stop is not None:
            on_stop()
        if log_format != "json":
            print(file=sys.stderr)  # off the terminal's ^C
        say(
            log_format,
            "stopping_after_round",
            "stopping after the current round (Ctrl-C again to stop at once)",
        )
        loop.add_signal_handler(signal.SIGINT, at_once)

    # no signal handlers on Windows' loop or off the main thread: Ctrl-C stops at once
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, first)
    return hard


def run_gifts(
    args: argparse.Namespace,
    config: TournamentConfig,
    mqtt: MqttSettings | None,
    say_line: Say,
) -> TournamentGifts | None:
    """The run's :class:`~tournaments.gifts.TournamentGifts`, None when gifts are off
    (the gifts package is then never imported); a line says where gifts come from."""
    wanted = args.gifts or args.simulate_gifts is not None or args.gift_file is not None
    if not (wanted or config.gifts.get("enabled", False)):
        return None
    from gifts.settings import load_gift_settings
    from tournaments.gifts import GiftSources, TournamentGifts

    settings = load_gift_settings(config.gifts, source="[gifts]")
    sources = GiftSources(mqtt=mqtt, gift_file=args.gift_file, simulate_rate=args.simulate_gifts)
    said = sources.described()
    if said:
        say_line(
            "gifts_on",
            f"taking gifts (ranked mode) from {' and '.join(said)}",
            mode="ranked",
            sources=said,
        )
    else:
        say_line(
            "gifts_without_source",
            "gifts are on but nothing sends them: add --mqtt (then `arena gift send`), "
            "--simulate-gifts or --gift-file",
        )
    if config.table.pace_s == 0:
        say_line(
            "gifts_unpaced",
            "the tables are not paced ([table] pace_s = 0): matches may be "
            "over before gifts arrive; pace_s = 0.5 keeps each action half a second",
            level="warning",
        )
    return TournamentGifts(settings, sources)
