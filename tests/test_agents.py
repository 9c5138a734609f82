"""Agents: the conformance run, the scripted players' choices, the registry, the human seat.

Specification: the issue's "one small async interface for every agent", the scripted
agents `random` / `greedy` / `heuristic` ("each reproducible from a seed"), the registry
(type names, ``module:Class``, the ``ddz_arena.agents`` entry points) and the `human`
agent with an injected ``prompt``.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import (
    FaultyAgent,
    MinimalAgent,
    PluginBot,
    check_conformance,
    play_request,
    public_actions,
)

from arena.agents import (
    BUILTIN_AGENTS,
    ENTRY_POINT_GROUP,
    Agent,
    agent_class,
    create_agent,
)
from arena.agents.registry import agent_types
from arena.errors import ConfigError
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.human import HumanAgent
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.games.ddz.engine import Rules, card
from arena.games.ddz.messages import BidRequest, DoubleRequest, PlayRequest, PlayResponse
from arena.games.registry import get_game

SCRIPTED = ("random", "greedy", "heuristic")
RULE_SETS = {
    "competition": Rules(),
    "grab": Rules(bidding="grab"),
    "casual-rotate": Rules(scoring="casual", first_bidder="rotate", bidding="until_settled"),
}


def ranks(reply: PlayResponse) -> list[int]:
    return sorted(card(c).rank for c in reply.cards)


# ─── conformance: any agent, whole matches ──────────────────────────────────────────────


@pytest.mark.parametrize("rules_name", list(RULE_SETS))
@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("kind", SCRIPTED)
async def test_scripted_agent_conforms_over_whole_matches(
    kind: str, seed: int, rules_name: str
) -> None:
    rules = RULE_SETS[rules_name]
    table, checkers, sink = await check_conformance(
        lambda name, s: create_agent(kind, name, seed=s, rules=rules), seed=seed, rules=rules
    )
    for checker in checkers:
        assert checker.problems == []
        assert table.faults(checker.name).total == 0, table.faults(checker.name)
        assert any(d["request"] == "PLAY_REQUEST" for d in checker.decisions)
    assert len(sink.of_type("round_result")) == 3
    assert not sink.of_type("fault", "seat_replaced")


async def test_a_one_class_agent_conforms_too() -> None:
    table, checkers, sink = await check_conformance(
        lambda name, s: create_agent("agents_for_tests:MinimalAgent", name, seed=s), seed=4
    )
    assert [c.problems for c in checkers] == [[], [], []]
    assert all(table.faults(c.name).total == 0 for c in checkers)
    assert sink.of_type("match_ended")


async def test_the_conformance_checker_catches_an_illegal_agent() -> None:
    """The checker can fail: an agent that passes when leading is reported."""

    class PassesWhenLeading(MinimalAgent):
        async def play(self, request: PlayRequest) -> PlayResponse:
            return PlayResponse(
                player_id=request.player_id, action="PASS", request_id=request.request_id
            )

    table, checkers, _ = await check_conformance(
        lambda name, s: PassesWhenLeading(name, seed=s), seed=5, rounds=1
    )
    assert any("passed when leading" in p for c in checkers for p in c.problems)
    assert sum(table.faults(c.name).illegal for c in checkers) > 0


@pytest.mark.parametrize("kind", SCRIPTED)
async def test_same_seed_same_decisions(kind: str) -> None:
    def make(name: str, seed: int) -> Any:
        return create_agent(kind, name, seed=seed)

    _, first, sink_a = await check_conformance(make, seed=11)
    _, second, sink_b = await check_conformance(make, seed=11)
    assert [c.decisions for c in first] == [c.decisions for c in second]
    assert list(public_actions(sink_a.events)) == list(public_actions(sink_b.events))


async def test_random_agent_depends_on_its_seed() -> None:
    request = play_request("♠3 ♥4 ♦5 ♣6 ♠7 ♥8 ♦9 ♣10 ♠J ♥Q ♦K ♣A ♠2 小王")
    choices: dict[int, list[list[str]]] = {}
    for seed in (1, 2):
        agent = RandomAgent("F1", seed=seed)
        choices[seed] = [(await agent.play(request)).cards for _ in range(10)]
    again = RandomAgent("F1", seed=1)
    assert [(await again.play(request)).cards for _ in range(10)] == choices[1]
    assert choices[1] != choices[2]


# ─── greedy ─────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("hand", "last", "expected_ranks"),
    [
        pytest.param("♠3 ♥5 ♦7 ♣9 ♠9 ♥9 ♠K ♥K ♠2", "♠6", [7], id="single"),
        pytest.param("♠3 ♥5 ♦7 ♣9 ♠9 ♥9 ♠K ♥K ♠2", "♠4 ♥4", [9, 9], id="pair"),
        pytest.param("♠5 ♥5 ♦5 ♣5 小王", "♠2", [16], id="joker-before-bomb"),
        pytest.param("♠5 ♥5 ♦5 ♣5 ♠3", "♠2", [5, 5, 5, 5], id="only-a-bomb-beats"),
        pytest.param("♠3 ♥3 ♠9 ♥K", None, [3, 3], id="leads-its-lowest"),
    ],
)
async def test_greedy_plays_the_smallest_move_that_beats(
    hand: str, last: str | None, expected_ranks: list[int]
) -> None:
    reply = await GreedyAgent("F1").play(play_request(hand, last=last))
    assert reply.action == "PLAY"
    assert ranks(reply) == expected_ranks
    assert reply.request_id == "req-1"


async def test_greedy_passes_when_nothing_beats() -> None:
    reply = await GreedyAgent("F1").play(play_request("♠3 ♥5 ♦7 ♠K", last="大王"))
    assert reply.action == "PASS"


# ─── heuristic ──────────────────────────────────────────────────────────────────────────

RAGGED = "♠3 ♥5 ♦7 ♣10 ♠J ♥Q ♠K ♥A ♦2"


async def test_heuristic_does_not_overtake_its_teammate() -> None:
    agent = HeuristicAgent("F1")
    over_teammate = await agent.play(play_request(RAGGED, last="♠9", by="F2"))
    over_landlord = await agent.play(play_request(RAGGED, last="♠9", by="L"))
    assert over_teammate.action == "PASS"
    assert over_landlord.action == "PLAY"  # the same cards do beat the trick


@pytest.mark.parametrize(
    ("hand", "last", "by"),
    [
        pytest.param("♠K", "♠9", "F2", id="single-over-teammate"),
        pytest.param("♠7 ♥7 ♦7 ♣7", "♠9", "F2", id="bomb-over-teammate"),
        pytest.param("♠3 ♥3 ♦3 ♠4", None, "L", id="lead-triple-with-single"),
        pytest.param("♠9 ♥9", "♠5 ♥5", "L", id="pair-over-landlord"),
    ],
)
async def test_heuristic_plays_a_finishing_move(hand: str, last: str | None, by: str) -> None:
    reply = await HeuristicAgent("F1").play(play_request(hand, last=last, by=by))
    assert reply.action == "PLAY"
    assert sorted(reply.cards) == sorted(hand.split())


async def test_heuristic_leads_a_low_single_when_its_teammate_has_one_card() -> None:
    hand = "♠3 ♥3 ♦3 ♣5 ♠5 ♥5 ♦9 ♠9"
    agent = HeuristicAgent("F1")
    feeding = await agent.play(play_request(hand, remaining={"F2": 1}))
    normal = await agent.play(play_request(hand, remaining={"F2": 10}))
    assert feeding.action == "PLAY"
    assert ranks(feeding) == [3]
    assert len(normal.cards) > 1  # without the teammate about to go out, it plays a combo


async def test_heuristic_keeps_its_bomb_until_it_matters() -> None:
    hand = "♠6 ♥6 ♦6 ♣6 ♠8 ♥10 ♠J ♣Q"
    agent = HeuristicAgent("F1")
    early = await agent.play(play_request(hand, last="♠A", by="L", remaining={"L": 15}))
    danger = await agent.play(play_request(hand, last="♠A", by="L", remaining={"L": 2}))
    assert early.action == "PASS"
    assert danger.action == "PLAY"
    assert ranks(danger) == [6, 6, 6, 6]


def bid_request(hand: str) -> BidRequest:
    return BidRequest(
        player_id="F1",
        current_highest_bid=0,
        available_bids=[1, 2, 3, 0],
        hand=hand.split(),
        request_id="b1",
    )


STRONG = "小王 大王 ♠2 ♥2 ♦2 ♠A ♥A ♠K ♠Q ♠J ♠10 ♠9 ♠8 ♠7 ♠6 ♠5 ♠4"
WEAK = "♠3 ♥4 ♦5 ♣6 ♠8 ♥9 ♦10 ♣J ♠Q ♥3 ♦4 ♣7 ♠9 ♥J ♦K ♣8 ♠6"


async def test_heuristic_bids_by_hand_strength() -> None:
    agent = HeuristicAgent("F1")
    assert (await agent.bid(bid_request(STRONG))).bid == 3
    assert (await agent.bid(bid_request(WEAK))).bid == 0


async def test_heuristic_doubles_only_with_a_strong_hand() -> None:
    def request(hand: str) -> DoubleRequest:
        return DoubleRequest(
            player_id="F1",
            kind="double",
            landlord="L",
            call_score=1,
            bottom_cards=["♣3", "♣4", "♣5"],
            hand=hand.split(),
        )

    agent = HeuristicAgent("F1")
    assert (await agent.double(request(STRONG))).double is True
    assert (await agent.double(request(WEAK))).double is False


# ─── registry ───────────────────────────────────────────────────────────────────────────


def test_a_seat_types_dependencies_load_only_when_a_seat_uses_it() -> None:
    """A match of scripted bots never imports the HTTP client: besides start-up time,
    its objects made each full garbage collection, and so each round, slower."""
    probe = (
        "import sys, asyncio\n"
        "from arena.config import parse_config\n"
        "from arena.runner import run_arena\n"
        "import arena.cli, arena.replay\n"
        "config = parse_config({'match': {'rounds': 1}, 'table': {'pace_s': 0.0}})\n"
        "asyncio.run(run_arena(config, seed=1))\n"
        "print(sorted(m for m in ('httpx', 'arena.agents.http', 'arena.agents.process')"
        " if m in sys.modules))\n"
        "from arena.agents import agent_class\n"
        "agent_class('http')\n"
        "print('httpx' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split("\n")[:2] == ["[]", "True"]


def test_builtin_agent_names() -> None:
    """The transports are the arena's, for every game; the scripted agents and the human
    seat the game's."""
    assert set(BUILTIN_AGENTS) == {"subprocess", "http", "openai", "anthropic"}
    ddz = get_game("ddz")
    assert set(ddz.scripted_agents) == {"random", "greedy", "heuristic"}
    assert list(agent_types(ddz)) == [*SCRIPTED, "human", *BUILTIN_AGENTS]
    assert agent_types() == agent_types(ddz)
    assert agent_class("random", ddz) is RandomAgent
    assert agent_class("random") is RandomAgent
    assert agent_class("greedy") is GreedyAgent
    assert agent_class("heuristic") is HeuristicAgent
    assert agent_class("human") is HumanAgent


