"""Model seats on the terminal: the thinking clock, moods, and each model's figures.

Specification (issue 9): "The live board shows the seat that is thinking with its
elapsed seconds, and each comment with its emotion"; legal on the first answer, legal
after retries, tokens and cost "go to the round record, the replay, public events and
the live board"; a budget running out "switches the seat to a configured cheaper model
or to its stand-in, and an event says so on stream"; a seat whose agent is unavailable
keeps its stand-in "for the rest of the match". The table's events: ``turn_started``,
``decision`` (model, attempts, legal_first_try, fell_back, tokens, cost, latency_ms),
``budget_spent`` (switched_to, spent) and ``seat_replaced`` (by, reason, until).

Time is a fake clock handed to the sinks; the live board's own redraw thread is what
makes the seconds count up, so the tests draw frames the way that thread does.
"""

from __future__ import annotations

import asyncio
import io
from typing import Any

import pytest
from rich.console import Console

from arena.events import Event
from arena.sinks.console import LiveConsoleSink, PlainConsoleSink
from arena.sinks.console_lines import describe

PLAYERS = ["Alpha", "Beta", "Gamma"]


class Clock:
    def __init__(self, now: float = 100.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Script:
    """Events of table t1 as a table numbers them."""

    def __init__(self) -> None:
        self.seq = 0
        self.round = 0

    def __call__(self, kind: Any, seat: int | None = None, **data: Any) -> Event:
        self.seq += 1
        if kind == "round_started":
            self.round += 1
        player = None if seat is None else PLAYERS[seat]
        return Event(kind, "t1", self.round, self.seq, seat, player, data)


def decision(**changes: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "model": "gpt-test",
        "provider": "openai",
        "attempts": 1,
        "legal_first_try": True,
        "fell_back": False,
        "faults": [],
        "latency_ms": 2100.0,
        "input_tokens": 1200,
        "output_tokens": 40,
        "reasoning_tokens": 0,
        "estimated": False,
        "cost": 0.00125,
    }
    data.update(changes)
    return data


def opening(e: Script) -> list[Event]:
    return [
        e("match_started", players=PLAYERS, rounds=2),
        e("round_started", players=PLAYERS),
    ]


def frame(sink: LiveConsoleSink, console: Console) -> str:
    """What rich's redraw thread draws now, once the sink has taken in its events (a
    moment after the last one: frames are built at most every REDRAW_S)."""
    sink._redraw()
    return drawn(sink, console)


def drawn(sink: LiveConsoleSink, console: Console) -> str:
    """What rich's redraw thread draws now: the Live's own refresh, on a terminal."""
    out = console.file
    assert isinstance(out, io.StringIO)
    out.seek(0)
    out.truncate()
    assert sink._live is not None
    assert sink._live.auto_refresh  # a thread redraws 10 times a second, events or not
    sink._live.refresh()
    return out.getvalue()


def terminal(width: int = 120) -> Console:
    return Console(
        file=io.StringIO(), width=width, height=30, force_terminal=True, color_system=None
    )


# ─── the live board ─────────────────────────────────────────────────────────────────────


async def test_the_thinking_seat_counts_its_seconds_without_events() -> None:
    clock, e, console = Clock(), Script(), terminal()
    sink = LiveConsoleSink(console, clock=clock)
    for event in opening(e):
        await sink.emit(event)
    clock.now += 1
    await sink.emit(e("turn_started", 1, request="BID_REQUEST", agent="Beta"))
    try:
        assert "▶ Beta" in frame(sink, console)
        assert "▶ Beta 0" not in frame(sink, console)  # a quick turn shows no clock
        clock.now += 4.25
        assert "▶ Beta 4.2 s" in frame(sink, console)
        clock.now += 20
        assert "▶ Beta 24 s" in frame(sink, console)
        clock.now += 0.5
        await sink.emit(e("decision", 1, **decision()))
        await sink.emit(e("bid", 1, bid=1, mode="call_score", comment="稳了", emotion="confident"))
        shown = frame(sink, console)
        assert "▶ Beta" in shown  # still the last seat asked
        assert " s " not in shown.split("▶ Beta", 1)[1][:6]  # the clock stopped
        assert "😎 稳了" in shown
    finally:
        await sink.close()


async def test_a_turn_started_a_moment_after_a_frame_is_drawn_a_moment_later() -> None:
    """Frames are drawn at most every REDRAW_S; an event inside that gap is drawn when
    it ends, not only when the next event comes (a model may think for a minute)."""
    clock, e, console = Clock(), Script(), terminal()
    sink = LiveConsoleSink(console, clock=clock)
    sink.REDRAW_S = 0.01
    for event in opening(e):
        await sink.emit(event)
    await sink.emit(e("turn_started", 2, request="BID_REQUEST", agent="Gamma"))
    try:
        assert "▶ Gamma" not in drawn(sink, console)  # the clock stood still: not yet
        await asyncio.sleep(0.05)
        assert "▶ Gamma" in drawn(sink, console)
    finally:
        await sink.close()


async def test_each_model_seat_shows_its_legal_first_try_rate_and_cost() -> None:
    clock, e, console = Clock(), Script(), terminal()
    sink = LiveConsoleSink(console, clock=clock)
    events = [
        *opening(e),
        e("turn_started", 0, request="BID_REQUEST", agent="Alpha"),
        e("bid", 0, bid=0, mode="call_score"),
        e("turn_started", 1, request="BID_REQUEST", agent="Beta"),
        e("decision", 1, **decision()),
        e("bid", 1, bid=3, mode="call_score"),
        e("turn_started", 1, request="PLAY_REQUEST", agent="Beta"),
        e("fault", 1, category="illegal", retries_left=2),
        e("decision", 1, **decision(attempts=2, legal_first_try=False, faults=["illegal"])),
        e("pass", 1),
        e("round_started", players=PLAYERS),
    ]
    for event in events:
        await sink.emit(event)
    try:
        rows = frame(sink, console).splitlines()
        beta = next(row for row in rows if "Beta" in row and "legal 1st" in row)
        assert "gpt-test 1/2 legal 1st · 0.0025" in beta  # carried into the next round
        assert not any("legal 1st" in row for row in rows if "Alpha" in row or "Gamma" in row)
    finally:
        await sink.close()


async def test_a_scripted_board_has_no_model_column() -> None:
    clock, e, console = Clock(), Script(), terminal()
    sink = LiveConsoleSink(console, clock=clock)
    for event in opening(e):
        await sink.emit(event)
    try:
        assert "legal 1st" not in frame(sink, console)
    finally:
        await sink.close()


async def test_a_model_without_prices_shows_its_tokens() -> None:
    clock, e, console = Clock(), Script(), terminal()
    sink = LiveConsoleSink(console, clock=clock)
    for event in [*opening(e), e("decision", 0, **decision(cost=None, input_tokens=12_000))]:
        await sink.emit(event)
    try:
        assert "gpt-test 1/1 legal 1st · 12.0k tok" in frame(sink, console)
    finally:
        await sink.close()


async def test_a_stand_in_for_the_rest_of_the_match_stays_on_the_board() -> None:
    clock, e, console = Clock(), Script(), terminal(140)
    sink = LiveConsoleSink(console, clock=clock)
    events = [
        *opening(e),
        e("seat_replaced", 0, by="heuristic", reason="401 bad key", until="match_end"),
        e("seat_replaced", 2, by="heuristic", reason="3 failed decisions in a row"),
    ]
    for event in events:
        await sink.emit(event)
    try:
        shown = frame(sink, console)
        assert "Alpha (heuristic for the match)" in shown
        assert "Gamma (heuristic)" in shown
        assert "Alpha is replaced by a heuristic stand-in for the rest of the match: 401" in shown
        await sink.emit(e("round_started", players=PLAYERS))
        clock.now += 1
        await sink.emit(e("round_started", players=PLAYERS))
        shown = frame(sink, console)
        assert "Alpha (heuristic for the match)" in shown
        assert "Gamma (" not in shown  # a stand-in for one round is gone
    finally:
        await sink.close()


async def test_many_tables_say_who_is_thinking_and_for_how_long() -> None:
    clock, console = Clock(), terminal(80)
    console.size = (80, 12)
    sink = LiveConsoleSink(console, clock=clock)
    for table in ("t1", "t2", "t3"):
        for event in opening(Script()):
            await sink.emit(event._replace(table=table))
    await sink.emit(Event("turn_started", "t2", 1, 3, 1, "Beta", {"request": "PLAY_REQUEST"}))
    try:
        clock.now += 7.5
        rows = frame(sink, console).splitlines()
        assert any(row.startswith("t2") and "Beta is thinking 7.5 s" in row for row in rows)
        assert not any("thinking" in row for row in rows if row.startswith(("t1", "t3")))
    finally:
        await sink.close()


# ─── plain lines ────────────────────────────────────────────────────────────────────────


async def plain(events: list[Event], clock: Clock, steps: dict[int, float]) -> list[str]:
    """The plain lines, the clock moving by ``steps[i]`` before event ``i``."""
    out = io.StringIO()
    sink = PlainConsoleSink(out, clock=clock)
    for index, event in enumerate(events):
        clock.now += steps.get(index, 0.0)
        await sink.emit(event)
    await sink.close()
    return out.getvalue().splitlines()


async def test_a_model_action_line_carries_its_decision_and_the_match_end_its_figures() -> None:
    e = Script()
    ended: dict[str, Any] = {
        "players": PLAYERS,
        "rounds": 1,
        "standings": [{"player": p, "score": 0} for p in PLAYERS],
        "faults": {},
    }
    events = [
        *opening(e),
        e("turn_started", 1, request="PLAY_REQUEST", agent="Beta"),
        e("decision", 1, **decision(attempts=2, legal_first_try=False, latency_ms=3400.0)),
        e(
            "play",
            1,
            cards=["♠3"],
            hand_type="SINGLE",
            cards_left=16,
            comment="先走",
            emotion="nervous",
        ),
        e("turn_started", 2, request="PLAY_REQUEST", agent="Gamma"),
        e("pass", 2),
        e("turn_started", 0, request="PLAY_REQUEST", agent="Alpha"),
        e("pass", 0),
        e("decision", 1, **decision(reasoning_tokens=300, estimated=True)),
        e("pass", 1),
        e("match_ended", **ended),
    ]
    lines = await plain(events, Clock(), {6: 0.2, 8: 1.5})
    assert lines[2] == (
        "[t1 r1] Beta plays ♠3 (SINGLE), 16 left 😰  「先走」"
        "  [gpt-test · 3.4 s · 2 attempts · cost 0.00125]"
    )
    assert lines[3] == "[t1 r1] Gamma passes"  # a quick turn: no seconds
    assert lines[4] == "[t1 r1] Alpha passes  [1.5 s]"  # a slow one, whoever plays it
    assert lines[5] == "[t1 r1] Beta passes  [gpt-test · 2.1 s · cost 0.00125 · tokens estimated]"
    assert lines[-1] == (
        "[t1 r1] Beta (gpt-test): 1 of 2 decisions legal at the first try, 1 after a retry, "
        "0 fell back; 2,400 tokens in, 80 out (300 reasoning); cost 0.0025; 2.8 s a decision"
    )


async def test_the_match_end_names_both_models_after_a_budget_switch() -> None:
    e = Script()
    ended: dict[str, Any] = {
        "players": PLAYERS,
        "rounds": 1,
        "standings": [{"player": p, "score": 0} for p in PLAYERS],
        "faults": {},
    }
    events = [
        *opening(e),
        e("decision", 1, **decision(model="claude-sonnet-4-5")),
        e("budget_spent", 1, switched_to="claude-haiku-4-5", spent={"cost": 0.5}),
        e("decision", 1, **decision(model="claude-haiku-4-5")),
        e("decision", 1, **decision(model="claude-haiku-4-5")),
        e("match_ended", **ended),
    ]
    lines = await plain(events, Clock(), {})
    assert lines[-1].startswith(
        "[t1 r1] Beta (claude-sonnet-4-5 → claude-haiku-4-5): 3 of 3 decisions legal"
    )


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (
            {"switched_to": "gpt-4o-mini", "spent": {"cost": 0.5012, "tokens": 48000}},
            "Beta has spent its budget (cost 0.501, 48,000 tokens): gpt-4o-mini plays on",
        ),
        ({"switched_to": "standin", "spent": {}}, "Beta has spent its budget: a stand-in plays on"),
        ({}, "Beta has spent its budget: a stand-in plays on for it"),
    ],
)
def test_a_spent_budget_is_said_on_stream(data: dict[str, Any], words: str) -> None:
    line = describe(Event("budget_spent", "t1", 1, 9, 1, "Beta", data))
    assert line is not None
    assert line.startswith(f"[t1 r1] {words}")


