"""Tractor's public snapshot of a table: a late subscriber is current at once.

The oracles are real matches of random seats, four and six, played through the table:
each event's own data (a round's result, a trick's winner and points, a play's cards and
the cards left) is what the snapshot must say after it, and every card the snapshot
holds must have been in an event already (no hand leaks into it). A state that joins
in the middle of a round (no ``match_started``) must say what one that saw everything
says of that round.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from arena.events import Event
from arena.games.registry import get_game
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import TractorRules
from arena.games.tractor.public_state import TractorPublicState
from arena.sinks.base import CollectingSink
from arena.sinks.public_state import STATE_VERSION, new_table_state
from arena.table import Table, TableSettings, play_match

RUN = "run-1"


async def played(players: int, *, rounds: int, seed: int, **rules: Any) -> list[Event]:
    """The public events of a real match of random seats."""
    game = get_game("tractor")
    settled = TractorRules.model_validate({"players": players, **rules})
    agents = [RandomAgent(f"P{i}", seed=seed + i, rules=settled) for i in range(players)]
    sink = CollectingSink()
    table = Table(agents, game=game, rules=settled, settings=TableSettings(pace_s=0), sinks=[sink])
    await play_match(table, rounds=rounds, seed=seed)
    await table.close()
    return list(sink.events)


@pytest.fixture(scope="module", params=[4, 6], ids=["4-seats", "6-seats"])
def match(request: pytest.FixtureRequest) -> list[Event]:
    """A whole match (to game_over, under a round limit of three), once per module."""
    return asyncio.run(played(request.param, rounds=10, seed=5, round_limit=3))


def fold(events: Sequence[Event]) -> Iterator[tuple[Event, dict[str, Any]]]:
    """Each event with the snapshot after it."""
    state = TractorPublicState("t1", run_id=RUN)
    for event in events:
        state.apply(event)
        yield event, state.snapshot()


def card_ids(value: Any) -> set[str]:
    """Every card id anywhere in JSON data."""
    if isinstance(value, dict):
        return {c for item in value.values() for c in card_ids(item)}
    if isinstance(value, list):
        return {c for item in value for c in card_ids(item)}
    if isinstance(value, str) and value.startswith(("D1_", "D2_")):
        return {value}
    return set()


def test_a_real_match_ends_with_a_result_and_a_game_over(match: list[Event]) -> None:
    kinds = {e.type for e in match}
    assert {"trump_locked", "trick_won", "round_result", "game_over"} <= kinds
    assert "throw_punished" in kinds  # random seats throw, and some throws do not stand


def test_each_round_result_and_the_game_over_are_what_the_snapshot_says(
    match: list[Event],
) -> None:
    """Specification: "the round result (points, kitty cards revealed at the end,
    multiplier, level changes) and the match's end (game_over: winner team, levels)"."""
    results = 0
    for event, snap in fold(match):
        if event.type == "round_result":
            results += 1
            result = event.data["result"]
            assert snap["phase"] == "settled"
            assert snap["levels"] == result["levels_after"]
            assert snap["defender_points"] == result["defender_points"]
            shown = snap["result"]
            for key in (
                "banker", "trick_points", "kitty", "kitty_points", "multiplier",
                "defender_points", "up_team", "delta", "levels_before", "levels_after",
                "next_banker",
            ):  # fmt: skip
                assert shown[key] == result[key], key
            assert shown["winners"] == [event.data["players"][s] for s in result["winners"]]
            assert snap["totals"] == event.data["totals"]
            assert snap["turn"] is None
            assert snap["trick"] is None
        elif event.type == "game_over":
            assert snap["game_over"] == {
                "winner_team": event.data["winner_team"],
                "levels": event.data["levels"],
                "rounds": event.data["rounds"],
                "points": event.data["points"],
            }
            assert snap["levels"] == event.data["levels"]
        elif event.type == "round_started":
            assert snap["levels"] == event.data["levels"]
            assert snap["level"] == event.data["level"]
            assert snap["result"] is None
            assert snap["phase"] == "declaring"
    assert results == 3
    assert snap["status"] == "ended"
    assert snap["game_over"] is not None


