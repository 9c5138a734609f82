"""Scripted agents: `random`, `greedy` and the rule-based `heuristic` baseline.

They never time out and never reply illegally, so they also serve as the stand-ins that
take over a failing seat, and as the fast opponents of benchmarks and tests. Each draws
its randomness from its own seeded generator, so a match replays identically.
"""

from __future__ import annotations

import random
import zlib
from typing import Any

from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.hand_eval import bid_strength, plays_needed
from arena.games.ddz.agents.reading import (
    HandMemo,
    hand_of,
    legal_for,
    pass_reply,
    play_reply,
    trick_of,
)
from arena.games.ddz.engine import Combo, ComboType, rank_counts
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    Deal,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)
from protocol import Emotion, Message

__all__ = ["GreedyAgent", "HeuristicAgent", "RandomAgent"]

_BOMBS = (ComboType.BOMB, ComboType.ROCKET)


class RandomAgent(BaseAgent):
    """Uniform over the legal actions (PASS included when following)."""

    def __init__(self, name: str, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(name, seed=seed, **options)
        self._rng = random.Random(seed)
        self._memo = HandMemo()

    async def notify(self, message: Message) -> None:
        """Each deal starts the choices afresh from the seed, the match and the round: a
        round played again (a tournament resumed after a crash) is played the same,
        whatever the rounds before it drew."""
        if type(message) is Deal and self.seed is not None:
            match = zlib.crc32((message.match_id or "").encode())
            first = zlib.crc32("".join(message.hand[:3]).encode())  # a redeal draws anew
            self._rng.seed(
                (self.seed << 64) ^ (match << 32) ^ (first << 16) ^ (message.round_no or 0)
            )

    async def bid(self, request: BidRequest) -> BidResponse:
        """Any allowed bid."""
        return BidResponse(
            player_id=request.player_id,
            bid=self._rng.choice(request.available_bids),
            request_id=request.request_id,
        )

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """A coin toss."""
        return DoubleResponse(
            player_id=request.player_id,
            double=self._rng.random() < 0.5,
            request_id=request.request_id,
        )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Any legal move, or a pass when passing is allowed."""
        moves = legal_for(request, self.rules, self._memo)
        can_pass = not request.is_free_play
        pick = self._rng.randrange(len(moves) + int(can_pass))
        if pick == len(moves):
            return pass_reply(request)
        return play_reply(request, moves[pick])


def _lowest_first(move: Combo) -> tuple[int, int, int]:
    """Smallest move first: ordinary before bombs, low main rank, then more cards."""
    return (move.type in _BOMBS, move.main_rank, -len(move.cards))


class GreedyAgent(BaseAgent):
    """Plays the smallest move that beats the trick; leads its lowest cards."""

    async def bid(self, request: BidRequest) -> BidResponse:
        """Bids the lowest allowed score when its hand has some strength."""
        strength = bid_strength(_cards_of_bid(request))
        bids = sorted(b for b in request.available_bids if b)
        choice = bids[0] if bids and strength >= 7 else min(request.available_bids)
        return BidResponse(player_id=request.player_id, bid=choice, request_id=request.request_id)

    async def play(self, request: PlayRequest) -> PlayResponse:
        """The smallest legal move, or a pass when nothing beats the trick."""
        moves = legal_for(request, self.rules)
        if not moves:
            return pass_reply(request)
        return play_reply(request, min(moves, key=_lowest_first))


def _cards_of_bid(request: BidRequest | DoubleRequest) -> list[str]:
    return list(request.hand or [])


class HeuristicAgent(BaseAgent):
    """A decent rule-based player: the baseline opponent for language models.

    It bids by hand strength, plays the move that leaves the fewest plays to finish
    (:func:`~arena.games.ddz.agents.hand_eval.plays_needed`), keeps bombs for when they matter,
    never overtakes its teammate without reason, and feeds a teammate about to go out.
    """

    bid_thresholds: tuple[int, int, int] = (6, 9, 12)
    """Hand strength needed to bid 1, 2 and 3 (see :func:`bid_strength`)."""

    async def bid(self, request: BidRequest) -> BidResponse:
        """Bid as high as the hand's strength supports, if that beats the current bid."""
        strength = bid_strength(_cards_of_bid(request))
        if request.mode == "grab":
            want = 1 if strength >= (8 if request.current_highest_bid == 0 else 11) else 0
        else:
            one, two, three = self.bid_thresholds
            want = 3 if strength >= three else 2 if strength >= two else 1 if strength >= one else 0
            if request.mode == "fixed_landlord":
                want = max(want, 1)
        choice = want if want in request.available_bids else min(request.available_bids)
        if request.mode == "fixed_landlord" and choice == 0:
            choice = min(b for b in request.available_bids if b)
        emotion = Emotion.CONFIDENT if choice >= 2 else None
        return BidResponse(
            player_id=request.player_id, bid=choice, emotion=emotion, request_id=request.request_id
        )

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Double with a strong hand; the landlord redoubles only with a very strong one."""
        strength = bid_strength(list(request.hand))
        threshold = 14 if request.kind == "redouble" else 11
        return DoubleResponse(
            player_id=request.player_id,
            double=strength >= threshold,
            request_id=request.request_id,
        )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Lead or follow by the fewest plays left, with a little table sense."""
        hand = hand_of(request)
        counts = rank_counts(hand)
        trick = trick_of(request)
        moves = legal_for(request, self.rules)
        finishing = [m for m in moves if len(m.cards) == len(hand)]
        if finishing:
            return play_reply(request, finishing[0], emotion=Emotion.EXCITED, comment="收工！")
        if trick is None:
            return play_reply(request, self._lead(request, counts, moves))
        choice = self._follow(request, counts, moves)
        if choice is None:
            return pass_reply(request)
        emotion = Emotion.EXCITED if choice.type in _BOMBS else None
        return play_reply(request, choice, emotion=emotion)

    def _lead(self, request: PlayRequest, counts: list[int], moves: list[Combo]) -> Combo:
        teammate_left = min((request.remaining_cards[t] for t in request.teammates), default=99)
        if teammate_left == 1:
            singles = [m for m in moves if m.type is ComboType.SINGLE]
            if singles:
                return min(singles, key=_lowest_first)
        if teammate_left == 2:
            pairs = [m for m in moves if m.type is ComboType.PAIR]
            if pairs:
                return min(pairs, key=_lowest_first)
        ordinary = [m for m in moves if m.type not in _BOMBS] or moves
        return min(ordinary, key=lambda m: self._lead_cost(counts, m))

    def _lead_cost(self, counts: list[int], move: Combo) -> tuple[int, int, int]:
        return (plays_needed(_minus(counts, move)), move.main_rank, -len(move.cards))

    def _follow(self, request: PlayRequest, counts: list[int], moves: list[Combo]) -> Combo | None:
        if not moves:
            return None
        last = request.last_play
        assert last is not None
        partner_played = last.player in request.teammates
        opponents = [
            p
            for p in request.remaining_cards
            if p != request.player_id and p not in request.teammates
        ]
        danger = min(request.remaining_cards[p] for p in opponents)
        before = plays_needed(counts)
        ordinary = [m for m in moves if m.type not in _BOMBS]
        if partner_played:
            # Overtake a teammate only to go out soon, never with a bomb.
            cheap = [m for m in ordinary if plays_needed(_minus(counts, m)) <= 1]
            return min(cheap, key=_lowest_first) if cheap else None
        if ordinary:
            best = min(
                ordinary,
                key=lambda m: (plays_needed(_minus(counts, m)) - before, m.main_rank),
            )
            cost = plays_needed(_minus(counts, best)) - before
            if cost <= 0 or danger <= 4 or best.main_rank <= 12:
                return best
            return None
        bombs = sorted(moves, key=_lowest_first)
        if danger <= 4 or before <= 2:
            return bombs[0]
        return None


def _minus(counts: list[int], move: Combo) -> list[int]:
    left = counts.copy()
    for c in move.cards:
        left[c.rank] -= 1
    return left
