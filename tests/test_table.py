"""The table: deadlines, rejections and retries, fallbacks, stand-ins, auto-pass, hidden
information, the order of events, scores, concurrency and pacing.

Specification: the issue's table orchestrator ("every decision has a deadline", "a late,
malformed or illegal reply is answered with REPLY_REJECTED ... and asked again", "after a
configured number of failed decisions in a row the seat is handed to a scripted
stand-in", "no message ever carries another player's hidden cards") and
docs/protocol.md "Timeouts, rejections and retries". Fakes are :class:`FakeAgent`s whose
hooks script exactly the replies a test needs; deals are prepared so that each situation
arises on purpose.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import itertools
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from agents_for_tests import FakeAgent, cards_in, ddz_turns, make_deal, pass_reply, play_cards
from rich.console import Console

from arena.config import parse_config
from arena.errors import AgentReplyError, ReplyFault
from arena.events import Event
from arena.games.ddz.agents.reading import legal_for
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.games.ddz.engine import Phase, Round, Rules, card, classify, legal_moves
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    BottomCards,
    Deal,
    DoubleRequest,
    PlayRequest,
    RoundResult,
    parse_message,
)
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.console import LiveConsoleSink, PlainConsoleSink
from arena.table import Table, TableSettings, play_match
from arena.table.clock import ManualClock
from protocol import MatchEnd, Message, to_json

CASUAL = Rules(scoring="casual")  # no doubling phase: with a fixed landlord, play starts at once
ACTIONS = ("bid", "double", "play", "pass")

# Seat 0 will be landlord. Seat 1 can beat a K (♠A, 小王) but nobody can beat 大王.
DEAL = make_deal(seat0="♠3 ♠K ♥K 大王", seat1="♥3 ♠A 小王", seat2="♦3")


def test_the_prepared_deal_is_what_the_tests_assume() -> None:
    big_joker = classify(["大王"])
    for seat in (1, 2):
        assert legal_moves(DEAL.hands[seat], big_joker) == [], f"seat {seat} could beat 大王"
    assert legal_moves(DEAL.hands[1], classify(["♠K"]))


def seat_table(
    *agents: Any,
    rules: Rules = CASUAL,
    timeouts: list[float | None] | None = None,
    sinks: list[Any] | None = None,
    **settings: Any,
) -> tuple[Table, CollectingSink]:
    sink = CollectingSink()
    table = Table(
        list(agents),
        rules=rules,
        settings=TableSettings(**settings),
        sinks=[sink, *(sinks or [])],
        timeouts=timeouts,
    )
    return table, sink


async def landlord_round(table: Table, round_no: int = 1) -> Any:
    """Seat 0 is landlord at 1 with DEAL: no bidding, and seat 0 asked first to lead."""
    return await table.play_round(round_no, seed=round_no, deal=DEAL, landlord=0, call_score=1)


def lead(*cards: str) -> Any:
    """A hook: lead these cards on the first play request, then play normally."""
    return lambda request, n: play_cards(request, *cards) if n == 1 else None


def failing(*calls: int, exc: BaseException | None = None) -> Any:
    """A hook raising on the given call numbers (all calls when none given)."""

    def hook(request: Any, n: int) -> None:
        if not calls or n in calls:
            raise exc or RuntimeError(f"agent crashed on call {n}")

    return hook


# ─── deadlines ──────────────────────────────────────────────────────────────────────────


async def test_a_late_reply_is_rejected_and_asked_again() -> None:
    async def late_once(request: PlayRequest, n: int) -> None:
        if n == 1:
            await asyncio.sleep(1)  # cancelled at the 0.3 s deadline

    slow = FakeAgent("Slow", play=late_once)
    table, sink = seat_table(slow, FakeAgent("B"), FakeAgent("C"), timeouts=[0.3, None, None])
    record = await landlord_round(table)

    assert table.faults("Slow").timeout == 1
    assert table.faults("Slow").total == 1  # no fallback: the second try was used
    [rejection] = slow.rejections
    assert (rejection.reason, rejection.request_type, rejection.retries_left) == (
        "timeout",
        "PLAY_REQUEST",
        2,
    )
    asked = [i for i, m in enumerate(slow.received) if isinstance(m, PlayRequest)]
    first, second = slow.received[asked[0]], slow.received[asked[1]]
    assert isinstance(first, PlayRequest)
    assert isinstance(second, PlayRequest)
    assert first.request_id == second.request_id == rejection.request_id
    assert asked[0] < slow.received.index(rejection) < asked[1]
    assert first.time_limit_ms == 300  # the seat's own deadline is announced
    assert [e.data["category"] for e in sink.of_type("fault")] == ["timeout"]
    first_play = sink.of_type("play")[0]
    assert (first_play.seat, first_play.data["fallback"]) == (0, False)
    assert record.faults[0]["timeout"] == 1


async def test_retries_left_counts_down_then_the_table_falls_back() -> None:
    async def late_first_decision(request: PlayRequest, n: int) -> None:
        if n <= 3:
            await asyncio.sleep(1)

    slow = FakeAgent("Slow", play=late_first_decision)
    table, sink = seat_table(slow, FakeAgent("B"), FakeAgent("C"), timeouts=[0.3, None, None])
    await landlord_round(table)

    assert [r.retries_left for r in slow.rejections] == [2, 1, 0]
    assert len({r.request_id for r in slow.rejections}) == 1
    assert table.faults("Slow").timeout == 3
    assert table.faults("Slow").fallback == 1
    first_play = sink.of_type("play")[0]
    assert first_play.seat == 0
    assert first_play.data["fallback"] is True
    assert first_play.data["cards"] == ["♠3"]  # the smallest legal lead


# ─── unusable replies ───────────────────────────────────────────────────────────────────


async def test_cards_not_in_the_hand_are_illegal() -> None:
    cheat = FakeAgent("Cheat", play=lead("大王", "小王"))  # 小王 is seat 1's
    table, _ = seat_table(cheat, FakeAgent("B"), FakeAgent("C"))
    await landlord_round(table)

    assert table.faults("Cheat").illegal == 1
    assert table.faults("Cheat").fallback == 0
    [rejection] = cheat.rejections
    assert rejection.reason == "illegal"
    assert rejection.retries_left == 2
    assert "小王" in rejection.detail  # the rejection names the token
    requests = cheat.of_type(PlayRequest)
    assert requests[0].request_id == requests[1].request_id


async def test_a_play_that_does_not_beat_the_trick_is_illegal() -> None:
    low = FakeAgent("Low", play=lead("♥3"))
    table, sink = seat_table(FakeAgent("A", play=lead("♠K")), low, FakeAgent("C"))
    await landlord_round(table)

    assert table.faults("Low").illegal == 1
    [rejection] = low.rejections
    assert (rejection.reason, rejection.retries_left) == ("illegal", 2)
    follow = low.of_type(PlayRequest)[:2]
    assert follow[0].last_play is not None
    assert follow[0].last_play.cards == ["♠K"]
    assert follow[0].request_id == follow[1].request_id
    seat1_first = next(e for e in sink.of_type("play", "pass") if e.seat == 1)
    assert seat1_first.data.get("fallback") is False


async def test_pass_when_leading_is_illegal() -> None:
    lazy = FakeAgent("Lazy", play=lambda r, n: pass_reply(r) if n == 1 else None)
    table, _ = seat_table(lazy, FakeAgent("B"), FakeAgent("C"))
    await landlord_round(table)

    assert table.faults("Lazy").illegal == 1
    assert lazy.rejections[0].reason == "illegal"


async def test_a_bid_that_is_not_offered_is_illegal() -> None:
    opener = FakeAgent(
        "A", bid=lambda r, n: BidResponse(player_id=r.player_id, bid=2, request_id=r.request_id)
    )
    under = FakeAgent(
        "B", bid=lambda r, n: BidResponse(player_id=r.player_id, bid=1, request_id=r.request_id)
    )
    table, sink = seat_table(opener, under, FakeAgent("C"), rules=Rules())
    await table.play_round(1, seed=3, first_bidder=0)

    assert table.faults("B").illegal == 3  # it insists: every try is refused
    assert table.faults("B").fallback == 1
    assert {r.request_type for r in under.rejections} == {"BID_REQUEST"}
    b_bid = next(e for e in sink.of_type("bid") if e.seat == 1)
    assert (b_bid.data["bid"], b_bid.data["fallback"]) == (0, True)


async def test_a_reply_of_the_wrong_kind_is_malformed() -> None:
    confused = FakeAgent(
        "Confused",
        play=lambda r, n: (
            BidResponse(player_id=r.player_id, bid=0, request_id=r.request_id) if n == 1 else None
        ),
    )
    table, _ = seat_table(confused, FakeAgent("B"), FakeAgent("C"))
    await landlord_round(table)
    assert table.faults("Confused").unparsable == 1
    [rejection] = confused.rejections
    assert rejection.reason == "unparsable"
    assert "expected a PLAY_RESPONSE, got a BID_RESPONSE" in rejection.detail


@pytest.mark.parametrize("category", ["empty", "unparsable", "truncated"])
async def test_reply_errors_are_counted_by_category(category: ReplyFault) -> None:
    broken = FakeAgent(
        "Broken", play=failing(1, exc=AgentReplyError(category, "the model said nothing useful"))
    )
    table, sink = seat_table(broken, FakeAgent("B"), FakeAgent("C"))
    await landlord_round(table)

    faults = table.faults("Broken")
    assert getattr(faults, category) == 1
    assert faults.total == 1
    [rejection] = broken.rejections
    assert rejection.reason == category
    assert rejection.retries_left == 2
    assert [e.data["category"] for e in sink.of_type("fault")] == [category]


@pytest.mark.parametrize(
    "exc",
    [RuntimeError("bug in the agent"), ConnectionError("socket closed")],
    ids=lambda e: type(e).__name__,
)
async def test_an_agent_that_raises_does_not_stop_the_table(exc: Exception) -> None:
    crashing = FakeAgent("Crash", play=failing(exc=exc))
    table, sink = seat_table(crashing, FakeAgent("B"), FakeAgent("C"))
    record = await landlord_round(table)

    assert record.result is not None
    assert sink.of_type("round_result")
    faults = table.faults("Crash")
    assert faults.agent_error == 9  # 3 decisions x (1 + 2 retries) before the stand-in
    assert faults.fallback == 3
    assert all(r.reason == "agent_error" for r in crashing.rejections)
    assert type(exc).__name__ in crashing.rejections[0].detail


async def test_failing_notify_and_close_do_not_stop_the_table() -> None:
    def boom(*_: Any) -> None:
        raise ConnectionError("gone")

    deaf = FakeAgent("Deaf", notify=boom, close=boom)
    other = FakeAgent("B")
    table, _ = seat_table(deaf, other, FakeAgent("C"))
    record = await landlord_round(table)
    await table.close()

    assert record.result is not None
    assert table.faults("Deaf").total == 0
    assert deaf.closed
    assert other.closed


async def test_an_agent_slow_to_take_notifications_holds_the_table_briefly(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """An HTTP server that answers only requests: each notification is waited for
    notify_timeout_s, not the seat's 30 s deadline, and each wait is named."""

    async def never(*_: Any) -> None:
        await asyncio.sleep(3600)

    deaf = FakeAgent("Deaf", notify=never)
    table, sink = seat_table(deaf, FakeAgent("B"), FakeAgent("C"), notify_timeout_s=0.05)
    started = time.monotonic()
    async with asyncio.timeout(20):  # a 30 s deadline per notification would fail here
        record = await landlord_round(table)
    assert record.result is not None
    assert time.monotonic() - started < 15
    assert table.faults("Deaf").total == 0
    assert sink.of_type("round_result")
    waited = [r for r in caplog.records if "agent_notify_timed_out" in r.getMessage()]
    assert waited  # DEAL and ROUND_RESULT at least
    assert "DEAL" in waited[0].getMessage()  # the message is named


