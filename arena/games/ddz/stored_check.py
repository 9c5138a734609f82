"""What a stored Dou Dizhu round's result says against itself (``arena tournament
show``), read from the result alone, cheaply (``verify`` replays every move):

- the scores follow from the settlement facts stored beside them (landlord, call score,
  who won, bombs, rockets, spring, grabs, doubles), through the rules' own scoring
  (:func:`arena.games.ddz.engine.scoring.settle`), and so do the farmers' exponents;
- the winning side is the winner's: the landlord won exactly when the seat that went
  out first is the landlord, that seat's final hand is empty (and no other is), and
  the round's ``winners`` are that side's seats;
- a spring is one by the plays counted (the landlord's win with no farmer's play; a
  reverse spring needs the landlord's single play);
- bombs and rockets by seat add up to the round's.

The tournament's own part (scores by player against scores by seat, the sentences'
table and round) is ``tournaments.stored_check``'s.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from arena.games.base import GameRules
from arena.games.ddz.engine import Rules
from arena.games.ddz.engine.scoring import settle
from arena.table.records import RoundRecord

__all__ = ["result_problems"]


def result_problems(
    stored: Mapping[str, Any], record: RoundRecord, rules: GameRules
) -> Iterator[str]:
    """What the stored round's result says against itself (see the module), each a
    sentence; ``stored`` the round as stored (unused: the record holds its result)."""
    result = record.result
    landlord = result.landlord
    farmers = [seat for seat in range(3) if seat != landlord]
    sheet = settle(
        Rules.of(rules),
        landlord=landlord,
        call_score=result.call_score,
        landlord_won=result.landlord_won,
        bombs=result.bombs,
        rockets=result.rockets,
        spring=result.spring is not None,
        grabs=result.grabs,
        gift_doubles=result.gift_doubles,
        doubled=result.doubled,
        redoubled=result.redoubled,
    )
    if tuple(result.scores) != sheet.scores:
        yield (
            f"its stored scores {list(result.scores)} are not what its stored settlement "
            f"gives, {list(sheet.scores)} (landlord seat {landlord}, call "
            f"{result.call_score}, landlord {'won' if result.landlord_won else 'lost'})"
        )
    elif dict(result.exponents) != dict(sheet.exponents):
        yield (
            f"its stored exponents {dict(result.exponents)} are not its settlement's "
            f"{dict(sheet.exponents)}"
        )
    yield from _winner_problems(record, farmers)
    if sum(result.bombs_by_seat) not in (0, result.bombs + result.rockets):  # 0: before issue 12
        yield (
            f"its bombs by seat {list(result.bombs_by_seat)} do not add up to its "
            f"{result.bombs} bomb(s) and {result.rockets} rocket(s)"
        )


def _winner_problems(record: RoundRecord, farmers: list[int]) -> Iterator[str]:
    result = record.result
    landlord, winner = result.landlord, result.winner_seat
    if not 0 <= winner <= 2:
        yield f"its winner seat {winner} is no seat"
        return
    if result.landlord_won != (winner == landlord):
        role = "the landlord" if winner == landlord else "a farmer"
        yield (
            f"it says the landlord {'won' if result.landlord_won else 'lost'}, but seat "
            f"{winner}, {role}, went out first"
        )
    emptied = [seat for seat in range(3) if not result.final_hands[seat]]
    if emptied != [winner]:
        yield f"its winner is seat {winner}, but the seats left without cards are {emptied}"
    side = [landlord] if result.landlord_won else farmers
    if sorted(result.winners) != side:
        yield f"its winners {list(result.winners)} are not the winning side's seats {side}"
    plays = result.plays_by_seat
    spring = result.landlord_won and all(plays[f] == 0 for f in farmers)
    if (result.spring == "spring") != spring:
        yield f"it says {result.spring or 'no spring'}, but its plays by seat {list(plays)} do not"
    if result.spring == "reverse_spring" and (result.landlord_won or plays[landlord] != 1):
        yield f"it says reverse_spring, but its plays by seat {list(plays)} do not"
