"""One arena server for a run: its hub, controls, app and socket, from the config.

``arena play --serve``, ``arena serve`` and ``arena tournament run --serve`` each make
one :class:`ArenaServer`, hand its hub to the tables as a sink and as the spectator
feed's output, attach its controls to every table, and start it before the first event.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from arena.config import SeatConfig, ServerSettings
from arena.errors import ConfigError
from arena.secrets import SERVER_TOKEN_ENV, register_secret
from arena.server.app import ServerParts, build_app
from arena.server.control import MatchControl
from arena.server.hub import Mode, OverlayHub
from arena.server.serving import DEFAULT_HOST, Serving, is_loopback
from arena.server.tokens import control_link, remove_private_link, run_token, write_private_link
from arena.sinks.mqtt import new_run_id
from arena.table import Table

if TYPE_CHECKING:
    from arena.sinks.mqtt import MqttSink
    from arena.sinks.spectator import SpectatorOutput

__all__ = ["ArenaServer", "avatars_of", "spectator_outputs"]


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
        host = host or DEFAULT_HOST
        found = run_token(host, loopback=is_loopback(host), given=token)
        self.token = found.value if found is not None else None
        """The controls' and the webhook's token (arena/server/tokens.py): ``token``,
        else ``ARENA_SERVER_TOKEN``, else one made for this run; None: they refuse all."""
        if self.token:  # it opens the controls and signs the webhook: masked everywhere
            register_secret(self.token, SERVER_TOKEN_ENV)
        self.token_made = found is not None and found.made_for_run
        """The arena made the token: the command prints :meth:`control_link`."""
        self._link_file: Path | None = None
        seats = list(seats)
        urls, files = avatars_of(seats, base=config_dir)
        self.hub = OverlayHub(
            run_id=new_run_id(),
            mode=mode,
            lang=settings.lang,
            sound=settings.sound,
            spectator_delay_s=spectator_delay_s,
            avatars=urls,
            between_tables_s=settings.between_tables_s if mode == "tournament" else 0.0,
            seats=len(seats) if seats and mode != "tournament" else None,
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
        """The pages, by name (printed when the server starts); never the token."""
        return {name: f"{self.url}/{name}" for name in ("overlay", "spectator", "control")}

    def control_link(self) -> str | None:
        """The control page's URL that logs in by itself (the token in its fragment),
        or None without a token. A secret: for the terminal or a private file only."""
        return control_link(self.url, self.token) if self.token else None

    def write_link_file(self) -> Path | None:
        """Write :meth:`control_link` to a file only this user reads (removed when the
        server stops): its path, or None without a token."""
        link = self.control_link()
        if link is None:
            return None
        if self._link_file is None:
            self._link_file = write_private_link(link)
        return self._link_file

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
        if self._link_file is not None:
            remove_private_link(self._link_file)
            self._link_file = None
