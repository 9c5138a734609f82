"""A program in any language as an agent: JSON lines on its stdin and stdout.

(Being written for issue 8: see the helper's notes.)
"""

from __future__ import annotations

from typing import Any

from arena.agents.remote import RemoteAgent

__all__ = ["SubprocessAgent"]


class SubprocessAgent(RemoteAgent):
    """One program per seat per match, one JSON message a line each way."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(name, **options)

    async def deliver(self, line: bytes) -> None:
        raise NotImplementedError

    async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        raise NotImplementedError
