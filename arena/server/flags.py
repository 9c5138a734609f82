"""The command line's part of serving: ``--host`` and ``--port``, and the lines that
say where the pages are. Light on purpose: ``arena --help`` imports it, not the server."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from arena.logs import Say
from arena.secrets import SERVER_TOKEN_ENV

if TYPE_CHECKING:
    from arena.server.wiring import ArenaServer

__all__ = ["TOKEN_ENV", "Say", "add_server_flags", "say_server"]

TOKEN_ENV = SERVER_TOKEN_ENV
"""The environment variable holding the control page's and the gift webhook's token (a
secret of the arena whether or not it serves: :data:`arena.secrets.WELL_KNOWN_VARIABLES`)."""


def add_server_flags(parser: argparse.ArgumentParser) -> None:
    """``--host`` and ``--port``, for every command that serves."""
    parser.add_argument(
        "--host",
        metavar="H",
        help=f"the address to listen on (default: 127.0.0.1, this machine only; another "
        f"needs {TOKEN_ENV} set)",
    )
    parser.add_argument(
        "--port",
        type=_port,
        metavar="N",
        help="the port (default: [server] port, 8750; 0 picks a free one)",
    )


def _port(text: str) -> int:
    """A port number, 0 (any free one) to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is no port: give 1-65535, or 0 for any free one")
    return port


def say_server(server: ArenaServer, say: Say, log_format: str) -> None:
    """Where the pages are, and how to open the controls: with a token the arena made
    for the run, the link that logs in (arena/server/tokens.py says where it goes)."""
    urls = server.urls()
    say(
        "server_started",
        f"overlay: {urls['overlay']} (an OBS browser source; ?layout=portrait for "
        f"1080x1920), spectator view: {urls['spectator']}, controls: {urls['control']}",
        **urls,
    )
    if server.token_made:  # else the streamer's own token, or none (a library's server)
        _say_control_link(server, say, log_format)


def _say_control_link(server: ArenaServer, say: Say, log_format: str) -> None:
    """The link with this run's token: a plain line for the person at the terminal;
    in JSON (a log collector reads stderr) only a private file's path, never the token."""
    if log_format == "json":
        path = server.write_link_file()
        say(
            "server_control_link",
            "",
            control=server.urls()["control"],
            link_file=str(path),
            note=f"the control page's link with a token made for this run is in link_file "
            f"(readable by this user only); set {TOKEN_ENV} to choose the token",
        )
        return
    # Written here, not said: this one line must show the token, and what is said or
    # logged has every known secret masked (the token is one).
    sys.stderr.write(
        f"arena: open the controls at {server.control_link()} (a token made for this run; "
        f"set {TOKEN_ENV} to choose your own)\n"
    )
    sys.stderr.flush()
