"""Model seats at a Tractor table: the real ``openai`` and ``anthropic`` SDKs against
loopback servers speaking each provider's wire format (tests/fake_providers.py).

Specification (issue 29): language-model seats play Tractor with zh and en prompts, the
same reading and repairs, costs, budgets and moderation as Dou Dizhu. The fake model
(tests/tractor_model.py) plays from what its prompt shows: it declares its first
option, buries the kitty it is shown and plays the first legal play listed. Every match
is one round (``round_limit = 1``): three random seats and one model seat, which at
seed 4 declares the trump that locks, so it also buries.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fake_providers import (
    FakeAnthropic,
    FakeOpenAI,
    RecordedRequest,
    Reply,
    shared_clients,  # noqa: F401 (an autouse fixture)
    tool_name,
)
from tractor_model import decision_of, prompt_of, tractor_model

from arena.agents.llm.anthropic_seat import AnthropicAgent
from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.llm.seat import ModelSeat
from arena.config import parse_config
from arena.errors import ConfigError
from arena.games.registry import get_game
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import TractorRules
from arena.runner import seat_agent
from arena.sinks.base import CollectingSink
from arena.table import Table, play_match
from arena.table.match import MatchSummary
from protocol import Message, ReplyRejected

KEY = "sk-tractor-seat-0123456789abcdef"
KEY_ENV = "ARENA_TEST_TRACTOR_KEY"
RULES = TractorRules(round_limit=1)
SEED = 4
"""The model seat's declaration locks trump at this seed: it declares, buries and plays."""
FACES = re.compile(r"[♠♥♦♣](?:10|[2-9JQKA])|大王|小王")
ALL_FACES = [s + r for s in "♠♥♦♣" for r in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J")]
REPO = Path(__file__).resolve().parent.parent

Respond = Callable[[RecordedRequest], Reply]


@pytest.fixture(autouse=True)
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


class Watched(OpenAIAgent):
    """An OpenAI seat that keeps the rejections the table sends it."""

    rejections: list[ReplyRejected]

    async def notify(self, message: Message) -> None:
        if isinstance(message, ReplyRejected):
            self.rejections.append(message)
        await super().notify(message)


def openai_seat(server: FakeOpenAI, **options: Any) -> OpenAIAgent:
    options.setdefault("structured", "none")
    options.setdefault("legal_moves", "full")
    seat = Watched(
        "GPT", model="gpt-t", base_url=server.base_url, api_key_env=KEY_ENV, rules=RULES, **options
    )
    seat.rejections = []
    return seat


def anthropic_seat(server: FakeAnthropic, **options: Any) -> AnthropicAgent:
    options.setdefault("legal_moves", "full")
    return AnthropicAgent(
        "GPT",
        model="claude-t",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        rules=RULES,
        **options,
    )


async def play(model: ModelSeat) -> tuple[MatchSummary, CollectingSink]:
    """One round: the model at seat 0 (North), random seats elsewhere."""
    agents = [model, *(RandomAgent(n, seed=i, rules=RULES) for i, n in enumerate("BCD"))]
    sink = CollectingSink()
    table = Table(agents, game=get_game("tractor"), rules=RULES, sinks=[sink], timeouts=[5] * 4)
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=SEED)
    finally:
        await table.close()
    return summary, sink


def events_text(sink: CollectingSink) -> str:
    return json.dumps([e._asdict() for e in sink.events], ensure_ascii=False, default=str)


def model_actions(sink: CollectingSink) -> dict[str, int]:
    """How many declarations, burials and plays the model seat (seat 0) made itself."""
    counts = {"declare": 0, "bury": 0, "play": 0}
    for event in sink.of_type("declare", "bury", "play"):
        mine = event.seat == 0 and not event.data["fallback"]
        if mine and (event.type != "declare" or event.data["declared"]):
            counts[event.type] += 1
    return counts


