"""The ``arena`` command: play a match, check a replay, write the protocol's JSON Schemas.

The entry point of the console script: :func:`main` builds the parser
(:mod:`arena.commands.parser`), runs the command asked for (each in its own module under
:mod:`arena.commands`) and turns what ends a command early into one line and an exit
status: a user's mistake (ArenaError) 2, Ctrl-C 130, SIGTERM 143, a reader gone 141.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence

from arena.commands.agent import run_agent_command
from arena.commands.parser import build_parser, commands_text, wanted_log_format
from arena.commands.play import run_play_command
from arena.commands.replay import run_replay_command
from arena.commands.schema import run_schema_command
from arena.commands.serve import run_serve_command
from arena.commands.usage import UsageError
from arena.errors import ArenaError
from arena.logs import configure_logging, say
from arena.stopping import is_sigterm

__all__ = ["UsageError", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``arena`` console script; returns the exit status.

    A user's mistake (ArenaError) ends in one line per problem and exit status 2.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # a newcomer's first try: say what there is to do
        print(commands_text(), file=sys.stderr)
        return 2
    log_format = wanted_log_format(argv)
    try:
        args = build_parser().parse_args(argv)
        configure_logging(args.log_format, args.log_level)
        _register_environment_secrets()
        if args.command == "play":
            return run_play_command(args)
        if args.command == "serve":
            return run_serve_command(args)
        if args.command == "replay":
            return run_replay_command(args)
        if args.command == "agent":
            return run_agent_command(args)
        if args.command == "gift":
            from gifts.cli_send import run_gift_command

            return run_gift_command(args)
        if args.command == "tournament":
            from tournaments.cli import run_tournament_command

            return run_tournament_command(args)
        return run_schema_command(args)
    except ArenaError as exc:
        for line in str(exc).splitlines() or [type(exc).__name__]:
            say(log_format, "command_failed", f"error: {line}", level="error", error=line)
        return 2
    except KeyboardInterrupt:
        say(log_format, "interrupted", "interrupted", level="warning")
        return 130
    except asyncio.CancelledError as exc:
        if not is_sigterm(exc):
            raise
        say(log_format, "terminated", "terminated", level="warning")
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


if __name__ == "__main__":
    raise SystemExit(main())
