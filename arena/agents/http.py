"""A server as an agent: every message POSTed as JSON, a reply read from the body.

(Being written for issue 8: see the helper's notes.)
"""

from __future__ import annotations

from typing import Any

from arena.agents.remote import RemoteAgent

__all__ = ["HttpAgent"]


class HttpAgent(RemoteAgent):
    """One connection pool per agent; a request's reply is the response body."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(name, **options)

    async def deliver(self, line: bytes) -> None:
        raise NotImplementedError

    async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        raise NotImplementedError