# ─── whole matches ──────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("provider", "language", "structured"),
    [
        ("openai", "en", "none"),
        ("openai", "zh", "json_schema"),
        ("anthropic", "en", "tools"),
        ("anthropic", "zh", "tools"),
    ],
)
async def test_a_model_seat_plays_a_tractor_match(
    provider: str, language: str, structured: str
) -> None:
    fake_class = FakeOpenAI if provider == "openai" else FakeAnthropic
    prices = {"input": 1.0, "output": 2.0}
    with fake_class(api_key=KEY, respond=tractor_model(declare=True)) as server:
        if isinstance(server, FakeOpenAI):
            model: ModelSeat = openai_seat(
                server, language=language, structured=structured, prices=prices
            )
        else:
            model = anthropic_seat(server, language=language, prices=prices)
        summary, sink = await play(model)
        requests = list(server.requests)
    assert sum(summary.faults["GPT"].values()) == 0, summary.faults["GPT"]
    actions = model_actions(sink)
    assert actions["declare"] >= 1
    assert actions["bury"] == 1
    assert actions["play"] >= 10
    [result] = sink.of_type("round_result")
    assert result.data is not None
    # in the seat's language, from the first request to the last
    system = requests[0].body.get("system") or requests[0].body["messages"][0]["content"]
    opening = "You play Tractor" if language == "en" else "你玩升级"
    assert opening in system
    assert all(("Reply JSON only" in prompt_of(r)) == (language == "en") for r in requests)
    # each decision's schema, where the mode sends one
    if structured != "none":
        names = {tool_name(r) or r.body["response_format"]["json_schema"]["name"] for r in requests}
        assert names == {"declare_reply", "bury_reply", "play_reply"}
    # tokens and costs counted from the provider's usage, per decision and per match
    decisions = [d for d in sink.of_type("decision") if d.seat == 0]
    assert len(decisions) == len(requests)
    assert all(d.data["legal_first_try"] and not d.data["estimated"] for d in decisions)
    for d in decisions:
        cost = (d.data["input_tokens"] * 1.0 + d.data["output_tokens"] * 2.0) / 1e6
        assert d.data["cost"] == pytest.approx(cost)
    stats = summary.stats["GPT"]
    assert stats["input_tokens"] == sum(d.data["input_tokens"] for d in decisions) > 0
    assert stats["cost"] == pytest.approx(sum(d.data["cost"] for d in decisions))
    assert KEY not in events_text(sink)


async def test_an_illegal_play_is_refused_with_the_engines_reason_and_the_retry_is_used() -> None:
    """The model's first play names a card it does not hold: the engine refuses it, the
    retry continues the conversation with that reason, and the second answer plays."""
    said: dict[str, str] = {}

    def respond(recorded: RecordedRequest) -> Reply:
        messages = recorded.body["messages"]
        prompt = prompt_of(recorded)
        playing = "You must: " in prompt and '"action"' not in prompt and "kitty (" not in prompt
        if playing and "bad" not in said:
            shown = set(FACES.findall(prompt))
            said["bad"] = next(face for face in ALL_FACES if face not in shown)
            return Reply(text=json.dumps({"cards": [said["bad"]]}, ensure_ascii=False))
        if len(messages) > 2 and "retry" not in said:
            said["retry"] = messages[-1]["content"]
        return Reply(text=json.dumps(decision_of(prompt, declare=True), ensure_ascii=False))

    with FakeOpenAI(api_key=KEY, respond=respond) as server:
        model = openai_seat(server, language="en")
        summary, sink = await play(model)
        retried = [r for r in server.requests if len(r.body["messages"]) > 2]
    assert isinstance(model, Watched)
    [rejection] = model.rejections
    assert rejection.reason == "illegal"
    assert rejection.detail == f"card {said['bad']!r}: no {said['bad']} left in the hand"
    [retry] = retried
    first = retry.body["messages"]
    assert [m["role"] for m in first] == ["system", "user", "assistant", "user"]
    assert first[2]["content"] == json.dumps({"cards": [said["bad"]]}, ensure_ascii=False)
    assert said["retry"] == first[3]["content"]
    assert f"The arena rejected your answer (illegal): {rejection.detail}" in said["retry"]
    assert summary.faults["GPT"]["illegal"] == 1
    assert summary.faults["GPT"]["fallback"] == 0
    [decision] = [d for d in sink.of_type("decision") if d.seat == 0 and d.data["attempts"] == 2]
    assert not decision.data["legal_first_try"]
    assert not decision.data["fell_back"]
    assert summary.stats["GPT"]["legal_after_retry"] == 1


