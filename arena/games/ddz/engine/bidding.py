"""Auctions that decide the landlord: 叫分 (two variants), 抢地主, and a fixed landlord.

Each auction is a tiny state machine over seats 0..2: ``to_act`` says who speaks, ``legal()``
what they may say, ``act()`` records it, and ``outcome`` is set when it is over. Values
are the wire's bids: 0 is a pass, 1..3 a call score; in the grab auction 1 means call or
grab and 0 means not.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal, Protocol

from arena.errors import IllegalActionError

__all__ = [
    "REDEAL",
    "Auction",
    "AuctionOutcome",
    "CallScoreAuction",
    "FixedLandlordAuction",
    "GrabAuction",
    "make_auction",
]


@dataclass(frozen=True, slots=True)
class AuctionOutcome:
    """Who is landlord, at what call score, after how many grabs (抢地主 doublings)."""

    landlord: int
    call_score: int
    grabs: int = 0


REDEAL: Final = "redeal"
"""The outcome when nobody bid: the cards are thrown in and dealt again."""


class Auction(Protocol):
    """The shape every auction has; the round drives it without knowing which one it is."""

    to_act: int | None
    outcome: AuctionOutcome | Literal["redeal"] | None

    @property
    def mode(self) -> Literal["call_score", "grab", "fixed_landlord"]:
        """Which auction this is, as the wire's BID_REQUEST names it."""
        ...

    def legal(self) -> list[int]:
        """The values the seat to act may say, highest first, 0 (pass) last."""
        ...

    def act(self, seat: int, value: int) -> None:
        """Record a bid; raises IllegalActionError and changes nothing if it is not allowed."""
        ...

    @property
    def highest(self) -> int:
        """The highest call score so far (0 when none)."""
        ...


def _check_turn(auction: Auction, seat: int, value: int) -> None:
    if auction.outcome is not None:
        raise IllegalActionError("bidding is over")
    if seat != auction.to_act:
        raise IllegalActionError(f"it is seat {auction.to_act}'s turn to bid, not seat {seat}'s")
    allowed = auction.legal()
    if value not in allowed:
        raise IllegalActionError(f"bid {value!r} is not allowed now; allowed: {allowed}")


class CallScoreAuction:
    """叫分: bids must rise, 3 ends it at once.

    ``single_round`` (the default) lets each seat speak once; ``until_settled`` goes
    round until two passes follow the last bid (docs/rules.md, Bidding).
    """

    mode: Literal["call_score"] = "call_score"

    def __init__(self, first: int, *, until_settled: bool = False) -> None:
        self.to_act: int | None = first
        self.outcome: AuctionOutcome | Literal["redeal"] | None = None
        self._until_settled = until_settled
        self._highest = 0
        self._bidder: int | None = None
        self._spoken = 0
        self._passes_since_bid = 0

    @property
    def highest(self) -> int:
        """The highest call score so far (0 when none)."""
        return self._highest

    def legal(self) -> list[int]:
        """Any score above the highest so far, or 0 (pass)."""
        if self.outcome is not None:
            return []
        return [v for v in (3, 2, 1) if v > self._highest] + [0]

    def act(self, seat: int, value: int) -> None:
        """Record a bid and end the auction when its stop rule says so."""
        _check_turn(self, seat, value)
        self._spoken += 1
        if value:
            self._highest, self._bidder, self._passes_since_bid = value, seat, 0
        else:
            self._passes_since_bid += 1
        if value == 3:
            self._finish()
        elif self._until_settled:
            if self._spoken >= 3 and (self._bidder is None or self._passes_since_bid >= 2):
                self._finish()
        elif self._spoken == 3:
            self._finish()
        if self.outcome is None:
            self.to_act = (seat + 1) % 3

    def _finish(self) -> None:
        self.to_act = None
        if self._bidder is None:
            self.outcome = REDEAL
        else:
            self.outcome = AuctionOutcome(self._bidder, self._highest)


class GrabAuction:
    """叫地主/抢地主 (the ``grab`` variant of docs/rules.md).

    From the first bidder each seat may call; once one has, each later seat may grab once,
    and if anyone grabbed the caller may grab once more. The last to call or grab is
    landlord at call score 1; each grab doubles the round.
    """

    mode: Literal["grab"] = "grab"

    def __init__(self, first: int) -> None:
        self.to_act: int | None = first
        self.outcome: AuctionOutcome | Literal["redeal"] | None = None
        self._first = first
        self._spoken = 0
        self._caller: int | None = None
        self._last: int | None = None
        self._grabs = 0
        self._queue: list[int] = []
        self._caller_had_last_word = False

    @property
    def highest(self) -> int:
        """1 once someone has called, else 0."""
        return 1 if self._caller is not None else 0

    @property
    def calling(self) -> bool:
        """Whether the seat to act is asked to call (True) or to grab (False)."""
        return self._caller is None

    def legal(self) -> list[int]:
        """1 (call, or grab) or 0 (not)."""
        return [] if self.outcome is not None else [1, 0]

    def act(self, seat: int, value: int) -> None:
        """Record a call or grab decision and move to the next seat that may speak."""
        _check_turn(self, seat, value)
        self._spoken += 1
        if self._caller is None:
            if value:
                self._caller = self._last = seat
                position = (seat - self._first) % 3
                self._queue = [(self._first + p) % 3 for p in range(position + 1, 3)]
            elif self._spoken == 3:
                self.to_act, self.outcome = None, REDEAL
                return
            else:
                self.to_act = (seat + 1) % 3
                return
        elif value:
            self._last = seat
            self._grabs += 1
        self._advance()

    def _advance(self) -> None:
        if self._queue:
            self.to_act = self._queue.pop(0)
        elif self._grabs and not self._caller_had_last_word:
            self.to_act = self._caller
            self._caller_had_last_word = True
        else:
            assert self._last is not None
            self.to_act = None
            self.outcome = AuctionOutcome(self._last, 1, self._grabs)


class FixedLandlordAuction:
    """轮庄 (tournament landlord rotation): the seat is landlord and only names its score."""

    mode: Literal["fixed_landlord"] = "fixed_landlord"

    def __init__(self, landlord: int) -> None:
        self.to_act: int | None = landlord
        self.outcome: AuctionOutcome | Literal["redeal"] | None = None
        self._score = 0

    @property
    def highest(self) -> int:
        """The score named so far (0 before)."""
        return self._score

    def legal(self) -> list[int]:
        """A call score 1..3; passing is not possible."""
        return [] if self.outcome is not None else [3, 2, 1]

    def act(self, seat: int, value: int) -> None:
        """Record the landlord's call score."""
        _check_turn(self, seat, value)
        self._score = value
        self.to_act = None
        self.outcome = AuctionOutcome(seat, value)


def make_auction(
    bidding: Literal["single_round", "until_settled", "grab"],
    first: int,
    *,
    fixed_landlord: int | None = None,
) -> Auction:
    """The auction for a deal under the given bidding rule."""
    if fixed_landlord is not None:
        return FixedLandlordAuction(fixed_landlord)
    if bidding == "grab":
        return GrabAuction(first)
    return CallScoreAuction(first, until_settled=bidding == "until_settled")