@pytest.mark.parametrize("kind", SCRIPTED)
def test_create_agent_builds_a_named_agent(kind: str) -> None:
    agent = create_agent(kind, "Alpha", seed=3)
    assert isinstance(agent, Agent)
    assert agent.name == "Alpha"


def test_module_class_path_names_an_agent_class() -> None:
    assert agent_class("agents_for_tests:MinimalAgent") is MinimalAgent
    agent = create_agent("agents_for_tests:FaultyAgent", "Zed", seed=1)
    assert isinstance(agent, FaultyAgent)
    assert agent.name == "Zed"


def test_unknown_agent_type_lists_the_known_names() -> None:
    with pytest.raises(ConfigError) as caught:
        agent_class("alphazero")
    message = str(caught.value)
    assert "'alphazero'" in message
    for name in ("random", "greedy", "heuristic", "human"):
        assert name in message
    assert "module:Class" in message


@pytest.mark.parametrize(
    ("type_name", "words"),
    [
        ("no_such_module_xyz:Agent", ["no_such_module_xyz", "cannot import"]),
        ("agents_for_tests:NoSuchClass", ["NoSuchClass"]),
        ("agents_for_tests:NotAnAgent", ["NotAnAgent", "Agent interface"]),
    ],
)
def test_bad_module_class_paths_are_config_errors(type_name: str, words: list[str]) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent(type_name, "Zed")
    for word in words:
        assert word in str(caught.value)


