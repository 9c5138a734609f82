"""``arena schema DIRECTORY [--game NAME]``: write the JSON Schemas of a game's protocol
messages and of its public events, for agent authors in other languages and for readers
of the feeds."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.commands.usage import UsageError
from arena.logs import add_logging_flags

__all__ = ["add_schema_command", "run_schema_command"]


def add_schema_command(commands: argparse._SubParsersAction[Any], summary: str) -> None:
    """Add ``schema`` to ``arena``'s commands; ``summary`` is its line in the list."""
    schema = commands.add_parser("schema", help=summary)
    schema.add_argument("directory", type=Path)
    schema.add_argument(
        "--game",
        default=None,
        metavar="NAME",
        help="the game whose messages and events to write (default: ddz)",
    )
    add_logging_flags(schema)


def run_schema_command(args: argparse.Namespace) -> int:
    """Write the schemas into ``args.directory`` and print each file's path."""
    from arena.errors import ConfigError
    from arena.games.registry import DEFAULT_GAME, get_game
    from protocol import write_event_schemas, write_schemas

    try:
        game = get_game(args.game or DEFAULT_GAME)
    except ConfigError as exc:
        raise UsageError(f"--game: {exc}") from exc
    if game.wire is None:
        raise UsageError(f"--game: {game.name} publishes no schemas")
    wire = game.wire()
    target: Path = args.directory
    if target.exists() and not target.is_dir():
        raise UsageError(f"{target}: is a file; give a folder to write the schemas into")
    try:
        written = write_schemas(target, wire.messages, wire.schema_title)
        written += write_event_schemas(target / "events", wire.events, wire.schema_title)
    except OSError as exc:
        raise UsageError(f"{target}: cannot write the schemas: {exc.strerror or exc}") from exc
    for path in written:
        print(path)
    return 0
