"""Finding an agent class by name: built-ins, entry points, or a dotted path.

Config names an agent by a type name (``heuristic``), by a name a third-party package
registered under the ``ddz_arena.agents`` entry-point group, or by ``module:Class``.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import entry_points
from types import ModuleType
from typing import Any, Final

from arena.agents.base import Agent
from arena.agents.human import HumanAgent
from arena.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.engine import DEFAULT_RULES, Rules
from arena.errors import ConfigError
from arena.logs import get_logger

__all__ = ["BUILTIN_AGENTS", "ENTRY_POINT_GROUP", "agent_class", "create_agent"]

ENTRY_POINT_GROUP: Final = "ddz_arena.agents"

log = get_logger(__name__)

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
            try:
                loaded: type[Any] = entry.load()
            except Exception as exc:
                log.debug("agent_import_failed", agent_type=type_name, exc_info=exc)
                raise ConfigError(
                    f"agent type {type_name!r}: loading entry point {entry.value!r} raised "
                    f"{type(exc).__name__}: {exc} (its traceback is logged at debug level)"
                ) from exc
            return loaded
    if ":" in type_name:
        module_name, _, attribute = type_name.partition(":")
        try:
            module = _import_module(module_name)
        except ModuleNotFoundError as exc:
            log.debug("agent_import_failed", agent_type=type_name, exc_info=exc)
            where = (
                " (looked in the current folder and the installed packages)"
                if exc.name == module_name.partition(".")[0]
                else ""
            )
            raise ConfigError(
                f"agent type {type_name!r}: cannot import {module_name!r}: {exc}{where}"
            ) from exc
        except Exception as exc:
            log.debug("agent_import_failed", agent_type=type_name, exc_info=exc)
            raise ConfigError(
                f"agent type {type_name!r}: importing {module_name!r} raised "
                f"{type(exc).__name__}: {exc} (its traceback is logged at debug level)"
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


def _import_module(module_name: str) -> ModuleType:
    """Import a ``module:Class`` module, also from the current folder.

    People expect ``mybots.agents:LowestFirst`` to find ``./mybots`` as ``python -m``
    would; but the installed ``arena`` script runs with its own folder, not the current
    one, as ``sys.path[0]``. So when the module's top-level package is found nowhere
    else, the current folder is added to the end of ``sys.path`` (the end: it never
    shadows an installed package) and the import tried again.
    """
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.partition(".")[0]
        cwd = os.getcwd()
        if exc.name != top or cwd in sys.path:
            raise  # a module missing inside the user's package, or nothing more to try
        sys.path.append(cwd)
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


def create_agent(
    type_name: str,
    name: str,
    *,
    seed: int | None = None,
    rules: Rules = DEFAULT_RULES,
    options: dict[str, Any] | None = None,
) -> Agent:
    """Build an agent as ``cls(name=..., seed=..., rules=..., **options)``.

    Whatever the constructor raises becomes a ConfigError naming the agent and the
    exception (one line for the user); its traceback is logged at debug for the author.
    """
    cls = agent_class(type_name)
    try:
        agent = cls(name=name, seed=seed, rules=rules, **(options or {}))
    except Exception as exc:
        log.debug("agent_construction_failed", agent=name, agent_type=type_name, exc_info=exc)
        raise ConfigError(
            f"agent {name!r} ({type_name}) could not be created: "
            f"{type(exc).__name__}: {exc} (its traceback is logged at debug level)"
        ) from exc
    if not isinstance(agent, Agent):
        raise ConfigError(
            f"agent {name!r}: {cls.__name__} lacks the Agent interface "
            "(name, notify, bid, double, play, close)"
        )
    return agent