def test_unknown_agent_options_are_config_errors() -> None:
    with pytest.raises(ConfigError, match="temperature"):
        create_agent("greedy", "Zed", options={"temperature": 0.2})


@pytest.fixture
def plugin_on_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A tiny installed distribution registering PluginBot under the arena's group."""
    dist = tmp_path / "ddz_test_plugin-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: ddz-test-plugin\nVersion: 1.0\n", encoding="utf-8"
    )
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nplugin_bot = agents_for_tests:PluginBot\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return "plugin_bot"


def test_entry_point_agents_are_found(plugin_on_path: str) -> None:
    assert ENTRY_POINT_GROUP == "ddz_arena.agents"
    assert agent_class(plugin_on_path) is PluginBot
    agent = create_agent(plugin_on_path, "Plug")
    assert isinstance(agent, PluginBot)
    with pytest.raises(ConfigError, match=plugin_on_path):
        agent_class("still_unknown")


def test_installed_agent_types_are_read_once_for_all_the_agents_of_a_path(
    plugin_on_path: str,
) -> None:
    """Reading the entry points opens every installed distribution's metadata: once a
    ``sys.path``, not once an agent (30,000 agents at 10,000 tables took minutes)."""
    from arena.agents import registry

    registry._registered_on.cache_clear()
    agents = [create_agent(plugin_on_path, f"Plug{n}") for n in range(50)]
    agents += [create_agent("agents_for_tests:PluginBot", f"Mod{n}") for n in range(50)]
    assert all(isinstance(agent, PluginBot) for agent in agents)
    assert registry._registered_on.cache_info().misses == 1


