"""Forfeits: a round a seat did not play itself counts as a loss for that seat.

The table keeps a failing agent's seat going: after too many failed decisions a
scripted stand-in plays it, and each failed decision is made by a fallback (the
smallest move, a pass, no bid). In a tournament that used to credit the agent with
whatever the stand-in and the fallbacks earned, so an agent that crashed on every
message could top the leaderboard. Now (``[tournament] standin_rounds = "forfeit"``,
the default) a round is the agent's own only when its own agent made at least half of
the seat's decisions in it; otherwise it is a **forfeit** for that seat, said by what
made most of the rest:

- ``standin``: the stand-in made most of them (it took the seat during this round, or
  holds it for the match);
- ``fallback``: the table's fallback moves did (the agent failed decision after
  decision without being replaced).

The figures come from the round's record, each seat's ``stats``
(:mod:`arena.table.stats`): ``legal_first_try`` and ``legal_after_retry`` are the own
agent's decisions, ``fell_back`` those the table made for it, ``standin_decisions``
the stand-in's. A record without figures (one built by hand) falls back to its
``standins``: a seat a stand-in held at the round's end forfeited it.

Which seat forfeits is every game's (the figures are the table's). What a forfeit
loses is the game's: **the round's stakes** (:attr:`arena.games.base.Game.forfeit_stake`,
the most any seat can lose in the round; Dou Dizhu's in :mod:`arena.games.ddz.stakes`),
or the seat's own result if that is worse, so a forfeiting seat never scores above
another seat at its table in that round. A tournament of a game whose stakes are not
known counts its rounds (``count``; the config says so). A forfeit is never a round
win. The other seats keep their results: the round's points no longer sum to zero.
``standin_rounds = "count"`` credits every round as the table scored it (casual play).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal, TypeAlias

from arena.games.base import Game
from arena.games.registry import DEFAULT_GAME, get_game
from arena.table.records import RoundRecord

__all__ = [
    "FORFEIT_REASONS",
    "ForfeitReason",
    "ScoredRound",
    "StandinRounds",
    "forfeit_reason",
    "forfeits_known",
    "scored_round",
    "stored_standin_rounds",
]

ForfeitReason: TypeAlias = Literal["standin", "fallback"]
"""What made most of the decisions of a seat that did not play its round itself."""
FORFEIT_REASONS: Final[tuple[ForfeitReason, ...]] = ("standin", "fallback")


class StandinRounds(StrEnum):
    """How a tournament counts a round a seat did not play itself (see the module)."""

    FORFEIT = "forfeit"
    """A loss at the round's stakes for that seat, never a win (the default)."""
    COUNT = "count"
    """As the table scored it: the stand-in's and the fallbacks' points are the agent's."""


def forfeit_reason(record: RoundRecord, seat: int) -> ForfeitReason | None:
    """Why the seat did not play the round itself, None when it did: its own agent made
    at least half of its decisions (a seat asked nothing played it)."""
    stats: dict[str, Any] = record.stats[seat]
    if "decisions" not in stats:  # no figures: the stand-ins at the round's end
        return "standin" if seat in record.standins else None
    own = stats.get("legal_first_try", 0) + stats.get("legal_after_retry", 0)
    fell_back = stats.get("fell_back", 0)
    standin = stats.get("standin_decisions", 0)
    if fell_back + standin <= own:
        return None
    return "standin" if standin >= fell_back else "fallback"


def forfeits_known(game: Game) -> bool:
    """Whether a forfeit of ``game`` can be scored: the game knows its rounds' stakes."""
    return game.forfeit_stake is not None


def _forfeit_stake(game: Game, result: Any) -> int:
    """What a forfeit loses: the round's stakes as the game tells them; a game that
    does not tell them has its tournament count its rounds instead."""
    if game.forfeit_stake is None:
        raise ValueError(
            f"a forfeit in {game.title} has no known stakes: its tournament counts every "
            'round (standin_rounds = "count")'
        )
    return game.forfeit_stake(result)


@dataclass(frozen=True, slots=True)
class ScoredRound:
    """What a round counts for in the tournament: each seat's points, the seats credited
    a round win, and each seat's forfeit (None: it played the round itself). It has a
    round's ``winners`` and ``scores``, so the format's length rule reads it too."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]
    forfeits: tuple[ForfeitReason | None, ...]

    @property
    def forfeited(self) -> tuple[int, ...]:
        """The seats that forfeited the round."""
        return tuple(seat for seat, reason in enumerate(self.forfeits) if reason is not None)


def scored_round(record: RoundRecord, rule: StandinRounds, game: Game | None = None) -> ScoredRound:
    """The round as the tournament counts it under ``rule`` (see the module); ``game``
    says what a forfeit loses (the default game when None)."""
    result = record.result
    nobody: tuple[None, ...] = (None,) * len(record.players)
    if rule == StandinRounds.COUNT:
        return ScoredRound(result.scores, result.winners, nobody)
    forfeits = tuple(forfeit_reason(record, seat) for seat in range(len(record.players)))
    if forfeits == nobody:
        return ScoredRound(result.scores, result.winners, nobody)
    lost = -_forfeit_stake(game or get_game(DEFAULT_GAME), result)
    scores = tuple(
        result.scores[seat] if reason is None else min(result.scores[seat], lost)
        for seat, reason in enumerate(forfeits)
    )
    winners = tuple(seat for seat in result.winners if forfeits[seat] is None)
    return ScoredRound(scores, winners, forfeits)


def stored_standin_rounds(config: Mapping[str, Any]) -> StandinRounds:
    """The rule a stored tournament's config counts by: its own, or ``count`` for one
    stored before the setting existed, which was played so: its standings, its best of
    five's length and ``verify`` stay what they were."""
    given = config.get("tournament", {})
    return StandinRounds(given.get("standin_rounds", StandinRounds.COUNT.value))
