"""Gifts over HTTP: the arena server's signed webhook, and the control page's test gift.

A bridge may POST each gift to the arena server (``/gifts/webhook``) instead of
publishing it over MQTT. The body is the gift event's JSON, exactly as on
``<prefix>/gifts/in``; the request is signed with the server's token
(``X-Arena-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">``,
:func:`gifts.signatures.sign_arena_webhook`). An unsigned or wrongly signed request is
refused (401) and reaches no table: it did not come from the bridge. A signed payload
that is no gift goes to the inbox's ``refuse`` like any source's, so it is told at the
default table as ``rejected`` (``invalid: ...``), and the answer (400) names the field.
A signed gift goes to the inbox (202); what becomes of it (queued, applied, rejected,
expired) is told as the table's ``gift`` events. A redelivery is the queue's
``duplicate``, told like any other, so that every delivery is accounted for.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import ValidationError

from gifts.events import GiftEffect, GiftEvent
from gifts.send import gift_for_test
from gifts.signatures import ReplayGuard, SignatureError, verify_arena_webhook
from gifts.sources import Inbox
from gifts.sources.parse import deliver, validation_reason

__all__ = ["WebhookIntake"]


class WebhookIntake:
    """The arena server's gift intake (:class:`arena.server.app.GiftIntake`)."""

    effects: Sequence[str] = tuple(effect.value for effect in GiftEffect)

    def __init__(self, inbox: Inbox, *, secret: str, now: Callable[[], float] = time.time) -> None:
        self._inbox = inbox
        self._secret = secret.encode()
        self._now = now
        self._guard = ReplayGuard()  # unused for ids: a redelivery is the queue's duplicate

    async def webhook(self, headers: Mapping[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
        """See the module."""
        try:
            verify_arena_webhook(headers, body, self._secret, now=self._now(), guard=self._guard)
        except SignatureError as exc:
            return 401, {"error": str(exc)}
        told = _Telling(self._inbox)
        gift = await deliver(told, body)
        if gift is None:
            return 400, {
                "error": f"invalid: {told.reason}",
                "told": "rejected at the default table, as every gift's outcome is",
            }
        return 202, {"accepted": gift.event_id, "platform": gift.platform}

    async def test_gift(self, fields: Mapping[str, Any]) -> tuple[int, dict[str, Any]]:
        """A test gift naming its effect (``effect``, and optionally ``table``,
        ``target``, ``viewer``, ``message``: the app refuses other fields), as
        ``arena gift send`` makes one."""
        raw_effect = fields.get("effect")
        try:
            effect = GiftEffect(str(raw_effect).upper())
        except ValueError:
            return 400, {"error": f"effect: {raw_effect!r} is none of {', '.join(self.effects)}"}
        try:
            gift = gift_for_test(
                effect,
                viewer=_text(fields.get("viewer")),
                table=_text(fields.get("table")),
                target=_seat(fields.get("target")),
                message=_text(fields.get("message")) or "",
            )
        except ValidationError as exc:
            return 400, {"error": validation_reason(exc)}
        await self._inbox.accept(gift)
        where = f" at {gift.table}" if gift.table else ""
        return 202, {
            "ok": True,
            "said": f"test gift {effect.value} sent{where} (event {gift.event_id})",
            "event_id": gift.event_id,
        }


class _Telling:
    """The inbox, remembering why it refused a payload (for the webhook's answer)."""

    def __init__(self, inbox: Inbox) -> None:
        self._inbox = inbox
        self.reason = ""

    async def accept(self, gift: GiftEvent) -> None:
        await self._inbox.accept(gift)

    async def refuse(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        self.reason = reason
        await self._inbox.refuse(reason, event_id=event_id, platform=platform)


def _seat(value: Any) -> Any:
    """A form's seat: ``"1"`` is 1, nothing is None; anything else as given, for the gift
    event to refuse naming ``target_seat`` (``int`` would raise on 5,000 digits or a
    superscript ``²``, which ``isdigit`` also takes)."""
    if value is None or value == "":
        return None
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) <= 3:
        return int(value)
    return value


def _text(value: Any) -> str | None:
    """A form's text: None for absent or empty."""
    if value is None or value == "":
        return None
    return value if isinstance(value, str) else str(value)
