"""Real Tractor matches for tests: a table of scripted seats, recorded as ``arena play
--record`` records (a :class:`~arena.replay.ReplayWriter` per file), and a seat that
errs now and then so that rejected replies, fallbacks and stand-ins are recorded too."""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from arena.games.registry import get_game
from arena.games.tractor.agents.base import bury_reply, declare_reply, play_reply
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import DECK, TractorRules, card_ids
from arena.games.tractor.messages import (
    BuryRequest,
    BuryResponse,
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
)
from arena.replay import ReplayWriter
from arena.sinks.base import Sink
from arena.table import MatchSummary, Table, play_match
from arena.table.safe_point import SafePoint

__all__ = ["ClumsyAgent", "names", "play_tractor", "tractor_rules"]

GAME = get_game("tractor")


def tractor_rules(players: int, rounds: int, **more: Any) -> TractorRules:
    """The rules of a short match: ``rounds`` rounds at most (``[rules] round_limit``)."""
    return TractorRules.model_validate({"players": players, "round_limit": rounds, **more})


def names(players: int) -> list[str]:
    """The seats' names: North, East, South, West, then two more."""
    return ["North", "East", "South", "West", "Upper", "Lower"][:players]


async def play_tractor(
    rules: TractorRules,
    *,
    seed: int,
    record: Path | None = None,
    sinks: Sequence[Sink] = (),
    agents: Sequence[Any] | None = None,
    watch: Callable[[Table], None] | None = None,
    safe_points: Sequence[SafePoint] = (),
) -> MatchSummary:
    """A match of random seats (or ``agents``) to the rules' round limit, recorded into
    ``record`` when given; ``watch`` is handed the table before it plays, and each of
    ``safe_points`` is called between two turns (a gift's moment)."""
    if agents is None:
        agents = [
            RandomAgent(name, seed=i, rules=rules) for i, name in enumerate(names(rules.players))
        ]
    writer = ReplayWriter(record) if record is not None else None
    table = Table(
        agents,
        game=GAME,
        rules=rules,
        sinks=sinks,
        recorder=writer.for_table("t1") if writer is not None else None,
        safe_points=safe_points,
    )
    if watch is not None:
        watch(table)
    try:
        await table.open()
        return await play_match(table, rounds=rules.round_limit, seed=seed)
    finally:
        await table.close()
        if writer is not None:
            writer.close()


class ClumsyAgent(RandomAgent):
    """A random seat that errs: every burial it replies is one card short (the table
    buries for it); on one other request in four its first reply is illegal (the retry is
    its usual one), on one in six every reply is (the table falls back). Which requests
    is drawn from their ids, so a match replays the same. ``hopeless``: every reply is
    illegal (a stand-in soon plays for it)."""

    def __init__(self, name: str, *, hopeless: bool = False, **options: Any) -> None:
        super().__init__(name, **options)
        self.hopeless = hopeless
        self._tries: dict[str | None, int] = {}

    def _errs(self, request_id: str | None) -> bool:
        """Whether to err on this attempt of the request."""
        draw = zlib.crc32((request_id or "").encode())
        tries = self._tries.get(request_id, 0)
        self._tries[request_id] = tries + 1
        return self.hopeless or draw % 6 == 0 or (draw % 4 == 1 and tries == 0)

    async def declare(self, request: DeclareRequest) -> DeclareResponse:
        """A card of the hand that declares nothing (not a level card), or as random."""
        if self._errs(request.request_id):
            plain = [c for c in request.hand if not _joker(c) and c.split("_")[2] != request.level]
            if plain:
                return declare_reply(request, [plain[0]])
        return await super().declare(request)

    async def bury(self, request: BuryRequest) -> BuryResponse:
        """One card too few."""
        reply = await super().bury(request)
        return bury_reply(request, card_ids(reply.cards[1:]))

    async def play(self, request: PlayRequest) -> PlayResponse:
        """A card the seat does not hold, or as random."""
        if self._errs(request.request_id):
            held = set(card_ids(request.hand))
            return play_reply(request, [next(c for c in DECK if c not in held)])
        return await super().play(request)


def _joker(card: str) -> bool:
    """Whether a card id is a joker's (``D1_SJ``, ``D2_BJ``)."""
    return card.endswith(("_SJ", "_BJ"))
