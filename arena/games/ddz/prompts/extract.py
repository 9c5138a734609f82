"""A language model's text turned into the Dou Dizhu reply message the table expects.

A model is asked only for what it decides (``{"bid": 1}``, ``{"double": true}``,
``{"action": "PLAY", "cards": [...], "hand_type": "PAIR"}`` or ``{"action": "PASS"}``,
plus an optional ``comment``, ``emotion`` and ``strategy_hint``). The adapter fills
``type``, ``player_id`` and ``request_id`` from the request itself, so a model's own
values for those never cost it a move.

Reading is lenient where a provider has no structured output: ``<think>`` blocks and code
fences are stripped and the LAST JSON object in the text wins (a model often writes an
example first and its answer last; :mod:`arena.agents.llm.answers` does this for every
game). What can be repaired without guessing the model's intent is repaired and noted
in :attr:`Extracted.repairs`, so a chatty model never loses a legal move; anything else
is left for the protocol to refuse, with its own words.

Repairs (each one unambiguous):

- ``comment`` / ``strategy_hint`` over 200 characters: cut to 200, ending in "…"; one
  that is not a string is dropped.
- ``emotion``: matched without case (``"Happy"``); an unknown value or a non-string is
  dropped (the face is decoration, the move is not).
- keys the protocol does not know are dropped (it refuses extra fields).
- ``type``, ``player_id``, ``request_id``: replaced by the request's.
- ``action``: matched without case and spaces (``"pass"`` → ``"PASS"``).
- ``hand_type``: matched without case, spaces or hyphens as underscores (``"pair"``,
  ``"triple with single"``); an empty or unknown name is dropped, so the engine reads the
  cards its default way (the cards must still be legal).
- ``bid``: a string holding one digit 0..3 (``"2"``) becomes that integer. Floats, booleans
  and words are left to be refused.
- ``double``: the strings ``"true"`` / ``"false"`` (any case) become booleans. ``1``/``0``
  and ``"yes"``/``"no"`` are left to be refused.
- ``cards``: ``null`` becomes ``[]``; one string is split into tokens at commas, or at
  spaces when it has no comma (``"3 3 4"``, ``"10,J,Q"``), the joker names ``small joker``
  / ``big joker`` / ``black joker`` / ``red joker`` kept whole; the integers 3..10 become
  their rank (``3`` → ``"3"``: the same card whether read as a rank number or a face).
  Other integers (11 could be J by rank number or nothing) are left to be refused.

Not repaired, on purpose: a ``PASS`` that carries cards (did the model mean to play
them?), a ``PLAY`` without cards, a ``hand_type`` that contradicts ``action``, a missing
``bid`` / ``double`` / ``action``. The protocol refuses them as ``unparsable`` and the
table's retry shows the model the reason.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar, overload

from arena.agents.llm.answers import last_object, quoted, strip_fences, strip_reasoning
from arena.errors import AgentReplyError
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    HandType,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from protocol import MAX_TEXT, Emotion, Message, ProtocolError, cut_to_cap

__all__ = ["MAX_TEXT", "Extracted", "extract_reply"]

_REPLY_CLASS: Final[dict[type[Message], type[Message]]] = {
    BidRequest: BidResponse,
    DoubleRequest: DoubleResponse,
    PlayRequest: PlayResponse,
}
_DECISION_KEYS: Final[dict[type[Message], frozenset[str]]] = {
    BidResponse: frozenset({"bid"}),
    DoubleResponse: frozenset({"double"}),
    PlayResponse: frozenset({"action", "cards", "hand_type"}),
}
_TEXT_KEYS: Final = ("comment", "strategy_hint")
_FILLED_KEYS: Final = ("type", "player_id", "request_id")
_COMMON_KEYS: Final = frozenset({*_TEXT_KEYS, "emotion", *_FILLED_KEYS})

_CARD_WORDS: Final = re.compile(r"(?:small|big|black|red)\s+joker|[^\s,]+", re.IGNORECASE)
_EMOTIONS: Final = {emotion.value: emotion.value for emotion in Emotion}
_HAND_TYPES: Final = {kind.value for kind in HandType}


#: The reply class that answers a request: BidResponse for a BidRequest, and so on.
R = TypeVar("R", BidResponse, DoubleResponse, PlayResponse)


@dataclass(frozen=True, slots=True)
class Extracted(Generic[R]):
    """A usable reply, the JSON object it came from, and what was repaired on the way.

    ``repairs`` are short notes ("comment cut from 312 to 200 characters") for the
    decision's accounting and the replay; empty when the model's object was used as is.
    """

    reply: R
    found: dict[str, Any]
    repairs: tuple[str, ...] = field(default=())


@overload
def extract_reply(
    text: str, request: BidRequest, *, cut_off: bool = False
) -> Extracted[BidResponse]: ...
@overload
def extract_reply(
    text: str, request: DoubleRequest, *, cut_off: bool = False
) -> Extracted[DoubleResponse]: ...
@overload
def extract_reply(
    text: str, request: PlayRequest, *, cut_off: bool = False
) -> Extracted[PlayResponse]: ...
def extract_reply(
    text: str, request: BidRequest | DoubleRequest | PlayRequest, *, cut_off: bool = False
) -> Extracted[BidResponse] | Extracted[DoubleResponse] | Extracted[PlayResponse]:
    """The reply to ``request`` that a model's output ``text`` holds.

    ``cut_off``: the provider stopped for the token limit (OpenAI ``finish_reason ==
    "length"``, Anthropic ``stop_reason == "max_tokens"``). Then an empty text (the
    tokens all went to reasoning), a text with no complete answer, one that ends inside
    an unfinished object, or an object the protocol refuses (a tool's input the provider
    closed with fields missing) is ``truncated``, so the retry can ask for a shorter answer.

    Raises :class:`AgentReplyError`: ``empty`` (no text), ``truncated``, or
    ``unparsable`` (no JSON object, or one the protocol refuses after the safe repairs).
    """
    # isinstance, not the exact class: the table hands in-process agents a subclass of
    # PlayRequest that carries its legal moves
    expected = next((r for q, r in _REPLY_CLASS.items() if isinstance(request, q)), None)
    if expected is None:
        raise TypeError(f"not a request a model answers: {type(request).__name__}")
    wanted = expected.model_fields["type"].default
    if cut_off and not text.strip():  # all its tokens went to reasoning it did not show
        raise AgentReplyError(
            "truncated",
            f"the model hit its output limit before it wrote any answer (expected a {wanted})",
        )
    if not text.strip():
        raise AgentReplyError("empty", f"expected a {wanted}, got an empty reply")
    answer = strip_fences(strip_reasoning(text))
    found, end, unclosed = last_object(answer)
    if cut_off and (found is None or (unclosed is not None and unclosed >= end)):
        where = "while reasoning" if not answer.strip() else "before its answer was complete"
        raise AgentReplyError(
            "truncated",
            f"the model hit its output limit {where}; the text ends {quoted(text, end=True)}",
        )
    if found is None:
        if not answer.strip():
            why = "only reasoning (<think>), no answer after it"
        else:
            why = f"no JSON object in {quoted(answer)}"
        raise AgentReplyError("unparsable", f"expected a {wanted} as a JSON object: {why}")
    repairs: list[str] = []
    fields = _repaired(found, expected, request, repairs)
    fields["type"] = wanted
    fields["player_id"] = request.player_id
    fields["request_id"] = request.request_id
    try:
        reply = parse_message(fields, expect=expected)
    except ProtocolError as exc:
        if cut_off:  # e.g. a forced tool's input closed by the provider, fields missing
            raise AgentReplyError(
                "truncated",
                f"the model hit its output limit before its answer was complete: "
                f"expected a {wanted}: {exc}",
            ) from exc
        raise AgentReplyError("unparsable", f"expected a {wanted}: {exc}") from exc
    notes = tuple(repairs)
    if isinstance(reply, BidResponse):
        return Extracted(reply=reply, found=found, repairs=notes)
    if isinstance(reply, DoubleResponse):
        return Extracted(reply=reply, found=found, repairs=notes)
    assert isinstance(reply, PlayResponse)
    return Extracted(reply=reply, found=found, repairs=notes)


def _repaired(
    found: Mapping[str, Any],
    expected: type[Message],
    request: BidRequest | DoubleRequest | PlayRequest,
    repairs: list[str],
) -> dict[str, Any]:
    """The model's object with the safe repairs made, each noted in ``repairs``."""
    known = _DECISION_KEYS[expected] | _COMMON_KEYS
    unknown = sorted(key for key in found if key not in known)
    if unknown:
        repairs.append(f"dropped unknown keys: {', '.join(unknown)}")
    fields = {key: value for key, value in found.items() if key in known}
    wanted = expected.model_fields["type"].default
    if fields.get("type", wanted) != wanted:
        repairs.append(f"type {fields['type']!r} replaced by {wanted!r}")
    for key, own in (("player_id", request.player_id), ("request_id", request.request_id)):
        if key in fields and fields[key] != own:
            repairs.append(f"{key} {fields[key]!r} replaced by the request's")
    for key in _TEXT_KEYS:
        _repair_text(fields, key, repairs)
    _repair_emotion(fields, repairs)
    if expected is BidResponse:
        _repair_bid(fields, repairs)
    elif expected is DoubleResponse:
        _repair_double(fields, repairs)
    else:
        _repair_play(fields, repairs)
    return fields


