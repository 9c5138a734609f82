"""The ``heuristic`` Tractor agent: a scripted player with table sense.

It counts cards from each request (:mod:`~arena.games.tractor.agents.knowledge`), leads
what stands (:mod:`~arena.games.tractor.agents.leading`), follows to feed a partner or
take a trick worth it (:mod:`~arena.games.tractor.agents.following`), and judges a
holding to declare trump and to bury (:mod:`~arena.games.tractor.agents.holding`).

Every play and burial is checked by the engine before it is sent; one the engine would
refuse (never expected) is replaced by the engine's fallback and counted in
:attr:`HeuristicAgent.refused`, so it never replies illegally: it stands in for failing
seats and plays the benchmarks. A play takes about 0.07 ms of CPU, 0.3 ms at most
(tests/test_tractor_agent_strength.py measures it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from arena.games.tractor.agents.base import (
    Reading,
    bury_reply,
    declare_reply,
    level_of,
    pass_reply,
    play_reply,
    read_play,
    suit_of,
)
from arena.games.tractor.agents.following import follow
from arena.games.tractor.agents.holding import bury_choice, declare_choice
from arena.games.tractor.agents.knowledge import History, Knowledge, know
from arena.games.tractor.agents.leading import lead
from arena.games.tractor.agents.scripted import SeededAgent
from arena.games.tractor.engine import (
    card_ids,
    check_follow,
    fallback_bury,
    fallback_play,
    trump_context,
)
from arena.games.tractor.engine.cards import POINTS
from arena.games.tractor.messages import (
    BuryRequest,
    BuryResponse,
    Deal,
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
)
from protocol import Emotion, Message

__all__ = ["HeuristicAgent"]

R = TypeVar("R", DeclareResponse, PlayResponse)

_SAYINGS: dict[str, tuple[str, Emotion, float]] = {
    "throw": ("甩！", Emotion.CONFIDENT, 0.3),
    "ruff": ("毙了！", Emotion.EXCITED, 0.4),
    "feed": ("送分～", Emotion.HAPPY, 0.3),
    "declare": ("亮主！", Emotion.CONFIDENT, 0.3),
}
"""What it says now and then (the words, the mood, the chance), by the kind of move."""


class HeuristicAgent(SeededAgent):
    """Declares with a good trump holding, buries cheap cards, leads what stands, feeds
    its partner, ruffs tricks with points (see the module)."""

    def __init__(self, name: str, *, seed: int | None = None, **options: Any) -> None:
        super().__init__(name, seed=seed, **options)
        self._history: History | None = None
        self._partners: frozenset[str] = frozenset()
        self.refused = 0
        """Choices the engine refused and the fallback replaced (a bug if ever > 0)."""

    async def notify(self, message: Message) -> None:
        """A DEAL seeds the round and tells the partners (for declaring)."""
        await super().notify(message)
        if type(message) is Deal:
            assert isinstance(message, Deal)
            mine = message.teams[message.team]
            self._partners = frozenset(p for p in mine if p != message.player_id)
            self._history = None

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        """Declare the best suit of a good holding, reinforce, or overcall an opponent."""
        candidate = request.candidate
        found = declare_choice(
            card_ids(request.hand),
            level_of(request.level),
            request.options,
            None if candidate is None else (candidate.player, suit_of(candidate.suit)),
            request.player_id,
            self._partners,
        )
        if found is None:
            return pass_reply(request)
        reply = declare_reply(request, found.cards)
        return self._with_words(reply, "declare")

    async def bury(self, request: BuryRequest) -> BuryResponse:
        """Bury cheap cards, voiding a short suit (see :mod:`.holding`)."""
        trump = trump_context(level_of(request.level), suit_of(request.trump_suit))
        hand = card_ids(request.hand)
        cards = bury_choice(hand, request.count, trump)
        if len(set(cards)) != request.count or not set(cards) <= set(hand):
            self.refused += 1
            cards = list(fallback_bury(hand, request.count, trump))
        return bury_reply(request, cards)

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Lead or follow (see the module), checked by the engine."""
        reading = read_play(request)
        knowledge, self._history = know(request, reading, self._history)
        cards, why = lead(knowledge) if reading.lead is None else follow(knowledge)
        if _refusal(reading, cards) is not None:
            self.refused += 1
            cards, why = list(fallback_play(reading.hand, reading.lead, reading.trump)), None
        reply = play_reply(request, cards)
        return self._with_words(reply, _worth_saying(why, knowledge, cards))

    def _with_words(self, reply: R, why: str | None) -> R:
        """The reply with a comment and a mood, now and then (rarely: viewers read them)."""
        if why is None:
            return reply
        words, emotion, chance = _SAYINGS[why]
        if self._rng.random() >= chance:
            return reply
        return reply.model_copy(update={"comment": words, "emotion": emotion})


def _worth_saying(why: str | None, knowledge: Knowledge, cards: Sequence[int]) -> str | None:
    """A move worth a word: a throw of four cards or more, a ruff or a feed of 20 points."""
    if why == "throw":
        return why if len(cards) >= 4 else None
    if why == "ruff":
        return why if knowledge.points >= 20 else None
    if why == "feed":
        return why if sum(POINTS[c] for c in cards) >= 20 else None
    return None


def _refusal(reading: Reading, cards: Sequence[int]) -> str | None:
    """Why the engine would refuse ``cards`` (None: legal). A throw that will be
    punished is legal."""
    hand = reading.hand
    if reading.lead is not None:
        return check_follow(hand, cards, reading.lead, reading.trump)
    if not cards or len(set(cards)) != len(cards) or not set(cards) <= set(hand):
        return "play cards of your own hand, each once"
    group = reading.trump.group
    if len({group[c] for c in cards}) != 1:
        return "a lead must be of one suit group"
    return None
