"""The arena server's routes (Starlette): the overlay, its feeds, the controls, gifts.

| route | what |
|---|---|
| ``/overlay``, ``/spectator``, ``/control`` | the pages (static files shipped in the package) |
| ``/static/<file>`` | their scripts and styles |
| ``/static/games/<game>/<file>`` | a game's part of the overlay (arena/server/game_assets.py) |
| ``/ws``, ``/ws/spectator`` | the public feed, the delayed one (``?table=t2``) |
| ``/avatars/<n>`` | an avatar given as a file in the config |
| ``/healthz`` | is it up, what it plays, and which sinks are degraded |
| ``/control/api/...`` | start, pause, resume, featured table, test gift: token only |
| ``/gifts/webhook`` | a bridge's gift, signed with the token (``X-Arena-Signature``) |

The token comes from the environment (``ARENA_SERVER_TOKEN``) or is made for the run
(arena/server/tokens.py), never from a file or the command line; without one (a
library's server) the controls and the webhook refuse everything. ``/control`` and its
API are never framed (arena/server/framing.py). Gifts reach
the tables through a :class:`GiftIntake` the gifts package provides (this package does
not depend on it); without one (gifts off) the webhook and the test gift say so. Every
JSON answer has every known secret masked (:func:`_json`): an error may quote the
caller's own text.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Protocol

import orjson
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from arena.errors import ConfigError
from arena.games.registry import get_game
from arena.logs import get_logger
from arena.masking import masked
from arena.secrets import SERVER_TOKEN_ENV
from arena.server.control import MatchControl
from arena.server.framing import NoFraming
from arena.server.game_assets import GAMES_URL, asset_file, game_overlay
from arena.server.hub import Feed, OverlayHub

__all__ = ["STATIC_DIR", "GiftIntake", "ServerParts", "build_app"]

log = get_logger(__name__)

STATIC_DIR: Final = Path(__file__).with_name("static")
_PAGES: Final = {
    "overlay": "overlay.html",
    "spectator": "overlay.html",
    "control": "control.html",
}
"""The spectator view is the overlay's page: its script reads the path it was served at."""
_MAX_BODY: Final = 64 * 1024
_NO_STORE: Final = {"Cache-Control": "no-store"}
_FIELDS: Final[Mapping[str, frozenset[str]]] = {
    "start": frozenset(),
    "pause": frozenset(),
    "resume": frozenset(),
    "feature": frozenset({"table"}),
    "gift": frozenset({"effect", "table", "target", "viewer", "message"}),
}
"""What each control takes in its JSON body."""


