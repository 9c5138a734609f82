"""斗地主 as the arena sees it: three seats, its rules model, its requests, its gifts."""

from __future__ import annotations

from typing import Final

from arena.games.base import Game
from arena.games.ddz.engine.rules import Rules

__all__ = ["GAME", "REQUEST_METHODS"]

REQUEST_METHODS: Final = {"BID_REQUEST": "bid", "DOUBLE_REQUEST": "double", "PLAY_REQUEST": "play"}
"""Each request an agent answers and the in-process agent's method that answers it."""

GAME: Final = Game(
    name="ddz",
    title="斗地主 (Dou Dizhu)",
    rules=Rules,
    seats=lambda rules: 3,
    default_seats=(("Alpha", "heuristic"), ("Beta", "greedy"), ("Gamma", "heuristic")),
    requests=REQUEST_METHODS,
    gift_effects=frozenset(
        {"CHEER", "EMOTE", "PEEK", "SWAP", "ADD", "DOUBLE", "EFFECT", "ROLE_SWAP", "RESHUFFLE"}
    ),
    agent_methods=("bid", "double", "play"),
)
