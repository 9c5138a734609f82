"""A game's part of the overlay: its renderer's files, and what a page is told of them.

The overlay's page (``static/overlay.js``) is every game's shell: seats, names, turns,
comments, gifts. What a table of one game shows beyond that (Dou Dizhu: the landlord,
the bottom cards, the call, the multiplier, bids and plays) is drawn by the game's
renderer, files in the game's package (:attr:`arena.games.base.Game.overlay_assets`)
served at ``/static/games/<name>/``. Each ``snapshot`` message names the table's game
and its renderer's URLs (:func:`game_overlay`); a game without one is shown by the
shell alone. Games are found through the registry only, when a table of theirs is seen.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from arena.errors import ConfigError
from arena.games.registry import get_game, known_games

__all__ = ["GAMES_URL", "RENDERER_SCRIPT", "RENDERER_STYLE", "asset_file", "game_overlay"]

GAMES_URL: Final = "/static/games"
RENDERER_SCRIPT: Final = "overlay.js"
"""The renderer itself, in a game's ``overlay_assets``: it registers with the shell."""
RENDERER_STYLE: Final = "overlay.css"
"""The renderer's styles, if the game has any."""


def _assets(game: str) -> Path | None:
    """The game's overlay folder, or None (no such game, or one without a renderer)."""
    if game not in known_games():
        return None
    try:
        folder = get_game(game).overlay_assets
    except ConfigError:  # a plugin that does not load: its tables show the shell alone
        return None
    return folder if folder is not None and folder.is_dir() else None


def game_overlay(game: str) -> dict[str, Any]:
    """The ``game`` of a ``snapshot`` message: the game's ``name``, and the URLs of its
    renderer's ``script`` and ``style`` (each None when the game has none)."""
    folder = _assets(game)
    script = folder is not None and (folder / RENDERER_SCRIPT).is_file()
    style = folder is not None and (folder / RENDERER_STYLE).is_file()
    return {
        "name": game,
        "script": f"{GAMES_URL}/{game}/{RENDERER_SCRIPT}" if script else None,
        "style": f"{GAMES_URL}/{game}/{RENDERER_STYLE}" if style else None,
    }


def asset_file(game: str, name: str) -> Path | None:
    """The file ``name`` of the game's overlay folder; None for anything else (another
    game's, a path that leaves the folder, a folder, a file that is not there)."""
    folder = _assets(game)
    if folder is None:
        return None
    root = folder.resolve()
    path = (root / name).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path
