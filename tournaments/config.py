"""A tournament file: its ``game``, ``[tournament]``, the ``[[agents]]`` roster, and
the table sections ``arena play`` knows (``[rules]``, ``[table]``, ``[moderation]``,
``[mqtt]``, ``[spectator]``, ``[gifts]``).

The game is named as in an arena config (``game = "ddz"`` by default, before any
section), and ``[rules]`` is read by that game's rules model; the game's table size
(:attr:`TournamentConfig.seat_count`) is what the schedule seats, the roster must fill
and duplicate mode reorders.

Validated like ``arena play``'s config (strict, frozen, unknown keys refused with a
close known one offered), and every mistake is reported at once, naming the file and
the key. ``config/tournament.toml`` is a commented example.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    Strict,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from arena.config import (
    MqttSettings,
    SeatConfig,
    ServerSettings,
    SpectatorSettings,
    config_problems,
    game_of,
    known_game,
    migrate_config,
    named_game,
    named_key,
    read_toml,
    rules_of_game,
)
from arena.errors import ConfigError
from arena.games.base import Game, GameRules
from arena.games.registry import DEFAULT_GAME, get_game
from arena.table.moderation import ModerationSettings, load_hook
from arena.table.settings import TableSettings
from tournaments.deals import MOST_SEATINGS, Duplicate, seating_count
from tournaments.forfeits import StandinRounds, forfeits_known
from tournaments.formats import Format, LandlordPolicy
from tournaments.schedule import ScheduleKind, default_kind, default_stages
from tournaments.seeds import TournamentSeed, parse_seed

__all__ = [
    "AgentEntry",
    "TournamentConfig",
    "TournamentSettings",
    "load_tournament_config",
    "match_options",
    "parse_stored_config",
    "parse_tournament_config",
]

AgentEntry = SeatConfig
"""One agent of the roster (``[[agents]]``): name, type, options, timeout_s, exactly
as a seat of ``arena play``'s config."""


