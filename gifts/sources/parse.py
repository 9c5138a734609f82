"""A payload (bytes, text or an already-decoded object) as a gift, or why it is none.

Shared by every source, so a payload is judged the same wherever it came from. The
checks go from cheap to dear: the size first (over :data:`MAX_PAYLOAD_BYTES` it is not
even decoded), then JSON, which must be an object, then :class:`GiftEvent`'s own
validation, with JSON's rules (an effect or a time as a string). A refusal's reason is
one short line naming the field and the problem; it never echoes the payload, which
comes from anyone and may be huge or hostile.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import orjson
from pydantic import ValidationError

from gifts.events import GiftEvent
from gifts.sources.inbox import Inbox
from gifts.text import clean_viewer_text

__all__ = [
    "MAX_PAYLOAD_BYTES",
    "claimed_identity",
    "decode_object",
    "deliver",
    "gift_from_object",
    "parse_gift",
    "validation_reason",
]

MAX_PAYLOAD_BYTES: Final = 65_536
"""The largest payload decoded: a gift with its platform payload (``raw``, at most 16 kB)
fits several times over; anything larger is refused unread."""
_ERRORS_SHOWN: Final = 3
"""A refusal names at most this many of a payload's problems (and counts the rest)."""
_PART_CAP: Final = 120
"""Characters of one problem's text, at most."""
_KEY_CAP: Final = 40
"""Characters of a field name in a reason: an unknown key is the sender's text."""


def _short(text: str, cap: int) -> str:
    return clean_viewer_text(text, cap)


def decode_object(payload: bytes | bytearray | str) -> dict[str, Any] | str:
    """The JSON object ``payload`` holds, or the reason it holds none (too large, not
    JSON, or JSON that is no object)."""
    size = len(payload)
    if isinstance(payload, str) and size <= MAX_PAYLOAD_BYTES:
        size = len(payload.encode("utf-8", "surrogatepass"))
    if size > MAX_PAYLOAD_BYTES:
        return f"payload too large: {size} bytes, over {MAX_PAYLOAD_BYTES}"
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError as exc:
        return f"not JSON: {_short(str(exc), _PART_CAP)}"
    if not isinstance(data, dict):
        kind = {list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(data), "a number"
        )
        return f"not a JSON object: {kind}"
    return data


def validation_reason(error: ValidationError) -> str:
    """A ValidationError as one short line: each problem's field and message, the
    first few only, without the input."""
    parts = []
    problems = error.errors(include_url=False, include_input=False, include_context=False)
    for problem in problems[:_ERRORS_SHOWN]:
        where = ".".join(_short(str(part), _KEY_CAP) for part in problem["loc"]) or "payload"
        message = problem["msg"].removeprefix("Value error, ")
        parts.append(_short(f"{where}: {message}", _PART_CAP))
    if len(problems) > _ERRORS_SHOWN:
        parts.append(f"and {len(problems) - _ERRORS_SHOWN} more")
    return "; ".join(parts)


def gift_from_object(data: Mapping[str, Any]) -> GiftEvent | str:
    """The gift a decoded JSON object describes, or the reason it describes none."""
    try:
        encoded = orjson.dumps(data)
    except TypeError as exc:  # a caller's object that JSON cannot hold
        return f"not JSON data: {_short(str(exc), _PART_CAP)}"
    try:
        return GiftEvent.model_validate_json(encoded)
    except ValidationError as exc:
        return validation_reason(exc)


def parse_gift(payload: bytes | bytearray | str | Mapping[str, Any]) -> GiftEvent | str:
    """The gift ``payload`` describes, or a short reason why it describes none."""
    if isinstance(payload, Mapping):
        return gift_from_object(payload)
    data = decode_object(payload)
    if isinstance(data, str):
        return data
    try:  # the bytes as they came: no second encoding
        return GiftEvent.model_validate_json(payload)
    except ValidationError as exc:
        return validation_reason(exc)


def claimed_identity(data: Mapping[str, Any]) -> tuple[str | None, str | None]:
    """The event id and platform a refused object claims, when they look like ones (a
    short string each), so that the refusal can be traced to a delivery."""
    event_id, platform = data.get("event_id"), data.get("platform")
    return (
        event_id if isinstance(event_id, str) and 0 < len(event_id) <= 128 else None,
        platform if isinstance(platform, str) and 0 < len(platform) <= 32 else None,
    )


async def deliver(inbox: Inbox, payload: bytes | bytearray | str) -> GiftEvent | None:
    """Judge one payload and hand it to ``inbox``: accepted (the gift is returned) or
    refused with its reason and what it claimed to be (None is returned)."""
    if len(payload) <= MAX_PAYLOAD_BYTES:  # a str's bytes may be more: decode_object says
        try:  # most payloads are gifts: validated at once, decoded only to explain
            gift = GiftEvent.model_validate_json(payload)
        except ValidationError:
            pass
        else:
            if isinstance(payload, bytes | bytearray) or _within_bytes(payload):
                await inbox.accept(gift)
                return gift
    data = decode_object(payload)
    if isinstance(data, str):
        await inbox.refuse(data)
        return None
    try:
        gift = GiftEvent.model_validate_json(payload)
    except ValidationError as exc:
        event_id, platform = claimed_identity(data)
        await inbox.refuse(validation_reason(exc), event_id=event_id, platform=platform)
        return None
    await inbox.accept(gift)
    return gift


def _within_bytes(text: str) -> bool:
    return len(text.encode("utf-8", "surrogatepass")) <= MAX_PAYLOAD_BYTES
