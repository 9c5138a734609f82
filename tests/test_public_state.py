"""The public snapshot of a table (issue 10): a late subscriber is current at once.

Specification: "`ddz-arena/tables/<table>/state`: retained public snapshot (seats,
counts, last plays, multiplier, scores, whose turn and its deadline), so a late
subscriber is current at once; when the match ends it says so (a late overlay never
shows a finished match as live). ... Nothing hidden is ever published on the other
topics or retained."

The oracles are real matches: the engine's deal, final hands and settlement in each
round's record, and the match summary. Every snapshot of every event is checked against
the deal for hidden cards.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agents_for_tests import FaultyAgent, MinimalAgent, cards_in

from arena.config import parse_config
from arena.events import Event
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.engine import Rules
from arena.games.ddz.messages import BidResponse, DoubleResponse, PlayResponse
from arena.games.ddz.public_state import PublicTableState
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.public_state import STATE_VERSION, PublicState
from arena.table import MatchSummary, Table, TableSettings, play_match
from protocol import Emotion

RUN = "run-1"


@dataclass
class Played:
    """A real match: its events, and the engine's own record of it."""

    events: list[Event]
    summary: MatchSummary


async def played(
    agents: Sequence[Any] | None = None,
    *,
    rules: Rules | None = None,
    rounds: int = 3,
    seed: int = 11,
    settings: TableSettings | None = None,
) -> Played:
    rules = rules or Rules()
    if agents is None:
        agents = [
            HeuristicAgent(n, seed=i, rules=rules) for i, n in enumerate(("Ann", "Bob", "Cid"))
        ]
    sink = CollectingSink()
    table = Table(agents, rules=rules, settings=settings or TableSettings(pace_s=0), sinks=[sink])
    summary = await play_match(table, rounds=rounds, seed=seed)
    await table.close()
    return Played(sink.events, summary)


def fold(events: Sequence[Event]) -> tuple[PublicTableState, list[dict[str, Any]]]:
    """The state after all events, and its snapshot after each one."""
    state = PublicTableState("t1", run_id=RUN)
    snapshots = []
    for event in events:
        state.apply(event)
        snapshots.append(state.snapshot())
    return state, snapshots


SNAPSHOT_KEYS = list(PublicTableState("t", run_id=RUN).snapshot())
SEAT_KEYS = list(PublicTableState("t", run_id=RUN).snapshot()["seats"][0])


def assert_well_formed(snapshot: dict[str, Any]) -> None:
    """Same keys in the same order every time, three seats, and plain JSON."""
    assert list(snapshot) == SNAPSHOT_KEYS
    assert snapshot["v"] == STATE_VERSION
    assert [list(seat) for seat in snapshot["seats"]] == [SEAT_KEYS] * 3
    assert [seat["seat"] for seat in snapshot["seats"]] == [0, 1, 2]
    assert snapshot["status"] in ("waiting", "live", "ended")
    assert json.loads(json.dumps(snapshot, ensure_ascii=False)) == snapshot


# ─── status, totals, well-formedness ────────────────────────────────────────────────────


async def test_a_match_goes_from_waiting_to_live_to_ended_with_the_summarys_totals() -> None:
    match = await played(rounds=3)
    state = PublicTableState("t1", run_id=RUN, match_id="m-7")
    assert state.snapshot()["status"] == "waiting"
    statuses = []
    for event in match.events:
        assert state.apply(event) is True  # every event of a scripted match shows
        statuses.append(state.snapshot()["status"])
        assert_well_formed(state.snapshot())
    assert statuses[0] == "live"
    assert statuses[-1] == "ended"
    assert statuses.count("ended") == 1  # only the match's last event ends it
    final = state.snapshot()
    assert final["run"] == RUN
    # the match_started event names the match: it wins over what the state was told
    assert final["match_id"] == match.events[0].data["match_id"] != "m-7"
    assert final["complete"]
    assert final["totals"] == match.summary.totals
    assert final["rounds_won"] == match.summary.rounds_won
    assert final["standings"] == [s.model_dump() for s in match.summary.standings()]
    assert final["turn"] is None
    assert final["seq"] == match.events[-1].seq
    assert [seat["total"] for seat in final["seats"]] == [
        match.summary.totals[p] for p in match.summary.players
    ]


