"""Wire messages that also carry the engine values behind them, for agents in this process.

A table lists the legal moves of the seat to act anyway (for the forced-pass rule), and a
Python agent would list them again from the request's card strings. So a request handed
to an agent in the same process carries the table's list, and a reply built from one of
those moves carries the move, which the table can then check by membership instead of
re-reading the cards. On the wire, in replays and to every validator they are the plain
messages: the extra values sit in slots outside the pydantic fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.games.ddz.messages import PlayRequest, PlayResponse

if TYPE_CHECKING:
    from arena.games.ddz.engine import Combo

__all__ = [
    "ListedPlayRequest",
    "MoveReply",
    "attach_move",
    "attach_moves",
    "listed_moves",
    "move_of",
]


class ListedPlayRequest(PlayRequest):
    """A PLAY_REQUEST with the seat's legal non-pass moves, as the table listed them."""

    __slots__ = ("_moves",)

    def __eq__(self, other: object) -> bool:
        # Equal to the plain message with the same fields: the moves are not part of it.
        return isinstance(other, PlayRequest) and self.__dict__ == other.__dict__

    __hash__ = PlayRequest.__hash__


class MoveReply(PlayResponse):
    """A PLAY_RESPONSE made from one engine move (its cards and hand type)."""

    __slots__ = ("_move",)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PlayResponse) and self.__dict__ == other.__dict__

    __hash__ = PlayResponse.__hash__


def attach_moves(request: PlayRequest, moves: tuple[Combo, ...]) -> None:
    """Give a :class:`ListedPlayRequest` its moves (once, as it is built)."""
    object.__setattr__(request, "_moves", moves)


def attach_move(reply: PlayResponse, move: Combo) -> None:
    """Give a :class:`MoveReply` its move (once, as it is built)."""
    object.__setattr__(reply, "_move", move)


def listed_moves(request: PlayRequest) -> tuple[Combo, ...] | None:
    """The table's legal moves for this request, or None when it came without them."""
    if type(request) is ListedPlayRequest:
        try:
            moves: tuple[Combo, ...] = request._moves  # type: ignore[attr-defined]
        except AttributeError:  # a copy (model_copy) leaves the slot empty
            return None
        return moves
    return None


def move_of(reply: PlayResponse) -> Combo | None:
    """The engine move a reply was made from, if its cards are still that move's cards."""
    if type(reply) is MoveReply:
        try:
            move: Combo = reply._move  # type: ignore[attr-defined]
        except AttributeError:  # a copy (model_copy) leaves the slot empty
            return None
        if reply.cards == [c.text for c in move.cards]:
            return move
    return None
