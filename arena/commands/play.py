"""``arena play``: a match at every table, on the terminal (a live board, or plain lines),
and with the flags recorded, published over MQTT, served to the stream overlay, or
taking viewers' gifts. ``arena serve`` (:mod:`arena.commands.serve`) plays through here
too, one match per Start on the control page."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.commands.human_seats import check_terminal_for_humans
from arena.commands.play_config import DEFAULT_BROKER, add_game_flags, effective_config
from arena.commands.play_gifts import checked_gift_settings, start_match_gifts
from arena.commands.publishing import (
    close_spectator_feed,
    default_broker,
    mqtt_sink,
    say_undelivered,
    spectator_feed,
)
from arena.commands.recording import drop_if_empty, open_replay, say_replay_kept
from arena.commands.usage import UsageError
from arena.config import ArenaConfig
from arena.errors import ArenaError, ConfigError
from arena.logs import LEVELS, add_logging_flags, say, sayer
from arena.server.flags import add_server_flags, say_server
from arena.stopping import is_sigterm, stop_on_sigterm

if TYPE_CHECKING:  # imported when used: the parser is built for every command
    from arena.server.wiring import ArenaServer
    from arena.table import Table
    from gifts.run import GiftRun
    from gifts.settings import GiftSettings

__all__ = ["add_play_command", "run_play_command"]


def add_play_command(commands: argparse._SubParsersAction[Any], summary: str) -> None:
    """Add ``play`` to ``arena``'s commands; ``summary`` is its line in the list."""
    defaults = ArenaConfig()
    play = commands.add_parser("play", help=summary, description=_description(defaults))
    play.add_argument(
        "--config",
        type=Path,
        help="TOML config file (default: the built-in settings, those of config/arena.toml)",
    )
    add_game_flags(play)
    play.add_argument(
        "--rounds", type=int, help=f"rounds per table (default: {defaults.match.rounds})"
    )
    play.add_argument(
        "--seed",
        type=int,
        help="match seed: the same seed deals the same cards (default: a new one each run, "
        "printed so that the match can be repeated)",
    )
    play.add_argument(
        "--tables", type=int, help=f"tables playing at once (default: {defaults.match.tables})"
    )
    play.add_argument(
        "--record", type=Path, help="write a replay (JSON lines) to this file (default: none)"
    )
    play.add_argument(
        "--no-live",
        action="store_true",
        help="plain lines instead of the live board (always so when stdout is no terminal "
        "or a seat is human)",
    )
    play.add_argument(
        "--mqtt",
        nargs="?",
        const=DEFAULT_BROKER,
        metavar="URL",
        help="publish the match live to an MQTT broker, mqtt://host:port (mqtts:// for "
        "TLS); without URL the [mqtt] config's broker, 127.0.0.1:1883 by default, or "
        "an embedded one there if none answers (docs/mqtt.md)",
    )
    play.add_argument(
        "--spectator-delay",
        type=float,
        metavar="SECONDS",
        help="with --mqtt: also publish every hand, SECONDS after it happened (0-3600), "
        "to <prefix>/tables/<table>/spectator for a stream (default: off; docs/mqtt.md)",
    )
    play.add_argument(
        "--gifts",
        action="store_true",
        help="take viewers' gifts ([gifts] in the config): with --mqtt from "
        "<prefix>/gifts/in, where `arena gift send` and bridges publish (docs/gifts.md)",
    )
    play.add_argument(
        "--simulate-gifts",
        nargs="?",
        const=0.5,
        type=float,
        metavar="PER_SECOND",
        help="a simulated audience sends gifts, seeded by the match seed (default rate: "
        "0.5 a second); turns --gifts on",
    )
    play.add_argument(
        "--gift-file",
        type=Path,
        metavar="FILE",
        help="replay the gifts of a JSON-lines file with their timing (each line a gift, "
        'with "at": seconds from the start); turns --gifts on',
    )
    play.add_argument(
        "--pace",
        type=float,
        help="seconds each action stays on screen (default: "
        f"{defaults.table.pace_s} on the live board, 0 in plain lines)",
    )
    play.add_argument(
        "--round-pause",
        type=float,
        metavar="SECONDS",
        help="seconds between a round's result and the next deal (default: [table] "
        "round_pause_s; unset, 6 for a paced match with --serve, so that the overlay's "
        "result card is read, else 0)",
    )
    play.add_argument(
        "--serve",
        action="store_true",
        help="serve the stream overlay, its feeds and the controls while playing "
        "(http://127.0.0.1:8750/overlay by default; docs/overlay.md); the server stays up "
        "after the match, showing the final standings, until Ctrl-C",
    )
    play.add_argument(
        "--wait-for-start",
        action="store_true",
        help="with --serve: deal only once an overlay page is open (OBS has connected) or "
        "Start is pressed on /control",
    )
    play.add_argument(
        "--exit-when-done",
        action="store_true",
        help="with --serve: stop serving when the match ends (for scripts), rather than "
        "showing the final standings until Ctrl-C",
    )
    add_server_flags(play)
    add_logging_flags(play)


