"""What every game's reading of a model's answer shares: finding the answer's JSON object
(or saying why there is none: ``empty``, ``truncated``, ``unparsable``), the repairs that
guess nothing about the game (unknown keys dropped, a comment cut to its cap, a mood read
without case, the request's own ids), and the protocol's verdict on the result.

A game's ``extract_reply`` (Dou Dizhu's ``arena.games.ddz.prompts.extract``, Tractor's
``arena.games.tractor.prompts.extract``) adds only its own repairs between them: a bid
written as a string, cards written as one string.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Generic, TypeVar

from arena.agents.llm.answers import last_object, quoted, strip_fences, strip_reasoning
from arena.errors import AgentReplyError
from protocol import MAX_TEXT, Emotion, Message, ProtocolError, cut_to_cap

__all__ = ["Extracted", "answer_object", "parsed_reply", "shared_repairs"]

TEXT_KEYS: Final = ("comment", "strategy_hint")
FILLED_KEYS: Final = ("type", "player_id", "request_id")
"""What the arena fills from the request itself: a model's own values never cost it a
move."""
COMMON_KEYS: Final = frozenset({*TEXT_KEYS, "emotion", *FILLED_KEYS})
_EMOTIONS: Final = {emotion.value: emotion.value for emotion in Emotion}

R = TypeVar("R", bound=Message)


@dataclass(frozen=True, slots=True)
class Extracted(Generic[R]):
    """A usable reply, the JSON object it came from, and what was repaired on the way.

    ``repairs`` are short notes ("comment cut from 312 to 200 characters") for the
    decision's accounting and the replay; empty when the model's object was used as is.
    """

    reply: R
    found: dict[str, Any]
    repairs: tuple[str, ...] = field(default=())


def answer_object(text: str, wanted: str, *, cut_off: bool) -> dict[str, Any]:
    """The JSON object a model's output ``text`` answers with (the last one, after any
    ``<think>`` block and code fences), for a reply of type ``wanted``.

    ``cut_off``: the provider stopped for the token limit (OpenAI ``finish_reason ==
    "length"``, Anthropic ``stop_reason == "max_tokens"``). Then an empty text (the
    tokens all went to reasoning), a text with no complete answer, or one that ends
    inside an unfinished object is ``truncated``, so the retry can ask for a shorter one.
    Raises :class:`AgentReplyError`: ``empty``, ``truncated`` or ``unparsable``.
    """
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
    return found


def shared_repairs(
    found: Mapping[str, Any],
    expected: type[Message],
    request: Message,
    decision_keys: frozenset[str],
    repairs: list[str],
) -> dict[str, Any]:
    """The model's object with every game's safe repairs made, each noted in
    ``repairs``: keys the reply has not (besides ``decision_keys``, what the game's
    reply decides) dropped, ``type``, ``player_id`` and ``request_id`` noted where the
    model's differ (the request's are filled in), a comment or hint that is not text
    dropped and one over the cap cut, a mood read without case (an unknown one
    dropped: the face is decoration, the move is not)."""
    known = decision_keys | COMMON_KEYS
    unknown = sorted(key for key in found if key not in known)
    if unknown:
        repairs.append(f"dropped unknown keys: {', '.join(unknown)}")
    fields = {key: value for key, value in found.items() if key in known}
    wanted = expected.model_fields["type"].default
    if fields.get("type", wanted) != wanted:
        repairs.append(f"type {fields['type']!r} replaced by {wanted!r}")
    asked = request.__dict__
    for key in ("player_id", "request_id"):
        if key in fields and fields[key] != asked[key]:
            repairs.append(f"{key} {fields[key]!r} replaced by the request's")
    for key in TEXT_KEYS:
        _repair_text(fields, key, repairs)
    _repair_emotion(fields, repairs)
    return fields


def parsed_reply(
    fields: dict[str, Any],
    expected: type[R],
    request: Message,
    parse: Callable[..., Message],
    *,
    cut_off: bool,
) -> R:
    """The reply the repaired ``fields`` make, the request's ids filled in, read by the
    game's ``parse`` (its ``parse_message``); refused as ``unparsable``, or as
    ``truncated`` when the provider cut the answer off (a tool's input closed with
    fields missing)."""
    wanted = expected.model_fields["type"].default
    asked = request.__dict__
    fields["type"] = wanted
    fields["player_id"] = asked["player_id"]
    fields["request_id"] = asked["request_id"]
    try:
        reply = parse(fields, expect=expected)
    except ProtocolError as exc:
        if cut_off:
            raise AgentReplyError(
                "truncated",
                f"the model hit its output limit before its answer was complete: "
                f"expected a {wanted}: {exc}",
            ) from exc
        raise AgentReplyError("unparsable", f"expected a {wanted}: {exc}") from exc
    assert isinstance(reply, expected)
    return reply


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
