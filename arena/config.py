"""Arena configuration: TOML files validated by pydantic, with errors naming file and key.

Every setting has an embedded default, so ``arena play`` runs with no file at all;
``config/arena.toml`` documents the same defaults with comments.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializeAsAny,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import PydanticCustomError

from arena.errors import ConfigError
from arena.games.base import Game, GameRules
from arena.games.registry import DEFAULT_GAME, get_game
from arena.secrets import variable_name
from arena.table.moderation import ModerationSettings, load_hook
from arena.table.settings import TableSettings

__all__ = [
    "ArenaConfig",
    "MatchSettings",
    "ModerationSettings",
    "MqttSettings",
    "SeatConfig",
    "ServerSettings",
    "SpectatorSettings",
    "config_problems",
    "game_of",
    "gift_doubles_in_rules",
    "known_game",
    "load_config",
    "migrate_config",
    "named_game",
    "named_key",
    "parse_config",
    "read_toml",
    "rules_of_game",
]


class SeatConfig(BaseModel):
    """One seat: a display name, an agent type, and options for that agent."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    name: str = Field(min_length=1, max_length=40)
    type: str = Field(default="heuristic", min_length=1)
    """A built-in (random, greedy, heuristic, human), an entry-point name or module:Class."""
    timeout_s: float | None = Field(default=None, gt=0, le=3600)
    """This seat's decision deadline; default: the table's (a human seat gets 10 minutes)."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Keyword arguments for the agent class."""
    avatar: str | None = Field(default=None, min_length=1, max_length=2000)
    """The picture the stream overlay shows for this seat: an image file (served by
    ``arena serve`` at ``/avatars/<n>``) or an ``http(s)://`` URL."""

    @field_validator("avatar")
    @classmethod
    def _avatar(cls, value: str | None) -> str | None:
        if value is None or value.startswith(("http://", "https://")):
            return value
        if "://" in value or value.startswith(("data:", "javascript:")):
            raise ValueError(f"{value[:60]!r}: an avatar is an image file or an http(s):// URL")
        return value

    @property
    def effective_timeout_s(self) -> float | None:
        """The deadline to use, a human's being generous unless set."""
        if self.timeout_s is None and self.type == "human":
            return 600.0
        return self.timeout_s


class MatchSettings(BaseModel):
    """How much to play: rounds per table, tables at once, and the seed.

    Strict, like every settings model: ``rounds = "3"`` or ``rounds = true`` is an error,
    not a quiet conversion (a float field takes a TOML integer, but not nan or inf).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    rounds: int = Field(default=3, ge=1, le=100_000)
    tables: int = Field(default=1, ge=1, le=10_000)
    seed: int | None = Field(default=None, ge=0, le=2**53 - 1)
    """None: a fresh random seed each run (printed, so a good match can be replayed).
    At most 2**53 - 1, so that it survives a replay's JSON in any language."""


_TOPIC_LEVEL: Final = re.compile(r"[^#+/\x00]+(/[^#+/\x00]+)*")
"""A topic prefix: one or more levels, none empty, no wildcard (``+``, ``#``)."""


