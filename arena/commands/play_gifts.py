"""Viewers' gifts in ``arena play`` and ``arena serve``: the ``[gifts]`` settings checked
against the match, and the gift desks and sources started, with a line saying where gifts
come from. The only part of the arena's own commands that reaches into ``gifts``, and
only from inside these functions (the arena does not depend on it)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import TYPE_CHECKING

from arena.config import ArenaConfig
from arena.errors import ConfigError
from arena.logs import say

if TYPE_CHECKING:  # imported when used: the arena does not depend on gifts
    from arena.server.wiring import ArenaServer
    from arena.sinks.spectator import SpectatorFeed
    from arena.table import Table
    from gifts.run import GiftRun
    from gifts.settings import GiftSettings

__all__ = ["checked_gift_settings", "start_match_gifts"]


def checked_gift_settings(config: ArenaConfig, args: argparse.Namespace) -> GiftSettings | None:
    """``[gifts]`` validated (a broken section is refused even while gifts are off), or
    None when gifts are off."""
    from gifts.settings import load_gift_settings

    source = str(args.config or "command line")
    settings = load_gift_settings(config.gifts, source=source)
    tables = [f"t{n}" for n in range(1, config.match.tables + 1)]
    if settings.default_table is not None and settings.default_table not in tables:
        shown = ", ".join(tables) if len(tables) <= 5 else f"t1 to {tables[-1]}"
        raise ConfigError(
            f"{source}: gifts.default_table: no table {settings.default_table!r} "
            f"(the tables are {shown})"
        )
    return settings if settings.enabled else None


async def start_match_gifts(
    tables: Sequence[Table],
    settings: GiftSettings,
    config: ArenaConfig,
    args: argparse.Namespace,
    seed: int,
    feed: SpectatorFeed | None,
    server: ArenaServer | None = None,
) -> GiftRun:
    """The gift desks and sources of ``--gifts``, and a line saying where gifts come from."""
    from gifts.run import start_gifts
    from gifts.sources import gifts_topic

    mqtt = config.mqtt if config.mqtt.enabled else None
    try:
        gifts = await start_gifts(
            tables,
            settings,
            match_seed=seed,
            mqtt=mqtt,
            gift_file=args.gift_file,
            simulate_rate=args.simulate_gifts,
            spectator=feed,
        )
    except ConfigError as exc:  # gifts.default_table naming no table
        raise ConfigError(f"{args.config or 'command line'}: {exc}") from exc
    sources = []
    if server is not None:
        from gifts.webhook import WebhookIntake

        server.parts.gifts = WebhookIntake(gifts.router, secret=server.token or "")
        if server.token_made:  # a bridge elsewhere cannot know a token made for the run
            sources.append(
                f"the webhook {server.url}/gifts/webhook (signed with this run's token: "
                "set ARENA_SERVER_TOKEN for a bridge)"
            )
        elif server.token:
            sources.append(f"the webhook {server.url}/gifts/webhook")
    if mqtt is not None:
        sources.append(f"MQTT topic {gifts_topic(mqtt)}")
    if args.gift_file is not None:
        sources.append(f"the file {args.gift_file}")
    if args.simulate_gifts is not None:
        sources.append(f"a simulated audience ({args.simulate_gifts:g} a second)")
    if not sources:
        say(
            args.log_format,
            "gifts_without_source",
            "gifts are on but nothing sends them: add --mqtt (then `arena gift send`), "
            "--simulate-gifts or --gift-file",
            level="warning",
        )
    else:
        say(
            args.log_format,
            "gifts_on",
            f"taking gifts ({settings.mode} mode) from {' and '.join(sources)}",
            mode=settings.mode,
            sources=sources,
        )
    if config.table.pace_s == 0 and (mqtt is not None or args.gift_file is not None):
        say(
            args.log_format,
            "gifts_unpaced",
            "the match is not paced (plain lines): it may be over before gifts arrive; "
            "--pace 0.5 keeps each action half a second",
            level="warning",
        )
    return gifts
