"""What one seat may know at a moment of a round, and nothing more.

Requests and prompts are built from a :class:`SeatView` only, so they cannot leak a
hidden card: the seat's own hand (while trump is declared under ``deal_steps``, the
part dealt so far), the kitty only for the banker once taken, the buried cards only for
the banker until the round ends (then for all), every seat's card count, the
declarations made, and every card played.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.tractor.engine.declaring import Declaration
from arena.games.tractor.engine.follow import FollowRule
from arena.games.tractor.engine.round import Phase, Round
from arena.games.tractor.engine.trump import TRUMP

__all__ = ["SeatView", "seat_view"]


@dataclass(frozen=True, slots=True)
class SeatView:
    """A round as one seat may see it."""

    seat: int
    phase: Phase
    players: int
    levels: tuple[int, int]
    level: int
    banker: int | None
    trump_suit: int | None
    """The trump suit once locked (None: no-trump, or not locked yet: see ``locked``)."""
    locked: bool
    candidate: Declaration | None
    """The strongest declaration so far (public)."""
    hand: tuple[int, ...]
    """Its cards, trumps last, each group by power (what it has seen of them)."""
    counts: tuple[int, ...]
    """Every seat's cards in hand."""
    kitty_count: int
    kitty: tuple[int, ...] | None
    """The kitty as dealt: the banker's once taken, everyone's never (None)."""
    buried: tuple[int, ...] | None
    """The buried cards: the banker's; everyone's at the round's end; else None."""
    trick: tuple[tuple[int, tuple[int, ...]], ...]
    """The current trick's plays so far (seat, cards)."""
    played: tuple[tuple[int, tuple[int, ...]], ...]
    """Every play of the round so far, in order."""
    defender_points: int
    """Points in the tricks the defenders won so far."""
    to_act: int | None
    follow: FollowRule | None
    """What this seat must play, when it is to follow now."""


def seat_view(round_: Round, seat: int) -> SeatView:
    """What ``seat`` may know of ``round_`` now."""
    trump = round_.trump
    hand = round_.revealed(seat)
    if trump is not None:
        group, power = trump.group, trump.power
        hand = tuple(sorted(hand, key=lambda c: (group[c] == TRUMP, group[c], power[c], c)))
    is_banker = seat == round_.banker and round_.phase is not Phase.DECLARING
    finished = round_.phase is Phase.FINISHED
    mine_to_follow = round_.to_act == seat and round_.lead is not None
    return SeatView(
        seat=seat,
        phase=round_.phase,
        players=round_.players,
        levels=round_.levels,
        level=round_.level,
        banker=round_.banker,
        trump_suit=trump.suit if trump is not None else None,
        locked=trump is not None,
        candidate=round_.declaring.best,
        hand=hand,
        counts=tuple(len(round_.revealed(s)) for s in range(round_.players)),
        kitty_count=len(round_.kitty),
        kitty=round_.kitty if is_banker else None,
        buried=round_.buried if (is_banker and round_.buried) or finished else None,
        trick=tuple((s, p.cards) for s, p in round_.trick),
        played=tuple(round_.played),
        defender_points=round_.trick_points,
        to_act=round_.to_act,
        follow=round_.follow_rule() if mine_to_follow else None,
    )