def _repair_text(fields: dict[str, Any], key: str, repairs: list[str]) -> None:
    value = fields.get(key)
    if value is None:
        return
    if not isinstance(value, str):
        del fields[key]
        repairs.append(f"dropped {key}: not a string")
    elif len(value) > MAX_TEXT:
        fields[key] = cut_to_cap(value)
        repairs.append(f"{key} cut from {len(value)} to {MAX_TEXT} characters")


def _repair_emotion(fields: dict[str, Any], repairs: list[str]) -> None:
    value = fields.get("emotion")
    if value is None:
        return
    emotion = _EMOTIONS.get(value.strip().lower()) if isinstance(value, str) else None
    if emotion is None:
        del fields["emotion"]
        repairs.append(f"dropped unknown emotion {quoted(str(value))}")
    elif emotion != value:
        fields["emotion"] = emotion
        repairs.append(f"emotion {value!r} read as {emotion!r}")


def _repair_bid(fields: dict[str, Any], repairs: list[str]) -> None:
    value = fields.get("bid")
    if isinstance(value, str) and value.strip() in ("0", "1", "2", "3"):
        fields["bid"] = int(value)
        repairs.append(f"bid {value!r} read as {int(value)}")


def _repair_double(fields: dict[str, Any], repairs: list[str]) -> None:
    value = fields.get("double")
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        fields["double"] = value.strip().lower() == "true"
        repairs.append(f"double {value!r} read as {fields['double']}")


