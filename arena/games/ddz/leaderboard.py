"""Dou Dizhu's own figures on a tournament's leaderboard (an
:class:`arena.games.base.LeaderboardStats`), between ``round_wins`` and ``faults``:

- ``landlord_rounds`` and ``landlord_wins``: rounds the agent was the landlord, and won;
- ``farmer_rounds`` and ``farmer_wins``: rounds it was a farmer, and its side won;
- ``springs``: rounds it won by a spring (as landlord) or a reverse spring (as a farmer);
- ``bombs_played``: the bombs and rockets it played itself (not its partner's or
  opponent's), its seat's entry in the round's ``bombs_by_seat``. A round stored before
  that count existed reads back as none by seat, so it adds no bombs to anyone.

A win is the tournament's (a forfeited round is no win, ``tournaments.forfeits``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from arena.games.ddz.engine.records import Settlement

__all__ = ["STATS", "DdzLeaderboardStats"]


class DdzLeaderboardStats:
    """Landlord and farmer rounds and wins, springs and bombs (see the module)."""

    keys: Final = (
        "landlord_rounds",
        "landlord_wins",
        "farmer_rounds",
        "farmer_wins",
        "springs",
        "bombs_played",
    )
    headers: Final = ("Landlord", "Farmer", "Springs", "Bombs")

    def count(self, result: Settlement, seat: int, won: bool) -> Mapping[str, int]:
        """What the round adds to the agent in ``seat`` (``won``: the tournament's win)."""
        landlord = seat == result.landlord
        return {
            "landlord_rounds": landlord,
            "landlord_wins": landlord and won,
            "farmer_rounds": not landlord,
            "farmer_wins": not landlord and won,
            "springs": won and result.spring is not None,
            "bombs_played": result.bombs_by_seat[seat],
        }

    def cells(self, counts: Mapping[str, int]) -> tuple[str, ...]:
        """Wins out of rounds as landlord and as farmer, springs, bombs."""
        return (
            f"{counts['landlord_wins']}/{counts['landlord_rounds']}",
            f"{counts['farmer_wins']}/{counts['farmer_rounds']}",
            str(counts["springs"]),
            str(counts["bombs_played"]),
        )


STATS: Final = DdzLeaderboardStats()