class TournamentSettings(BaseModel):
    """``[tournament]``: what is played, and how long."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    name: str = Field(min_length=1, max_length=80)
    format: Annotated[Format, Strict(False)] = Format.STANDARD
    """quick (best of 5), standard (10 rounds), championship (20) or daily (open-ended)."""
    landlord_policy: Annotated[LandlordPolicy, Strict(False)] = LandlordPolicy.BID
    """bid (normal bidding) or rotate (轮庄: each seat landlord in turn)."""
    seed: int | str | None = None
    """None: a fresh seed of 128 bits per tournament (stored, so it can be resumed and
    replayed); a number up to 2^53-1 (tests: not verifiable); or hex text, ``"0x"`` and
    32 hex digits or more for a verifiable one (``tournaments.seeds``)."""
    stages: int | None = Field(default=None, ge=1, le=10_000)
    """None: one full round robin over the triples, or 5 Swiss stages when that would
    be more than 20 table matches (``tournaments.schedule.default_stages``)."""
    tables_at_once: int | None = Field(default=None, ge=1, le=1000)
    """Tables playing at the same time; None: every table of a stage."""
    session_rounds: int | None = Field(default=None, ge=1, le=1_000_000)
    """``daily`` only: the rounds one session plays (across the stage's tables) before
    it stops, resumable; None: until stopped (Ctrl-C). ``--rounds N`` overrides it."""

    standin_rounds: Annotated[StandinRounds, Strict(False)] = StandinRounds.FORFEIT
    """forfeit: a round a seat did not play itself (a stand-in or fallbacks made most of
    its decisions) is a loss at the round's stakes for it, never a win; count: as the
    table scored it (``tournaments.forfeits``)."""
    duplicate: Annotated[Duplicate, Strict(False)] = Duplicate.OFF
    """off; rotations (each table match played in as many seatings as the table has
    seats, the agents rotated through the seats, every seating dealt the same cards);
    all (every order: 6 seatings for three seats). Not for quick or daily (see
    ``_duplicate_needs_fixed_deals``)."""

    @field_validator("duplicate")
    @classmethod
    def _duplicate_needs_fixed_deals(cls, mode: Duplicate, info: ValidationInfo) -> Duplicate:
        """Duplicate seatings must play the same deals: a best of five ends on round
        wins, so its seatings would stop after different deals; a daily match never ends
        and is a show, not a comparison."""
        played = info.data.get("format")
        if mode is not Duplicate.OFF and played in (Format.QUICK, Format.DAILY):
            why = (
                "a best of five ends on round wins, so its seatings would play different deals"
                if played is Format.QUICK
                else "a daily match is an open-ended show, never a whole set of deals"
            )
            raise ValueError(
                f"duplicate {mode.value!r} is not for a {played} tournament: {why}; "
                "choose standard or championship, or leave duplicate out"
            )
        return mode

    @field_validator("seed", mode="before")
    @classmethod
    def _seed_parses(cls, seed: Any) -> Any:
        if isinstance(seed, str) and seed.strip().isdigit():
            raise ValueError(
                f"{seed!r} is text: write it without quotes (seed = {seed.strip()}), "
                'or hex text such as "0x" and 32 hex digits'
            )
        if seed is not None:
            parse_seed(seed)  # a ValueError says what is wrong with it
        return seed

    @property
    def given_seed(self) -> TournamentSeed | None:
        """The file's seed as committed to, None when the file gives none."""
        return None if self.seed is None else parse_seed(self.seed)

    @model_validator(mode="after")
    def _sessions_are_daily(self) -> TournamentSettings:
        if self.session_rounds is not None and self.format is not Format.DAILY:
            raise ValueError(
                f"session_rounds: only a daily tournament has sessions; a {self.format} "
                "tournament has a fixed length (leave session_rounds out)"
            )
        return self


class TournamentConfig(BaseModel):
    """The whole tournament file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: str = DEFAULT_GAME
    """Which game the tables play (``arena.games``): ``ddz`` unless said."""
    tournament: TournamentSettings
    rules: SerializeAsAny[GameRules] = Field(default=None, validate_default=True)
    """The game's rule settings, read by its own model (:attr:`Game.rules`); before the
    roster, whose size the game's table (under these rules) decides."""
    agents: tuple[AgentEntry, ...]
    table: TableSettings = Field(default_factory=TableSettings)
    """Unlike ``arena play``, no pause between actions by default (``pace_s = 0``)."""
    moderation: ModerationSettings = Field(default_factory=ModerationSettings)
    """What viewers may read of the agents' comments and strategy hints, as in
    ``arena play``: the stored rounds keep the filtered texts."""
    mqtt: MqttSettings = Field(default_factory=MqttSettings)
    spectator: SpectatorSettings = Field(default_factory=SpectatorSettings)
    """The delayed feed of every hand, as in ``arena play``: with the MQTT feed on
    (``--mqtt``), each table's hands on ``<prefix>/tables/<table>/spectator``."""
    server: ServerSettings = Field(default_factory=ServerSettings)
    """The arena server and its overlay (``tournament run --serve``)."""
    gifts: dict[str, Any] = Field(default_factory=lambda: {"mode": "ranked"})
    """Viewer gifts, off unless enabled, validated by the gifts package when the
    tournament starts. Tournaments are ranked: ``mode`` is always ``"ranked"`` (every
    effect that could change a result is rejected); writing ``mode = "show"`` is an error,
    leaving it out is the same as ``"ranked"``."""

    @field_validator("game")
    @classmethod
    def _known_game(cls, name: str) -> str:
        return known_game(name)

    @field_validator("rules", mode="wrap")
    @classmethod
    def _game_rules(cls, value: Any, handler: Any, info: ValidationInfo) -> GameRules:
        """``[rules]`` read by the game's own model (its errors name each key)."""
        return _fit_for_duplicate_deals(rules_of_game(value, info), info)

    @field_validator("agents", mode="before")
    @classmethod
    def _a_table_at_least(cls, agents: Any, info: ValidationInfo) -> Any:
        """As many agents as one table has seats, at least (the error says how many)."""
        game = game_of(info)
        rules = info.data.get("rules")
        seats = game.seat_count(rules if isinstance(rules, game.rules) else None)
        if isinstance(agents, list | tuple) and len(agents) < seats:
            raise ValueError(
                f"at least {seats} agents needed, {len(agents)} given "
                f"({game.title} seats {seats} at a table)"
            )
        return agents

    @field_validator("agents")
    @classmethod
    def _distinct_names(cls, agents: tuple[AgentEntry, ...]) -> tuple[AgentEntry, ...]:
        names = [agent.name for agent in agents]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"agent names must be distinct: {', '.join(twice)} more than once")
        return agents

    @field_validator("gifts")
    @classmethod
    def _ranked(cls, gifts: dict[str, Any]) -> dict[str, Any]:
        mode = gifts.get("mode", "ranked")
        if mode != "ranked":
            raise ValueError(
                f"mode {mode!r}: tournaments are ranked, gifts never change a result; "
                'leave mode out or write "ranked"'
            )
        return {**gifts, "mode": "ranked"}

    @property
    def game_info(self) -> Game:
        """The :class:`~arena.games.base.Game` this tournament plays."""
        return get_game(self.game)

    @property
    def seat_count(self) -> int:
        """The seats of each table: the game's, under the file's rules."""
        return self.game_info.seat_count(self.rules)

    @property
    def names(self) -> tuple[str, ...]:
        """The roster's names, in file order."""
        return tuple(agent.name for agent in self.agents)

    @property
    def schedule_kind(self) -> ScheduleKind:
        """Round robin over the groups of a table's size while that is at most 20 table
        matches, else Swiss (a roster of one table: one table match)."""
        return default_kind(len(self.agents), size=self.seat_count)

    @property
    def stage_count(self) -> int:
        """``[tournament] stages``, or the default for the roster's size."""
        return self.tournament.stages or default_stages(len(self.agents), size=self.seat_count)


