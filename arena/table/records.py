"""What a table hands on: the record of each round, and the recorder seam for replays."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from arena.events import Event

__all__ = [
    "DecisionRecorder",
    "EffectRecorder",
    "Recorder",
    "RoundRecord",
    "RoundResult",
    "TeeRecorder",
    "public_result",
    "tee_recorders",
]

_NO_STATS: dict[str, Any] = {}


class Recorder(Protocol):
    """Receives everything that happens at a table, hidden information included (replays).

    A recorder may also have ``decision`` (see :class:`DecisionRecorder`) and ``effect``
    (see :class:`EffectRecorder`): the table looks each up once and calls it when there.
    """

    def round_started(self, header: dict[str, Any]) -> None:
        """A round begins: seed, config, seats."""

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """A message to (``to_agent``) or from (``from_agent``) the agent in ``seat``.

        A reply is whatever the agent returned, a protocol message or not (a dict, a
        string, None ...); ``late`` marks one that came after its deadline (never applied).
        """

    def event(self, event: Event) -> None:
        """A public event."""

    def round_ended(self, summary: dict[str, Any]) -> None:
        """A round finished: its result, faults and decision figures."""


class DecisionRecorder(Recorder, Protocol):
    """A recorder that also files the attempts of model seats (the replay does)."""

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        """One attempt of a seat whose agent reports its calls, after the reply (if any)
        and before its rejection (if any): ``{"request_id", "attempt"`` (0-based)``,
        "outcome"`` (``"accepted"`` or the reject reason)``, "detail"`` (why rejected, or
        None)``, "report"`` (:meth:`CallReport.to_dict`: prompt, raw text and reasoning
        included, so replay only)``}``."""


class EffectRecorder(Recorder, Protocol):
    """A recorder that also keeps the cards a gift's effect moved (the replay does)."""

    def effect(self, record: dict[str, Any]) -> None:
        """An effect applied at a safe point, just before its ``effect_applied`` event:
        ``{"effect"`` (``"swap"``, ``"transfer"``, or a game's own: Dou Dizhu's
        ``"double"``)``, "seats"`` (a swap's two seats; a transfer's source, then target;
        none for a double)``, "cards"``
        (the cards moved, as the seats are listed: hidden, unlike the event)``}``."""


class TeeRecorder:
    """Several recorders as one: a table calls one recorder, this one hands every call to
    each of its recorders in order (the replay, then a spectator feed ...).

    Build it with :func:`tee_recorders`, which gives the single recorder itself when
    there is only one: a table without a second recorder pays nothing for the tee.
    ``decision`` goes to the recorders that have it (a table calls it only for seats
    whose agent reports its calls), and so does ``effect``.
    """

    def __init__(self, *recorders: Recorder) -> None:
        self.recorders = recorders
        self._round_started = tuple(r.round_started for r in recorders)
        self._messages = tuple(r.message for r in recorders)
        self._events = tuple(r.event for r in recorders)
        self._round_ended = tuple(r.round_ended for r in recorders)
        self._decisions: tuple[Any, ...] = tuple(
            d for d in (getattr(r, "decision", None) for r in recorders) if d is not None
        )
        self._effects: tuple[Any, ...] = tuple(
            e for e in (getattr(r, "effect", None) for r in recorders) if e is not None
        )

    def round_started(self, header: dict[str, Any]) -> None:
        """Each recorder gets the header (its own shallow copy: one may add keys)."""
        for started in self._round_started:
            started(dict(header))

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """Each recorder gets the message."""
        for record in self._messages:
            record(direction, seat, message, elapsed_ms, late=late)

    def event(self, event: Event) -> None:
        """Each recorder gets the event."""
        for record in self._events:
            record(event)

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        """Each recorder that files decisions gets the record."""
        for decided in self._decisions:
            decided(seat, record)

    def effect(self, record: dict[str, Any]) -> None:
        """Each recorder that keeps effects gets the record."""
        for kept in self._effects:
            kept(record)

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Each recorder gets the summary."""
        for ended in self._round_ended:
            ended(summary)


def tee_recorders(*recorders: Recorder | None) -> Recorder | None:
    """One recorder for a table from any number (None ones left out): None for none,
    the recorder itself for one, a :class:`TeeRecorder` for more."""
    present = [r for r in recorders if r is not None]
    if not present:
        return None
    if len(present) == 1:
        return present[0]
    return TeeRecorder(*present)


class RoundResult(Protocol):
    """What shared code reads of a finished round's result, whatever the game (Dou
    Dizhu's is its ``Settlement``; the game's own fields are its own to read, and
    :attr:`arena.games.base.Game.sides` turns it into sides)."""

    @property
    def scores(self) -> Sequence[int]:
        """Each seat's score change, by seat."""
        ...

    @property
    def winners(self) -> Collection[int]:
        """The seats that won the round."""
        ...

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as replays, stores and the round's summary keep it."""
        ...


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """A finished round as a tournament stores it: result, names, faults, stand-ins, and
    each seat's decision figures (``arena.table.stats``)."""

    table: str
    round_no: int
    seed: int
    players: tuple[str, ...]
    result: Any
    """The game's result of the round (a :class:`RoundResult`; Dou Dizhu: its
    ``Settlement``). Typed Any so that a game's code reads its own fields unchecked."""
    faults: tuple[dict[str, int], ...]
    standins: tuple[int, ...]
    stats: tuple[dict[str, Any], ...] = ()
    """Each seat's decision figures; a record made without them (tests, old stores)
    has none for each seat."""
    gifts: tuple[str, ...] = ()
    """The result-changing gifts that touched the round, in order (between rounds, as a
    ``RESHUFFLE``, or during it, as a ``SWAP`` or ``ADD``, and the game's own: Dou
    Dizhu's ``ROLE_SWAP`` and ``DOUBLE``): a tournament may set such a round apart.
    Empty for an untouched round."""

    def __post_init__(self) -> None:
        if not self.stats:
            object.__setattr__(self, "stats", (_NO_STATS,) * len(self.players))

    @property
    def gift_touched(self) -> bool:
        """Whether a viewer's gift may have changed this round's result."""
        return bool(self.gifts)

    def score_of(self, player: str) -> int:
        """The round's score change of a player."""
        return int(self.result.scores[self.players.index(player)])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready data, with scores, faults and stats keyed by player name."""
        return {
            "table": self.table,
            "round_no": self.round_no,
            "seed": self.seed,
            "players": list(self.players),
            "scores": dict(zip(self.players, self.result.scores, strict=True)),
            "faults": dict(zip(self.players, self.faults, strict=True)),
            "standins": [self.players[s] for s in self.standins],
            "stats": dict(zip(self.players, self.stats, strict=True)),
            "result": self.result.to_dict(),
            "gifts": list(self.gifts),
        }


def public_result(summary: dict[str, Any]) -> dict[str, Any]:
    """The round summary without the seed and the original deal (replay material)."""
    public = dict(summary)
    public.pop("seed", None)
    result = dict(public["result"])
    result.pop("seed", None)
    result.pop("deal", None)
    public["result"] = result
    return public