class MqttSettings(BaseModel):
    """The live feed over MQTT (``[mqtt]``; ``arena play --mqtt`` turns it on).

    Credentials come from the environment: ``username_env`` and ``password_env`` name
    the variables, never hold the values (a value that is no variable name is refused
    unseen: it may be the password itself).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    enabled: bool = False
    host: str = Field(default="127.0.0.1", min_length=1)
    port: int = Field(default=1883, ge=1, le=65535)
    tls: bool = False
    """TLS with the system's certificate authorities (``mqtts://`` on the command line)."""
    username_env: str | None = None
    password_env: str | None = None
    client_id: str | None = Field(default=None, min_length=1, max_length=64)
    """None: ``ddz-arena-`` and random hex digits, new each run (not the run's id, which
    every payload shows: a client that connected with the arena's id would take its
    session over)."""
    protocol: Literal["5", "3.1.1"] = "5"
    topic_prefix: str = Field(default="ddz-arena", max_length=200)
    """The first levels of every topic: ``<prefix>/status``, ``<prefix>/tables/...``."""
    queue_size: int = Field(default=10_000, ge=1, le=1_000_000)
    """Messages kept while the broker is slow or away; beyond it the oldest are dropped
    (counted and logged)."""

    @field_validator("username_env", "password_env")
    @classmethod
    def _variable_name(cls, value: str | None, info: Any) -> str | None:
        if value is None:
            return None
        secret = "the password" if info.field_name == "password_env" else "the user name"
        example = "MQTT_PASSWORD" if info.field_name == "password_env" else "MQTT_USERNAME"
        return variable_name(value, info.field_name, example=example, secret=secret)

    @field_validator("protocol", mode="before")
    @classmethod
    def _protocol_number(cls, value: Any) -> Any:
        """``protocol = 5`` in TOML means the same as ``"5"``."""
        return "5" if type(value) is int and value == 5 else value

    @field_validator("topic_prefix")
    @classmethod
    def _topic_prefix(cls, value: str) -> str:
        if not _TOPIC_LEVEL.fullmatch(value):
            raise ValueError(
                f"{value!r} is no topic prefix: levels separated by '/', none empty, "
                "no wildcard ('+', '#'), such as ddz-arena or studio/cards"
            )
        return value


class SpectatorSettings(BaseModel):
    """The delayed spectator feed (``[spectator]``; ``arena play --spectator-delay``).

    Every hand, for a stream, released ``delay_s`` after it happened, on the server
    side (arena/sinks/spectator.py), to ``<prefix>/tables/<table>/spectator`` over MQTT.
    Off unless enabled: an agent must never see the hands live.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    enabled: bool = False
    delay_s: float = Field(default=30.0, ge=0, le=3600)
    """Seconds between a hand and its showing (0: at once, for a match nobody plays for)."""
    max_pending: int = Field(default=20_000, ge=1, le=1_000_000)
    """Items held during the delay; beyond it new ones are dropped (counted and logged)."""


class ServerSettings(BaseModel):
    """The arena server and its stream overlay (``[server]``; ``arena serve``,
    ``arena play --serve``). It listens on 127.0.0.1 only, unless ``--host`` says
    otherwise (and a token is set): there is no host key here on purpose."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    port: int = Field(default=8750, ge=0, le=65535)
    """0: any free port (printed)."""
    lang: Literal["zh", "en"] = "zh"
    """The overlay's labels unless its URL says ``?lang=``."""
    sound: bool = False
    """Sound effects for bombs, rockets, spring and gifts (``?sound=1`` turns them on
    for one page)."""
    between_tables_s: float = Field(default=5.0, ge=0, le=600)
    """``tournament run --serve``: when the featured table ends, the overlay shows it
    this long more with the between screen (the standings, the next table, a
    countdown) before it follows the next table; 0: at once. The tables do not wait."""


