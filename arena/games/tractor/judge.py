"""Judging one reply to a Tractor request, as the table would, from the request's own
state: ``arena agent check``'s judge (:data:`arena.games.tractor.positions.CHECK`).

Pure and synchronous: the reply is read with the table's own :func:`as_reply` and
:func:`check_addressed` (so a malformed reply gets the table's words), its card tokens
resolved against the request's hand as the round resolves them, and the move judged by
the engine's rules: a declaration must be one the cards make and stronger than the
candidate, a burial exactly the kitty's count of the hand's cards, a lead of one suit
group (a throw that will be punished is still legal), a follow what
:func:`~arena.games.tractor.engine.check_follow` allows. Every request carries the state
that decides its legality, so no :class:`~arena.games.tractor.engine.Round` is needed.
"""

from __future__ import annotations

from arena.errors import AgentReplyError, IllegalActionError
from arena.games.tractor.agents.base import level_of, read_play, suit_of
from arena.games.tractor.engine import (
    Declaration,
    check_follow,
    classify,
    declaration_of,
    faces_text,
    points_of,
    resolve_cards,
    trump_context,
)
from arena.games.tractor.engine.cards import SUIT_SYMBOLS, card_ids
from arena.games.tractor.messages import (
    BuryRequest,
    BuryResponse,
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
)
from arena.games.tractor.views import STRENGTH_NAMES
from arena.table.calls import as_reply, check_addressed
from arena.testing.base import Judgement

__all__ = ["AnyRequest", "judge_reply", "reply_cards"]

AnyRequest = DeclareRequest | BuryRequest | PlayRequest


def judge_reply(request: AnyRequest, reply: object, rules: object = None) -> Judgement:
    """Whether ``reply`` (what the agent's method returned: a message, JSON text, a dict,
    anything) is a well-formed, legal answer to ``request``. ``rules`` are not needed:
    the request says everything that decides."""
    response: DeclareResponse | BuryResponse | PlayResponse
    try:
        if isinstance(request, DeclareRequest):
            response = as_reply(reply, DeclareResponse)
        elif isinstance(request, BuryRequest):
            response = as_reply(reply, BuryResponse)
        else:
            response = as_reply(reply, PlayResponse)
        check_addressed(response, request)
    except AgentReplyError as exc:
        return Judgement("malformed", f"{exc.category}: {exc.detail}")
    try:
        if isinstance(response, DeclareResponse):
            assert isinstance(request, DeclareRequest)
            return Judgement("legal", _declaration(request, response))
        if isinstance(response, BuryResponse):
            assert isinstance(request, BuryRequest)
            return Judgement("legal", _burial(request, response))
        assert isinstance(request, PlayRequest)
        return Judgement("legal", _play(request, response))
    except IllegalActionError as exc:
        return Judgement("illegal", str(exc))


def reply_cards(request: AnyRequest, tokens: list[str]) -> tuple[int, ...]:
    """The cards of the request's hand a reply's tokens name, as the round resolves them
    (ids, or faces for any copy held); CardResolutionError otherwise."""
    return resolve_cards(tokens, card_ids(request.hand))


def _declaration(request: DeclareRequest, response: DeclareResponse) -> str:
    if response.action == "PASS":
        return "pass"
    cards = reply_cards(request, list(response.cards))
    made = declaration_of(0, cards, level_of(request.level))
    if isinstance(made, str):
        raise IllegalActionError(made)
    best = request.candidate
    if best is not None:
        floor = next(s for s, name in STRENGTH_NAMES.items() if name == best.strength)
        if made.strength <= floor:
            raise IllegalActionError(
                f"only a stronger declaration than {faces_text(card_ids(best.cards))} counts "
                "now (pair of big jokers > pair of small jokers > big joker > small joker > "
                "pair of level cards > a level card)"
            )
    return f"declares {_declared(made)}"


def _declared(made: Declaration) -> str:
    """``♠2 ♠2 (level_pair: ♠ trump)``."""
    trump = "no trump" if made.suit is None else f"{SUIT_SYMBOLS[made.suit]} trump"
    return f"{faces_text(made.cards)} ({STRENGTH_NAMES[made.strength]}: {trump})"


def _burial(request: BuryRequest, response: BuryResponse) -> str:
    cards = reply_cards(request, list(response.cards))
    if len(cards) != request.count:
        raise IllegalActionError(f"bury exactly {request.count} different cards")
    points = points_of(cards)
    return f"buries {faces_text(cards)} ({points} points)"


def _play(request: PlayRequest, response: PlayResponse) -> str:
    seen = read_play(request)
    cards = reply_cards(request, list(response.cards))
    trump = trump_context(level_of(request.level), suit_of(request.trump_suit))
    if seen.lead is None:
        if len({trump.group[c] for c in cards}) != 1:
            raise IllegalActionError("a lead must be of one suit group (one suit, or all trumps)")
    else:
        reason = check_follow(seen.hand, cards, seen.lead, trump)
        if reason is not None:
            raise IllegalActionError(reason)
    return classify(cards, trump).describe()