def _description(defaults: ArenaConfig) -> str:
    """``arena play --help``'s opening: what the command does and where settings come from."""
    seats = ", ".join(f"{seat.name} ({seat.type})" for seat in defaults.seats)
    return (
        "Play a match: agents at each table (three for Dou Dizhu, four or six for "
        "Tractor), every table at once, shown as a live board on a terminal and as plain "
        "lines otherwise. Settings come from the --config "
        "file (each one, with its default, is in config/arena.toml); the flags below "
        f"override the file. Without a file: {seats} play {defaults.match.rounds} rounds."
    )


def run_play_command(args: argparse.Namespace) -> int:
    """``arena play`` (and ``arena serve``): the match of the config file and the flags,
    played once, or with a server once per Start."""
    from arena.runner import new_seed

    serving = args.command == "serve" or args.serve
    for flag, given in (
        ("--wait-for-start", args.wait_for_start),
        ("--exit-when-done", args.exit_when_done),
    ):
        if given and not serving:
            raise UsageError(f"{flag}: only with --serve (it says when the server plays or stops)")
    config, live = effective_config(args)
    check_terminal_for_humans(enumerate(config.seats), str(args.config))
    gift_settings = checked_gift_settings(config, args)
    seed = config.match.seed if config.match.seed is not None else new_seed()
    server = _arena_server(config, args) if serving else None

    shown = False
    """The match was played and the server shows its end: a stop now is the show's end."""

    async def run() -> None:
        nonlocal shown
        stop_on_sigterm()
        if server is None:
            await _play_once(config, args, seed, live, gift_settings, None)
            return
        if args.wait_for_start:  # an overlay opening (OBS connecting) starts it too
            server.hub.on_page = server.control.start
        async with server:
            say_server(server, sayer(args.log_format), args.log_format)
            match_seed = seed
            while True:
                if not server.control.started:
                    page = " or open the overlay" if args.wait_for_start else ""
                    say(
                        args.log_format,
                        "server_waiting",
                        f"waiting for Start on {server.url}/control (or POST "
                        f"/control/api/start with the token){page}",
                    )
                    await server.control.wait_for_start()
                try:
                    await _play_once(config, args, match_seed, live, gift_settings, server)
                except ArenaError as exc:  # arena serve: an agent that cannot start is
                    if args.command != "serve":  # said, and the next Start tries again
                        raise
                    server.parts.last_error = str(exc)
                    say(
                        args.log_format,
                        "match_not_played",
                        f"error: the match could not be played: {exc}",
                        level="error",
                        error=str(exc),
                    )
                else:
                    server.parts.last_error = None
                if args.command != "serve" or args.exit_when_done:
                    if args.exit_when_done:
                        await asyncio.sleep(0.3)  # the pages get the final picture
                        return
                    shown = True
                    say(
                        args.log_format,
                        "server_showing_the_end",
                        f"the match is over; {server.url}/overlay shows the final standings "
                        "until Ctrl-C stops the server",
                    )
                    await asyncio.Event().wait()  # until Ctrl-C or SIGTERM
                server.control.rearm()
                next_in = getattr(args, "next_in", None)  # arena serve's
                if next_in is not None:  # the next match deals itself after a countdown
                    say(
                        args.log_format,
                        "server_next_match",
                        f"the next match is dealt in {next_in:g} s (Start on /control deals "
                        "it at once)",
                        next_in_s=next_in,
                    )
                    await _count_down(server, next_in)
                match_seed = config.match.seed if config.match.seed is not None else new_seed()

    try:
        asyncio.run(run())
    except BaseException as exc:
        stopped = isinstance(exc, KeyboardInterrupt) or is_sigterm(exc)
        if not (stopped and shown):  # else the show is over, its match played whole
            drop_if_empty(args.record)  # an agent that failed to start left nothing to keep
            if stopped and args.record is not None and args.record.is_file():
                say_replay_kept(args.log_format, args.record, config.match.tables)
            raise
    if args.record:
        say(
            args.log_format,
            "replay_written",
            f"replay written to {args.record}",
            path=str(args.record),
        )
    return 0


async def _count_down(server: ArenaServer, seconds: float) -> None:
    """Between two matches: the pages count down to the next one, which Start on
    /control deals at once; at zero it is dealt."""
    hub = server.hub
    players = hub.players_of(hub.featured) or None  # the next match seats the same agents
    hub.set_next(int((time.time() + seconds) * 1000), players=players)
    try:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.control.wait_for_start(), seconds)
        server.control.start()
    finally:
        server.hub.set_next(None)


