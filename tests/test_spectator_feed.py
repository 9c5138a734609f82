"""The delayed spectator feed (issue 10): every hand for a stream, never before its delay.

A stream may show every hand, but only ``delay_s`` after it happened, and the hidden
cards never reach the public events. These tests drive the feed's clock by hand, play
real scripted matches through a table with the feed teed to the replay, and check every
public event against the cards still hidden at that moment.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from arena.agents.registry import create_agent
from arena.errors import ConfigError
from arena.events import Event
from arena.logs import EVENT_ATTRIBUTE
from arena.replay import ReplayWriter, compare_replays, load_replay, strip_timing, verify_round
from arena.sinks.base import CollectingSink
from arena.sinks.health import health_of
from arena.sinks.spectator import (
    CollectingSpectatorOutput,
    SpectatorFeed,
    SpectatorOutput,
)
from arena.table import MatchSummary, Recorder, Table, TeeRecorder, play_match, tee_recorders
from arena.table.clock import ManualClock
from protocol.cards import CANONICAL_CARDS

DELAY = 30.0
EPOCH = 1_700_000_000.0
"""The feed's wall clock in these tests: the manual clock's time after this Unix time."""


def logged(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    """What the feed logged, as event dicts."""
    return [
        getattr(r, EVENT_ATTRIBUTE)
        for r in caplog.records
        if r.name == "arena.sinks.spectator" and hasattr(r, EVENT_ATTRIBUTE)
    ]


def feed_on(clock: ManualClock, *outputs: SpectatorOutput, **options: Any) -> SpectatorFeed:
    options.setdefault("delay_s", DELAY)
    return SpectatorFeed(outputs, clock=clock, wall=lambda: EPOCH + clock.now(), **options)


def event(seq: int, kind: str = "pass", round_no: int = 1, **data: Any) -> Event:
    return Event(kind, "t1", round_no, seq, 0, "A", data)


def new_table(
    recorder: Recorder | None, sink: CollectingSink, kinds: Sequence[str] = ("greedy",) * 3
) -> Table:
    agents = [
        create_agent(kind, name, seed=i)
        for i, (kind, name) in enumerate(zip(kinds, "ABC", strict=True))
    ]
    return Table(agents, table_id="t1", sinks=[sink], recorder=recorder)


async def play(
    recorder: Recorder | None, *, rounds: int = 3, seed: int = 11
) -> tuple[MatchSummary, CollectingSink]:
    sink = CollectingSink()
    table = new_table(recorder, sink, ("greedy", "random", "heuristic"))
    summary = await play_match(table, rounds=rounds, seed=seed)
    return summary, sink


# --- the delay --------------------------------------------------------------------------


async def test_nothing_leaves_before_its_delay_and_everything_after_in_order() -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput(clock)
    feed = feed_on(clock, out)
    table = feed.for_table("t1")
    table.event(event(1))  # due at +30
    clock.advance(10)
    table.event(event(2))  # due at +40
    table.note("peek", {"seat": 2, "cards": ["♠3"]})  # due at +40
    clock.advance(15)
    table.event(event(3))  # due at +55

    for at, expected in ((25, 0), (29.999, 0), (30, 1), (39.5, 1), (40, 3), (54.9, 3), (55, 4)):
        clock.time = 1000.0 + at
        await feed.pump()
        assert len(out.items) == expected, f"at +{at} s"
    assert [i["seq"] for i in out.items] == [1, 2, 3, 4]
    assert [i["kind"] for i in out.items] == ["event", "event", "peek", "event"]
    for item, received in zip(out.items, out.received_at, strict=True):
        assert item["released_at"] - item["at"] >= DELAY * 1000
        assert received - (item["at"] / 1000 - EPOCH) >= DELAY
    assert feed.pending == 0
    assert feed.released == 4


async def test_a_zero_delay_releases_at_the_next_pump() -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput()
    feed = feed_on(clock, out, delay_s=0)
    feed.for_table("t1").event(event(1))
    assert feed.for_table("t1") is feed.for_table("t1")  # one recorder, one count per table
    assert out.items == []
    assert await feed.pump() == 1
    assert out.items[0]["event"]["seq"] == 1


@pytest.mark.parametrize("delay", [-1.0, float("nan")])
def test_a_delay_is_zero_or_more(delay: float) -> None:
    with pytest.raises(ConfigError, match="spectator delay"):
        SpectatorFeed([], delay_s=delay)


async def test_the_release_task_waits_exactly_until_items_fall_due() -> None:
    clock = ManualClock()  # its sleep moves time by exactly what the task waits
    out = CollectingSpectatorOutput(clock)
    feed = feed_on(clock, out)
    feed.start()
    table = feed.for_table("t1")
    table.event(event(1))
    for _ in range(5):
        await asyncio.sleep(0)
    assert clock.slept == [DELAY]
    assert out.received_at == [1000.0 + DELAY]
    table.event(event(2))
    await feed.close()
    assert [i["seq"] for i in out.items] == [1, 2]
    assert out.received_at == [1000.0 + DELAY, 1000.0 + 2 * DELAY]


async def test_close_waits_out_the_delay_so_the_last_hand_is_shown() -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput(clock)
    feed = feed_on(clock, out)
    table = feed.for_table("t1")
    for seq in range(1, 4):
        table.event(event(seq))
        clock.advance(1)
    await feed.close()  # no task started: close releases them itself
    assert len(out.items) == 3
    assert all(
        r >= i["at"] / 1000 - EPOCH + DELAY for i, r in zip(out.items, out.received_at, strict=True)
    )
    table.event(event(4))  # after close: dropped and counted
    assert feed.dropped == 1
    assert feed.pending == 0


async def test_a_cancelled_close_drops_what_is_left_and_says_so(
    caplog: pytest.LogCaptureFixture,
) -> None:
    out = CollectingSpectatorOutput()
    feed = SpectatorFeed([out], delay_s=3600)  # the real clock: an hour to wait
    feed.start()
    table = feed.for_table("t1")
    for seq in range(1, 6):
        table.event(event(seq))
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await feed.close()
    logs = logged(caplog)
    assert out.items == []
    assert feed.dropped == 5
    assert [e["event"] for e in logs] == ["spectator_items_abandoned"]
    assert logs[0]["left"] == 5


async def test_a_full_queue_drops_the_new_item_counts_it_and_never_blocks(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput()
    feed = feed_on(clock, out, max_pending=3)
    table = feed.for_table("t1")
    for seq in range(1, 6):
        table.event(event(seq))
    logs = logged(caplog)
    assert feed.pending == 3
    assert feed.dropped == 2
    assert [(e["event"], e["reason"], e["dropped"]) for e in logs] == [
        ("spectator_item_dropped", "queue_full", 1)
    ]
    clock.advance(DELAY)
    await feed.pump()
    assert [i["event"]["seq"] for i in out.items] == [1, 2, 3]


async def test_a_failing_output_is_counted_and_it_and_the_others_get_every_other_item(
    caplog: pytest.LogCaptureFixture,
) -> None:
    class Flaky:
        def __init__(self) -> None:
            self.seqs: list[int] = []

        async def emit_spectator(self, item: dict[str, Any]) -> None:
            if item["seq"] == 1:
                raise OSError("overlay gone")
            self.seqs.append(item["seq"])

    clock = ManualClock()
    out = CollectingSpectatorOutput()
    flaky = Flaky()
    feed = feed_on(clock, flaky, out)
    table = feed.for_table("t1")
    for seq in (1, 2, 3):
        table.event(event(seq))
    clock.advance(DELAY)
    await feed.pump()
    assert [i["seq"] for i in out.items] == [1, 2, 3]
    assert flaky.seqs == [2, 3]
    assert health_of(flaky).failures == 1
    assert health_of(flaky).during == "emit_spectator"
    [line] = [getattr(r, EVENT_ATTRIBUTE) for r in caplog.records if r.name == "arena.sinks.health"]
    assert (line["event"], line["sink"]) == ("sink_failed", "Flaky")
    assert logged(caplog) == []  # nothing else to say


# --- the tee ----------------------------------------------------------------------------


class Filing:
    """A recorder that keeps its calls (and files decisions when asked to)."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def round_started(self, header: dict[str, Any]) -> None:
        header["mine"] = True  # a recorder may change its copy of the header
        self.calls.append(("round_started", header))

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        self.calls.append(("message", (direction, seat, message, elapsed_ms, late)))

    def event(self, event: Event) -> None:
        self.calls.append(("event", event.seq))

    def round_ended(self, summary: dict[str, Any]) -> None:
        self.calls.append(("round_ended", summary))