async def test_running_totals_add_up_each_rounds_scores() -> None:
    match = await played(rounds=4)
    _, snapshots = fold(match.events)
    results = [i for i, e in enumerate(match.events) if e.type == "round_result"]
    running = dict.fromkeys(match.summary.players, 0)
    for index, record in zip(results, match.summary.rounds, strict=True):
        for player in running:
            running[player] += record.score_of(player)
        assert snapshots[index]["totals"] == running
        assert snapshots[index]["result"]["scores"] == {
            p: record.score_of(p) for p in match.summary.players
        }
        assert snapshots[index]["phase"] == "settled"


# ─── the board: roles, bottom cards, counts, the trick, the turn ────────────────────────


async def test_the_landlord_and_bottom_cards_are_the_engines_once_chosen() -> None:
    match = await played(rounds=3)
    _, snapshots = fold(match.events)
    chosen = [i for i, e in enumerate(match.events) if e.type == "landlord_chosen"]
    assert len(chosen) == 3
    for index, record in zip(chosen, match.summary.rounds, strict=True):
        before, after = snapshots[index - 1], snapshots[index]
        assert before["bottom_cards"] is None
        assert before["landlord"] is None
        result = record.result
        assert after["landlord"] == result.landlord
        assert after["bottom_cards"] == [c.text for c in result.bottom]
        assert after["call_score"] == result.call_score
        roles = ["landlord" if s == result.landlord else "farmer" for s in range(3)]
        assert [seat["role"] for seat in after["seats"]] == roles
        assert [seat["cards_left"] for seat in after["seats"]] == [
            20 if s == result.landlord else 17 for s in range(3)
        ]


async def test_cards_left_are_the_deal_less_what_each_seat_played() -> None:
    """Counted independently from each play's cards, and equal to the engine's final
    hands when the round is settled."""
    match = await played(rounds=3)
    _, snapshots = fold(match.events)
    records = iter(match.summary.rounds)
    landlord = None
    played_by: list[int] = [0, 0, 0]
    for event, snapshot in zip(match.events, snapshots, strict=True):
        if event.type == "round_started":
            played_by, landlord = [0, 0, 0], None
        elif event.type == "landlord_chosen":
            landlord = event.seat
        elif event.type == "play":
            assert event.seat is not None
            played_by[event.seat] += len(event.data["cards"])
        if landlord is not None:
            expected = [(20 if s == landlord else 17) - played_by[s] for s in range(3)]
            assert [seat["cards_left"] for seat in snapshot["seats"]] == expected
        if event.type == "round_result":
            record = next(records)
            assert [seat["cards_left"] for seat in snapshot["seats"]] == [
                len(hand) for hand in record.result.final_hands
            ]


async def test_the_trick_shows_the_last_play_and_each_seats_action_until_it_is_won() -> None:
    match = await played(rounds=2)
    _, snapshots = fold(match.events)
    kinds = set()
    for event, snapshot in zip(match.events, snapshots, strict=True):
        seat = event.seat
        if event.type == "play":
            assert seat is not None
            play = {"cards": list(event.data["cards"]), "hand_type": event.data["hand_type"]}
            assert snapshot["trick"] == {"seat": seat, "player": event.player, **play}
            assert snapshot["seats"][seat]["action"] == {"type": "play", **play}
            assert snapshot["phase"] == "playing"
        elif event.type == "pass":
            assert seat is not None
            assert snapshot["seats"][seat]["action"] == {"type": "pass", "auto": event.data["auto"]}
            assert snapshot["trick"] is not None  # the play to beat is still shown
        elif event.type == "trick_won":
            assert snapshot["trick"] is None
            assert [s["action"] for s in snapshot["seats"]] == [None] * 3
        elif event.type == "bid":
            assert seat is not None
            assert snapshot["seats"][seat]["bid"]["bid"] == event.data["bid"]
        elif event.type == "double":
            assert seat is not None
            assert snapshot["seats"][seat]["double"] == {
                "double": event.data["double"],
                "kind": event.data["kind"],
            }
        kinds.add(event.type)
    assert {"play", "pass", "trick_won", "bid", "double"} <= kinds


