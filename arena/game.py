"""The game-neutral shape of a round, kept for a second game (升级/拖拉机) to plug in later.

Today the table works with Dou Dizhu's :class:`~arena.engine.Round` directly; nothing in
the arena is typed against :class:`GameRound`. It records the part of a round that is not
specific to Dou Dizhu (whose turn it is, which phase, the record of what happened, the
result), which a second game's round must offer before the table can drive it, and a test
holds Dou Dizhu's round to it. Everything game-specific (which requests a phase asks, how
a reply becomes an action, what a seat may see) stays in the game's own engine package and
seat views, as Dou Dizhu's does in ``arena.engine`` and ``arena.table.views``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

__all__ = ["GameRound"]


@runtime_checkable
class GameRound(Protocol):
    """A round of some card game as the table sees it."""

    @property
    def phase(self) -> Any:
        """The current phase (an enum of the game's own phases)."""
        ...

    @property
    def to_act(self) -> int | None:
        """The seat whose decision is awaited; None when the round is over."""
        ...

    @property
    def history(self) -> Sequence[Any]:
        """Every record of the round so far, in order (hidden information included)."""
        ...

    @property
    def result(self) -> Any | None:
        """The settled result once the round is over (with ``scores`` and ``to_dict()``)."""
        ...
