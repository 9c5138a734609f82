"""What a game tells the arena about itself: :class:`Game`.

The table, the agents' registry, the config, replays, gifts and tournaments serve any
game; what differs between games they read from here. A game's package builds one
``Game`` in its ``game`` module (``arena/games/<name>/game.py``, as ``GAME``); the
registry (:mod:`arena.games.registry`) finds it by name.

Only what the arena reads of every game is here. A game's engine, messages and turn
logic stay in its package, behind the names listed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, Self

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from arena.replay_round import RecordedRound
    from protocol import EventData, Message

__all__ = ["Game", "GameRules", "LeaderboardStats", "RoundAudit", "Sides", "Turns", "Wire"]


class GameRules(BaseModel):
    """The base of every game's rule settings (``[rules]`` in a config file): strict and
    frozen, so a typo or a wrong value is an error naming its key."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    @classmethod
    def of(cls, rules: GameRules) -> Self:
        """``rules`` as this game's model (a config's ``rules`` is typed for any game);
        a TypeError if they are another game's."""
        if not isinstance(rules, cls):
            raise TypeError(f"{type(rules).__name__} are not {cls.__name__}")
        return rules


@dataclass(frozen=True, slots=True)
class Wire:
    """A game's messages and events, as models (each by its ``type`` tag): what
    ``arena schema`` writes, what a replay's lines and an agent's replies are read as."""

    messages: Mapping[str, type[Message]]
    """Every message of the game, in the order of a round: its requests and replies,
    its notifications, and the arena's own (REPLY_REJECTED, MATCH_END)."""
    events: Mapping[str, type[EventData]]
    """Each public event type's ``data`` model (the shared ones included)."""
    schema_title: str
    """The prefix of the union schemas' titles (``DouDizhuArena``: ``...Message``,
    ``...Event``)."""


Sides = tuple[tuple[int, ...], ...]
"""A round's sides as seat numbers, the winning side first: Dou Dizhu's landlord against
the two farmers, Tractor's two teams. Results, ratings and leaderboards read them."""


class Turns(Protocol):
    """A game's turn logic at one table (Dou Dizhu: ``arena.games.ddz.turns.DdzTurns``):
    it plays each round, asking seats only through the table's decision runner
    (``Table.decide``, ``Table.ask_together``), and builds every message from what the
    seat may know."""

    @property
    def game(self) -> Game:
        """The game these turns play."""
        ...

    @property
    def context(self) -> Mapping[str, Any]:
        """What every message to an agent names: the match, the table, the round."""
        ...

    def new_match(self, match_id: str | None, table_id: str) -> None:
        """A new match begins: messages name ``match_id`` from now on."""
        ...

    def public_rules(self) -> dict[str, Any]:
        """The rules the audience is shown at ``match_started`` (what an overlay needs)."""
        ...

    @property
    def play_round(self) -> Callable[..., Awaitable[Any]]:
        """``play_round(round_no, *, seed, gift_changes=(), **plan)``: play one round to
        its end and return its record (``arena.table.RoundRecord``); ``plan`` holds what
        the game lets a caller fix instead of drawing it from the seed."""
        ...

    async def prepare_round(self, plan: Any, *, reseed: Callable[[str], int]) -> None:
        """Between two rounds: the between-rounds hooks may change the next round."""
        ...


class LeaderboardStats(Protocol):
    """A game's own figures on a tournament's leaderboard, beside what every game has
    (points, round wins, faults, stand-ins, forfeits): Dou Dizhu's landlord and farmer
    rounds, springs and bombs; Tractor's could be the levels gained. Each is a count
    per agent, summed over the rounds it played."""

    @property
    def keys(self) -> tuple[str, ...]:
        """The figures' keys, in the order the leaderboard's JSON and CSV list them
        (after ``round_wins``)."""
        ...

    @property
    def headers(self) -> tuple[str, ...]:
        """The terminal table's column headers of these figures."""
        ...

    def count(self, result: Any, seat: int, won: bool) -> Mapping[str, int]:
        """What one round adds to the agent in ``seat``: ``result`` the round's result,
        ``won`` whether the tournament credits the seat a win (a forfeit never is)."""
        ...

    def cells(self, counts: Mapping[str, int]) -> tuple[str, ...]:
        """An agent's counts as the terminal table's cells, one per header."""
        ...


