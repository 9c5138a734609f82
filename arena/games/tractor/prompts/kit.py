"""Tractor's part of a model seat, as the seat reads it (``Game.model_prompts``)."""

from __future__ import annotations

from typing import Final, get_args

from arena.agents.llm.game_prompts import ModelPrompts
from arena.games.tractor.prompts.extract import extract_reply
from arena.games.tractor.prompts.prompts import LANGUAGES, LegalMoves, build_prompt, retry_text
from arena.games.tractor.prompts.schema import decision_schema

__all__ = ["PROMPTS"]

PROMPTS: Final = ModelPrompts(
    languages=LANGUAGES,
    legal_moves=get_args(LegalMoves),
    build_prompt=build_prompt,
    retry_text=retry_text,
    decision_schema=decision_schema,
    extract_reply=extract_reply,
)
"""Prompts in Chinese (the default) or English, the legal plays listed ``none`` (the
default), as a ``summary`` or in ``full``; the decision's schema; the answer's reading."""
