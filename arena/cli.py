"""The ``arena`` command: play a match, check a replay, write the protocol's JSON Schemas."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import difflib
import json
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn

from arena.config import ArenaConfig, SeatConfig, load_config, parse_config
from arena.errors import ArenaError, ConfigError
from arena.logs import LEVELS, add_logging_flags, configure_logging, sayer
from arena.logs import say as _say
from arena.server.flags import add_server_flags, say_server
from arena.stopping import is_sigterm, stop_on_sigterm

if TYPE_CHECKING:  # imported when used: `arena schema` needs no engine
    from arena.replay import RecordedRound, ReplayWriter
    from arena.server.wiring import ArenaServer
    from arena.sinks.embedded_broker import EmbeddedBroker
    from arena.sinks.mqtt import MqttSink
    from arena.sinks.spectator import SpectatorFeed
    from arena.table import Table
    from arena.testing import AgentCheckReport, PositionResult
    from gifts.run import GiftRun
    from gifts.settings import GiftSettings

__all__ = ["UsageError", "main"]

_FLAG_KEYS = {
    "match.rounds": "--rounds",
    "match.tables": "--tables",
    "match.seed": "--seed",
    "table.pace_s": "--pace",
    "spectator.delay_s": "--spectator-delay",
}
"""Config keys the ``play`` flags set: an error in one names the flag."""


class UsageError(ArenaError):
    """A mistake on the command line (a flag, its value, a path); main prints one line."""


class _Parser(argparse.ArgumentParser):
    """Reports a usage mistake as one line through :func:`main`, not usage text first."""

    def error(self, message: str) -> NoReturn:
        """Raise instead of printing the usage and exiting (argparse lets us override it)."""
        raise UsageError(f"{message} (see {self.prog} --help)")


def _wanted_log_format(argv: Sequence[str]) -> str:
    """The ``--log-format`` asked for, read before the full parse: even a usage error
    is reported in it."""
    early = _Parser(add_help=False)
    early.add_argument("--log-format", default="console")
    early.add_argument("--log-level")
    try:
        known, _ = early.parse_known_args(argv)
    except UsageError:
        return "console"
    return str(known.log_format)


_COMMANDS = {
    "play": "play a match (three scripted agents by default)",
    "serve": "serve the stream overlay and controls; Start on /control plays a match",
    "replay": "print a replay and re-check every move",
    "schema": "write JSON Schemas of the protocol messages and the public events",
    "agent": "check an agent: arena agent check CONFIG [--seat NAME] [--json]",
    "gift": "send a test gift to a running arena: arena gift send EFFECT [options]",
    "tournament": "run a tournament between any number of agents: arena tournament run FILE",
}
"""Each command and its one line, for ``arena --help`` and for ``arena`` alone."""


def _play_description(defaults: ArenaConfig) -> str:
    """``arena play --help``'s opening: what the command does and where settings come from."""
    seats = ", ".join(f"{seat.name} ({seat.type})" for seat in defaults.seats)
    return (
        "Play a match: three agents at each table, every table at once, shown as a live "
        "board on a terminal and as plain lines otherwise. Settings come from the --config "
        "file (each one, with its default, is in config/arena.toml); the flags below "
        f"override the file. Without a file: {seats} play {defaults.match.rounds} rounds."
    )


def _version() -> str:
    """The installed package's version (the one place it is written: pyproject.toml)."""
    try:
        return metadata.version("ddz-arena")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"