class RoundAudit(Protocol):
    """What ``arena tournament verify`` checks of a game's recorded round beside its
    moves (which :attr:`Game.replay_check` checks): the deal its seed deals, what the
    stored record says the round began with, and which events are a seat's actions."""

    @property
    def actions(self) -> frozenset[str]:
        """The event types of a seat's action (Dou Dizhu: a bid, a double, a play, a
        pass): each is one decision of the seat's, unless marked ``auto``."""
        ...

    def dealt(self, seed: int) -> Any:
        """The deal a round's seed deals, as the round's header writes it."""
        ...

    def gift_marks(self, result: Mapping[str, Any]) -> tuple[tuple[int, str], ...]:
        """What a stored result counts of viewer gifts that changed the round while it
        was played, each count with what it counts (Dou Dizhu: effects applied, viewer
        doubles): a ranked round must count none."""
        ...

    def record_problem(self, recorded: RecordedRound, played: Any) -> str | None:
        """What the round's stored record (``recorded.summary``) or header says against
        the engine round ``replay_check`` returned (Dou Dizhu: its deal, bottom cards,
        first bidder); None when they agree."""
        ...


def _never_over(records: Sequence[Any]) -> bool:
    """A game whose matches end only at their count of rounds (Dou Dizhu)."""
    return False


