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
from typing import Any, Final, overload

from arena.agents.llm.answers import quoted
from arena.agents.llm.reading import Extracted, answer_object, parsed_reply, shared_repairs
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
from protocol import MAX_TEXT, Message

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

_CARD_WORDS: Final = re.compile(r"(?:small|big|black|red)\s+joker|[^\s,]+", re.IGNORECASE)
_HAND_TYPES: Final = {kind.value for kind in HandType}


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
    found = answer_object(text, wanted, cut_off=cut_off)
    repairs: list[str] = []
    fields = shared_repairs(found, expected, request, _DECISION_KEYS[expected], repairs)
    if expected is BidResponse:
        _repair_bid(fields, repairs)
    elif expected is DoubleResponse:
        _repair_double(fields, repairs)
    else:
        _repair_play(fields, repairs)
    reply = parsed_reply(fields, expected, request, parse_message, cut_off=cut_off)
    notes = tuple(repairs)
    if isinstance(reply, BidResponse):
        return Extracted(reply=reply, found=found, repairs=notes)
    if isinstance(reply, DoubleResponse):
        return Extracted(reply=reply, found=found, repairs=notes)
    assert isinstance(reply, PlayResponse)
    return Extracted(reply=reply, found=found, repairs=notes)


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
