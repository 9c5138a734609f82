"""Model seats on stage (issue 27): each decision's strategy hint and reasoning summary
go to the delayed spectator feed as a ``thought`` item, never to the public side.

Real tables play real rounds: a model seat (the openai SDK against the loopback fake
provider, which returns ``reasoning_content`` as DeepSeek does) beside scripted seats,
the spectator feed on a hand-driven clock, the overlay hub as a public sink and as the
feed's output.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fake_providers import (
    FakeOpenAI,
    RecordedRequest,
    Reply,
    answer,
    legal_answer,
    request_in,
    shared_clients,  # noqa: F401 (an autouse fixture)
)

from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.registry import create_agent
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.messages import PlayRequest, PlayResponse
from arena.secrets import register_secret
from arena.server.hub import OverlayHub, Subscription
from arena.sinks.base import CollectingSink
from arena.sinks.spectator import CollectingSpectatorOutput, SpectatorFeed
from arena.sinks.thoughts import THOUGHT_CHARS, reasoning_summary
from arena.table import Table, play_match
from arena.table.clock import ManualClock
from arena.table.moderation import Moderator

KEY = "sk-thoughts-test-0123456789"
KEY_ENV = "ARENA_TEST_THOUGHTS_KEY"
DELAY = 30.0
HINT = "先出小牌, keep the 2s"
REASONING = (
    "I hold a long hand and the landlord has few cards left. "
    "Passing keeps my pairs for later. "
    "The safest move is the lowest single, so that my partner can take the lead."
)


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv(KEY_ENV, KEY)
    return KEY_ENV


def thinking_model(*, hint: str | None = HINT, reasoning: str | None = REASONING) -> Any:
    """A ``respond`` function: a legal decision with ``hint``, and ``reasoning``."""

    def respond(recorded: RecordedRequest) -> Reply:
        decision = legal_answer(request_in(recorded))
        if hint is not None:
            decision["strategy_hint"] = hint
        return answer(recorded, decision, reasoning=reasoning)

    return respond


class HintingAgent(GreedyAgent):
    """A scripted player that says what it means to do (a hint, no reasoning)."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        reply = await super().play(request)
        return reply.model_copy(update={"strategy_hint": "<b>clear</b> the small ones"})


class Stage:
    """One table of a model seat (seat 0, "GPT") and two scripted seats, the feed on a
    hand-driven clock with the hub and a collector as its outputs."""

    def __init__(self, provider: FakeOpenAI, *, moderator: Moderator | None = None) -> None:
        self.clock = ManualClock()
        self.out = CollectingSpectatorOutput()
        self.hub = OverlayHub(run_id="run-1")
        self.public_page = self.hub.subscribe("public", "t1")
        self.spectator_page = self.hub.subscribe("spectator", "t1")
        self.public = CollectingSink()
        self.feed = SpectatorFeed(
            [self.hub, self.out],
            delay_s=DELAY,
            clock=self.clock,
            wall=lambda: 1_700_000_000.0 + self.clock.now(),
            moderator=moderator,
        )
        model = OpenAIAgent(
            "GPT",
            model="gpt-test",
            base_url=provider.base_url,
            api_key_env=KEY_ENV,
            structured="none",
        )
        self.table = Table(
            [model, create_agent("greedy", "Beta", seed=1), create_agent("heuristic", "C", seed=2)],
            table_id="t1",
            sinks=[self.hub, self.public],
            recorder=self.feed.for_table("t1"),
        )

    async def play_round(self) -> None:
        await self.table.open()
        try:
            await play_match(self.table, rounds=1, seed=11)
        finally:
            await self.table.close()

    async def release(self) -> None:
        """Let the delay pass, then hand out what is due."""
        self.clock.advance(DELAY)
        await self.feed.pump()
        await self.feed.close()

    async def public_texts(self) -> str:
        """Everything the public side holds: events, the public page's messages, and the
        public snapshot a late page would get."""
        events = json.dumps([e.to_dict() for e in self.public.events], ensure_ascii=False)
        sent = await drain(self.public_page)
        snapshot = self.hub.picture(self.hub.subscribe("public", "t1"))
        return "\n".join([events, *sent, *snapshot])

    def thoughts(self) -> list[dict[str, Any]]:
        return self.out.of_kind("thought")


