"""Agents: the one interface, the human seat, the transports and the registry.

A game's scripted players are its own (Dou Dizhu's: :mod:`arena.games.ddz.agents`);
the registry finds them by the names the game gives them.
"""

from arena.agents.base import Agent, BaseAgent
from arena.agents.human import HumanAgent, parse_human_move
from arena.agents.registry import BUILTIN_AGENTS, ENTRY_POINT_GROUP, agent_class, create_agent

__all__ = [
    "BUILTIN_AGENTS",
    "ENTRY_POINT_GROUP",
    "Agent",
    "BaseAgent",
    "HumanAgent",
    "agent_class",
    "create_agent",
    "parse_human_move",
]
