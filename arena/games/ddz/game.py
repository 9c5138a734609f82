"""斗地主 as the arena sees it: three seats, its rules model, its requests, its gifts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from arena.games.base import Game, Sides
from arena.games.ddz.engine.records import Settlement
from arena.games.ddz.engine.rules import Rules

if TYPE_CHECKING:
    from arena.agents.llm.game_prompts import ModelPrompts
    from arena.games.ddz.console import DdzConsole
    from arena.games.ddz.engine.round import Round
    from arena.games.ddz.public_state import PublicTableState
    from arena.games.ddz.spectator import DdzSpectatorTable
    from arena.games.ddz.turns import DdzTurns
    from arena.replay_round import RecordedRound
    from arena.sinks.spectator import SpectatorFeed
    from arena.testing.base import CheckPositions

__all__ = ["GAME", "REQUEST_METHODS"]

REQUEST_METHODS: Final = {"BID_REQUEST": "bid", "DOUBLE_REQUEST": "double", "PLAY_REQUEST": "play"}
"""Each request an agent answers and the in-process agent's method that answers it."""


def _sides(result: Settlement) -> Sides:
    """The landlord alone against the two farmers, the winning side first."""
    landlord = (result.landlord,)
    farmers = tuple(seat for seat in range(3) if seat != result.landlord)
    return (landlord, farmers) if result.landlord_won else (farmers, landlord)


def _turns(game: Game, table: Any, rules: Any, listing: Sequence[bool]) -> DdzTurns:
    """Dou Dizhu's turns for a table. Imported here, when a table is built: the
    descriptor is read by configs and registries that never play (and the turns import
    the table's parts, which import the registry that finds this module)."""
    from arena.games.ddz.turns import DdzTurns

    return DdzTurns(game, table, Rules.of(rules), listing=listing)


def _check_positions() -> CheckPositions:
    """``arena agent check``'s positions and judge, imported when a check runs."""
    from arena.games.ddz.positions import CHECK

    return CHECK


def _replay_check(recorded: RecordedRound) -> Round:
    """A recorded round replayed through a fresh engine, imported when a replay is
    checked."""
    from arena.games.ddz.replay_check import verify_round

    return verify_round(recorded)


def _model_prompts() -> ModelPrompts:
    """What a model seat says and reads, imported when a model seat is built."""
    from arena.games.ddz.prompts.kit import PROMPTS

    return PROMPTS


def _public_state(table: str, *, run_id: str, match_id: str | None = None) -> PublicTableState:
    """Dou Dizhu's public snapshot of a table, imported when a feed first sees one."""
    from arena.games.ddz.public_state import PublicTableState

    return PublicTableState(table, run_id=run_id, match_id=match_id)


def _spectator_table(feed: SpectatorFeed, table: str) -> DdzSpectatorTable:
    """Dou Dizhu's table on the spectator feed, imported when a feed first needs one."""
    from arena.games.ddz.spectator import DdzSpectatorTable

    return DdzSpectatorTable(feed, table)


def _console() -> DdzConsole:
    """Dou Dizhu's part of the terminal, imported when a console first shows a table."""
    from arena.games.ddz.console import DdzConsole

    return DdzConsole()


GAME: Final = Game(
    name="ddz",
    title="斗地主 (Dou Dizhu)",
    rules=Rules,
    seats=lambda rules: 3,
    default_seats=(("Alpha", "heuristic"), ("Beta", "greedy"), ("Gamma", "heuristic")),
    requests=REQUEST_METHODS,
    gift_effects=frozenset(
        {"CHEER", "EMOTE", "PEEK", "SWAP", "ADD", "DOUBLE", "EFFECT", "ROLE_SWAP", "RESHUFFLE"}
    ),
    sides=_sides,
    turns=_turns,
    console=_console,
    spectator_table=_spectator_table,
    public_state=_public_state,
    replayed_notifications=("DEAL", "BOTTOM_CARDS"),
    scripted_agents={
        "random": "arena.games.ddz.agents.scripted:RandomAgent",
        "greedy": "arena.games.ddz.agents.scripted:GreedyAgent",
        "heuristic": "arena.games.ddz.agents.scripted:HeuristicAgent",
    },
    check_positions=_check_positions,
    replay_check=_replay_check,
    model_prompts=_model_prompts,
    overlay_assets=Path(__file__).with_name("overlay"),
)
