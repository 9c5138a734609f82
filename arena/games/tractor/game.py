"""升级 / 拖拉机 (Tractor) as the arena sees it: four or six seats in two teams, its rules
model, its requests, its gifts; everything else imported when first needed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from arena.games.base import Game, Wire
from arena.games.tractor.engine.rules import TractorRules
from arena.games.tractor.result import match_over, result_from_dict, sides

if TYPE_CHECKING:
    from arena.agents.llm.game_prompts import ModelPrompts
    from arena.games.tractor.console import TractorConsole
    from arena.games.tractor.engine import Round
    from arena.games.tractor.gifts import TractorGifts
    from arena.games.tractor.public_state import TractorPublicState
    from arena.games.tractor.spectator import TractorSpectatorTable
    from arena.games.tractor.turns import TractorTurns
    from arena.replay_round import RecordedRound
    from arena.sinks.spectator import SpectatorFeed
    from arena.testing.base import CheckPositions

__all__ = ["GAME", "REQUEST_METHODS"]

REQUEST_METHODS: Final = {
    "DECLARE_REQUEST": "declare",
    "BURY_REQUEST": "bury",
    "PLAY_REQUEST": "play",
}
"""Each request an agent answers and the in-process agent's method that answers it."""


def _turns(game: Game, table: Any, rules: Any, listing: Sequence[bool]) -> TractorTurns:
    """Tractor's turns for a table, imported when a table is built."""
    from arena.games.tractor.turns import TractorTurns

    return TractorTurns(game, table, TractorRules.of(rules), listing=listing)


def _public_state(table: str, *, run_id: str, match_id: str | None = None) -> TractorPublicState:
    """Tractor's public snapshot of a table, imported when a feed first sees one."""
    from arena.games.tractor.public_state import TractorPublicState

    return TractorPublicState(table, run_id=run_id, match_id=match_id)


def _spectator_table(feed: SpectatorFeed, table: str) -> TractorSpectatorTable:
    """Tractor's table on the spectator feed, imported when a feed first needs one."""
    from arena.games.tractor.spectator import TractorSpectatorTable

    return TractorSpectatorTable(feed, table)


def _console() -> TractorConsole:
    """Tractor's part of the terminal, imported when a console first shows a table."""
    from arena.games.tractor.console import TractorConsole

    return TractorConsole()


def _wire() -> Wire:
    """Tractor's messages and events as models, imported when asked for."""
    from arena.games.tractor.events import EVENT_DATA
    from arena.games.tractor.messages import MESSAGE_TYPES

    return Wire(messages=MESSAGE_TYPES, events=EVENT_DATA, schema_title="TractorArena")


def _gifts() -> TractorGifts:
    """Tractor's own gift operations, imported when a table takes gifts."""
    from arena.games.tractor.gifts import GIFTS

    return GIFTS


def _replay_check(recorded: RecordedRound) -> Round:
    """A recorded round replayed through a fresh engine."""
    from arena.games.tractor.replay_check import verify_round

    return verify_round(recorded)


def _carried_over(previous: Round, header: Mapping[str, Any]) -> str | None:
    """What a round's header says against the round before it (levels, banker)."""
    from arena.games.tractor.replay_check import carried_over

    return carried_over(previous, header)


def _check_positions() -> CheckPositions:
    """``arena agent check``'s Tractor positions and judge."""
    from arena.games.tractor.positions import CHECK

    return CHECK


def _model_prompts() -> ModelPrompts:
    """What a model seat says and reads at a Tractor table."""
    from arena.games.tractor.prompts.kit import PROMPTS

    return PROMPTS


GAME: Final = Game(
    name="tractor",
    title="升级 / 拖拉机 (Tractor)",
    rules=TractorRules,
    seats=lambda rules: TractorRules.of(rules).players,
    default_seats=(
        ("North", "heuristic"),
        ("East", "heuristic"),
        ("South", "heuristic"),
        ("West", "heuristic"),
    ),
    requests=REQUEST_METHODS,
    gift_effects=frozenset({"CHEER", "EMOTE", "PEEK", "SWAP", "EFFECT", "RESHUFFLE"}),
    sides=sides,
    turns=_turns,
    public_state=_public_state,
    spectator_table=_spectator_table,
    console=_console,
    match_over=match_over,
    replayed_notifications=("DEAL",),
    scripted_agents={
        "random": "arena.games.tractor.agents.scripted:RandomAgent",
        "heuristic": "arena.games.tractor.agents.heuristic:HeuristicAgent",
    },
    stand_in="heuristic",
    check_positions=_check_positions,
    replay_check=_replay_check,
    carried_over=_carried_over,
    gifts=_gifts,
    model_prompts=_model_prompts,
    overlay_assets=Path(__file__).with_name("overlay"),
    wire=_wire,
    stored_result=result_from_dict,
)