async def _play_once(
    config: ArenaConfig,
    args: argparse.Namespace,
    seed: int,
    live: bool,
    gift_settings: GiftSettings | None,
    server: ArenaServer | None,
) -> None:
    """One match at every table: the sinks, feeds and gifts of the flags, then played."""
    from arena.gc_policy import collecting_while_playing
    from arena.runner import build_tables, flush_sinks, open_tables, play_tables
    from arena.sinks.console import (
        FAULT_HINT,
        PLAIN_ACTIONS_UP_TO,
        LiveConsoleSink,
        PlainConsoleSink,
    )
    from arena.sinks.health import GuardedSink, SinkHealthBoard

    replay = open_replay(args.record) if args.record else None
    # a rejected reply's detail is in its warning log line, if warnings are shown
    shown = LEVELS.index(args.log_level) <= LEVELS.index("warning")
    hint = FAULT_HINT if shown else "details with --log-level warning"
    every_action = config.match.tables <= PLAIN_ACTIONS_UP_TO
    sink = (
        LiveConsoleSink(fault_hint=hint)
        if live
        else PlainConsoleSink(fault_hint=hint, actions=every_action, game=config.game)
    )
    config, broker = default_broker(config, args)
    mqtt = mqtt_sink(config, args, embedded=broker is not None) if config.mqtt.enabled else None
    sinks: list[Any] = [sink] if mqtt is None else [sink, mqtt]
    if server is not None:  # a new match: the pages start afresh, under the MQTT feed's run
        from arena.sinks.mqtt import new_run_id

        server.hub.reset(mqtt.run_id if mqtt is not None else new_run_id())
        sinks.append(server.hub)
    # a sink that keeps failing is said in the MQTT status and on the overlay's pages
    health = SinkHealthBoard(
        {"console": sink, "mqtt": mqtt, "overlay": server.hub if server is not None else None}
    )
    gifts: GiftRun | None = None
    tables: list[Table] = []
    feed = spectator_feed(config, mqtt, args.log_format, server)
    collecting = contextlib.AsyncExitStack()
    try:
        try:  # every agent is built, or its seat named, before the match is announced
            tables = build_tables(config, seed=seed, sinks=sinks, replay=replay, spectator=feed)
        except ConfigError as exc:
            raise ConfigError(f"{args.config or 'built-in config'}: {exc}") from exc
        if server is not None:
            server.attach(tables)  # a pause holds every table between two rounds
        await open_tables(tables)  # programs started, or the seat named
        # What is here now (modules, config, agents) lives as long as the match: frozen
        # out of garbage collection, which runs on the heap's growth only while tables
        # play (arena.gc_policy); put back after, as a caller's process (tests) had it.
        await collecting.enter_async_context(collecting_while_playing())
        if broker is not None:
            await broker.start()
        if mqtt is not None:
            await mqtt.started()  # its worker up before the first event
        if feed is not None:
            feed.start()
        if gift_settings is not None:
            gifts = await start_match_gifts(tables, gift_settings, config, args, seed, feed, server)
        say(
            args.log_format,
            "match_seed",
            f"seed {seed} (repeat this match with --seed {seed})",
            seed=seed,
        )
        if not live and not every_action:
            say(
                args.log_format,
                "actions_not_printed",
                f"{config.match.tables} tables: each round's result is printed, not its "
                f"play (that is for {PLAIN_ACTIONS_UP_TO} tables at most); --record FILE "
                "keeps every action",
                tables=config.match.tables,
            )
        await play_tables(tables, rounds=config.match.rounds, seed=seed)
    finally:
        await collecting.aclose()
        if server is not None:
            server.parts.gifts = None  # until the next match: the webhook says why
            if gifts is not None:
                server.parts.gifts_off = "no match is playing: gifts are taken while one plays"
        if gifts is not None:  # their last events out before the sinks close
            await gifts.stop()
            await flush_sinks(tables)
            say(args.log_format, "gifts_accounted", gifts.summary(), **gifts.counts())
        await GuardedSink(sink).close()  # a close that fails is counted, not raised
        if feed is not None:  # its last items go out before the MQTT sink closes
            await close_spectator_feed(feed, args.log_format)
        health.close()  # the final figures, before the status says offline
        if mqtt is not None:
            await mqtt.close()
            say_undelivered(args.log_format, mqtt)
        if broker is not None:  # after the sink said offline
            await broker.stop()
        if replay is not None:
            replay.close()


def _arena_server(config: ArenaConfig, args: argparse.Namespace) -> ArenaServer:
    """The server of ``--serve`` (or ``arena serve``), not started yet."""
    from arena.server.wiring import ArenaServer

    spectator = config.spectator
    return ArenaServer(
        config.server,
        mode="serve" if args.command == "serve" else "play",
        host=args.host,
        port=args.port,
        seats=config.seats,
        config_dir=args.config.parent if args.config is not None else None,
        spectator_delay_s=spectator.delay_s if spectator.enabled else None,
        # arena serve waits for Start (unless --start); arena play --serve deals at once,
        # unless told to wait for Start or an overlay page
        started=args.start if args.command == "serve" else not args.wait_for_start,
    )
