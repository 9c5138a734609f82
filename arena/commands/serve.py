"""``arena serve``: the stream overlay and the streamer's controls, each Start on
``/control`` playing the config's match. It plays as ``arena play --serve`` with no other
flags would (:mod:`arena.commands.play`), in plain lines: the stream is the overlay's."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from arena.commands.play import run_play_command
from arena.commands.play_config import add_game_flags
from arena.config import ArenaConfig
from arena.logs import add_logging_flags
from arena.server.flags import add_server_flags

__all__ = ["add_serve_command", "run_serve_command"]


def add_serve_command(commands: argparse._SubParsersAction[Any], summary: str) -> None:
    """Add ``serve`` to ``arena``'s commands; ``summary`` is its line in the list."""
    defaults = ArenaConfig()
    serve = commands.add_parser(
        "serve",
        help=summary,
        description="Serve the stream overlay and the streamer's controls; each Start on "
        "/control plays the config's match (docs/overlay.md).",
    )
    serve.add_argument(
        "--config",
        type=Path,
        help="TOML config file (default: the built-in settings, those of config/arena.toml)",
    )
    add_game_flags(serve)
    serve.add_argument(
        "--start", action="store_true", help="play the first match at once, without Start"
    )
    serve.add_argument(
        "--next-in",
        type=_seconds,
        metavar="SECONDS",
        help="after a match, deal the next one in SECONDS (the overlay counts down over "
        "the last match's end; Start on /control deals it at once); default: wait for Start",
    )
    serve.add_argument(
        "--pace",
        type=float,
        help=f"seconds each action stays on screen (default: [table] pace_s, "
        f"{defaults.table.pace_s})",
    )
    serve.add_argument(
        "--round-pause",
        type=float,
        metavar="SECONDS",
        help="seconds between a round's result and the next deal (default: [table] "
        "round_pause_s; unset, 6 when paced, so that the overlay's result card is read)",
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


def _seconds(text: str) -> float:
    """A countdown: more than 0 seconds, at most a day."""
    try:
        seconds = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < seconds <= 86_400:
        raise argparse.ArgumentTypeError(f"{seconds:g}: give more than 0 seconds, at most 86400")
    return seconds


def run_serve_command(args: argparse.Namespace) -> int:
    """Serve, and play each match the controls start."""
    return run_play_command(_with_play_defaults(args))


def _with_play_defaults(args: argparse.Namespace) -> argparse.Namespace:
    """The ``arena play`` flags ``arena serve`` has not, as ``arena play --serve`` with no
    other flags would set them (plain lines: the stream is the overlay's)."""
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
        "wait_for_start": False,  # it waits for Start anyway (--start: not the first)
        "exit_when_done": False,  # a server of many matches
        "next_in": None,
    }
    for key, value in defaults.items():
        setattr(args, key, getattr(args, key, value))
    return args