def test_entry_point_agents_are_absent_without_the_distribution() -> None:
    with pytest.raises(ConfigError):
        agent_class("plugin_bot")


# ─── the human seat ─────────────────────────────────────────────────────────────────────


def scripted_prompt(*answers: str) -> tuple[Callable[[str], Awaitable[str]], list[str]]:
    """An async prompt answering in order; the list records the questions asked."""
    asked: list[str] = []
    pending = list(answers)

    async def prompt(text: str) -> str:
        asked.append(text)
        return pending.pop(0)

    return prompt, asked


async def test_human_bad_input_is_asked_again(capsys: pytest.CaptureFixture[str]) -> None:
    prompt, asked = scripted_prompt("banana", "♠3 ♥9", "3 3 3 4")
    human = HumanAgent("Me", prompt=prompt)
    reply = await human.play(play_request("♠3 ♥3 ♦3 ♣4 ♥9 ♠K", me="F1"))
    assert len(asked) == 3
    assert reply.action == "PLAY"
    assert sorted(reply.cards) == sorted(["♠3", "♥3", "♦3", "♣4"])
    assert reply.hand_type is not None
    assert reply.hand_type.value == "TRIPLE_WITH_SINGLE"
    assert reply.request_id == "req-1"
    out = capsys.readouterr().out
    assert out.count("✗") == 2  # each mistake is explained


async def test_human_pass_when_leading_is_refused() -> None:
    prompt, asked = scripted_prompt("pass", "K")
    reply = await HumanAgent("Me", prompt=prompt).play(play_request("♠3 ♠K"))
    assert len(asked) == 2
    assert reply.cards == ["♠K"]


async def test_human_may_pass_when_following_and_must_beat_otherwise() -> None:
    prompt, asked = scripted_prompt("3", "不出")
    reply = await HumanAgent("Me", prompt=prompt).play(play_request("♠3 ♠K", last="♥10"))
    assert len(asked) == 2  # "3" does not beat a 10
    assert reply.action == "PASS"


@pytest.mark.parametrize(
    ("typed", "expected"),
    [
        ("3 3 3 4", ["♠3", "♥3", "♦3", "♣4"]),
        ("3,3,3,4", ["♠3", "♥3", "♦3", "♣4"]),
        ("s3 3h 3♦ c4", ["♠3", "♥3", "♦3", "♣4"]),
        ("10 j q k a", ["♠10", "♥J", "♦Q", "♣K", "♠A"]),
        ("BJ", ["大王"]),
    ],
)
async def test_human_lenient_tokens(typed: str, expected: list[str]) -> None:
    prompt, asked = scripted_prompt(typed)
    hand = "♠3 ♥3 ♦3 ♣4 ♠10 ♥J ♦Q ♣K ♠A 大王"
    reply = await HumanAgent("Me", prompt=prompt).play(play_request(hand))
    assert len(asked) == 1
    assert sorted(reply.cards) == sorted(expected)


