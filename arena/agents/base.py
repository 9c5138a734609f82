"""The one interface every agent speaks, and base classes that fill in the dull parts.

The table owns deadlines, retries and fallbacks: an agent only answers requests. It is
told of the deal and of public results through :meth:`Agent.notify`, and answers the
requests of the game it plays: each game names the method that answers each of its
requests (``Game.requests``), and an agent that carries any game's messages (a program,
an HTTP service, a language model) answers them all with ``ask``. A game's own base
agent, the one its Python bots subclass, is in its package
(``arena/games/<name>/agents/``); the default game's is still found here by the name
bots imported it by (:func:`default_game_export`). Everything
crosses this seam as protocol messages, so a scripted bot, a language model and a
program in another language look the same here.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Protocol, runtime_checkable

from arena.games.base import Game, GameRules
from arena.games.registry import DEFAULT_GAME, get_game, known_games
from protocol import Message

__all__ = [
    "Agent",
    "AgentBase",
    "answerer",
    "default_game_export",
    "games_played",
    "lists_legal_moves",
    "plays",
]


@runtime_checkable
class Agent(Protocol):
    """What the table needs from a player of any game: a name, to hear notifications, to
    close; and the methods of its game's requests (``Game.requests`` names them), or
    ``ask`` for every request. Implement it, or subclass :class:`AgentBase` or a game's
    base agent."""

    name: str

    async def notify(self, message: Message) -> None:
        """Hear a message that needs no answer: a deal, REPLY_REJECTED, results, ..."""
        ...

    async def close(self) -> None:
        """Release whatever the agent holds (connections, processes)."""
        ...


def lists_legal_moves(agent: object) -> bool:
    """Whether the agent asked for its legal moves in every PLAY_REQUEST on the wire
    (``wants_legal_moves``, a remote seat's ``options.legal_moves``). An agent in this
    process reads them from the request at no cost."""
    return getattr(agent, "wants_legal_moves", False) is True


_UNSAID: Any = object()


def plays(agent: object, game: Game) -> bool:
    """Whether an agent (or its class) plays ``game``: by its ``plays_game(game)`` when
    it has one (a rule rather than a list: a model seat plays every game with model
    prompts); else the games its ``games`` names (None: any game, as a program or a
    service whose transport carries any game's messages); an agent that says nothing
    plays a game whose methods it all has."""
    rule = getattr(agent, "plays_game", None)
    if callable(rule):
        return bool(rule(game))
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
    """The games an agent says it plays, for an error message: ``tractor``, ``any
    game``; for an agent with ``plays_game``, the known games it accepts."""
    rule = getattr(agent, "plays_game", None)
    if callable(rule):
        return ", ".join(name for name in known_games() if _accepts(rule, name)) or "no game"
    games = getattr(agent, "games", _UNSAID)
    if games is _UNSAID:
        return "no game it names"
    return "any game" if games is None else ", ".join(games) or "no game"


def _accepts(rule: Callable[[Game], object], name: str) -> bool:
    """Whether ``plays_game`` accepts the game called ``name`` (one that does not load
    is accepted by none)."""
    try:
        game = get_game(name)
    except Exception:  # a plugin that does not load is reported where it is named
        return False
    return bool(rule(game))


def default_game_export(module: str, name: str) -> Any:
    """What ``module`` (``arena.agents``, ...) still gives under ``name`` for the default
    game: its ``agent_exports`` (the base agent its bots subclass, ...), imported now;
    AttributeError, as for any missing attribute, for a name it does not export."""
    exported = None if name.startswith("_") else get_game(DEFAULT_GAME).agent_exports.get(name)
    if exported is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    module_name, _, attribute = exported.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def __getattr__(name: str) -> Any:
    """The default game's base agents, where its bots imported them before the game
    seam (:func:`default_game_export`)."""
    return default_game_export(__name__, name)


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
        rules: GameRules | None = None,
        **options: Any,
    ) -> None:
        if options:
            unknown = ", ".join(sorted(options))
            raise TypeError(f"{type(self).__name__} got unknown options: {unknown}")
        self.name = name
        self.seed = seed
        self.rules: GameRules = (
            rules if rules is not None else get_game(DEFAULT_GAME).default_rules()
        )
        """The rules of the table (the default game's default rules when built alone)."""

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
