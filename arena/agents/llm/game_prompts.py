"""What a game gives model seats: its prompts, the schema of a decision, and the reading
of a model's answer as the game's reply.

A model seat (:mod:`arena.agents.llm.seat`) is a transport: options, the key, the
conversation, provider retries, budgets. What it says to a model and how it reads the
answer belong to the game (``Game.model_prompts``, a loader of the game's
:class:`ModelPrompts`, in its package's ``prompts``, with its templates and repairs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from arena.agents.llm.texts import Prompt
from arena.errors import ConfigError
from arena.games.base import Game
from arena.games.registry import DEFAULT_GAME, get_game

__all__ = ["AskRequest", "ModelPrompts", "model_prompts"]


class AskRequest(Protocol):
    """What a model seat reads of any game's request itself: its id (a retry continues
    the conversation), its deadline and its match (the budget's); the rest is the
    game's prompts' to read."""

    @property
    def request_id(self) -> str | None: ...

    @property
    def time_limit_ms(self) -> int: ...

    @property
    def match_id(self) -> str | None: ...


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
    """The prompts of ``game`` (the default game's when None); a ConfigError for a game that has
    none (no model seat can play it)."""
    played = game if game is not None else get_game(DEFAULT_GAME)
    if played.model_prompts is None:
        raise ConfigError(f"{played.title} (game = {played.name!r}) has no model-seat prompts")
    found: ModelPrompts = played.model_prompts()
    return found
