"""The JSON schema of a model's decision on a Dou Dizhu request, for structured output
and forced tools (a model seat asks for it through ``Game.model_prompts``).

Only what the model decides is in it (the adapter fills ``player_id`` and
``request_id``): ``bid`` (one of the request's ``available_bids``), ``double``, or
``action``/``cards``/``hand_type``, plus the optional ``comment``, ``emotion`` and
``strategy_hint``. OpenAI's strict mode wants every key required and the optional ones
nullable; a lenient schema (Anthropic's tool input) requires only the decision.
"""

from __future__ import annotations

from typing import Any, Final

from arena.games.ddz.messages import BidRequest, DoubleRequest, HandType, PlayRequest
from protocol import Emotion, Message

__all__ = ["AskRequest", "decision_schema"]

AskRequest = BidRequest | DoubleRequest | PlayRequest


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    return {"anyOf": [schema, {"type": "null"}]}


_TEXT_FIELDS: Final[dict[str, Any]] = {
    "comment": _nullable({"type": "string"}),
    "emotion": _nullable({"type": "string", "enum": [e.value for e in Emotion]}),
    "strategy_hint": _nullable({"type": "string"}),
}
_DECISIONS: Final[dict[type[Message], tuple[str, dict[str, Any]]]] = {
    BidRequest: ("bid_reply", {"bid": {"type": "integer"}}),  # enum: the request's bids
    DoubleRequest: ("double_reply", {"double": {"type": "boolean"}}),
    PlayRequest: (
        "play_reply",
        {
            "action": {"type": "string", "enum": ["PLAY", "PASS"]},
            "cards": {"type": "array", "items": {"type": "string"}},
            "hand_type": _nullable({"type": "string", "enum": [h.value for h in HandType]}),
        },
    ),
}
_REQUIRED: Final = {BidRequest: ["bid"], DoubleRequest: ["double"], PlayRequest: ["action"]}


def decision_schema(request: AskRequest, *, strict: bool = True) -> tuple[str, dict[str, Any]]:
    """The reply's name (``play_reply``, also the tool's name) and its JSON schema."""
    kind = next(kind for kind in _DECISIONS if isinstance(request, kind))
    name, decision = _DECISIONS[kind]
    if isinstance(request, BidRequest):  # only the bids on offer: a bid is then always legal
        decision = {"bid": {"type": "integer", "enum": list(dict.fromkeys(request.available_bids))}}
    properties = {**decision, **_TEXT_FIELDS}
    return name, {
        "type": "object",
        "properties": properties,
        "required": list(properties) if strict else _REQUIRED[kind],
        "additionalProperties": False,
    }
