"""Prompts for language-model seats: derived facts, template files, sizes, retry text."""

from __future__ import annotations

import asyncio
import json
from importlib.resources import files

import pytest

from arena.agents.llm.game_prompts import model_prompts
from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.llm.texts import estimate_tokens
from arena.config import SeatConfig
from arena.errors import ConfigError
from arena.games.ddz.agents.capture import RequestCapture
from arena.games.ddz.agents.reading import legal_for
from arena.games.ddz.agents.scripted import HeuristicAgent, RandomAgent
from arena.games.ddz.engine import DECK, Rules
from arena.games.ddz.messages import BidRequest, DoubleRequest, PlayRequest, parse_message
from arena.games.ddz.prompts.facts import facts_of
from arena.games.ddz.prompts.kit import PROMPTS
from arena.games.ddz.prompts.prompts import (
    LANGUAGES,
    MAX_QUOTED_PLAYS,
    Language,
    build_prompt,
    retry_text,
)
from arena.games.registry import get_game
from arena.table import Table, TableSettings, play_match
from protocol import ReplyRejected

AnyAsk = BidRequest | DoubleRequest | PlayRequest
NAMES = ("DeepSeek-V3", "Claude-Sonnet", "GPT-4o")  # realistic, longish seat names


async def _capture(matches: int) -> list[AnyAsk]:
    requests: list[AnyAsk] = []
    for seed in range(matches):
        agents = [RequestCapture(HeuristicAgent(name, seed=1), requests) for name in NAMES]
        await play_match(Table(agents), rounds=3, seed=seed)
    return requests


@pytest.fixture(scope="module")
def real_requests() -> list[AnyAsk]:
    return asyncio.run(_capture(20))


_MAX_NAME = next(
    m.max_length for m in SeatConfig.model_fields["name"].metadata if hasattr(m, "max_length")
)
LONG_NAMES = {
    "realistic": ("GPT-4o-mini 选手", "Claude 选手", "DeepSeek 选手"),
    # the longest names the config allows, one token a character: the worst case
    "longest": tuple(ch * (_MAX_NAME - 1) + str(i) for i, ch in enumerate("甲乙丙")),
}


async def _capture_long(names: tuple[str, ...], matches: int) -> list[AnyAsk]:
    requests: list[AnyAsk] = []
    for seed in range(matches):
        agents = [
            RequestCapture(RandomAgent(name, seed=seed * 3 + i), requests)
            for i, name in enumerate(names)
        ]
        await play_match(Table(agents, settings=TableSettings(pace_s=0)), rounds=3, seed=seed)
    return requests


@pytest.fixture(scope="module")
def long_rounds() -> dict[str, list[AnyAsk]]:
    """Every request of random-bot matches, per set of long seat names."""
    return {label: asyncio.run(_capture_long(names, 20)) for label, names in LONG_NAMES.items()}


def _landlord_play(history: list[dict[str, object]] | None = None) -> PlayRequest:
    return PlayRequest.model_validate(
        {
            "player_id": "A",
            "hand": ["♠3", "♥3", "♠9", "♥Q", "大王"],
            "is_free_play": False,
            "last_play": {"player": "B", "type": "SINGLE", "cards": ["♠5"], "main_rank": 5},
            "play_history": history
            or [
                {"player": "A", "action": "PLAY", "type": "PAIR", "cards": ["♠4", "♥4"]},
                {"player": "B", "action": "PASS", "type": None, "cards": []},
                {"player": "C", "action": "PASS", "type": None, "cards": []},
                {"player": "A", "action": "PLAY", "type": "SINGLE", "cards": ["♦K"]},
                {"player": "B", "action": "PLAY", "type": "SINGLE", "cards": ["♠5"]},
            ],
            "remaining_cards": {"A": 5, "B": 15, "C": 17},
            "role": "landlord",
            "teammates": [],
            "landlord": "A",
            "bottom_cards": ["♦K", "♥Q", "大王"],
            "seat_order": ["A", "B", "C"],
        }
    )


