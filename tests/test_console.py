"""What the terminal says: the plain lines' wording and the live board's layout.

Specification (issue 7): "Wording: '(1 retries left)' ...; grab bidding says
'calls/grabs' instead of which" — a grab-mode bid event carries ``data["grab"]``: true
when the seat was grabbing (抢地主 / 不抢), false when calling (叫地主 / 不叫). And
"`--tables 4` on the live board shows two tables and cuts off the rest: show every table
compactly on an ordinary terminal" — 4, 8 and 16 tables fit 80×24, and more say how many
rows did not fit instead of cutting them silently.

And (issue 7, a newcomer's trial) "A broken agent produces no summary": the end of a
match shows each player's faults by category and the rounds a stand-in played for it,
the first rejection line of a match says where its detail is, and the compact board
heads its seat columns with the players' names, not numbers that could be read as the
config's 0-based ``seats.N``.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import pytest
from rich.console import Console

from arena.config import parse_config
from arena.events import Event
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.engine import Rules
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.console import LiveConsoleSink, PlainConsoleSink
from arena.sinks.console_lines import describe
from arena.table import Table, TableSettings, play_match


def event(kind: Any, data: dict[str, Any], *, player: str = "Ann") -> Event:
    return Event(kind, "t1", 1, 5, seat=0, player=player, data=data)


# ─── plain lines ────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("left", "words"), [(2, "(2 retries left)"), (1, "(1 retry left)"), (0, "(0 retries left)")]
)
def test_a_fault_counts_the_retries_left_in_good_english(left: int, words: str) -> None:
    line = describe(event("fault", {"category": "illegal", "retries_left": left}))
    assert line == f"[t1 r1] ✗ Ann: illegal reply {words}"


@pytest.mark.parametrize(
    ("category", "words"),
    [
        ("timeout", "no reply in time"),
        ("empty", "empty reply"),
        ("unparsable", "unreadable reply"),
        ("truncated", "reply too long"),
        ("agent_error", "agent failed"),
    ],
)
def test_a_fault_says_what_went_wrong_in_words(category: str, words: str) -> None:
    """Not "timeout reply" for a reply that never came (a newcomer's trial)."""
    line = describe(event("fault", {"category": category, "retries_left": 1}))
    assert line == f"[t1 r1] ✗ Ann: {words} (1 retry left)"


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"bid": 1, "mode": "grab", "grab": False}, "calls the landlord (叫地主)"),
        ({"bid": 0, "mode": "grab", "grab": False}, "does not call (不叫)"),
        ({"bid": 1, "mode": "grab", "grab": True}, "grabs the landlord (抢地主)"),
        ({"bid": 0, "mode": "grab", "grab": True}, "does not grab (不抢)"),
        ({"bid": 1, "mode": "grab"}, "bids for landlord"),  # a replay from before the flag
        ({"bid": 2, "mode": "single_round"}, "bids 2"),
        ({"bid": 0, "mode": "single_round"}, "passes the bid"),
    ],
)
def test_a_bid_line_says_what_the_bid_was(data: dict[str, Any], words: str) -> None:
    assert describe(event("bid", data)) == f"[t1 r1] Ann {words}"


async def test_a_grab_bidding_round_reads_as_calls_then_grabs() -> None:
    sink = CollectingSink()
    rules = Rules(bidding="grab")
    agents = [HeuristicAgent(name, seed=i, rules=rules) for i, name in enumerate("ABC")]
    table = Table(agents, rules=rules, settings=TableSettings(pace_s=0), sinks=[sink])
    await play_match(table, rounds=6, seed=11)
    lines = [describe(e) or "" for e in sink.of_type("bid")]
    assert not any("/" in line for line in lines)  # no more "calls/grabs"
    assert any("叫地主" in line for line in lines)
    assert any("抢地主" in line or "不抢" in line for line in lines)
    for e, line in zip(sink.of_type("bid"), lines, strict=True):
        # nobody grabs before somebody called: a round's first 1 is a call
        assert ("抢" in line) == bool(e.data["grab"])


# ─── the live board ─────────────────────────────────────────────────────────────────────


