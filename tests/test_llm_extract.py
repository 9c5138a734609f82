"""A model's text read as the reply the table expects (arena.agents.llm.answers, every
game's, and Dou Dizhu's reading with its repairs, arena.games.ddz.prompts.extract)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from arena.agents.llm.answers import last_json_object, strip_reasoning
from arena.errors import AgentReplyError
from arena.games.ddz.agents.inprocess import ListedPlayRequest
from arena.games.ddz.messages import (
    BidRecord,
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    LastPlay,
    PlayRecord,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from arena.games.ddz.prompts.extract import Extracted, extract_reply
from protocol import to_json

ME = "AI-Alpha"

BID = BidRequest(
    player_id=ME,
    current_highest_bid=1,
    bid_history=[BidRecord(player="Beta", bid=1)],
    available_bids=[0, 2, 3],
    mode="call_score",
    hand=["♠3", "♥3", "♦4", "♣5", "♠7", "♥9", "♠10", "♥J", "♦Q", "♣K", "♠A", "♥2", "大王"],
    request_id="t1-1-3",
    match_id="m1",
    table_id="t1",
    round_no=1,
)
DOUBLE = DoubleRequest(
    player_id=ME,
    kind="double",
    landlord="Beta",
    call_score=2,
    bottom_cards=["♠4", "♥8", "♦K"],
    hand=["♠3", "♥3", "♦4", "♣5", "♠7", "♥9", "♠10", "♥J", "♦Q", "♣K", "♠A", "♥2", "大王"],
    request_id="t1-1-5",
)
PLAY = PlayRequest(
    player_id=ME,
    hand=["♠3", "♥3", "♦4", "♣5", "♠7", "♥9", "♠10", "♥J", "♦Q", "♣K", "♠A", "♥2", "大王"],
    is_free_play=False,
    last_play=LastPlay(player="Beta", type="PAIR", cards=["♠6", "♥6"], main_rank=6),
    play_history=[PlayRecord(player="Beta", action="PLAY", type="PAIR", cards=["♠6", "♥6"])],
    remaining_cards={ME: 13, "Beta": 15, "Gamma": 17},
    role="farmer",
    teammates=["Gamma"],
    landlord="Beta",
    request_id="t1-1-9",
)


def extracted(text: str, request: Any = PLAY, **kwargs: Any) -> Extracted[Any]:
    """Extract, and check the reply is a valid wire message answering ``request``."""
    result = extract_reply(text, request, **kwargs)
    again = parse_message(to_json(result.reply))
    assert again == result.reply
    assert result.reply.player_id == request.player_id
    assert result.reply.request_id == request.request_id
    return result


def refused(text: str, request: Any = PLAY, **kwargs: Any) -> AgentReplyError:
    with pytest.raises(AgentReplyError) as caught:
        extract_reply(text, request, **kwargs)
    return caught.value


# ─── finding the answer ──────────────────────────────────────────────────────────────


def test_plain_json_play() -> None:
    result = extracted('{"action": "PLAY", "cards": ["♠10", "10"], "hand_type": "PAIR"}')
    assert isinstance(result.reply, PlayResponse)
    assert result.reply.action == "PLAY"
    assert result.reply.cards == ["♠10", "10"]
    assert result.reply.hand_type == "PAIR"
    assert result.repairs == ()
    assert result.found == {"action": "PLAY", "cards": ["♠10", "10"], "hand_type": "PAIR"}


def test_a_request_as_the_table_hands_it_in_process_is_answered_too() -> None:
    """The table gives in-process agents a PlayRequest subclass carrying its legal moves."""
    listed = ListedPlayRequest.model_validate(PLAY.model_dump())
    got = extract_reply('{"action": "PASS"}', listed)
    assert type(got.reply) is PlayResponse
    assert got.reply.action == "PASS"


def test_bid_and_double_replies_are_their_own_messages() -> None:
    bid = extracted('{"bid": 2, "comment": "ok"}', BID)
    assert isinstance(bid.reply, BidResponse)
    assert (bid.reply.bid, bid.reply.comment) == (2, "ok")
    double = extracted('{"double": true}', DOUBLE)
    assert isinstance(double.reply, DoubleResponse)
    assert double.reply.double is True


def test_json_in_a_code_fence() -> None:
    text = 'My move:\n```json\n{"action": "PASS"}\n```\nGood luck!'
    assert extracted(text).reply.action == "PASS"


def test_think_block_with_json_inside_is_ignored() -> None:
    text = (
        '<think>Maybe {"action": "PLAY", "cards": ["大王"]}? No, save it.</think>\n'
        '{"action": "PASS", "comment": "not yet"}'
    )
    result = extracted(text)
    assert result.reply.action == "PASS"
    assert result.reply.cards == []


def test_think_block_after_the_answer_is_ignored_too() -> None:
    text = '{"action": "PASS"}\n<think>or {"action": "PLAY", "cards": ["2"]}</think>'
    assert extracted(text).reply.action == "PASS"


def test_strip_reasoning_forms() -> None:
    assert strip_reasoning("<think>a {1}</think>b<THINKING>c</THINKING>d") == "bd"
    # the chat template opened the block: everything up to the close is reasoning
    assert strip_reasoning('draft {"bid": 3}</think>{"bid": 0}') == '{"bid": 0}'
    # never closed: a model cut off while thinking has no answer yet
    assert strip_reasoning('<think>hmm {"bid": 3}').strip() == ""
    assert strip_reasoning('{"bid": 1} <think>second thoughts') == '{"bid": 1} '


def test_only_reasoning_is_unparsable_and_says_so() -> None:
    error = refused("<think>I should bid 3</think>", BID)
    assert error.category == "unparsable"
    assert "only reasoning" in error.detail


def test_the_last_json_object_wins() -> None:
    text = (
        'The format is {"action": "PLAY", "cards": ["3"]}. '
        'My answer: {"action": "PASS", "emotion": "nervous"}'
    )
    result = extracted(text)
    assert result.reply.action == "PASS"
    assert result.reply.emotion == "nervous"


def test_nested_braces_and_braces_in_strings() -> None:
    text = (
        'x {"action": "PLAY", "cards": ["J", "J"], "comment": "a } and a { and \\" quote",'
        ' "extra": {"deep": {"er": [1, "}"]}}} trailing {not json}'
    )
    result = extracted(text)
    assert result.reply.cards == ["J", "J"]
    assert result.reply.comment == 'a } and a { and " quote'
    assert result.repairs == ("dropped unknown keys: extra",)


def test_last_json_object() -> None:
    assert last_json_object('{"a": 1} then {"b": {"c": 2}}') == {"b": {"c": 2}}
    assert last_json_object("{\"a\": 1} then {'b': 2}") == {"a": 1}
    assert last_json_object("no braces here") is None
    assert last_json_object("[1, 2]") is None
    # an outer object that is not JSON: the object inside it still counts
    assert last_json_object('answer: {reply: {"bid": 2}}') == {"bid": 2}
    # pathological nesting neither hangs nor overflows the stack
    assert last_json_object("{" * 5000 + "}" * 5000) is None


def test_whole_text_is_one_object() -> None:
    assert extracted(' {"bid": 0} \n', BID).reply.bid == 0


# ─── what the adapter fills ──────────────────────────────────────────────────────────


def test_models_own_ids_and_type_are_replaced_by_the_requests() -> None:
    text = json.dumps(
        {
            "type": "PLAY_RESPONSE",
            "player_id": "Gamma",
            "request_id": "t1-1-1",
            "action": "PASS",
        }
    )
    result = extracted(text)
    assert result.reply.player_id == ME
    assert result.reply.request_id == "t1-1-9"
    assert "player_id 'Gamma' replaced by the request's" in result.repairs
    assert "request_id 't1-1-1' replaced by the request's" in result.repairs


def test_a_model_echoing_the_ids_needs_no_repair() -> None:
    result = extract_reply('{"player_id": "AI-Alpha", "request_id": "t1-1-3", "bid": 0}', BID)
    bid: int = result.reply.bid  # the reply's class follows the request's (overloads)
    assert bid == 0
    assert result.repairs == ()


def test_a_model_naming_another_type_is_answered_as_asked() -> None:
    result = extracted('{"type": "BID_REQUEST", "bid": 3}', BID)
    assert result.reply.type == "BID_RESPONSE"
    assert result.repairs == ("type 'BID_REQUEST' replaced by 'BID_RESPONSE'",)


# ─── repairs ─────────────────────────────────────────────────────────────────────────


def test_a_300_character_comment_is_trimmed() -> None:
    comment = "哈" * 300
    hint = "x" * 201
    text = json.dumps({"bid": 3, "comment": comment, "strategy_hint": hint}, ensure_ascii=False)
    result = extracted(text, BID)
    assert result.reply.comment == "哈" * 199 + "…"
    assert result.reply.strategy_hint == "x" * 199 + "…"
    assert "comment cut from 300 to 200 characters" in result.repairs
    assert "strategy_hint cut from 201 to 200 characters" in result.repairs


def test_a_200_character_comment_is_kept_whole() -> None:
    result = extracted(json.dumps({"bid": 0, "comment": "y" * 200}), BID)
    assert result.reply.comment == "y" * 200
    assert result.repairs == ()


def test_an_unknown_emotion_is_dropped_a_known_one_kept() -> None:
    result = extracted('{"double": false, "emotion": "smug"}', DOUBLE)
    assert result.reply.emotion is None
    assert result.repairs == ("dropped unknown emotion 'smug'",)
    result = extracted('{"double": false, "emotion": "Happy"}', DOUBLE)
    assert result.reply.emotion == "happy"


def test_non_string_texts_are_dropped() -> None:
    result = extracted('{"double": true, "comment": 42, "emotion": 7}', DOUBLE)
    assert (result.reply.comment, result.reply.emotion) == (None, None)
    assert len(result.repairs) == 2


def test_unknown_keys_are_dropped() -> None:
    result = extracted('{"bid": 2, "reasoning": "long", "confidence": 0.8}', BID)
    assert result.reply.bid == 2
    assert result.repairs == ("dropped unknown keys: confidence, reasoning",)


def test_lower_case_action_and_hand_type() -> None:
    result = extracted('{"action": "play", "cards": ["3", "3"], "hand_type": "pair"}')
    assert (result.reply.action, result.reply.hand_type) == ("PLAY", "PAIR")
    result = extracted('{"action": "Pass "}')
    assert result.reply.action == "PASS"
    result = extracted(
        '{"action": "PLAY", "cards": ["3", "3", "3", "4"], "hand_type": "triple with single"}'
    )
    assert result.reply.hand_type == "TRIPLE_WITH_SINGLE"


def test_unknown_hand_type_is_dropped() -> None:
    result = extracted('{"action": "PLAY", "cards": ["A"], "hand_type": "solo"}')
    assert result.reply.hand_type is None
    assert result.repairs == ("dropped unknown hand_type 'solo'",)


def test_bid_as_a_digit_string_double_as_a_word() -> None:
    assert extracted('{"bid": "2"}', BID).reply.bid == 2
    assert extracted('{"double": "FALSE"}', DOUBLE).reply.double is False


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ('{"bid": "two"}', BID),
        ('{"bid": 2.0}', BID),
        ('{"bid": true}', BID),
        ('{"double": 1}', DOUBLE),
        ('{"double": "yes"}', DOUBLE),
        ('{"action": "fold"}', PLAY),
    ],
)
def test_ambiguous_values_are_left_to_be_refused(text: str, request_: Any) -> None:
    assert refused(text, request_).category == "unparsable"


def test_cards_as_one_string() -> None:
    assert extracted('{"action": "PLAY", "cards": "3 3 4"}').reply.cards == ["3", "3", "4"]
    assert extracted('{"action": "PLAY", "cards": "10, J,Q"}').reply.cards == ["10", "J", "Q"]
    jokers = extracted('{"action": "PLAY", "cards": "small joker Big  Joker"}')
    assert jokers.reply.cards == ["small joker", "Big  Joker"]


def test_small_card_numbers_are_ranks_others_refused() -> None:
    assert extracted('{"action": "PLAY", "cards": [3, "3"]}').reply.cards == ["3", "3"]
    assert refused('{"action": "PLAY", "cards": [11]}').category == "unparsable"


def test_pass_with_null_cards_is_a_pass() -> None:
    result = extracted('{"action": "PASS", "cards": null}')
    assert result.reply.cards == []
    assert result.repairs == ("cards null read as []",)


def test_pass_with_cards_is_refused_not_guessed() -> None:
    error = refused('{"action": "PASS", "cards": ["3"]}')
    assert error.category == "unparsable"
    assert "PLAY_RESPONSE.cards: a PASS carries no cards" in error.detail


def test_missing_decision_is_refused_with_the_protocols_words() -> None:
    error = refused('{"comment": "hmm"}', BID)
    assert error.category == "unparsable"
    assert "BID_RESPONSE.bid" in error.detail


# ─── failures ────────────────────────────────────────────────────────────────────────


def test_garbage_is_unparsable_and_quoted() -> None:
    error = refused("I would play the pair of threes, I think.")
    assert error.category == "unparsable"
    assert "'I would play the pair of threes, I think.'" in error.detail


def test_long_garbage_is_quoted_short() -> None:
    error = refused("blah " * 200)
    assert error.category == "unparsable"
    assert len(error.detail) < 200


@pytest.mark.parametrize("text", ["", "  \n\t"])
def test_empty(text: str) -> None:
    assert refused(text).category == "empty"


def test_cut_off_mid_object_is_truncated() -> None:
    error = refused('{"action": "PLAY", "cards": ["3", "3"], "comment": "a long sto', cut_off=True)
    assert error.category == "truncated"
    assert "a long sto" in error.detail


def test_cut_off_mid_object_after_an_example_is_truncated() -> None:
    text = 'Format: {"action": "PASS"}. Answer: {"action": "PLAY", "cards": ["3"'
    assert refused(text, cut_off=True).category == "truncated"
    # without the flag the complete object is all there is
    assert extracted(text).reply.action == "PASS"


def test_cut_off_while_thinking_is_truncated() -> None:
    error = refused('<think>Let me count the cards: {"bid"', BID, cut_off=True)
    assert error.category == "truncated"
    assert "while reasoning" in error.detail


def test_cut_off_in_chatter_after_a_complete_answer_is_kept() -> None:
    text = '{"bid": 3} I bid three because my hand has the big jok'
    assert extracted(text, BID, cut_off=True).reply.bid == 3


def test_unfinished_object_without_the_flag_is_unparsable() -> None:
    error = refused('{"action": "PLAY", "cards": ["3"')
    assert error.category == "unparsable"


def test_only_requests_a_model_answers() -> None:
    with pytest.raises(TypeError):
        extract_reply("{}", BidResponse(player_id=ME, bid=0))  # type: ignore[call-overload]
