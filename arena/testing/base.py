"""What a game gives ``arena agent check``: its positions, and how a reply is judged.

A game's package builds one :class:`CheckPositions` (Dou Dizhu's:
``arena.games.ddz.positions.CHECK``) and names it through its ``Game``
(:attr:`~arena.games.base.Game.check_positions`, a loader, so the positions are built
only when a check runs). The runner (:mod:`arena.testing.check`) knows no game: it asks
each position's request as a table would, under the seat's deadline, and hands the
reply to the game's judge.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol, TypeAlias, get_args

from protocol import Message

__all__ = ["VERDICTS", "Build", "CheckPositions", "Judgement", "Position", "Situation", "Verdict"]

Verdict: TypeAlias = Literal["legal", "illegal", "malformed", "late", "error"]
"""``legal``: usable and allowed; ``illegal``: well formed but the rules forbid it;
``malformed``: not the reply asked for (not JSON, wrong type or field, another player's or
request's id); ``late``: after the deadline; ``error``: the agent raised, or its program
or server failed."""

VERDICTS: Final[tuple[Verdict, ...]] = get_args(Verdict)


@dataclass(frozen=True, slots=True)
class Judgement:
    """A verdict and, in words, why: what was played, or what is wrong with it."""

    verdict: Verdict
    detail: str


@dataclass(frozen=True, slots=True)
class Situation:
    """What one position sends: notifications first (a deal, ...), then the request."""

    notifications: tuple[Message, ...]
    request: Any
    """The request the agent answers (a request of the game's; the table's ``Request``)."""


class Build(Protocol):
    """Builds a position's messages for the agent under test, under the check's rules."""

    def __call__(self, me: str, time_limit_ms: int, rules: Any = ...) -> Situation: ...


@dataclass(frozen=True, slots=True)
class Position:
    """One hard position: its name, what it checks, and how to build its messages.

    ``build(player_id, time_limit_ms, rules)`` addresses the messages to the agent under
    test; ``rules`` (default: the game's default rules) are the check's. With ``retry``,
    the first answer is rejected (REPLY_REJECTED, one retry left) and the same request
    asked again: the second answer is the one judged.
    """

    name: str
    about: str
    round_no: int
    build: Build
    retry: bool = False


@dataclass(frozen=True, slots=True)
class CheckPositions:
    """A game's part of ``arena agent check``: its positions, in the order they are
    asked, how a reply to one is judged, and the request an agent that lists its legal
    moves on the wire gets instead (as the game's table would send it)."""

    positions: tuple[Position, ...]
    judge: Callable[[Any, object, Any], Judgement]
    """``judge(request, reply, rules)``: whether the reply (whatever the agent's method
    returned: a message, JSON text, anything) is a well-formed, legal answer."""
    listed: Callable[[Any, Any], Any]
    """``listed(request, rules)``: the request with its legal moves listed, for an agent
    that asks for them (the request itself when it has none to list)."""

    def named(self, name: str) -> Position:
        """The position of that name (a KeyError, as from a dict, if there is none)."""
        return {position.name: position for position in self.positions}[name]