async def test_the_turn_moves_to_the_seat_asked_and_ends_with_its_action() -> None:
    match = await played(rounds=2)
    _, snapshots = fold(match.events)
    asked = 0
    for event, snapshot in zip(match.events, snapshots, strict=True):
        if event.type == "turn_started":
            asked += 1
            turn = snapshot["turn"]
            assert turn["seat"] == event.seat
            assert turn["player"] == event.player
            assert turn["request"] == event.data["request"]
            # the deadline, when turn_started carries it (issue 10's "events" piece)
            assert turn["time_limit_ms"] == event.data.get("time_limit_ms")
            assert turn["deadline_at"] == event.data.get("deadline_at")
            phase = {"BID_REQUEST": "bidding", "DOUBLE_REQUEST": "doubling"}
            assert snapshot["phase"] == phase.get(event.data["request"], "playing")
        elif event.type in ("bid", "double", "play", "pass"):
            assert snapshot["turn"] is None
    assert asked > 20


# ─── nothing hidden ─────────────────────────────────────────────────────────────────────


async def test_no_snapshot_holds_a_card_that_was_neither_played_nor_shown_as_bottom() -> None:
    """Checked after every event, against the round's deal: a card still in a hand (the
    deal's hands less what was played) never appears; the bottom cards only once shown."""
    for bidding in ("single_round", "grab"):
        match = await played(rules=Rules(bidding=bidding), rounds=3, seed=5)
        _, snapshots = fold(match.events)
        records = iter(match.summary.rounds)
        hidden: set[str] = set()
        for event, snapshot in zip(match.events, snapshots, strict=True):
            if event.type == "round_started":
                deal = next(records).result.deal
                hidden = {c.text for hand in deal.hands for c in hand} | {
                    c.text for c in deal.bottom
                }
            elif event.type == "landlord_chosen":
                hidden -= set(event.data["bottom_cards"])
            elif event.type == "play":
                hidden -= set(event.data["cards"])
            assert cards_in(snapshot) & hidden == set(), event
        # the round's result does list the final hands; the snapshot leaves them out
        assert any(cards_in(e.data) & hidden for e in match.events if e.type == "round_result")


# ─── the multiplier ─────────────────────────────────────────────────────────────────────


async def test_the_live_multiplier_counts_bombs_rockets_and_grabs_as_the_engine_does() -> None:
    """Before the settlement: 2^(bombs + rockets + grabs); after it, the engine's own
    figures, spring and farmers' doubles included."""
    rounds = []
    for seed in (7, 14):  # between them: a bomb, rockets, grabs and a spring
        match = await played(rules=Rules(bidding="grab"), rounds=5, seed=seed)
        rounds += match.summary.rounds
        _, snapshots = fold(match.events)
        settled = [i for i, e in enumerate(match.events) if e.type == "round_result"]
        for index, record in zip(settled, match.summary.rounds, strict=True):
            result = record.result
            live, final = snapshots[index - 1]["multiplier"], snapshots[index]["multiplier"]
            assert not live["settled"]
            assert final["settled"]
            assert (live["bombs"], live["rockets"], live["grabs"]) == (
                result.bombs,
                result.rockets,
                result.grabs,
            )
            spring = 1 if result.spring else 0
            assert live["common_exponent"] == result.common_exponent - spring - result.gift_doubles
            assert live["common"] == 2 ** live["common_exponent"]
            assert final["common"] == 2**result.common_exponent
            assert final["spring"] == result.spring
            names = record.players
            assert final["farmers"] == {names[s]: 2**e for s, e in result.exponents.items()}
    assert any(r.result.bombs for r in rounds)
    assert any(r.result.rockets for r in rounds)
    assert any(r.result.grabs for r in rounds)
    assert any(r.result.spring for r in rounds)


async def test_grabs_and_the_call_are_counted_while_the_auction_runs() -> None:
    match = await played(rules=Rules(bidding="grab"), rounds=6, seed=3)
    _, snapshots = fold(match.events)
    for index, event in enumerate(match.events):
        if event.type == "landlord_chosen":
            before = snapshots[index - 1]  # the last bid's snapshot
            assert before["multiplier"]["grabs"] == event.data["grabs"]
            assert before["call_score"] == event.data["call_score"] == 1


