"""``arena schema DIRECTORY``: write the JSON Schemas of the protocol messages and of
the public events, for agent authors in other languages and for readers of the feeds."""

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
    add_logging_flags(schema)


def run_schema_command(args: argparse.Namespace) -> int:
    """Write the schemas into ``args.directory`` and print each file's path."""
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
