"""``arena``'s parser: every command and its one line, the version, and each command's
flags, added by the module that runs the command (``gift`` and ``tournament`` by the
``gifts`` and ``tournaments`` packages, imported only while the parser is built)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from importlib import metadata

from arena.commands.agent import add_agent_command
from arena.commands.play import add_play_command
from arena.commands.replay import add_replay_command
from arena.commands.schema import add_schema_command
from arena.commands.serve import add_serve_command
from arena.commands.usage import CommandParser, UsageError

__all__ = ["build_parser", "commands_text", "wanted_log_format"]

COMMANDS = {
    "play": "play a match (three scripted agents by default)",
    "serve": "serve the stream overlay and controls; Start on /control plays a match",
    "replay": "print a replay and re-check every move",
    "schema": "write JSON Schemas of the protocol messages and the public events",
    "agent": "check an agent: arena agent check CONFIG [--seat NAME] [--json]",
    "gift": "send a test gift to a running arena: arena gift send EFFECT [options]",
    "tournament": "run a tournament between any number of agents: arena tournament run FILE",
}
"""Each command and its one line, for ``arena --help`` and for ``arena`` alone."""


def build_parser() -> argparse.ArgumentParser:
    """The whole ``arena`` parser, its commands in the order ``arena --help`` lists them."""
    parser = CommandParser(
        prog="arena", description="Dou Dizhu Arena: 斗地主 matches between AI agents."
    )
    parser.add_argument("--version", action="version", version=f"arena {_version()}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_play_command(commands, COMMANDS["play"])
    add_serve_command(commands, COMMANDS["serve"])
    add_replay_command(commands, COMMANDS["replay"])

    from gifts.cli_send import add_gift_command  # the gifts package, only for its command
    from tournaments.cli import add_tournament_command  # and tournaments, for theirs

    add_gift_command(commands)
    add_tournament_command(commands)
    add_schema_command(commands, COMMANDS["schema"])
    add_agent_command(commands, COMMANDS["agent"])
    return parser


def wanted_log_format(argv: Sequence[str]) -> str:
    """The ``--log-format`` asked for, read before the full parse: even a usage error
    is reported in it."""
    early = CommandParser(add_help=False)
    early.add_argument("--log-format", default="console")
    early.add_argument("--log-level")
    try:
        known, _ = early.parse_known_args(argv)
    except UsageError:
        return "console"
    return str(known.log_format)


def commands_text() -> str:
    """What ``arena`` alone prints: the commands, one line each."""
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    return "\n".join(
        [
            "usage: arena COMMAND [options]",
            "commands:",
            *lines,
            "Run arena COMMAND --help for a command's options, arena --version for the version.",
        ]
    )


def _version() -> str:
    """The installed package's version (the one place it is written: pyproject.toml)."""
    try:
        return metadata.version("ddz-arena")
    except metadata.PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown (not installed)"