# ─── redeals, stand-ins, comments ───────────────────────────────────────────────────────


async def test_a_redeal_starts_the_deal_again_and_a_forced_landlord_says_so() -> None:
    agents = [MinimalAgent(n) for n in ("Ann", "Bob", "Cid")]  # nobody ever bids
    match = await played(agents, rules=Rules(max_redeals=2), rounds=1)
    _, snapshots = fold(match.events)
    redeals = [i for i, e in enumerate(match.events) if e.type == "redeal"]
    assert len(redeals) == 2
    for index in redeals:
        snapshot = snapshots[index]
        assert snapshot["deal"] == match.events[index].data["deal_number"]
        assert [s["cards_left"] for s in snapshot["seats"]] == [17, 17, 17]
        assert [s["bid"] for s in snapshot["seats"]] == [None] * 3
        assert snapshots[index - 1]["seats"][match.events[index - 1].seat or 0]["bid"] is not None
    [chosen] = [i for i, e in enumerate(match.events) if e.type == "landlord_chosen"]
    assert snapshots[chosen]["forced_landlord"] is True
    assert snapshots[chosen]["call_score"] == 1


async def test_a_stand_in_is_shown_on_its_seat_and_leaves_at_the_next_round() -> None:
    agents = [
        HeuristicAgent("Ann", seed=1),
        FaultyAgent("Bob"),
        HeuristicAgent("Cid", seed=2),
    ]
    match = await played(agents, rounds=2)
    _, snapshots = fold(match.events)
    [first, *_] = [i for i, e in enumerate(match.events) if e.type == "seat_replaced"]
    event = match.events[first]
    assert snapshots[first]["seats"][1]["standin"] == {
        "by": event.data["by"],
        "until": "round_end",
        "reason": event.data["reason"],
    }
    assert snapshots[first - 1]["seats"][1]["standin"] is None
    round_two = next(
        i for i, e in enumerate(match.events) if e.type == "round_started" and e.round == 2
    )
    assert snapshots[round_two]["seats"][1]["standin"] is None
    assert snapshots[-1]["status"] == "ended"


class Chatty(HeuristicAgent):
    """A heuristic agent that comments on each of its decisions, as a model would."""

    async def bid(self, request: Any) -> BidResponse:
        reply = await super().bid(request)
        return reply.model_copy(update={"comment": "mine", "emotion": Emotion.CONFIDENT})

    async def double(self, request: Any) -> DoubleResponse:
        reply = await super().double(request)
        return reply.model_copy(update={"comment": "hmm", "emotion": Emotion.THINKING})

    async def play(self, request: Any) -> PlayResponse:
        reply = await super().play(request)
        return reply.model_copy(update={"comment": "take that", "emotion": Emotion.TAUNTING})


async def test_each_seats_comment_and_mood_are_those_of_its_last_action() -> None:
    agents = [Chatty("Ann", seed=1), HeuristicAgent("Bob", seed=2), HeuristicAgent("Cid", seed=3)]
    match = await played(agents, rounds=2, settings=TableSettings(pace_s=0, auto_pass=False))
    _, snapshots = fold(match.events)
    seen = 0
    for event, snapshot in zip(match.events, snapshots, strict=True):
        if event.type in ("bid", "double", "play", "pass") and event.seat is not None:
            seat = snapshot["seats"][event.seat]
            assert seat["comment"] == event.data.get("comment")
            assert seat["emotion"] == event.data.get("emotion")
            seen += event.seat == 0
    assert seen > 5
    assert snapshots[-1]["seats"][0]["comment"] in ("mine", "hmm", "take that")


# ─── a late start, odd events, many tables ──────────────────────────────────────────────


async def test_a_snapshot_started_in_the_middle_is_well_formed_and_ends_right() -> None:
    match = await played(rounds=3)
    middle = (
        next(i for i, e in enumerate(match.events) if e.type == "play" and e.round == 2) + 5
    )  # in the middle of round 2's play
    state, snapshots = fold(match.events[middle:])
    for snapshot in snapshots:
        assert_well_formed(snapshot)
    first = snapshots[0]
    assert first["status"] == "live"
    assert first["complete"] is False
    assert first["round"] == 2
    assert first["landlord"] is None
    assert first["seats"][match.events[middle].seat or 0]["player"] is not None
    final = state.snapshot()
    assert final["status"] == "ended"
    assert final["totals"] == match.summary.totals  # match_ended gives the final ones
    assert [s["player"] for s in final["seats"]] == list(match.summary.players)


