"""TikTok-style gift events (as TikTok LIVE bridges such as TikTok-Live-Connector emit
them) as gift events, streaks included.

A streakable gift (``giftType`` 1) sends an event at every tap of a streak, each with
the running ``repeatCount``, and a last one with ``repeatEnd`` true: only that last one
is a gift, of ``repeatCount`` gifts. The running updates are converted too (marked not
final, so ``counts`` is False), but the gift queue drops them without an outcome or any
other event: nothing tells the streak growing, only its final total. Other gifts come
once. ``msgId`` is the delivery id.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gifts.events import GiftEvent, GiftKind
from gifts.platforms.common import field_int, field_str, gift_event, optional_str, unix_time

__all__ = ["from_event"]


def from_event(event: Mapping[str, Any], *, room: str | None = None) -> list[GiftEvent]:
    """The gift in one gift event."""
    what = "the gift event"
    streakable = event.get("giftType") == 1
    user = optional_str(event, "userId")
    gift = field_str(event, "giftId", what)
    count = field_int(event, "repeatCount", what, default=1)
    return [
        gift_event(
            what,
            event_id=field_str(event, "msgId", what),
            platform="tiktok",
            room=room,
            kind=GiftKind.GIFT,
            viewer_id=user,
            display_name=optional_str(event, "nickname") or optional_str(event, "uniqueId") or "",
            gift_id=gift,
            gift_name=optional_str(event, "giftName") or gift,
            count=max(1, count),
            value=field_int(event, "diamondCount", what, default=0) * max(1, count),
            currency="diamonds",
            streak_id=(optional_str(event, "groupId") or f"{user}:{gift}") if streakable else None,
            streak_final=(event.get("repeatEnd") is True) if streakable else True,
            sent_at=unix_time(event, "createTime", what),
            raw=dict(event),
        )
    ]
