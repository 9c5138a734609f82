"""A finished Tractor round as the arena keeps it: the engine's score, each seat's score
change, the winners, and whether the match is over.

A seat's score is the levels its team went up this round: +delta for each seat of the
team that went up, −delta for each of the other (every round zero-sum, as a
leaderboard expects). The match's own end (a team reaching A, or the round limit) is
carried here so that :attr:`arena.games.base.Game.match_over` can read it from the
records alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena.games.base import Sides
from arena.games.tractor.engine import RoundScore, card_id, card_text, team_of

__all__ = ["TractorResult", "match_over", "result_from_dict", "sides"]


@dataclass(frozen=True, slots=True)
class TractorResult:
    """A round's result (see the module)."""

    score: RoundScore
    players: int
    kitty: tuple[int, ...]
    """The buried cards, shown to all at the round's end."""
    match_over: bool = False
    winner_team: int | None = None
    """The match's winning team once over (None: not over, or a draw at the limit)."""

    @property
    def scores(self) -> tuple[int, ...]:
        """Each seat's score change: +delta for the team that went up, −delta else."""
        up, delta = self.score.up_team, self.score.delta
        return tuple(delta if team_of(s) == up else -delta for s in range(self.players))

    @property
    def winners(self) -> tuple[int, ...]:
        """The seats of the team that went up."""
        return tuple(s for s in range(self.players) if team_of(s) == self.score.up_team)

    @property
    def winner_seat(self) -> int:
        """A seat of the winning side, for events that name one: the next banker."""
        return self.score.next_banker

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as replays, stores and round summaries keep it."""
        s = self.score
        return {
            "banker": s.banker,
            "trick_points": s.trick_points,
            "kitty": [card_text(c) for c in self.kitty],
            "kitty_points": s.kitty_points,
            "multiplier": s.multiplier,
            "defender_points": s.defender_points,
            "last_trick_winner": s.last_winner,
            "up_team": s.up_team,
            "delta": s.delta,
            "levels_before": list(s.levels_before),
            "levels_after": list(s.levels_after),
            "next_banker": s.next_banker,
            "scores": list(self.scores),
            "winners": list(self.winners),
            "match_over": self.match_over,
            "winner_team": self.winner_team,
        }


def result_from_dict(data: Mapping[str, Any]) -> TractorResult:
    """A stored result read back (:meth:`TractorResult.to_dict`)."""
    levels_before = tuple(data["levels_before"])
    levels_after = tuple(data["levels_after"])
    score = RoundScore(
        banker=int(data["banker"]),
        trick_points=int(data["trick_points"]),
        kitty_points=int(data["kitty_points"]),
        multiplier=int(data["multiplier"]),
        defender_points=int(data["defender_points"]),
        last_winner=int(data["last_trick_winner"]),
        up_team=int(data["up_team"]),
        delta=int(data["delta"]),
        levels_before=(int(levels_before[0]), int(levels_before[1])),
        levels_after=(int(levels_after[0]), int(levels_after[1])),
        next_banker=int(data["next_banker"]),
    )
    return TractorResult(
        score=score,
        players=len(data["scores"]),
        kitty=tuple(card_id(c) for c in data["kitty"]),
        match_over=bool(data.get("match_over", False)),
        winner_team=data.get("winner_team"),
    )


def sides(result: TractorResult) -> Sides:
    """The two teams, the one that went up first."""
    up = result.score.up_team
    seats = range(result.players)
    winning = tuple(s for s in seats if team_of(s) == up)
    losing = tuple(s for s in seats if team_of(s) != up)
    return (winning, losing)


def match_over(records: Sequence[Any]) -> bool:
    """Whether the last round ended the match (a team reached A, or the round limit)."""
    return bool(records) and bool(records[-1].result.match_over)
