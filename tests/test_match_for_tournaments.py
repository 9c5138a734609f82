"""play_match's parts for tournaments (issue 12): a format's stop rule, open-ended
matches, the rotating landlord (轮庄), resuming a match cut off, a hook per round."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
import structlog

from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.sinks.base import CollectingSink
from arena.table import RoundRecord, Table, play_match

NAMES = ("Alpha", "Beta", "Gamma")


def table() -> tuple[Table, CollectingSink]:
    sink = CollectingSink()
    return Table([GreedyAgent(n) for n in NAMES], sinks=[sink]), sink


def someone_won(rounds: Sequence[RoundRecord], wins: int) -> bool:
    """True while no player has ``wins`` round wins (farmers are credited together)."""
    tally = [0, 0, 0]
    for record in rounds:
        for seat in record.result.winners:
            tally[seat] += 1
    return max(tally) < wins


async def test_a_stop_rule_ends_the_match_before_its_last_round() -> None:
    played, sink = table()
    summary = await play_match(
        played, rounds=5, seed=4, goes_on=lambda rounds: someone_won(rounds, 2)
    )
    assert 2 <= len(summary.rounds) < 5  # two wins for someone come before round 5
    assert max(summary.rounds_won.values()) == 2
    assert not someone_won(summary.rounds, 2)
    assert someone_won(summary.rounds[:-1], 2)
    (ended,) = sink.of_type("match_ended")
    assert ended.data["rounds"] == len(summary.rounds)
    (started,) = sink.of_type("match_started")
    assert started.data["rounds"] == 5  # at most


async def test_an_open_ended_match_plays_until_its_rule_says_stop() -> None:
    played, sink = table()
    summary = await play_match(played, rounds=None, seed=4, goes_on=lambda rounds: len(rounds) < 7)
    assert len(summary.rounds) == 7
    (started,) = sink.of_type("match_started")
    assert started.data["rounds"] is None
    with pytest.raises(ValueError, match="goes_on"):
        await play_match(table()[0], rounds=None, seed=4)


async def test_the_rotating_landlord_is_seat_0_1_2_in_turn_asked_for_its_call() -> None:
    played, sink = table()
    summary = await play_match(played, rounds=4, seed=9, landlord_policy="rotate")
    assert [r.result.landlord for r in summary.rounds] == [0, 1, 2, 0]
    bids = sink.of_type("bid")
    assert [e.seat for e in bids] == [0, 1, 2, 0]  # each landlord asked once: its call
    assert all(1 <= r.result.call_score <= 3 for r in summary.rounds)


async def test_a_resumed_match_plays_on_as_if_never_cut_off() -> None:
    whole = await play_match(table()[0], rounds=4, seed=21)
    cut = await play_match(table()[0], rounds=2, seed=21)
    heard: list[int] = []

    async def on_round(record: RoundRecord) -> None:
        heard.append(record.round_no)

    resumed_table, sink = table()
    resumed = await play_match(resumed_table, rounds=4, seed=21, done=cut.rounds, on_round=on_round)
    assert heard == [3, 4]  # only the rounds left were played

    def dealt_and_played(records: Sequence[RoundRecord]) -> list[object]:
        return [(r.round_no, r.seed, r.result.to_dict()) for r in records]  # no timings

    assert dealt_and_played(resumed.rounds) == dealt_and_played(whole.rounds)
    assert resumed.totals == whole.totals
    assert resumed.rounds_won == whole.rounds_won
    last = sink.of_type("round_result")[-1]
    assert last.data["totals"] == whole.totals  # the table's running totals count them


class _ContextSink(CollectingSink):
    """Remembers the log context each event was emitted in."""

    def __init__(self) -> None:
        super().__init__()
        self.contexts: list[dict[str, object]] = []

    async def emit(self, event: Event) -> None:
        self.contexts.append(structlog.contextvars.get_contextvars())
        await super().emit(event)


@pytest.mark.parametrize(("match_id", "logged"), [(None, "8123/T"), ("abc", "abc/T")])
async def test_a_named_match_is_logged_by_its_name_never_its_seed(
    match_id: str | None, logged: str
) -> None:
    """A tournament's seed is secret until it ends: its logs hold the match id only."""
    sink = _ContextSink()
    played = Table([GreedyAgent(n) for n in NAMES], table_id="T", sinks=[sink])
    await play_match(played, rounds=1, seed=8123, match_id=match_id)
    assert {context["match"] for context in sink.contexts} == {logged}
