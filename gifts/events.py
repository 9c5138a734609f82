"""The normalized gift event: what every source turns a viewer's gift into.

Platforms differ in everything (Bilibili's open platform, Douyin's push, Twitch
EventSub, TikTok-style streaks, a streamer's test from ``arena gift send``); past the
source, the arena sees only :class:`GiftEvent`. It is strict: a field of the wrong
type, a string over its cap or an unknown key is a ValidationError naming the field,
and the gift is rejected with that reason before anything else happens. Viewer text
(names, gift names, messages) is cleaned on the way in
(:func:`gifts.text.clean_viewer_text`).

``event_id`` is the platform's own id for the delivery (Douyin and Bilibili ``msg_id``,
Twitch EventSub ``message_id``): platforms deliver at least once, so a second event
with an id already seen is a duplicate, recognised before any cooldown is counted.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Final

import orjson
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    field_validator,
    model_validator,
)

from arena.safe_json import json_safe
from gifts.text import clean_viewer_text
from protocol import MAX_JSON_INT
from protocol.events import MAX_SEATS, GiftEffect

__all__ = [
    "MAX_MESSAGE",
    "MAX_NAME",
    "MAX_RAW_BYTES",
    "RESULT_CHANGING",
    "STRONG",
    "GiftEffect",
    "GiftEvent",
    "GiftKind",
]

MAX_NAME: Final = 40
"""A viewer's display name or a gift's name, in characters, after cleaning."""
MAX_MESSAGE: Final = 200
"""A viewer's message (a super chat, a comment), in characters, after cleaning."""
MAX_RAW_BYTES: Final = 16_384
"""The platform payload kept with the event, as JSON: enough for any documented gift
payload, and a bound on what one event can make the arena hold."""


STRONG: Final = frozenset({GiftEffect.SWAP, GiftEffect.ADD})
"""Strong interventions: refused near the end of a hand, under a global cooldown."""
RESULT_CHANGING: Final = frozenset(
    {GiftEffect.SWAP, GiftEffect.ADD, GiftEffect.DOUBLE, GiftEffect.ROLE_SWAP, GiftEffect.RESHUFFLE}
)
"""Effects that can change a result: refused in ``ranked`` mode, marked in the round."""


class GiftKind(StrEnum):
    """What the viewer did, as the platform calls it."""

    GIFT = "gift"  # a platform gift (Bilibili, Douyin, TikTok)
    SUPER_CHAT = "super_chat"  # a paid message (Bilibili 醒目留言)
    CHEER = "cheer"  # Twitch bits
    POINTS = "points"  # Twitch channel points, redeemed
    COMMENT = "comment"  # a chat line (Douyin live_comment): free, usually mapped to CHEER


Id = Annotated[StrictStr, Field(min_length=1, max_length=128)]