def _commands_text() -> str:
    """What ``arena`` alone prints: the commands, one line each."""
    width = max(map(len, _COMMANDS))
    lines = [f"  {name:<{width}}  {text}" for name, text in _COMMANDS.items()]
    return "\n".join(
        [
            "usage: arena COMMAND [options]",
            "commands:",
            *lines,
            "Run arena COMMAND --help for a command's options, arena --version for the version.",
        ]
    )


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="arena", description="Dou Dizhu Arena: 斗地主 matches between AI agents.")
    parser.add_argument("--version", action="version", version=f"arena {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    defaults = ArenaConfig()

    play = commands.add_parser(
        "play", help=_COMMANDS["play"], description=_play_description(defaults)
    )
    play.add_argument(
        "--config",
        type=Path,
        help="TOML config file (default: the built-in settings, those of config/arena.toml)",
    )
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
        "--serve",
        action="store_true",
        help="serve the stream overlay, its feeds and the controls while playing "
        "(http://127.0.0.1:8750/overlay by default; docs/overlay.md)",
    )
    add_server_flags(play)
    add_logging_flags(play)

    serve = commands.add_parser(
        "serve",
        help=_COMMANDS["serve"],
        description="Serve the stream overlay and the streamer's controls; each Start on "
        "/control plays the config's match (docs/overlay.md).",
    )
    serve.add_argument(
        "--config",
        type=Path,
        help="TOML config file (default: the built-in settings, those of config/arena.toml)",
    )
    serve.add_argument(
        "--start", action="store_true", help="play the first match at once, without Start"
    )
    serve.add_argument(
        "--pace",
        type=float,
        help=f"seconds each action stays on screen (default: [table] pace_s, "
        f"{defaults.table.pace_s})",
    )
    serve.add_argument(
        "--gifts",
        action="store_true",
        help="take viewers' gifts: from the webhook /gifts/webhook, signed with "
        "ARENA_SERVER_TOKEN, and the control page's test gifts (docs/overlay.md)",
    )
    serve.add_argument(
        "--spectator-delay",
        type=float,
        metavar="SECONDS",
        help="serve the delayed spectator view (/spectator): every hand, SECONDS late",
    )
    add_server_flags(serve)
    add_logging_flags(serve)

    replay = commands.add_parser(
        "replay",
        help=_COMMANDS["replay"],
        description="Print each round of a replay and re-check it through the rules engine:\n"
        "every message and every event, and that they agree with each other.",
        epilog=_REPLAY_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("file", type=Path)
    replay.add_argument("--quiet", action="store_true", help="only the verdict per round")
    instead = replay.add_mutually_exclusive_group()
    instead.add_argument(
        "--compare",
        type=Path,
        metavar="OTHER",
        help="instead: say whether OTHER records the same match (timing fields aside)",
    )
    instead.add_argument(
        "--decisions",
        action="store_true",
        help="instead: show each model decision (prompt, raw reply, reasoning, what was "
        "parsed, why it was rejected, tokens, cost, latency)",
    )
    replay.add_argument(
        "--full",
        action="store_true",
        help="with --decisions: repeat each system prompt and each retry's whole conversation",
    )
    replay.add_argument(
        "--json",
        action="store_true",
        help="with --decisions: print one JSON document on stdout instead",
    )
    add_logging_flags(replay)

    from gifts.cli_send import add_gift_command  # the gifts package, only for its command
    from tournaments.cli import add_tournament_command  # and tournaments, for theirs

    add_gift_command(commands)
    add_tournament_command(commands)

    schema = commands.add_parser("schema", help=_COMMANDS["schema"])
    schema.add_argument("directory", type=Path)
    add_logging_flags(schema)

    agent = commands.add_parser(
        "agent", help=_COMMANDS["agent"], description="Commands for agent authors."
    )
    actions = agent.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="ask each seat's agent a fixed set of hard positions and judge every reply",
        description="Build each seat's agent as 'arena play' does, ask it a fixed set of "
        "hard positions (one request each: bids, a double, bombs, airplanes, forced "
        "passes, a rejection and retry) under the seat's deadline, and judge each reply "
        "as the table would.",
        epilog=_CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("config", type=Path, metavar="CONFIG", help="TOML config file")
    check.add_argument("--seat", metavar="NAME", help="check only this seat (default: every seat)")
    check.add_argument(
        "--json", action="store_true", help="print one JSON report on stdout instead of tables"
    )
    add_logging_flags(check)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit status.

    A user's mistake (ArenaError) ends in one line per problem and exit status 2.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # a newcomer's first try: say what there is to do
        print(_commands_text(), file=sys.stderr)
        return 2
    log_format = _wanted_log_format(argv)
    try:
        args = _parser().parse_args(argv)
        configure_logging(args.log_format, args.log_level)
        _register_environment_secrets()
        if args.command in ("play", "serve"):
            return _play(_with_play_defaults(args))
        if args.command == "replay":
            return _replay(args)
        if args.command == "agent":
            return _agent_check(args)
        if args.command == "gift":
            from gifts.cli_send import run_gift_command

            return run_gift_command(args)
        if args.command == "tournament":
            from tournaments.cli import run_tournament_command

            return run_tournament_command(args)
        return _schema(args)
    except ArenaError as exc:
        for line in str(exc).splitlines() or [type(exc).__name__]:
            _say(log_format, "command_failed", f"error: {line}", level="error", error=line)
        return 2
    except KeyboardInterrupt:
        _say(log_format, "interrupted", "interrupted", level="warning")
        return 130
    except asyncio.CancelledError as exc:
        if not is_sigterm(exc):
            raise
        _say(log_format, "terminated", "terminated", level="warning")
        return 143
    except BrokenPipeError:
        return _reader_left()


def _register_environment_secrets() -> None:
    """Every command, first: the secrets the arena may read from its environment (the
    server's token, the providers' keys) are masked from now on, whether or not this
    run reads them (a program it starts could print one it found), and withheld from
    the programs it starts (arena.agents.program_env)."""
    from arena.agents.program_env import preset_key_variables
    from arena.secrets import WELL_KNOWN_VARIABLES, register_environment_secrets

    register_environment_secrets(WELL_KNOWN_VARIABLES | preset_key_variables())


def _reader_left() -> int:
    """Stdout's reader stopped early (``| head``, a pager closed): that is no error of
    ours. Stdout goes to the null device so the interpreter's last flush is quiet; the
    status is a SIGPIPE's, as for any command cut off this way."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 141


DEFAULT_BROKER: Final = "default"
"""``--mqtt`` without a URL (or ``--mqtt default``): the [mqtt] address, else embedded."""


def _with_play_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """``arena serve`` plays as ``arena play --serve`` with no other flags would (plain
    lines: the stream is the overlay's)."""
    if args.command == "serve":
        defaults = {
            "rounds": None,
            "seed": None,
            "tables": None,
            "record": None,
            "no_live": True,
            "mqtt": None,
            "simulate_gifts": None,
            "gift_file": None,
            "serve": True,
        }
        for key, value in defaults.items():
            setattr(args, key, getattr(args, key, value))
    return args


def _effective_config(args: argparse.Namespace) -> tuple[ArenaConfig, bool]:
    """The config file with the command line's overrides, and whether to show the board."""
    config = load_config(args.config)
    match: dict[str, Any] = {}
    if args.rounds is not None:
        match["rounds"] = args.rounds
    if args.tables is not None:
        match["tables"] = args.tables
    if args.seed is not None:
        match["seed"] = args.seed
    data = config.model_dump()
    data["match"].update(match)
    live = _wants_live(args, config)
    if args.mqtt is not None:
        data["mqtt"]["enabled"] = True
        if args.mqtt != DEFAULT_BROKER:
            from arena.sinks.mqtt import broker_from_url

            try:
                data["mqtt"].update(broker_from_url(args.mqtt))
            except ConfigError as exc:
                raise UsageError(f"--mqtt: {exc}") from None
    if args.spectator_delay is not None:
        if args.mqtt is None and not config.mqtt.enabled and not args.serve:
            raise UsageError(
                "--spectator-delay: the spectator feed needs --mqtt or --serve to go anywhere"
            )
        data["spectator"].update(enabled=True, delay_s=args.spectator_delay)
    if args.gifts or args.simulate_gifts is not None or args.gift_file is not None:
        data["gifts"]["enabled"] = True
    if args.simulate_gifts is not None and not 0 < args.simulate_gifts <= 1000:
        raise UsageError(
            f"--simulate-gifts: {args.simulate_gifts:g} gifts a second: give a rate above 0, "
            "at most 1000"
        )
    if args.gift_file is not None and not args.gift_file.is_file():
        raise UsageError(f"--gift-file: {args.gift_file}: no such file")
    if args.pace is not None:
        data["table"]["pace_s"] = args.pace
    elif not live and not args.serve:  # served, the overlay shows it: paced as configured
        data["table"]["pace_s"] = 0.0
    return parse_config(data, source="command line", aliases=_FLAG_KEYS), live


def _wants_live(args: argparse.Namespace, config: ArenaConfig) -> bool:
    has_human = any(seat.type == "human" for seat in config.seats)
    return not args.no_live and not has_human and sys.stdout.isatty()


def _play(args: argparse.Namespace) -> int:
    from arena.runner import new_seed

    serving = args.command == "serve" or args.serve
    config, live = _effective_config(args)
    _check_terminal_for_humans(enumerate(config.seats), str(args.config))
    gift_settings = _gift_settings(config, args)
    seed = config.match.seed if config.match.seed is not None else new_seed()
    server = _arena_server(config, args) if serving else None

    async def run() -> None:
        stop_on_sigterm()
        if server is None:
            await _play_once(config, args, seed, live, gift_settings, None)
            return
        async with server:
            say_server(server, sayer(args.log_format), args.log_format)
            match_seed = seed
            while True:
                if not server.control.started:
                    _say(
                        args.log_format,
                        "server_waiting",
                        f"waiting for Start on {server.url}/control (or POST "
                        "/control/api/start with the token)",
                    )
                    await server.control.wait_for_start()
                try:
                    await _play_once(config, args, match_seed, live, gift_settings, server)
                except ArenaError as exc:  # arena serve: an agent that cannot start is
                    if args.command != "serve":  # said, and the next Start tries again
                        raise
                    server.parts.last_error = str(exc)
                    _say(
                        args.log_format,
                        "match_not_played",
                        f"error: the match could not be played: {exc}",
                        level="error",
                        error=str(exc),
                    )
                else:
                    server.parts.last_error = None
                if args.command != "serve":
                    await asyncio.sleep(0.3)  # the pages get the final picture
                    return
                server.control.rearm()
                match_seed = config.match.seed if config.match.seed is not None else new_seed()

    try:
        asyncio.run(run())
    except BaseException as exc:
        _drop_if_empty(args.record)  # an agent that failed to start left nothing to keep
        stopped = isinstance(exc, KeyboardInterrupt) or is_sigterm(exc)
        if stopped and args.record is not None and args.record.is_file():
            _say_replay_kept(args.log_format, args.record, config.match.tables)
        raise
    if args.record:
        _say(
            args.log_format,
            "replay_written",
            f"replay written to {args.record}",
            path=str(args.record),
        )
    return 0


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

    replay = _open_replay(args.record) if args.record else None
    # a rejected reply's detail is in its warning log line, if warnings are shown
    shown = LEVELS.index(args.log_level) <= LEVELS.index("warning")
    hint = FAULT_HINT if shown else "details with --log-level warning"
    every_action = config.match.tables <= PLAIN_ACTIONS_UP_TO
    sink = (
        LiveConsoleSink(fault_hint=hint)
        if live
        else PlainConsoleSink(fault_hint=hint, actions=every_action)
    )
    config, broker = _default_broker(config, args)
    mqtt = _mqtt_sink(config, args, embedded=broker is not None) if config.mqtt.enabled else None
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
    feed = _spectator_feed(config, mqtt, args.log_format, server)
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
            gifts = await _start_gifts(tables, gift_settings, config, args, seed, feed, server)
        _say(
            args.log_format,
            "match_seed",
            f"seed {seed} (repeat this match with --seed {seed})",
            seed=seed,
        )
        if not live and not every_action:
            _say(
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
            _say(args.log_format, "gifts_accounted", gifts.summary(), **gifts.counts())
        await GuardedSink(sink).close()  # a close that fails is counted, not raised
        if feed is not None:  # its last items go out before the MQTT sink closes
            await _close_spectator_feed(feed, args.log_format)
        health.close()  # the final figures, before the status says offline
        if mqtt is not None:
            await mqtt.close()
            _say_undelivered(args.log_format, mqtt)
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
        started=args.command != "serve" or args.start,
    )


def _gift_settings(config: ArenaConfig, args: argparse.Namespace) -> GiftSettings | None:
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


async def _start_gifts(
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
        _say(
            args.log_format,
            "gifts_without_source",
            "gifts are on but nothing sends them: add --mqtt (then `arena gift send`), "
            "--simulate-gifts or --gift-file",
            level="warning",
        )
    else:
        _say(
            args.log_format,
            "gifts_on",
            f"taking gifts ({settings.mode} mode) from {' and '.join(sources)}",
            mode=settings.mode,
            sources=sources,
        )
    if config.table.pace_s == 0 and (mqtt is not None or args.gift_file is not None):
        _say(
            args.log_format,
            "gifts_unpaced",
            "the match is not paced (plain lines): it may be over before gifts arrive; "
            "--pace 0.5 keeps each action half a second",
            level="warning",
        )
    return gifts


def _default_broker(
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
    _say(
        args.log_format,
        "mqtt_broker_embedded",
        f"no MQTT broker answers at {address}: starting an embedded one (amqtt, MQTT 3.1.1) "
        f"on {broker.host}:{broker.port} for this match; for streams run Mosquitto "
        "(docs/mqtt.md)",
        broker=f"{broker.host}:{broker.port}",
    )
    mqtt = settings.model_copy(update={"host": broker.host, "protocol": "3.1.1"})
    return config.model_copy(update={"mqtt": mqtt}), broker


def _mqtt_sink(config: ArenaConfig, args: argparse.Namespace, *, embedded: bool) -> MqttSink:
    """The MQTT publisher of ``--mqtt`` or ``[mqtt] enabled``, and a line saying where."""
    from arena.sinks.mqtt import MqttSink, new_run_id

    run_id = new_run_id()
    mqtt = MqttSink(config.mqtt, run_id=run_id)
    default = ""
    if args.mqtt == DEFAULT_BROKER:
        default = (
            " (the embedded one)" if embedded else " (it answers there; --mqtt URL names another)"
        )
    _say(
        args.log_format,
        "mqtt_publishing",
        f"publishing the match to {mqtt.url}{default}, topics {config.mqtt.topic_prefix}/#, "
        f"run id {run_id}",
        broker=mqtt.url,
        topic_prefix=config.mqtt.topic_prefix,
        run_id=run_id,
    )
    return mqtt


def _spectator_feed(
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
        _say(
            log_format,
            "spectator_feed_off",
            "[spectator] is enabled but nothing publishes it: the spectator feed needs "
            "--mqtt or --serve to go anywhere, so it is off",
            level="warning",
        )
        return None
    from arena.server.wiring import spectator_outputs
    from arena.sinks.spectator import SpectatorFeed

    outputs, where = spectator_outputs(mqtt, server)
    feed = SpectatorFeed(outputs, delay_s=settings.delay_s, max_pending=settings.max_pending)
    if settings.delay_s < 1:
        _say(
            log_format,
            "spectator_feed_live",
            f"the spectator delay is {settings.delay_s:g} s: every hand is shown as it is "
            "played, to anyone watching, players' authors too (fine for a match nobody "
            "plays for; a stream wants 30 s or more)",
            level="warning",
            delay_s=settings.delay_s,
        )
    _say(
        log_format,
        "spectator_feed",
        f"every hand goes to {' and '.join(where)} {settings.delay_s:g} s after it happened",
        delay_s=settings.delay_s,
        to=where,
    )
    return feed


async def _close_spectator_feed(feed: SpectatorFeed, log_format: str) -> None:
    """Release what the feed holds, each item no earlier than its delay: the match's
    last hands are shown. At most the delay and 5 s; 0.5 s once interrupted (Ctrl-C,
    SIGTERM), the rest dropped then. What never went out is counted and said."""
    task = asyncio.current_task()
    interrupted = task is not None and task.cancelling() > 0
    bound = 0.5 if interrupted else feed.delay_s + 5.0
    if not interrupted and feed.delay_s >= 2 and feed.pending:
        _say(
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
        _say(
            log_format,
            "spectator_items_dropped",
            f"{feed.dropped} spectator item(s) were never published "
            f"({feed.released} were; see the warnings)",
            level="warning",
            dropped=feed.dropped,
            released=feed.released,
        )


def _say_undelivered(log_format: str, mqtt: MqttSink) -> None:
    """After the match: how many events never reached the broker, if any."""
    missed = mqtt.stats.undelivered
    if missed:
        _say(
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
        _say(
            log_format,
            "mqtt_spectator_undelivered",
            f"{items} spectator item(s) never reached the MQTT broker at {mqtt.url}",
            level="warning",
            spectator_undelivered=items,
            broker=mqtt.url,
        )


def _say_replay_kept(log_format: str, path: Path, tables: int) -> None:
    """After Ctrl-C or SIGTERM: the replay written so far is kept (``arena replay``
    reads it, and calls a round cut off incomplete), and whether a round was cut off."""
    if tables > 1:
        cut = "the rounds under way when it stopped are incomplete"
    elif _last_kind(path) == "round_end":
        cut = "every round in it is complete"
    else:
        cut = "its last round is incomplete"
    _say(
        log_format,
        "replay_kept",
        f"the replay so far is in {path} ({cut})",
        path=str(path),
    )


def _last_kind(path: Path) -> str | None:
    """The ``kind`` of a replay's last whole line (read from its end: it may be large)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - 65536))
            tail = file.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        line = json.loads(tail)
    except (OSError, ValueError):
        return None
    return str(line.get("kind")) if isinstance(line, dict) else None


def _check_terminal_for_humans(seats: Iterable[tuple[int, SeatConfig]], source: str) -> None:
    """A human seat reads moves from the terminal: without one, every question would
    fail until a stand-in took the seat (or every position of ``agent check`` would), so
    refuse before the match or the check instead."""
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        return
    for index, seat in seats:
        if seat.type == "human":
            raise UsageError(
                f"{source}: seats.{index} (seat {seat.name!r}): a human seat needs a terminal "
                "(stdin is not a TTY)"
            )


def _drop_if_empty(path: Path | None) -> None:
    """Remove a replay file the match never wrote to, so a failed start leaves no litter."""
    if path is not None and path.is_file() and path.stat().st_size == 0:
        path.unlink()


def _open_replay(path: Path) -> ReplayWriter:
    """The replay file, opened before the match starts so that a bad path costs nothing."""
    from arena.replay import ReplayWriter

    if path.is_dir():
        raise UsageError(f"--record {path}: is a folder; give a file name such as match.jsonl")
    folder = path.parent
    if not folder.is_dir():
        missing = "is a file, not a folder" if folder.exists() else "does not exist"
        raise UsageError(f"--record {path}: {folder} {missing}")
    try:
        return ReplayWriter(path)
    except OSError as exc:
        raise UsageError(f"--record {path}: cannot write: {exc.strerror or exc}") from exc


_REPLAY_EPILOG = """\
Each round ends in one verdict line:
  ✓  every message and move agrees with the engine, and the scores match
  ✗  the round disagrees with itself or the engine (the line and what differs)
  …  the replay ends inside the round (the recording was cut off): the lines
     it has are checked, but the round cannot be verified

Exit status: 0 when every round verifies; 1 when any round fails or the replay is
incomplete; 2 when the file cannot be read or is no replay.

--decisions shows, for each decision of a model seat in file order, the table,
round, seat and request, then each attempt: its outcome (accepted, or the
rejection's category and detail), tokens, cost and latency, the prompt as sent
(a seat's system prompt once, a retry's conversation from where it grows, unless
--full), the reasoning, the raw reply and what the table parsed from it. It ends
with a count. The text counts attempts from 1 (attempt 1 is the first call);
--json prints the same as one JSON document, whose 0-based "attempt" is the
replay's own (the first call is attempt 0). It exits 0, 1 when the replay holds
no model decisions, 2 when it cannot be read.

--compare OTHER checks determinism: two recordings of the same seed with the same
scripted agents differ only in the timing fields (t_ms, elapsed_ms). It prints
"same match" and exits 0, or names the first differing line in each file (table,
round, key) and exits 1. Each table's lines are compared in order, since tables
playing at once may interleave differently.
"""


def _replay(args: argparse.Namespace) -> int:
    from arena.replay import ReplayError, RoundIncomplete, load_replay, verify_round

    if not args.decisions:
        for flag in ("full", "json"):
            if getattr(args, flag):
                raise UsageError(f"--{flag} goes with --decisions (see arena replay --help)")
    if args.compare is not None:
        return _compare(args.file, args.compare)
    if args.decisions:
        return _decisions(args)
    replay = load_replay(args.file)
    if not replay.rounds:
        raise ReplayError(f"{args.file}: no rounds in this replay")
    verified = failed = incomplete = 0
    for recorded in replay.rounds:
        if not args.quiet:
            _print_round(recorded)
        where = f"table {recorded.table} round {recorded.round}"
        try:
            verify_round(recorded)
        except RoundIncomplete as exc:
            incomplete += 1
            print(f"… {exc}")
        except ReplayError as exc:
            failed += 1
            print(f"✗ {exc}")
        else:
            verified += 1
            print(f"✓ {where}: every move legal, messages agree, scores match")
    for note in replay.notes:
        incomplete += 1
        print(f"… {note}")
    if failed or incomplete:
        counts = f"{verified} round(s) verified, {failed} failed, {incomplete} incomplete"
        _say(
            args.log_format,
            "replay_not_verified",
            f"{args.file}: {counts}",
            level="warning",
            verified=verified,
            failed=failed,
            incomplete=incomplete,
        )
        return 1
    return 0


def _print_round(recorded: RecordedRound) -> None:
    """The round's public events as the console shows them, a model's figures after
    each of its actions (best effort: a line that cannot be shown is skipped here and
    reported by the check)."""
    from arena.events import Event
    from arena.sinks.console import EventLines

    print(f"== table {recorded.table}, round {recorded.round}, seed {recorded.header['seed']}")
    lines = EventLines(None)
    for raw in recorded.events:
        try:
            shown = lines.lines(Event(**raw))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        for line in shown:
            print(line)
    for line in lines.closing_lines():  # what was folded away (repeated gift refusals)
        print(line)


def _decisions(args: argparse.Namespace) -> int:
    """``arena replay --decisions``: what each model seat was asked, said and cost."""
    from arena.replay import ReplayError, load_replay
    from arena.replay_decisions import decisions_in, describe_decisions

    replay = load_replay(args.file)
    if not replay.rounds:
        raise ReplayError(f"{args.file}: no rounds in this replay")
    decisions = decisions_in(replay.rounds)
    if args.json:
        document = {
            "replay": str(args.file),
            "rounds": len(replay.rounds),
            "decisions": [decision.to_dict() for decision in decisions],
            "notes": replay.notes,
        }
        print(json.dumps(document, ensure_ascii=False, indent=2))
    if not decisions:
        rounds = len(replay.rounds)
        played = f"its {rounds} rounds were" if rounds != 1 else "its one round was"
        _say(
            args.log_format,
            "no_model_decisions",
            f"no model decisions in {args.file}: {played} played by seats that do not "
            "report their calls (only model seats do)",
            level="warning",
            path=str(args.file),
            rounds=rounds,
        )
        return 1
    if not args.json:
        for line in describe_decisions(decisions, source=str(args.file), full=args.full):
            print(line)
        for note in replay.notes:
            print(f"… {note}")
    return 0


def _compare(first: Path, second: Path) -> int:
    from arena.replay import compare_replays

    difference = compare_replays(first, second)
    if difference is None:
        print(f"same match: {first} and {second} differ only in timing fields")
        return 0
    print(f"different: {difference}")
    return 1


_CHECK_EPILOG = """\
For each seat checked it prints a table, one line per position (position, verdict,
time, detail), then a summary line. Verdicts:
  legal      a usable reply the rules allow, on time
  illegal    well formed, but the rules forbid it (the detail says why)
  malformed  not the reply asked for: not JSON, a wrong field, another seat's
             player_id or another request's request_id; a model's empty,
             unreadable or cut-off answer (cut off: raise its max_tokens)
  late       a reply after the seat's deadline (its timeout_s, else a model
             preset's, else [table] decision_timeout_s): the check waits the
             deadline again (at most 10 s more) to say how late, then gives up
             ("no reply within ...")
  error      the agent raised, or its program or server failed
A program that writes lines answering no request (a reply to a notification, two
replies to one request, a line before any request) fails with "extra lines: ...".

Each position's line is printed as soon as it is judged (a model takes seconds a
call). Ctrl-C or SIGTERM stops the check: the lines so far stay, followed by
"interrupted after N of 12 positions" (with --json, the document of what was judged,
its "interrupted" saying the same); exit status 130 or 143.

Exit status: 0 when every position of every seat checked is legal and on time and no
line came extra; 1 when not; 2 for a usage or config error, or an agent that cannot
start.
"""


def _agent_check(args: argparse.Namespace) -> int:
    from arena.table.settings import seat_deadline

    config = load_config(args.config)
    seats = list(enumerate(config.seats))
    if args.seat is not None:
        seats = [(index, seat) for index, seat in seats if seat.name == args.seat]
        if not seats:
            names = [seat.name for seat in config.seats]
            close = difflib.get_close_matches(args.seat, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UsageError(
                f"--seat {args.seat!r}: no such seat in {args.config}{hint}; "
                f"seats: {', '.join(names)}"
            )
    _check_terminal_for_humans(seats, str(args.config))
    agents = _checked_agents(args.config, config, [index for index, _ in seats])
    deadlines = [
        seat_deadline(seat.effective_timeout_s, agent, config.table)
        for (_, seat), agent in zip(seats, agents, strict=True)
    ]

    from arena.testing import POSITIONS
    from arena.testing.check import column_header, result_line

    width = max(len(position.name) for position in POSITIONS)  # known before any is judged
    judged: list[PositionResult] = []  # the seat being checked: its verdicts so far

    def show(result: PositionResult) -> None:
        judged.append(result)
        if not args.json:
            print(result_line(result, width), flush=True)

    async def run() -> list[AgentCheckReport]:
        stop_on_sigterm()
        reports = []
        try:
            for (index, seat), agent, timeout in zip(seats, agents, deadlines, strict=True):
                judged.clear()
                if not args.json:  # at once: a model takes seconds a position
                    print(f"== seat {index}: {seat.name} ({seat.type}), deadline {timeout:g} s")
                    print(column_header(width), flush=True)
                report = await _check_seat(agent, index, timeout, config, show)
                reports.append(report)
                if not args.json:
                    print("\n".join(report.closing_lines()), flush=True)
        except (asyncio.CancelledError, KeyboardInterrupt):
            # the verdicts already paid for stay on screen (or in the JSON), then it stops
            _interrupted(args, seats, reports, judged, deadlines[len(reports)])
            raise
        finally:
            await asyncio.gather(*map(_close_quietly, agents, deadlines))
        return reports

    reports = asyncio.run(run())
    passed = all(report.passed for report in reports)
    if args.json:
        print(
            json.dumps(_check_document(args, seats, reports, passed), ensure_ascii=False, indent=2)
        )
    elif len(reports) > 1:
        failed = [report.agent for report in reports if not report.passed]
        if failed:
            print(f"FAILED: {len(failed)} of {len(reports)} seats ({', '.join(failed)})")
        else:
            print(f"passed: all {len(reports)} seats")
    return 0 if passed else 1


def _check_document(
    args: argparse.Namespace,
    seats: Sequence[tuple[int, Any]],
    reports: Sequence[AgentCheckReport],
    passed: bool,
) -> dict[str, Any]:
    """``arena agent check --json``'s document (the seats checked, in order)."""
    return {
        "config": str(args.config),
        "passed": passed,
        "seats": [
            {"seat": index, "type": seat.type, **report.to_dict()}
            for (index, seat), report in zip(seats, reports, strict=False)
        ],
    }


def _interrupted(
    args: argparse.Namespace,
    seats: Sequence[tuple[int, Any]],
    reports: list[AgentCheckReport],
    judged: list[PositionResult],
    timeout_s: float,
) -> None:
    """Ctrl-C or SIGTERM during a check: say how far the seat being checked got (its
    verdicts so far are already on screen), or print the JSON of what was judged."""
    from arena.testing import POSITIONS, AgentCheckReport

    index, seat = seats[len(reports)]
    so_far = f"interrupted after {len(judged)} of {len(POSITIONS)} positions"
    if not args.json:
        print(f"{seat.name}: {so_far}", flush=True)
        return
    partial = [*reports, AgentCheckReport(seat.name, timeout_s, tuple(judged))]
    document = _check_document(args, seats, partial, False)
    document["interrupted"] = f"seat {index} ({seat.name}): {so_far}"
    print(json.dumps(document, ensure_ascii=False, indent=2), flush=True)


def _checked_agents(source: Path, config: ArenaConfig, indexes: list[int]) -> list[Any]:
    """The seats' agents, built exactly as ``arena play`` builds table t1's, every one
    before any is checked: a seat's mistake names the file, the key and the seat."""
    from arena.agents.registry import create_agent
    from arena.table import derive_seed

    seed = config.match.seed if config.match.seed is not None else 0
    agents = []
    for index in indexes:
        seat = config.seats[index]
        try:
            agent = create_agent(
                seat.type,
                seat.name,
                seed=derive_seed(seed, "t1", "seat", index),
                rules=config.rules,
                options=dict(seat.options),
                seat_key=f"seats.{index}",
            )
        except ConfigError as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        agents.append(agent)
    return agents


async def _check_seat(
    agent: Any,
    index: int,
    timeout_s: float,
    config: ArenaConfig,
    on_result: Callable[[PositionResult], None],
) -> AgentCheckReport:
    """Start the agent (as a table does: AgentStartError names the seat), then check it."""
    from arena.agents.lifecycle import open_agent
    from arena.testing import check_agent, stale_replies_of

    before = stale_replies_of(agent)  # lines a program writes as it starts count as extra
    await open_agent(agent, f"seat {index} ({agent.name!r})")
    return await check_agent(
        agent,
        timeout_s=timeout_s,
        notify_timeout_s=config.table.notify_timeout_s,
        rules=config.rules,
        stale_replies_before=before,
        on_result=on_result,
    )


async def _close_quietly(agent: Any, timeout_s: float) -> None:
    """Close an agent as a table does (a failure is logged, not raised)."""
    from arena.agents.lifecycle import close_agent

    await close_agent(agent, timeout_s, agent=getattr(agent, "name", None))


def _schema(args: argparse.Namespace) -> int:
    from protocol import write_event_schemas, write_schemas

    target: Path = args.directory
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target}: is a file; give a folder to write the schemas into")
    try:
        written = write_schemas(target)
        written += write_event_schemas(target / "events")
    except OSError as exc:
        raise UsageError(f"{target}: cannot write the schemas: {exc.strerror or exc}") from exc
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
