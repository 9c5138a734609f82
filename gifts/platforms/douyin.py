"""Douyin open-platform pushes (直播间数据开放) as gift events: ``live_gift`` and
``live_comment``.

A push is a verified request (:func:`gifts.signatures.verify_douyin`) whose
``x-msg-type`` header names the type and whose body is a JSON list of messages; the
room is its ``x-roomid`` header. ``msg_id`` is each message's delivery id (Douyin may
deliver a message twice). ``gift_value`` is the total in 分 (1/100 yuan); a message
with ``test`` true comes from the console's simulator.
"""

from __future__ import annotations

from typing import Any, Final

from gifts.events import GiftEvent, GiftKind
from gifts.platforms.common import (
    PayloadError,
    field_int,
    field_str,
    gift_event,
    mapping,
    optional_str,
    unix_time,
)

__all__ = ["COMMENT", "GIFT", "from_push"]

GIFT: Final = "live_gift"
COMMENT: Final = "live_comment"


def from_push(message_type: str, body: Any, *, room: str | None = None) -> list[GiftEvent]:
    """Every gift (or comment) in one push, in its order."""
    if message_type not in (GIFT, COMMENT):
        raise PayloadError(f"a {message_type[:60]!r} push carries no gift")
    if not isinstance(body, list):
        raise PayloadError(f"the {message_type} push is not a JSON list")
    return [_one(message_type, mapping(item, f"a {message_type} message"), room) for item in body]


def _one(message_type: str, data: Any, room: str | None) -> GiftEvent:
    what = f"the {message_type} message"
    common: dict[str, Any] = {
        "event_id": field_str(data, "msg_id", what),
        "platform": "douyin",
        "room": room,
        "viewer_id": optional_str(data, "sec_openid"),
        "display_name": optional_str(data, "nickname") or "",
        "sent_at": unix_time(data, "timestamp", what),
        "test": data.get("test") is True,
        "raw": dict(data),
    }
    if message_type == COMMENT:
        return gift_event(
            what, kind=GiftKind.COMMENT, message=optional_str(data, "content") or "", **common
        )
    gift = field_str(data, "sec_gift_id", what)
    return gift_event(
        what,
        kind=GiftKind.GIFT,
        gift_id=gift,
        # the push names the gift by its opaque id only: the config maps the id, and no
        # display shows it as a name
        gift_name="",
        count=field_int(data, "gift_num", what),
        value=field_int(data, "gift_value", what, default=0),
        currency="CNY_fen",
        **common,
    )