def _farmer_play() -> PlayRequest:
    return PlayRequest.model_validate(
        {
            "player_id": "B",
            "hand": ["♠6", "♥6", "♦6", "♠7", "♠8", "♠J"],
            "is_free_play": False,
            "last_play": {"player": "C", "type": "PAIR", "cards": ["♠10", "♥10"], "main_rank": 10},
            "play_history": [
                {"player": "A", "action": "PLAY", "type": "SINGLE", "cards": ["♥Q"]},
                {"player": "B", "action": "PASS", "type": None, "cards": []},
                {"player": "C", "action": "PLAY", "type": "PAIR", "cards": ["♠10", "♥10"]},
            ],
            "remaining_cards": {"A": 19, "B": 6, "C": 15},
            "role": "farmer",
            "teammates": ["C"],
            "landlord": "A",
            "bottom_cards": ["♦K", "♥Q", "大王"],
            "seat_order": ["A", "B", "C"],
            "request_id": "t1-1-9",
        }
    )


# ─── facts ─────────────────────────────────────────────────────────────────────────────


def test_landlord_facts_count_bottom_cards_as_its_own() -> None:
    facts = facts_of(_landlord_play())
    assert facts.role == "landlord"
    assert facts.teammates == ()
    assert facts.played == ("♠4", "♥4", "♠5", "♦K")
    assert facts.landlord_holds == ()  # its own hand: nothing to tell
    # 54 - 5 in hand - 4 played; the bottom ♥Q and 大王 are in the hand, ♦K was played
    assert facts.unseen_total == 54 - 5 - 4
    assert facts.unseen[3] == 2
    assert facts.unseen[4] == 2
    assert facts.unseen[17] == 0
    assert facts.unseen[13] == 3
    assert facts.unseen[12] == 3
    assert facts.last_play is not None
    assert facts.last_play.player == "B"
    assert facts.last_play.hand_type == "SINGLE"
    assert facts.last_play.cards == ("♠5",)
    assert not facts.last_play.by_teammate


def test_farmer_facts_see_the_bottom_cards_the_landlord_still_holds() -> None:
    facts = facts_of(_farmer_play())
    assert facts.role == "farmer"
    assert facts.teammates == ("C",)
    # ♥Q (a bottom card) was played; ♦K and 大王 are still in the landlord's hand
    assert facts.landlord_holds == ("♦K", "大王")
    assert facts.unseen_total == 54 - 6 - 3 - 2
    assert facts.unseen[17] == 0
    assert facts.unseen[16] == 1
    assert facts.unseen[6] == 1
    assert facts.unseen[10] == 2
    assert facts.last_play is not None
    assert facts.last_play.by_teammate
    assert facts.remaining == {"A": 19, "B": 6, "C": 15}


def test_bid_and_double_facts() -> None:
    hand = [c.text for c in DECK[:17]]
    bid = BidRequest(player_id="A", current_highest_bid=0, available_bids=[1, 2, 3, 0], hand=hand)
    facts = facts_of(bid)
    assert facts.unseen_total == 37
    assert facts.role is None
    assert facts.played == ()
    double = DoubleRequest(
        player_id="B", kind="double", landlord="A", call_score=2,
        bottom_cards=["小王", "大王", "♠2"], hand=hand,
    )  # fmt: skip
    facts = facts_of(double)
    assert facts.role == "farmer"
    assert facts.landlord_holds == ("♠2", "小王", "大王")
    assert facts.unseen_total == 54 - 17 - 3
    assert facts.unseen[16] == 0


def test_unseen_counts_match_the_hidden_hands_in_real_rounds(real_requests: list[AnyAsk]) -> None:
    plays = [r for r in real_requests if isinstance(r, PlayRequest)]
    assert len(plays) > 300
    for request in plays:
        facts = facts_of(request)
        others = sum(n for name, n in request.remaining_cards.items() if name != request.player_id)
        assert facts.unseen_total == others - len(facts.landlord_holds)
        assert len(facts.played) + sum(request.remaining_cards.values()) == 54


# ─── prompts ───────────────────────────────────────────────────────────────────────────


def _request_line(text: str, kind: str) -> str:
    lines = [line for line in text.splitlines() if line.startswith('{"type":"' + kind)]
    assert len(lines) == 1
    return lines[0]


