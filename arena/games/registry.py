"""Finding a game by name: ``game = "ddz"`` in a config, ``game`` in a replay's header.

A game's package is imported only when its name is asked for, so a table of one game
never loads another. Games outside this repository register under the
``ddz_arena.games`` entry point group (``name = "package.module:GAME"``).
"""

from __future__ import annotations

import difflib
import importlib
from functools import cache
from importlib.metadata import entry_points
from typing import Final

from arena.errors import ConfigError
from arena.games.base import Game

__all__ = ["DEFAULT_GAME", "GAME_NAMES", "game_of_rules", "get_game", "known_games"]

DEFAULT_GAME: Final = "ddz"
"""The game of a config, a replay or a tournament that names none (all of them, before
the arena played a second game)."""

GAME_NAMES: Final[tuple[str, ...]] = ("ddz", "tractor")
"""The games this repository ships, each a package ``arena/games/<name>/``."""

ENTRY_POINT_GROUP: Final = "ddz_arena.games"


@cache
def _plugins() -> dict[str, str]:
    """Games other packages register (read once: entry points are slow to list)."""
    return {point.name: point.value for point in entry_points(group=ENTRY_POINT_GROUP)}


def known_games() -> tuple[str, ...]:
    """Every game name a config may give, shipped ones first."""
    return (*GAME_NAMES, *sorted(set(_plugins()) - set(GAME_NAMES)))


@cache
def get_game(name: str) -> Game:
    """The game called ``name``; a :class:`ConfigError` lists the known ones."""
    if name in GAME_NAMES:
        module = importlib.import_module(f"arena.games.{name}.game")
        game = getattr(module, "GAME", None)
    elif name in _plugins():
        module_name, _, attribute = _plugins()[name].partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(f"game {name!r}: cannot import {module_name}: {exc}") from exc
        game = getattr(module, attribute or "GAME", None)
    else:
        known = ", ".join(repr(g) for g in known_games())
        close = difflib.get_close_matches(name.strip().lower(), known_games(), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ConfigError(f"no game called {name!r}{hint}: the arena plays {known}")
    if not isinstance(game, Game) or game.name != name:
        raise ConfigError(f"game {name!r}: its module does not define a Game named {name!r}")
    return game


def game_of_rules(rules: object) -> Game:
    """The game whose rules these are (an agent is given the rules of the game it plays,
    and nothing else of it); Dou Dizhu for anything else."""
    for name in known_games():
        try:
            game = get_game(name)
        except ConfigError:
            continue  # a plugin that does not load is reported where it is named
        if type(rules) is game.rules:
            return game
    return get_game(DEFAULT_GAME)
