"""Is this webhook really from where it says? Signatures, their time windows, replays.

Three schemes, each checked on the raw request body as received (never a re-encoded
one) and compared in constant time:

- **The arena's own webhook** (what a bridge such as Node-RED signs):
  ``X-Arena-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">``. The time
  must be within :data:`TOLERANCE_S` of ours.
- **Twitch EventSub**: ``Twitch-Eventsub-Message-Signature: sha256=<hex HMAC-SHA256 of
  message id + timestamp + body>``; the timestamp (RFC 3339) within 10 minutes, as
  Twitch asks. Its ``webhook_callback_verification`` message is answered with its
  challenge; ``revocation`` says the subscription ended.
- **Douyin open-platform push**: ``x-signature`` is base64(MD5(its signed headers,
  ``x-msg-type``, ``x-nonce-str``, ``x-roomid`` and ``x-timestamp`` as sent, sorted by
  name, as ``k=v`` joined by ``&``, then the body, then the secret)); ``x-timestamp``
  is in milliseconds. Other headers (a proxy's ``x-forwarded-for``) are not signed.

A delivery whose id was already accepted is a replay (:class:`ReplayGuard`, bounded):
refused, whatever its signature. Every refusal is a :class:`SignatureError` whose
message says why, without the secret or the expected signature, whatever the headers
hold (non-ASCII text included: signatures are compared as UTF-8 bytes, and times must
be ASCII digits of a plausible length).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, cast

import orjson

from arena.errors import ArenaError

__all__ = [
    "TOLERANCE_S",
    "TWITCH_TOLERANCE_S",
    "ReplayGuard",
    "SignatureError",
    "TwitchMessage",
    "sign_arena_webhook",
    "sign_douyin",
    "sign_twitch",
    "verify_arena_webhook",
    "verify_douyin",
    "verify_twitch",
]

TOLERANCE_S: Final = 300.0
"""How far a signed time may be from ours (the arena's webhook and Douyin's push)."""
TWITCH_TOLERANCE_S: Final = 600.0
"""Twitch's own rule: a message older than 10 minutes is refused."""
_DOUYIN_SIGNED: Final = ("x-msg-type", "x-nonce-str", "x-roomid", "x-timestamp")
_TWITCH_KINDS: Final = ("notification", "webhook_callback_verification", "revocation")
TwitchKind = Literal["notification", "webhook_callback_verification", "revocation"]


class SignatureError(ArenaError, ValueError):
    """A webhook request that is not, or no longer, what it claims: why, in words."""


class ReplayGuard:
    """The delivery ids accepted lately (at most ``size``, each for ``keep_s``): one
    seen again is a replay. Bounded, so a flood of ids cannot grow it."""

    def __init__(self, *, size: int = 100_000, keep_s: float = 2 * TWITCH_TOLERANCE_S) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._size = size
        self._keep_s = keep_s

    def admit(self, delivery_id: str, now: float) -> None:
        """Remember ``delivery_id``; a SignatureError if it was seen already."""
        seen = self._seen
        while seen and (len(seen) >= self._size or next(iter(seen.values())) < now - self._keep_s):
            seen.popitem(last=False)
        if delivery_id in seen:
            raise SignatureError(f"delivery {delivery_id!r} was already received: a replay")
        seen[delivery_id] = now


