"""What a game gives model seats: its prompts, the schema of a decision, and the reading
of a model's answer as the game's reply.

A model seat (:mod:`arena.agents.llm.seat`) is a transport: options, the key, the
conversation, provider retries, budgets. What it says to a model and how it reads the
answer belong to the game (``Game.model_prompts``, a loader: Dou Dizhu's is
:data:`arena.games.ddz.prompts.kit.PROMPTS`, with its templates, facts and repairs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeAlias

from arena.agents.llm.texts import Prompt
from arena.errors import ConfigError
from arena.games.base import Game
from arena.games.ddz.messages import BidRequest, DoubleRequest, PlayRequest
from arena.games.registry import DEFAULT_GAME, get_game

__all__ = ["AskRequest", "ModelPrompts", "model_prompts"]

AskRequest: TypeAlias = BidRequest | DoubleRequest | PlayRequest
"""A request a model seat answers: the protocol's requests (Dou Dizhu's wire messages,
``protocol/messages.py``, the one game's yet)."""


@dataclass(frozen=True, slots=True)
class ModelPrompts:
    """A game's part of a model seat (see the module)."""

    languages: tuple[str, ...]
    """The languages of its prompts, a seat's ``language`` option (the default first)."""
    legal_moves: tuple[str, ...]
    """The values of a seat's ``legal_moves`` option: how much of the legal moves a
    prompt lists (the default first)."""
    build_prompt: Callable[..., Prompt]
    """``build_prompt(request, *, language, persona, legal_moves, rules)``: the system
    and user texts asking a model to answer ``request``."""
    retry_text: Callable[..., str]
    """``retry_text(rejected, *, language)``: the follow-up after a REPLY_REJECTED."""
    decision_schema: Callable[..., tuple[str, dict[str, Any]]]
    """``decision_schema(request, *, strict=True)``: the reply's name (a tool's name)
    and the JSON schema of what the model decides."""
    extract_reply: Callable[..., Any]
    """``extract_reply(text, request, *, cut_off=False)``: the reply a model's text holds
    (``reply``, with the ``found`` object and its ``repairs``); an ``AgentReplyError``
    saying why there is none."""


def model_prompts(game: Game | None = None) -> ModelPrompts:
    """The prompts of ``game`` (Dou Dizhu when None); a ConfigError for a game that has
    none (no model seat can play it)."""
    played = game if game is not None else get_game(DEFAULT_GAME)
    if played.model_prompts is None:
        raise ConfigError(f"{played.title} (game = {played.name!r}) has no model-seat prompts")
    found: ModelPrompts = played.model_prompts()
    return found
