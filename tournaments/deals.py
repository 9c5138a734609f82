"""Which deal a stored table match plays: the seam duplicate mode and verification share.

A table match's round ``k`` is dealt from ``derive_seed(seed, deal_table, k)``. In plain
play ``deal_table`` is the table's own id (``s1t2``). In duplicate mode one table match
is played in several seatings (the same three agents rotated through the seats), each
its own stored match with id ``<table>.<n>`` (``s1t2.1``, ``s1t2.2`` ...), and all of
them are dealt from the base id, so round ``k`` of every seating holds the same cards.
"""

from __future__ import annotations

__all__ = ["deal_table", "seating_table_id"]

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
