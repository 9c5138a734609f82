"""A language model's text turned into the Tractor reply message the table expects.

A model is asked only for what it decides (``{"action": "DECLARE", "cards": ["♥2"]}``
or ``{"action": "PASS"}``, ``{"cards": [...]}`` to bury or to play, plus an optional
``comment``, ``emotion`` and ``strategy_hint``). The adapter fills ``type``,
``player_id`` and ``request_id`` from the request itself, so a model's own values for
those never cost it a move.

Reading is lenient where a provider has no structured output: ``<think>`` blocks and
code fences are stripped and the LAST JSON object in the text wins
(:mod:`arena.agents.llm.answers`). What can be repaired without guessing the model's
intent is repaired and noted in :attr:`Extracted.repairs`; anything else is left for the
protocol to refuse, with its own words. Whether the cards are held, and whether the
play is legal, is the engine's to say when the table applies the reply: a card not held
is refused with the engine's reason, which the table's retry shows the model.

Repairs (each one unambiguous):

- ``comment`` / ``strategy_hint`` over 200 characters: cut to 200, ending in "…"; one
  that is not a string is dropped.
- ``emotion``: matched without case; an unknown value or a non-string is dropped.
- keys the protocol does not know are dropped (a Dou Dizhu habit such as
  ``"action": "PLAY"`` on a play).
- ``type``, ``player_id``, ``request_id``: replaced by the request's.
- ``action`` (a declaration): matched without case and spaces (``"pass"``).
- ``cards``: ``null`` becomes ``[]``; one string, or a list item holding several cards
  (``"♠A ♠A"``), is split at commas or spaces (``small joker`` / ``big joker`` kept
  whole); an id written in lower case (``d1_h_10``) is upper-cased.

Not repaired, on purpose: a PASS that carries cards, a DECLARE without cards, a missing
``action`` or ``cards``, numbers for cards (a face must name its suit). The protocol
refuses them as ``unparsable`` and the table's retry shows the model the reason.
"""

from __future__ import annotations

import re
from typing import Any, Final, overload

from arena.agents.llm.answers import quoted
from arena.agents.llm.reading import Extracted, answer_object, parsed_reply, shared_repairs
from arena.games.tractor.messages import (
    CARD_ID_PATTERN,
    BuryRequest,
    BuryResponse,
    DeclareRequest,
    DeclareResponse,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from protocol import Message

__all__ = ["Extracted", "extract_reply"]

_REPLY_CLASS: Final[dict[type[Message], type[Message]]] = {
    DeclareRequest: DeclareResponse,
    BuryRequest: BuryResponse,
    PlayRequest: PlayResponse,
}
_DECISION_KEYS: Final[dict[type[Message], frozenset[str]]] = {
    DeclareResponse: frozenset({"action", "cards"}),
    BuryResponse: frozenset({"cards"}),
    PlayResponse: frozenset({"cards"}),
}

_CARD_WORDS: Final = re.compile(r"(?:small|big|black|red)\s+joker|[^\s,，、]+", re.IGNORECASE)
_CARD_ID: Final = re.compile(CARD_ID_PATTERN, re.IGNORECASE)


@overload
def extract_reply(
    text: str, request: DeclareRequest, *, cut_off: bool = False
) -> Extracted[DeclareResponse]: ...
@overload
def extract_reply(
    text: str, request: BuryRequest, *, cut_off: bool = False
) -> Extracted[BuryResponse]: ...
@overload
def extract_reply(
    text: str, request: PlayRequest, *, cut_off: bool = False
) -> Extracted[PlayResponse]: ...
def extract_reply(
    text: str, request: DeclareRequest | BuryRequest | PlayRequest, *, cut_off: bool = False
) -> Extracted[DeclareResponse] | Extracted[BuryResponse] | Extracted[PlayResponse]:
    """The reply to ``request`` that a model's output ``text`` holds.

    ``cut_off``: the provider stopped for the token limit. Then an empty text, one with
    no complete answer, one that ends inside an unfinished object, or an object the
    protocol refuses is ``truncated``, so the retry can ask for a shorter answer.

    Raises :class:`AgentReplyError`: ``empty`` (no text), ``truncated``, or
    ``unparsable`` (no JSON object, or one the protocol refuses after the safe repairs).
    """
    expected = next((r for q, r in _REPLY_CLASS.items() if isinstance(request, q)), None)
    if expected is None:
        raise TypeError(f"not a request a model answers: {type(request).__name__}")
    wanted = expected.model_fields["type"].default
    found = answer_object(text, wanted, cut_off=cut_off)
    repairs: list[str] = []
    fields = shared_repairs(found, expected, request, _DECISION_KEYS[expected], repairs)
    if expected is DeclareResponse:
        _repair_action(fields, repairs)
    _repair_cards(fields, repairs)
    reply = parsed_reply(fields, expected, request, parse_message, cut_off=cut_off)
    notes = tuple(repairs)
    if isinstance(reply, DeclareResponse):
        return Extracted(reply=reply, found=found, repairs=notes)
    if isinstance(reply, BuryResponse):
        return Extracted(reply=reply, found=found, repairs=notes)
    assert isinstance(reply, PlayResponse)
    return Extracted(reply=reply, found=found, repairs=notes)


def _repair_action(fields: dict[str, Any], repairs: list[str]) -> None:
    action = fields.get("action")
    if not isinstance(action, str):
        return
    upper = "".join(action.split()).upper()
    if upper in ("DECLARE", "PASS") and action != upper:
        fields["action"] = upper
        repairs.append(f"action {action!r} read as {upper!r}")


def _tokens(text: str) -> list[str]:
    """One string of cards as its cards: at commas, else at spaces (jokers' names whole)."""
    if "," in text:
        return [token.strip() for token in text.split(",") if token.strip()]
    return _CARD_WORDS.findall(text)


def _repair_cards(fields: dict[str, Any], repairs: list[str]) -> None:
    if "cards" not in fields:
        return
    cards = fields["cards"]
    if cards is None:
        fields["cards"] = []
        repairs.append("cards null read as []")
        return
    if isinstance(cards, str):
        fields["cards"] = cards = _tokens(cards)
        repairs.append(f"cards read as a list of {len(cards)}")
    if not isinstance(cards, list):
        return
    split: list[Any] = []
    for card in cards:
        tokens = _tokens(card) if isinstance(card, str) else [card]
        if len(tokens) > 1:
            repairs.append(f"card {quoted(card)} read as {len(tokens)} cards")
        split += tokens
    upper = [
        card.upper() if isinstance(card, str) and _CARD_ID.fullmatch(card) else card
        for card in split
    ]
    if upper != split:
        repairs.append("card ids read in upper case")
    fields["cards"] = upper
