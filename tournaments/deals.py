"""Which deal a stored table match plays: the seam duplicate mode and verification share.

A table match's round ``k`` is dealt from ``derive_seed(seed, deal_table, k)``. In plain
play ``deal_table`` is the table's own id (``s1t2``). In duplicate mode one table match
is played in several seatings (the same three agents rotated through the seats), each
its own stored match with id ``<table>.<n>`` (``s1t2.1``, ``s1t2.2`` ...), and all of
them are dealt from the base id, so round ``k`` of every seating holds the same cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

__all__ = [
    "Duplicate",
    "deal_table",
    "seating_count",
    "seating_table_id",
    "seating_tables",
    "seatings",
]

_SEATING_MARK = "."


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
    """3 seatings: the three cyclic rotations of the players through the seats."""
    ALL = "all"
    """6 seatings: every order of the players in the seats."""


def seatings(players: Sequence[str], mode: Duplicate) -> list[tuple[str, str, str]]:
    """The players' order at each seating of a table match, seating 1 first (the
    table's own order): with ``rotations`` each player sits once in each seat; with
    ``all`` each also has each other player once on either side."""
    if len(players) != 3:
        raise ValueError(f"a table seats 3 players, not {list(players)}")
    a, b, c = players
    rotations = [(a, b, c), (b, c, a), (c, a, b)]
    if mode is Duplicate.OFF:
        return rotations[:1]
    if mode is Duplicate.ROTATIONS:
        return rotations
    return [*rotations, (a, c, b), (c, b, a), (b, a, c)]


def seating_tables(
    table_id: str, players: Sequence[str], mode: Duplicate
) -> list[tuple[str, tuple[str, str, str]]]:
    """Each stored table match a scheduled table is played as, with its players in
    their seats: the table itself in plain play, else each seating (``s1t2.1`` ...)."""
    if mode is Duplicate.OFF:
        return [(table_id, seatings(players, mode)[0])]
    return [
        (seating_table_id(table_id, number), order)
        for number, order in enumerate(seatings(players, mode), 1)
    ]


def seating_count(mode: Duplicate) -> int:
    """How many seatings play each deal: 1, 3 or 6."""
    return {Duplicate.OFF: 1, Duplicate.ROTATIONS: 3, Duplicate.ALL: 6}[mode]
