"""Games of four and six seats for tournament tests: only what a tournament reads of a
game (its seats, a finished round's sides, its stored result read back), registered as
a plugin would be; none of Dou Dizhu's leaderboard figures, stakes or stored checks.

A round of these games is a :class:`TeamResult`: each seat's score and the seats that
won. Its sides are two teams by seat parity (seats 0, 2, ... against 1, 3, ...), the
winning team first, as Tractor's are.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

import pytest

from arena.games import registry
from arena.games.base import Game, GameRules, Sides
from arena.games.registry import get_game
from arena.table.records import RoundRecord

__all__ = ["FOUR", "SIX", "TeamResult", "registered", "team_record"]


@dataclass(frozen=True, slots=True)
class TeamResult:
    """A finished round of a team game: what the leaderboard reads of a result."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def to_dict(self) -> dict[str, Any]:
        """As a tournament's store keeps it."""
        return {"scores": list(self.scores), "winners": list(self.winners)}


def _stored_result(data: Mapping[str, Any]) -> TeamResult:
    """A stored round's result read back."""
    return TeamResult(tuple(data["scores"]), tuple(data["winners"]))


def _teams(result: TeamResult) -> Sides:
    """Two teams by seat parity, the winning one first."""
    seats = range(len(result.scores))
    even = tuple(seat for seat in seats if seat % 2 == 0)
    odd = tuple(seat for seat in seats if seat % 2 == 1)
    return (even, odd) if result.winners[0] % 2 == 0 else (odd, even)


def _never_played(game: Game, table: Any, rules: Any, listing: Sequence[bool]) -> Any:
    raise NotImplementedError("a tournament test's game is never played at a table")


def _game(name: str, seats: int) -> Game:
    """Dou Dizhu's descriptor with another name, table and sides (whatever else a game
    must give, a tournament test never reads: its game is never played)."""
    return dataclasses.replace(
        get_game("ddz"),
        name=name,
        title=f"{seats} seats",
        rules=GameRules,
        seats=lambda rules: seats,
        default_seats=(("North", "random"), ("East", "random")),
        requests={},
        gift_effects=frozenset(),
        sides=_teams,
        turns=_never_played,
        stored_result=_stored_result,
        leaderboard_stats=None,  # none of Dou Dizhu's figures
        forfeit_stake=None,  # a forfeit's stakes unknown: its tournaments count rounds
        result_check=None,
        duplicate_rules=None,  # no redeals to forbid
        gifts=None,
        round_plan=lambda round_no, rules, options: {},
        migrate_config=None,
        wire=None,
    )


FOUR: Final = _game("four", 4)
SIX: Final = _game("six", 6)


def _deals_each_seating_anew(rules: GameRules) -> GameRules:
    raise ValueError("this game deals each seating anew")


FUSSY: Final = dataclasses.replace(_game("fussy", 4), duplicate_rules=_deals_each_seating_anew)
"""Four seats whose rules no duplicate deal can fit."""


@contextmanager
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fake games found by name (``game = "four"``), as a plugin's would be."""
    plugins = {
        **registry._plugins(),
        "four": f"{__name__}:FOUR",
        "six": f"{__name__}:SIX",
        "fussy": f"{__name__}:FUSSY",
    }
    with plugged_in(monkeypatch, plugins):
        yield


@contextmanager
def plugged_in(monkeypatch: pytest.MonkeyPatch, plugins: dict[str, str]) -> Iterator[None]:
    """``plugins`` (name: ``module:GAME``) as the registry's entry points, and nothing
    of them left after: the registry caches the games it loaded by name, so a game of
    one test's is never another test's game of the same name."""
    monkeypatch.setattr(registry, "_plugins", lambda: plugins)
    registry.get_game.cache_clear()
    try:
        yield
    finally:
        registry.get_game.cache_clear()


def team_record(
    table: str, round_no: int, players: Sequence[str], won_by_even: bool, stake: int = 2
) -> RoundRecord:
    """A round of a team game: the even seats' team won (or the odd's) ``stake`` each."""
    seats = len(players)
    winners = tuple(s for s in range(seats) if (s % 2 == 0) == won_by_even)
    scores = tuple(stake if s in winners else -stake for s in range(seats))
    result = TeamResult(scores, winners)
    return RoundRecord(
        table=table,
        round_no=round_no,
        seed=round_no,
        players=tuple(players),
        result=result,
        faults=tuple({} for _ in range(seats)),
        standins=(),
        stats=tuple({} for _ in range(seats)),
    )
