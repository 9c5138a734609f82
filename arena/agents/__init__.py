"""Agents: the one interface, the scripted players, the human seat and the registry."""

from arena.agents.base import Agent, BaseAgent
from arena.agents.human import HumanAgent, parse_human_move
from arena.agents.registry import BUILTIN_AGENTS, ENTRY_POINT_GROUP, agent_class, create_agent
from arena.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent

__all__ = [
    "BUILTIN_AGENTS",
    "ENTRY_POINT_GROUP",
    "Agent",
    "BaseAgent",
    "GreedyAgent",
    "HeuristicAgent",
    "HumanAgent",
    "RandomAgent",
    "agent_class",
    "create_agent",
    "parse_human_move",
]