async def test_a_budget_switch_renames_the_model_on_the_board() -> None:
    clock, e, console = Clock(), Script(), terminal()
    sink = LiveConsoleSink(console, clock=clock)
    events = [
        *opening(e),
        e("decision", 1, **decision(model="gpt-4o")),
        e("budget_spent", 1, switched_to="gpt-4o-mini", spent={"cost": 0.5}),
    ]
    for event in events:
        await sink.emit(event)
    try:
        shown = frame(sink, console)
        assert "gpt-4o-mini 1/1 legal 1st" in shown
        assert "Beta has spent its budget (cost 0.5): gpt-4o-mini plays on" in shown
    finally:
        await sink.close()


# ─── nothing a table sends stops a display ──────────────────────────────────────────────

ODD_EVENTS = [
    Event("gift_received", "t1", 1, 3, 0, "Alpha", {"gift": "rocket"}),
    Event("decision", "t1", 1, 4, 1, "Beta", {}),
    Event("decision", "t1", 1, 5, 1, "Beta", {"attempts": "two", "cost": "free", "model": None}),
    Event("budget_spent", "t1", 1, 6, 1, "Beta", {"spent": "a lot"}),
    Event("seat_replaced", "t1", 1, 7, 2, "Gamma", {}),
    Event("turn_started", "t1", 1, 8, 7, None, {}),
]


