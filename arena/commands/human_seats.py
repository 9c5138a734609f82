"""Refusing a human seat without a terminal, before ``arena play`` or ``arena agent
check`` starts: a human seat reads its moves from stdin."""

from __future__ import annotations

import sys
from collections.abc import Iterable

from arena.commands.usage import UsageError
from arena.config import SeatConfig

__all__ = ["check_terminal_for_humans"]


def check_terminal_for_humans(seats: Iterable[tuple[int, SeatConfig]], source: str) -> None:
    """A human seat reads moves from the terminal: without one, every question would
    fail until a stand-in took the seat (or every position of ``agent check`` would), so
    refuse before the match or the check instead."""
    stdin = sys.stdin
    if stdin is not None and stdin.isatty():
        return
    for index, seat in seats:
        if seat.type == "human":
            raise UsageError(
                f"{source}: seats.{index} (seat {seat.name!r}): a human seat needs a terminal "
                "(stdin is not a TTY)"
            )