def _fit_for_duplicate_deals(rules: GameRules, info: ValidationInfo) -> GameRules:
    """In duplicate mode every seating of a deal plays the same cards: the game makes its
    rules fit (``Game.duplicate_rules``; Dou Dizhu: nobody redeals), or says why the
    file's cannot be. A game without such a rule plays its rules as they are."""
    settings = info.data.get("tournament")
    if settings is None or settings.duplicate is Duplicate.OFF:
        return rules
    fit = game_of(info).duplicate_rules
    return rules if fit is None else fit(rules)


def match_options(config: TournamentConfig) -> dict[str, Any]:
    """The options every match of the tournament passes its game's round plan
    (``arena.table.play_match(options=...)``): ``landlord_policy``, which Dou Dizhu's
    plan reads (轮庄) and another game's ignores."""
    return {"landlord_policy": config.tournament.landlord_policy.value}


def load_tournament_config(path: str | Path) -> TournamentConfig:
    """Read and validate a tournament file; :class:`ConfigError` names the file and
    each bad key."""
    return parse_tournament_config(read_toml(path, "tournament file"), source=str(path))


def parse_tournament_config(
    data: Mapping[str, Any], *, source: str = "<tournament>"
) -> TournamentConfig:
    """Validate already-parsed data; every error names ``source`` and the key."""
    game = named_game(data)
    data = migrate_config(data, source=source, game=game)
    try:
        config = TournamentConfig.model_validate(data)
    except ValidationError as exc:
        sections = {**_SECTIONS, ("rules",): game.rules}
        problems = config_problems(exc, sections, unknown=_UNKNOWN)
        lines = [
            f"{source}: {named_key(key, data, 'agents', 'agent')}: {text}" for key, text in problems
        ]
        raise ConfigError("\n".join(lines)) from exc
    _check_table_size(config, source)
    _check_agent_types(config, source)
    _check_human_agents(config, source)
    _check_moderation_hook(config, source)
    _check_gifts(config, source)
    _check_one_table(config, source)
    return config


def parse_stored_config(stored: Mapping[str, Any], *, source: str) -> TournamentConfig:
    """A stored tournament's config (:func:`parse_tournament_config`), counted by the
    rule it was played under (:func:`tournaments.forfeits.stored_standin_rounds`: one
    stored before ``standin_rounds`` existed counted every round, and still does)."""
    section = dict(stored.get("tournament", {}))
    section.setdefault("standin_rounds", StandinRounds.COUNT.value)
    return parse_tournament_config({**stored, "tournament": section}, source=source)


_SECTIONS: Final[dict[tuple[str, ...], type[BaseModel]]] = {
    (): TournamentConfig,
    ("tournament",): TournamentSettings,
    ("agents",): SeatConfig,
    ("table",): TableSettings,
    ("moderation",): ModerationSettings,
    ("mqtt",): MqttSettings,
    ("spectator",): SpectatorSettings,
    ("server",): ServerSettings,
}
"""The model behind each place a key can be (agent numbers left out): its known keys;
``[rules]``'s is the game's (:func:`parse_tournament_config` adds it)."""

_UNKNOWN: Final[dict[tuple[Any, ...], str]] = {
    ("seats",): "unknown key; a tournament's roster is [[agents]], not seats",
}
"""Unknown keys that are a known mistake: an arena config's section in a tournament's."""


