"""Turning requests into engine values and engine values into replies, for agents in Python.

Scripted agents think in engine terms (cards, combos, legal moves); these helpers are the
small bridge from and to the wire messages they receive and send.
"""

from __future__ import annotations

from arena.engine import DEFAULT_RULES, Card, Combo, ComboType, Rules, card, legal_moves, readings
from protocol import Emotion, HandType, LastPlay, PlayRequest, PlayResponse

__all__ = ["hand_of", "legal_for", "pass_reply", "play_reply", "trick_of"]


def hand_of(request: PlayRequest) -> tuple[Card, ...]:
    """The requesting player's cards."""
    return tuple(card(text) for text in request.hand)


def trick_of(request: PlayRequest, rules: Rules = DEFAULT_RULES) -> Combo | None:
    """The combination to beat, or None when the player leads."""
    last: LastPlay | None = request.last_play
    if request.is_free_play or last is None:
        return None
    wanted = ComboType(last.type.value)
    for option in readings(last.cards, rules):
        if option.type is wanted and option.main_rank == last.main_rank:
            return option
    for option in readings(last.cards, rules):
        if option.type is wanted:
            return option
    raise ValueError(f"last_play {last.cards} is not a {last.type.value}")


def legal_for(request: PlayRequest, rules: Rules = DEFAULT_RULES) -> list[Combo]:
    """Every non-pass move the requesting player may make."""
    return legal_moves(hand_of(request), trick_of(request, rules), rules)


def play_reply(
    request: PlayRequest,
    combo: Combo,
    *,
    comment: str | None = None,
    emotion: Emotion | None = None,
) -> PlayResponse:
    """A PLAY_RESPONSE for a combo (or a pass, when ``combo`` is PASS)."""
    if combo.type is ComboType.PASS:
        return pass_reply(request, comment=comment, emotion=emotion)
    return PlayResponse(
        player_id=request.player_id,
        action="PLAY",
        cards=[c.text for c in combo.cards],
        hand_type=HandType(combo.type.value),
        comment=comment,
        emotion=emotion,
        request_id=request.request_id,
    )


def pass_reply(
    request: PlayRequest, *, comment: str | None = None, emotion: Emotion | None = None
) -> PlayResponse:
    """A PLAY_RESPONSE that passes."""
    return PlayResponse(
        player_id=request.player_id,
        action="PASS",
        comment=comment,
        emotion=emotion,
        request_id=request.request_id,
    )
