"""A person at the terminal plays Dou Dizhu (the seat type ``human``: ``Game.human_seat``).

The hand is shown, moves are typed in the lenient card syntax (``3 3 3 4``, ``♠10 J Q K A``,
``pass``), bids as a number or a pass word, doubling as yes or no; a mistake is explained
and asked again before it reaches the table (:class:`arena.agents.human.HumanSeat`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.agents.human import HumanSeat
from arena.errors import IllegalActionError
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.reading import hand_of, legal_for, pass_reply, trick_of
from arena.games.ddz.engine import DEFAULT_RULES, Combo, Rules, playable_reading, resolve_cards
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)

__all__ = ["HumanAgent", "parse_human_bid", "parse_human_double", "parse_human_move"]

PASS_WORDS: Final = frozenset({"pass", "p", "不出", "过", "要不起"})
"""A pass at the move prompt."""
BID_PASS_WORDS: Final = PASS_WORDS | {"no", "n", "不叫", "不要"}
"""A bid of 0: the move prompt's pass words work here too, so a player need not switch."""
YES_WORDS: Final = frozenset({"y", "yes", "1", "加倍", "double", "redouble"})
NO_WORDS: Final = BID_PASS_WORDS | {"", "0", "不加倍"}
"""Not doubling; Enter alone too (the prompt's default)."""


def parse_human_bid(line: str, allowed: Sequence[int]) -> int:
    """Read a typed bid: a number, or a pass word (or Enter) for 0. Raises
    IllegalActionError explaining the problem, so the player is asked again."""
    text = line.strip().lower()
    if not text or text in BID_PASS_WORDS:
        value = 0
    else:
        try:
            value = int(text)
        except ValueError:
            raise IllegalActionError(
                f"{line.strip()!r} is not a bid: type a number or 'pass'"
            ) from None
    if value not in allowed:
        shown = "/".join(str(b) for b in allowed)
        raise IllegalActionError(f"{value} is not allowed now; allowed: {shown}")
    return value


def parse_human_double(line: str) -> bool:
    """Read a yes or no to doubling. Raises IllegalActionError for anything else: a typo
    is asked again rather than read as no."""
    text = line.strip().lower()
    if text in YES_WORDS:
        return True
    if text in NO_WORDS:
        return False
    raise IllegalActionError(f"{line.strip()!r}: answer y (yes) or n (no, also 'pass')")


def parse_human_move(line: str, request: PlayRequest, rules: Rules = DEFAULT_RULES) -> Combo | None:
    """Read a typed move; None means pass. Raises IllegalActionError explaining the problem."""
    text = line.strip()
    if text.lower() in PASS_WORDS:
        if request.is_free_play:
            raise IllegalActionError("you lead this trick: you must play something")
        return None
    tokens = text.replace(",", " ").split()
    if not tokens:
        raise IllegalActionError("type some cards, or 'pass'")
    cards = resolve_cards(tokens, hand_of(request))
    return playable_reading(cards, trick_of(request), rules)


class HumanAgent(HumanSeat, BaseAgent):
    """Asks a person at the terminal (or any async ``prompt`` function, for tests) for
    Dou Dizhu's bids, doubles and moves."""

    async def bid(self, request: BidRequest) -> BidResponse:
        """Ask for a bid among the allowed ones."""
        hand = " ".join(request.hand or [])
        allowed = "/".join(str(b) for b in request.available_bids)
        value = await self.ask_person(
            f"\n[{self.name}] hand: {hand}\n  bid ({allowed}, 0 = pass)? ",
            lambda answer: parse_human_bid(answer, request.available_bids),
        )
        return BidResponse(player_id=request.player_id, bid=value, request_id=request.request_id)

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Ask whether to double (or redouble) until the answer is a yes or a no."""
        word = "redouble" if request.kind == "redouble" else "double"
        double = await self.ask_person(f"\n[{self.name}] {word}? (y/N) ", parse_human_double)
        return DoubleResponse(
            player_id=request.player_id, double=double, request_id=request.request_id
        )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Show the hand and the trick; read moves until one is legal."""
        hand = " ".join(request.hand)
        if request.last_play and not request.is_free_play:
            last = request.last_play
            trick = f"{last.player} played {' '.join(last.cards)} ({last.type.value})"
        else:
            trick = "you lead"
        hint = len(legal_for(request, self.rules))
        move = await self.ask_person(
            f"\n[{self.name}] {trick}\n  hand: {hand}\n  your move ({hint} legal; 'pass')? ",
            lambda line: parse_human_move(line, request, self.rules),
        )
        if move is None:
            return pass_reply(request)
        return PlayResponse(
            player_id=request.player_id,
            action="PLAY",
            cards=[c.text for c in move.cards],
            hand_type=move.type,
            request_id=request.request_id,
        )
