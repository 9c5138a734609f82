"""Webhook signatures for gifts (issue 11): the arena's own, Twitch EventSub's, Douyin's.

Each scheme accepts exactly what was signed with the secret, within its time window,
once; a changed body, a wrong secret, a stale time, a missing header or a replay is a
SignatureError that says which, and never shows the secret.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import hmac
import time

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gifts.signatures import (
    ReplayGuard,
    SignatureError,
    sign_arena_webhook,
    sign_douyin,
    sign_twitch,
    verify_arena_webhook,
    verify_douyin,
    verify_twitch,
)

SECRET = b"s3cret-for-tests"
NOW = 1_795_500_000.0
BODY = orjson.dumps({"event_id": "e-1", "platform": "test", "effect": "CHEER"})


# --- the arena's own webhook -----------------------------------------------------------


def arena_headers(body: bytes = BODY, *, at: float = NOW, secret: bytes = SECRET) -> dict[str, str]:
    return {"X-Arena-Signature": sign_arena_webhook(body, secret, int(at))}


def test_a_signed_body_is_accepted_once() -> None:
    guard = ReplayGuard()
    verify_arena_webhook(arena_headers(), BODY, SECRET, now=NOW, guard=guard, delivery_id="e-1")
    with pytest.raises(SignatureError, match="already received: a replay"):
        verify_arena_webhook(
            arena_headers(), BODY, SECRET, now=NOW + 1, guard=guard, delivery_id="e-1"
        )


@pytest.mark.parametrize(
    ("headers", "body", "reason"),
    [
        (arena_headers(), BODY + b" ", "does not match"),
        (arena_headers(secret=b"another secret"), BODY, "does not match"),
        (arena_headers(at=NOW - 301), BODY, "301 s old, more than 300 s"),
        (arena_headers(at=NOW + 301), BODY, "301 s ahead of this clock, more than 300 s"),
        ({}, BODY, "X-Arena-Signature header is missing"),
        ({"X-Arena-Signature": "sha256=abc"}, BODY, "must read t="),
        ({"X-Arena-Signature": "t=soon,v1=abc"}, BODY, "t must be the Unix time in whole seconds"),
        ({"X-Arena-Signature": "t=" + "9" * 26 + ",v1=a"}, BODY, r"at most 15 digits"),
    ],
)
def test_anything_else_is_refused_with_its_reason(
    headers: dict[str, str], body: bytes, reason: str
) -> None:
    with pytest.raises(SignatureError, match=reason) as caught:
        verify_arena_webhook(headers, body, SECRET, now=NOW, guard=ReplayGuard())
    assert SECRET.decode() not in str(caught.value)


def test_header_names_are_case_insensitive() -> None:
    headers = {"x-arena-signature": sign_arena_webhook(BODY, SECRET, int(NOW))}
    verify_arena_webhook(headers, BODY, SECRET, now=NOW, guard=ReplayGuard())


def test_the_replay_guard_is_bounded_and_forgets_old_ids() -> None:
    guard = ReplayGuard(size=3, keep_s=10)
    for n in range(5):
        guard.admit(f"id-{n}", NOW)
    guard.admit("id-0", NOW)  # pushed out by newer ones: no longer remembered
    with pytest.raises(SignatureError):
        guard.admit("id-4", NOW)  # still remembered
    later = ReplayGuard(size=100, keep_s=10)
    later.admit("x", NOW)
    later.admit("x", NOW + 11)  # forgotten after keep_s
    with pytest.raises(SignatureError):
        later.admit("x", NOW + 12)


# --- Twitch EventSub ---------------------------------------------------------------------


def twitch_headers(
    body: bytes, *, kind: str = "notification", message_id: str = "msg-1", stamp: str = ""
) -> dict[str, str]:
    stamp = stamp or "2026-11-24T05:20:00.123456789Z"
    return {
        "Twitch-Eventsub-Message-Id": message_id,
        "Twitch-Eventsub-Message-Timestamp": stamp,
        "Twitch-Eventsub-Message-Signature": sign_twitch(message_id, stamp, body, SECRET),
        "Twitch-Eventsub-Message-Type": kind,
    }


TWITCH_NOW = 1_795_497_600.0  # 2026-11-24T05:20:00Z
CHEER = orjson.dumps(
    {
        "subscription": {"id": "sub-1", "type": "channel.cheer", "version": "1"},
        "event": {"is_anonymous": False, "user_name": "Ada", "message": "Cheer100 go", "bits": 100},
    }
)


def test_a_twitch_notification_is_verified_and_read() -> None:
    message = verify_twitch(
        twitch_headers(CHEER), CHEER, SECRET, now=TWITCH_NOW, guard=ReplayGuard()
    )
    assert message.kind == "notification"
    assert message.subscription_type == "channel.cheer"
    assert message.payload["event"]["bits"] == 100
    assert message.challenge is None


def test_the_twitch_handshake_returns_its_challenge() -> None:
    body = orjson.dumps({"challenge": "pogchamp-kappa-360noscope", "subscription": {"type": "x"}})
    headers = twitch_headers(body, kind="webhook_callback_verification")
    message = verify_twitch(headers, body, SECRET, now=TWITCH_NOW, guard=ReplayGuard())
    assert message.challenge == "pogchamp-kappa-360noscope"


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda h, b: (h, b.replace(b"100", b"999")), "does not match"),
        (
            lambda h, b: ({**h, "Twitch-Eventsub-Message-Id": "msg-2"}, b),
            "does not match",
        ),
        (
            lambda h, b: (twitch_headers(b, stamp="2026-11-24T05:09:00Z"), b),
            "more than 600 s",
        ),
        (lambda h, b: (twitch_headers(b, kind="surprise"), b), "unknown Twitch-Eventsub"),
        (
            lambda h, b: ({k: v for k, v in h.items() if "Signature" not in k}, b),
            "Signature header is missing",
        ),
        (lambda h, b: (twitch_headers(b, stamp="yesterday"), b), "is no time"),
    ],
)
def test_a_twitch_request_that_is_not_what_it_claims_is_refused(
    change: object, reason: str
) -> None:
    headers, body = change(twitch_headers(CHEER), CHEER)  # type: ignore[operator]
    with pytest.raises(SignatureError, match=reason):
        verify_twitch(headers, body, SECRET, now=TWITCH_NOW, guard=ReplayGuard())


def test_a_twitch_message_delivered_twice_is_a_replay() -> None:
    guard = ReplayGuard()
    verify_twitch(twitch_headers(CHEER), CHEER, SECRET, now=TWITCH_NOW, guard=guard)
    with pytest.raises(SignatureError, match="replay"):
        verify_twitch(twitch_headers(CHEER), CHEER, SECRET, now=TWITCH_NOW, guard=guard)


def test_the_twitch_signature_is_the_documented_hmac() -> None:
    """HMAC-SHA256 over message id, timestamp and body, hex, after 'sha256=' (Twitch's
    documentation, worked by hand here with hashlib's HMAC steps)."""
    inner = hashlib.sha256(
        bytes(k ^ 0x36 for k in SECRET.ljust(64, b"\0")) + b"id" + b"ts" + b"{}"
    ).digest()
    outer = hashlib.sha256(bytes(k ^ 0x5C for k in SECRET.ljust(64, b"\0")) + inner).hexdigest()
    assert sign_twitch("id", "ts", b"{}", SECRET) == f"sha256={outer}"


# --- Douyin open-platform push -------------------------------------------------------------


DOUYIN_SECRET = "douyin-secret"
GIFTS = orjson.dumps([{"msg_id": "m-1", "sec_gift_id": "g", "gift_num": 1, "gift_value": 10}])


def douyin_headers(body: bytes = GIFTS, *, at_ms: int = int(NOW * 1000)) -> dict[str, str]:
    headers = {
        "x-nonce-str": "123456",
        "x-timestamp": str(at_ms),
        "x-roomid": "7382",
        "x-msg-type": "live_gift",
        "content-type": "application/json",
        "x-forwarded-for": "10.0.0.1",  # a proxy's: not signed
    }
    return {**headers, "x-signature": sign_douyin(headers, body, DOUYIN_SECRET)}


def test_the_douyin_signature_is_the_documented_md5() -> None:
    headers = douyin_headers()
    text = (
        (
            f"x-msg-type=live_gift&x-nonce-str=123456&x-roomid=7382&x-timestamp={int(NOW * 1000)}"
        ).encode()
        + GIFTS
        + DOUYIN_SECRET.encode()
    )
    expected = base64.b64encode(hashlib.md5(text, usedforsecurity=False).digest()).decode()
    assert headers["x-signature"] == expected
    verify_douyin(headers, GIFTS, DOUYIN_SECRET, now=NOW, guard=ReplayGuard())


@pytest.mark.parametrize(
    ("headers", "body", "reason"),
    [
        (douyin_headers(), GIFTS.replace(b"10", b"99"), "does not match"),
        ({**douyin_headers(), "x-roomid": "9999"}, GIFTS, "does not match"),
        (douyin_headers(at_ms=int((NOW - 400) * 1000)), GIFTS, "more than 300 s"),
        ({k: v for k, v in douyin_headers().items() if k != "x-nonce-str"}, GIFTS, "missing"),
    ],
)
def test_a_douyin_push_that_is_not_what_it_claims_is_refused(
    headers: dict[str, str], body: bytes, reason: str
) -> None:
    with pytest.raises(SignatureError, match=reason):
        verify_douyin(headers, body, DOUYIN_SECRET, now=NOW, guard=ReplayGuard())


def test_a_douyin_push_delivered_twice_is_a_replay() -> None:
    guard = ReplayGuard()
    verify_douyin(douyin_headers(), GIFTS, DOUYIN_SECRET, now=NOW, guard=guard)
    with pytest.raises(SignatureError, match="replay"):
        verify_douyin(douyin_headers(), GIFTS, DOUYIN_SECRET, now=NOW, guard=guard)


def test_the_clock_used_is_the_callers() -> None:
    """Verification takes ``now`` (a real server passes time.time()): a signature made
    now verifies now."""
    now = time.time()
    headers = {"X-Arena-Signature": sign_arena_webhook(BODY, SECRET, int(now))}
    verify_arena_webhook(headers, BODY, SECRET, now=now, guard=ReplayGuard())


# --- headers a forger chose: non-ASCII, surrogates, anything ---------------------------

NOT_ASCII = "é"


@pytest.mark.parametrize(
    "signature",
    [f"t={int(NOW)},v1={NOT_ASCII}", f"t={int(NOW)},v1=abc{NOT_ASCII}\ud800", "t=١٧٩٥٥٠٠٠٠٠,v1=a"],
)
def test_a_non_ascii_arena_signature_is_refused_not_a_type_error(signature: str) -> None:
    with pytest.raises(SignatureError):
        verify_arena_webhook(
            {"X-Arena-Signature": signature}, BODY, SECRET, now=NOW, guard=ReplayGuard()
        )


def test_an_arena_time_too_large_for_a_float_is_refused() -> None:
    with pytest.raises(SignatureError, match="at most 15 digits"):
        verify_arena_webhook(
            {"X-Arena-Signature": "t=" + "9" * 400 + ",v1=a"},
            BODY,
            SECRET,
            now=NOW,
            guard=ReplayGuard(),
        )


@pytest.mark.parametrize("signature", [f"sha256={NOT_ASCII}", "sha256=\ud800", NOT_ASCII * 70])
def test_a_non_ascii_twitch_signature_is_refused_not_a_type_error(signature: str) -> None:
    headers = {**twitch_headers(CHEER), "Twitch-Eventsub-Message-Signature": signature}
    with pytest.raises(SignatureError, match="does not match"):
        verify_twitch(headers, CHEER, SECRET, now=TWITCH_NOW, guard=ReplayGuard())


@pytest.mark.parametrize("signature", [NOT_ASCII, "小明", "\udcff"])
def test_a_non_ascii_douyin_signature_is_refused_not_a_type_error(signature: str) -> None:
    headers = {**douyin_headers(), "x-signature": signature}
    with pytest.raises(SignatureError, match="does not match"):
        verify_douyin(headers, GIFTS, DOUYIN_SECRET, now=NOW, guard=ReplayGuard())


def test_a_signed_douyin_timestamp_that_is_no_number_of_ms_is_refused() -> None:
    for stamp in ("١٧٩٥٥٠٠٠٠٠٠٠٠", "9" * 400, " 1795500000000"):
        headers = {"x-nonce-str": "n", "x-timestamp": stamp}
        headers["x-signature"] = sign_douyin(headers, GIFTS, DOUYIN_SECRET)
        with pytest.raises(SignatureError, match="not in milliseconds"):
            verify_douyin(headers, GIFTS, DOUYIN_SECRET, now=NOW, guard=ReplayGuard())


ANY_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
"""Any text, lone surrogates included (a server decoding with surrogateescape)."""
TEXT_OR_PLAUSIBLE = st.one_of(
    ANY_TEXT,
    st.integers().map(str),
    st.floats(allow_nan=True).map(str),
    st.datetimes().map(lambda d: d.isoformat() + "Z"),
)


@given(
    t=st.one_of(TEXT_OR_PLAUSIBLE, st.integers(int(NOW) - 400, int(NOW) + 400).map(str)),
    v1=ANY_TEXT,
    raw=st.one_of(st.none(), ANY_TEXT),
    signed=st.booleans(),
)
def test_any_arena_header_is_accepted_or_a_signature_error(
    t: str, v1: str, raw: str | None, signed: bool
) -> None:
    if raw is not None:
        header = raw
    elif signed:  # the right digest for whatever t says, so a good t gets past the HMAC
        digest = hmac.new(SECRET, t.encode("utf-8", "surrogatepass") + b"." + BODY, "sha256")
        header = f"t={t},v1={digest.hexdigest()}"
    else:
        header = f"t={t},v1={v1}"
    with contextlib.suppress(SignatureError):
        verify_arena_webhook(
            {"X-Arena-Signature": header}, BODY, SECRET, now=NOW, guard=ReplayGuard()
        )


@given(
    message_id=ANY_TEXT,
    stamp=TEXT_OR_PLAUSIBLE,
    kind=st.one_of(ANY_TEXT, st.sampled_from(["notification", "revocation"])),
    signature=ANY_TEXT,
    signed=st.booleans(),
    body=st.sampled_from([CHEER, b"[]", b"{", b"\xff"]),
)
def test_any_twitch_headers_are_accepted_or_a_signature_error(
    message_id: str, stamp: str, kind: str, signature: str, signed: bool, body: bytes
) -> None:
    headers = {
        "Twitch-Eventsub-Message-Id": message_id,
        "Twitch-Eventsub-Message-Timestamp": stamp,
        "Twitch-Eventsub-Message-Signature": (
            sign_twitch(message_id, stamp, body, SECRET) if signed else signature
        ),
        "Twitch-Eventsub-Message-Type": kind,
    }
    with contextlib.suppress(SignatureError):
        verify_twitch(headers, body, SECRET, now=TWITCH_NOW, guard=ReplayGuard())


@given(
    values=st.fixed_dictionaries(
        {},
        optional={
            name: st.one_of(ANY_TEXT, TEXT_OR_PLAUSIBLE)
            for name in ("x-nonce-str", "x-timestamp", "x-roomid", "x-msg-type", "x-signature")
        },
    ),
    signed=st.booleans(),
)
def test_any_douyin_headers_are_accepted_or_a_signature_error(
    values: dict[str, str], signed: bool
) -> None:
    if signed:
        values["x-signature"] = sign_douyin(values, GIFTS, DOUYIN_SECRET)
    with contextlib.suppress(SignatureError):
        verify_douyin(values, GIFTS, DOUYIN_SECRET, now=NOW, guard=ReplayGuard())
