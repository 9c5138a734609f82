"""The controls' token of a run: the streamer's own, or one made for the run.

``ARENA_SERVER_TOKEN`` set: that is the token. Unset, a server on this machine only
(loopback) makes one with :func:`new_run_token` and the command prints a link to the
control page that carries it in the URL's fragment (``/control#token=...``): a
fragment never reaches the server, so it is in no request line or access log, and the
page moves it into the tab's storage and off the address bar at once. Beyond loopback
the token must be set explicitly: a bridge elsewhere signs with it, and the streamer
decides who holds it.

Where the link goes (never through the logging, never to the overlay or MQTT): with
``--log-format console`` one plain line on stderr, for the person at the terminal; with
``--log-format json`` (stderr read by a log collector) a file only its owner can read,
whose path the JSON line names (:func:`write_private_link`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from arena.errors import ConfigError
from arena.logs import get_logger
from arena.secrets import SERVER_TOKEN_ENV

__all__ = [
    "RunToken",
    "control_link",
    "new_run_token",
    "remove_private_link",
    "run_token",
    "write_private_link",
]

log = get_logger(__name__)

_TOKEN_BYTES: Final = 32
"""Random bytes in a token made for a run (43 URL-safe characters)."""
FRAGMENT_KEY: Final = "token"
"""The control page reads its token from ``#token=...`` (arena/server/static/control.js)."""


@dataclass(frozen=True)
class RunToken:
    """The token of one run, and whether the arena made it (then the link is printed)."""

    value: str
    made_for_run: bool


def new_run_token() -> str:
    """A fresh random token for one run (URL-safe, so it fits a URL's fragment as is).

    The one place a server token is made: whatever must know every secret of the
    process (to mask it in what the arena writes) learns it here."""
    return secrets.token_urlsafe(_TOKEN_BYTES)


def run_token(host: str, *, loopback: bool, given: str | None = None) -> RunToken | None:
    """The token of a server on ``host``: ``given``, else ``ARENA_SERVER_TOKEN``'s
    value, else (on loopback) one made for this run. ``given=""`` asks for none: the
    controls and the webhook then refuse everything (a library's server).

    No token beyond loopback is a ConfigError: the control page and the gift webhook
    would listen on the network, and a token made for the run is not made there (a
    bridge elsewhere could not know it; the streamer decides who holds it)."""
    if given is None:
        given = os.environ.get(SERVER_TOKEN_ENV, "")
        if given and not given.strip():  # set to spaces: a mistake, said, not a token
            log.warning(
                "server_token_blank",
                detail=f"{SERVER_TOKEN_ENV} is set but holds only spaces: it is no token",
            )
        given = given.strip()
        if not given and loopback:
            return RunToken(new_run_token(), made_for_run=True)
    if given:
        return RunToken(given, made_for_run=False)
    if not loopback:
        raise ConfigError(
            f"--host {host}: serving beyond this machine needs a token: set {SERVER_TOKEN_ENV} "
            "(the control page and the gift webhook would be open to anyone)"
        )
    return None


def control_link(base_url: str, token: str) -> str:
    """The control page's URL that logs in with ``token`` (in the fragment)."""
    return f"{base_url}/control#{FRAGMENT_KEY}={token}"


def write_private_link(link: str) -> Path:
    """Write ``link`` to a new file only this user can read (0600), in
    ``$XDG_RUNTIME_DIR`` when there is one (the user's own), else the temporary
    folder; its path. The caller removes it when the server stops."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    folder = runtime if runtime and Path(runtime).is_dir() else None
    handle, name = tempfile.mkstemp(prefix="arena-control-", suffix=".url", dir=folder)
    with os.fdopen(handle, "w", encoding="utf-8") as file:  # mkstemp: 0600, O_EXCL
        file.write(f"{link}\n")
    return Path(name)


def remove_private_link(path: Path) -> None:
    """Remove a file :func:`write_private_link` wrote (gone already: nothing to do)."""
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
