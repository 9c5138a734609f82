"""A round's score and what follows from it (§11, §12): the defenders' points, the kill,
level changes, the next banker, and whether the match is over.

Points (5, 10, K = 10) count only in tricks the defenders win. The defenders winning the
last trick kill (抠底): the kitty's points × 2, or × 4 when that trick's lead (after any
punishment) was a pair or a tractor. Then the defenders' total decides: ≥ 160 → they go
up 3, ≥ 120 → 2, ≥ 80 → 1, and they become the bankers; below 80 the bankers go up 1 and
the banker stays. A new banker is the last trick's winner when a defender, otherwise the
defender seated next after the banker. Levels stop at A (14).
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.games.tractor.engine.cards import RANK_ACE
from arena.games.tractor.engine.patterns import Kind
from arena.games.tractor.engine.rules import TractorRules

__all__ = ["RoundScore", "level_gain", "match_winner", "settle", "team_of"]

THRESHOLDS = ((160, 3), (120, 2), (80, 1))
"""The defenders' points that raise them, and by how much (§12)."""


def team_of(seat: int) -> int:
    """A seat's team: 0 for even seats, 1 for odd (§1)."""
    return seat % 2


def level_gain(defender_points: int) -> int:
    """How many levels the defenders go up with these points (0: the bankers hold)."""
    for floor, gain in THRESHOLDS:
        if defender_points >= floor:
            return gain
    return 0


@dataclass(frozen=True, slots=True)
class RoundScore:
    """How a round ended and what it changed."""

    banker: int
    trick_points: int
    """The points in the tricks the defenders won."""
    kitty_points: int
    multiplier: int
    """The kill's multiplier: 0 (no kill: the bankers took the last trick), 2 or 4."""
    defender_points: int
    """Trick points plus the kill (kitty points × multiplier)."""
    last_winner: int
    up_team: int
    """The team that went up."""
    delta: int
    """The levels it went up (1..3; less if it reached A)."""
    levels_before: tuple[int, int]
    levels_after: tuple[int, int]
    next_banker: int

    @property
    def defenders_won(self) -> bool:
        """Whether the defenders reached 80 and take the bank."""
        return self.up_team != team_of(self.banker)


def settle(
    *,
    players: int,
    banker: int,
    levels: tuple[int, int],
    trick_points: int,
    kitty_points: int,
    last_winner: int,
    last_lead: Kind,
) -> RoundScore:
    """The score of a finished round (see the module)."""
    banker_team = team_of(banker)
    killed = team_of(last_winner) != banker_team
    multiplier = (4 if last_lead in (Kind.PAIR, Kind.TRACTOR) else 2) if killed else 0
    defender_points = trick_points + kitty_points * multiplier
    gain = level_gain(defender_points)
    if gain:
        up_team = 1 - banker_team
        next_banker = last_winner if killed else (banker + 1) % players
    else:
        up_team, gain, next_banker = banker_team, 1, banker
    after = list(levels)
    after[up_team] = min(RANK_ACE, levels[up_team] + gain)
    return RoundScore(
        banker=banker,
        trick_points=trick_points,
        kitty_points=kitty_points,
        multiplier=multiplier,
        defender_points=defender_points,
        last_winner=last_winner,
        up_team=up_team,
        delta=after[up_team] - levels[up_team],
        levels_before=levels,
        levels_after=(after[0], after[1]),
        next_banker=next_banker,
    )


def match_winner(score: RoundScore, rules: TractorRules) -> int | None:
    """The team that won the match with this round, or None if it goes on.

    By default a team reaching A wins (§3). Under ``play_through`` a team at A must
    still win a round as bankers at A.
    """
    if rules.play_through:
        banker_team = team_of(score.banker)
        held = score.up_team == banker_team
        return banker_team if held and score.levels_before[banker_team] == RANK_ACE else None
    for team in (0, 1):
        if score.levels_after[team] == RANK_ACE:
            return team
    return None