async def drain(page: Subscription) -> list[str]:
    """Every message waiting for a page."""
    return [await page.next() for _ in range(page.pending())]


@pytest.fixture
def provider(key_env: str) -> Iterator[FakeOpenAI]:
    with FakeOpenAI(api_key=KEY, respond=thinking_model()) as fake:
        yield fake


async def test_hint_and_reasoning_reach_the_spectator_feed_only_after_the_delay(
    provider: FakeOpenAI,
) -> None:
    stage = Stage(provider)
    await stage.play_round()
    assert stage.feed.pending > 0
    assert await stage.feed.pump() == 0  # the delay has not passed: nothing is out
    assert stage.out.items == []

    await stage.release()
    thoughts = stage.thoughts()
    decisions = [e for e in stage.public.of_type("decision") if e.seat == 0]
    assert len(thoughts) == len(decisions) > 0  # one per decision of the model seat
    for thought in thoughts:
        assert thought["seat"] == 0
        assert thought["player"] == "GPT"
        assert thought["hint"] == HINT
        assert thought["reasoning"] == REASONING  # short: whole
        assert thought["request"] in {"BID_REQUEST", "DOUBLE_REQUEST", "PLAY_REQUEST"}
        assert thought["released_at"] - thought["at"] >= DELAY * 1000
    # each thought comes right after the event of the action it explains
    items = stage.out.items
    for index, item in enumerate(items):
        if item["kind"] == "thought":
            before = items[index - 1]
            assert before["kind"] == "event"
            assert before["event"]["seat"] == 0
            assert before["event"]["type"] == item["action"]
            assert item["after_seq"] == before["event"]["seq"]
    assert "bid" in {t["action"] for t in thoughts}

    # never on the public side: events, public page, public snapshot
    public = await stage.public_texts()
    assert "my partner can take the lead" not in public
    assert '"thought"' not in public
    # the delayed page got each item, and its snapshot keeps the seat's last thought
    sent = [json.loads(text) for text in await drain(stage.spectator_page)]
    assert [m["item"]["kind"] for m in sent if m["type"] == "spectator"].count("thought") == len(
        thoughts
    )
    [snapshot] = [
        json.loads(text)
        for text in stage.hub.picture(stage.hub.subscribe("spectator", "t1"))
        if json.loads(text)["type"] == "snapshot"
    ]
    assert [t["seat"] for t in snapshot["thoughts"]] == [0]
    assert snapshot["thoughts"][0]["reasoning"] == REASONING


async def test_a_key_echoed_in_the_reasoning_never_reaches_the_feed(provider: FakeOpenAI) -> None:
    stray = "sk-proj-StrayKey0123456789abcdef"  # shaped like a key, never registered
    leaky = f"{'Thinking it over. ' * 30}The key is {KEY} and also {stray}; play low."
    provider.respond = thinking_model(hint=f"my key: {stray}", reasoning=leaky)
    stage = Stage(provider)
    await stage.play_round()
    await stage.release()
    thoughts = stage.thoughts()
    assert thoughts
    assert KEY not in json.dumps(stage.out.items)  # a registered key: nowhere in the feed
    assert "StrayKey" not in json.dumps(thoughts)  # one shaped like a key: not in thoughts
    for thought in thoughts:
        assert thought["reasoning"].endswith("play low.")
        assert "***" in thought["reasoning"]
        assert len(thought["reasoning"]) <= THOUGHT_CHARS + 1
        assert "StrayKey" not in thought["hint"]


