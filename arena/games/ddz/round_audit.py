"""What ``arena tournament verify`` checks of a Dou Dizhu round beside its moves (an
:class:`arena.games.base.RoundAudit`): the deal a seed deals, and that the stored
record's deal, bottom cards and first bidder are the ones the engine played, and what
its result counts of viewer gifts."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, Final

from arena.games.ddz.engine.records import DealtCards
from arena.games.ddz.engine.round import Round
from arena.replay_round import RecordedRound

__all__ = ["AUDIT", "DdzRoundAudit"]


class DdzRoundAudit:
    """Dou Dizhu's part of a tournament's verify (see the module)."""

    actions: Final = frozenset({"bid", "double", "play", "pass"})

    def dealt(self, seed: int) -> dict[str, Any]:
        """The deal a round's seed deals, as the header writes it."""
        return DealtCards.shuffled(random.Random(seed)).to_dict()

    def gift_marks(self, result: Mapping[str, Any]) -> tuple[tuple[int, str], ...]:
        """The gift effects applied and the viewers' doubles the result counts."""
        return (
            (result.get("effects_applied") or 0, "effect(s) applied"),
            (result.get("gift_doubles") or 0, "viewer double(s)"),
        )

    def record_problem(self, recorded: RecordedRound, played: Round) -> str | None:
        """The stored record's hands, bottom and first bidder against the engine's, and
        the header's first bidder; None when they agree."""
        summary = recorded.summary or {}
        result = summary.get("result", {})
        stored = result.get("deal", {})
        hands = stored.get("hands") or [None, None, None]
        dealt = played.deal.to_dict()
        for seat in range(3):
            if hands[seat] != dealt["hands"][seat]:
                return (
                    f"the stored record's hand of seat {seat} {hands[seat]} is not the one "
                    f"dealt {dealt['hands'][seat]}"
                )
        if stored.get("bottom") != dealt["bottom"]:
            return (
                f"the stored record's bottom {stored.get('bottom')} is not the one dealt "
                f"{dealt['bottom']}"
            )
        if result.get("first_bidder") != played.first_bidder:
            return (
                f"the stored record's first bidder is seat {result.get('first_bidder')}, the "
                f"seed's is seat {played.first_bidder}"
            )
        first = recorded.header.get("first_bidder")
        if first not in (None, played.first_bidder):
            return f"the header's first bidder {first} did not bid first"
        return None


AUDIT: Final = DdzRoundAudit()
