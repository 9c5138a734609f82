"""What the terminal says: the plain lines' wording and the live board's layout.

Specification (issue 7): "Wording: '(1 retries left)' ...; grab bidding says
'calls/grabs' instead of which" — a grab-mode bid event carries ``data["grab"]``: true
when the seat was grabbing (抢地主 / 不抢), false when calling (叫地主 / 不叫). And
"`--tables 4` on the live board shows two tables and cuts off the rest: show every table
compactly on an ordinary terminal" — 4, 8 and 16 tables fit 80×24, and more say how many
rows did not fit instead of cutting them silently.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import pytest
from rich.console import Console

from arena.agents import HeuristicAgent
from arena.config import parse_config
from arena.engine import Rules
from arena.runner import run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.console import LiveConsoleSink, describe
from arena.table import Table, TableSettings, play_match
from arena.table.events import Event


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