def _nothing_fixed(round_no: int, rules: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """A game whose rounds are drawn whole from their seeds."""
    return {}


@dataclass(frozen=True, slots=True)
class Game:
    """One game as the arena sees it (see the module)."""

    name: str
    """The config's ``game = "..."``, the replay header's and every event's ``game``."""
    title: str
    """For people: ``斗地主 (Dou Dizhu)``."""
    rules: type[GameRules]
    """The model of ``[rules]``; its defaults are the game's default rules."""
    seats: Callable[[Any], int]
    """How many seats a table of these rules has (Dou Dizhu: 3; Tractor: 4 or 6)."""
    default_seats: tuple[tuple[str, str], ...]
    """Name and agent type of each seat when the config names none: scripted agents,
    one seat each (tables of more seats repeat them, numbered)."""
    requests: Mapping[str, str]
    """Each request type an agent answers, and the name of the in-process agent's method
    that answers it (``{"BID_REQUEST": "bid", ...}``): the one place this is said."""
    gift_effects: frozenset[str]
    """The viewer gift effects this game offers; a gift for another is refused."""
    sides: Callable[[Any], Sides] = field(repr=False)
    """A finished round's sides, the winning side first (``sides(result)`` with the
    round's result, Dou Dizhu's ``Settlement``): what results, ratings and leaderboards
    count, rather than a game's roles."""
    turns: Callable[[Game, Any, Any, Sequence[bool]], Turns] = field(repr=False)
    """The game's turns for a table: ``turns(game, table, rules, listing)``: ``game`` this
    descriptor (a variant of it, as tests make, plays as itself), ``listing`` saying
    per seat whether its requests list the legal moves on the wire."""
    public_state: Callable[..., Any] = field(repr=False)
    """A table's public snapshot for late subscribers (MQTT, the overlay):
    ``public_state(table, run_id=..., match_id=None)``, an
    ``arena.sinks.public_state.TableState`` that folds the table's events."""
    spectator_table: Callable[[Any, str], Any] = field(repr=False)
    """A table's recorder for the delayed spectator feed, which follows what each seat
    holds: ``spectator_table(feed, table)``, an ``arena.sinks.spectator.SpectatorTable``."""
    console: Callable[[], Any] = field(repr=False)
    """The game's part of the terminal: how its events read as lines, its panel on the
    live board (``arena.sinks.game_console.GameConsole``)."""
    match_over: Callable[[Sequence[Any]], bool] = field(default=_never_over, repr=False)
    """Whether a match is over by the game's own rule after the rounds played so far
    (their records): Tractor ends when a team passes A. Dou Dizhu has none (never: a
    match is the rounds it was given). A match also ends at its count of rounds, or by a
    tournament format's rule, whichever comes first."""
    replayed_notifications: tuple[str, ...] = ()
    """The notifications a program started afresh mid-round needs again, the first of
    them starting a round (Dou Dizhu: DEAL, then BOTTOM_CARDS): a program's seat keeps
    this round's and writes them to the new process before the next request."""
    scripted_agents: Mapping[str, str] = field(default_factory=dict)
    """The game's own agent types, each name (a seat's ``type``) with the ``module:Class``
    of its class, imported when a seat names it (Dou Dizhu: ``random``, ``greedy``,
    ``heuristic``). The arena's transports (``subprocess``, ``http``, ``openai``, ...)
    are every game's (:data:`arena.agents.registry.BUILTIN_AGENTS`)."""
    check_positions: Callable[[], Any] | None = field(default=None, repr=False)
    """``arena agent check``'s part of the game, loaded when a check runs: its hard
    positions and the judge of a reply (an ``arena.testing.CheckPositions``); None for
    a game without."""
    replay_check: Callable[[RecordedRound], Any] | None = field(default=None, repr=False)
    """Checks one recorded round of the game (``arena replay``, a tournament's verify):
    walks its lines beside a fresh engine and returns the finished engine round, or
    raises ``RoundMismatch`` / ``RoundIncomplete`` (:mod:`arena.replay_round`);
    :func:`arena.replay.verify_round` picks it by the round header's ``game``. None for
    a game whose replays cannot be checked."""
    gifts: Callable[[], Any] | None = field(default=None, repr=False)
    """The game's own gift operations, loaded when a table takes gifts (an
    ``arena.table.safe_point.GameGifts``): the effects of :attr:`gift_effects` only its
    rules give a meaning to (Dou Dizhu: DOUBLE, ROLE_SWAP) and the refusals its rules
    make (Dou Dizhu's ``double_cap``); None for a game whose effects are all the
    gifts layer's own (cheers, emotes, peeks, moved cards, a reshuffle)."""
    round_plan: Callable[[int, Any, Mapping[str, Any]], dict[str, Any]] = field(
        default=_nothing_fixed, repr=False
    )
    """What a match fixes of a round before it is dealt, rather than drawing it from the
    seed: ``round_plan(round_no, rules, options)``, the ``play_round`` keywords
    (:attr:`arena.table.safe_point.NextRound.fixed`; gifts between rounds may add to
    them). ``options`` are the match's for the game, opaque to the arena (Dou Dizhu:
    ``landlord_policy``, a tournament's 轮庄). Dou Dizhu: the rotating first bidder and
    landlord; what carries over from one round to the next by the result (Tractor's
    banker) the game's turns keep."""
    migrate_config: Callable[[Mapping[str, Any], str], dict[str, Any]] | None = field(
        default=None, repr=False
    )
    """A config's or tournament file's data with the game's old keys moved to their
    place (``migrate_config(data, source)``, a ConfigError naming ``source`` when they
    disagree), before it is validated; None for a game without old keys. Dou Dizhu:
    ``[gifts] max_doubles_per_round`` is ``[rules] max_gift_doubles``."""
    model_prompts: Callable[[], Any] | None = field(default=None, repr=False)
    """What a language-model seat says and reads at this game's table, loaded when a
    model seat is built (an ``arena.agents.llm.game_prompts.ModelPrompts``: prompts,
    their languages, the decision's schema, the reading of an answer); None for a game
    no model seat plays."""
    overlay_assets: Path | None = field(default=None, repr=False)
    """The folder of the game's part of the stream overlay, served at
    ``/static/games/<name>/``: ``overlay.js`` (its renderer: roles, the game's figures
    above the seats, how a seat's action reads, its full-screen effects; see
    docs/overlay.md) and ``overlay.css`` if it has one. None: the overlay shows the
    game's tables with its neutral shell only (names, turns, comments, gifts)."""

    duplicate_rules: Callable[[GameRules], GameRules] | None = field(default=None, repr=False)
    """A tournament's rules made fit for duplicate deals, where every seating of a deal
    must play the same cards (Dou Dizhu: nobody redeals), or a ConfigError saying why the
    file's cannot be; None for a game whose rules need nothing."""
    wire: Callable[[], Wire] | None = field(default=None, repr=False)
    """The game's messages and events as models (:class:`Wire`), loaded when asked for
    (``arena schema``, a check of its events); None for a game that publishes no
    schemas (the tests' fake games)."""
    human_seat: str | None = None
    """The ``module:Class`` of the game's seat for a person at the terminal, the seat
    type ``human`` at its tables (Dou Dizhu's: ``arena.games.ddz.agents.human``,
    asking for bids, doubles and moves); None for a game a person cannot sit at: a
    ``human`` seat is then a config error naming the seat."""
    stand_in: str | None = None
    """The agent type that takes a seat whose agent keeps failing (one of its
    :attr:`scripted_agents`; Dou Dizhu's ``heuristic``), unless the config names
    another; None for a game without a scripted agent to stand in."""
    agent_exports: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Names of the game's agent classes and helpers, each with its ``module:Class``,
    that ``arena.agents``, ``arena.agents.base`` and ``arena.agents.human`` still give
    for the default game, where bots imported them before the game seam (Dou Dizhu's
    ``BaseAgent``, ``HumanAgent``, ...): imported when first asked for."""
    leaderboard_stats: Callable[[], LeaderboardStats] | None = field(default=None, repr=False)
    """The game's own figures on a tournament's leaderboard (:class:`LeaderboardStats`),
    loaded when a leaderboard is built; None for a game with none of its own (its board
    has what every game's has)."""
    forfeit_stake: Callable[[Any], int] | None = field(default=None, repr=False)
    """What a finished round (its result) was played for, the most a seat can lose in it:
    a seat that forfeits a tournament round loses at least this (``tournaments.forfeits``).
    None for a game whose stakes are not known: its tournaments count every round."""
    stored_result: Callable[[Mapping[str, Any]], Any] | None = field(default=None, repr=False)
    """A round's result read back from its stored ``to_dict()`` (a tournament's store);
    None for a game whose results are not stored."""
    result_check: Callable[[Mapping[str, Any], Any, GameRules], Iterable[str]] | None = field(
        default=None, repr=False
    )
    """What a stored round's result says against itself (``arena tournament show``):
    ``result_check(stored, record, rules)`` with the stored round, its record (an
    ``arena.table.records.RoundRecord``, which imports this module) and the tournament's
    rules, each problem a sentence. None for a game whose stored results are checked by
    ``verify`` alone."""

    carried_over: Callable[[Any, Mapping[str, Any]], str | None] | None = field(
        default=None, repr=False
    )
    """What the next round's replay header says against the round before it at the same
    table in one match (``carried_over(previous, header)`` with the engine round
    :attr:`replay_check` returned for the round before): Tractor's levels, banker and
    tie-break seat carry over from one round's score to the next. A sentence, or None
    when they agree. None for a game whose rounds stand alone (Dou Dizhu)."""

    round_audit: Callable[[], RoundAudit] | None = field(default=None, repr=False)
    """What a tournament's verify checks of a recorded round beside its moves
    (:class:`RoundAudit`), loaded when a verify runs; None for a game whose rounds are
    checked by their moves alone."""

    @property
    def ends_by_itself(self) -> bool:
        """Whether the game has a rule of its own that ends a match (:attr:`match_over`
        other than "never"), so a match of it may be given no count of rounds."""
        return self.match_over is not _never_over

    @property
    def agent_methods(self) -> tuple[str, ...]:
        """What an in-process agent must have to play this game: the methods its
        ``requests`` name, each once, in order."""
        return tuple(dict.fromkeys(self.requests.values()))

    def seat_count(self, rules: GameRules | None = None) -> int:
        """The seats of a table under ``rules`` (the default rules when None)."""
        return self.seats(rules if rules is not None else self.rules())

    def default_rules(self) -> GameRules:
        """The rules of a config that says nothing under ``[rules]``."""
        return self.rules()

    def parse_rules(self, data: Mapping[str, Any] | GameRules | None) -> GameRules:
        """``[rules]`` as this game's model (pydantic's errors name each bad key)."""
        if isinstance(data, self.rules):
            return data
        if isinstance(data, GameRules):
            raise TypeError(f"{type(data).__name__} are not {self.name} rules")
        return self.rules.model_validate(dict(data or {}))
