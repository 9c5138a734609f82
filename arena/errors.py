"""Errors raised on purpose by the arena.

ArenaError
 ├─ IllegalActionError     (also ValueError): the rules forbid this action now
 │   └─ CardResolutionError  a card token names no card of the player's hand
 ├─ AgentError             an agent failed to give a usable reply
 │   ├─ AgentReplyError    the reply was empty, unparsable or truncated (``category``)
 │   └─ AgentTimeoutError  (also TimeoutError)
 └─ ConfigError            (also ValueError): names the file and the key
"""

from __future__ import annotations

from typing import Literal

__all__ = [
    "AgentError",
    "AgentReplyError",
    "AgentTimeoutError",
    "ArenaError",
    "CardResolutionError",
    "ConfigError",
    "IllegalActionError",
    "ReplyFault",
]


ReplyFault = Literal["empty", "unparsable", "truncated"]
"""How an unusable reply is counted (the rest of REJECT_REASON comes from the table)."""


class ArenaError(Exception):
    """Base class for every error this project raises on purpose."""


class IllegalActionError(ArenaError, ValueError):
    """The rules do not allow this action in the current state; nothing was changed."""


class CardResolutionError(IllegalActionError):
    """A card token in a reply matches nothing in the player's hand."""

    def __init__(self, token: object, reason: str) -> None:
        super().__init__(f"card {token!r}: {reason}")
        self.token = token


class AgentError(ArenaError):
    """An agent failed to give a usable reply."""


class AgentReplyError(AgentError):
    """A reply the table cannot use; ``category`` is how the fault is counted."""

    def __init__(self, category: ReplyFault, detail: str) -> None:
        if category not in ("empty", "unparsable", "truncated"):
            raise ValueError(f"unknown reply fault category {category!r}")
        super().__init__(f"{category} reply: {detail}")
        self.category: ReplyFault = category
        self.detail = detail


class AgentTimeoutError(AgentError, TimeoutError):
    """An agent did not answer before its deadline."""


class ConfigError(ArenaError, ValueError):
    """A configuration file or value is invalid; the message names the file and the key."""
