"""斗地主 as the arena sees it: three seats, its rules model, its requests, its gifts."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from arena.games.base import Game, GameRules, Sides, Wire
from arena.games.ddz.config_migration import migrate_config
from arena.games.ddz.duplicate import duplicate_rules
from arena.games.ddz.engine.records import Settlement
from arena.games.ddz.engine.rules import Rules
from arena.games.ddz.round_plan import round_plan

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from arena.agents.llm.game_prompts import ModelPrompts
    from arena.games.ddz.console import DdzConsole
    from arena.games.ddz.engine.round import Round
    from arena.games.ddz.gifts import DdzGifts
    from arena.games.ddz.leaderboard import DdzLeaderboardStats
    from arena.games.ddz.public_state import PublicTableState
    from arena.games.ddz.round_audit import DdzRoundAudit
    from arena.games.ddz.spectator import DdzSpectatorTable
    from arena.games.ddz.turns import DdzTurns
    from arena.replay_round import RecordedRound
    from arena.sinks.spectator import SpectatorFeed
    from arena.table.records import RoundRecord
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


def _gifts() -> DdzGifts:
    """Dou Dizhu's own gift operations, imported when a table takes gifts."""
    from arena.games.ddz.gifts import GIFTS

    return GIFTS


def _public_state(table: str, *, run_id: str, match_id: str | None = None) -> PublicTableState:
    """Dou Dizhu's public snapshot of a table, imported when a feed first sees one."""
    from arena.games.ddz.public_state import PublicTableState

    return PublicTableState(table, run_id=run_id, match_id=match_id)


def _spectator_table(feed: SpectatorFeed, table: str) -> DdzSpectatorTable:
    """Dou Dizhu's table on the spectator feed, imported when a feed first needs one."""
    from arena.games.ddz.spectator import DdzSpectatorTable

    return DdzSpectatorTable(feed, table)


def _wire() -> Wire:
    """Dou Dizhu's messages and events as models, imported when asked for."""
    from arena.games.ddz.events import EVENT_DATA
    from arena.games.ddz.messages import MESSAGE_TYPES

    return Wire(messages=MESSAGE_TYPES, events=EVENT_DATA, schema_title="DouDizhuArena")


def _console() -> DdzConsole:
    """Dou Dizhu's part of the terminal, imported when a console first shows a table."""
    from arena.games.ddz.console import DdzConsole

    return DdzConsole()


def _leaderboard_stats() -> DdzLeaderboardStats:
    """Dou Dizhu's figures on a tournament's leaderboard, imported when a board is built."""
    from arena.games.ddz.leaderboard import STATS

    return STATS


def _forfeit_stake(result: Settlement) -> int:
    """What a round was played for (a forfeit's loss), imported when a forfeit is scored."""
    from arena.games.ddz.stakes import stake

    return stake(result)


def _stored_result(data: Mapping[str, Any]) -> Settlement:
    """A stored round's settlement, imported when a tournament's store is read."""
    from arena.games.ddz.stored_result import settlement_from_dict

    return settlement_from_dict(data)


def _result_check(
    stored: Mapping[str, Any], record: RoundRecord, rules: GameRules
) -> Iterator[str]:
    """What a stored round's result says against itself, imported when ``show`` checks."""
    from arena.games.ddz.stored_check import result_problems

    return result_problems(stored, record, rules)


def _round_audit() -> DdzRoundAudit:
    """What a tournament's verify checks beside the moves, imported when one runs."""
    from arena.games.ddz.round_audit import AUDIT

    return AUDIT


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
    human_seat="arena.games.ddz.agents.human:HumanAgent",
    stand_in="heuristic",
    agent_exports={
        "BaseAgent": "arena.games.ddz.agents.base:BaseAgent",
        "DdzAgent": "arena.games.ddz.agents.base:DdzAgent",
        "HumanAgent": "arena.games.ddz.agents.human:HumanAgent",
        "parse_human_bid": "arena.games.ddz.agents.human:parse_human_bid",
        "parse_human_double": "arena.games.ddz.agents.human:parse_human_double",
        "parse_human_move": "arena.games.ddz.agents.human:parse_human_move",
    },
    check_positions=_check_positions,
    replay_check=_replay_check,
    model_prompts=_model_prompts,
    wire=_wire,
    duplicate_rules=duplicate_rules,
    gifts=_gifts,
    round_plan=round_plan,
    migrate_config=migrate_config,
    leaderboard_stats=_leaderboard_stats,
    forfeit_stake=_forfeit_stake,
    stored_result=_stored_result,
    result_check=_result_check,
    round_audit=_round_audit,
    overlay_assets=Path(__file__).with_name("overlay"),
)
