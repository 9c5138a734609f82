"""Tournament formats: how long a table match runs, and who wins it.

Pure rules, no I/O: :class:`MatchLength` answers "does the match go on?" from the
rounds played so far (the ``goes_on`` of :func:`arena.table.match.play_match`), and
:func:`placings` orders a finished match's players. A side wins together: a round's
``winners`` holds every seat of the winning side (Dou Dizhu's two farmers), and each is
credited a round win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final, Protocol

from arena.table.records import RoundRecord
from protocol import Standing
from tournaments.forfeits import StandinRounds, scored_round

__all__ = [
    "QUICK_WINS",
    "Format",
    "LandlordPolicy",
    "MatchLength",
    "Outcome",
    "RoundOutcome",
    "placings",
    "round_wins",
]


class Format(StrEnum):
    """A table match's length and how its winner is decided (protocol §12.1)."""

    QUICK = "quick"
    """Best of 5: ends when a player has 3 round wins, or after 5 rounds."""
    STANDARD = "standard"
    """10 rounds, points decide."""
    CHAMPIONSHIP = "championship"
    """20 rounds, points decide."""
    DAILY = "daily"
    """Open-ended: rounds until the caller stops it (a day's session), resumable."""


class LandlordPolicy(StrEnum):
    """Who becomes landlord: by bidding, or each seat in turn (轮庄, protocol §12.3)."""

    BID = "bid"
    ROTATE = "rotate"


QUICK_WINS: Final = 3
"""Round wins that end a ``quick`` match."""

_ROUNDS: Final[Mapping[Format, int]] = {
    Format.QUICK: 5,
    Format.STANDARD: 10,
    Format.CHAMPIONSHIP: 20,
}


class Outcome(Protocol):
    """What the length rule reads of a round: the winning seats and each seat's score
    (:class:`arena.games.ddz.engine.Settlement` has both)."""

    @property
    def winners(self) -> tuple[int, ...]: ...

    @property
    def scores(self) -> tuple[int, ...]: ...


@dataclass(frozen=True, slots=True)
class RoundOutcome:
    """A round's winners and scores on their own (tests, stored results)."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]


def round_wins(outcomes: Sequence[Outcome]) -> tuple[int, ...]:
    """Round wins per seat (as many seats as the rounds' scores; none without a round):
    every seat of the winning side, per round."""
    tally = [0] * (len(outcomes[0].scores) if outcomes else 0)
    for outcome in outcomes:
        for seat in outcome.winners:
            tally[seat] += 1
    return tuple(tally)


@dataclass(frozen=True, slots=True)
class MatchLength:
    """When a table match ends, for a format.

    Build it with :meth:`of`. ``rounds`` is the most rounds the match may have in all
    (``play_match``'s ``rounds``; None: open-ended), ``wins_needed`` the round wins that
    end it early (``quick`` only), counted as the tournament counts them
    (``standin_rounds``: a forfeit is no win, :mod:`tournaments.forfeits`).
    """

    format: Format
    rounds: int | None
    wins_needed: int | None = None
    standin_rounds: StandinRounds = StandinRounds.COUNT

    @classmethod
    def of(
        cls,
        format: Format,
        *,
        session_rounds: int | None = None,
        played_before: int = 0,
        standin_rounds: StandinRounds = StandinRounds.COUNT,
    ) -> MatchLength:
        """The length of ``format``. ``daily`` never ends by itself: ``session_rounds``
        caps a day's session, counted after the ``played_before`` rounds of earlier
        days (a resumed daily match's ``done``); None leaves the caller to stop it.
        The other formats have a fixed length and take neither. ``standin_rounds``: how
        :meth:`goes_on_after` counts round wins (the tournament's setting)."""
        if format is Format.DAILY:
            if session_rounds is not None and session_rounds < 1:
                raise ValueError(f"a daily session needs at least 1 round, not {session_rounds}")
            if played_before < 0:
                raise ValueError(f"played_before must be >= 0, not {played_before}")
            cap = None if session_rounds is None else played_before + session_rounds
            return cls(format, cap, standin_rounds=standin_rounds)
        if session_rounds is not None or played_before:
            raise ValueError(f"only a daily match has sessions; {format} has a fixed length")
        wins = QUICK_WINS if format is Format.QUICK else None
        return cls(format, _ROUNDS[format], wins, standin_rounds)

    def goes_on(self, outcomes: Sequence[Outcome]) -> bool:
        """Whether another round is played after ``outcomes`` (all rounds so far)."""
        if self.rounds is not None and len(outcomes) >= self.rounds:
            return False
        return self.wins_needed is None or max(round_wins(outcomes), default=0) < self.wins_needed

    def goes_on_after(self, records: Sequence[RoundRecord]) -> bool:
        """:meth:`goes_on` for ``play_match``'s ``goes_on`` (it passes round records),
        each round counted by ``standin_rounds`` (only a best of five reads them)."""
        if self.wins_needed is None:
            return self.rounds is None or len(records) < self.rounds
        rule = self.standin_rounds
        return self.goes_on([scored_round(record, rule) for record in records])


def placings(
    format: Format,
    players: Sequence[str],
    totals: Mapping[str, int],
    rounds_won: Mapping[str, int],
) -> list[Standing]:
    """A finished match's players, best first: ``quick`` by round wins, then points;
    the others by points, then round wins. Players equal on both share a rank and keep
    their seat order (``players``)."""

    def key(player: str) -> tuple[int, int]:
        points, wins = totals.get(player, 0), rounds_won.get(player, 0)
        return (wins, points) if format is Format.QUICK else (points, wins)

    order = sorted(players, key=lambda p: tuple(-k for k in key(p)))
    result: list[Standing] = []
    for index, player in enumerate(order):
        previous = result[-1] if result else None
        shared = previous is not None and key(previous.player) == key(player)
        rank = previous.rank if previous is not None and shared else index + 1
        result.append(
            Standing(
                player=player,
                rank=rank,
                score=totals.get(player, 0),
                rounds_won=rounds_won.get(player, 0),
            )
        )
    return result
