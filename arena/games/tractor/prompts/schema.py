"""The JSON schema of a model's decision on a Tractor request, for structured output and
forced tools (a model seat asks for it through ``Game.model_prompts``).

Only what the model decides is in it (the adapter fills ``player_id`` and
``request_id``): ``action`` and ``cards`` to declare, ``cards`` to bury or play, plus
the optional ``comment``, ``emotion`` and ``strategy_hint``. The cards are the faces the
request allows (``♥10``, ``大王``): for a declaration, those of its options (and only
PASS without one); to bury or play, those of the hand. So a constrained model names
only cards it holds; how many, and whether the play follows suit, the table still
checks. OpenAI's strict mode wants every key required and the optional ones nullable; a
lenient schema (Anthropic's tool input) requires only the decision.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

from arena.games.tractor.engine import card_id, face_text
from arena.games.tractor.messages import BuryRequest, DeclareRequest, PlayRequest
from arena.games.tractor.prompts.wording import AskRequest
from protocol import Emotion

__all__ = ["decision_schema"]


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_TEXT_FIELDS: Final[dict[str, Any]] = {
    "comment": _nullable({"type": "string"}),
    "emotion": _nullable({"type": "string", "enum": [e.value for e in Emotion]}),
    "strategy_hint": _nullable({"type": "string"}),
}


def _cards(ids: Iterable[str]) -> dict[str, Any]:
    """An array of the faces of ``ids`` (each face once: copies are interchangeable, and
    a declaration's options share cards)."""
    named = list(dict.fromkeys(face_text(card_id(c)) for c in ids))
    return {"type": "array", "items": {"type": "string", "enum": named}}


def decision_schema(request: AskRequest, *, strict: bool = True) -> tuple[str, dict[str, Any]]:
    """The reply's name (``play_reply``, also the tool's name) and its JSON schema."""
    decision: dict[str, Any]
    if isinstance(request, DeclareRequest):
        name, required = "declare_reply", ["action"]
        offered = [card for option in request.options for card in option.cards]
        if offered:
            decision = {
                "action": {"type": "string", "enum": ["DECLARE", "PASS"]},
                "cards": _cards(offered),
            }
        else:  # nothing to declare with: a pass is the only answer
            decision = {
                "action": {"type": "string", "enum": ["PASS"]},
                "cards": {"type": "array", "items": {"type": "string"}},
            }
    elif isinstance(request, BuryRequest):
        name, required = "bury_reply", ["cards"]
        decision = {"cards": _cards(request.hand)}
    elif isinstance(request, PlayRequest):
        name, required = "play_reply", ["cards"]
        decision = {"cards": _cards(request.hand)}
    else:
        raise TypeError(f"not a request a model answers: {type(request).__name__}")
    properties = {**decision, **_TEXT_FIELDS}
    return name, {
        "type": "object",
        "properties": properties,
        "required": list(properties) if strict else required,
        "additionalProperties": False,
    }