class ArenaConfig(BaseModel):
    """The whole configuration file: the game first, since its ``[rules]`` and its
    number of seats depend on it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    game: str = DEFAULT_GAME
    """Which game the tables play (``arena.games``): ``ddz`` unless said."""
    match: MatchSettings = Field(default_factory=MatchSettings)
    rules: SerializeAsAny[GameRules] = Field(default=None, validate_default=True)
    """The game's rule settings: its own model (:attr:`Game.rules`), its defaults when
    the file has no ``[rules]``."""
    table: TableSettings = Field(default_factory=lambda: TableSettings(pace_s=0.6))
    moderation: ModerationSettings = Field(default_factory=ModerationSettings)
    """What viewers may read of the agents' comments and strategy hints."""
    mqtt: MqttSettings = Field(default_factory=MqttSettings)
    """The live feed over MQTT, off unless enabled."""
    spectator: SpectatorSettings = Field(default_factory=SpectatorSettings)
    """The delayed feed of every hand (over MQTT), off unless enabled."""
    server: ServerSettings = Field(default_factory=ServerSettings)
    """The arena server and its overlay (``--serve``)."""
    gifts: dict[str, Any] = Field(default_factory=dict)
    """Viewer gifts, off unless enabled: kept as written here and validated by the gifts
    package when ``arena play`` reads the file (this package does not depend on it)."""
    seats: tuple[SeatConfig, ...] = Field(default=(), validate_default=True)
    """One per seat, as many as the game's table has; none: the game's scripted ones."""

    @field_validator("game")
    @classmethod
    def _known_game(cls, name: str) -> str:
        return known_game(name)

    @field_validator("rules", mode="wrap")
    @classmethod
    def _game_rules(cls, value: Any, handler: Any, info: ValidationInfo) -> GameRules:
        return rules_of_game(value, info)

    @field_validator("seats", mode="before")
    @classmethod
    def _seat_count(cls, seats: Any, info: ValidationInfo) -> Any:
        """Say how many seats there must be, instead of pydantic's ``seats.2: Field
        required``; none given: the game's default seats."""
        game = game_of(info)
        rules = info.data.get("rules")
        count = game.seat_count(rules if isinstance(rules, game.rules) else None)
        if seats is None or seats == ():
            return default_seats(game, count)
        if isinstance(seats, list | tuple) and len(seats) != count:
            raise ValueError(f"{count} seats needed for {game.title}, {len(seats)} given")
        return seats

    @field_validator("seats")
    @classmethod
    def _distinct_names(cls, seats: tuple[SeatConfig, ...]) -> tuple[SeatConfig, ...]:
        names = [s.name for s in seats]
        if len(set(names)) != len(names):
            raise ValueError(f"seat names must be distinct, got {names}")
        return seats

    @property
    def game_info(self) -> Game:
        """The :class:`~arena.games.base.Game` this config plays."""
        return get_game(self.game)


def known_game(name: str) -> str:
    """A file's ``game``, checked (a field validator's): pydantic names the key, and the
    message lists the games there are."""
    try:
        get_game(name)
    except ConfigError as exc:
        raise PydanticCustomError("unknown_game", "{reason}", {"reason": str(exc)}) from None
    return name


def game_of(info: ValidationInfo) -> Game:
    """The game of the file being validated (``game`` is a field before the rest, checked
    first: an unknown one has its own error, and the rest is read as the default game's)."""
    return named_game(info.data)


def rules_of_game(value: Any, info: ValidationInfo) -> GameRules:
    """``[rules]`` read by the file's game's own model (its errors name each key); the
    game's defaults when the file has none."""
    game = game_of(info)
    return game.default_rules() if value is None else game.parse_rules(value)


def default_seats(game: Game, count: int) -> tuple[SeatConfig, ...]:
    """The game's scripted seats, repeated with a number when the table has more."""
    defaults = game.default_seats
    seats = []
    for index in range(count):
        name, kind = defaults[index % len(defaults)]
        lap = index // len(defaults)
        seats.append(SeatConfig(name=f"{name} {lap + 1}" if lap else name, type=kind))
    return tuple(seats)


def load_config(path: str | Path | None = None) -> ArenaConfig:
    """Read and validate a config file; None gives the embedded defaults.

    Raises :class:`ConfigError` naming the file and each bad key.
    """
    if path is None:
        return ArenaConfig()
    return parse_config(read_toml(path, "config file"), source=str(path))


_BOM: Final = "\ufeff".encode()


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """A TOML file's data; a ConfigError names the file and says what is wrong with it
    (``what`` names the kind of file: ``config file``, ``tournament file``)."""
    file = Path(path)
    if file.is_dir():
        raise ConfigError(f"{file}: is a folder, not a {what}")
    try:
        raw = file.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{file}: no such {what}") from None
    except OSError as exc:
        raise ConfigError(f"{file}: cannot read: {exc.strerror}") from exc
    try:
        text = raw.removeprefix(_BOM).decode("utf-8")  # a BOM, as some editors write
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{file}: not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}): save it "
            "as UTF-8 (an editor's 'Save with encoding'; GBK and Latin-1 are not read)"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{file}: not valid TOML: {exc}") from exc


