"""One sitting of a tournament: when its tables stop, short of the tournament's end.

A ``daily`` table match never ends by itself. A session of ``session_rounds`` rounds
(``[tournament] session_rounds``, ``arena tournament run|resume --rounds N``) plays that
many more rounds across the stage's tables, then stops cleanly, every round stored, the
tournament left ``interrupted`` to resume the next day. The rounds are shared among the
stage's tables in table order, as shares of *all* the stage's rounds so far plus this
session's, so two sessions of N rounds deal and count exactly as one of 2N.

A stop may also be asked (the first Ctrl-C): each table stops after the round it is
playing, a table held between two rounds (the streamer's pause) stops there, and a
table not started yet does not start.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Session", "SessionEnd", "shares"]


class SessionEnd(Exception):
    """Raised after a table's round to stop its match there, unfinished."""


def shares(total: int, tables: int) -> list[int]:
    """``total`` rounds among ``tables`` tables in order: equal, the first ones one
    more while some are left over."""
    return [total // tables + (1 if index < total % tables else 0) for index in range(tables)]


@dataclass
class Session:
    """The rounds this session may play (None: no limit) and whether a stop was asked."""

    rounds: int | None = None
    stop_asked: bool = False
    ended: bool = field(default=False, init=False)
    """Whether a table stopped short of its match's end (the tournament is resumable)."""
    _caps: dict[str, int] = field(default_factory=dict, init=False)

    def plan_stage(self, table_ids: Sequence[str], played: Mapping[str, int]) -> None:
        """Each table's cap for this session: its share of the stage's rounds so far
        (``played`` by table id) plus the session's; no cap without a session limit."""
        self._caps.clear()
        if self.rounds is None or not table_ids:
            return
        before = sum(played.get(table, 0) for table in table_ids)
        for table, share in zip(
            table_ids, shares(before + self.rounds, len(table_ids)), strict=True
        ):
            self._caps[table] = share

    def may_start(self, table_id: str, played: int) -> bool:
        """Whether the table plays at all this session (its cap not reached, no stop)."""
        if self.stop_asked or played >= self._caps.get(table_id, played + 1):
            self.ended = True
            return False
        return True

    def after_round(self, table_id: str, played: int) -> None:
        """After each round stored (``played`` in all at the table): :class:`SessionEnd`
        when the table's cap is reached or a stop was asked."""
        if self.stop_asked or played >= self._caps.get(table_id, played + 1):
            self.ended = True
            raise SessionEnd(table_id)

    def stop_if_asked(self, table_id: str) -> None:
        """Between two rounds (a table the pause held, now released): :class:`SessionEnd`
        when a stop was asked, so that the table does not start another round."""
        if self.stop_asked:
            self.ended = True
            raise SessionEnd(table_id)
