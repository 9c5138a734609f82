"""What ``show`` checks of a stored tournament before it prints its leaderboard.

A store is a file anyone with access can edit. ``arena tournament verify`` is the full
check (every move replayed through the rules, every deal against its committed seed),
but it reads every line of every round; ``show`` and ``export`` read only the rounds'
records, and check what those records can say of themselves, cheaply:

- the scores keyed by player are the scores by seat (every game's);
- whatever the game checks of its own result (:attr:`arena.games.base.Game.result_check`:
  Dou Dizhu's settlement, sides, springs and bombs, in
  :mod:`arena.games.ddz.stored_check`). A game without such a check has its results
  checked by ``verify`` alone.

An edit that changes all of these together (a whole result rewritten consistently) is
not seen here: that is ``verify``'s work, and ``show`` says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from arena.games.base import Game, GameRules
from arena.table.records import RoundRecord

__all__ = ["result_problems"]


def result_problems(
    rounds: Iterable[tuple[Mapping[str, Any], RoundRecord]], game: Game, rules: GameRules
) -> list[str]:
    """Every stored round of ``game`` whose result disagrees with itself: ``table s1t1
    round 3: what differs``, in the order given (each stored round with its record,
    ``rules`` the tournament's)."""
    problems: list[str] = []
    for stored, record in rounds:
        problems.extend(
            f"table {record.table} round {record.round_no}: {problem}"
            for problem in _problems(stored, record, game, rules)
        )
    return problems


def _problems(
    stored: Mapping[str, Any], record: RoundRecord, game: Game, rules: GameRules
) -> Iterator[str]:
    scores = record.result.scores
    by_player = stored.get("scores")
    if by_player != dict(zip(record.players, scores, strict=True)):
        yield f"its scores by player {by_player} are not its scores by seat {list(scores)}"
    if game.result_check is not None:
        yield from game.result_check(stored, record, rules)
