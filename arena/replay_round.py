"""A recorded round as read back from a replay, and the errors of checking one.

What every game's replay check shares: the round's lines (:class:`RecordedRound`, which
:mod:`arena.replay` reads), and the errors a check raises (:class:`RoundMismatch` for a
round that disagrees with itself or with the engine, :class:`RoundIncomplete` for one
the replay ends inside). The check itself is the game's (``Game.replay_check``; Dou
Dizhu's is :mod:`arena.games.ddz.replay_check`); :func:`arena.replay.verify_round` picks
it by the game the round's header names, and walks it with :func:`walk_round`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from arena.errors import ArenaError

__all__ = [
    "Mismatch",
    "RecordedRound",
    "ReplayError",
    "RoundIncomplete",
    "RoundMismatch",
    "RoundWalk",
    "walk_round",
]


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


T = TypeVar("T")


class Mismatch(Exception):
    """What a recorded round says against the engine, said for a person: raised inside
    a game's walk (its line added as it goes up), it leaves :func:`walk_round` as
    :class:`RoundMismatch` with the table and round."""


class RoundWalk(Protocol[T]):
    """A game's walk through one recorded round beside a fresh engine (its replay
    check): :meth:`run` checks every line, :meth:`finish` what only the round's end can
    say; ``line`` is the line it is at, ``rnd`` the engine round it plays."""

    line: int
    rnd: T

    def run(self) -> None: ...

    def finish(self) -> None: ...


def walk_round(recorded: RecordedRound, walk: Callable[[RecordedRound], RoundWalk[T]]) -> T:
    """Walk ``recorded`` with a game's check and return its finished engine round.

    A :class:`Mismatch` the walk raises becomes :class:`RoundMismatch`; a line of the
    right kind but the wrong shape (an edit, another program's file) is a RoundMismatch
    too, naming its line. A round the replay
    ends inside whose lines all check is :class:`RoundIncomplete`.
    """
    check: RoundWalk[T] | None = None
    try:
        check = walk(recorded)
        check.run()
        if recorded.cut_off is None:
            check.finish()
    except Mismatch as exc:
        raise RoundMismatch(recorded.table, recorded.round, str(exc)) from exc
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        line = check.line if check is not None else 0
        raise RoundMismatch(recorded.table, recorded.round, _malformed(exc, line)) from exc
    if recorded.cut_off is not None:
        detail = f"the replay ends inside this round {recorded.cut_off}"
        raise RoundIncomplete(recorded.table, recorded.round, detail)
    return check.rnd


def _malformed(exc: Exception, line: int) -> str:
    where = f"line {line}: " if line else "the round_start line: "
    if isinstance(exc, KeyError):
        return f"{where}a malformed line: it lacks {exc}"
    return f"{where}a malformed line ({type(exc).__name__}: {exc})"