def _headers(headers: Mapping[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _require(headers: dict[str, str], name: str) -> str:
    value = headers.get(name.lower())
    if not value:
        raise SignatureError(f"the {name} header is missing")
    return value


def _within(signed_at: float, now: float, tolerance_s: float, what: str) -> None:
    if abs(now - signed_at) > tolerance_s:
        when = "old" if signed_at < now else "ahead of this clock"
        raise SignatureError(
            f"{what} is {abs(now - signed_at):.0f} s {when}, more than {tolerance_s:.0f} s: "
            "a late or replayed request, or a clock far off"
        )


def _hmac_hex(secret: bytes, message: bytes) -> str:
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


def _raw(text: str) -> bytes:
    """A header's text as bytes, whatever it holds (a lone surrogate included, which a
    server decoding with ``surrogateescape`` can give)."""
    return text.encode("utf-8", "surrogatepass")


def _same(expected: str, given: str) -> bool:
    """Constant-time equality of two signatures; as bytes, since compare_digest raises
    TypeError on a str with non-ASCII characters (a forged header may hold any)."""
    return hmac.compare_digest(_raw(expected), _raw(given))


def _whole(text: str, most_digits: int) -> int | None:
    """``text`` as a whole number if it is ASCII digits, at most ``most_digits`` of them
    (``int`` alone takes other scripts' digits, and a huge one overflows a float)."""
    if text.isascii() and text.isdigit() and len(text) <= most_digits:
        return int(text)
    return None


# --- the arena's own webhook ------------------------------------------------------------


def sign_arena_webhook(body: bytes, secret: bytes, timestamp: int) -> str:
    """The ``X-Arena-Signature`` header for ``body`` sent at ``timestamp`` (a bridge's
    side, and the tests')."""
    return f"t={timestamp},v1={_hmac_hex(secret, str(timestamp).encode() + b'.' + body)}"


def verify_arena_webhook(
    headers: Mapping[str, str],
    body: bytes,
    secret: bytes,
    *,
    now: float,
    guard: ReplayGuard,
    delivery_id: str | None = None,
) -> None:
    """Check ``X-Arena-Signature`` (see the module); ``delivery_id`` (the gift's event
    id) goes through the replay guard once the signature holds."""
    parts = dict(
        part.split("=", 1)
        for part in _require(_headers(headers), "X-Arena-Signature").split(",")
        if "=" in part
    )
    if "t" not in parts or "v1" not in parts:
        raise SignatureError("X-Arena-Signature must read t=<unix seconds>,v1=<hex digest>")
    signed_at = _whole(parts["t"], 15)
    if signed_at is None:
        raise SignatureError(
            "X-Arena-Signature: t must be the Unix time in whole seconds (at most 15 digits)"
        )
    _within(signed_at, now, TOLERANCE_S, "the signature's time")
    expected = _hmac_hex(secret, parts["t"].encode() + b"." + body)
    if not _same(expected, parts["v1"]):
        raise SignatureError("X-Arena-Signature does not match the body and the shared secret")
    if delivery_id is not None:
        guard.admit(f"arena:{delivery_id}", now)


# --- Twitch EventSub --------------------------------------------------------------------


@dataclass(frozen=True)
class TwitchMessage:
    """A verified EventSub delivery: what it is and what it holds."""

    kind: TwitchKind
    message_id: str
    subscription_type: str
    payload: dict[str, Any]
    challenge: str | None = None
    """For ``webhook_callback_verification``: the text to answer with (200, text/plain)."""


def sign_twitch(message_id: str, timestamp: str, body: bytes, secret: bytes) -> str:
    """The ``Twitch-Eventsub-Message-Signature`` Twitch would send (for tests)."""
    return "sha256=" + _hmac_hex(secret, _raw(message_id) + _raw(timestamp) + body)


def verify_twitch(
    headers: Mapping[str, str], body: bytes, secret: bytes, *, now: float, guard: ReplayGuard
) -> TwitchMessage:
    """Check an EventSub webhook request as Twitch documents it (see the module)."""
    lowered = _headers(headers)
    message_id = _require(lowered, "Twitch-Eventsub-Message-Id")
    stamp = _require(lowered, "Twitch-Eventsub-Message-Timestamp")
    signature = _require(lowered, "Twitch-Eventsub-Message-Signature")
    kind = _require(lowered, "Twitch-Eventsub-Message-Type")
    if kind not in _TWITCH_KINDS:
        raise SignatureError(f"unknown Twitch-Eventsub-Message-Type {kind[:40]!r}")
    try:
        signed_at = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    except (ValueError, OverflowError, OSError):  # no time, or none the platform can hold
        raise SignatureError(
            f"Twitch-Eventsub-Message-Timestamp {stamp[:40]!r} is no time"
        ) from None
    expected = sign_twitch(message_id, stamp, body, secret)
    if not _same(expected, signature):
        raise SignatureError("the Twitch signature does not match the body and the secret")
    _within(signed_at, now, TWITCH_TOLERANCE_S, "the Twitch message's timestamp")
    guard.admit(f"twitch:{message_id}", now)
    try:
        payload = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        raise SignatureError(f"the Twitch body is not JSON: {exc}") from None
    if not isinstance(payload, dict):
        raise SignatureError("the Twitch body is not a JSON object")
    subscription = payload.get("subscription")
    subscription_type = subscription.get("type", "") if isinstance(subscription, dict) else ""
    challenge = payload.get("challenge") if kind == "webhook_callback_verification" else None
    if kind == "webhook_callback_verification" and not isinstance(challenge, str):
        raise SignatureError("a Twitch verification request without its challenge")
    return TwitchMessage(
        cast(TwitchKind, kind), message_id, str(subscription_type), payload, challenge
    )


# --- Douyin open-platform push ----------------------------------------------------------


def sign_douyin(headers: Mapping[str, str], body: bytes, secret: str) -> str:
    """The ``x-signature`` of a Douyin push (see the module)."""
    lowered = _headers(headers)
    signed = sorted((name, lowered[name]) for name in _DOUYIN_SIGNED if name in lowered)
    text = _raw("&".join(f"{name}={value}" for name, value in signed)) + body + _raw(secret)
    return base64.b64encode(hashlib.md5(text, usedforsecurity=False).digest()).decode()


def verify_douyin(
    headers: Mapping[str, str], body: bytes, secret: str, *, now: float, guard: ReplayGuard
) -> None:
    """Check a Douyin open-platform push (see the module); its ``x-nonce-str`` and
    ``x-timestamp`` together go through the replay guard."""
    lowered = _headers(headers)
    signature = _require(lowered, "x-signature")
    nonce = _require(lowered, "x-nonce-str")
    stamp = _require(lowered, "x-timestamp")
    if not _same(sign_douyin(lowered, body, secret), signature):
        raise SignatureError("the Douyin x-signature does not match the body and the secret")
    signed_ms = _whole(stamp, 18)
    if signed_ms is None:
        raise SignatureError(f"x-timestamp {stamp[:40]!r} is not in milliseconds")
    _within(signed_ms / 1000, now, TOLERANCE_S, "the Douyin push's x-timestamp")
    guard.admit(f"douyin:{nonce}:{stamp}", now)
