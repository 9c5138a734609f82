"""The one interface every agent speaks, and base classes that fill in the dull parts.

The table owns deadlines, retries and fallbacks: an agent only answers requests. It is
told of the deal and of public results through :meth:`Agent.notify`, and answers the
requests of the game it plays: each game names the method that answers each of its
requests (Dou Dizhu: ``bid``, ``double``, ``play``), and an agent that carries any
game's messages (a program, an HTTP service) answers them all with ``ask``. Everything
crosses this seam as protocol messages, so a scripted bot, a language model and a
program in another language look the same here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol, runtime_checkable

from arena.games.base import Game, GameRules
from arena.games.ddz.engine import DEFAULT_RULES, Rules
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
)
from protocol import Message

__all__ = [
    "Agent",
    "AgentBase",
    "BaseAgent",
    "DdzAgent",
    "answerer",
    "games_played",
    "lists_legal_moves",
    "plays",
]


@runtime_checkable
class Agent(Protocol):
    """What the table needs from a player of any game: a name, to hear notifications, to
    close; and the methods of its game's requests (Dou Dizhu's: :class:`BaseAgent`), or
    ``ask`` for every request. Implement it, or subclass :class:`AgentBase` or a game's
    base agent."""

    name: str

    async def notify(self, message: Message) -> None:
        """Hear a message that needs no answer: a deal, REPLY_REJECTED, results, ..."""
        ...

    async def close(self) -> None:
        """Release whatever the agent holds (connections, processes)."""
        ...


@runtime_checkable
class DdzAgent(Agent, Protocol):
    """A Dou Dizhu player: the methods answering its three requests (:class:`BaseAgent`
    has them). Here beside :class:`BaseAgent`, where every Dou Dizhu bot found them
    before the game seam."""

    async def bid(self, request: BidRequest) -> BidResponse:
        """Answer a BID_REQUEST with one of ``request.available_bids``."""
        ...

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Answer a DOUBLE_REQUEST: double (or redouble) or not."""
        ...

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Answer a PLAY_REQUEST with a play or a pass."""
        ...


def lists_legal_moves(agent: object) -> bool:
    """Whether the agent asked for its legal moves in every PLAY_REQUEST on the wire
    (``wants_legal_moves``, a remote seat's ``options.legal_moves``). An agent in this
    process has them already (``arena.games.ddz.agents.reading.legal_for``), at no cost."""
    return getattr(agent, "wants_legal_moves", False) is True


_UNSAID: Any = object()


def plays(agent: object, game: Game) -> bool:
    """Whether an agent (or its class) plays ``game``: the games its ``games`` names
    (None: any game, as a program or a service whose transport carries any game's
    messages); an agent that says nothing plays a game whose methods it all has."""
    games = getattr(agent, "games", _UNSAID)
    if games is _UNSAID:
        return all(callable(getattr(agent, m, None)) for m in game.agent_methods)
    return games is None or game.name in games


def answerer(agent: object, method: str) -> Callable[[Message], Awaitable[Any]]:
    """What answers a request at this agent: its method for the request (the game's
    ``requests`` name it: ``play``), else the ``ask`` of an agent that carries any
    game's messages (a program, an HTTP service). AttributeError if it has neither."""
    answer = getattr(agent, method, None)
    if answer is None:
        answer = agent.ask  # type: ignore[attr-defined]
    return answer  # type: ignore[no-any-return]


def games_played(agent: object) -> str:
    """The games an agent says it plays, for an error message: ``ddz``, ``any game``."""
    games = getattr(agent, "games", _UNSAID)
    if games is _UNSAID:
        return "no game it names"
    return "any game" if games is None else ", ".join(games) or "no game"


class AgentBase:
    """What every agent shares, whatever game it plays: a name, the seed and rules the
    table gives it, options from the config, and nothing to open, hear or close.

    The table constructs agents as ``cls(name=..., seed=..., rules=..., **options)``, where
    ``options`` are the seat's ``options`` table from the config; subclasses accept their
    own options as keyword arguments and pass the rest here.

    Methods are async so that an agent can wait for a model or a remote program; while it
    waits, every other table goes on. It must never block (``time.sleep``, a blocking
    HTTP client): that stalls every table in the process, the table names it in a warning,
    and a reply that comes after its deadline is refused as late however it got there.
    """

    games: ClassVar[tuple[str, ...] | None] = ()
    """The games this agent plays (names in ``arena.games``): its methods answer their
    requests. None: any game, for an agent that only carries messages (a program, an
    HTTP service: its ``ask`` answers every request). A seat of a game its agent does
    not play is a config error."""

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: GameRules = DEFAULT_RULES,
        **options: Any,
    ) -> None:
        if options:
            unknown = ", ".join(sorted(options))
            raise TypeError(f"{type(self).__name__} got unknown options: {unknown}")
        self.name = name
        self.seed = seed
        self.rules = rules

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def open(self) -> None:
        """Start what the agent needs before the match (a process, a connection), and
        raise :class:`~arena.errors.AgentStartError` if it cannot. Nothing by default.

        Optional: the table calls it when an agent has it, before the first round.
        """

    async def notify(self, message: Message) -> None:
        """Most agents need nothing from notifications: each request carries the state."""

    async def close(self) -> None:
        """Nothing to release by default."""


class BaseAgent(AgentBase):
    """A Dou Dizhu agent with defaults for everything but :meth:`play`: pass when
    bidding, never double, ignore notifications, nothing to close. Subclass it, as every
    Dou Dizhu bot before the game seam did."""

    games: ClassVar[tuple[str, ...] | None] = ("ddz",)
    rules: Rules

    def __init__(
        self, name: str, *, seed: int | None = None, rules: Rules = DEFAULT_RULES, **options: Any
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)

    async def bid(self, request: BidRequest) -> BidResponse:
        """Pass by default; where passing is not offered (a fixed landlord names its call
        score), the lowest bid offered."""
        offered = request.available_bids
        bid = 0 if 0 in offered or not offered else min(offered)
        return BidResponse(player_id=request.player_id, bid=bid, request_id=request.request_id)

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Never double by default."""
        return DoubleResponse(
            player_id=request.player_id, double=False, request_id=request.request_id
        )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Subclasses decide how to play."""
        raise NotImplementedError(f"{type(self).__name__} does not implement play()")
