"""A recorded round as read back from a replay, and the errors of checking one.

What every game's replay check shares: the round's lines (:class:`RecordedRound`, which
:mod:`arena.replay` reads), and the errors a check raises (:class:`RoundMismatch` for a
round that disagrees with itself or with the engine, :class:`RoundIncomplete` for one
the replay ends inside). The check itself is the game's (``Game.replay_check``; Dou
Dizhu's is :mod:`arena.games.ddz.replay_check`); :func:`arena.replay.verify_round` picks
it by the game the round's header names.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.errors import ArenaError

__all__ = ["RecordedRound", "ReplayError", "RoundIncomplete", "RoundMismatch"]


class ReplayError(ArenaError, ValueError):
    """A replay file that cannot be read, or a recorded round that fails its check."""


class RoundMismatch(ReplayError):
    """A recorded round that disagrees with itself or with the engine; says where and how."""

    def __init__(self, table: str, round_no: int, detail: str) -> None:
        super().__init__(f"table {table} round {round_no}: {detail}")
        self.table = table
        self.round = round_no
        self.detail = detail


class RoundIncomplete(ReplayError):
    """A round the replay ends inside: what is there checks, but it cannot be verified."""

    def __init__(self, table: str, round_no: int, detail: str) -> None:
        super().__init__(f"table {table} round {round_no}: incomplete: {detail}")
        self.table = table
        self.round = round_no
        self.detail = detail


@dataclass
class RecordedRound:
    """One round as read back from a replay file."""

    table: str
    round: int
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    """A model seat's attempts (``decision`` lines: prompt, raw reply, reasoning, usage),
    in file order. The engine check passes over them: they are what a model said, not
    what the table did."""
    summary: dict[str, Any] | None = None
    lines: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """Every line of the round after its round_start, with its line number, in file order."""
    seq_before: int = 0
    """The table's last event number before this round (the numbers only increase)."""
    cut_off: str | None = None
    """Where the replay ends, when it ends inside this round (for example "at line 412")."""
