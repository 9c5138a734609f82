"""Agents: the one interface, the human seat, the transports and the registry.

A game's own players are its own (its package's ``agents``: the scripted players, its
human seat, the base agent its Python bots subclass); the registry finds them by the
names the game gives them. ``BaseAgent`` and ``HumanAgent`` are still found here for the
default game, as bots imported them before the game seam.
"""

from typing import Any

from arena.agents.base import Agent, default_game_export
from arena.agents.registry import BUILTIN_AGENTS, ENTRY_POINT_GROUP, agent_class, create_agent

__all__ = [
    "BUILTIN_AGENTS",
    "ENTRY_POINT_GROUP",
    "Agent",
    "agent_class",
    "create_agent",
]


def __getattr__(name: str) -> Any:
    """The default game's agents where its bots found them (``BaseAgent``, ...)."""
    return default_game_export(__name__, name)