@pytest.mark.parametrize("language", LANGUAGES)
def test_prompt_holds_the_request_as_json_and_the_facts(language: Language) -> None:
    request = _farmer_play()
    prompt = build_prompt(request, language=language, persona="Old Wang", legal_moves="none")
    line = _request_line(prompt.user, "PLAY_REQUEST")
    assert parse_message(line) == request
    assert "Old Wang" in prompt.system
    assert "♦K 大王" in prompt.user  # the bottom cards the landlord still holds
    assert "C" in prompt.user
    assert "PAIR ♠10 ♥10" in prompt.user
    assert "6x3" in prompt.user  # the hand by rank
    assert "PAIR: " not in prompt.user  # no legal moves unless asked
    assert '"action"' in prompt.user
    assert '"player_id"' not in prompt.user.split(line)[1]
    assert "null" not in line  # optional nulls and a PASS's empty cards are left out
    assert '{"player":"B","action":"PASS"}' in line
    assert "play_history" not in prompt.user.split(line)[1]  # nothing trimmed: no note


@pytest.mark.parametrize("language", LANGUAGES)
def test_bid_and_double_prompts(language: Language, real_requests: list[AnyAsk]) -> None:
    bid = next(r for r in real_requests if isinstance(r, BidRequest))
    double = next(r for r in real_requests if isinstance(r, DoubleRequest))
    for request, reply_field in ((bid, '"bid"'), (double, '"double"')):
        prompt = build_prompt(request, language=language)
        assert parse_message(_request_line(prompt.user, request.type)) == request
        assert reply_field in prompt.user
    assert ", ".join(map(str, bid.available_bids)) in build_prompt(bid, language=language).user


@pytest.mark.parametrize("language", LANGUAGES)
def test_legal_moves_full_and_summary(language: Language) -> None:
    request = _landlord_play()
    full = build_prompt(request, language=language, legal_moves="full").user
    moves = legal_for(request)
    assert len(moves) == 3  # ♠9, ♥Q, 大王 beat the ♠5
    for move in moves:
        assert f"- {move.type.value}: {' '.join(move.card_strings)}" in full
    assert "\n- PASS" in full
    summary = build_prompt(request, language=language, legal_moves="summary").user
    assert "SINGLE: " not in summary
    assert "SINGLE ×3" in summary


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_full_list_is_capped_and_says_how_many_are_left_out(language: Language) -> None:
    hand = [c.text for c in DECK[:20]]
    request = PlayRequest(
        player_id="A", hand=hand, is_free_play=True, last_play=None,
        remaining_cards={"A": 20, "B": 17, "C": 17}, role="landlord", landlord="A",
    )  # fmt: skip
    total = len(legal_for(request))
    assert total > 40
    text = build_prompt(request, language=language, legal_moves="full", max_moves=10).user
    assert sum(1 for line in text.splitlines() if line.startswith("- ") and ": ♠" in line) == 10
    assert str(total - 10) in text
    assert str(total) in text


def test_rule_variants_and_bidding_reach_the_system_text() -> None:
    request = _farmer_play()
    plain = build_prompt(request, language="en").system
    varied = build_prompt(request, language="en", rules=Rules(quadplex_as_bomb=True)).system
    assert "Variant" not in plain
    assert "Variant" in varied
    grab = build_prompt(request, language="zh", rules=Rules(bidding="grab")).system
    assert "抢地主" in grab


def test_templates_are_shipped_and_found_as_package_resources() -> None:
    root = files("arena.games.ddz.prompts").joinpath("templates")
    for language in LANGUAGES:
        folder = root.joinpath(language)
        for name in ("system.txt", "play.txt", "bid.txt", "double.txt", "retry.txt"):
            assert folder.joinpath(name).read_text(encoding="utf-8").strip()
        phrases = json.loads(folder.joinpath("phrases.json").read_text(encoding="utf-8"))
        assert {"fact_unseen", "legal_more", "advice_truncated"} <= set(phrases)
    with pytest.raises(ValueError, match="language"):
        build_prompt(_farmer_play(), language="fr")  # type: ignore[arg-type]


def test_a_model_seat_says_and_reads_what_its_game_gives_it() -> None:
    """The prompts, their languages, the legal-move choices, the decision's schema and
    the reading of an answer are the game's (``Game.model_prompts``): the seat is a
    transport, and a seat at a Dou Dizhu table takes Dou Dizhu's."""
    prompts = model_prompts(get_game("ddz"))
    assert prompts is PROMPTS
    assert prompts.languages == LANGUAGES == ("zh", "en")
    assert prompts.legal_moves == ("none", "summary", "full")
    assert prompts.build_prompt is build_prompt
    assert prompts.retry_text is retry_text
    seat = OpenAIAgent("M", model="m", provider="vllm", base_url="http://127.0.0.1:9")
    assert seat.prompts is prompts
    with pytest.raises(ConfigError, match=r"options\.language must be one of zh, en, not 'fr'"):
        OpenAIAgent("M", model="m", provider="vllm", base_url="http://127.0.0.1:9", language="fr")


