"""Finding an agent class by name: built-ins, entry points, or a dotted path.

Config names an agent by a type name (``heuristic``), by a name a third-party package
registered under the ``ddz_arena.agents`` entry-point group, or by ``module:Class``.
"""

from __future__ import annotations

import importlib
from importlib.metadata import entry_points
from typing import Any, Final

from arena.agents.base import Agent
from arena.agents.human import HumanAgent
from arena.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.engine import DEFAULT_RULES, Rules
from arena.errors import ConfigError

__all__ = ["BUILTIN_AGENTS", "ENTRY_POINT_GROUP", "agent_class", "create_agent"]

ENTRY_POINT_GROUP: Final = "ddz_arena.agents"

BUILTIN_AGENTS: Final[dict[str, type[Any]]] = {
    "random": RandomAgent,
    "greedy": GreedyAgent,
    "heuristic": HeuristicAgent,
    "human": HumanAgent,
}


def agent_class(type_name: str) -> type[Any]:
    """The class behind a configured agent type; ConfigError says what was tried."""
    if type_name in BUILTIN_AGENTS:
        return BUILTIN_AGENTS[type_name]
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name == type_name:
            loaded: type[Any] = entry.load()
            return loaded
    if ":" in type_name:
        module_name, _, attribute = type_name.partition(":")
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(
                f"agent type {type_name!r}: cannot import {module_name!r}: {exc}"
            ) from exc
        try:
            found: type[Any] = getattr(module, attribute)
        except AttributeError:
            raise ConfigError(
                f"agent type {type_name!r}: {module_name} has no {attribute!r}"
            ) from None
        return found
    known = ", ".join([*BUILTIN_AGENTS, *(e.name for e in entry_points(group=ENTRY_POINT_GROUP))])
    raise ConfigError(
        f"unknown agent type {type_name!r}; known: {known}; or give a 'module:Class' path"
    )


def create_agent(
    type_name: str,
    name: str,
    *,
    seed: int | None = None,
    rules: Rules = DEFAULT_RULES,
    options: dict[str, Any] | None = None,
) -> Agent:
    """Build an agent as ``cls(name=..., seed=..., rules=..., **options)``."""
    cls = agent_class(type_name)
    try:
        agent = cls(name=name, seed=seed, rules=rules, **(options or {}))
    except TypeError as exc:
        raise ConfigError(f"agent {name!r} ({type_name}): {exc}") from exc
    if not isinstance(agent, Agent):
        raise ConfigError(
            f"agent {name!r}: {cls.__name__} lacks the Agent interface "
            "(name, notify, bid, double, play, close)"
        )
    return agent