async def events_of(tables: int) -> list[Event]:
    """A real match at ``tables`` tables, events interleaved as concurrent tables'."""
    sink = CollectingSink()
    config = parse_config({"match": {"rounds": 1, "tables": tables}, "table": {"pace_s": 0}})
    await run_arena(config, seed=5, sinks=[sink])
    per_table: dict[str, list[Event]] = {}
    for e in sink.events:
        per_table.setdefault(e.table, []).append(e)
    longest = max(len(v) for v in per_table.values())
    return [v[i] for i in range(longest) for v in per_table.values() if i < len(v)]


async def board(events: Sequence[Event], *, width: int = 80, height: int = 24) -> list[str]:
    """The board's last frame on a terminal of the given size, as lines of text."""
    out = io.StringIO()
    sink = LiveConsoleSink(Console(file=out, width=width, height=height, color_system=None))
    for e in events:
        await sink.emit(e)
    await sink.close()
    return out.getvalue().rstrip("\n").splitlines()


def cells(line: str) -> int:
    return Console(width=1000).measure(line).maximum


@pytest.mark.parametrize("tables", [4, 8, 16])
async def test_every_table_has_a_row_on_an_80_by_24_terminal(tables: int) -> None:
    everything = await events_of(tables)
    lines = await board(everything[: len(everything) * 2 // 3])  # mid-match
    assert len(lines) <= 24
    assert all(cells(line) <= 80 for line in lines), max(lines, key=cells)
    shown = [line.split()[0] for line in lines[2:]]
    assert shown == [f"t{i}" for i in range(1, tables + 1)]
    assert any("▶" in line for line in lines)  # whose turn it is
    assert any(" plays " in line or " pass" in line for line in lines)  # the last action


async def test_the_seat_columns_are_headed_by_the_players_names() -> None:
    lines = await board(await events_of(4))
    assert lines[1].split()[:5] == ["table", "round", "Alpha", "Beta", "Gamma"]
    assert "seat" not in lines[1]
    seat_cells = [line[: lines[1].index("last")] for line in lines[2:]]
    assert not any(name in cells for cells in seat_cells for name in ("Alpha", "Beta", "Gamma"))


async def test_tables_seating_different_players_name_them_in_each_cell() -> None:
    """A library user may put other players at one table: a shared head would lie."""
    others = {"Alpha": "Xena", "Beta": "Yuri", "Gamma": "Zoe"}
    events = [
        e._replace(data={**e.data, "players": [others[p] for p in e.data["players"]]})
        if e.table == "t2" and e.type in ("match_started", "round_started")
        else e
        for e in await events_of(4)
    ]
    lines = await board(events[: len(events) // 2])
    assert lines[1].split()[:5] == ["table", "round", "player", "player", "player"]
    rows = {line.split()[0]: line for line in lines[2:]}
    assert all(name in rows["t2"] for name in ("Xena", "Yuri", "Zoe"))
    assert all(name in rows["t1"] for name in ("Alpha", "Beta", "Gamma"))


async def test_tables_beyond_the_terminal_are_counted_not_cut_silently() -> None:
    lines = await board(await events_of(30))
    assert len(lines) <= 24
    assert lines[-1].startswith("10 more tables not shown (t21…t30)")
    assert [line.split()[0] for line in lines[2:-1]] == [f"t{i}" for i in range(1, 21)]


async def test_a_taller_terminal_shows_them_all() -> None:
    lines = await board(await events_of(30), height=40)
    assert len(lines) == 32
    assert "not shown" not in "\n".join(lines)


@pytest.mark.parametrize("tables", [1, 2])
async def test_one_or_two_tables_get_whole_boards(tables: int) -> None:
    lines = await board(await events_of(tables))
    assert len(lines) <= 24
    titles = [line for line in lines if "斗地主 Arena · t" in line]
    assert len(titles) == tables
    assert sum("match over" in line for line in lines) == tables


async def test_the_board_is_drawn_at_most_ten_times_a_clock_second(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Drawing is the board's whole cost: one frame per 0.1 s of its clock, and the last."""
    drawn: list[int] = []
    render = LiveConsoleSink._render

    def counting(sink: LiveConsoleSink) -> Any:
        drawn.append(1)
        return render(sink)

    monkeypatch.setattr(LiveConsoleSink, "_render", counting)
    now = [100.0]
    out = io.StringIO()
    sink = LiveConsoleSink(Console(file=out, width=80, height=24), clock=lambda: now[0])
    events = await events_of(2)
    for e in events[:50]:
        await sink.emit(e)
    assert len(drawn) == 1  # the first frame; the clock stood still since
    now[0] += 0.25
    for e in events[50:]:
        await sink.emit(e)
    assert len(drawn) == 2
    await sink.close()
    assert len(drawn) == 3  # the final frame always
    assert "match over" in out.getvalue()


# ─── the end of a match: who faulted, and where a stand-in played ───────────────────────

FAULTY_SEATS = [
    {"name": "A"},
    {"name": "B", "type": "agents_for_tests:FaultyAgent"},
    {"name": "C"},
]


async def faulty_match(*sinks: Any, tables: int = 1) -> CollectingSink:
    """B's agent raises on every play request; two rounds per table."""
    collected = CollectingSink()
    config = parse_config(
        {"match": {"rounds": 2, "tables": tables}, "table": {"pace_s": 0}, "seats": FAULTY_SEATS}
    )
    await run_arena(config, seed=3, sinks=[collected, *sinks])
    return collected


def expected_troubles(collected: CollectingSink, table: str = "t1") -> str:
    """The line B's faults and stand-ins should get, counted from the events themselves."""
    [ended] = [e for e in collected.of_type("match_ended") if e.table == table]
    faults = {kind: n for kind, n in ended.data["faults"]["B"].items() if n}
    assert set(faults) == {"agent_error", "fallback"}  # what FaultyAgent brings about
    standins = sum(
        "B" in e.data["standins"] for e in collected.of_type("round_result") if e.table == table
    )
    assert standins > 0
    each = ", ".join(f"{n} {kind}" for kind, n in faults.items())
    return (
        f"[{table} r2] B: {sum(faults.values())} faults ({each}); "
        f"a heuristic stand-in played {standins} of 2 rounds for it"
    )


async def test_the_plain_lines_end_with_each_faulty_players_faults_and_stand_ins() -> None:
    out = io.StringIO()
    collected = await faulty_match(PlainConsoleSink(out))
    lines = out.getvalue().splitlines()
    assert lines[-2].startswith("[t1 r2] match over: ")
    assert lines[-1] == expected_troubles(collected)  # and none for A or C


async def test_a_match_without_faults_ends_with_the_scores() -> None:
    out = io.StringIO()
    config = parse_config({"match": {"rounds": 1}, "table": {"pace_s": 0}})
    await run_arena(config, seed=3, sinks=[PlainConsoleSink(out, fault_hint="see the log")])
    assert out.getvalue().splitlines()[-1].startswith("[t1 r1] match over: ")


async def test_the_first_fault_of_each_match_says_where_the_detail_is() -> None:
    out = io.StringIO()
    await faulty_match(PlainConsoleSink(out, fault_hint="details in the log"), tables=2)
    faults = [line for line in out.getvalue().splitlines() if " ✗ B: " in line]
    hinted = [line for line in faults if line.endswith(" — details in the log")]
    assert len(faults) > 4
    assert [line.split()[0] for line in hinted] == ["[t1", "[t2"]
    assert hinted[0] == "[t1 r1] ✗ B: agent failed (2 retries left) — details in the log"


async def test_the_live_board_leaves_the_faults_below_the_final_board() -> None:
    out = io.StringIO()
    live = LiveConsoleSink(Console(file=out, width=200, height=40, color_system=None))
    collected = await faulty_match(live)
    await live.close()
    assert out.getvalue().rstrip("\n").splitlines()[-1] == expected_troubles(collected)


async def test_faults_and_stand_ins_read_in_good_english() -> None:
    """One fault, one round; the stand-in's type as the seat_replaced event names it."""
    out = io.StringIO()
    sink = PlainConsoleSink(out)
    result = {
        "result": {"landlord_won": True, "bombs": 0, "rockets": 0, "call_score": 1},
        "scores": {"Ann": 2, "Bob": -1, "Cid": -1},
        "standins": ["Bob"],
    }
    ended = {
        "players": ["Ann", "Bob", "Cid"],
        "rounds": 1,
        "standings": [{"player": "Ann", "score": 2}],
        "faults": {"Ann": {"illegal": 1, "timeout": 0}, "Bob": {"timeout": 3, "fallback": 3}},
    }
    for e in (
        Event("match_started", "t1", 0, 0, data={"players": ["Ann", "Bob", "Cid"], "rounds": 1}),
        Event("seat_replaced", "t1", 1, 1, 1, "Bob", {"by": "greedy", "reason": "3 failed"}),
        Event("round_result", "t1", 1, 2, 0, "Ann", result),
        Event("match_ended", "t1", 1, 3, data=ended),
    ):
        await sink.emit(e)
    assert out.getvalue().splitlines()[-2:] == [
        "[t1 r1] Ann: 1 fault (1 illegal)",
        "[t1 r1] Bob: 6 faults (3 timeout, 3 fallback); a greedy stand-in played 1 of 1 round "
        "for it",
    ]


# ─── many tables: each round's result, not its play ────────────────────────────────────


async def test_without_actions_the_plain_lines_keep_results_faults_and_the_end() -> None:
    """The same faulty match with and without actions: the play is gone, every other
    line is there, in the same order."""
    every, results = io.StringIO(), io.StringIO()
    await faulty_match(PlainConsoleSink(every))
    collected = await faulty_match(PlainConsoleSink(results, actions=False))
    shown = results.getvalue().splitlines()
    assert not any(" plays " in line or " bids " in line or "passes" in line for line in shown)
    assert [line for line in every.getvalue().splitlines() if line in shown] == shown
    assert not any(" match: " in line for line in shown)  # its players end it
    results_told = [line for line in shown if "the landlord wins" in line or "farmers win" in line]
    assert [line.split()[1] for line in results_told] == ["r1]", "r2]"]
    assert any(" ✗ B: agent failed" in line for line in shown)  # faults are still told
    assert shown[-1] == expected_troubles(collected)


def test_more_tables_than_plain_lines_show_play_print_results_and_say_so(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from arena.cli import main
    from arena.sinks.console import PLAIN_ACTIONS_UP_TO

    tables = str(PLAIN_ACTIONS_UP_TO + 1)
    assert main(["play", "--no-live", "--rounds", "1", "--tables", tables, "--seed", "4"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert sum("match over:" in line for line in lines) == PLAIN_ACTIONS_UP_TO + 1
    assert not any(" plays " in line for line in lines)
    assert f"arena: {tables} tables: each round's result is printed, not its play" in captured.err
    assert main(["play", "--no-live", "--rounds", "1", "--tables", "2", "--seed", "4"]) == 0
    captured = capsys.readouterr()
    assert " plays " in captured.out
    assert "each round's result is printed" not in captured.err


async def test_a_queue_before_plain_lines_without_actions_holds_none_of_the_play() -> None:
    """At many tables the play must not fill the console's queue: it is never queued (so
    it cannot crowd out the results), and what is printed is as without a queue."""
    from arena.sinks.queued import QueuedSink

    every = CollectingSink()
    await faulty_match(every)
    direct, through_queue = io.StringIO(), io.StringIO()
    queued = QueuedSink(PlainConsoleSink(through_queue, actions=False))
    plain = PlainConsoleSink(direct, actions=False)
    most_queued = 0
    for event in every.events:
        await queued.emit(event)  # the drain runs only when emit yields
        await plain.emit(event)
        most_queued = max(most_queued, queued.queued)
    await queued.close()
    shown = sum(1 for e in every.events if e.type not in plain.skipped_kinds)
    assert len(every.events) > 2 * shown  # most of a match is its play
    assert most_queued <= shown
    assert queued.dropped == 0
    assert through_queue.getvalue() == direct.getvalue()
    assert direct.getvalue().splitlines()[-2].startswith("[t1 r2] match over: ")