async def test_a_snapshot_that_sees_only_the_end_knows_who_played_and_the_final_scores() -> None:
    match = await played(rounds=2)
    state, _ = fold(match.events[-1:])
    final = state.snapshot()
    assert_well_formed(final)
    assert final["status"] == "ended"
    assert [s["player"] for s in final["seats"]] == list(match.summary.players)
    assert [s["total"] for s in final["seats"]] == [
        match.summary.totals[p] for p in match.summary.players
    ]


async def test_unknown_events_other_tables_and_duplicates_change_nothing() -> None:
    match = await played(rounds=1)
    state, _ = fold(match.events[:40])
    before = state.snapshot()
    last = match.events[39]
    strange = Event("confetti", "t1", last.round, last.seq + 1, data={"x": 1})
    other = match.events[40]._replace(table="t2")
    assert state.apply(strange) is False
    assert state.apply(other) is False
    assert state.apply(match.events[39]) is False  # already applied (a broker's duplicate)
    assert state.snapshot() == before


async def test_a_missed_event_marks_the_snapshot_incomplete() -> None:
    match = await played(rounds=1)
    state = PublicTableState("t1", run_id=RUN)
    for event in match.events[:30] + match.events[31:]:
        state.apply(event)
    assert state.snapshot()["complete"] is False
    whole, _ = fold(match.events)
    assert whole.snapshot()["complete"] is True


async def test_the_registry_keeps_one_snapshot_per_table() -> None:
    sink = CollectingSink()
    config = parse_config({"match": {"rounds": 2, "tables": 3}, "table": {"pace_s": 0}})
    await run_arena(config, seed=5, sinks=[sink])
    registry = PublicState(RUN)
    changed = [registry.apply(e) for e in sink.events]
    assert all(
        state is not None and state.table == e.table
        for state, e in zip(changed, sink.events, strict=True)
    )
    snapshots = registry.snapshots()
    assert sorted(snapshots) == ["t1", "t2", "t3"]
    assert len(registry) == 3
    for table, snapshot in snapshots.items():
        [ended] = [e for e in sink.events if e.type == "match_ended" and e.table == table]
        assert snapshot["status"] == "ended"
        assert snapshot["table"] == table
        assert snapshot["totals"] == ended.data["totals"]
        assert snapshot["run"] == RUN
    assert registry.get("t9") is None


async def test_the_turn_carries_its_deadline_when_turn_started_gives_it() -> None:
    """``time_limit_ms`` and ``deadline_at`` (Unix ms) let an overlay count down."""
    match = await played(rounds=1)
    state = PublicTableState("t1", run_id=RUN)
    index = next(i for i, e in enumerate(match.events) if e.type == "turn_started")
    for event in match.events[:index]:
        state.apply(event)
    turn = match.events[index]
    timed = turn._replace(data={**turn.data, "time_limit_ms": 30000, "deadline_at": 1_800_000})
    assert state.apply(timed) is True
    shown = state.snapshot()["turn"]
    assert shown["seat"] == turn.seat
    assert (shown["time_limit_ms"], shown["deadline_at"]) == (30000, 1_800_000)


async def test_a_snapshot_is_a_fresh_copy_that_later_events_do_not_change() -> None:
    """A publisher may hold a snapshot while the table goes on."""
    match = await played(rounds=1)
    state = PublicTableState("t1", run_id=RUN)
    index = next(i for i, e in enumerate(match.events) if e.type == "round_result")
    for event in match.events[: index + 1]:
        state.apply(event)
    held = state.snapshot()
    copy = json.loads(json.dumps(held))
    held["seats"][0]["action"] = held["result"]["scores"] = held["multiplier"]["farmers"] = None
    assert state.snapshot() == copy
    kept = state.snapshot()
    for event in match.events[index + 1 :]:
        state.apply(event)
    assert kept == copy
    assert state.snapshot()["status"] == "ended"