def _check_table_size(config: TournamentConfig, source: str) -> None:
    """A game whose table the schedule cannot fill sensibly is refused, saying why: a
    table of fewer than two seats is no match, and duplicate ``all`` of a big table
    would play each deal in more orders than anyone could wait for. So is a forfeit in
    a game whose stakes are not known (:mod:`tournaments.forfeits`)."""
    game, seats = config.game_info, config.seat_count
    if seats < 2:
        raise ConfigError(
            f"{source}: game: {game.title} seats {seats} at a table; a tournament needs "
            "tables of two seats or more"
        )
    if config.tournament.standin_rounds is StandinRounds.FORFEIT and not forfeits_known(game):
        raise ConfigError(
            f"{source}: tournament.standin_rounds: a forfeit scores a loss at the round's "
            f"stakes, and {game.title}'s stakes are not known; write "
            'standin_rounds = "count"'
        )
    mode = config.tournament.duplicate
    if seating_count(mode, seats) > MOST_SEATINGS:
        raise ConfigError(
            f"{source}: tournament.duplicate: {mode.value!r} plays every order of "
            f"{game.title}'s {seats} seats, {seating_count(mode, seats)} seatings of each "
            f"deal (at most {MOST_SEATINGS}); choose rotations ({seats} seatings)"
        )


def _check_one_table(config: TournamentConfig, source: str) -> None:
    """What a roster of one table cannot do, and a daily needs: one table match."""
    seats, agents, stages = config.seat_count, len(config.agents), config.tournament.stages
    if config.tournament.format == "daily" and agents > seats:
        raise ConfigError(  # its tables would never end, so no other stage could begin
            f"{source}: tournament.format: daily is one open-ended table match, for exactly "
            f"{seats} agents (a show that goes on day after day); with {agents} "
            "agents choose quick, standard or championship"
        )
    if agents == seats and stages is not None and stages > 1:
        raise ConfigError(  # more stages would replay the one match, seats turned
            f"{source}: tournament.stages: {stages} stages with {seats} agents; {seats} "
            "agents play one table match (leave stages out, or choose a longer format)"
        )


def _check_agent_types(config: TournamentConfig, source: str) -> None:
    """Resolve every agent type now (as ``arena play`` does, without building an agent),
    so a typo fails before the first stage; each bad one is named."""
    from arena.agents.registry import check_agent_class

    checks = [
        (f"agents.{i}.type (agent {agent.name!r})", agent.type)
        for i, agent in enumerate(config.agents)
    ]
    standin = config.table.standin or config.game_info.stand_in
    if standin is not None:
        checks.append(("table.standin", standin))
    problems = []
    for key, type_name in checks:
        try:
            check_agent_class(type_name, config.game_info)
        except ConfigError as exc:
            problems.append(f"{source}: {key}: {exc}")
    if problems:
        raise ConfigError("\n".join(problems))


def _check_human_agents(config: TournamentConfig, source: str) -> None:
    """A person at the terminal can sit at one table at a time: with two tables' agents
    or more a stage may seat several tables at once, so ``tables_at_once`` must be 1;
    and duplicate mode, which plays a deal's seatings at once, is refused."""
    humans = [agent.name for agent in config.agents if agent.type == "human"]
    at_once = config.tournament.tables_at_once
    if humans and config.tournament.duplicate is not Duplicate.OFF:
        raise ConfigError(
            f"{source}: tournament.duplicate: agent {humans[0]!r} is human and plays at one "
            "table at a time, but a deal's seatings play at once (leave duplicate out)"
        )
    if humans and len(config.agents) >= 2 * config.seat_count and at_once != 1:
        raise ConfigError(
            f"{source}: tournament.tables_at_once: agent {humans[0]!r} is human and plays "
            f"at one table at a time; set tables_at_once = 1"
        )


def _check_moderation_hook(config: TournamentConfig, source: str) -> None:
    """Load the moderation hook now, so a typo fails before the first stage."""
    if config.moderation.enabled and config.moderation.hook:
        try:
            load_hook(config.moderation.hook)
        except ConfigError as exc:
            raise ConfigError(f"{source}: moderation.hook: {exc}") from exc


def _check_gifts(config: TournamentConfig, source: str) -> None:
    """``[gifts]`` as the gifts package reads it (only when the file says more than the
    mode, so a tournament without gifts never loads the package). ``default_table`` is
    refused: a tournament's tables change stage by stage."""
    if config.tournament.duplicate is not Duplicate.OFF and config.gifts.get("enabled"):
        raise ConfigError(
            f"{source}: gifts.enabled: not with tournament.duplicate: a viewer's gift or "
            "cheer could carry a deal from one seating to the next (turn one of them off)"
        )
    if set(config.gifts) <= {"mode"}:
        return
    if "default_table" in config.gifts:
        raise ConfigError(
            f"{source}: gifts.default_table: not in a tournament: its tables change stage by "
            "stage (s1t1, s1t2, ...); a gift naming no table goes to the first table playing"
        )
    from gifts.settings import load_gift_settings

    load_gift_settings(config.gifts, source=source)
