"""Finding an agent class by name: built-ins, the game's own, entry points, or a dotted path.

Config names an agent by a type name: one of the arena's transports (``subprocess``,
``http``, ``openai``, ...), one of the scripted agents of the game being played
(:attr:`~arena.games.base.Game.scripted_agents`), ``human`` (the game's seat for a person
at the terminal, :attr:`~arena.games.base.Game.human_seat`), a name a third-party
package registered under the arena's agents entry-point group, or ``module:Class``.
Each function takes the game (the default game's when None).
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import os
import sys
from collections.abc import Callable, Iterable, Mapping
from importlib.metadata import EntryPoint, entry_points
from types import ModuleType
from typing import Any, Final

from arena.agents.base import Agent, AgentBase, games_played, plays
from arena.errors import ConfigError
from arena.games.base import Game, GameRules
from arena.games.registry import DEFAULT_GAME, get_game
from arena.logs import get_logger

__all__ = [
    "AGENT_INTERFACE",
    "BUILTIN_AGENTS",
    "ENTRY_POINT_GROUP",
    "HUMAN",
    "agent_class",
    "agent_types",
    "check_agent_class",
    "create_agent",
]

ENTRY_POINT_GROUP: Final = "ddz_arena.agents"

log = get_logger(__name__)

AGENT_INTERFACE: Final = ("name", "notify", "close")
"""What :class:`~arena.agents.base.Agent` asks of every agent; besides, the methods of
its game's requests, or ``ask`` for an agent of any game (:func:`interface_of`)."""


def interface_of(cls: object, game: Game | None = None) -> tuple[str, ...]:
    """The methods an agent (class) must have to sit at a table of ``game`` (the default
    game's when None): ``notify``, what answers the game's requests (its methods, or
    ``ask`` for an agent that answers any game's requests with it), ``close``."""
    played = game if game is not None else get_game(DEFAULT_GAME)
    asks = getattr(cls, "games", ()) is None or callable(getattr(cls, "ask", None))
    answers = ("ask",) if asks else played.agent_methods
    return ("notify", *answers, "close")


HUMAN: Final = "human"
"""The seat type of a person at the terminal: the game's own seat for one
(:attr:`~arena.games.base.Game.human_seat`)."""

BUILTIN_AGENTS: Final[dict[str, str]] = {
    "subprocess": "arena.agents.process:SubprocessAgent",
    "http": "arena.agents.http:HttpAgent",
    "openai": "arena.agents.llm.openai_seat:OpenAIAgent",
    "anthropic": "arena.agents.llm.anthropic_seat:AnthropicAgent",
}
"""The arena's own agent types, for every game (a game's scripted agents and its
human seat are the game's: :func:`agent_types`), each the ``module:Class`` of its class. A class is
imported when a seat first names its type: a seat type's dependencies (an HTTP client, a
model SDK) load only for a config that uses it. Besides start-up time, every object a
module leaves behind makes each of the garbage collector's full passes longer, and an
HTTP client imported by a table of scripted bots cost it 0.1 M instructions a round."""


def agent_types(game: Game | None = None) -> dict[str, str]:
    """Every agent type a config of ``game`` (the default game when None) names without
    a ``module:Class``, each the ``module:Class`` of its class: the game's scripted
    agents first, ``human`` for a game with a seat for a person, then the arena's own
    (:data:`BUILTIN_AGENTS`, which win a clash of names)."""
    played = game if game is not None else get_game(DEFAULT_GAME)
    human = {HUMAN: played.human_seat} if played.human_seat is not None else {}
    return {**played.scripted_agents, **human, **BUILTIN_AGENTS}


def agent_class(type_name: str, game: Game | None = None) -> type[Any]:
    """The class behind a configured agent type at a table of ``game`` (the default game
    when None); ConfigError says what was tried.

    Anything but a class is refused: the table builds agents by calling their class.
    """
    types = agent_types(game)
    if type_name == HUMAN and HUMAN not in types:
        played = game if game is not None else get_game(DEFAULT_GAME)
        raise ConfigError(
            f"agent type {HUMAN!r}: {played.title} (game = {played.name!r}) has no seat "
            "for a person at the terminal"
        )
    found = _find(type_name, types)
    if not inspect.isclass(found):
        kind = "a function" if inspect.isroutine(found) else f"a {type(found).__name__}"
        raise ConfigError(
            f"agent type {type_name!r}: {getattr(found, '__name__', type_name)} is {kind}, "
            "not an agent class"
        )
    return found


def check_agent_class(type_name: str, game: Game | None = None) -> type[Any]:
    """The class behind an agent type, checked for the Agent methods without building
    an agent (building one may open connections or start programs): the config check.
    With ``game``, the type names are that game's and the class must play it
    (:func:`~arena.agents.base.plays`); without, the default game's names, nothing
    checked."""
    cls = agent_class(type_name, game)
    missing = [m for m in interface_of(cls, game) if not callable(getattr(cls, m, None))]
    if missing:
        raise ConfigError(
            f"agent type {type_name!r}: {cls.__name__} lacks the Agent interface "
            f"(it has no {', '.join(missing)})"
        )
    if game is not None and not plays(cls, game):
        raise ConfigError(cannot_play(type_name, cls, game))
    return cls


