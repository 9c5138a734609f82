"""The arena server: the stream overlay, its live feeds, the streamer's controls and the
gift webhook, served with Starlette and uvicorn (docs/overlay.md).

Light to import (the command line reads its flags from here): the app
(:mod:`arena.server.app`), uvicorn (:mod:`arena.server.serving`) and a run's server
(:mod:`arena.server.wiring`) are imported from their modules when serving.
"""

from arena.server.control import MatchControl
from arena.server.flags import TOKEN_ENV, add_server_flags, say_server
from arena.server.hub import OverlayHub, Subscription

__all__ = [
    "TOKEN_ENV",
    "MatchControl",
    "OverlayHub",
    "Subscription",
    "add_server_flags",
    "say_server",
]