class GiftIntake(Protocol):
    """Where the webhook's and the control page's gifts go (``gifts.webhook``)."""

    effects: Sequence[str]

    async def webhook(self, headers: Mapping[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        """Check a signed delivery and hand its gift on: a status and a JSON answer."""
        ...

    async def test_gift(self, fields: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """A streamer's test gift from the control page: a status and a JSON answer."""
        ...


@dataclass
class ServerParts:
    """What the routes need: the hub, the controls, and what the run may do."""

    hub: OverlayHub
    control: MatchControl
    token: str | None
    """The control page's and webhook's token (``ARENA_SERVER_TOKEN``, or made for the
    run), or None."""
    gifts: GiftIntake | None = None
    avatar_files: Mapping[int, Path] = field(default_factory=dict)
    on_start: Callable[[], Awaitable[str]] | None = None
    """What Start does (``arena serve``: the next match); None when a match just runs."""
    last_error: str | None = None
    """Why the last match started could not be played (``arena serve``), if it could not."""
    gifts_off: str = "gifts are off: start the arena with --gifts"
    """What the webhook and the control page's test gift say while ``gifts`` is None."""


def build_app(parts: ServerParts) -> Starlette:
    """The Starlette app of the arena server (see the module)."""
    routes = Routes(parts)
    return Starlette(
        routes=[
            Route("/", routes.index),
            Route("/overlay", routes.page("overlay")),
            Route("/spectator", routes.page("spectator")),
            Route("/control", routes.page("control")),
            Route("/healthz", routes.healthz),
            Route("/avatars/{index:int}", routes.avatar),
            Route("/control/api/state", routes.control_state),
            Route("/control/api/{action}", routes.control_action, methods=["POST"]),
            Route("/gifts/webhook", routes.webhook, methods=["POST"]),
            WebSocketRoute("/ws", routes.feed("public")),
            WebSocketRoute("/ws/spectator", routes.feed("spectator")),
            Route(GAMES_URL + "/{game}/{file:path}", routes.game_asset),
            Mount("/static", StaticFiles(directory=STATIC_DIR), name="static"),
        ],
        middleware=[Middleware(NoFraming)],  # /control and its API: never in a frame
    )


def _json(content: Any, status: int = 200) -> JSONResponse:
    """Every JSON answer of the app, never cached, with every known secret masked: an
    error may quote what the caller sent (a key pasted into the wrong field), the state
    the last error, a gift's answer the viewer's text (:mod:`arena.masking`)."""
    return JSONResponse(masked(content), status_code=status, headers=_NO_STORE)


def _error(status: int, message: str) -> JSONResponse:
    return _json({"error": message}, status)


class Routes:
    """The handlers, sharing the server's parts."""

    def __init__(self, parts: ServerParts) -> None:
        self.parts = parts

    async def index(self, request: Request) -> Response:
        return RedirectResponse("/overlay")

    def page(self, name: str) -> Callable[[Request], Awaitable[Response]]:
        path = STATIC_DIR / _PAGES[name]

        async def serve(request: Request) -> Response:
            return FileResponse(path, media_type="text/html; charset=utf-8", headers=_NO_STORE)

        return serve

    async def healthz(self, request: Request) -> Response:
        state = self.parts.hub.server_state()
        status = "degraded" if state["degraded"] else "ok"  # a sink keeps failing
        return _json({"status": status, **state})

    async def game_asset(self, request: Request) -> Response:
        """A file of a game's renderer (its ``overlay_assets``), served as ``/static``'s."""
        params = request.path_params
        path = asset_file(params["game"], params["file"])
        if path is None:
            return _error(404, "no such file")
        return FileResponse(path)

    async def avatar(self, request: Request) -> Response:
        path = self.parts.avatar_files.get(request.path_params["index"])
        if path is None or not path.is_file():
            return _error(404, "no such avatar")
        return FileResponse(path)

    # --- the feeds ----------------------------------------------------------------------

    def feed(self, kind: Feed) -> Callable[[WebSocket], Awaitable[None]]:
        async def serve(websocket: WebSocket) -> None:
            await websocket.accept()
            table = websocket.query_params.get("table") or None
            preview = websocket.query_params.get("preview") == "1"
            subscription = self.parts.hub.subscribe(kind, table, preview=preview)
            sender = asyncio.create_task(_send_all(websocket, subscription.next))
            try:
                while True:  # a page says nothing; this notices it going away
                    message = await websocket.receive()
                    if message["type"] == "websocket.disconnect":
                        break
            except WebSocketDisconnect:
                pass
            finally:
                subscription.close()
                sender.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await sender

        return serve

    # --- the controls -------------------------------------------------------------------

    def _refusal(self, request: Request) -> Response | None:
        """None when the request carries the token; else why not, as a response."""
        token = self.parts.token
        if not token:
            return _error(
                403,
                f"the controls are off: set {SERVER_TOKEN_ENV} in the arena's environment and "
                "restart it",
            )
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            return _error(401, "wrong or missing token (Authorization: Bearer <token>)")
        return None

    def _state(self) -> dict[str, Any]:
        parts = self.parts
        hub, control = parts.hub, parts.control
        game = hub.game_of(hub.featured)
        return {
            **hub.server_state(),
            "paused": control.paused,
            "pause_requested": control.pause_requested,
            "started": control.started,
            "can_start": parts.on_start is not None and not control.started,
            "gifts": parts.gifts is not None,
            "last_error": parts.last_error,
            "effects": _offered(parts.gifts.effects, game) if parts.gifts is not None else [],
            "game": game_overlay(game) if game is not None else None,
            "seats": hub.seats_of(hub.featured),
            "players": hub.players_of(hub.featured),
        }

    async def control_state(self, request: Request) -> Response:
        refused = self._refusal(request)
        if refused is not None:
            return refused
        return _json(self._state())

    async def control_action(self, request: Request) -> Response:
        refused = self._refusal(request)
        if refused is not None:
            return refused
        action = request.path_params["action"]
        handler = {
            "start": self._start,
            "pause": self._pause,
            "resume": self._resume,
            "feature": self._feature,
            "gift": self._gift,
        }.get(action)
        if handler is None:
            return _error(404, f"no control {action!r}: start, pause, resume, feature, gift")
        fields = await _json_body(request)
        if isinstance(fields, Response):
            return fields
        unknown = sorted(set(fields) - _FIELDS[action])
        if unknown:
            known = ", ".join(sorted(_FIELDS[action])) or "nothing"
            return _error(
                400, f"{action}: unknown field(s) {', '.join(unknown)} (it takes {known})"
            )
        return await handler(fields)

    async def _start(self, fields: Mapping[str, Any]) -> Response:
        parts = self.parts
        if parts.on_start is None:
            return _error(409, "this match started with the server: nothing to start")
        if parts.control.started:
            return _error(409, "a match is being played already")
        said = await parts.on_start()
        return _ok(said, self._state())

    async def _pause(self, fields: Mapping[str, Any]) -> Response:
        control = self.parts.control
        if control.pause():
            log.info("control_pause")
            return _ok("pausing after this round", self._state())
        return _ok("already pausing", self._state())

    async def _resume(self, fields: Mapping[str, Any]) -> Response:
        if self.parts.control.resume():
            log.info("control_resume")
            return _ok("playing on", self._state())
        return _ok("nothing was paused", self._state())

    async def _feature(self, fields: Mapping[str, Any]) -> Response:
        table = fields.get("table")
        if not isinstance(table, str):
            return _error(400, 'give the table to feature: {"table": "t2"}')
        try:
            self.parts.hub.feature(table)
        except ValueError as exc:
            return _error(404, str(exc))
        return _ok(f"featuring {table}", self._state())

    async def _gift(self, fields: Mapping[str, Any]) -> Response:
        gifts = self.parts.gifts
        if gifts is None:
            return _error(503, self.parts.gifts_off)
        table = fields.get("table")
        if table not in (None, "") and table not in self.parts.hub.tables:
            known = ", ".join(self.parts.hub.tables) or "none yet"
            return _error(404, f"no table {table!r} (tables: {known})")
        for key in ("viewer", "message"):
            if fields.get(key) is not None and not isinstance(fields[key], str):
                return _error(400, f"{key}: give text, not {fields[key]!r}")
        status, answer = await gifts.test_gift(fields)
        return _json(answer, status)

    # --- gifts from bridges -------------------------------------------------------------

    async def webhook(self, request: Request) -> Response:
        if not self.parts.token:
            return _error(403, f"the gift webhook is off: set {SERVER_TOKEN_ENV} and restart")
        if self.parts.gifts is None:
            return _error(503, self.parts.gifts_off)
        body = await _body(request)
        if body is None:
            return _error(413, f"a gift is at most {_MAX_BODY} bytes")
        try:
            status, answer = await self.parts.gifts.webhook(request.headers, body)
        except Exception as exc:  # the arena's failure, answered: a raise resets the connection
            log.exception("gift_webhook_failed", error=type(exc).__name__)
            return _error(500, f"the arena failed handling this delivery ({type(exc).__name__})")
        return _json(answer, status)


def _offered(effects: Sequence[str], game: str | None) -> list[str]:
    """The gift effects the control page offers: those the featured table's game takes
    (its :attr:`~arena.games.base.Game.gift_effects`), every one before a table plays."""
    if game is None:
        return list(effects)
    try:
        offered = get_game(game).gift_effects
    except ConfigError:
        return list(effects)
    return [effect for effect in effects if effect in offered]


def _ok(said: str, state: Mapping[str, Any]) -> JSONResponse:
    return _json({"ok": True, "said": said, "state": dict(state)})


async def _body(request: Request) -> bytes | None:
    """The request's body, or None once it is longer than :data:`_MAX_BODY`."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > _MAX_BODY:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


async def _json_body(request: Request) -> dict[str, Any] | Response:
    """A control request's JSON object (an empty body is ``{}``), or why not."""
    body = await _body(request)
    if body is None:
        return _error(413, "request too large")
    if not body.strip():
        return {}
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return _error(400, "the body is not JSON")
    if not isinstance(data, dict):
        return _error(400, "the body must be a JSON object")
    return data


async def _send_all(websocket: WebSocket, next_text: Callable[[], Awaitable[str]]) -> None:
    """Send the page its messages as they come, until it goes away."""
    while True:
        await websocket.send_text(await next_text())
