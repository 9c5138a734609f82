"""The normalized gift event (issue 11): strict, cleaned, bounded.

Every source turns a viewer's gift into a GiftEvent; a payload of the wrong shape is a
ValidationError naming what is wrong, viewer text is one clean capped line, and the raw
payload kept with it is bounded.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

import pytest
from pydantic import ValidationError
from test_safe_json import deep

from gifts import RESULT_CHANGING, STRONG, GiftEffect, GiftEvent, GiftKind, clean_viewer_text
from gifts.events import MAX_MESSAGE, MAX_NAME, MAX_RAW_BYTES
from gifts.sources.parse import validation_reason


def gift(**fields: Any) -> GiftEvent:
    return GiftEvent(**{"event_id": "m-1", "platform": "bilibili", **fields})


def test_a_full_event_survives_a_json_round_trip() -> None:
    event = gift(
        room="21452505",
        kind=GiftKind.GIFT,
        viewer_id="u-9",
        display_name="小明",
        gift_id="31036",
        gift_name="小花花",
        count=3,
        value=300,
        currency="CNY_fen",
        streak_id="combo-7",
        streak_final=True,
        message="加油！",
        sent_at=datetime(2026, 11, 24, 5, 0, tzinfo=UTC),
        test=False,
        table="t2",
        target_seat=1,
        effect=GiftEffect.CHEER,
        raw={"msg_id": "m-1", "gift_num": 3},
    )
    assert GiftEvent.model_validate_json(event.model_dump_json()) == event
    assert event.key == ("bilibili", "m-1")
    assert event.shown_name == "小明"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"count": "3"}, "count"),  # a string where a number belongs
        ({"count": 0}, "count"),
        ({"count": 10_001}, "count"),
        ({"value": -1}, "value"),
        ({"target_seat": 6}, "target_seat"),  # no game has seven seats
        ({"table": "t1; rm -rf"}, "table"),
        ({"platform": "Bili Bili"}, "platform"),
        ({"event_id": ""}, "event_id"),
        ({"event_id": "x" * 129}, "event_id"),
        ({"kind": "bribe"}, "kind"),
        ({"effect": "WIN_THE_ROUND"}, "effect"),
        ({"anonymous": "yes"}, "anonymous"),
        ({"colour": "red"}, "colour"),  # no such field
    ],
)
def test_a_payload_of_the_wrong_shape_is_refused_naming_the_field(
    fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        gift(**fields)
    assert field in {str(part) for error in caught.value.errors() for part in error["loc"]}


def test_viewer_text_is_one_clean_line_within_its_cap() -> None:
    event = gift(
        display_name="Eve\u202e\u0007lyn\n\t  the\u200bgreat" + "!" * 100,
        message="line one\r\nline two\x00" + "y" * 500,
        gift_name="  Rocket\u2066  ",
    )
    assert event.display_name.startswith("Evelyn thegreat!")
    assert len(event.display_name) == MAX_NAME
    assert event.display_name.endswith("…")
    assert event.message.startswith("line one line two")
    assert len(event.message) == MAX_MESSAGE
    assert event.gift_name == "Rocket"
    for text in (event.display_name, event.message, event.gift_name):
        assert not any(ord(c) < 32 or c in "\u202e\u2066\u200b" for c in text)


def test_an_emoji_sequence_keeps_its_joiner() -> None:
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert clean_viewer_text(f"{family} fan", 40) == f"{family} fan"


def test_a_string_far_over_any_cap_is_refused_not_cleaned() -> None:
    with pytest.raises(ValidationError, match="far more than any viewer text"):
        gift(message="x" * 50_000)


def test_the_raw_payload_is_bounded() -> None:
    gift(raw={"blob": "x" * (MAX_RAW_BYTES - 100)})
    with pytest.raises(ValidationError, match="raw payload is"):
        gift(raw={"blob": "x" * MAX_RAW_BYTES})


@pytest.mark.parametrize(
    ("payload", "reason"),
    [
        ('"value": 18446744073709551616', "value: Input should be less than or equal to"),
        ('"value": 9007199254740992', "value: Input should be less than or equal to"),
        ('"raw": {"n": 18446744073709551616}', "raw: holds an integer beyond 64 bits at raw.n"),
        ('"raw": {"a": [{"n": -99999999999999999999}]}', "beyond 64 bits at raw.a[0].n"),
    ],
)
def test_a_number_no_json_reader_holds_is_refused_naming_the_field(
    payload: str, reason: str
) -> None:
    """The fault campaign's gift (issue 25): a value of 2^64 was accepted, and then no
    event telling it could be written. Every number is bounded where it is parsed."""
    body = '{"event_id": "bv-1", "platform": "test", "effect": "CHEER", ' + payload + "}"
    with pytest.raises(ValidationError) as caught:
        GiftEvent.model_validate_json(body)
    assert reason in validation_reason(caught.value)
    assert GiftEvent.model_validate_json(body.replace(payload, '"value": 9007199254740991'))


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        ({"n": 2**64}, "an integer beyond 64 bits at raw.n"),
        ({"x": math.nan}, "nan, no JSON number at raw.x"),
        ({"x": [math.inf]}, "inf, no JSON number at raw.x[0]"),
        ({"x": {1: "a"}}, "a key that is no string (int) at raw.x.1"),
        ({"x": "a\ud800"}, "a string with a lone surrogate at raw.x"),
        ({"x": {1, 2}}, "a set, no JSON value at raw.x"),
        ({"x": deep(500)}, "nesting deeper than"),  # no RecursionError either
    ],
)
def test_a_raw_payload_must_be_json_the_arena_can_write(raw: dict[str, Any], reason: str) -> None:
    """A normalizer hands ``raw`` over as Python data: whatever in it no encoder of the
    arena's writes is refused here, naming where, never raised later as a TypeError."""
    with pytest.raises(ValidationError) as caught:
        gift(raw=raw)
    assert reason in validation_reason(caught.value)