@pytest.mark.parametrize("odd", ODD_EVENTS, ids=lambda e: f"{e.type}:{dict(e.data)}")
async def test_an_unknown_or_sparse_event_never_stops_a_sink(odd: Event) -> None:
    e = Script()
    out = io.StringIO()
    live = LiveConsoleSink(Console(file=out, width=100, height=30), clock=Clock())
    lines = io.StringIO()
    flat = PlainConsoleSink(lines, clock=Clock())
    for sink in (live, flat):
        for event in [*opening(e), odd, e("pass", 0)]:
            await sink.emit(event)
        await sink.close()
    assert "Alpha passes" in lines.getvalue()
    assert "Alpha" in out.getvalue()
    assert describe(odd) is None or odd.type in ("budget_spent", "seat_replaced")


# ─── figures a stream can show: no scientific notation, ms for fast servers ────────────


async def test_a_cheap_fast_model_shows_fixed_point_costs_and_milliseconds() -> None:
    e = Script()
    ended: dict[str, Any] = {
        "players": PLAYERS,
        "rounds": 1,
        "standings": [{"player": p, "score": 0} for p in PLAYERS],
        "faults": {},
    }
    cheap = decision(latency_ms=4.0, cost=7.24e-05)
    events = [*opening(e), e("decision", 1, **cheap), e("pass", 1), e("match_ended", **ended)]
    lines = await plain(events, Clock(), {})
    assert lines[2] == "[t1 r1] Beta passes  [gpt-test · 4 ms · cost 0.0000724]"
    assert lines[-1].endswith("; cost 0.0000724; 4 ms a decision")
    assert not any("e-0" in line for line in lines)


