"""What a Tractor bot in Python subclasses: :class:`TractorAgent`, and the protocol of a
Tractor player, :class:`TractorPlayer`; and :class:`Reading`, a request read back into
the engine's terms (cards as ints, the trump context, the lead) for bots that reason
with the engine."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from arena.agents.base import Agent, AgentBase
from arena.games.tractor.engine import (
    DEFAULT_RULES,
    Play,
    TractorRules,
    Trump,
    card_ids,
    classify,
    trump_context,
)
from arena.games.tractor.engine.cards import RANK_ACE, SUIT_LETTERS
from arena.games.tractor.messages import (
    BuryRequest,
    BuryResponse,
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
)

__all__ = ["Reading", "TractorAgent", "TractorPlayer", "level_of", "read_play", "suit_of"]

_LEVELS = {**{str(r): r for r in range(2, 11)}, "J": 11, "Q": 12, "K": 13, "A": RANK_ACE}


def level_of(text: str) -> int:
    """A wire level (``"10"``, ``"A"``) as the engine's rank."""
    return _LEVELS[text]


def suit_of(letter: str | None) -> int | None:
    """A wire suit letter as the engine's suit (None: no trump)."""
    return None if letter is None else SUIT_LETTERS.index(letter)


@dataclass(frozen=True, slots=True)
class Reading:
    """A PLAY_REQUEST in the engine's terms."""

    hand: tuple[int, ...]
    trump: Trump
    lead: Play | None
    """The trick's lead, classified (None when leading)."""
    seat_in_trick: int
    """How many have played before this seat in the trick."""
    trick: tuple[tuple[str, tuple[int, ...]], ...]
    """The trick so far: each player and cards."""


def read_play(request: PlayRequest) -> Reading:
    """A PLAY_REQUEST read back into the engine's terms."""
    trump = trump_context(level_of(request.level), suit_of(request.trump_suit))
    lead = None if request.lead is None else classify(card_ids(request.lead.cards), trump)
    trick = tuple((p.player, card_ids(p.cards)) for p in request.trick)
    return Reading(card_ids(request.hand), trump, lead, len(trick), trick)


@runtime_checkable
class TractorPlayer(Agent, Protocol):
    """A Tractor player: the methods answering its three requests."""

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        """Answer a DECLARE_REQUEST: one of ``request.options``, or pass."""
        ...

    async def bury(self, request: BuryRequest) -> BuryResponse:
        """Answer a BURY_REQUEST with ``request.count`` cards of the hand."""
        ...

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Answer a PLAY_REQUEST with a lead or a follow."""
        ...


class TractorAgent(AgentBase):
    """A Tractor agent with defaults for everything but :meth:`play`: never declare,
    bury the cheapest cards, ignore notifications. Subclass it."""

    games: ClassVar[tuple[str, ...] | None] = ("tractor",)
    rules: TractorRules

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: TractorRules = DEFAULT_RULES,
        **options: Any,
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        """Pass by default."""
        return pass_reply(request)

    async def bury(self, request: BuryRequest) -> BuryResponse:
        """The cheapest cards: plain cards without points, low ones first."""
        from arena.games.tractor.engine import fallback_bury

        trump = trump_context(level_of(request.level), suit_of(request.trump_suit))
        cards = fallback_bury(card_ids(request.hand), request.count, trump)
        return bury_reply(request, cards)

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Subclasses decide how to play."""
        raise NotImplementedError(f"{type(self).__name__} does not implement play()")


def pass_reply(request: DeclareRequest) -> DeclareResponse:
    """A pass in a declaration window."""
    return DeclareResponse(
        player_id=request.player_id, action="PASS", request_id=request.request_id
    )


def declare_reply(request: DeclareRequest, cards: Sequence[str]) -> DeclareResponse:
    """A declaration with these card ids."""
    return DeclareResponse(
        player_id=request.player_id,
        action="DECLARE",
        cards=list(cards),
        request_id=request.request_id,
    )


def bury_reply(request: BuryRequest, cards: Sequence[int]) -> BuryResponse:
    """A burial of these cards."""
    from arena.games.tractor.engine import card_text

    return BuryResponse(
        player_id=request.player_id,
        cards=[card_text(c) for c in cards],
        request_id=request.request_id,
    )


def play_reply(request: PlayRequest, cards: Sequence[int], **said: Any) -> PlayResponse:
    """A play of these cards (with a comment, an emotion, a hint if given)."""
    from arena.games.tractor.engine import card_text

    return PlayResponse(
        player_id=request.player_id,
        cards=[card_text(c) for c in cards],
        request_id=request.request_id,
        **said,
    )