class GiftEvent(BaseModel):
    """One viewer's gift, from any platform, as the arena handles it (see the module)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    event_id: Id = Field(description="The platform's id for this delivery: duplicates share it.")
    platform: Annotated[StrictStr, Field(pattern=r"^[a-z0-9_-]{1,32}$")] = Field(
        description="bilibili, douyin, twitch, tiktok, test, simulated, ..."
    )
    room: Id | None = Field(default=None, description="The live room or channel.")
    kind: GiftKind = GiftKind.GIFT
    viewer_id: Id | None = Field(default=None, description="The platform's id of the viewer.")
    display_name: StrictStr = Field(default="", description="The viewer's name, cleaned.")
    anonymous: StrictBool = Field(default=False, description="Shown as 'a viewer', not by name.")
    gift_id: Id | None = None
    gift_name: StrictStr = Field(default="", description="The gift's name, cleaned.")
    count: Annotated[StrictInt, Field(ge=1, le=10_000)] = Field(
        default=1, description="How many at once: a gift of count N is N gifts."
    )
    value: Annotated[StrictInt, Field(ge=0, le=MAX_JSON_INT)] = Field(
        default=0, description="What it cost, in the platform's integer units (see currency)."
    )
    currency: Annotated[StrictStr, Field(max_length=16)] | None = Field(
        default=None, description="The unit of value: 'bits', 'points', 'CNY_fen', 'coins'..."
    )
    streak_id: Id | None = Field(default=None, description="The combo or streak it belongs to.")
    streak_final: StrictBool = Field(
        default=True,
        description="False for a streak's running updates: only its final event counts.",
    )
    message: StrictStr = Field(default="", description="What the viewer wrote, cleaned.")
    sent_at: datetime | None = Field(default=None, description="When the platform says.")
    received_at: datetime | None = Field(default=None, description="When the arena got it.")
    test: StrictBool = Field(default=False, description="A streamer's or platform's test.")
    table: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")] | None = Field(
        default=None, description="The table it is for (default: the first)."
    )
    target_seat: Annotated[StrictInt, Field(ge=0, le=MAX_SEATS - 1)] | None = Field(
        default=None,
        description="The seat it targets (default: picked by the config's rule); a seat "
        "its table does not have is refused when the gift reaches the table.",
    )
    effect: GiftEffect | None = Field(
        default=None,
        description="The effect, when the source names it (arena gift send); else the "
        "config maps the gift's name to one.",
    )
    raw: dict[str, Any] | None = Field(default=None, description="The platform's payload.")

    @field_validator("event_id", "room", "viewer_id", "gift_id", "streak_id", "currency")
    @classmethod
    def _printable_id(cls, value: str | None) -> str | None:
        """An id is kept exactly (duplicates are found by it), so it is refused, not
        cleaned, when it holds what could fake a line or hide text."""
        if value is not None and not value.isprintable():
            raise ValueError("holds control or format characters (an id must be printable)")
        return value

    @field_validator("effect", mode="before")
    @classmethod
    def _effect_any_case(cls, value: Any) -> Any:
        """``"swap"`` is SWAP, as ``arena gift send swap`` takes it."""
        if isinstance(value, str) and not isinstance(value, GiftEffect) and len(value) <= 20:
            upper = value.upper()
            return GiftEffect(upper) if upper in GiftEffect.__members__ else value
        return value

    @field_validator("display_name", "gift_name", mode="after")
    @classmethod
    def _clean_name(cls, value: str) -> str:
        return clean_viewer_text(value, MAX_NAME)

    @field_validator("message", mode="after")
    @classmethod
    def _clean_message(cls, value: str) -> str:
        return clean_viewer_text(value, MAX_MESSAGE)

    @field_validator("display_name", "gift_name", "message", mode="before")
    @classmethod
    def _bounded(cls, value: Any) -> Any:
        """A string far over any cap is refused, not cleaned: nothing legitimate is
        that long, and cleaning it would cost time for each such event."""
        if isinstance(value, str) and len(value) > 20 * MAX_MESSAGE:
            raise ValueError(f"{len(value)} characters: far more than any viewer text")
        return value

    @field_validator("raw", mode="after")
    @classmethod
    def _raw_bounded(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        """The payload is kept and may be written out: it must be JSON data that every
        encoder writes (no integer beyond 64 bits, no NaN, no lone surrogate, no other
        object), within :data:`MAX_RAW_BYTES`."""
        if value is None:
            return None
        _, unwritable = json_safe(value, root="raw")
        if unwritable:
            where, what = unwritable[0]
            more = f" (and {len(unwritable) - 1} more)" if len(unwritable) > 1 else ""
            raise ValueError(f"holds {what} at {where}{more}: no JSON the arena can write")
        size = len(orjson.dumps(value))
        if size > MAX_RAW_BYTES:
            raise ValueError(f"the raw payload is {size} bytes, over {MAX_RAW_BYTES}")
        return value

    @model_validator(mode="after")
    def _named_or_anonymous(self) -> GiftEvent:
        if not self.display_name and not self.anonymous:
            object.__setattr__(self, "anonymous", True)  # nobody to name: 'a viewer'
        return self

    @property
    def shown_name(self) -> str:
        """How a display names the viewer."""
        return "a viewer" if self.anonymous else self.display_name

    @property
    def counts(self) -> bool:
        """False for a streak's running update: only its final event is a gift."""
        return self.streak_final

    @property
    def key(self) -> tuple[str, str]:
        """What makes two deliveries the same gift: the platform and its event id."""
        return self.platform, self.event_id
