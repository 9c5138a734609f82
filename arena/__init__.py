"""Dou Dizhu Arena: the engine, the agents, the table that runs matches, and the CLI.

Subpackages: ``arena.games.ddz.engine`` (rules, pure), ``arena.agents`` (the Agent interface and
scripted players), ``arena.table`` (the async orchestrator), ``arena.sinks`` (event
outputs). Errors raised on purpose derive from :class:`ArenaError`.
"""

from arena.errors import (
    AgentError,
    AgentReplyError,
    AgentTimeoutError,
    ArenaError,
    CardResolutionError,
    ConfigError,
    IllegalActionError,
    InvalidCardError,
    SetupError,
)

__all__ = [
    "AgentError",
    "AgentReplyError",
    "AgentTimeoutError",
    "ArenaError",
    "CardResolutionError",
    "ConfigError",
    "IllegalActionError",
    "InvalidCardError",
    "SetupError",
]
