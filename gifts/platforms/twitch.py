"""Twitch EventSub notifications as gift events: bits (``channel.cheer``,
``channel.bits.use``) and channel-point redemptions
(``channel.channel_points_custom_reward_redemption.add``).

The gift's ``event_id`` is the delivery's ``Twitch-Eventsub-Message-Id`` (Twitch
redelivers with the same id). A redemption keeps its own id in ``raw``: refunding it
(Twitch's accept, queue, then fulfil or cancel) needs that one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Final

from gifts.events import GiftEvent, GiftKind
from gifts.platforms.common import (
    PayloadError,
    field_int,
    field_str,
    gift_event,
    mapping,
    optional_str,
)

__all__ = ["GIFT_SUBSCRIPTIONS", "from_eventsub"]

CHEER: Final = "channel.cheer"
BITS_USE: Final = "channel.bits.use"
REDEMPTION: Final = "channel.channel_points_custom_reward_redemption.add"
GIFT_SUBSCRIPTIONS: Final = (CHEER, BITS_USE, REDEMPTION)
"""The EventSub subscription types that carry gifts."""


def from_eventsub(payload: Mapping[str, Any], message_id: str) -> list[GiftEvent]:
    """The gift in a verified EventSub notification (its body, parsed)."""
    subscription = mapping(payload.get("subscription"), "the notification's subscription")
    kind = field_str(subscription, "type", "the subscription")
    event = mapping(payload.get("event"), "the notification's event")
    if kind == CHEER:
        return [_bits(event, message_id, dict(payload), text=optional_str(event, "message"))]
    if kind == BITS_USE:
        message = event.get("message")
        text = optional_str(message, "text") if isinstance(message, Mapping) else None
        return [_bits(event, message_id, dict(payload), text=text)]
    if kind == REDEMPTION:
        return [_redemption(event, message_id, dict(payload))]
    raise PayloadError(f"a {kind[:80]!r} notification carries no gift")


def _viewer(event: Mapping[str, Any]) -> dict[str, Any]:
    anonymous = event.get("is_anonymous") is True or event.get("user_id") is None
    return {
        "viewer_id": None if anonymous else optional_str(event, "user_id"),
        "display_name": "" if anonymous else optional_str(event, "user_name") or "",
        "anonymous": anonymous,
        "room": optional_str(event, "broadcaster_user_id"),
    }


def _bits(
    event: Mapping[str, Any], message_id: str, raw: dict[str, Any], *, text: str | None
) -> GiftEvent:
    bits = field_int(event, "bits", "the bits event")
    if bits < 1:
        raise PayloadError("the bits event: 'bits' is below 1")
    power_up = event.get("power_up")
    name = "bits"
    if event.get("type") == "power_up" and isinstance(power_up, Mapping):
        name = optional_str(power_up, "type") or "power_up"
    return gift_event(
        "the bits event",
        event_id=message_id,
        platform="twitch",
        kind=GiftKind.CHEER,
        gift_id=name,
        gift_name=name,
        value=bits,
        currency="bits",
        message=text or "",
        raw=raw,
        **_viewer(event),
    )


def _redemption(event: Mapping[str, Any], message_id: str, raw: dict[str, Any]) -> GiftEvent:
    reward = mapping(event.get("reward"), "the redemption's reward")
    redeemed = optional_str(event, "redeemed_at")
    try:
        sent_at = datetime.fromisoformat(redeemed.replace("Z", "+00:00")) if redeemed else None
    except ValueError:
        raise PayloadError(f"the redemption: redeemed_at {redeemed!r} is no time") from None
    return gift_event(
        "the redemption",
        event_id=message_id,
        platform="twitch",
        kind=GiftKind.POINTS,
        gift_id=field_str(reward, "id", "the reward"),
        gift_name=field_str(reward, "title", "the reward"),
        value=field_int(reward, "cost", "the reward", default=0),
        currency="points",
        message=optional_str(event, "user_input") or "",
        sent_at=sent_at,
        raw=raw,
        **_viewer(event),
    )
