"""Platform payloads as gift events (issue 11): Twitch, Bilibili, Douyin, TikTok-style.

Each sample is built from the platform's documented field list; the normalizer must
read every field a gift needs, keep the payload, and refuse a payload that lacks one
(or holds the wrong type) with a PayloadError naming it.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest

from gifts.events import GiftKind
from gifts.platforms import PayloadError, bilibili, douyin, tiktok, twitch

# --- Twitch EventSub -----------------------------------------------------------------------

BROADCASTER = {
    "broadcaster_user_id": "1337",
    "broadcaster_user_login": "studio",
    "broadcaster_user_name": "Studio",
}


def eventsub(kind: str, event: dict[str, Any]) -> dict[str, Any]:
    return {"subscription": {"id": "sub", "type": kind, "version": "1"}, "event": event}


def test_a_cheer_is_bits_from_a_named_viewer() -> None:
    event = {
        **BROADCASTER,
        "is_anonymous": False,
        "user_id": "42",
        "user_login": "ada",
        "user_name": "Ada",
        "message": "Cheer100 go farmers",
        "bits": 100,
    }
    [gift] = twitch.from_eventsub(eventsub("channel.cheer", event), "msg-7")
    assert (gift.event_id, gift.platform, gift.kind) == ("msg-7", "twitch", GiftKind.CHEER)
    assert (gift.viewer_id, gift.display_name, gift.anonymous) == ("42", "Ada", False)
    assert (gift.value, gift.currency, gift.room) == (100, "bits", "1337")
    assert gift.message == "Cheer100 go farmers"
    assert gift.raw == eventsub("channel.cheer", event)


def test_an_anonymous_cheer_names_nobody() -> None:
    event = {**BROADCASTER, "is_anonymous": True, "user_id": None, "user_name": None}
    [gift] = twitch.from_eventsub(eventsub("channel.cheer", {**event, "bits": 1}), "m")
    assert gift.anonymous
    assert gift.viewer_id is None
    assert gift.shown_name == "a viewer"


def test_bits_used_for_a_power_up_are_named_by_it() -> None:
    event = {
        **BROADCASTER,
        "user_id": "42",
        "user_name": "Ada",
        "bits": 50,
        "type": "power_up",
        "message": None,
        "power_up": {"type": "message_effect", "emote": None, "message_effect_id": "cosmic"},
    }
    [gift] = twitch.from_eventsub(eventsub("channel.bits.use", event), "m-2")
    assert (gift.gift_name, gift.value, gift.message) == ("message_effect", 50, "")
    cheer = {**event, "type": "cheer", "power_up": None, "message": {"text": "gg", "fragments": []}}
    [plain] = twitch.from_eventsub(eventsub("channel.bits.use", cheer), "m-3")
    assert (plain.gift_name, plain.message) == ("bits", "gg")


def test_a_channel_point_redemption_is_points_with_its_reward() -> None:
    event = {
        **BROADCASTER,
        "id": "redemption-9",
        "user_id": "7",
        "user_login": "bo",
        "user_name": "Bo",
        "user_input": "swap the landlord's 2!",
        "status": "unfulfilled",
        "reward": {"id": "reward-1", "title": "换牌", "cost": 500, "prompt": "swap a card"},
        "redeemed_at": "2026-11-24T05:20:00.123456789Z",
    }
    [gift] = twitch.from_eventsub(eventsub(twitch.REDEMPTION, event), "m-4")
    assert (gift.kind, gift.gift_id, gift.gift_name) == (GiftKind.POINTS, "reward-1", "换牌")
    assert (gift.value, gift.currency) == (500, "points")
    assert gift.message == "swap the landlord's 2!"
    assert gift.sent_at == datetime(2026, 11, 24, 5, 20, 0, 123456, tzinfo=UTC)
    assert gift.raw is not None
    assert gift.raw["event"]["id"] == "redemption-9"  # what a refund needs


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        (eventsub("channel.follow", {}), "carries no gift"),
        ({"event": {}}, "subscription"),
        (eventsub("channel.cheer", {**BROADCASTER, "user_id": "1"}), "'bits'"),
        (eventsub("channel.cheer", {**BROADCASTER, "bits": "100"}), "'bits'"),
        (eventsub("channel.cheer", {**BROADCASTER, "bits": 0}), "below 1"),
        (eventsub(twitch.REDEMPTION, {**BROADCASTER, "reward": {"id": "r"}}), "'title'"),
    ],
)
def test_a_twitch_payload_without_what_a_gift_needs_is_refused(
    payload: dict[str, Any], reason: str
) -> None:
    with pytest.raises(PayloadError, match=reason):
        twitch.from_eventsub(payload, "m")


# --- Bilibili open platform ----------------------------------------------------------------

BILI_GIFT = {
    "cmd": "LIVE_OPEN_PLATFORM_SEND_GIFT",
    "data": {
        "room_id": 21452505,
        "open_id": "39b8fedb-60a5-4e29-ac75-b16955f7e632",
        "uname": "小明",
        "uface": "https://i0.hdslb.com/face.jpg",
        "gift_id": 31036,
        "gift_name": "小花花",
        "gift_num": 3,
        "price": 100,
        "paid": True,
        "fans_medal_level": 5,
        "fans_medal_name": "粉丝",
        "fans_medal_wearing_status": True,
        "guard_level": 0,
        "timestamp": 1795497600,
        "msg_id": "8a3f-7d1c",
        "anchor_info": {"uid": 1, "open_id": "anchor", "uname": "主播", "uface": ""},
        "gift_icon": "https://i0.hdslb.com/gift.png",
        "combo_gift": True,
        "combo_info": {
            "combo_base_num": 1,
            "combo_count": 3,
            "combo_id": "combo-55",
            "combo_timeout": 3,
        },
    },
}


def test_a_bilibili_gift_is_count_gifts_worth_price_each() -> None:
    [gift] = bilibili.from_message(BILI_GIFT)
    assert (gift.event_id, gift.platform, gift.room) == ("8a3f-7d1c", "bilibili", "21452505")
    assert (gift.gift_id, gift.gift_name, gift.count) == ("31036", "小花花", 3)
    assert (gift.value, gift.currency) == (300, "bilibili_gold")
    assert (gift.viewer_id, gift.display_name) == (BILI_GIFT["data"]["open_id"], "小明")  # type: ignore[index]
    assert gift.streak_id == "combo-55"
    assert gift.sent_at == datetime(2026, 11, 24, 5, 20, tzinfo=UTC)


def test_a_free_bilibili_gift_is_worth_nothing() -> None:
    free = {**BILI_GIFT, "data": {**BILI_GIFT["data"], "paid": False}}  # type: ignore[dict-item]
    assert bilibili.from_message(free)[0].value == 0


def test_a_bilibili_super_chat_is_a_paid_message() -> None:
    message = {
        "cmd": "LIVE_OPEN_PLATFORM_SUPER_CHAT",
        "data": {
            "room_id": 21452505,
            "open_id": "o-1",
            "uname": "Ada",
            "uface": "",
            "message_id": 123,
            "message": "地主加油",
            "rmb": 30,
            "timestamp": 1795497600,
            "start_time": 1795497600,
            "end_time": 1795497660,
            "guard_level": 0,
            "msg_id": "sc-1",
        },
    }
    [gift] = bilibili.from_message(message)
    assert (gift.kind, gift.message, gift.value, gift.currency) == (
        GiftKind.SUPER_CHAT,
        "地主加油",
        3000,
        "CNY_fen",
    )


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"cmd": "LIVE_OPEN_PLATFORM_DM", "data": {}}, "carries no gift"),
        ({"data": {}}, "'cmd'"),
        ({"cmd": "LIVE_OPEN_PLATFORM_SEND_GIFT", "data": []}, "not a JSON object"),
        (
            {"cmd": "LIVE_OPEN_PLATFORM_SEND_GIFT", "data": {**BILI_GIFT["data"], "msg_id": ""}},  # type: ignore[dict-item]
            "'msg_id'",
        ),
        (
            {"cmd": "LIVE_OPEN_PLATFORM_SEND_GIFT", "data": {**BILI_GIFT["data"], "gift_num": "3"}},  # type: ignore[dict-item]
            "'gift_num'",
        ),
    ],
)
def test_a_bilibili_message_without_what_a_gift_needs_is_refused(
    message: dict[str, Any], reason: str
) -> None:
    with pytest.raises(PayloadError, match=reason):
        bilibili.from_message(message)


# --- Douyin open-platform push -------------------------------------------------------------


def douyin_gift(n: int, **changes: Any) -> dict[str, Any]:
    return {
        "msg_id": f"m-{n}",
        "sec_openid": f"viewer-{n}",
        "sec_gift_id": "n1/Dg1905sj1FyoBlQBvmbaDZFBNaKuKZH6zxHkv8Lg5x2cRfrKUTb8gzMs=",
        "gift_num": 2,
        "gift_value": 20,
        "avatar_url": "https://p3.douyinpic.com/a.jpg",
        "nickname": f"观众{n}",
        "timestamp": 1795497600123,
        "test": False,
        "audience_sec_open_id": "",
        **changes,
    }


def test_a_douyin_gift_push_is_every_gift_in_it_in_order() -> None:
    gifts = douyin.from_push("live_gift", [douyin_gift(1), douyin_gift(2, test=True)], room="7382")
    assert [g.event_id for g in gifts] == ["m-1", "m-2"]
    first = gifts[0]
    assert (first.platform, first.room, first.count, first.value) == ("douyin", "7382", 2, 20)
    assert first.gift_id == douyin_gift(1)["sec_gift_id"]
    assert first.gift_name == ""  # the opaque id is no name to show
    assert first.display_name == "观众1"
    assert first.sent_at == datetime(2026, 11, 24, 5, 20, 0, 123000, tzinfo=UTC)
    assert [g.test for g in gifts] == [False, True]


def test_a_douyin_comment_is_a_comment_with_its_text() -> None:
    comment = {
        "msg_id": "c-1",
        "sec_openid": "v",
        "content": "加油!",
        "nickname": "Ada",
        "avatar_url": "",
        "timestamp": 1795497600000,
    }
    [gift] = douyin.from_push("live_comment", [comment])
    assert (gift.kind, gift.message) == (GiftKind.COMMENT, "加油!")


@pytest.mark.parametrize(
    ("kind", "body", "reason"),
    [
        ("live_like", [], "carries no gift"),
        ("live_gift", {"msg_id": "x"}, "not a JSON list"),
        ("live_gift", ["gift"], "not a JSON object"),
        ("live_gift", [douyin_gift(1, gift_num=None)], "'gift_num'"),
        ("live_gift", [douyin_gift(1, msg_id=None)], "'msg_id'"),
    ],
)
def test_a_douyin_push_without_what_a_gift_needs_is_refused(
    kind: str, body: Any, reason: str
) -> None:
    with pytest.raises(PayloadError, match=reason):
        douyin.from_push(kind, body)


# --- TikTok-style streaks ----------------------------------------------------------------------


def tiktok_gift(**changes: Any) -> dict[str, Any]:
    return {
        "msgId": "7300000000000000001",
        "userId": "6800000000000000000",
        "uniqueId": "ada_plays",
        "nickname": "Ada",
        "giftId": 5655,
        "giftName": "Rose",
        "giftType": 1,
        "repeatCount": 1,
        "repeatEnd": False,
        "diamondCount": 1,
        "groupId": "1700000000001",
        "createTime": 1795497600000,
        **changes,
    }


def test_a_tiktok_streak_counts_only_on_its_last_event() -> None:
    taps = [tiktok_gift(msgId=f"t-{n}", repeatCount=n) for n in (1, 2, 3)]
    last = tiktok_gift(msgId="t-4", repeatCount=4, repeatEnd=True)
    events = [e for payload in [*taps, last] for e in tiktok.from_event(payload)]
    assert [e.counts for e in events] == [False, False, False, True]
    assert {e.streak_id for e in events} == {"1700000000001"}
    final = events[-1]
    assert (final.count, final.value, final.gift_name) == (4, 4, "Rose")


def test_a_tiktok_gift_that_cannot_streak_counts_at_once() -> None:
    [gift] = tiktok.from_event(tiktok_gift(giftType=2, repeatEnd=False, diamondCount=500))
    assert gift.counts
    assert gift.streak_id is None
    assert gift.value == 500


def test_a_tiktok_event_without_an_id_is_refused() -> None:
    with pytest.raises(PayloadError, match="'msgId'"):
        tiktok.from_event(tiktok_gift(msgId=None))


# --- numbers out of range (issue 25) --------------------------------------------------------

BIG = 2**64
"""Past 64 bits: what no JSON encoder of the arena's writes, and no amount ever is."""


