"""The ``arena`` command: play a match, check a replay, write the protocol's JSON Schemas."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.config import ArenaConfig, load_config, parse_config
from arena.errors import ArenaError
from arena.logs import configure_logging

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="arena", description="Dou Dizhu Arena: 斗地主 matches between AI agents."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    play = commands.add_parser("play", help="play a match (three scripted agents by default)")
    play.add_argument("--config", type=Path, help="TOML config file (default: built-in defaults)")
    play.add_argument("--rounds", type=int, help="rounds per table")
    play.add_argument("--seed", type=int, help="match seed (same seed, same deals)")
    play.add_argument("--tables", type=int, help="tables playing at once")
    play.add_argument("--record", type=Path, help="write a replay (JSON lines) to this file")
    play.add_argument(
        "--no-live", action="store_true", help="plain lines instead of the live board"
    )
    play.add_argument("--pace", type=float, help="seconds each action stays on screen")
    _logging_flags(play)

    replay = commands.add_parser("replay", help="print a replay and re-check every move")
    replay.add_argument("file", type=Path)
    replay.add_argument("--quiet", action="store_true", help="only the verdict per round")
    _logging_flags(replay)

    schema = commands.add_parser("schema", help="write JSON Schemas of the protocol messages")
    schema.add_argument("directory", type=Path)
    _logging_flags(schema)
    return parser


def _logging_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-format", choices=("console", "json"), default="console")
    parser.add_argument("--log-level", default=None, help="debug, info, warning (default) ...")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    configure_logging(args.log_format, args.log_level or "warning")
    try:
        if args.command == "play":
            return _play(args)
        if args.command == "replay":
            return _replay(args)
        return _schema(args)
    except ArenaError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        return 130


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
    if args.pace is not None:
        data["table"]["pace_s"] = args.pace
    elif not live:
        data["table"]["pace_s"] = 0.0
    return parse_config(data, source="command line"), live


def _wants_live(args: argparse.Namespace, config: ArenaConfig) -> bool:
    has_human = any(seat.type == "human" for seat in config.seats)
    return not args.no_live and not has_human and sys.stdout.isatty()


def _play(args: argparse.Namespace) -> int:
    from arena.replay import ReplayWriter
    from arena.runner import new_seed, run_arena
    from arena.sinks.console import LiveConsoleSink, PlainConsoleSink

    config, live = _effective_config(args)
    seed = config.match.seed if config.match.seed is not None else new_seed()
    sink = LiveConsoleSink() if live else PlainConsoleSink()
    replay = ReplayWriter(args.record) if args.record else None
    print(f"arena: seed {seed} (repeat this match with --seed {seed})", file=sys.stderr)

    async def run() -> None:
        try:
            await run_arena(config, seed=seed, sinks=[sink], replay=replay)
        finally:
            await sink.close()
            if replay is not None:
                replay.close()

    asyncio.run(run())
    if args.record:
        print(f"arena: replay written to {args.record}", file=sys.stderr)
    return 0


def _replay(args: argparse.Namespace) -> int:
    from arena.replay import ReplayError, load_replay, verify_round
    from arena.sinks.console import describe
    from arena.table.events import Event

    rounds = load_replay(args.file)
    if not rounds:
        print(f"arena: {args.file}: no rounds in this replay", file=sys.stderr)
        return 1
    failures = 0
    for recorded in rounds:
        if not args.quiet:
            header = recorded.header
            print(f"== table {recorded.table}, round {recorded.round}, seed {header['seed']}")
            for raw in recorded.events:
                line = describe(Event(**raw))
                if line is not None:
                    print(line)
        try:
            verify_round(recorded)
        except ReplayError as exc:
            failures += 1
            print(f"✗ table {recorded.table} round {recorded.round}: {exc}")
        else:
            print(
                f"✓ table {recorded.table} round {recorded.round}: every move legal, scores match"
            )
    return 1 if failures else 0


def _schema(args: argparse.Namespace) -> int:
    from protocol import write_schemas

    written = write_schemas(args.directory)
    for path in written:
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