@pytest.mark.parametrize(
    ("spent", "words"),
    [
        ({"tokens": 3560, "cost": 0.0}, "Beta has spent its budget (3,560 tokens): a stand-in"),
        (
            {"tokens": 3560, "cost": 2.4e-05},
            "Beta has spent its budget (3,560 tokens, cost 0.000024)",
        ),
    ],
    ids=["no-prices", "prices"],
)
def test_a_budget_without_prices_says_no_cost(spent: dict[str, Any], words: str) -> None:
    line = describe(Event("budget_spent", "t1", 1, 9, 1, "Beta", {"spent": spent}))
    assert line is not None
    assert line.startswith(f"[t1 r1] {words}")


# ─── several tables: the end by table, then each model seat's total ────────────────────


def table_events(table: str, *decisions: dict[str, Any]) -> list[Event]:
    e = Script()
    ended: dict[str, Any] = {
        "players": PLAYERS,
        "rounds": 1,
        "standings": [{"player": p, "score": 0} for p in PLAYERS],
        "faults": {},
    }
    events = [*opening(e), *(e("decision", 1, **d) for d in decisions), e("match_ended", **ended)]
    return [Event(ev.type, table, ev.round, ev.seq, ev.seat, ev.player, ev.data) for ev in events]


async def test_several_tables_end_by_table_and_total_each_model_seat() -> None:
    t2 = table_events("t2", decision(), decision(legal_first_try=False, attempts=2))
    t10 = table_events("t10", decision(latency_ms=900.0))
    # t10 finishes first, t2 last: its events come after
    order = [*t2[:-1], *t10, t2[-1]]
    out = io.StringIO()
    flat = PlainConsoleSink(out, clock=Clock())
    console = Console(file=io.StringIO(), width=400, height=30, force_terminal=False)
    live = LiveConsoleSink(console, clock=Clock())
    for sink in (flat, live):
        for event in order:
            await sink.emit(event)
        await sink.close()
    total = (
        "[2 tables] Beta (gpt-test): 2 of 3 decisions legal at the first try, 1 after a "
        "retry, 0 fell back; 3,600 tokens in, 120 out; cost 0.00375; 1.7 s a decision"
    )
    plain_lines = out.getvalue().splitlines()
    assert plain_lines[-1] == total
    assert sum(line.startswith("[2 tables]") for line in plain_lines) == 1
    assert isinstance(console.file, io.StringIO)
    ends = [line for line in console.file.getvalue().splitlines() if "(gpt-test):" in line]
    assert [line.split()[0] for line in ends] == ["[t2", "[t10", "[2"]
    assert ends[-1] == total