# ─── sizes ─────────────────────────────────────────────────────────────────────────────


def test_token_estimate() -> None:
    assert estimate_tokens("abcdefgh") == 2
    assert estimate_tokens("你好") == 2
    assert estimate_tokens("ab你") == 2


def test_play_prompts_without_legal_moves_stay_under_1500_tokens(
    real_requests: list[AnyAsk],
) -> None:
    sizes: dict[tuple[str, str], int] = {}
    for request in real_requests:
        for language in LANGUAGES:
            tokens = build_prompt(request, language=language).tokens
            key = (request.type, language)
            sizes[key] = max(sizes.get(key, 0), tokens)
    longest = max(len(r.play_history) for r in real_requests if isinstance(r, PlayRequest))
    assert longest > 40  # late-round requests with a long history are among them
    assert sizes[("PLAY_REQUEST", "en")] < 1500
    assert sizes[("PLAY_REQUEST", "zh")] < 1500
    assert sizes[("BID_REQUEST", "zh")] < 700
    assert sizes[("DOUBLE_REQUEST", "en")] < 700


@pytest.mark.parametrize("names", sorted(LONG_NAMES))
def test_every_prompt_stays_under_1500_tokens_in_long_rounds_with_long_names(
    names: str, long_rounds: dict[str, list[AnyAsk]]
) -> None:
    requests = long_rounds[names]
    assert {r.type for r in requests} == {"BID_REQUEST", "DOUBLE_REQUEST", "PLAY_REQUEST"}
    histories = [len(r.play_history) for r in requests if isinstance(r, PlayRequest)]
    assert max(histories) >= 80
    if names == "longest":
        assert all(len(r.player_id) == _MAX_NAME for r in requests)
    worst = 0
    for request in requests:
        for language in LANGUAGES:
            prompt = build_prompt(request, language=language)
            worst = max(worst, prompt.tokens)
            assert prompt.tokens < 1500, (request.type, language, prompt.tokens)
            line = _request_line(prompt.user, request.type)
            after = prompt.user.split(line)[1]
            if not isinstance(request, PlayRequest):
                assert parse_message(line) == request
                continue
            quoted = parse_message(line)
            assert isinstance(quoted, PlayRequest)
            history = request.play_history
            kept = len(quoted.play_history)
            # the latest plays, the rest of the request as it is
            assert quoted == request.model_copy(
                update={"play_history": history[len(history) - kept :]}
            )
            assert kept <= MAX_QUOTED_PLAYS
            if names == "realistic":
                assert kept == min(len(history), MAX_QUOTED_PLAYS)
            # a trimmed history says so, and the play to beat with its player stays
            assert ("play_history" in after) == (kept < len(history))
            if kept < len(history):
                assert f"{kept}" in after
                assert f"{len(history)}" in after
            if request.last_play is not None and not request.is_free_play:
                lp = request.last_play
                lines = after.splitlines()
                assert any(lp.player in t and f"{lp.type.value} " in t for t in lines)
    assert worst > 900  # long names and histories really were measured


# ─── retry ─────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("language", LANGUAGES)
def test_retry_text_names_reason_and_detail(language: Language) -> None:
    rejected = ReplyRejected(
        player_id="A", request_type="PLAY_REQUEST", reason="illegal",
        detail="♠3 ♠4 ♠5 ♠6 ♠8 is not a valid combination", retries_left=2,
    )  # fmt: skip
    text = retry_text(rejected, language=language)
    assert "illegal" in text
    assert "♠3 ♠4 ♠5 ♠6 ♠8 is not a valid combination" in text
    assert "2" in text
    cut = rejected.model_copy(update={"reason": "truncated", "detail": "over 4096 bytes"})
    short = retry_text(cut, language=language)
    assert "truncated" in short
    assert "over 4096 bytes" in short
    assert short != text.replace("illegal", "truncated")  # asks for a shorter answer
