"""Declaring trump (亮主/抢主, §4) as windows that give no seat a speed advantage.

Every seat is asked at once in a window and every reply counts equally, however fast.
The strongest declaration becomes the candidate; a tie between equal declarations goes
to the seat nearest after the previous banker in play order (first round: after a seat
drawn from the round's seed). Another window follows, in which only a strictly stronger
declaration counts (§4.3: pair of big jokers > pair of small jokers > big joker > small
joker > pair of level cards > a level card); a seat may reinforce its own (a pair after
its single), equal strength never overturns. A window without a stronger declaration
locks trump. Every window but the last raises the strength, so there are at most seven.
With ``deal_steps`` N > 1, one window follows each of the first N − 1 steps (a quiet one
locks nothing, cards are still coming), then windows go on as above.

A level card declares its suit; a joker cannot set a suit (§4.1): it declares no-trump
(无主). Nobody declaring: no-trump too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import IntEnum

from arena.errors import IllegalActionError
from arena.games.tractor.engine.cards import (
    FACE,
    RANK,
    RANK_BIG_JOKER,
    RANK_SMALL_JOKER,
    SUIT,
    SUIT_SYMBOLS,
    faces_text,
    rank_text,
)

__all__ = ["Declaration", "Declaring", "Strength", "declaration_of", "declarations"]


class Strength(IntEnum):
    """§4.3, weakest first."""

    LEVEL_SINGLE = 1
    LEVEL_PAIR = 2
    RANK_SMALL_JOKER = 3
    RANK_BIG_JOKER = 4
    SMALL_JOKER_PAIR = 5
    BIG_JOKER_PAIR = 6


@dataclass(frozen=True, slots=True)
class Declaration:
    """A seat's declaration: its cards, their strength and the suit they name."""

    seat: int
    cards: tuple[int, ...]
    strength: Strength
    suit: int | None
    """The trump suit it declares (0..3); None: no-trump (a joker declaration)."""

    def describe(self) -> str:
        """``seat 2: ♥5 ♥5 (♥ trump)``."""
        trump = "no trump" if self.suit is None else f"{SUIT_SYMBOLS[self.suit]} trump"
        return f"seat {self.seat}: {faces_text(self.cards)} ({trump})"


def declaration_of(seat: int, cards: Sequence[int], level: int) -> Declaration | str:
    """The declaration ``cards`` make at ``level``, or why they make none."""
    if len(cards) not in (1, 2) or len(set(cards)) != len(cards):
        return "declare with one card or a pair"
    if len(cards) == 2 and FACE[cards[0]] != FACE[cards[1]]:
        return "two cards declare only as a pair (two copies of one card)"
    rank = RANK[cards[0]]
    pair = len(cards) == 2
    if rank == RANK_BIG_JOKER:
        strength = Strength.BIG_JOKER_PAIR if pair else Strength.RANK_BIG_JOKER
    elif rank == RANK_SMALL_JOKER:
        strength = Strength.SMALL_JOKER_PAIR if pair else Strength.RANK_SMALL_JOKER
    elif rank == level:
        strength = Strength.LEVEL_PAIR if pair else Strength.LEVEL_SINGLE
    else:
        return f"only a level card ({rank_text(level)}) or a joker declares"
    suit = SUIT[cards[0]] if rank == level else None
    return Declaration(seat, tuple(cards), strength, suit)


def declarations(
    seat: int, hand: Sequence[int], level: int, best: Declaration | None = None
) -> list[Declaration]:
    """Every declaration ``seat`` can make from ``hand`` that is stronger than ``best``
    (one per face and size), weakest first."""
    by_face: dict[int, list[int]] = {}
    for card in hand:
        if RANK[card] == level or RANK[card] >= RANK_SMALL_JOKER:
            by_face.setdefault(FACE[card], []).append(card)
    floor = 0 if best is None else best.strength
    found = []
    for copies in by_face.values():
        for size in (1, 2) if len(copies) == 2 else (1,):
            made = declaration_of(seat, copies[:size], level)
            if isinstance(made, Declaration) and made.strength > floor:
                found.append(made)
    found.sort(key=lambda d: (d.strength, -1 if d.suit is None else d.suit))
    return found


class Declaring:
    """The declaration windows of one round (see the module): a pure state machine fed
    one window's replies at a time."""

    __slots__ = ("best", "locked", "seats", "step", "steps", "tie_after", "windows")

    def __init__(self, seats: int, *, tie_after: int, steps: int = 1) -> None:
        self.seats = seats
        self.tie_after = tie_after
        """Ties go to the seat nearest after this one in play order."""
        self.steps = steps
        self.step = 1
        """The deal steps revealed so far."""
        self.best: Declaration | None = None
        self.windows = 0
        self.locked = False

    def refusal(self, declaration: Declaration) -> str | None:
        """Why a declaration cannot count in the next window, or None."""
        if self.locked:
            return "trump is locked"
        best = self.best
        if best is not None and declaration.strength <= best.strength:
            return (
                f"only a stronger declaration than {faces_text(best.cards)} counts now "
                f"(pair of big jokers > pair of small jokers > big joker > small joker > "
                f"pair of level cards > a level card)"
            )
        return None

    def window(self, replies: Mapping[int, Declaration | None]) -> Declaration | None:
        """One window's replies (None or absent: a pass); returns the new candidate, None
        when the window was quiet. A reply that cannot count raises IllegalActionError."""
        if self.locked:
            raise IllegalActionError("trump is locked")
        offers = [d for d in replies.values() if d is not None]
        for offer in offers:
            reason = self.refusal(offer)
            if reason is not None:
                raise IllegalActionError(reason)
        self.windows += 1
        final_step = self.step >= self.steps
        if not offers:
            if final_step:
                self.locked = True
            else:
                self.step += 1
            return None
        top = max(d.strength for d in offers)
        n, after = self.seats, self.tie_after
        winner = min(
            (d for d in offers if d.strength == top), key=lambda d: (d.seat - after - 1) % n
        )
        self.best = winner
        if not final_step:
            self.step += 1
        elif winner.strength == Strength.BIG_JOKER_PAIR:
            self.locked = True  # nothing can overcall it: no quiet window needed
        return winner