@pytest.mark.parametrize("then", ["standin", "gpt-small"])
async def test_a_spent_budget_stops_the_spending(then: str) -> None:
    """A token budget of three prompts: then the cheaper model plays on, or the stand-in
    plays the rest of the match and the provider hears no more."""
    with FakeOpenAI(api_key=KEY, respond=tractor_model(declare=True)) as server:
        model = openai_seat(server, language="zh", budget={"tokens": 2500, "then": then})
        summary, sink = await play(model)
        models = [r.model for r in server.requests]
    [spent] = sink.of_type("budget_spent")
    assert (spent.seat, spent.data["switched_to"]) == (0, then)
    assert spent.data["spent"]["tokens"] >= 2500
    first = models.index(then) if then in models else len(models)
    assert first >= 2
    assert models[:first] == ["gpt-t"] * first
    if then == "standin":
        assert len(models) == first  # not one call more
        [replaced] = sink.of_type("seat_replaced")
        assert replaced.data["until"] == "match_end"
        assert summary.faults["GPT"]["agent_error"] == 1
        plays = [e for e in sink.of_type("play") if e.seat == 0]
        assert plays  # the stand-in plays the seat to the end
    else:
        assert set(models[first:]) == {"gpt-small"}
        assert len(models) > first + 5  # the cheaper model plays to the end
        assert not sink.of_type("seat_replaced")
        assert sum(summary.faults["GPT"].values()) == 0
    assert sink.of_type("round_result")


async def test_a_secret_in_the_models_comment_is_masked_and_its_words_moderated(
    tmp_path: Path,
) -> None:
    with FakeOpenAI(
        api_key=KEY, respond=tractor_model(comment=f"key {KEY}, what the fuck", emotion="Happy")
    ) as server:
        summary, sink = await play(openai_seat(server, language="en"))
    comments = [
        e.data.get("comment") for e in sink.of_type("declare", "bury", "play") if e.seat == 0
    ]
    assert comments
    assert set(comments) == {"key ***, what the ***"}
    emotions = {e.data.get("emotion") for e in sink.of_type("play") if e.seat == 0}
    assert emotions == {"happy"}
    assert summary.stats["GPT"]["filtered"] == len(comments)
    assert KEY not in events_text(sink)
    assert KEY[-12:] not in events_text(sink)


# ─── the docs' example ──────────────────────────────────────────────────────────────────


def docs_config() -> dict[str, Any]:
    """The config of docs/models.md's "A model seat playing Tractor"."""
    text = (REPO / "docs" / "models.md").read_text(encoding="utf-8")
    section = text.split("## A model seat playing Tractor", 1)[1]
    block = section.split("```toml\n", 1)[1].split("```", 1)[0]
    return tomllib.loads(block)


async def test_the_docs_config_seats_two_model_seats_that_play(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = docs_config()
    assert data["game"] == "tractor"
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY + "-ant")
    with (
        FakeOpenAI(api_key=KEY, respond=tractor_model()) as openai_server,
        FakeAnthropic(api_key=KEY + "-ant", respond=tractor_model()) as anthropic_server,
    ):
        for seat in data["seats"]:
            if seat["type"] == "openai":
                seat["options"]["base_url"] = openai_server.base_url
            elif seat["type"] == "anthropic":
                seat["options"]["base_url"] = anthropic_server.base_url
        config = parse_config(data, source="docs/models.md")
        agents = [
            seat_agent(s, seed=i, rules=config.rules, seat_key=f"seats.{i}", game=config.game_info)
            for i, s in enumerate(config.seats)
        ]
        table = Table(
            agents,
            game=config.game_info,
            rules=config.rules,
            settings=config.table,
            timeouts=[5] * 4,
        )
        await table.open()
        try:
            summary = await play_match(table, rounds=1, seed=SEED)
        finally:
            await table.close()
        prompts = {
            "GPT": prompt_of(openai_server.requests[0]),
            "Claude": prompt_of(anthropic_server.requests[0]),
        }
    assert "你是 GPT" in prompts["GPT"]  # language = "zh"
    assert "You are Claude" in prompts["Claude"]
    for name in ("GPT", "Claude"):
        assert summary.faults[name]["fallback"] == 0, summary.faults[name]
        assert summary.stats[name]["input_tokens"] > 0
    assert summary.stats["GPT"]["cost"] > 0  # the example's prices


def test_a_tractor_seat_speaks_chinese_unless_told_and_refuses_other_languages() -> None:
    seat = OpenAIAgent(
        "GPT", model="m", base_url="http://127.0.0.1:9/v1", api_key_env=KEY_ENV, rules=RULES
    )
    assert (seat.game.name, seat.language, seat.legal_moves) == ("tractor", "zh", "none")
    with pytest.raises(ConfigError, match=r"options\.language") as caught:
        OpenAIAgent(
            "GPT",
            model="m",
            base_url="http://127.0.0.1:9/v1",
            api_key_env=KEY_ENV,
            rules=RULES,
            language="fr",
        )
    assert "zh" in str(caught.value)
    assert "en" in str(caught.value)
