"""The match ``arena play`` (and ``arena serve``) plays: the config file with the flags'
overrides, checked as the file is, and whether the live board is shown."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Final

from arena.commands.usage import UsageError
from arena.config import ArenaConfig, load_config, named_game, parse_config
from arena.errors import ConfigError
from arena.games.registry import known_games

__all__ = ["DEFAULT_BROKER", "SHOW_ROUND_PAUSE_S", "add_game_flags", "effective_config"]

DEFAULT_BROKER: Final = "default"
"""``--mqtt`` without a URL (or ``--mqtt default``): the [mqtt] address, else embedded."""

SHOW_ROUND_PAUSE_S: Final = 6.0
"""A served, paced match's pause between rounds (``[table] round_pause_s`` unset): the
overlay's result card stays up this long before the next deal covers the table."""

_FLAG_KEYS = {
    "game": "--game",
    "rules.players": "--players",
    "match.rounds": "--rounds",
    "match.tables": "--tables",
    "match.seed": "--seed",
    "table.pace_s": "--pace",
    "table.round_pause_s": "--round-pause",
    "spectator.delay_s": "--spectator-delay",
}
"""Config keys the ``play`` flags set: an error in one names the flag."""


def add_game_flags(parser: argparse.ArgumentParser) -> None:
    """``--game`` and ``--players``, which ``play`` and ``serve`` share."""
    names = ", ".join(known_games())
    parser.add_argument(
        "--game",
        metavar="NAME",
        help=f"the game the tables play: {names} (default: the config's game); "
        "another game than the config file's plays with its own default rules and seats",
    )
    parser.add_argument(
        "--players",
        type=int,
        metavar="N",
        help="seats at each table, for a game that has a choice (Tractor: 4 or 6; the "
        "default seats are repeated, numbered)",
    )


def _game_data(args: argparse.Namespace, config: ArenaConfig, data: dict[str, Any]) -> None:
    """``--game`` and ``--players`` onto the config's data: another game than the
    file's starts from its own default rules and seats (a file's seats or rules for
    one game mean nothing to another, so naming any is an error); ``--players`` with a
    file that seats another number of agents is an error, without seats the game's
    default ones are seated."""
    game = getattr(args, "game", None)
    players = getattr(args, "players", None)
    if game is not None and game != config.game:
        given = [key for key in ("rules", "seats") if key in config.model_fields_set]
        if given:
            raise UsageError(
                f"--game {game}: the config file sets [{'] and ['.join(given)}] for "
                f"{config.game!r}; give a file with game = {game!r} instead"
            )
        data["game"], data["rules"], data["seats"] = game, None, ()
    if players is not None:
        game_info = named_game(data)
        if "players" not in game_info.rules.model_fields:
            raise UsageError(
                f"--players: {game_info.title} is played by {game_info.seat_count()} "
                "players, no other number"
            )
        rules = dict(data.get("rules") or {})
        rules["players"] = players
        data["rules"] = rules
        if "seats" not in config.model_fields_set:
            data["seats"] = ()  # the game's default seats, as many as the players
        elif len(config.seats) != players:
            raise UsageError(
                f"--players {players}: the config file seats {len(config.seats)} agents"
            )


def effective_config(args: argparse.Namespace) -> tuple[ArenaConfig, bool]:
    """The config file with the command line's overrides, and whether to show the board."""
    config = load_config(args.config)
    match: dict[str, Any] = {}
    if args.rounds is not None:
        match["rounds"] = args.rounds
    if args.tables is not None:
        match["tables"] = args.tables
    if args.seed is not None:
        match["seed"] = args.seed
    data = config.model_dump()
    data["match"].update(match)
    _game_data(args, config, data)
    live = _wants_live(args, config)
    if args.mqtt is not None:
        data["mqtt"]["enabled"] = True
        if args.mqtt != DEFAULT_BROKER:
            from arena.sinks.mqtt import broker_from_url

            try:
                data["mqtt"].update(broker_from_url(args.mqtt))
            except ConfigError as exc:
                raise UsageError(f"--mqtt: {exc}") from None
    if args.spectator_delay is not None:
        if args.mqtt is None and not config.mqtt.enabled and not args.serve:
            raise UsageError(
                "--spectator-delay: the spectator feed needs --mqtt or --serve to go anywhere"
            )
        data["spectator"].update(enabled=True, delay_s=args.spectator_delay)
    if args.gifts or args.simulate_gifts is not None or args.gift_file is not None:
        data["gifts"]["enabled"] = True
    if args.simulate_gifts is not None and not 0 < args.simulate_gifts <= 1000:
        raise UsageError(
            f"--simulate-gifts: {args.simulate_gifts:g} gifts a second: give a rate above 0, "
            "at most 1000"
        )
    if args.gift_file is not None and not args.gift_file.is_file():
        raise UsageError(f"--gift-file: {args.gift_file}: no such file")
    if args.pace is not None:
        data["table"]["pace_s"] = args.pace
    elif not live and not args.serve:  # served, the overlay shows it: paced as configured
        data["table"]["pace_s"] = 0.0
    if args.round_pause is not None:
        data["table"]["round_pause_s"] = args.round_pause
    elif (
        args.serve
        and data["table"]["pace_s"]
        and "round_pause_s" not in config.table.model_fields_set
    ):
        data["table"]["round_pause_s"] = SHOW_ROUND_PAUSE_S
    return parse_config(data, source="command line", aliases=_FLAG_KEYS), live


def _wants_live(args: argparse.Namespace, config: ArenaConfig) -> bool:
    has_human = any(seat.type == "human" for seat in config.seats)
    return not args.no_live and not has_human and sys.stdout.isatty()
