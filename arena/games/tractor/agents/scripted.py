"""Scripted Tractor agents: ``random`` (any legal play) and ``heuristic``.

They never time out and never reply illegally, so they also stand in for a failing seat
and are the fast opponents of benchmarks and tests. Each draws its randomness from its
own generator, seeded by the seat's seed and each DEAL, so a match replays identically.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from arena.games.tractor.agents.base import (
    TractorAgent,
    declare_reply,
    pass_reply,
    play_reply,
    read_play,
)
from arena.games.tractor.engine import fill_follow, random_lead
from arena.games.tractor.messages import (
    Deal,
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
)
from protocol import Message

__all__ = ["RandomAgent"]


class SeededAgent(TractorAgent):
    """A scripted agent's generator, seeded afresh at each DEAL from its seed, the
    match and the round: a round played again is played the same."""

    def __init__(self, name: str, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(name, seed=seed, **options)
        self._rng = random.Random(seed)

    async def notify(self, message: Message) -> None:
        """A DEAL seeds the round's choices."""
        if type(message) is Deal:
            match = zlib.crc32((message.match_id or "").encode())
            mine = message.seed if message.seed is not None else 0
            self._rng.seed(
                ((self.seed or 0) << 64) ^ (match << 32) ^ mine ^ (message.round_no or 0)
            )


class RandomAgent(SeededAgent):
    """Declares now and then, buries the cheapest cards, leads a random single, pair or
    tractor and follows with random legal cards."""

    declare_chance = 0.3

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        """One of the options, now and then."""
        if request.options and self._rng.random() < self.declare_chance:
            return declare_reply(request, self._rng.choice(request.options).cards)
        return pass_reply(request)

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Any legal play."""
        seen = read_play(request)
        if seen.lead is None:
            cards = random_lead(seen.hand, seen.trump, self._rng)
        else:
            cards = fill_follow(seen.hand, seen.lead, seen.trump, self._rng)
        return play_reply(request, cards)