def bili_gift(**changes: Any) -> dict[str, Any]:
    return {**BILI_GIFT, "data": {**BILI_GIFT["data"], **changes}}  # type: ignore[dict-item]


def cheer(**changes: Any) -> dict[str, Any]:
    return eventsub("channel.cheer", {**BROADCASTER, "user_id": "1", "bits": 1, **changes})


@pytest.mark.parametrize(
    ("normalize", "reason"),
    [
        (lambda: bilibili.from_message(bili_gift(price=BIG)), "'price' is out of range"),
        (lambda: bilibili.from_message(bili_gift(price=-100)), "'price' is out of range"),
        (lambda: bilibili.from_message(bili_gift(gift_num=BIG)), "'gift_num' is out of range"),
        (lambda: bilibili.from_message(bili_gift(price=2**52, gift_num=3)), "value: .*less than"),
        (lambda: bilibili.from_message(bili_gift(timestamp=1e300)), "'timestamp' is no time"),
        (lambda: bilibili.from_message(bili_gift(timestamp=BIG**8)), "'timestamp' is no time"),
        (lambda: bilibili.from_message(bili_gift(msg_id=10**200)), "'msg_id' is a number of"),
        (lambda: bilibili.from_message(bili_gift(gift_num=20_000)), "count: .*less than"),
        (lambda: douyin.from_push("live_gift", [douyin_gift(1, gift_value=BIG)]), "'gift_value'"),
        (lambda: douyin.from_push("live_gift", [douyin_gift(1, timestamp=math.nan)]), "no time"),
        (lambda: douyin.from_push("live_gift", [douyin_gift(1, timestamp=math.inf)]), "no time"),
        (lambda: tiktok.from_event(tiktok_gift(diamondCount=BIG)), "'diamondCount'"),
        (lambda: tiktok.from_event(tiktok_gift(repeatCount=BIG)), "'repeatCount'"),
        (lambda: tiktok.from_event(tiktok_gift(diamondCount=2**50, repeatCount=9)), "value"),
        (lambda: twitch.from_eventsub(cheer(bits=BIG), "m"), "'bits' is out of range"),
        (lambda: twitch.from_eventsub(cheer(user_name="a\ud800"), "m"), "raw.event.user_name"),
    ],
)
def test_what_no_gift_can_hold_is_a_payload_error_naming_its_field(
    normalize: Any, reason: str
) -> None:
    """Whatever no gift can hold (a number past what JSON readers hold, a total over the
    event's cap, a time no clock reaches, a 200-digit id, a lone surrogate) is a PayloadError
    naming the field, as a missing one is: never an OverflowError, a ValidationError, or a
    gift that later cannot be written."""
    with pytest.raises(PayloadError, match=reason):
        normalize()
