"""Bilibili open platform (直播开放平台) messages as gift events: gifts
(``LIVE_OPEN_PLATFORM_SEND_GIFT``) and super chats (``LIVE_OPEN_PLATFORM_SUPER_CHAT``).

They arrive on the open platform's long connection (a WebSocket the arena does not
hold): a bridge forwards each message, ``{"cmd": ..., "data": {...}}``, to the gifts
topic or the webhook. ``msg_id`` is the delivery id. A gift's
``price`` is in 金瓜子 (1/1000 yuan) per gift; a free gift (``paid`` false) is worth 0.
"""

from __future__ import annotations

from collections.abc import Mapping
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

__all__ = ["GIFT", "SUPER_CHAT", "from_message"]

GIFT: Final = "LIVE_OPEN_PLATFORM_SEND_GIFT"
SUPER_CHAT: Final = "LIVE_OPEN_PLATFORM_SUPER_CHAT"


def from_message(message: Mapping[str, Any]) -> list[GiftEvent]:
    """The gift in one open-platform message (``cmd`` and ``data``)."""
    command = field_str(message, "cmd", "the message")
    data = mapping(message.get("data"), f"the {command[:60]} message's data")
    if command == GIFT:
        return [_gift(data, dict(message))]
    if command == SUPER_CHAT:
        return [_super_chat(data, dict(message))]
    raise PayloadError(f"a {command[:80]!r} message carries no gift")


def _viewer(data: Mapping[str, Any], what: str) -> dict[str, Any]:
    return {
        "viewer_id": optional_str(data, "open_id"),
        "display_name": optional_str(data, "uname") or "",
        "room": optional_str(data, "room_id"),
        "sent_at": unix_time(data, "timestamp", what),
    }


def _gift(data: Mapping[str, Any], raw: dict[str, Any]) -> GiftEvent:
    what = "the gift"
    count = field_int(data, "gift_num", what)
    price = field_int(data, "price", what, default=0)
    combo = data.get("combo_info")
    streak = optional_str(combo, "combo_id") if isinstance(combo, Mapping) else None
    return gift_event(
        what,
        event_id=field_str(data, "msg_id", what),
        platform="bilibili",
        kind=GiftKind.GIFT,
        gift_id=field_str(data, "gift_id", what),
        gift_name=field_str(data, "gift_name", what),
        count=count,
        value=price * count if data.get("paid") is True else 0,
        currency="bilibili_gold",
        streak_id=streak,
        raw=raw,
        **_viewer(data, what),
    )


def _super_chat(data: Mapping[str, Any], raw: dict[str, Any]) -> GiftEvent:
    what = "the super chat"
    return gift_event(
        what,
        event_id=field_str(data, "msg_id", what),
        platform="bilibili",
        kind=GiftKind.SUPER_CHAT,
        gift_id="super_chat",
        gift_name="醒目留言",
        value=field_int(data, "rmb", what) * 100,
        currency="CNY_fen",
        message=optional_str(data, "message") or "",
        raw=raw,
        **_viewer(data, what),
    )