def test_the_trick_points_and_cards_left_follow_the_plays(match: list[Event]) -> None:
    """The current trick is every play since the last trick was won, in order; a won
    trick moves to ``last_trick`` with its winner and points; the defenders' points are
    the trick's; the seats' cards left are the plays' and add up to the dealt cards."""
    rules = match[0].data["rules"]
    players, kitty = rules["players"], rules["kitty"]
    current: list[Event] = []
    played_cards = 0
    for event, snap in fold(match):
        seats = snap["seats"]
        if event.type == "round_started":
            played_cards = 0
        elif event.type == "play":
            current.append(event)
            trick = snap["trick"]
            assert [(p["seat"], p["cards"]) for p in trick["plays"]] == [
                (e.seat, e.data["cards"]) for e in current
            ]
            assert trick["leader"] == current[0].seat
            assert trick["lead"]["cards"] == current[0].data["cards"]
            assert trick["seat"] == event.seat
            assert trick["no"] == snap["tricks_done"] + 1
            assert seats[event.seat]["cards_left"] == event.data["cards_left"]
            assert seats[event.seat]["action"]["cards"] == event.data["cards"]
            played_cards += len(event.data["cards"])
            assert sum(s["cards_left"] for s in seats) == 108 - kitty - played_cards
        elif event.type == "trick_won":
            last = snap["last_trick"]
            assert [(p["seat"], p["cards"]) for p in last["plays"]] == [
                (e.seat, e.data["cards"]) for e in current
            ]
            assert len(current) == players
            assert (last["winner"], last["points"], last["counted"], last["no"]) == (
                event.seat, event.data["points"], event.data["counted"], event.data["trick"],
            )  # fmt: skip
            assert snap["defender_points"] == event.data["defender_points"]
            assert snap["tricks_done"] == event.data["trick"]
            assert snap["trick"] is None
            assert all(s["action"] is None for s in seats)
            current = []
        elif event.type == "bury":
            # the banker has buried: every seat holds a dealt hand again
            assert [s["cards_left"] for s in seats] == [(108 - kitty) // players] * players
            assert snap["kitty_count"] == kitty


def test_declaring_shows_the_candidate_then_the_trump_and_the_banker(
    match: list[Event],
) -> None:
    for event, snap in fold(match):
        if event.type == "trump_candidate":
            assert snap["phase"] == "declaring"
            assert snap["candidate"]["seat"] == event.seat
            assert snap["candidate"]["cards"] == event.data["cards"]
            assert snap["candidate"]["suit"] == event.data["suit"]
            assert snap["declaring"]["window"] == event.data["window"]
            assert snap["trump"] is None
        elif event.type == "turn_started" and event.data["request"] == "DECLARE_REQUEST":
            assert snap["turn"] is None  # every seat asked at once: the window says so
            assert event.seat in snap["declaring"]["asked"]
            assert snap["declaring"]["deadline_at"] == event.data["deadline_at"]
        elif event.type == "declare" and event.data["declared"]:
            assert snap["seats"][event.seat]["declared"]["cards"] == event.data["cards"]
        elif event.type == "trump_locked":
            data = event.data
            trump = snap["trump"]
            assert (trump["suit"], trump["declarer"]) == (data["trump_suit"], data["declarer"])
            assert snap["banker"] == data["banker"]
            assert snap["level"] == data["level"]
            assert snap["candidate"] is None
            assert snap["declaring"] is None
            assert snap["phase"] == "burying"
            if data["declarer"] is not None:
                assert trump["player"] == snap["seats"][data["declarer"]]["player"]
                assert trump["cards"]


def test_a_punished_throw_stays_with_its_trick(match: list[Event]) -> None:
    """Specification: "punished throws of the current trick"."""
    seen = 0
    pending: dict[str, Any] | None = None
    for event, snap in fold(match):
        if event.type == "throw_punished":
            seen += 1
            pending = {
                "seat": event.seat,
                "player": event.player,
                "original": event.data["original"],
                "punished": event.data["punished"],
                "reason": event.data["reason"],
            }
            assert snap["punished"] == [pending]
        elif event.type == "play" and pending is not None:
            assert snap["punished"] == [pending]
            first = snap["trick"]["plays"][0]
            assert first["punished"] is True
            assert first["cards"] == pending["punished"]
        elif event.type == "trick_won":
            assert snap["punished"] == []
            if pending is not None:
                assert snap["last_trick"]["punished"] == [pending]
            pending = None
    assert seen


def test_no_card_is_in_a_snapshot_before_an_event_showed_it(match: list[Event]) -> None:
    shown: set[str] = set()
    for event, snap in fold(match):
        shown |= card_ids(event.data)
        assert card_ids(snap) <= shown, event
        json.dumps(snap)  # JSON-ready


def test_the_teams_are_the_seats_by_parity_on_every_seat(match: list[Event]) -> None:
    players = match[0].data["rules"]["players"]
    *_, (_, snap) = fold(match)
    assert snap["teams"] == [list(range(0, players, 2)), list(range(1, players, 2))]
    assert [s["team"] for s in snap["seats"]] == [s % 2 for s in range(players)]
    assert snap["v"] == STATE_VERSION
    assert (snap["table"], snap["run"], snap["complete"]) == ("t1", RUN, True)


def round_keys(snap: dict[str, Any]) -> dict[str, Any]:
    """What a state knows of the current round whether or not it saw the match start:
    all but the match's numbers and the hand sizes (the rules say them)."""
    keep = {k: v for k, v in snap.items() if k not in {"complete", "rounds", "totals", "seats"}}
    keep["match_id"] = None
    keep["seats"] = [
        {k: v for k, v in seat.items() if k not in {"cards_left", "total"}}
        for seat in snap["seats"]
    ]
    return keep


def test_a_state_that_joins_mid_round_says_what_one_that_saw_everything_says(
    match: list[Event],
) -> None:
    """A late subscriber (the overlay's first message, MQTT's retained state): folded
    from a round's start only, it agrees on that round at every later event."""
    starts = [i for i, e in enumerate(match) if e.type == "round_started"]
    second = starts[1]
    end = starts[2]
    whole = TractorPublicState("t1", run_id=RUN)
    for event in match[:second]:
        whole.apply(event)
    late = TractorPublicState("t1", run_id=RUN)
    for event in match[second:end]:
        whole.apply(event)
        late.apply(event)
        assert round_keys(late.snapshot()) == round_keys(whole.snapshot()), event
    assert late.snapshot()["complete"] is False
    # a fresh state folded from the same events says the same, to the last key
    again = TractorPublicState("t1", run_id=RUN)
    for event in match[:end]:
        again.apply(event)
    assert again.snapshot() == whole.snapshot()


def test_a_late_state_learns_a_seats_cards_left_from_its_play() -> None:
    state = TractorPublicState("t1", run_id=RUN)
    state.apply(
        Event("play", "t1", 2, 40, 3, "W", {"cards": ["D1_H_5"], "cards_left": 11, "leading": True})
    )
    snap = state.snapshot()
    assert [s["cards_left"] for s in snap["seats"]] == [None, None, None, 11]
    assert snap["seats"][3]["player"] == "W"
    assert snap["trick"]["leader"] == 3
    assert (snap["status"], snap["round"], snap["complete"]) == ("live", 2, False)


def test_what_changes_nothing_is_not_applied() -> None:
    state = TractorPublicState("t1", run_id=RUN)
    assert state.apply(Event("match_started", "t1", 0, 1, data={"players": list("ABCD")}))
    assert not state.apply(Event("play", "t2", 1, 2, 0, "A", {"cards": ["D1_H_5"]}))
    assert not state.apply(Event("fault", "t1", 1, 2, 0, "A", {}))
    assert not state.apply(Event("round_started", "t1", 1, 2, data={"players": list("ABCD")}))
    assert state.seq == 1


def test_a_snapshot_never_changes_under_its_reader() -> None:
    state = TractorPublicState("t1", run_id=RUN)
    state.apply(Event("match_started", "t1", 0, 1, data={"players": list("ABCD")}))
    state.apply(Event("play", "t1", 1, 2, 0, "A", {"cards": ["D1_H_5"], "leading": True}))
    snap = state.snapshot()
    snap["trick"]["plays"][0]["cards"].append("D2_BJ")
    snap["seats"][0]["action"]["cards"].clear()
    again = state.snapshot()
    assert again["trick"]["plays"][0]["cards"] == ["D1_H_5"]
    assert again["seats"][0]["action"]["cards"] == ["D1_H_5"]


def test_the_sinks_make_a_tractor_snapshot_for_a_tractor_table() -> None:
    state = new_table_state("t9", run_id=RUN, game="tractor")
    assert isinstance(state, TractorPublicState)
    assert state.snapshot()["seats"] == []
