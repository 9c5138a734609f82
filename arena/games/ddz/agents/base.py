"""What a Dou Dizhu bot in Python subclasses: :class:`BaseAgent`, and the protocol of a
Dou Dizhu player, :class:`DdzAgent`.

Bots written before the game seam import them from ``arena.agents.base`` (and
``arena.agents``), which still give them (the default game's ``agent_exports``); new
code imports them from here.
"""

from __future__ import annotations

from typing import Any, ClassVar, Protocol, runtime_checkable

from arena.agents.base import Agent, AgentBase
from arena.games.ddz.engine import DEFAULT_RULES, Rules
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)

__all__ = ["BaseAgent", "DdzAgent"]


@runtime_checkable
class DdzAgent(Agent, Protocol):
    """A Dou Dizhu player: the methods answering its three requests (:class:`BaseAgent`
    has them)."""

    async def bid(self, request: BidRequest) -> BidResponse:
        """Answer a BID_REQUEST with one of ``request.available_bids``."""
        ...

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Answer a DOUBLE_REQUEST: double (or redouble) or not."""
        ...

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Answer a PLAY_REQUEST with a play or a pass."""
        ...


class BaseAgent(AgentBase):
    """A Dou Dizhu agent with defaults for everything but :meth:`play`: pass when
    bidding, never double, ignore notifications, nothing to close. Subclass it, as every
    Dou Dizhu bot before the game seam did."""

    games: ClassVar[tuple[str, ...] | None] = ("ddz",)
    rules: Rules

    def __init__(
        self, name: str, *, seed: int | None = None, rules: Rules = DEFAULT_RULES, **options: Any
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)

    async def bid(self, request: BidRequest) -> BidResponse:
        """Pass by default; where passing is not offered (a fixed landlord names its call
        score), the lowest bid offered."""
        offered = request.available_bids
        bid = 0 if 0 in offered or not offered else min(offered)
        return BidResponse(player_id=request.player_id, bid=bid, request_id=request.request_id)

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Never double by default."""
        return DoubleResponse(
            player_id=request.player_id, double=False, request_id=request.request_id
        )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Subclasses decide how to play."""
        raise NotImplementedError(f"{type(self).__name__} does not implement play()")
