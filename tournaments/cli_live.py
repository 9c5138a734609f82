"""What ``arena tournament run|resume`` adds beside the tables: the live MQTT table
feed, the delayed spectator feed, viewer gifts, and a Ctrl-C that stops gently.

Each is built only when asked for (``--mqtt``, ``[spectator]``, the gift flags), and
what it needs is imported then: a plain run loads none of it. Each says on stderr what
it does, as ``arena play`` does.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.config import MqttSettings
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


def table_feed(settings: MqttSettings | None) -> MqttSink | None:
    """With a broker (``--mqtt``, ``[mqtt] enabled``), every table's events go live as
    ``arena play``'s do: ``<prefix>/tables/<table>/events``, ``gifts`` and ``state``
    (docs/mqtt.md); the MQTT sink never waits, so the tables do not either."""
    if settings is None:
        return None
    from arena.sinks.mqtt import MqttSink, new_run_id

    feed = MqttSink(settings, run_id=new_run_id())
    print(
        f"arena: every table live on {settings.topic_prefix}/tables/<table>/events, its "
        "gifts' outcomes on .../gifts",
        file=sys.stderr,
    )
    return feed


def spectator_feed(
    config: TournamentConfig, feed: MqttSink | None, server: ArenaServer | None = None
) -> SpectatorFeed | None:
    """``[spectator] enabled``: every hand, delayed, on ``<prefix>/tables/<table>/spectator``
    through the table feed and on the server's spectator view; off, and said, with
    neither ``--mqtt`` nor ``--serve`` (nowhere to go)."""
    settings = config.spectator
    if not settings.enabled:
        return None
    if feed is None and server is None:
        print(
            "arena: warning: [spectator] is enabled but nothing publishes it: the spectator "
            "feed needs --mqtt or --serve to go anywhere, so it is off",
            file=sys.stderr,
        )
        return None
    from arena.server.wiring import spectator_outputs
    from arena.sinks.spectator import SpectatorFeed

    outputs, where = spectator_outputs(feed, server)
    print(
        f"arena: every hand goes to {' and '.join(where)} {settings.delay_s:g} s after it happened",
        file=sys.stderr,
    )
    return SpectatorFeed(outputs, delay_s=settings.delay_s, max_pending=settings.max_pending)


async def close_spectator_feed(spectator: SpectatorFeed) -> None:
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
        print(
            f"arena: warning: {spectator.dropped} spectator item(s) were never published "
            f"({spectator.released} were)",
            file=sys.stderr,
        )


def stop_gently_on_ctrl_c(session: Session) -> asyncio.Event:
    """The first Ctrl-C asks every table to stop after the round it plays (nothing is
    played twice, the tournament stays resumable); a second one stops at once (the
    rounds under way are played again from their start when resumed)."""
    import contextlib
    import signal

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
        print(
            "\narena: stopping after the current round (Ctrl-C again to stop at once)",
            file=sys.stderr,
            flush=True,
        )
        loop.add_signal_handler(signal.SIGINT, at_once)

    # no signal handlers on Windows' loop or off the main thread: Ctrl-C stops at once
    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, first)
    return hard


def run_gifts(
    args: argparse.Namespace, config: TournamentConfig, mqtt: MqttSettings | None
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
        print(f"arena: taking gifts (ranked mode) from {' and '.join(said)}", file=sys.stderr)
    else:
        print(
            "arena: gifts are on but nothing sends them: add --mqtt (then `arena gift send`), "
            "--simulate-gifts or --gift-file",
            file=sys.stderr,
        )
    if config.table.pace_s == 0:
        print(
            "arena: warning: the tables are not paced ([table] pace_s = 0): matches may be "
            "over before gifts arrive; pace_s = 0.5 keeps each action half a second",
            file=sys.stderr,
        )
    return TournamentGifts(settings, sources)