class FilingDecisions(Filing):
    def decision(self, seat: int, record: dict[str, Any]) -> None:
        self.calls.append(("decision", (seat, record)))


def test_without_a_second_recorder_there_is_no_tee() -> None:
    only = Filing()
    assert tee_recorders(only, None) is only
    assert tee_recorders(None, only) is only
    assert tee_recorders(None, None) is None
    assert isinstance(tee_recorders(only, Filing()), TeeRecorder)


def test_the_tee_hands_every_call_to_each_recorder_in_order() -> None:
    plain, filing = Filing(), FilingDecisions()
    tee = TeeRecorder(plain, filing)
    header = {"round": 1}
    tee.round_started(header)
    tee.message("from_agent", 2, "junk", 1.5, late=True)
    tee.event(event(7))
    tee.decision(1, {"attempt": 0})
    tee.round_ended({"ok": 1})
    assert header == {"round": 1}  # each got a copy
    assert plain.calls == [
        ("round_started", {"round": 1, "mine": True}),
        ("message", ("from_agent", 2, "junk", 1.5, True)),
        ("event", 7),
        ("round_ended", {"ok": 1}),
    ]
    assert filing.calls[3] == ("decision", (1, {"attempt": 0}))
    assert len(filing.calls) == 5


def timeless(events: Sequence[Event]) -> list[dict[str, Any]]:
    """Events without what measures time (latencies, a turn's wall-clock deadline)."""
    shown = list(strip_timing(json.dumps(e.to_dict()) for e in events))
    for data in shown:
        data["data"].pop("deadline_at", None)
    return shown