def cannot_play(type_name: str, agent: object, game: Game) -> str:
    """Why an agent type cannot sit at a table of ``game``, in one line."""
    name = agent.__name__ if isinstance(agent, type) else type(agent).__name__
    return (
        f"agent type {type_name!r} ({name}) does not play {game.title} "
        f"(game = {game.name!r}): it plays {games_played(agent)}"
    )


def _registered() -> Mapping[str, EntryPoint]:
    """The agent types installed packages register, by name (the first of a name wins),
    read once for each ``sys.path``: reading them opens every installed distribution's
    metadata, milliseconds an agent, which at 10,000 tables of a ``module:Class`` seat
    (30,000 agents) was minutes before the first deal."""
    return _registered_on(tuple(sys.path))


@functools.lru_cache(maxsize=4)
def _registered_on(path: tuple[str, ...]) -> Mapping[str, EntryPoint]:
    found: dict[str, EntryPoint] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(entry.name, entry)
    return found


def _find(type_name: str, builtin: Mapping[str, str]) -> Any:
    """Whatever the type name names: a built-in (``builtin``: :func:`agent_types`), an
    entry point or a module attribute."""
    if type_name in builtin:
        module_name, _, attribute = builtin[type_name].partition(":")
        return getattr(importlib.import_module(module_name), attribute)
    entry = _registered().get(type_name)
    if entry is not None:
        try:
            loaded: type[Any] = entry.load()
        except Exception as exc:
            raised = _raised(exc, "agent_import_failed", agent_type=type_name)
            raise ConfigError(
                f"agent type {type_name!r}: loading entry point {entry.value!r} raised {raised}"
            ) from exc
        return loaded
    if ":" in type_name:
        module_name, _, attribute = type_name.partition(":")
        try:
            module = _import_module(module_name)
        except ModuleNotFoundError as exc:
            log.debug("agent_import_failed", agent_type=type_name, exc_info=exc)
            if module_name.endswith(".py"):  # a file name where a module name belongs
                dotted = module_name.removesuffix(".py").replace("/", ".").replace("\\", ".")
                raise ConfigError(
                    f"agent type {type_name!r}: name the module, not its file: drop the "
                    f"'.py' and write '{dotted}:{attribute}'"
                ) from exc
            where = (
                " (looked in the current folder and the installed packages)"
                if exc.name == module_name.partition(".")[0]
                else ""
            )
            raise ConfigError(
                f"agent type {type_name!r}: cannot import {module_name!r}: {exc}{where}"
            ) from exc
        except Exception as exc:
            raised = _raised(exc, "agent_import_failed", agent_type=type_name)
            raise ConfigError(
                f"agent type {type_name!r}: importing {module_name!r} raised {raised}"
            ) from exc
        try:
            return getattr(module, attribute)
        except AttributeError:
            raise ConfigError(
                f"agent type {type_name!r}: {module_name} has no {attribute!r}"
            ) from None
    known = [*builtin, *_registered()]
    hint = _did_you_mean(type_name, known)
    raise ConfigError(
        f"unknown agent type {type_name!r}{f' ({hint})' if hint else ''}; "
        f"known: {', '.join(known)}; or give a 'module:Class' path"
    )


def _import_module(module_name: str) -> ModuleType:
    """Import a ``module:Class`` module, also from the current folder.

    People expect ``mybots.agents:LowestFirst`` to find ``./mybots`` as ``python -m``
    would; but the installed ``arena`` script runs with its own folder, not the current
    one, as ``sys.path[0]``. So when the module's top-level package is found nowhere
    else, the current folder is added to the end of ``sys.path`` (the end: it never
    shadows an installed package) and the import tried again.
    """
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        top = module_name.partition(".")[0]
        cwd = os.getcwd()
        if exc.name != top or cwd in sys.path:
            raise  # a module missing inside the user's package, or nothing more to try
        sys.path.append(cwd)
        importlib.invalidate_caches()
        return importlib.import_module(module_name)