async def test_human_bids_only_allowed_values() -> None:
    prompt, asked = scripted_prompt("lots", "1", "2")
    request = BidRequest(
        player_id="Me",
        current_highest_bid=1,
        available_bids=[2, 3, 0],
        hand=["♠3", "♥4"],
        request_id="b7",
    )
    reply = await HumanAgent("Me", prompt=prompt).bid(request)
    assert len(asked) == 3
    assert reply.bid == 2
    assert reply.request_id == "b7"


@pytest.mark.parametrize("typed", ["pass", "PASS", " p ", "不叫", "不要", "过", "no", ""])
async def test_human_bid_prompt_takes_the_pass_words_as_zero(
    typed: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The move prompt's 'pass' works at the bid prompt too, not "'pass' is not a number"."""
    prompt, asked = scripted_prompt(typed)
    request = BidRequest(
        player_id="Me", current_highest_bid=0, available_bids=[1, 2, 3, 0], hand=["♠3"]
    )
    reply = await HumanAgent("Me", prompt=prompt).bid(request)
    assert reply.bid == 0
    assert len(asked) == 1
    assert "✗" not in capsys.readouterr().out


async def test_human_bid_prompt_explains_a_word_that_is_no_bid(
    capsys: pytest.CaptureFixture[str],
) -> None:
    prompt, asked = scripted_prompt("bid 9", "9", "3")
    request = BidRequest(
        player_id="Me", current_highest_bid=0, available_bids=[1, 2, 3, 0], hand=["♠3"]
    )
    reply = await HumanAgent("Me", prompt=prompt).bid(request)
    assert reply.bid == 3
    assert len(asked) == 3
    out = capsys.readouterr().out
    assert "✗ 'bid 9' is not a bid: type a number or 'pass'" in out
    assert "✗ 9 is not allowed now; allowed: 1/2/3/0" in out


def double_request() -> DoubleRequest:
    return DoubleRequest(
        player_id="Me",
        kind="double",
        landlord="L",
        call_score=2,
        bottom_cards=["♣3", "♣4", "♣5"],
        hand=["♠3"],
    )


@pytest.mark.parametrize(
    ("typed", "expected"),
    [("y", True), ("加倍", True), ("n", False), ("no", False), ("pass", False), ("", False)],
)
async def test_human_double_prompt_reads_yes_and_no_words(typed: str, expected: bool) -> None:
    prompt, asked = scripted_prompt(typed)
    reply = await HumanAgent("Me", prompt=prompt).double(double_request())
    assert reply.double is expected
    assert len(asked) == 1


async def test_human_double_prompt_asks_again_after_a_typo(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A typo is not silently a no: doubling changes the stakes."""
    prompt, asked = scripted_prompt("yse", "yes")
    reply = await HumanAgent("Me", prompt=prompt).double(double_request())
    assert reply.double is True
    assert len(asked) == 2
    assert "✗ 'yse': answer y (yes) or n" in capsys.readouterr().out


async def test_human_agent_is_built_by_the_registry_with_a_prompt() -> None:
    prompt, asked = scripted_prompt("y")
    human = create_agent("human", "Me", options={"prompt": prompt})
    assert isinstance(human, HumanAgent)
    reply = await human.double(
        DoubleRequest(
            player_id="Me",
            kind="double",
            landlord="L",
            call_score=2,
            bottom_cards=["♣3", "♣4", "♣5"],
            hand=["♠3"],
        )
    )
    assert reply.double is True
    assert asked
    assert "double" in asked[0]


@pytest.mark.parametrize(
    ("mode", "offered", "expected"),
    [("call_score", [0, 1, 2, 3], 0), ("grab", [1, 0], 0), ("fixed_landlord", [3, 2, 1], 1)],
)
async def test_base_agent_passes_where_it_may_and_bids_lowest_where_it_must(
    mode: str, offered: list[int], expected: int
) -> None:
    class PlaysOnly(BaseAgent):
        async def play(self, request: Any) -> Any:
            raise NotImplementedError

    request = BidRequest(
        player_id="P", current_highest_bid=0, available_bids=offered, mode=mode, request_id="r"
    )
    reply = await PlaysOnly("P").bid(request)
    assert (reply.bid, reply.request_id) == (expected, "r")
    assert reply.bid in offered
