"""One arena server for a run: its hub, controls, app and socket, from the config.

``arena play --serve``, ``arena serve`` and ``arena tournament run --serve`` each make
one :class:`ArenaServer`, hand its hub to the tables as a sink and as the spectator
feed's output, attach its controls to every table, and start it before the first event.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from arena.config import SeatConfig, ServerSettings
from arena.errors import ConfigError
from arena.secrets import register_secret
from arena.server.app import ServerParts, build_app
from arena.server.control import MatchControl
from arena.server.hub import Mode, OverlayHub
from arena.server.serving import DEFAULT_HOST, TOKEN_ENV, Serving, is_loopback
from arena.sinks.mqtt import new_run_id
from arena.table import Table

if TYPE_CHECKING:
    from arena.sinks.mqtt import MqttSink
    from arena.sinks.spectator import SpectatorOutput

__all__ = ["ArenaServer", "avatars_of", "server_token", "spectator_outputs"]


def server_token() -> str | None:
    """The token from the environment (``ARENA_SERVER_TOKEN``), or None when unset."""
    token = os.environ.get(TOKEN_ENV, "").strip()
    return token or None


def avatars_of(
    seats: Iterable[SeatConfig], *, base: Path | None = None
) -> tuple[dict[str, str], dict[int, Path]]:
    """Each named player's avatar URL for the pages, and the files the server serves
    (``/avatars/<n>``); a file that is not there is a ConfigError naming it."""
    urls: dict[str, str] = {}
    files: dict[int, Path] = {}
    for index, seat in enumerate(seats):
        if seat.avatar is None:
            continue
        if seat.avatar.startswith(("http://", "https://")):
            urls[seat.name] = seat.avatar
            continue
        path = Path(seat.avatar).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
        if not path.is_file():
            raise ConfigError(f"{seat.name}: avatar: {seat.avatar}: no such file")
        files[index] = path
        urls[seat.name] = f"/avatars/{index}"
    return urls, files


def spectator_outputs(
    mqtt: MqttSink | None, server: ArenaServer | None
) -> tuple[list[SpectatorOutput], list[str]]:
    """Where the delayed spectator feed goes (the MQTT sink, the server's hub), and
    where that is, in words, for the line that says so."""
    outputs: list[SpectatorOutput] = []
    places = []
    if mqtt is not None:
        outputs.append(mqtt)
        places.append(f"{mqtt.settings.topic_prefix}/tables/<table>/spectator")
    if server is not None:
        outputs.append(server.hub)
        places.append(f"{server.url}/spectator")
    return outputs, places


class ArenaServer:
    """The server of one run (see the module); ``async with`` serves it."""

    def __init__(
        self,
        settings: ServerSettings,
        *,
        mode: Mode,
        host: str | None = None,
        port: int | None = None,
        seats: Iterable[SeatConfig] = (),
        config_dir: Path | None = None,
        spectator_delay_s: float | None = None,
        started: bool = True,
        token: str | None = None,
    ) -> None:
        self.token = token if token is not None else server_token()
        if self.token:  # it opens the controls and signs the webhook: masked everywhere
            register_secret(self.token, TOKEN_ENV)
        host = host or DEFAULT_HOST
        if not is_loopback(host) and not self.token:
            raise ConfigError(
                f"--host {host}: serving beyond this machine needs a token: set {TOKEN_ENV} "
                "(the control page and the gift webhook would be open to anyone)"
            )
        urls, files = avatars_of(seats, base=config_dir)
        self.hub = OverlayHub(
            run_id=new_run_id(),
            mode=mode,
            lang=settings.lang,
            sound=settings.sound,
            spectator_delay_s=spectator_delay_s,
            avatars=urls,
        )
        self.control = MatchControl(started=started, on_change=self._control_changed)
        self.parts = ServerParts(
            hub=self.hub,
            control=self.control,
            token=self.token,
            avatar_files=files,
            on_start=None if started else self._start,
        )
        self.serving = Serving(
            build_app(self.parts), host=host, port=settings.port if port is None else port
        )

    async def _start(self) -> str:
        """Start, on the control page: the command waiting for it plays the match."""
        self.control.start()
        return "the match starts"

    def _control_changed(self) -> None:
        control = self.control
        self.hub.set_paused(frozenset(control.waiting), pausing=control.pause_requested)

    @property
    def url(self) -> str:
        return self.serving.url

    def urls(self) -> Mapping[str, str]:
        """The pages, by name (printed when the server starts)."""
        return {name: f"{self.url}/{name}" for name in ("overlay", "spectator", "control")}

    def attach(self, tables: Iterable[Table]) -> None:
        """Every table waits at the controls' gate between rounds."""
        for table in tables:
            self.control.attach(table)

    async def __aenter__(self) -> ArenaServer:
        await self.serving.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.hub.flush()
        await self.serving.stop()
