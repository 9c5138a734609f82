"""Turning requests into engine values and engine values into replies, for agents in Python.

Scripted agents think in engine terms (cards, combos, legal moves); these helpers are the
small bridge from and to the wire messages they receive and send.
"""

from __future__ import annotations

from arena.games.ddz.agents.inprocess import MoveReply, attach_move, listed_moves
from arena.games.ddz.engine import (
    CARDS_BY_TEXT,
    DEFAULT_RULES,
    Card,
    Combo,
    ComboType,
    HandIndex,
    Rules,
    card,
    chain_length,
    legal_moves,
)
from arena.games.ddz.messages import LastPlay, PlayRequest, PlayResponse
from protocol import Emotion
from protocol._trusted import trusted

__all__ = ["HandMemo", "hand_of", "legal_for", "pass_reply", "play_reply", "trick_of"]

_PASS_TYPE = ComboType.PASS  # a global: on Python 3.11 ``ComboType.X`` is a slow lookup

_CARDS = dict(CARDS_BY_TEXT)


def hand_of(request: PlayRequest) -> tuple[Card, ...]:
    """The requesting player's cards (canonical strings, as the table sends them)."""
    try:
        return tuple(map(_CARDS.__getitem__, request.hand))
    except KeyError:
        return tuple(map(card, request.hand))  # names the bad card


def trick_of(request: PlayRequest) -> Combo | None:
    """The combination to beat, or None when the player leads.

    The request names the trick's type and main rank; its length follows from the card
    count, so no re-classification (and so no rule variant) is needed.
    """
    last: LastPlay | None = request.last_play
    if request.is_free_play or last is None:
        return None
    kind = last.type
    cards = tuple(map(card, last.cards))  # a few cards: the checked path is cheap enough
    return Combo(kind, last.main_rank, chain_length(kind, len(cards)), cards)


class HandMemo:
    """Remembers the last hand an agent was asked about, indexed for move generation.

    A player is asked several times between two of its own plays with the same hand;
    re-reading and re-indexing it each time would be wasted work.
    """

    __slots__ = ("_index", "_texts")

    def __init__(self) -> None:
        self._texts: list[str] | None = None
        self._index: HandIndex | None = None

    def index(self, request: PlayRequest) -> HandIndex:
        """The request's hand, indexed (rebuilt only when the hand changed)."""
        if self._index is None or self._texts != request.hand:
            self._texts = list(request.hand)
            self._index = HandIndex(hand_of(request))
        return self._index


def legal_for(
    request: PlayRequest, rules: Rules = DEFAULT_RULES, memo: HandMemo | None = None
) -> list[Combo]:
    """Every non-pass move the requesting player may make.

    A request from a table in this process already lists them (under the table's rules);
    otherwise they are worked out from the request's cards.
    """
    listed = listed_moves(request)
    if listed is not None:
        return list(listed)
    hand = memo.index(request) if memo is not None else hand_of(request)
    return legal_moves(hand, trick_of(request), rules)


def play_reply(
    request: PlayRequest,
    combo: Combo,
    *,
    comment: str | None = None,
    emotion: Emotion | None = None,
) -> PlayResponse:
    """A PLAY_RESPONSE for a combo (or a pass, when ``combo`` is PASS)."""
    if combo.type is _PASS_TYPE:
        return pass_reply(request, comment=comment, emotion=emotion)
    # Built from the engine's own legal move: valid by construction, so not re-validated.
    # It keeps the move, so a table in this process checks it without re-reading the cards.
    asked = request.__dict__  # a pydantic model's attribute read is slow: one, not two
    reply = trusted(
        MoveReply,
        player_id=asked["player_id"],
        action="PLAY",
        cards=[c.text for c in combo.cards],
        hand_type=combo.type,
        comment=comment,
        emotion=emotion,
        request_id=asked["request_id"],
    )
    attach_move(reply, combo)
    return reply


def pass_reply(
    request: PlayRequest, *, comment: str | None = None, emotion: Emotion | None = None
) -> PlayResponse:
    """A PLAY_RESPONSE that passes."""
    asked = request.__dict__  # as in play_reply
    return trusted(
        PlayResponse,
        player_id=asked["player_id"],
        action="PASS",
        comment=comment,
        emotion=emotion,
        request_id=asked["request_id"],
    )