def parse_config(
    data: dict[str, Any], *, source: str = "<config>", aliases: Mapping[str, str] | None = None
) -> ArenaConfig:
    """Validate already-parsed config data; errors name ``source`` and the keys.

    ``aliases`` names keys the way the user gave them (``{"match.rounds": "--rounds"}``):
    an error in such a key names the alias alone.
    """
    game = named_game(data)
    data = migrate_config(data, source=source, game=game)
    try:
        config = ArenaConfig.model_validate(data)
    except ValidationError as exc:
        problems = []
        sections = {**_SECTIONS, ("rules",): game.rules}
        for key, message in config_problems(exc, sections):
            if aliases and key in aliases:
                problems.append(f"{aliases[key]}: {message}")
            else:
                problems.append(f"{source}: {named_key(key, data, 'seats', 'seat')}: {message}")
        raise ConfigError("\n".join(problems)) from exc
    _check_agent_types(config, source)
    _check_human_seats(config, source, aliases or {})
    _check_moderation_hook(config, source)
    return config


def named_game(data: Mapping[str, Any]) -> Game:
    """The game a file's data names, for reading the rest; an unknown name (its own
    error, from the model) reads as the default game."""
    name = data.get("game", DEFAULT_GAME)
    try:
        return get_game(name if isinstance(name, str) else DEFAULT_GAME)
    except ConfigError:
        return get_game(DEFAULT_GAME)


def migrate_config(
    data: Mapping[str, Any], *, source: str, game: Game | None = None
) -> dict[str, Any]:
    """A file's data with ``game``'s old keys moved to their place before it is
    validated (:attr:`arena.games.base.Game.migrate_config`; Dou Dizhu: ``[gifts]
    max_doubles_per_round`` is ``[rules] max_gift_doubles``); ``game`` by default the
    one the data names. A ConfigError names ``source`` when the old and new disagree."""
    game = game if game is not None else named_game(data)
    if game.migrate_config is None:
        return dict(data)
    return game.migrate_config(data, source)


def gift_doubles_in_rules(data: Mapping[str, Any], *, source: str) -> dict[str, Any]:
    """:func:`migrate_config` by its old name (the cap on viewer doubles was the one key
    a game moved)."""
    return migrate_config(data, source=source)


_SECTIONS: dict[tuple[str, ...], type[BaseModel]] = {
    (): ArenaConfig,
    ("match",): MatchSettings,
    ("table",): TableSettings,
    ("moderation",): ModerationSettings,
    ("mqtt",): MqttSettings,
    ("spectator",): SpectatorSettings,
    ("server",): ServerSettings,
    ("seats",): SeatConfig,
}
"""The model behind each place a key can be, seat numbers left out: its known keys."""


_SECRET_NAME: Final = re.compile(r"(?i)(api_?key|secret|token|password)$")
"""A key named like a secret (``api_key = "sk-..."`` at a seat's level): it gets a hint."""
_KEYS_FROM_THE_ENVIRONMENT: Final = (
    "keys come from the environment only: set options.api_key_env (model seats) "
    "to the variable's name"
)
_MQTT_FROM_THE_ENVIRONMENT: Final = (
    "the broker's user name and password come from the environment only: set "
    "username_env / password_env to the variables' names"
)


