"""Serving the app with uvicorn inside the arena's own event loop.

The arena owns the process: its Ctrl-C and SIGTERM handling, its logs. So uvicorn is
started as a task of the running loop on a socket bound here (a port in use is a clear
:class:`~arena.errors.ConfigError`, not uvicorn's exit), and it installs no signal
handlers of its own. Binding beyond the loopback interface needs a token: the control
page and the gift webhook would otherwise be open to the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import logging
import socket
from collections.abc import Generator
from typing import Any, Final

import uvicorn

from arena.errors import ConfigError
from arena.logs import get_logger

__all__ = ["DEFAULT_HOST", "Serving", "is_loopback"]

log = get_logger(__name__)

DEFAULT_HOST: Final = "127.0.0.1"
_STOP_S: Final = 3.0


def is_loopback(host: str) -> bool:
    """Whether ``host`` is this machine only (127.0.0.0/8, ::1, localhost)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class _ArenaUvicorn(uvicorn.Server):
    """uvicorn without its signal handlers: the arena's own stop the match and the
    server together."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class Serving:
    """An ASGI app served on ``host:port`` while the arena plays (an async context
    manager: bound and answering on entry, stopped on exit)."""

    def __init__(self, app: Any, *, host: str = DEFAULT_HOST, port: int = 0) -> None:
        self.app = app
        self.host = host
        self.port = port
        self._server: _ArenaUvicorn | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def url(self) -> str:
        """``http://host:port``, the port as bound (0 asks for a free one)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    async def __aenter__(self) -> Serving:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start(self) -> None:
        sock = self._bind()
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            self.app,
            log_config=None,
            log_level=logging.WARNING,
            access_log=False,
            lifespan="off",
            ws="websockets-sansio",
            ws_ping_interval=20.0,
            timeout_graceful_shutdown=1,
        )
        server = self._server = _ArenaUvicorn(config)
        self._task = asyncio.create_task(server.serve(sockets=[sock]), name="arena-server")
        while not server.started:
            if self._task.done():
                self._task.result()  # its failure, raised here
                raise ConfigError(f"the arena server on {self.url} stopped at once")
            await asyncio.sleep(0.01)
        log.debug("server_started", url=self.url)

    def _bind(self) -> socket.socket:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        sock = socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((self.host, self.port))
        except OSError as exc:
            sock.close()
            if self.port and exc.errno == errno.EADDRINUSE:
                raise ConfigError(
                    f"port {self.port} on {self.host} is in use (another arena server?): "
                    "--port N picks another, --port 0 any free one"
                ) from None
            raise ConfigError(f"cannot listen on {self.host}:{self.port}: {exc.strerror}") from None
        sock.listen(128)
        sock.setblocking(False)
        return sock

    async def stop(self) -> None:
        """Close the connections and stop listening (within a few seconds)."""
        server, task = self._server, self._task
        if server is None or task is None:
            return
        server.should_exit = True
        try:
            async with asyncio.timeout(_STOP_S):
                await asyncio.shield(task)
        except TimeoutError:
            server.force_exit = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._server = self._task = None
