"""Budgets of model seats: tokens or cost per match, then a cheaper model or the stand-in.

Specification: issue 9, "A budget (tokens or cost per match), when spent, switches the
seat to a configured cheaper model or to its stand-in, and an event says so on stream."
The budget is checked before each call: the call that spends it still completes.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from fake_providers import (  # noqa: F401 (an autouse fixture)
    FakeOpenAI,
    RecordedRequest,
    Reply,
    legal_answer,
    request_in,
    shared_clients,
)

from arena.agents.llm.openai_seat import OpenAIAgent
from arena.errors import AgentUnavailableError, ConfigError
from arena.games.ddz.messages import PlayRequest, parse_message
from arena.sinks.base import CollectingSink
from arena.table import Table, play_match

KEY = "sk-budget-test-0123456789"
KEY_ENV = "ARENA_TEST_BUDGET_KEY"
LAST_PLAY: dict[str, Any] = {"player": "B", "type": "SINGLE", "cards": ["♠4"], "main_rank": 4}


def metered(recorded: RecordedRequest) -> Reply:
    """A legal answer that costs 100 tokens in and 10 out, every time."""
    decision = legal_answer(request_in(recorded))
    return Reply(text=json.dumps(decision), prompt_tokens=100, completion_tokens=10)


@pytest.fixture(autouse=True)
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY, respond=metered) as fake:
        yield fake


def seat(server: FakeOpenAI, name: str = "GPT", **options: Any) -> OpenAIAgent:
    return OpenAIAgent(
        name,
        model="gpt-big",
        base_url=server.base_url,
        api_key_env=KEY_ENV,
        structured="none",
        **options,
    )


def following(match_id: str, n: int) -> PlayRequest:
    message = parse_message(
        {
            "type": "PLAY_REQUEST",
            "player_id": "GPT",
            "hand": ["♠3", "♥3"],
            "is_free_play": False,
            "last_play": LAST_PLAY,
            "remaining_cards": {"GPT": 2, "B": 17, "C": 17},
            "role": "landlord",
            "request_id": f"t1-1-{n}",
            "match_id": match_id,
        }
    )
    assert isinstance(message, PlayRequest)
    return message


async def test_a_spent_token_budget_switches_to_the_cheaper_model_once(
    server: FakeOpenAI,
) -> None:
    agent = seat(server, budget={"tokens": 200, "then": "gpt-small"})
    notices = []
    for n in range(4):
        await agent.ask(following("m1", n))
        report = agent.take_report()
        assert report is not None
        notices.append(report.notice)
    assert [r.model for r in server.requests] == ["gpt-big", "gpt-big", "gpt-small", "gpt-small"]
    assert notices[:2] == [None, None]
    assert notices[2] == {
        "kind": "budget_spent",
        "switched_to": "gpt-small",
        "spent": {"tokens": 220},  # no prices: no cost to tell
        "limit": {"tokens": 200},
    }
    assert notices[3] is None
    # a new match: a fresh budget, the configured model again
    await agent.ask(following("m2", 9))
    assert server.requests[-1].model == "gpt-big"


async def test_a_spent_cost_budget_hands_the_seat_to_its_stand_in(server: FakeOpenAI) -> None:
    prices = {"input": 1000.0, "output": 5000.0}  # 0.1 + 0.05 per call
    agent = seat(server, prices=prices, budget={"cost": 0.2})
    await agent.ask(following("m1", 1))
    await agent.ask(following("m1", 2))
    with pytest.raises(AgentUnavailableError) as caught:
        await agent.ask(following("m1", 3))
    assert len(server.requests) == 2  # no call once spent
    assert caught.value.detail == (
        "seat 'GPT': budget spent: 220 tokens, cost 0.3 USD (the budget: cost 0.2 USD)"
    )
    report = agent.take_report()
    assert report is not None
    assert report.error == caught.value.detail
    assert report.notice == {
        "kind": "budget_spent",
        "switched_to": "standin",
        "spent": {"tokens": 220, "cost": 0.3},
        "limit": {"cost": 0.2},
    }
    with pytest.raises(AgentUnavailableError):  # said once: no second notice
        await agent.ask(following("m1", 4))
    report = agent.take_report()
    assert report is not None
    assert report.notice is None


async def _costs(agent: OpenAIAgent, calls: int) -> list[tuple[float | None, object]]:
    """(cost, notice) of each of ``calls`` decisions in one match."""
    found: list[tuple[float | None, object]] = []
    for n in range(calls):
        await agent.ask(following("m1", n))
        report = agent.take_report()
        assert report is not None
        found.append((report.usage.cost, report.notice))
    return found


async def test_the_cheaper_model_is_costed_at_then_prices_and_plays_to_the_end(
    server: FakeOpenAI,
) -> None:
    # 100 in + 10 out per call: 0.15 a call at the first prices, 0.0015 at the cheaper's
    agent = seat(
        server,
        prices={"input": 1000.0, "output": 5000.0, "currency": "EUR"},
        budget={"cost": 0.2, "then": "gpt-small", "then_prices": {"input": 10, "output": 50}},
    )
    costs = await _costs(agent, 8)
    models = [r.model for r in server.requests]
    assert models == ["gpt-big"] * 2 + ["gpt-small"] * 6  # no second limit: it plays on
    assert [c for c, _ in costs] == pytest.approx([0.15] * 2 + [0.0015] * 6)
    assert [n is not None for _, n in costs] == [False, False] + [True] + [False] * 5
    # the whole match's spending keeps counting after the switch
    assert agent.spending.tokens == 8 * 110
    assert agent.spending.cost == pytest.approx(0.3 + 6 * 0.0015)
    assert agent.budget is not None
    assert agent.budget.then_prices is not None
    assert agent.budget.then_prices.currency == "EUR"  # the seat's, when not given


async def test_without_then_prices_the_cheaper_model_is_costed_at_the_first_prices(
    server: FakeOpenAI,
) -> None:
    agent = seat(
        server, prices={"input": 1000.0, "output": 5000.0}, budget={"tokens": 200, "then": "m2"}
    )
    costs = await _costs(agent, 4)
    assert [r.model for r in server.requests] == ["gpt-big"] * 2 + ["m2"] * 2
    assert [c for c, _ in costs] == pytest.approx([0.15] * 4)


@pytest.mark.parametrize(
    ("budget", "prices", "words"),
    [
        ({"tokens": 9, "then_prices": {"input": 1, "output": 2}}, {"input": 3, "output": 4},
         "set options.budget.then to its name"),
        ({"tokens": 9, "then": "m2", "then_prices": {"input": 1, "output": 2}}, None,
         "then_prices needs options.prices"),
        ({"tokens": 9, "then": "m2", "then_prices": {"input": 1, "output": 2, "currency": "CNY"}},
         {"input": 3, "output": 4}, "then_prices.currency (CNY) must be options.prices' (USD)"),
        ({"tokens": 9, "then": "m2", "then_prices": {"input": 1}}, {"input": 3, "output": 4},
         "options.budget.then_prices.output is required"),
    ],
)  # fmt: skip
def test_then_prices_are_checked(
    server: FakeOpenAI, budget: dict[str, Any], prices: dict[str, Any] | None, words: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        seat(server, prices=prices, budget=budget)
    assert words in str(caught.value)


async def test_a_call_cut_off_by_the_deadline_spends_its_estimate(server: FakeOpenAI) -> None:
    agent = seat(server, budget={"tokens": 50})
    server.script(Reply(text='{"action": "PASS"}', delay_s=3.0))
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.3):
            await agent.ask(following("m1", 1))
    with pytest.raises(AgentUnavailableError) as caught:
        await agent.ask(following("m1", 2))
    assert re.fullmatch(
        r"seat 'GPT': budget spent: \d+ tokens \(the budget: 50 tokens\)", caught.value.detail
    )


async def test_at_a_table_the_budget_is_announced_and_the_stand_in_takes_over(
    server: FakeOpenAI,
) -> None:
    sink = CollectingSink()
    agents = [
        seat(server, "A", budget={"tokens": 500, "then": "gpt-small"}),
        seat(server, "B", budget={"tokens": 500}),
        seat(server, "C"),
    ]
    table = Table(agents, sinks=[sink], timeouts=[5, 5, 5])
    await table.open()
    try:
        summary = await play_match(table, rounds=1, seed=7)
    finally:
        await table.close()
    spent = sink.of_type("budget_spent")
    assert len(spent) == 2  # each said once
    assert {(e.player, e.data["switched_to"]) for e in spent} == {
        ("A", "gpt-small"),
        ("B", "standin"),
    }
    [replaced] = sink.of_type("seat_replaced")
    assert replaced.player == "B"
    assert replaced.data["until"] == "match_end"
    assert replaced.data["reason"].startswith("seat 'B': budget spent: ")
    assert summary.faults["A"]["agent_error"] == 0
    assert summary.faults["B"]["agent_error"] == 1
    models = {r.model for r in server.requests}
    assert models == {"gpt-big", "gpt-small"}