# --- a real match -----------------------------------------------------------------------


def hidden_cards_in(events: Sequence[dict[str, Any]]) -> list[tuple[int | None, int | None, str]]:
    """Every (round, seq, card) where an event shows a card that is still hidden: not
    yet played, and not a bottom card already shown. A round's result shows the hands
    left (the round is over), so it hides nothing; nor does anything between rounds.
    Other messages among the events (the overlay's snapshots) are checked the same way,
    against what the events before them showed (their round and seq: None)."""
    leaks = []
    shown: set[str] = set(CANONICAL_CARDS)
    for data in events:
        kind = data["type"]
        if kind == "round_started":
            shown = set()
        elif kind == "landlord_chosen":
            shown |= set(data["data"]["bottom_cards"])
        elif kind == "play":
            shown |= set(data["data"]["cards"])
        elif kind == "round_result":
            shown = set(CANONICAL_CARDS)
        text = json.dumps(data, ensure_ascii=False)
        leaks += [
            (data.get("round"), data.get("seq"), c)
            for c in CANONICAL_CARDS
            if c not in shown and c in text
        ]
    return leaks


async def test_the_feed_shows_the_real_deal_and_every_hand_after_every_play(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput(clock)
    feed = feed_on(clock, out)
    feed.start()
    replay = ReplayWriter(tmp_path / "teed.jsonl")
    summary, sink = await play(
        tee_recorders(replay.for_table("t1"), feed.for_table("t1")), rounds=4, seed=45
    )
    replay.close()
    await feed.close()

    assert feed.pending == 0
    assert feed.dropped == 0
    assert [r.result.deals for r in summary.rounds] == [1, 1, 2, 1]  # round 3: a redeal
    for item, received in zip(out.items, out.received_at, strict=True):
        assert received >= item["at"] / 1000 - EPOCH + DELAY  # never early
    assert [i["seq"] for i in out.items] == list(range(1, len(out.items) + 1))
    assert [i["event"] for i in out.of_kind("event")] == [e.to_dict() for e in sink.events]
    for record in summary.rounds:
        result = record.result
        items = [i for i in out.of_kind("hands") if i["round"] == record.round_no]
        deals = [i for i in items if i["reason"] == "deal"]
        assert len(deals) == result.deals
        assert deals[-1]["hands"] == [[c.text for c in h] for h in result.deal.hands]
        assert deals[-1]["bottom"] == [c.text for c in result.deal.bottom]
        assert deals[-1]["players"] == list(record.players)
        assert items[-1]["hands"] == [[c.text for c in h] for h in result.final_hands]
        assert items[-1]["landlord"] == result.landlord
        plays = [e for e in sink.of_type("play") if e.round == record.round_no]
        assert [i["after_seq"] for i in items if i["reason"] == "play"] == [e.seq for e in plays]


async def test_every_hands_item_holds_each_card_once_with_the_cards_played() -> None:
    """Conservation: hands + cards played in the round (+ the bottom before the landlord
    takes it) are the 54 cards, each once, at every item."""
    clock = ManualClock()
    out = CollectingSpectatorOutput()
    feed = feed_on(clock, out, delay_s=0)
    _, sink = await play(feed.for_table("t1"), rounds=3, seed=5)
    await feed.close()
    played: dict[int, list[str]] = {}
    for item in out.items:
        if item["kind"] == "event" and item["event"]["type"] == "play":
            played.setdefault(item["round"], []).extend(item["event"]["data"]["cards"])
        if item["kind"] != "hands":
            continue
        cards = [c for h in item["hands"] for c in h] + played.get(item["round"], [])
        if item["landlord"] is None:
            cards += item["bottom"]
        assert sorted(cards) == sorted(CANONICAL_CARDS), (item["round"], item["seq"])
    assert len(out.of_kind("hands")) > len(sink.of_type("play"))


async def test_no_public_event_shows_a_card_still_hidden() -> None:
    clock = ManualClock()
    out = CollectingSpectatorOutput()
    feed = feed_on(clock, out, delay_s=0)
    _, sink = await play(feed.for_table("t1"), rounds=5, seed=3)
    await feed.close()
    assert sink.of_type("play"), "nothing was played"
    assert hidden_cards_in([e.to_dict() for e in sink.events]) == []
    # the oracle sees hidden cards where there are some: the feed's own items
    as_events = [{"type": i["kind"], **i} for i in out.items if i["kind"] != "event"]
    with_rounds = [{"type": "round_started", "round": 1, "seq": 0}, *as_events]
    assert hidden_cards_in(with_rounds)


async def test_teed_with_the_feed_the_replay_and_the_events_are_unchanged(tmp_path: Path) -> None:
    clock = ManualClock()
    feed = feed_on(clock, CollectingSpectatorOutput())
    alone, teed = ReplayWriter(tmp_path / "alone.jsonl"), ReplayWriter(tmp_path / "teed.jsonl")
    _, sink_alone = await play(alone.for_table("t1"))
    _, sink_teed = await play(tee_recorders(teed.for_table("t1"), feed.for_table("t1")))
    alone.close()
    teed.close()
    await feed.close()
    assert compare_replays(alone.path, teed.path) is None
    assert timeless(sink_teed.events) == timeless(sink_alone.events)
    rounds = load_replay(teed.path).rounds
    assert len(rounds) == 3
    for recorded in rounds:
        verify_round(recorded)
