"""Scoring: turning a finished round's facts into zero-sum scores (docs/rules.md, Scoring).

One formula serves both presets. Each farmer settles with the landlord alone:
farmer score = call score × (+1 if farmers win else −1) × 2^exponent, where the exponent is
the round's common part (bombs, rockets, spring, grabs, viewer doubles) plus that farmer's
doubling; the landlord takes minus the sum. With no doubling (the `casual` preset) this is
the casual stake M = call × 2^(bombs + rockets + spring): ±M per farmer, ∓2M landlord.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from arena.games.ddz.engine.rules import Rules

__all__ = ["ScoreSheet", "settle"]


@dataclass(frozen=True, slots=True)
class ScoreSheet:
    """Scores per seat (summing to zero) and each farmer's exponent."""

    scores: tuple[int, int, int]
    common_exponent: int
    exponents: Mapping[int, int]


def settle(
    rules: Rules,
    *,
    landlord: int,
    call_score: int,
    landlord_won: bool,
    bombs: int,
    rockets: int,
    spring: bool,
    grabs: int,
    gift_doubles: int,
    doubled: Mapping[int, bool],
    redoubled: bool,
) -> ScoreSheet:
    """Score a finished round.

    ``doubled`` maps each farmer seat to whether they doubled. Per-defender doubling (the
    competition preset) applies a farmer's double, and the landlord's redouble, only
    between that farmer and the landlord; otherwise every double applies to both farmers.
    """
    farmers = [seat for seat in range(3) if seat != landlord]
    common = bombs + rockets + int(spring) + grabs + gift_doubles
    sign = -1 if landlord_won else 1
    doubles_total = sum(1 for seat in farmers if doubled.get(seat))
    exponents: dict[int, int] = {}
    scores = [0, 0, 0]
    for seat in farmers:
        if rules.doubles_per_defender:
            own = 1 if doubled.get(seat) else 0
            re = 1 if redoubled and own else 0
        else:
            own = doubles_total
            re = 1 if redoubled and doubles_total else 0
        exponent = common + own + re
        exponents[seat] = exponent
        scores[seat] = sign * call_score * 2**exponent
    scores[landlord] = -sum(scores[seat] for seat in farmers)
    return ScoreSheet((scores[0], scores[1], scores[2]), common, exponents)