def _repair_play(fields: dict[str, Any], repairs: list[str]) -> None:
    action = fields.get("action")
    upper = action.strip().upper() if isinstance(action, str) else None
    if upper in ("PLAY", "PASS") and action != upper:
        fields["action"] = upper
        repairs.append(f"action {action!r} read as {upper!r}")
    hand_type = fields.get("hand_type")
    if hand_type is not None:
        name = (
            re.sub(r"[\s-]+", "_", hand_type.strip()).upper() if isinstance(hand_type, str) else ""
        )
        if name in _HAND_TYPES:
            if name != hand_type:
                fields["hand_type"] = name
                repairs.append(f"hand_type {hand_type!r} read as {name!r}")
        else:
            del fields["hand_type"]
            repairs.append(f"dropped unknown hand_type {quoted(str(hand_type))}")
    if "cards" not in fields:
        return
    cards = fields["cards"]
    if cards is None:
        fields["cards"] = []
        repairs.append("cards null read as []")
    elif isinstance(cards, str):
        tokens = cards.split(",") if "," in cards else _CARD_WORDS.findall(cards)
        fields["cards"] = [token.strip() for token in tokens if token.strip()]
        repairs.append(f"cards {quoted(cards)} read as a list of {len(fields['cards'])}")
    elif isinstance(cards, list) and any(_small_rank(card) for card in cards):
        fields["cards"] = [str(card) if _small_rank(card) else card for card in cards]
        repairs.append("card numbers 3..10 read as ranks")


def _small_rank(card: object) -> bool:
    """An integer card whose meaning is the same as a rank number and as a face."""
    return isinstance(card, int) and not isinstance(card, bool) and 3 <= card <= 10
