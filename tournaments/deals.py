"""Which deal a stored table match plays: the seam duplicate mode and verification share.

A table match's round ``k`` is dealt from ``derive_seed(seed, deal_table, k)``. In plain
play ``deal_table`` is the table's own id (``s1t2``). In duplicate mode one table match
is played in several seatings (the same agents rotated through the seats), each
its own stored match with id ``<table>.<n>`` (``s1t2.1``, ``s1t2.2`` ...), and all of
them are dealt from the base id, so round ``k`` of every seating holds the same cards.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from enum import StrEnum
from math import factorial
from typing import Final

__all__ = [
    "MOST_SEATINGS",
    "Duplicate",
    "deal_table",
    "seating_count",
    "seating_table_id",
    "seating_tables",
    "seatings",
]

_SEATING_MARK = "."
MOST_SEATINGS: Final = 24
"""The most seatings a deal may be played in: ``all`` of a table of four seats (24
orders); a bigger table plays ``rotations`` (the config says so)."""


def seating_table_id(table_id: str, seating: int) -> str:
    """The id of ``table_id``'s seating ``seating`` (from 1) in duplicate mode."""
    if seating < 1:
        raise ValueError(f"seatings count from 1, not {seating}")
    return f"{table_id}{_SEATING_MARK}{seating}"


def deal_table(table_id: str) -> str:
    """The id a table's deals derive from: the base table of a duplicate seating, else
    the table itself."""
    return table_id.partition(_SEATING_MARK)[0]


class Duplicate(StrEnum):
    """``[tournament] duplicate``: how many seatings play each table match's deals."""

    OFF = "off"
    """Plain play: one seating, its own deals."""
    ROTATIONS = "rotations"
    """One seating per seat: the cyclic rotations of the players through the seats
    (3 for Dou Dizhu). A rotation keeps who sits next to whom, so partners by seat
    parity (Tractor's teams) stay partners."""
    ALL = "all"
    """Every order of the players in the seats (6 for three seats, 24 for four)."""


def seatings(players: Sequence[str], mode: Duplicate) -> list[tuple[str, ...]]:
    """The players' order at each seating of a table match, seating 1 first (the
    table's own order): with ``rotations`` each player sits once in each seat; with
    ``all`` every order, the rotations of each circular order in turn (the table's
    first, then the others with its first player first, in
    :func:`itertools.permutations`' order of the rest): for three seats the rotations,
    then those of the reversed circle."""
    if len(players) < 2:
        raise ValueError(f"a table seats two players or more, not {list(players)}")
    if len(set(players)) != len(players):
        raise ValueError(f"a table seats distinct players, not {list(players)}")
    if mode is Duplicate.OFF:
        return [tuple(players)]
    if mode is Duplicate.ROTATIONS:
        return _rotations(tuple(players))
    first, rest = players[0], players[1:]
    return [
        seated for others in itertools.permutations(rest) for seated in _rotations((first, *others))
    ]


def _rotations(circle: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The circle's cyclic rotations, itself first: each player once in each seat."""
    return [circle[i:] + circle[:i] for i in range(len(circle))]


def seating_tables(
    table_id: str, players: Sequence[str], mode: Duplicate
) -> list[tuple[str, tuple[str, ...]]]:
    """Each stored table match a scheduled table is played as, with its players in
    their seats: the table itself in plain play, else each seating (``s1t2.1`` ...)."""
    if mode is Duplicate.OFF:
        return [(table_id, seatings(players, mode)[0])]
    return [
        (seating_table_id(table_id, number), order)
        for number, order in enumerate(seatings(players, mode), 1)
    ]


def seating_count(mode: Duplicate, seats: int) -> int:
    """How many seatings play each deal at a table of ``seats``: 1, ``seats``
    (rotations) or ``seats!`` (all)."""
    if mode is Duplicate.OFF:
        return 1
    return seats if mode is Duplicate.ROTATIONS else factorial(seats)
