"""``[gifts]`` settings and targeting (issue 11): which gift does what, and for whom."""

from __future__ import annotations

import tomllib
from collections import Counter
from typing import Any

import pytest
from pydantic import ValidationError

from gifts.desk import GiftDesk
from gifts.events import GiftEffect, GiftEvent, GiftKind
from gifts.settings import DEFAULT_COOLDOWNS, GiftSettings
from gifts.targeting import named_seat, pick_target, seeded_seat

PLAYERS = ("Alpha", "Al", "小红")


def gift(event_id: str = "e1", **fields: Any) -> GiftEvent:
    return GiftEvent(**{"event_id": event_id, "platform": "bilibili", **fields})


# --- settings ----------------------------------------------------------------------------


SETTINGS = GiftSettings.model_validate(
    tomllib.loads(
        """
        enabled = true
        mode = "ranked"
        ttl_s = 30
        cooldowns = { SWAP = 40, PEEK = 12.5 }
        [map.bilibili]
        "小花花" = "CHEER"
        "31036" = "SWAP"
        [map."*"]
        Rose = "EMOTE"
        """
    )
)


def test_a_gift_maps_by_its_name_then_its_id_then_for_every_platform() -> None:
    assert SETTINGS.effect_for(gift(gift_name="小花花")) is GiftEffect.CHEER
    assert SETTINGS.effect_for(gift(gift_name="unknown", gift_id="31036")) is GiftEffect.SWAP
    assert SETTINGS.effect_for(gift(gift_name="Rose")) is GiftEffect.EMOTE  # "*"
    assert (
        SETTINGS.effect_for(gift(gift_name="Rose", effect=GiftEffect.DOUBLE)) is GiftEffect.DOUBLE
    )
    assert SETTINGS.effect_for(gift(gift_name="nothing")) is None


def test_the_queue_gets_the_settings_with_defaults_for_what_is_left_out() -> None:
    queue = SETTINGS.queue_settings()
    assert queue.mode == "ranked"
    assert queue.ttl_s == 30
    assert queue.effect_cooldown_s[GiftEffect.SWAP] == 40
    assert queue.effect_cooldown_s[GiftEffect.DOUBLE] == DEFAULT_COOLDOWNS[GiftEffect.DOUBLE]


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"cooldowns": {"WIN": 3}}, "cooldowns.WIN"),
        ({"map": {"twitch": {"bits": "EXPLODE"}}}, "map.twitch.bits"),
        ({"ttl_s": -1}, "ttl_s"),
        ({"ttl_s": float("inf")}, "ttl_s"),
        ({"mode": "fair"}, "mode"),
        ({"queue_size": 0}, "queue_size"),
        ({"default_table": "t 1"}, "default_table"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_broken_gifts_section_names_what_is_wrong(fields: dict[str, Any], where: str) -> None:
    with pytest.raises(ValidationError) as caught:
        GiftSettings.model_validate(fields)
    assert where in str(caught.value)


# --- targeting -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("message", "seat"),
    [
        ("swap for ALPHA please", 0),
        ("go al!", 1),
        ("换牌给小红", 2),
        ("Ａｌｐｈａ wins", 0),  # full-width letters name Alpha too
        ("Alpha", 0),  # "Al" inside "Alpha" is not a second name
        ("Alpha or Al?", None),  # two names: nobody in particular
        ("", None),
        ("nobody here", None),
    ],
)
def test_a_message_names_a_seat_when_it_names_exactly_one_player(
    message: str, seat: int | None
) -> None:
    assert named_seat(message, PLAYERS) == seat


def test_the_target_is_the_gifts_seat_then_the_named_one_then_a_seeded_draw() -> None:
    assert pick_target(gift(target_seat=2, message="Alpha"), PLAYERS, match_seed=1) == 2
    assert pick_target(gift(message="for Alpha"), PLAYERS, match_seed=1) == 0
    drawn = pick_target(gift(message="anyone"), PLAYERS, match_seed=1)
    assert drawn == seeded_seat(gift(), 1, 3)


def test_the_draw_is_the_same_for_the_same_seed_and_gift_and_spread_over_seats() -> None:
    assert seeded_seat(gift("x"), 7, 3) == seeded_seat(gift("x"), 7, 3)
    seats = Counter(seeded_seat(gift(f"g{n}"), 7, 3) for n in range(600))
    assert set(seats) == {0, 1, 2}
    assert min(seats.values()) > 150  # about 200 each
    assert [seeded_seat(gift(f"g{n}"), 8, 3) for n in range(20)] != [
        seeded_seat(gift(f"g{n}"), 7, 3) for n in range(20)
    ]


@pytest.mark.parametrize(
    ("rule", "message", "expected"),
    [
        ("message", "加油 Beta", 1),  # the named player
        ("draw", "加油 Beta", "drawn"),  # the message is not read
        ("reject", "加油 Beta", None),  # no seat: rejected no_target
    ],
)
async def test_pick_target_decides_how_a_gift_naming_no_seat_gets_one(
    rule: str, message: str, expected: int | str | None
) -> None:
    desk = GiftDesk(
        GiftSettings(pick_target=rule),  # type: ignore[arg-type]
        players=("Alpha", "Beta", "Gamma"),
        match_seed=11,
        keep_outcomes=True,
    )
    gift = GiftEvent(event_id="e1", platform="test", effect=GiftEffect.CHEER, message=message)
    await desk.submit(gift)
    if expected is None:
        (outcome,) = desk.queue.outcomes
        assert (outcome.status, outcome.reason) == ("rejected", "no_target")
        assert desk.queue.waiting == 0
        return
    assert desk.queue.waiting == 1
    (pending,) = desk.queue._waiting
    wanted = seeded_seat(gift, 11, 3) if expected == "drawn" else expected
    assert pending.target == wanted


def test_a_gift_no_name_or_id_maps_is_mapped_by_its_kind() -> None:
    """Douyin's chat lines (live_comment) have no gift name or id: ``comment`` maps them;
    a mapping by name still wins over one by kind."""
    settings = GiftSettings.model_validate(
        {"map": {"douyin": {"comment": "CHEER", "小心心": "emote"}, "*": {"super_chat": "peek"}}}
    )
    comment = GiftEvent(event_id="c1", platform="douyin", kind=GiftKind.COMMENT, message="hi")
    assert settings.effect_for(comment) is GiftEffect.CHEER
    named = GiftEvent(event_id="c2", platform="douyin", kind=GiftKind.COMMENT, gift_name="小心心")
    assert settings.effect_for(named) is GiftEffect.EMOTE  # and a lower-case effect name is read
    chat = GiftEvent(event_id="c3", platform="bilibili", kind=GiftKind.SUPER_CHAT)
    assert settings.effect_for(chat) is GiftEffect.PEEK  # "*" by kind
    gift = GiftEvent(event_id="c4", platform="twitch", kind=GiftKind.CHEER)
    assert settings.effect_for(gift) is None  # nothing maps it