def config_problems(
    exc: ValidationError,
    sections: Mapping[tuple[str, ...], type[BaseModel]],
    *,
    unknown: Mapping[tuple[Any, ...], str] | None = None,
) -> list[tuple[str, str]]:
    """(key, message) per mistake of a config file, for people.

    ``sections`` maps each place a key can be (list indexes left out) to its model, so
    an unknown key is offered a close known one (never one named like a secret, which is
    told to come from the environment); ``unknown`` gives a message of its own to an
    unknown key at a place (``("seats",)`` in a tournament file). ``nmae = "Beta"`` would
    also make ``name`` missing; that second line says the same mistake again, so the
    unknown key's ``did you mean 'name'?`` stands for both.
    """
    errors = exc.errors(include_url=False)
    meant: set[tuple[Any, ...]] = set()
    found: list[tuple[tuple[Any, ...], str]] = []
    for error in errors:
        loc, message = tuple(error["loc"]), error["msg"]
        if error["type"] == "extra_forbidden":
            fields = sections.get(tuple(p for p in loc[:-1] if isinstance(p, str)))
            close = difflib.get_close_matches(
                str(loc[-1]), list(fields.model_fields) if fields else [], n=1
            )
            if _SECRET_NAME.search(str(loc[-1])):  # the key itself, maybe: never shown
                close = []
                where = _MQTT_FROM_THE_ENVIRONMENT if loc[0] == "mqtt" else None
                message = f"unknown key; {where or _KEYS_FROM_THE_ENVIRONMENT}"
            else:
                message = "unknown key" + (f"; did you mean {close[0]!r}?" if close else "")
            message = (unknown or {}).get(loc, message)
            meant.update((*loc[:-1], name) for name in close)
        elif error["type"] == "value_error":
            message = str(error["ctx"]["error"])  # without pydantic's "Value error, "
        elif error["type"].endswith("_type") and isinstance(error.get("input"), str):
            # strict config: "2" or "true" in quotes is text, the commonest TOML slip
            fix = "true or false" if error["type"] == "bool_type" else "it"
            message += f" (got {error['input']!r}: write {fix} without quotes)"
        elif error["type"].endswith("_type") and isinstance(error.get("input"), int | float):
            message += f" (got {error['input']!r})"
        found.append((loc, message))
    return [
        (".".join(str(part) for part in loc) or "(top level)", message)
        for loc, message in found
        if not (loc in meant and message == "Field required")
    ]


def named_key(key: str, data: Any, listed: str, noun: str) -> str:
    """``seats.1.timeout_s (seat 'Beta')``: entries of a list (``listed``: ``seats``,
    ``agents``) count from 0 in keys, so the entry's name says which is meant; a key
    outside the list, or an entry without a name, as is."""
    parts = key.split(".")
    if len(parts) < 2 or parts[0] != listed or not parts[1].isdigit():
        return key
    entries = data.get(listed) if isinstance(data, Mapping) else None
    index = int(parts[1])
    if not isinstance(entries, list | tuple) or index >= len(entries):
        return key
    entry = entries[index]
    name = entry.get("name") if isinstance(entry, Mapping) else None
    return f"{key} ({noun} {name!r})" if isinstance(name, str) and name else key


def _seat_key(config: ArenaConfig, index: int) -> str:
    """``seats.1 (seat 'Beta')``: the key and the name, so nobody counts from 1."""
    return f"seats.{index} (seat {config.seats[index].name!r})"


def _check_human_seats(config: ArenaConfig, source: str, aliases: Mapping[str, str]) -> None:
    """A person at the terminal can sit at one table: two would share one keyboard."""
    humans = [_seat_key(config, i) for i, seat in enumerate(config.seats) if seat.type == "human"]
    if humans and config.match.tables > 1:
        key = aliases.get("match.tables", f"{source}: match.tables")
        raise ConfigError(
            f"{key}: a human seat, {humans[0]}, plays at one table only, not {config.match.tables}"
        )


def _check_agent_types(config: ArenaConfig, source: str) -> None:
    """Resolve every seat's agent type now, and check it is an agent class, so a typo
    fails before the match starts (without building an agent: that may start things)."""
    from arena.agents.registry import check_agent_class

    checks = [
        (f"seats.{i}.type (seat {seat.name!r})", seat.type) for i, seat in enumerate(config.seats)
    ]
    standin = config.table.standin or config.game_info.stand_in
    if standin is not None:
        checks.append(("table.standin", standin))
    for key, type_name in checks:
        try:
            check_agent_class(type_name, config.game_info)
        except ConfigError as exc:
            raise ConfigError(f"{source}: {key}: {exc}") from exc


def _check_moderation_hook(config: ArenaConfig, source: str) -> None:
    """Load the moderation hook now, so a typo fails before the match starts."""
    if config.moderation.enabled and config.moderation.hook:
        try:
            load_hook(config.moderation.hook)
        except ConfigError as exc:
            raise ConfigError(f"{source}: {exc}") from exc
