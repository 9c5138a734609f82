"""The control page is never shown inside another page's frame.

A page on any site could otherwise frame ``/control`` (which logs in by itself with the
tab's token) and trick the streamer into clicking its buttons. So every answer under
``/control`` (the page and its API) says no framing, in both headers browsers read
(``X-Frame-Options`` for older ones, CSP ``frame-ancestors`` for the rest). The overlay
and the spectator view stay frameable: OBS and viewers' pages embed them.
"""

from __future__ import annotations

from typing import Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["NO_FRAMING", "NoFraming"]

NO_FRAMING: Final = (
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy", b"frame-ancestors 'none'"),
)
_GUARDED: Final = "/control"
"""The page, and under ``/control/`` its API."""


def _guarded(path: str) -> bool:
    return path == _GUARDED or path.startswith(f"{_GUARDED}/")


class NoFraming:
    """ASGI middleware adding :data:`NO_FRAMING` to every HTTP answer under ``/control``
    (errors and the router's own 404 and 405 included)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not _guarded(scope["path"]):
            await self.app(scope, receive, send)
            return

        async def send_guarded(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", ()), *NO_FRAMING]
            await send(message)

        await self.app(scope, receive, send_guarded)
