"""The narrow shape of a game round, so that a second game (升级/拖拉机) can plug in.

The table drives a round through this shape only where it is game-neutral: whose turn it
is, which phase, the public record of what happened, and the result. Everything
game-specific (which requests a phase asks, how a reply becomes an action, what a seat may
see) lives in the game's own engine package and its seat views, as Dou Dizhu's does in
``arena.engine`` and ``arena.table.views``.
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