def create_agent(
    type_name: str,
    name: str,
    *,
    seed: int | None = None,
    rules: GameRules | None = None,
    options: dict[str, Any] | None = None,
    seat_key: str | None = None,
    game: Game | None = None,
) -> Agent:
    """Build an agent as ``cls(name=..., seed=..., rules=..., **options)``.

    Every problem is a ConfigError in one line. Options the class does not take are a
    plain config mistake, said as such; whatever else the constructor raises is named
    with its exception, and its traceback logged at debug for the agent's author.
    ``seat_key`` (``"seats.1"``) is where a config set this agent up: errors then name
    that key and the seat, ``seats.1.options (seat 'Beta'): heuristic got ...``, so that
    the user looks at the right seat, instead of ``agent 'Beta' (heuristic): got ...``.
    With ``game``, the type names are that game's (the default game's without), and an
    agent that does not play it is such an error too. ``rules`` default to the game's.
    """

    def blame(part: str, problem: str, *, own: bool = False) -> ConfigError:
        """``problem`` follows the type's name as a phrase (``heuristic got ...``), or
        after a colon when it is the agent's own sentence (``openai: the environment ...``)."""
        if seat_key is None:
            return ConfigError(f"agent {name!r} ({type_name}): {problem}")
        key = f"{seat_key}.{part}" if part else seat_key
        return ConfigError(f"{key} ({noun} {name!r}): {type_name}{':' if own else ''} {problem}")

    # a tournament's roster is [[agents]], an arena's [[seats]]: say it as the file does
    noun = "agent" if seat_key is not None and seat_key.startswith("agents.") else "seat"
    try:
        cls = agent_class(type_name, game)
    except ConfigError as exc:
        if seat_key is None:
            raise
        raise ConfigError(f"{seat_key}.type ({noun} {name!r}): {exc}") from exc
    if game is not None and not plays(cls, game):
        raise blame(
            "type",
            f"does not play {game.title} (game = {game.name!r}): it plays {games_played(cls)}",
        )
    if rules is None:
        rules = (game if game is not None else get_game(DEFAULT_GAME)).default_rules()
    given = dict(options or {})
    problem = _signature_problem(cls, given)
    if problem is not None:
        raise blame(*problem)
    try:
        agent = cls(name=name, seed=seed, rules=rules, **given)
    except TypeError as exc:
        if given and _raised_by_base_agent(exc):  # AgentBase refusing what reached it
            raise blame("options", _unknown_options(cls, given) or f"refused: {exc}") from None
        raise _construction_failed(exc, blame, name, type_name) from exc
    except ConfigError as exc:  # a built-in agent naming what is wrong with its options
        raise blame("options", str(exc), own=True) from None
    except Exception as exc:
        raise _construction_failed(exc, blame, name, type_name) from exc
    needed = interface_of(agent, game)
    if not isinstance(agent, Agent) or not all(callable(getattr(agent, m, None)) for m in needed):
        raise blame("type", f"lacks the Agent interface (name, {', '.join(needed)})")
    return agent


def _construction_failed(
    exc: Exception, blame: Callable[[str, str], ConfigError], name: str, type_name: str
) -> ConfigError:
    """A real exception in the agent's own code: named, its traceback logged at debug."""
    raised = _raised(exc, "agent_construction_failed", agent=name, agent_type=type_name)
    return blame("", f"could not be created: {raised}")


def _raised(exc: Exception, event: str, **fields: object) -> str:
    """``KeyError: 'x' (its traceback is logged at debug level)``: an exception in
    the agent author's code, named in the error and logged whole for them to find."""
    log.debug(event, exc_info=exc, **fields)
    return f"{type(exc).__name__}: {exc} (its traceback is logged at debug level)"


_SET_BY_THE_ARENA: Final = ("name", "seed", "rules")
"""Constructor arguments the arena gives every agent: never options."""


def _signature_problem(cls: type[Any], options: Mapping[str, Any]) -> tuple[str, str] | None:
    """Why the class cannot be called with these options, found from its signature
    without building anything, as (the seat's key it concerns, the problem); None when
    the call fits (or the signature cannot tell)."""
    reserved = [key for key in _SET_BY_THE_ARENA if key in options]
    if reserved:
        names = ", ".join(map(repr, reserved))
        return "options", f"cannot take {names} as an option: the arena sets it"
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):  # some classes written in C have none
        return None
    try:
        signature.bind(name="", seed=None, rules=None, **options)
    except TypeError as exc:
        takes_any = any(p.kind is p.VAR_KEYWORD for p in signature.parameters.values())
        unknown = not takes_any and any(key not in signature.parameters for key in options)
        if unknown and (problem := _unknown_options(cls, options)):
            return "options", problem
        call = f"{cls.__name__}(name=..., seed=..., rules=..., **options)"
        return "", f"cannot be built as {call}: {exc}"
    return None


def _raised_by_base_agent(exc: BaseException) -> bool:
    """Whether the exception came from :class:`AgentBase`'s own ``__init__``, which
    refuses options no subclass took (and raises nothing else)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code is AgentBase.__init__.__code__


def _unknown_options(cls: type[Any], options: Mapping[str, Any]) -> str | None:
    """``got unknown options: colour (it takes no options)``, with a close match offered;
    None if the constructors' signatures name every option given."""
    accepted: list[str] = []
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if klass in (AgentBase, object):
            break
        if init is None:
            continue
        try:
            parameters = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            continue
        accepted += [
            p.name
            for p in parameters
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
            and p.name not in ("self", *_SET_BY_THE_ARENA)
            and p.name not in accepted
        ]
    unknown = [key for key in options if key not in accepted]
    if not unknown:
        return None
    takes = f"it takes: {', '.join(accepted)}" if accepted else "it takes no options"
    hints = [hint for key in unknown if (hint := _did_you_mean(key, accepted))]
    return f"got unknown options: {', '.join(unknown)} ({' '.join([*hints, takes])})"


def _did_you_mean(word: str, choices: Iterable[str]) -> str:
    """``did you mean 'name'?`` when one choice is close to the word, else nothing."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f"did you mean {close[0]!r}?" if close else ""