def test_a_viewer_without_a_name_is_shown_as_anonymous() -> None:
    assert gift().anonymous
    assert gift().shown_name == "a viewer"
    named = gift(display_name="Bo", anonymous=True)  # the platform says: hide the name
    assert named.shown_name == "a viewer"
    assert gift(display_name="Bo").shown_name == "Bo"


def test_only_a_streaks_final_event_counts_as_a_gift() -> None:
    running = gift(streak_id="s", streak_final=False, count=4)
    final = gift(event_id="m-2", streak_id="s", streak_final=True, count=5)
    assert not running.counts
    assert final.counts


def test_strong_effects_change_results_and_overlay_effects_do_not() -> None:
    assert STRONG <= RESULT_CHANGING
    assert {GiftEffect.CHEER, GiftEffect.EMOTE, GiftEffect.PEEK, GiftEffect.EFFECT}.isdisjoint(
        RESULT_CHANGING
    )
    assert set(GiftEffect) == {
        *RESULT_CHANGING,
        GiftEffect.CHEER,
        GiftEffect.EMOTE,
        GiftEffect.PEEK,
        GiftEffect.EFFECT,
    }


def test_an_effect_is_read_in_any_case() -> None:
    """``arena gift send swap`` takes it: so does a payload."""
    data = '{"event_id": "x", "platform": "test", "effect": "swap"}'
    assert GiftEvent.model_validate_json(data).effect is GiftEffect.SWAP
    with pytest.raises(ValidationError, match="effect"):
        GiftEvent.model_validate_json('{"event_id": "x", "platform": "test", "effect": "swop"}')


@pytest.mark.parametrize("field", ["event_id", "room", "viewer_id", "gift_id", "streak_id"])
@pytest.mark.parametrize("bad", ["e\u202ex", "a\nb", "\x1b[31m", "zero\u200bwidth"])
def test_an_id_holding_control_or_format_characters_is_refused(field: str, bad: str) -> None:
    """Ids are kept exactly (duplicates are found by them) and published: refused, not
    cleaned, when they could fake a line or hide text."""
    fields: dict[str, Any] = {"event_id": "ok", "platform": "test", field: bad}
    with pytest.raises(ValidationError, match="printable"):
        GiftEvent(**fields)