async def test_the_reasoning_passes_the_moderator_its_hook_too(provider: FakeOpenAI) -> None:
    async def hook(text: str, *, seat: int, player: str) -> str:
        return f"[{player}] {text}"

    provider.respond = thinking_model(reasoning="Play the fribble now.")
    stage = Stage(provider, moderator=Moderator(["fribble"], hook=hook))
    await stage.play_round()
    await stage.release()  # close waits for the hook's thoughts
    thoughts = stage.thoughts()
    assert thoughts
    assert {t["reasoning"] for t in thoughts} == {"[GPT] Play the *** now."}


async def test_a_seat_without_reasoning_gets_its_hint_alone(provider: FakeOpenAI) -> None:
    provider.respond = thinking_model(reasoning=None)
    stage = Stage(provider)
    await stage.play_round()
    await stage.release()
    thoughts = stage.thoughts()
    assert thoughts
    assert all(t["hint"] == HINT and t["reasoning"] is None for t in thoughts)


async def test_a_model_seat_with_neither_says_nothing(provider: FakeOpenAI) -> None:
    provider.respond = thinking_model(hint=None, reasoning=None)
    stage = Stage(provider)
    await stage.play_round()
    await stage.release()
    assert stage.out.of_kind("event")
    assert stage.thoughts() == []


async def test_scripted_seats_have_no_thoughts_unless_they_hint() -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput()
    feed = SpectatorFeed([out], delay_s=DELAY, clock=clock)
    agents = [
        HintingAgent("Hinter", seed=0),
        create_agent("greedy", "B", seed=1),
        create_agent("heuristic", "C", seed=2),
    ]
    table = Table(agents, table_id="t1", recorder=feed.for_table("t1"))
    await play_match(table, rounds=1, seed=11)
    clock.advance(DELAY)
    await feed.pump()
    thoughts = out.of_kind("thought")
    assert thoughts  # the hinting seat's plays
    assert {t["seat"] for t in thoughts} == {0}
    assert all(t["hint"] == "<b>clear</b> the small ones" for t in thoughts)
    assert all(t["reasoning"] is None for t in thoughts)


# --- the summary ------------------------------------------------------------------------


@pytest.mark.parametrize("empty", [None, "", "   \n ", 42])
def test_no_reasoning_no_summary(empty: object) -> None:
    assert reasoning_summary(empty) is None


def test_a_short_reasoning_is_whole_with_its_white_space_folded() -> None:
    assert reasoning_summary("Lead low.\n\n  Keep the bomb.") == "Lead low. Keep the bomb."


def test_a_long_reasoning_keeps_its_last_sentences_from_a_sentence_start() -> None:
    text = " ".join(f"Step {n} looks at the cards again." for n in range(40)) + " So: pass."
    summary = reasoning_summary(text)
    assert summary is not None
    assert summary.startswith("…Step ")
    assert summary.endswith("So: pass.")
    assert len(summary) <= THOUGHT_CHARS + 1


def test_a_long_reasoning_without_sentences_starts_at_a_word() -> None:
    text = " ".join(["word"] * 200) + " 出对子"
    summary = reasoning_summary(text)
    assert summary is not None
    assert summary.startswith("…word ")
    assert summary.endswith("出对子")


def test_a_secret_across_the_cut_is_masked_whole_not_half_shown() -> None:
    secret = "Zq7vTokenValue9981"
    register_secret(secret, "TEST_SECRET")
    tail = "x" * (THOUGHT_CHARS - 9)
    summary = reasoning_summary(f"{'a' * 300} {secret}{tail}")
    assert summary is not None
    assert secret[9:] not in summary  # the half the cut would have kept


@pytest.mark.parametrize("filler", [lambda n: "好" * n, lambda n: "a" * n])
def test_a_summary_is_never_longer_than_its_limit(filler: Callable[[int], str]) -> None:
    summary = reasoning_summary(filler(5000))
    assert summary is not None
    assert len(summary) <= THOUGHT_CHARS + 1