async def test_agents_close_together_and_get_longer_than_a_short_decision_deadline(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A program asked to exit may take a moment: a 0.1 s decision deadline must not cut
    its close short, and the three closes run at once, not one after another."""
    steps: list[str] = []

    def slow_close(name: str) -> Callable[[], Awaitable[None]]:
        async def close() -> None:
            steps.append(f"{name} starts")
            await asyncio.sleep(0.4)
            steps.append(f"{name} ends")

        return close

    agents = [FakeAgent(n, close=slow_close(n)) for n in ("A", "B", "C")]
    table, _ = seat_table(*agents, timeouts=[0.1, 0.1, 0.1])
    await table.close()

    assert steps[:3] == ["A starts", "B starts", "C starts"]
    assert sorted(steps[3:]) == ["A ends", "B ends", "C ends"]
    assert "agent_close_timed_out" not in caplog.text


# ─── fallbacks and stand-ins ────────────────────────────────────────────────────────────


async def test_fallback_when_following_is_a_pass() -> None:
    follower = FakeAgent("F", play=failing(1, 2))
    table, sink = seat_table(
        FakeAgent("A", play=lead("♠3")), follower, FakeAgent("C"), max_retries=1
    )
    await landlord_round(table)

    assert [r.retries_left for r in follower.rejections] == [1, 0]
    faults = table.faults("F")
    assert (faults.agent_error, faults.fallback) == (2, 1)
    first = next(e for e in sink.of_type("play", "pass") if e.seat == 1)
    assert first.type == "pass"
    assert first.data["fallback"] is True
    assert first.data["auto"] is False


async def test_fallback_when_leading_is_the_smallest_single() -> None:
    leader = FakeAgent("L", play=failing(1, 2))
    table, sink = seat_table(leader, FakeAgent("B"), FakeAgent("C"), max_retries=1)
    await landlord_round(table)

    hand = [*DEAL.hands[0], *DEAL.bottom]
    first = sink.of_type("play")[0]
    assert (first.seat, first.data["fallback"], first.data["hand_type"]) == (0, True, "SINGLE")
    [played] = first.data["cards"]
    assert card(played).rank == min(c.rank for c in hand)
    assert table.faults("L").fallback == 1


async def test_fallback_bid_is_a_pass_and_fallback_double_is_no() -> None:
    table, sink = seat_table(
        FakeAgent("A", bid=failing()),
        FakeAgent("B", double=failing()),
        FakeAgent("C"),
        rules=Rules(),
        max_retries=0,
    )
    await table.play_round(1, seed=2, first_bidder=0)
    a_bid = next(e for e in sink.of_type("bid") if e.seat == 0)
    assert (a_bid.data["bid"], a_bid.data["fallback"]) == (0, True)
    [landlord] = sink.of_type("landlord_chosen")
    assert landlord.seat != 1  # so B is a farmer and asked to double
    [b_double] = [e for e in sink.of_type("double") if e.seat == 1]
    assert (b_double.data["double"], b_double.data["fallback"]) == (False, True)
    assert table.faults("A").fallback >= 1


async def test_a_stand_in_takes_over_after_failures_in_a_row() -> None:
    crashing = FakeAgent("Crash", play=failing())
    table, sink = seat_table(
        crashing, FakeAgent("B"), FakeAgent("C"), max_retries=0, max_failed_decisions=2
    )
    record = await landlord_round(table, 1)

    assert crashing.calls["play"] == 2  # then the stand-in decided for the seat
    [replaced] = sink.of_type("seat_replaced")
    assert (replaced.seat, replaced.player, replaced.data["by"]) == (0, "Crash", "heuristic")
    after = [e for e in sink.events[sink.events.index(replaced) :] if e.type == "play"]
    assert all(not e.data["fallback"] for e in after if e.seat == 0)
    assert record.standins == (0,)
    assert (record.faults[0]["agent_error"], record.faults[0]["fallback"]) == (2, 2)

    record2 = await landlord_round(table, 2)
    assert crashing.calls["play"] == 4  # asked again in the next round
    assert len(sink.of_type("seat_replaced")) == 2
    assert record2.standins == (0,)


async def test_only_failures_in_a_row_count_for_the_stand_in() -> None:
    flaky = FakeAgent("Flaky", play=lambda r, n: failing()(r, n) if n % 2 else None)
    table, sink = seat_table(
        flaky, FakeAgent("B"), FakeAgent("C"), max_retries=0, max_failed_decisions=2
    )
    record = await landlord_round(table)
    assert table.faults("Flaky").fallback >= 2
    assert sink.of_type("seat_replaced") == []
    assert record.standins == ()


async def test_a_replaced_agent_still_hears_how_the_round_and_match_end() -> None:
    """docs/protocol.md: ROUND_RESULT and MATCH_END go "to everyone"."""
    crashing = FakeAgent("Crash", play=failing())
    table, sink = seat_table(
        crashing, FakeAgent("B"), FakeAgent("C"), max_retries=0, max_failed_decisions=1
    )
    await play_match(table, rounds=1, seed=5)
    assert sink.of_type("seat_replaced")
    assert len(crashing.of_type(RoundResult)) == 1
    assert len(crashing.of_type(MatchEnd)) == 1


# ─── auto-pass ──────────────────────────────────────────────────────────────────────────


async def test_a_player_who_cannot_beat_is_not_asked() -> None:
    b, c = FakeAgent("B"), FakeAgent("C")
    table, sink = seat_table(FakeAgent("A", play=lead("大王")), b, c)
    await landlord_round(table)

    events = sink.events
    joker = next(e for e in events if e.type == "play" and e.data["cards"] == ["大王"])
    start = events.index(joker)
    following = [(e.type, e.seat) for e in events[start + 1 : start + 4]]
    assert following == [("pass", 1), ("pass", 2), ("trick_won", 0)]
    assert all(e.data["auto"] is True for e in events[start + 1 : start + 3])
    for agent in (b, c):
        asked = agent.of_type(PlayRequest)
        assert not any(r.last_play and r.last_play.cards == ["大王"] for r in asked)


async def test_without_auto_pass_the_player_is_asked() -> None:
    b = FakeAgent("B")
    table, sink = seat_table(FakeAgent("A", play=lead("大王")), b, FakeAgent("C"), auto_pass=False)
    await landlord_round(table)

    asked = [r for r in b.of_type(PlayRequest) if r.last_play and r.last_play.cards == ["大王"]]
    assert len(asked) == 1
    b_pass = next(e for e in sink.of_type("pass") if e.seat == 1)
    assert b_pass.data["auto"] is False


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_with_auto_pass_every_follow_request_has_a_legal_move(seed: int) -> None:
    agents = [FakeAgent(n, inner=RandomAgent(n, seed=seed + i)) for i, n in enumerate("XYZ")]
    table, sink = seat_table(*agents, rules=Rules())
    await play_match(table, rounds=2, seed=seed)
    follows = [r for a in agents for r in a.of_type(PlayRequest) if not r.is_free_play]
    assert follows
    assert all(legal_for(r) for r in follows)
    assert any(e.data.get("auto") for e in sink.of_type("pass"))


# ─── hidden information ─────────────────────────────────────────────────────────────────


def spy_on(table: Table, agents: list[FakeAgent]) -> list[tuple[int, Message, dict[str, Any]]]:
    """Record each message an agent hears with the true state of the round at that moment."""
    heard: list[tuple[int, Message, dict[str, Any]]] = []
    for seat, agent in enumerate(agents):

        def observe(message: Message, seat: int = seat) -> None:
            rnd = ddz_turns(table).round
            assert rnd is not None
            heard.append((seat, message, truth(rnd)))

        agent.observe = observe
    return heard


def truth(rnd: Round) -> dict[str, Any]:
    return {
        "hands": [{c.text for c in hand} for hand in rnd.hands],
        "bottom": {c.text for c in rnd.bottom},
        "landlord_known": rnd.landlord is not None,
        "played": {c.text for c in rnd.played},
        "finished": rnd.phase is Phase.FINISHED,
    }


@pytest.mark.parametrize(
    "rules", [Rules(), Rules(bidding="grab"), CASUAL], ids=["competition", "grab", "casual"]
)
@pytest.mark.parametrize("seed", [1, 2, 3, 4])
async def test_no_message_carries_another_players_cards(seed: int, rules: Rules) -> None:
    agents = [FakeAgent(n, inner=RandomAgent(n, seed=seed * 3 + i)) for i, n in enumerate("XYZ")]
    table, _ = seat_table(*agents, rules=rules)
    heard = spy_on(table, agents)
    await play_match(table, rounds=2, seed=seed)

    kinds = set()
    for seat, message, state in heard:
        kinds.add(message.type)
        if isinstance(message, RoundResult | MatchEnd):
            continue  # the round is over: final hands are public
        own = state["hands"][seat]
        others = set().union(*(h for i, h in enumerate(state["hands"]) if i != seat))
        public = state["bottom"] if state["landlord_known"] else set()
        shown = cards_in(message)
        assert not (shown - public) & others, (seat, message.type, (shown - public) & others)
        if not state["landlord_known"]:
            assert not shown & state["bottom"], (seat, message.type, "bottom cards too early")
        if isinstance(message, Deal | BidRequest | DoubleRequest | PlayRequest):
            assert set(message.hand or []) == own, (seat, message.type)
        if isinstance(message, BottomCards):
            assert state["landlord_known"]
    assert {"DEAL", "BID_REQUEST", "BOTTOM_CARDS", "PLAY_REQUEST", "ROUND_RESULT"} <= kinds


class SnapshotSink:
    """Keeps each event with the true state of the round when it was emitted."""

    def __init__(self, table_ref: list[Table]) -> None:
        self._table = table_ref
        self.seen: list[tuple[Event, dict[str, Any]]] = []

    async def emit(self, event: Event) -> None:
        rnd = ddz_turns(self._table[0]).round
        self.seen.append((event, truth(rnd) if rnd is not None else {}))

    async def close(self) -> None:
        pass


def assert_events_hide_the_hands(seen: list[tuple[Event, dict[str, Any]]]) -> None:
    for event, state in seen:
        if event.type in ("round_result", "match_ended") or not state:
            continue
        assert not {"hand", "hands", "final_hands", "deal"} & set(event.data), event
        public = state["played"] | (state["bottom"] if state["landlord_known"] else set())
        hidden = cards_in(dict(event.data)) - public
        assert not hidden, f"{event.type} event shows unplayed cards {hidden}: {event.data}"


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_public_events_never_show_a_hand_before_the_result(seed: int) -> None:
    ref: list[Table] = []
    snap = SnapshotSink(ref)
    agents = [RandomAgent(n, seed=seed + i) for i, n in enumerate("XYZ")]
    table, _ = seat_table(*agents, rules=Rules(), sinks=[snap])
    ref.append(table)
    await play_match(table, rounds=2, seed=seed)
    assert any(e.type == "play" for e, _ in snap.seen)
    assert_events_hide_the_hands(snap.seen)


async def test_a_fault_event_does_not_reveal_the_cards_of_the_hand() -> None:
    """A rejected reply made of the agent's own cards must not publish them."""
    ref: list[Table] = []
    snap = SnapshotSink(ref)
    clumsy = FakeAgent("Clumsy", play=lead("♠3", "♠K"))  # two of its own cards, no combination
    table, sink = seat_table(clumsy, FakeAgent("B"), FakeAgent("C"), sinks=[snap])
    ref.append(table)
    await landlord_round(table)
    assert sink.of_type("fault")
    assert_events_hide_the_hands(snap.seen)


async def test_every_message_sent_is_a_valid_wire_message() -> None:
    agents = [FakeAgent(n, inner=RandomAgent(n, seed=i)) for i, n in enumerate("XYZ")]
    agents[0] = FakeAgent("X", play=failing(1))  # a REPLY_REJECTED is among them
    table, _ = seat_table(*agents, rules=Rules(bidding="grab"))
    await play_match(table, rounds=2, seed=9)
    kinds = set()
    for agent in agents:
        for message in agent.received:
            kinds.add(message.type)
            assert parse_message(to_json(message)) == message
    assert "REPLY_REJECTED" in kinds
    assert "MATCH_END" in kinds


# ─── events and scores ──────────────────────────────────────────────────────────────────

LETTERS = {
    "round_started": "S",
    "redeal": "R",
    "turn_started": "T",
    "bid": "B",
    "landlord_chosen": "L",
    "double": "D",
    "play": "P",
    "pass": "A",
    "trick_won": "W",
    "fault": "F",
    "seat_replaced": "X",
    "round_result": "E",
}


@pytest.mark.parametrize(
    ("rules", "shape"),
    [
        (Rules(), r"S[RTFXB]*BL[TFXD]*D[TFXPAW]*PE"),
        (Rules(bidding="grab"), r"S[RTFXB]*BL[TFXD]*D[TFXPAW]*PE"),
        (CASUAL, r"S[RTFXB]*BL[TFXPAW]*PE"),
    ],
    ids=["competition", "grab", "casual"],
)
@pytest.mark.parametrize("seed", [1, 2])
async def test_events_come_in_round_order(seed: int, rules: Rules, shape: str) -> None:
    agents = [GreedyAgent("X"), RandomAgent("Y", seed=seed), GreedyAgent("Z")]
    table, sink = seat_table(*agents, rules=rules)
    await play_match(table, rounds=3, seed=seed)

    events = sink.events
    assert events[0].type == "match_started"
    assert events[-1].type == "match_ended"
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    for round_no in (1, 2, 3):
        word = "".join(LETTERS[e.type] for e in events if e.round == round_no and e.type in LETTERS)
        assert re.fullmatch(shape, word), f"round {round_no}: {word}"
        if rules.has_doubling_phase:
            assert word.count("D") in (2, 3)
    for before, after in itertools.pairwise(events):
        if after.type in ACTIONS and not after.data.get("auto"):
            assert (before.type, before.seat) == ("turn_started", after.seat), after


async def test_scores_are_zero_sum_and_add_up_to_the_match_totals() -> None:
    agents = [FakeAgent(n, inner=RandomAgent(n, seed=i)) for i, n in enumerate("XYZ")]
    table, sink = seat_table(*agents, rules=Rules())
    summary = await play_match(table, rounds=4, seed=21)

    results = sink.of_type("round_result")
    assert len(results) == len(summary.rounds) == 4
    totals = dict.fromkeys("XYZ", 0)
    for event, record in zip(results, summary.rounds, strict=True):
        scores = event.data["scores"]
        assert sum(scores.values()) == 0
        assert scores == record.to_dict()["scores"]
        for player, delta in scores.items():
            totals[player] += delta
    assert summary.totals == totals
    assert any(totals.values())  # the check is not vacuous
    for agent in agents:
        told = [m.score_deltas for m in agent.of_type(RoundResult)]
        assert told == [e.data["scores"] for e in results]
    [end] = agents[0].of_type(MatchEnd)
    assert {s.player: s.score for s in end.standings} == totals
    assert [s.score for s in end.standings] == sorted(totals.values(), reverse=True)


def test_a_table_needs_three_distinct_agents() -> None:
    with pytest.raises(ValueError, match="3 agents"):
        Table([GreedyAgent("A"), GreedyAgent("B")])
    with pytest.raises(ValueError, match="distinct"):
        Table([GreedyAgent("A"), GreedyAgent("A"), GreedyAgent("B")])


# ─── many tables, pacing ────────────────────────────────────────────────────────────────


class OrderSink:
    """One log shared by several tables: which table emitted what, in order, and when."""

    def __init__(self, clock: ManualClock | None = None) -> None:
        self.log: list[tuple[str, str, int | None]] = []
        self.stamps: list[tuple[float, Event]] = []
        self.clock = clock or ManualClock()

    async def emit(self, event: Event) -> None:
        self.log.append((event.table, event.type, event.seat))
        self.stamps.append((self.clock.now(), event))

    async def close(self) -> None:
        pass


async def test_a_slow_table_does_not_block_a_fast_one() -> None:
    async def slow(request: Any, n: int) -> None:
        await asyncio.sleep(0.2)

    shared = OrderSink()
    slow_table = Table(
        [FakeAgent("S1", bid=slow, double=slow, play=slow), FakeAgent("S2"), FakeAgent("S3")],
        table_id="slow",
        sinks=[shared],
    )
    fast_table = Table(
        [GreedyAgent("F1"), GreedyAgent("F2"), GreedyAgent("F3")],
        table_id="fast",
        sinks=[shared],
    )
    slow_task = asyncio.create_task(play_match(slow_table, rounds=1, seed=1))
    fast_task = asyncio.create_task(play_match(fast_table, rounds=2, seed=1))
    try:
        summary = await fast_task
        assert not slow_task.done()
    finally:
        slow_task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await slow_task

    assert len(summary.rounds) == 2
    fast_end = shared.log.index(("fast", "match_ended", None))
    slow_waiting = shared.log.index(("slow", "turn_started", 0))
    assert slow_waiting < fast_end  # the slow agent was already thinking
    assert ("slow", "round_result", 0) not in shared.log[:fast_end]
    assert not any(t == "slow" and k == "round_result" for t, k, _ in shared.log)


async def test_many_tables_play_at_once_with_their_own_deals() -> None:
    config = parse_config({"match": {"rounds": 2, "tables": 3}, "table": {"pace_s": 0}})
    sink = CollectingSink()
    summaries = await run_arena(config, seed=5, sinks=[sink])
    assert [s.table for s in summaries] == ["t1", "t2", "t3"]
    assert all(len(s.rounds) == 2 for s in summaries)
    deals = {s.table: s.rounds[0].result.deal for s in summaries}
    assert len(set(deals.values())) == 3
    for table_id in ("t1", "t2", "t3"):
        seqs = [e.seq for e in sink.events if e.table == table_id]
        assert seqs == list(range(1, len(seqs) + 1))


PACE = 0.6  # on a ManualClock: the gaps are exact, and the test runs at full speed


def action_gaps(sink: OrderSink) -> list[tuple[float, str, str]]:
    acts = [(t, e) for t, e in sink.stamps if e.type in ACTIONS]
    return [
        (b - a, f"{ea.type}@{ea.seat}", f"{eb.type}@{eb.seat}")
        for (a, ea), (b, eb) in itertools.pairwise(acts)
    ]


def paced_table(*agents: Any) -> tuple[Table, OrderSink]:
    clock = ManualClock()
    stamps = OrderSink(clock)
    table, _ = seat_table(*agents, sinks=[stamps], pace_s=PACE)
    table.clock = clock
    return table, stamps


async def test_pacing_keeps_every_action_on_screen() -> None:
    table, stamps = paced_table(GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C"))
    await landlord_round(table)
    gaps = action_gaps(stamps)
    assert len(gaps) > 10
    assert {round(g[0], 9) for g in gaps} == {PACE}  # instant agents: exactly the pace


async def test_pacing_holds_an_action_that_followed_a_slow_decision() -> None:
    clock = ManualClock()

    async def slow_second(request: PlayRequest, n: int) -> None:
        if n == 2:
            await clock.sleep(3 * PACE)  # thinks longer than the pace: no extra hold

    stamps = OrderSink(clock)
    table, _ = seat_table(
        FakeAgent("A", play=slow_second),
        GreedyAgent("B"),
        GreedyAgent("C"),
        sinks=[stamps],
        pace_s=PACE,
    )
    table.clock = clock
    await landlord_round(table)
    gaps = [g[0] for g in action_gaps(stamps)]
    assert min(gaps) >= PACE - 1e-9
    assert max(gaps) == pytest.approx(3 * PACE)  # the slow decision's gap, not 4 × PACE


async def test_the_first_action_is_not_held() -> None:
    table, stamps = paced_table(GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C"))
    await landlord_round(table)
    first = next(t for t, e in stamps.stamps if e.type in ACTIONS)
    assert first == stamps.stamps[0][0]  # nothing was on screen before it: no wait


async def test_a_round_pause_waits_between_rounds_only() -> None:
    clock = ManualClock()
    stamps = OrderSink(clock)
    table, _ = seat_table(
        GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C"), sinks=[stamps], round_pause_s=7.5
    )
    table.clock = clock
    await play_match(table, rounds=3, seed=4)
    assert clock.slept == [7.5, 7.5]  # between rounds 1-2 and 2-3: not first, not after last
    ends = [t for t, e in stamps.stamps if e.type == "round_result"]
    starts = [t for t, e in stamps.stamps if e.type == "round_started"]
    assert [b - a for a, b in zip(ends[:-1], starts[1:], strict=True)] == [7.5, 7.5]


async def test_no_round_pause_by_default() -> None:
    clock = ManualClock()
    table, _ = seat_table(GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C"))
    table.clock = clock
    await play_match(table, rounds=3, seed=4)
    assert clock.slept == []


# ─── sinks ──────────────────────────────────────────────────────────────────────────────


class BrokenSink:
    def __init__(self) -> None:
        self.calls = 0

    async def emit(self, event: Event) -> None:
        self.calls += 1
        raise OSError("display unplugged")

    async def close(self) -> None:
        pass


async def test_a_failing_sink_is_still_handed_every_event_and_the_match_goes_on() -> None:
    broken = BrokenSink()
    table, sink = seat_table(GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C"), sinks=[broken])
    summary = await play_match(table, rounds=2, seed=4)
    assert len(summary.rounds) == 2
    assert broken.calls == len(sink.events)  # never dropped (issue 25)
    assert sink.of_type("match_ended")


async def test_the_plain_view_describes_faults_and_stand_ins() -> None:
    stream = io.StringIO()
    table, _ = seat_table(
        FakeAgent("Crash", play=failing()),
        GreedyAgent("B"),
        GreedyAgent("C"),
        sinks=[PlainConsoleSink(stream)],
        max_retries=0,
        max_failed_decisions=1,
    )
    await play_match(table, rounds=1, seed=2)
    text = stream.getvalue()
    assert "✗ Crash: agent failed" in text
    assert "Crash is replaced by a heuristic stand-in" in text
    assert "match over" in text


async def test_the_live_board_renders_a_whole_match() -> None:
    screen = io.StringIO()
    live = LiveConsoleSink(Console(file=screen, force_terminal=True, width=120))
    table, _ = seat_table(
        FakeAgent("Ann", play=failing(1)),
        HeuristicAgent("Bob"),
        GreedyAgent("Cid"),
        rules=Rules(),
        sinks=[live],
    )
    await play_match(table, rounds=2, seed=8)
    await live.close()
    text = screen.getvalue()
    assert "斗地主 Arena" in text
    assert all(name in text for name in ("Ann", "Bob", "Cid"))
    assert "地主" in text
