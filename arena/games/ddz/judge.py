"""Judging one reply to a Dou Dizhu request, as the table would, from the request's own
state: ``arena agent check``'s judge (:data:`arena.games.ddz.positions.CHECK`).

Pure and synchronous: the reply is read with the table's own :func:`as_reply` and
:func:`check_addressed` (so a malformed reply gets the table's words), and a play is
checked with the engine: its card tokens resolved against the hand, read as a
combination, compared with the trick to beat. No :class:`~arena.games.ddz.engine.Round` is
needed, since every request carries the state that decides its legality.
"""

from __future__ import annotations

from arena.errors import AgentReplyError, IllegalActionError
from arena.games.ddz.agents.reading import hand_of, trick_of
from arena.games.ddz.engine import DEFAULT_RULES, Rules, playable_reading, resolve_cards
from arena.games.ddz.messages import (
    AnyRequest,
    AnyResponse,
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)
from arena.table.calls import as_reply, check_addressed
from arena.testing.base import Judgement

__all__ = ["judge_reply"]


def judge_reply(request: AnyRequest, reply: object, rules: Rules = DEFAULT_RULES) -> Judgement:
    """Whether ``reply`` (what the agent's method returned: a message, JSON text, a dict,
    anything) is a well-formed, legal answer to ``request``."""
    response: AnyResponse
    try:
        if isinstance(request, BidRequest):
            response = as_reply(reply, BidResponse)
        elif isinstance(request, DoubleRequest):
            response = as_reply(reply, DoubleResponse)
        else:
            response = as_reply(reply, PlayResponse)
        check_addressed(response, request)
    except AgentReplyError as exc:
        return Judgement("malformed", f"{exc.category}: {exc.detail}")
    if isinstance(response, BidResponse):
        assert isinstance(request, BidRequest)
        return _judge_bid(request, response)
    if isinstance(response, DoubleResponse):
        return Judgement("legal", "double" if response.double else "no double")
    assert isinstance(request, PlayRequest)
    assert isinstance(response, PlayResponse)
    return _judge_play(request, response, rules)


def _judge_bid(request: BidRequest, response: BidResponse) -> Judgement:
    offered = request.available_bids
    if response.bid not in offered:
        return Judgement("illegal", f"bid {response.bid} is not offered; available_bids: {offered}")
    return Judgement("legal", f"bid {response.bid}")


def _judge_play(request: PlayRequest, response: PlayResponse, rules: Rules) -> Judgement:
    if response.action == "PASS":
        if request.is_free_play:
            return Judgement("illegal", "PASS: cannot pass when leading a new trick")
        return Judgement("legal", "PASS")
    try:
        cards = resolve_cards(response.cards, hand_of(request))
        combo = playable_reading(
            tuple(sorted(cards, key=lambda c: c.id)), trick_of(request), rules, response.hand_type
        )
    except IllegalActionError as exc:
        return Judgement("illegal", str(exc))
    return Judgement("legal", str(combo))
