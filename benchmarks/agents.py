"""Agents for load tests: a random player that takes a fixed time to answer.

``bench_table``'s concurrent run seats it, and so can ``arena play`` from a checkout
(the seat type ``benchmarks.agents:SlowAgent``; see ``benchmarks/slow-agents.toml``):
thousands of tables whose agents await, as remote models or programs do.
"""

from __future__ import annotations

import asyncio
from typing import Any

from arena.games.ddz.agents.scripted import RandomAgent
from arena.games.ddz.messages import BidRequest, BidResponse, PlayRequest, PlayResponse

__all__ = ["SlowAgent"]


class SlowAgent(RandomAgent):
    """A random agent that awaits ``delay_s`` before each bid and play, like a remote
    model; ``decisions`` counts its answers."""

    def __init__(
        self, name: str, *, seed: int | None = None, delay_s: float = 0.1, **options: Any
    ) -> None:
        super().__init__(name, seed=seed, **options)
        if not delay_s >= 0:
            raise ValueError(f"delay_s must be 0 or more, got {delay_s!r}")
        self.delay_s = float(delay_s)
        self.decisions = 0

    async def bid(self, request: BidRequest) -> BidResponse:
        """A random bid, after the delay."""
        await asyncio.sleep(self.delay_s)
        self.decisions += 1
        return await super().bid(request)

    async def play(self, request: PlayRequest) -> PlayResponse:
        """A random legal move, after the delay."""
        await asyncio.sleep(self.delay_s)
        self.decisions += 1
        return await super().play(request)
