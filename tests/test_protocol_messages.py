"""Wire messages: the document's examples parse, every message round-trips, errors name fields."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from schema_check import schema_errors

import protocol
from arena.games.ddz.messages import (
    MESSAGE_TYPES,
    BidRecord,
    BidRequest,
    BidResponse,
    BottomCards,
    Deal,
    DoubleRecord,
    DoubleRequest,
    DoubleResponse,
    HandType,
    LastPlay,
    PlayRecord,
    PlayRequest,
    PlayResponse,
    RoundResult,
    parse_message,
)
from protocol import (
    CANONICAL_CARDS,
    DEFAULT_TIME_LIMIT_MS,
    UNION_SCHEMA_NAME,
    Emotion,
    MatchEnd,
    Message,
    ProtocolError,
    ReplyRejected,
    Standing,
    json_schemas,
    to_json,
    write_schemas,
)

# ─── the first protocol's examples, kept as they were: they must still parse ───────────

SPEC_DEAL = """{
  "type": "DEAL",
  "player_id": "AI-Alpha",
  "role": null,
  "hand": ["♠3","♥3","♦4","♣5","♠6","♥7","♦8","♣9","♠10","♥J","♦Q","♣K","♠A","♥A","♦2","♣2","大王"],
  "hand_count": 17,
  "seat_order": ["AI-Alpha", "AI-Beta", "AI-Gamma"]
}"""

SPEC_BID_REQUEST = """{
  "type": "BID_REQUEST",
  "player_id": "AI-Alpha",
  "current_highest_bid": 1,
  "bid_history": [
    {"player": "AI-Beta", "bid": 1},
    {"player": "AI-Gamma", "bid": 0}
  ],
  "available_bids": [2, 3, 0]
}"""

SPEC_PLAY_REQUEST = """{
  "type": "PLAY_REQUEST",
  "player_id": "AI-Alpha",
  "hand": ["♠3","♥7","♦8","♣9","♠10","♥J","♦Q","♣K","♠A","♥A","♦2","♣2","大王"],
  "is_free_play": false,
  "last_play": {
    "player": "AI-Beta",
    "type": "PAIR",
    "cards": ["♠5","♥5"],
    "main_rank": 5
  },
  "play_history": [],
  "remaining_cards": {"AI-Alpha": 13, "AI-Beta": 15, "AI-Gamma": 16},
  "role": "landlord",
  "teammates": []
}"""

SPEC_BID_RESPONSE = """{
  "type": "BID_RESPONSE",
  "player_id": "AI-Alpha",
  "bid": 3,
  "comment": "这把牌太好了，我全要！"
}"""

SPEC_PLAY_RESPONSE = """{
  "type": "PLAY_RESPONSE",
  "player_id": "AI-Alpha",
  "action": "PLAY",
  "cards": ["♥A","♠A"],
  "hand_type": "PAIR",
  "comment": "对A镇场！",
  "emotion": "confident",
  "strategy_hint": "先出大对子试探对手实力"
}"""

SPEC_PASS_RESPONSE = """{
  "type": "PLAY_RESPONSE",
  "player_id": "AI-Alpha",
  "action": "PASS",
  "cards": [],
  "comment": "这把我忍了...",
  "emotion": "nervous"
}"""

SEATS = ["AI-Alpha", "AI-Beta", "AI-Gamma"]

# ─── one full sample of every message type ─────────────────────────────────────────────

SAMPLES: dict[str, Message] = {
    "DEAL": Deal(
        player_id="AI-Alpha",
        hand=["♠3", "♥3", "小王"],
        hand_count=3,
        seat_order=SEATS,
        round_no=2,
    ),
    "BID_REQUEST": BidRequest(
        player_id="AI-Alpha",
        current_highest_bid=1,
        bid_history=[BidRecord(player="AI-Gamma", bid=1)],
        available_bids=[1, 0],
        mode="grab",
        hand=["♠3", "大王"],
        time_limit_ms=15_000,
        request_id="r1",
    ),
    "BID_RESPONSE": BidResponse(
        player_id="AI-Alpha", bid=1, comment="抢！", emotion=Emotion.EXCITED, request_id="r1"
    ),
    "BOTTOM_CARDS": BottomCards(
        landlord="AI-Alpha", bottom_cards=["♠4", "♥9", "大王"], call_score=2, round_no=2
    ),
    "DOUBLE_REQUEST": DoubleRequest(
        player_id="AI-Beta",
        kind="double",
        landlord="AI-Alpha",
        call_score=2,
        bottom_cards=["♠4", "♥9", "大王"],
        double_history=[DoubleRecord(player="AI-Gamma", double=True)],
        hand=["♣7", "♦7"],
        request_id="r2",
    ),
    "DOUBLE_RESPONSE": DoubleResponse(
        player_id="AI-Beta", double=False, emotion=Emotion.THINKING, request_id="r2"
    ),
    "PLAY_REQUEST": PlayRequest(
        player_id="AI-Beta",
        hand=["♣7", "♦7", "♠Q"],
        is_free_play=False,
        last_play=LastPlay(player="AI-Alpha", type=HandType.PAIR, cards=["♠5", "♥5"], main_rank=5),
        play_history=[
            PlayRecord(player="AI-Alpha", action="PLAY", type=HandType.PAIR, cards=["♠5", "♥5"])
        ],
        remaining_cards={"AI-Alpha": 18, "AI-Beta": 3, "AI-Gamma": 17},
        role="farmer",
        teammates=["AI-Gamma"],
        landlord="AI-Alpha",
        bottom_cards=["♠4", "♥9", "大王"],
        seat_order=SEATS,
        call_score=2,
        multiplier=2,
        audience=["加油！", "go farmers"],
        time_limit_ms=20_000,
        request_id="r3",
    ),
    "PLAY_RESPONSE": PlayResponse(
        player_id="AI-Beta",
        action="PLAY",
        cards=["7c", "7♦"],
        hand_type=HandType.PAIR,
        comment="跟！",
        emotion=Emotion.CONFIDENT,
        strategy_hint="keep the queen",
        request_id="r3",
    ),
    "REPLY_REJECTED": ReplyRejected(
        player_id="AI-Beta",
        request_type="PLAY_REQUEST",
        request_id="r3",
        reason="illegal",
        detail="card '8' is not in your hand",
        retries_left=1,
    ),
    "ROUND_RESULT": RoundResult(
        round_no=2,
        landlord="AI-Alpha",
        call_score=2,
        winner_side="farmer",
        first_out="AI-Beta",
        score_deltas={"AI-Alpha": -12, "AI-Beta": 8, "AI-Gamma": 4},
        spring=None,
        bombs=1,
        rockets=0,
        doubled={"AI-Beta": True, "AI-Gamma": False},
        redoubled=False,
        multiplier=2,
        farmer_multipliers={"AI-Beta": 4, "AI-Gamma": 2},
        final_hands={"AI-Alpha": ["♠3"], "AI-Beta": [], "AI-Gamma": ["♣K", "♦K"]},
        total_scores={"AI-Alpha": -10, "AI-Beta": 6, "AI-Gamma": 4},
    ),
    "MATCH_END": MatchEnd(
        rounds_played=10,
        standings=[
            Standing(player="AI-Beta", rank=1, score=6, rounds_won=6),
            Standing(player="AI-Gamma", rank=2, score=4, rounds_won=5),
            Standing(player="AI-Alpha", rank=3, score=-10, rounds_won=3),
        ],
    ),
}


def _error(data: str | bytes | dict[str, Any]) -> str:
    with pytest.raises(ProtocolError) as info:
        parse_message(data)
    return str(info.value)


# ─── enums and exports ─────────────────────────────────────────────────────────────────


def test_hand_types_are_the_fifteen_wire_names() -> None:
    assert [t.value for t in HandType] == [
        "SINGLE",
        "PAIR",
        "TRIPLE",
        "TRIPLE_WITH_SINGLE",
        "TRIPLE_WITH_PAIR",
        "STRAIGHT",
        "STRAIGHT_PAIR",
        "AIRPLANE",
        "AIRPLANE_WITH_SINGLES",
        "AIRPLANE_WITH_PAIRS",
        "FOUR_WITH_TWO_SINGLES",
        "FOUR_WITH_TWO_PAIRS",
        "BOMB",
        "ROCKET",
        "PASS",
    ]


def test_emotions_are_the_documents_eight() -> None:
    assert {e.value for e in Emotion} == {
        "confident",
        "nervous",
        "excited",
        "angry",
        "thinking",
        "happy",
        "sad",
        "taunting",
    }


def test_every_message_type_has_a_sample() -> None:
    assert set(SAMPLES) == set(MESSAGE_TYPES)
    assert len(MESSAGE_TYPES) == 11
    for name, model in MESSAGE_TYPES.items():
        assert model.model_fields["type"].default == name


def test_package_exports_every_name_it_lists() -> None:
    for name in protocol.__all__:
        assert hasattr(protocol, name), name
    assert {"is_canonical", "parse_token", "CANONICAL_CARDS", "read_message"} <= set(
        protocol.__all__
    )
    assert len(protocol.__all__) == len(set(protocol.__all__))


def test_protocol_never_imports_arena() -> None:
    code = (
        "import sys, protocol; print(sorted(m for m in sys.modules if m.split('.')[0] == 'arena'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


# ─── the document's examples ───────────────────────────────────────────────────────────


def test_document_deal_parses_with_null_role() -> None:
    deal = parse_message(SPEC_DEAL, expect=Deal)
    assert deal.role is None
    assert deal.hand_count == len(deal.hand) == 17
    assert deal.hand[-1] == "大王"
    assert deal.seat_order == SEATS


def test_document_bid_request_parses_with_defaults_for_what_it_lacks() -> None:
    request = parse_message(SPEC_BID_REQUEST, expect=BidRequest)
    assert request.time_limit_ms == DEFAULT_TIME_LIMIT_MS
    assert request.mode == "call_score"
    assert request.request_id is None
    assert request.hand is None
    assert request.available_bids == [2, 3, 0]
    assert request.bid_history[1] == BidRecord(player="AI-Gamma", bid=0)


def test_document_play_request_parses() -> None:
    request = parse_message(SPEC_PLAY_REQUEST, expect=PlayRequest)
    assert request.last_play is not None
    assert request.last_play.type is HandType.PAIR
    assert request.last_play.main_rank == 5
    assert request.remaining_cards["AI-Beta"] == 15
    assert request.role == "landlord"
    assert request.time_limit_ms == DEFAULT_TIME_LIMIT_MS
    assert request.audience is None


def test_document_responses_parse() -> None:
    bid = parse_message(SPEC_BID_RESPONSE, expect=BidResponse)
    play = parse_message(SPEC_PLAY_RESPONSE, expect=PlayResponse)
    passed = parse_message(SPEC_PASS_RESPONSE, expect=PlayResponse)
    assert bid.bid == 3
    assert bid.comment == "这把牌太好了，我全要！"
    assert play.cards == ["♥A", "♠A"]
    assert play.hand_type is HandType.PAIR
    assert play.emotion is Emotion.CONFIDENT
    assert play.strategy_hint == "先出大对子试探对手实力"
    assert passed.action == "PASS"
    assert passed.cards == []
    assert passed.emotion is Emotion.NERVOUS


@pytest.mark.parametrize(
    "text",
    [
        SPEC_DEAL,
        SPEC_BID_REQUEST,
        SPEC_PLAY_REQUEST,
        SPEC_BID_RESPONSE,
        SPEC_PLAY_RESPONSE,
        SPEC_PASS_RESPONSE,
    ],
)
def test_document_examples_keep_every_field_they_carry(text: str) -> None:
    original = json.loads(text)
    dumped = json.loads(to_json(parse_message(text)))
    assert {key: dumped[key] for key in original} == original


# ─── round trips ───────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_message_round_trips_through_json(name: str) -> None:
    message = SAMPLES[name]
    text = to_json(message)
    again = parse_message(text)
    assert again == message
    assert type(again) is type(message)
    assert json.loads(text)["type"] == name


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_message_round_trips_through_a_dict_and_bytes(name: str) -> None:
    message = SAMPLES[name]
    assert parse_message(message.model_dump(mode="json")) == message
    assert parse_message(to_json(message).encode()) == message


def test_to_json_is_compact_and_keeps_chinese_and_suits() -> None:
    text = to_json(SAMPLES["BID_RESPONSE"])
    assert "抢！" in text
    assert ", " not in text
    assert ": " not in text
    assert "\\u" not in to_json(SAMPLES["DEAL"])


def test_messages_are_frozen() -> None:
    response = BidResponse(player_id="AI-Alpha", bid=1)
    with pytest.raises(ValueError, match="frozen"):
        response.bid = 2  # type: ignore[misc]
    assert response.bid == 1


def test_grab_and_fixed_landlord_bid_modes() -> None:
    grab = {**json.loads(SPEC_BID_REQUEST), "mode": "grab", "available_bids": [1, 0]}
    fixed = {**json.loads(SPEC_BID_REQUEST), "mode": "fixed_landlord", "available_bids": [1, 2, 3]}
    assert parse_message(grab, expect=BidRequest).mode == "grab"
    assert parse_message(fixed, expect=BidRequest).available_bids == [1, 2, 3]


def test_free_play_has_null_last_play() -> None:
    data = {**json.loads(SPEC_PLAY_REQUEST), "is_free_play": True, "last_play": None}
    request = parse_message(data, expect=PlayRequest)
    assert request.is_free_play
    assert request.last_play is None


def test_reply_cards_may_be_any_token() -> None:
    data = {**json.loads(SPEC_PLAY_RESPONSE), "cards": ["3s", "10", "BJ", "small joker"]}
    assert parse_message(data, expect=PlayResponse).cards == ["3s", "10", "BJ", "small joker"]


# ─── errors name what is wrong ─────────────────────────────────────────────────────────


def test_unknown_type_names_it_and_the_known_ones() -> None:
    message = _error('{"type": "FOO"}')
    assert message.startswith("unknown message type 'FOO'; expected one of DEAL, ")
    assert "PLAY_RESPONSE" in message


def test_missing_type_is_named() -> None:
    assert _error({"player_id": "x"}).startswith("message has no 'type'")


def test_invalid_json_is_a_protocol_error() -> None:
    assert _error('{"type": "DEAL",').startswith("invalid JSON: ")
    assert _error(b"\xff\xfe{").startswith("invalid JSON")


def test_non_object_json_is_refused() -> None:
    assert _error("[1, 2]") == "a message must be a JSON object, not list"


def test_protocol_error_is_a_value_error_with_its_lines() -> None:
    with pytest.raises(ValueError, match=r"^BID_RESPONSE\.bid: ") as info:
        parse_message({"type": "BID_RESPONSE", "player_id": "a", "bid": 4})
    assert isinstance(info.value, ProtocolError)
    assert info.value.message_type == "BID_RESPONSE"
    assert len(info.value.errors) == 1


def test_missing_field_is_named() -> None:
    data = json.loads(SPEC_DEAL)
    del data["hand"]
    assert _error(data) == "DEAL.hand: Field required"


def test_wrong_type_is_named() -> None:
    data = {**json.loads(SPEC_PLAY_REQUEST), "is_free_play": "maybe"}
    assert _error(data).startswith("PLAY_REQUEST.is_free_play: Input should be a valid boolean")


@pytest.mark.parametrize(
    ("data", "start"),
    [
        ({"bid": "3"}, "BID_RESPONSE.bid: Input should be a valid integer (got '3')"),
        ({"bid": True}, "BID_RESPONSE.bid: Input should be a valid integer (got True)"),
        ({"bid": 3.0}, "BID_RESPONSE.bid: Input should be a valid integer (got 3.0)"),
    ],
)
def test_numbers_must_be_json_numbers(data: dict[str, Any], start: str) -> None:
    assert _error({**json.loads(SPEC_BID_RESPONSE), **data}) == start


def test_booleans_must_be_json_booleans() -> None:
    data = {"type": "DOUBLE_RESPONSE", "player_id": "a", "double": "yes"}
    assert _error(data) == "DOUBLE_RESPONSE.double: Input should be a valid boolean (got 'yes')"


def test_wrong_type_inside_a_list_names_the_index() -> None:
    data = {**json.loads(SPEC_PLAY_RESPONSE), "cards": ["♥A", "♠A", 5]}
    assert _error(data).startswith("PLAY_RESPONSE.cards[2]: Input should be a valid string")


def test_extra_field_is_named() -> None:
    data = {**json.loads(SPEC_BID_RESPONSE), "confidence": 0.9}
    assert _error(data) == "BID_RESPONSE.confidence: Extra inputs are not permitted (got 0.9)"


def test_bad_count_in_a_mapping_names_the_key() -> None:
    data = json.loads(SPEC_PLAY_REQUEST)
    data["remaining_cards"]["AI-Beta"] = -1
    assert _error(data).startswith("PLAY_REQUEST.remaining_cards.AI-Beta: Input should be greater")


def test_extra_field_in_a_nested_record_is_named() -> None:
    data = json.loads(SPEC_BID_REQUEST)
    data["bid_history"][0]["note"] = "x"
    assert _error(data).startswith("BID_REQUEST.bid_history[0].note: Extra inputs")


def test_pass_with_cards_is_refused() -> None:
    data = {**json.loads(SPEC_PASS_RESPONSE), "cards": ["♠3"]}
    assert _error(data) == "PLAY_RESPONSE.cards: a PASS carries no cards"


def test_play_without_cards_is_refused_even_when_cards_are_absent() -> None:
    data = {"type": "PLAY_RESPONSE", "player_id": "a", "action": "PLAY"}
    assert _error(data) == "PLAY_RESPONSE.cards: a PLAY needs at least one card"


def test_hand_type_must_agree_with_action() -> None:
    data = {**json.loads(SPEC_PASS_RESPONSE), "hand_type": "PAIR"}
    assert _error(data).startswith("PLAY_RESPONSE.hand_type: must be PASS or null")
    lowercase = {**json.loads(SPEC_PLAY_RESPONSE), "hand_type": "pair"}
    assert _error(lowercase).startswith("PLAY_RESPONSE.hand_type: Input should be ")


def test_too_many_reply_cards_are_refused() -> None:
    data = {**json.loads(SPEC_PLAY_RESPONSE), "cards": ["3"] * 21}
    assert _error(data).startswith("PLAY_RESPONSE.cards: List should have at most 20 items")


def test_long_comment_is_refused_not_truncated() -> None:
    data = {**json.loads(SPEC_BID_RESPONSE), "comment": "好" * 201}
    message = _error(data)
    assert message.startswith("BID_RESPONSE.comment: String should have at most 200")
    assert message.endswith("...)")
    assert len(message) < 120


def test_unknown_emotion_is_named() -> None:
    data = {**json.loads(SPEC_PLAY_RESPONSE), "emotion": "smug"}
    assert _error(data).startswith("PLAY_RESPONSE.emotion: Input should be 'confident'")


def test_non_canonical_card_in_deal_is_named() -> None:
    data = json.loads(SPEC_DEAL)
    data["hand"][2] = "4♦"
    assert _error(data) == (
        "DEAL.hand[2]: is not a canonical card (suit symbol then rank, e.g. '♠10', or 小王/大王)"
        " (got '4♦')"
    )


def test_non_canonical_card_in_nested_last_play_is_named() -> None:
    data = json.loads(SPEC_PLAY_REQUEST)
    data["last_play"]["cards"][1] = "H5"
    assert _error(data).startswith("PLAY_REQUEST.last_play.cards[1]: is not a canonical card")


def test_duplicate_card_in_hand_is_named() -> None:
    data = json.loads(SPEC_PLAY_REQUEST)
    data["hand"][1] = "♠3"
    assert _error(data) == "PLAY_REQUEST.hand: lists '♠3' twice"


def test_hand_count_must_match_hand() -> None:
    data = {**json.loads(SPEC_DEAL), "hand_count": 16}
    assert _error(data) == "DEAL.hand_count: does not match hand, which has 17 cards (got 16)"


def test_deal_recipient_must_be_seated() -> None:
    data = {**json.loads(SPEC_DEAL), "player_id": "AI-Delta"}
    assert _error(data) == "DEAL.seat_order: does not list player_id 'AI-Delta'"


def test_grab_mode_offers_only_one_and_zero() -> None:
    data = {**json.loads(SPEC_BID_REQUEST), "mode": "grab"}
    assert _error(data).startswith("BID_REQUEST.mode: grab offers only bids 1 and 0")


def test_last_play_must_match_free_play() -> None:
    free = {**json.loads(SPEC_PLAY_REQUEST), "is_free_play": True}
    follow = {**json.loads(SPEC_PLAY_REQUEST), "last_play": None}
    assert _error(free) == "PLAY_REQUEST.last_play: must be null on a free play"
    assert _error(follow) == "PLAY_REQUEST.last_play: is required when not a free play"


def test_pass_is_never_the_play_to_beat() -> None:
    data = json.loads(SPEC_PLAY_REQUEST)
    data["last_play"]["type"] = "PASS"
    assert _error(data).startswith("PLAY_REQUEST.last_play.type: a PASS is never")


def test_time_limit_must_be_positive() -> None:
    data = {**json.loads(SPEC_BID_REQUEST), "time_limit_ms": 0}
    assert _error(data).startswith("BID_REQUEST.time_limit_ms: Input should be greater than 0")


def test_bid_out_of_range_is_named() -> None:
    assert _error({**json.loads(SPEC_BID_RESPONSE), "bid": 4}).startswith(
        "BID_RESPONSE.bid: Input should be less than or equal to 3"
    )


def test_every_problem_is_listed() -> None:
    with pytest.raises(ProtocolError) as info:
        parse_message({"type": "BID_RESPONSE", "bid": "three", "x": 1})
    paths = [line.split(":")[0] for line in info.value.errors]
    assert paths == ["BID_RESPONSE.player_id", "BID_RESPONSE.bid", "BID_RESPONSE.x"]


def test_expect_refuses_another_valid_message() -> None:
    with pytest.raises(ProtocolError, match="expected a PLAY_RESPONSE message, got BID_RESPONSE"):
        parse_message(SPEC_BID_RESPONSE, expect=PlayResponse)


# ─── JSON Schemas ──────────────────────────────────────────────────────────────────────


def test_write_schemas_writes_one_file_per_message_and_the_union(tmp_path: Path) -> None:
    target = tmp_path / "schemas"
    written = write_schemas(target, MESSAGE_TYPES, "DouDizhuArena")
    names = sorted(path.name for path in written)
    assert names == sorted([f"{name}.schema.json" for name in MESSAGE_TYPES] + [UNION_SCHEMA_NAME])
    for path in written:
        assert path.parent == target
        schema = json.loads(path.read_text(encoding="utf-8"))
        assert schema["$schema"].startswith("https://json-schema.org/")


def test_union_schema_dispatches_on_type(tmp_path: Path) -> None:
    write_schemas(tmp_path, MESSAGE_TYPES, "DouDizhuArena")
    union = json.loads((tmp_path / UNION_SCHEMA_NAME).read_text(encoding="utf-8"))
    assert union["discriminator"]["propertyName"] == "type"
    assert set(union["discriminator"]["mapping"]) == set(MESSAGE_TYPES)
    assert len(union["oneOf"]) == len(MESSAGE_TYPES)


def test_type_tag_is_required_in_every_schema() -> None:
    for name, schema in json_schemas(MESSAGE_TYPES).items():
        assert schema["required"][0] == "type"
        assert schema["properties"]["type"]["const"] == name
        assert schema["additionalProperties"] is False


def test_card_pattern_in_schema_matches_exactly_the_canonical_cards() -> None:
    pattern = json_schemas(MESSAGE_TYPES)["DEAL"]["properties"]["hand"]["items"]["pattern"]
    assert all(re.fullmatch(pattern, card) for card in CANONICAL_CARDS)
    for token in ["3", "♠1", "♠11", "S3", "3♠", "BJ", "♠3 "]:
        assert not re.fullmatch(pattern, token), token


@pytest.mark.parametrize("name", list(SAMPLES))
def test_sample_messages_conform_to_their_schema(name: str) -> None:
    schema = json_schemas(MESSAGE_TYPES)[name]
    data = json.loads(to_json(SAMPLES[name]))
    assert set(schema["required"]) <= set(data)
    assert schema_errors(data, schema, schema.get("$defs", {}), name) == []


def test_schema_check_catches_a_bad_message() -> None:
    schema = json_schemas(MESSAGE_TYPES)["PLAY_REQUEST"]
    data = json.loads(to_json(SAMPLES["PLAY_REQUEST"]))
    data["hand"][0] = "S3"
    del data["role"]
    data["mood"] = "ok"
    errors = schema_errors(data, schema, schema.get("$defs", {}), "PLAY_REQUEST")
    assert sorted(errors) == [
        "PLAY_REQUEST.hand[0]: pattern",
        "PLAY_REQUEST.mood: additional",
        "PLAY_REQUEST.role: required",
    ]


# ─── the guide for agent authors stays true to the code ────────────────────────────────

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"


def test_every_json_example_in_the_guide_parses() -> None:
    blocks = re.findall(r"```json\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.DOTALL)
    types = [parse_message(block).type for block in blocks]
    assert set(types) == set(MESSAGE_TYPES)


def test_guide_documents_every_message_and_the_schema_command() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    assert "arena schema DIR" in text
    for name in MESSAGE_TYPES:
        assert f"### {name}" in text, name
