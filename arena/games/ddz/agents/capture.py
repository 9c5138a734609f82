"""An agent that plays as another does and keeps every request it is asked.

Real requests from real rounds are what prompt sizes and the model-seat benchmark are
measured on; wrapping a scripted bot gives them with any seat names.
"""

from __future__ import annotations

from arena.games.ddz.agents.base import DdzAgent
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)
from protocol import Message

__all__ = ["AskRequest", "RequestCapture"]

AskRequest = BidRequest | DoubleRequest | PlayRequest


class RequestCapture:
    """Answers as ``inner`` does; appends each BID, DOUBLE and PLAY request to ``requests``
    (a list that several agents may share)."""

    def __init__(self, inner: DdzAgent, requests: list[AskRequest]) -> None:
        self.inner = inner
        self.name = inner.name
        self.requests = requests

    async def notify(self, message: Message) -> None:
        await self.inner.notify(message)

    async def bid(self, request: BidRequest) -> BidResponse:
        self.requests.append(request)
        return await self.inner.bid(request)

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        self.requests.append(request)
        return await self.inner.double(request)

    async def play(self, request: PlayRequest) -> PlayResponse:
        self.requests.append(request)
        return await self.inner.play(request)

    async def close(self) -> None:
        await self.inner.close()
