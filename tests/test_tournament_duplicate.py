"""Duplicate mode (issue 13): every seating deals the same cards, each agent sits in
every seat, no agent carries a deal into its replay, nothing about a deal is told
before all its seatings ended, a cut-off group resumes, and the duplicate score."""

from __future__ import annotations

import dataclasses
import itertools
import json
import sqlite3
import sys
from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import DUPLICATE_LOG, REPEATED_HANDS, forget_duplicate_runs

from arena.errors import ConfigError
from arena.events import Event
from arena.games.ddz.engine import Rules
from arena.sinks.spectator import SpectatorFeed
from arena.table import RoundRecord, Table, play_match
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.deals import Duplicate, seating_count, seatings
from tournaments.leaderboard import Leaderboard
from tournaments.runner import _history, planned_rounds, run_tournament
from tournaments.schedule import FinishedTable
from tournaments.store import MatchRow, TournamentStore, round_record

BOT = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"


@pytest.fixture(autouse=True)
def _fresh_logs() -> Iterator[None]:
    forget_duplicate_runs()
    yield
    forget_duplicate_runs()


def config(
    duplicate: str = "rotations",
    agents: list[dict[str, Any]] | None = None,
    **tournament: Any,
) -> TournamentConfig:
    roster = agents or [
        {"name": "Ann", "type": "agents_for_tests:RememberingAgent"},
        {"name": "Bob", "type": "agents_for_tests:RememberingAgent"},
        {"name": "Cid", "type": "agents_for_tests:RememberingAgent"},
    ]
    return parse_tournament_config(
        {
            "tournament": {"name": "dup", "seed": 23, "duplicate": duplicate, **tournament},
            "agents": roster,
        },
        source="test",
    )


# --- seatings --------------------------------------------------------------------------


def test_rotations_seat_each_player_once_in_each_seat() -> None:
    orders = seatings(("A", "B", "C"), Duplicate.ROTATIONS)
    assert orders[0] == ("A", "B", "C")
    for seat in range(3):
        assert sorted(order[seat] for order in orders) == ["A", "B", "C"]


def test_all_is_every_order_once() -> None:
    orders = seatings(("A", "B", "C"), Duplicate.ALL)
    assert sorted(orders) == sorted(itertools.permutations("ABC"))
    assert seating_count(Duplicate.ALL, 3) == 6 == len(orders)
    assert seatings(("A", "B", "C"), Duplicate.OFF) == [("A", "B", "C")]


@pytest.mark.parametrize(("mode", "times"), [("rotations", 1), ("all", 2)])
async def test_every_seating_is_dealt_the_same_cards_and_every_agent_sits_everywhere(
    tmp_path: Path, mode: str, times: int
) -> None:
    with TournamentStore(tmp_path / "t.db") as store:
        run = await run_tournament(store, config(mode))
        matches = store.table_matches(run.tournament_id)
        headers = {(m.table_id, k): store.header(m.id, k) for m in matches for k in range(1, 11)}
        stored = store.rounds(run.tournament_id)
    count = seating_count(Duplicate(mode), 3)
    assert sorted(m.table_id for m in matches) == [f"s1t1.{n}" for n in range(1, count + 1)]
    assert all(m.status == "finished" for m in matches)
    assert len(stored) == 10 * count
    for name in ("Ann", "Bob", "Cid"):  # each agent in each seat, once (rotations) or twice
        assert Counter(m.players.index(name) for m in matches) == {0: times, 1: times, 2: times}
    for k in range(1, 11):  # round k: one seed and one plan at every seating
        plans = {
            (h["seed"], h["first_bidder"], h["landlord"])
            for (_, round_no), h in headers.items()
            if round_no == k
        }
        assert len(plans) == 1
    # and the cards: each seat's DEAL of round k is the same hand at every seating
    hands: dict[tuple[int, int], set[frozenset[str]]] = defaultdict(set)
    for seat_hand in _first_deals(tmp_path / "t.db", run.tournament_id):
        hands[seat_hand[0]].add(seat_hand[1])
    assert len(hands) == 30
    assert all(len(found) == 1 for found in hands.values())
    assert planned_rounds(config(mode), 23) == 10 * count == run.leaderboard.rounds
    # the cards played, too: nobody redeals in duplicate mode (an unbid deal is forced)
    for k in range(1, 11):
        played = [round_record(row).result for row in stored if row["round_no"] == k]
        assert {(result.deals, str(result.deal), result.bottom) for result in played} == {
            (1, str(played[0].deal), played[0].bottom)
        }


def _first_deals(path: Path, tid: str) -> Iterator[tuple[tuple[int, int], frozenset[str]]]:
    """((round, seat), hand) of each round's first DEAL at every seating, from the
    stored replay lines."""
    with TournamentStore(path) as store:
        for match in store.table_matches(tid):
            seen: set[tuple[int, int]] = set()
            for raw in store.replay_lines(match.id):
                line = json.loads(raw)
                message = line.get("message") or {}
                if line.get("kind") == "message" and message.get("type") == "DEAL":
                    key = (int(message["round_no"]), int(line["seat"]))
                    if key not in seen:
                        seen.add(key)
                        yield key, frozenset(message["hand"])


# --- no knowledge carried across seatings -----------------------------------------------


async def test_a_remembering_agent_is_never_dealt_a_hand_it_has_seen(tmp_path: Path) -> None:
    with TournamentStore(tmp_path / "t.db") as store:
        await run_tournament(store, config("all"))
    deals = [entry for entry in DUPLICATE_LOG if entry[0] == "DEAL"]
    assert len(deals) >= 3 * 60  # every seat of every round heard its deal
    assert REPEATED_HANDS == []


async def test_the_control_one_memory_across_seatings_would_have_seen_the_hands_again(
    tmp_path: Path,
) -> None:
    """The check bites: agents sharing one memory across their seatings (what a single
    instance at every seating would know) meet their hands again."""
    shared = [
        {"name": name, "type": "agents_for_tests:RememberingAgent", "options": {"share": True}}
        for name in ("Ann", "Bob", "Cid")
    ]
    with TournamentStore(tmp_path / "t.db") as store:
        await run_tournament(store, config("all", shared))
    assert len(REPEATED_HANDS) >= 3 * 10  # each agent sits in each seat twice a deal


async def test_results_and_events_of_a_deal_wait_for_all_its_seatings(tmp_path: Path) -> None:
    class LoggingSink:
        async def emit(self, event: Event) -> None:
            DUPLICATE_LOG.append(("EVENT", event.table, event.round, event.type))

        async def close(self) -> None:
            pass

    with TournamentStore(tmp_path / "t.db") as store:
        await run_tournament(store, config("rotations"), sinks=[LoggingSink()])
    at: dict[str, dict[int, list[int]]] = defaultdict(lambda: defaultdict(list))
    for index, (kind, _table, round_no, _who) in enumerate(DUPLICATE_LOG):
        if round_no is not None:
            at[kind][round_no].append(index)
    for k in range(1, 11):
        last_decision = max(at["PLAY"][k] + at["BID"][k])
        assert min(at["ROUND_RESULT"][k]) > last_decision
        assert min(at["EVENT"][k]) > last_decision  # the live feed waits too
        assert len(at["ROUND_RESULT"][k]) == 9  # told at last: 3 seats, 3 seatings
        if k < 10:
            assert max(at["ROUND_RESULT"][k]) < min(at["DEAL"][k + 1])
    # the seatings do play a deal at once: without holding, a result would come early
    firsts = [i for i, e in enumerate(DUPLICATE_LOG) if e[0] == "PLAY" and e[2] == 1]
    tables = [DUPLICATE_LOG[i][1] for i in firsts]
    assert tables.index("s1t1.3") < len(tables) - tables[::-1].index("s1t1.1") - 1


async def test_the_spectator_feed_hears_a_deal_after_all_its_seatings(tmp_path: Path) -> None:
    class LoggingFeed(SpectatorFeed):
        def put(self, item: dict[str, Any]) -> None:
            DUPLICATE_LOG.append(("SPECTATOR", item["table"], item["round"], item["kind"]))

    with TournamentStore(tmp_path / "t.db") as store:
        await run_tournament(store, config("rotations"), spectator=LoggingFeed([], delay_s=0))
    hands = [i for i, e in enumerate(DUPLICATE_LOG) if e[0] == "SPECTATOR" and e[2] == 1]
    decisions = [i for i, e in enumerate(DUPLICATE_LOG) if e[0] in ("BID", "PLAY") and e[2] == 1]
    assert {DUPLICATE_LOG[i][1] for i in hands} == {"s1t1.1", "s1t1.2", "s1t1.3"}
    assert min(hands) > max(decisions)


async def test_each_seating_starts_a_new_program(tmp_path: Path) -> None:
    record = tmp_path / "record.jsonl"
    program = {
        "name": "Prog",
        "type": "subprocess",
        "options": {"command": [sys.executable, str(BOT), "--record", str(record)]},
    }
    roster: list[dict[str, Any]] = [
        program,
        {"name": "Bob", "type": "greedy"},
        {"name": "Cid", "type": "heuristic"},
    ]
    with TournamentStore(tmp_path / "t.db") as store:
        await run_tournament(store, config("rotations", roster))
    heard: dict[int, set[str]] = defaultdict(set)
    hands: dict[int, list[frozenset[str]]] = defaultdict(list)
    for line in record.read_text().splitlines():
        entry = json.loads(line)
        message = entry["message"]
        if message.get("table_id"):
            heard[entry["pid"]].add(message["table_id"])
        if message["type"] == "DEAL":
            hands[entry["pid"]].append(frozenset(message["hand"]))
    assert sorted(t for tables in heard.values() for t in tables) == ["s1t1.1", "s1t1.2", "s1t1.3"]
    assert all(len(tables) == 1 for tables in heard.values())  # one process, one seating
    assert all(len(set(dealt)) == len(dealt) for dealt in hands.values())


# --- resuming ----------------------------------------------------------------------------


class Interrupted(Exception):
    """Stands for a crash."""


async def test_a_group_cut_off_between_its_seatings_resumes_as_if_never_cut(
    tmp_path: Path,
) -> None:
    roster = [
        {"name": "Ann", "type": "random"},
        {"name": "Bob", "type": "greedy"},
        {"name": "Cid", "type": "heuristic"},
    ]
    with TournamentStore(tmp_path / "whole.db") as store:
        whole = await run_tournament(store, config("rotations", roster))
        expected = _results(store, whole.tournament_id)
    heard = 0

    def crash_after_deal_four(board: dict[str, Any]) -> None:
        nonlocal heard
        heard += 1
        if heard == 12:  # the 3 seatings' rounds of deals 1-4 told
            raise Interrupted

    path = tmp_path / "cut.db"
    with TournamentStore(path) as store:
        with pytest.raises(Interrupted):
            await run_tournament(
                store, config("rotations", roster), on_leaderboard=crash_after_deal_four
            )
        tid = store.tournaments()[0].id
    _forget_round(path, "s1t1.2", 4)  # as if cut while seatings 2 and 3 played deal 4
    _forget_round(path, "s1t1.3", 4)
    with TournamentStore(path) as store:
        assert sorted(Counter(r["table"] for r in store.rounds(tid)).values()) == [3, 3, 4]
        resumed = await run_tournament(store, tournament_id=tid)
        assert _results(store, tid) == expected
    assert resumed.finished
    assert _untimed(resumed.leaderboard) == _untimed(whole.leaderboard)


def _untimed(board: Leaderboard) -> list[dict[str, Any]]:
    """The standings without the figures that time the agents."""
    timed = {"latency_ms", "mean_latency_ms"}
    return [{k: v for k, v in a.items() if k not in timed} for a in board.to_dict()["agents"]]


def _results(store: TournamentStore, tid: str) -> list[tuple[str, int, list[int]]]:
    return sorted((r["table"], r["round_no"], r["scores"]) for r in store.rounds(tid))


def _forget_round(path: Path, table: str, round_no: int) -> None:
    with sqlite3.connect(path) as db:
        (match,) = db.execute("SELECT id FROM table_matches WHERE table_id = ?", (table,))
        (row,) = db.execute(
            "SELECT id FROM rounds WHERE table_match_id = ? AND round_no = ?", (match[0], round_no)
        )
        db.execute("DELETE FROM faults WHERE round_id = ?", row)
        db.execute("DELETE FROM rounds WHERE id = ?", row)


# --- more agents: pairing sees one meeting per group ------------------------------------


async def test_a_round_robin_of_four_plays_every_triple_in_every_seating(tmp_path: Path) -> None:
    roster = [{"name": n, "type": t} for n, t in zip("ABCD", ["greedy", "random"] * 2, strict=True)]
    cfg = config("rotations", roster)
    with TournamentStore(tmp_path / "t.db") as store:
        run = await run_tournament(store, cfg)
        matches = store.table_matches(run.tournament_id)
    assert len(matches) == 4 * 3
    groups = Counter(m.table_id.split(".")[0] for m in matches)
    assert set(groups.values()) == {3}
    assert run.leaderboard.rounds == planned_rounds(cfg, 23) == 4 * 3 * 10
    assert all(line.deals == 30 for line in run.leaderboard.lines.values())


def _row(table: str, players: str, totals: tuple[int, int, int], done: bool = True) -> MatchRow:
    names = (players[0], players[1], players[2])
    summary = {"totals": dict(zip(names, totals, strict=True))} if done else None
    status: Any = "finished" if done else "running"
    stage = table[1 : table.index("t", 1)]
    return MatchRow(0, "t", stage, table, names, 1, status, summary, "", None)


def test_pairing_sees_a_group_as_one_meeting_with_its_points_summed() -> None:
    rows = [
        _row("s1t1.1", "ABC", (6, -3, -3)),
        _row("s1t1.2", "BCA", (2, 2, -4)),  # B 2, C 2, A -4
        _row("s1t1.3", "CAB", (0, 4, -4)),  # C 0, A 4, B -4
        _row("s1t2.1", "DEF", (1, 1, -2)),
        _row("s1t2.2", "EFD", (0, 0, 0), done=False),  # a group not finished: not history
        _row("s2t1.1", "ABD", (3, -3, 0)),  # a later stage: not yet
    ]
    assert _history(rows, before=2) == [FinishedTable(1, ("A", "B", "C"), (6, -5, -1))]


# --- refusals ----------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["quick", "daily"])
def test_duplicate_is_refused_for_quick_and_daily(format: str) -> None:
    with pytest.raises(ConfigError, match=r"test: tournament\.duplicate: .*not for a " + format):
        config("rotations", format=format)


def test_duplicate_is_refused_with_gifts() -> None:
    with pytest.raises(ConfigError, match=r"gifts\.enabled: not with tournament\.duplicate"):
        parse_tournament_config(
            {
                "tournament": {"name": "dup", "duplicate": "all"},
                "agents": [{"name": n} for n in "ABC"],
                "gifts": {"enabled": True},
            },
            source="test",
        )


async def test_duplicate_is_refused_with_gifts_from_the_command_line(tmp_path: Path) -> None:
    some_gifts: Any = object()  # refused before they are used
    with TournamentStore(tmp_path / "t.db") as store:
        with pytest.raises(ConfigError, match=r"gifts: not with tournament\.duplicate"):
            await run_tournament(store, config("rotations"), gifts=some_gifts)
        assert store.tournaments() == []  # nothing stored


def test_duplicate_is_refused_with_a_human_agent() -> None:
    roster = [{"name": "Me", "type": "human"}, {"name": "B"}, {"name": "C"}]
    with pytest.raises(ConfigError, match=r"tournament\.duplicate: agent 'Me' is human"):
        config("rotations", roster)


async def test_a_deal_nobody_bids_on_is_forced_not_redealt_at_every_seating(
    tmp_path: Path,
) -> None:
    """Random bidders: with seed 3 everyone passes at one seating of a deal but not at the
    others; a redeal would have given that seating other cards."""
    passers = parse_tournament_config(
        {
            "tournament": {"name": "passers", "seed": 3, "duplicate": "rotations"},
            "agents": [{"name": f"R{i}", "type": "random"} for i in range(3)],
        },
        source="test",
    )
    assert Rules.of(passers.rules).max_redeals == 0
    with TournamentStore(tmp_path / "t.db") as store:
        run = await run_tournament(store, passers)
        results = [round_record(row).result for row in store.rounds(run.tournament_id)]
    assert sum(result.forced_landlord for result in results) == 1  # the case arose
    assert all(result.deals == 1 for result in results)
    by_deal: dict[int | None, set[str]] = defaultdict(set)
    for result in results:
        by_deal[result.seed].add(str(result.deal))
    assert len(by_deal) == 10
    assert all(len(cards) == 1 for cards in by_deal.values())


def test_redeals_are_refused_in_duplicate_mode() -> None:
    with pytest.raises(ConfigError, match=r"rules: max_redeals = 2 with tournament.duplicate"):
        parse_tournament_config(
            {
                "tournament": {"name": "x", "duplicate": "all"},
                "rules": {"max_redeals": 2},
                "agents": [{"name": n, "type": "greedy"} for n in ("A", "B", "C")],
            },
            source="test",
        )


def test_an_unknown_duplicate_mode_is_named() -> None:
    with pytest.raises(ConfigError, match=r"tournament\.duplicate"):
        config("twice")


# --- the duplicate score ------------------------------------------------------------------


@pytest.fixture(scope="module")
def a_record() -> RoundRecord:
    import asyncio

    from arena.games.ddz.agents.scripted import GreedyAgent

    table = Table([GreedyAgent("x"), GreedyAgent("y"), GreedyAgent("z")])
    return asyncio.run(play_match(table, rounds=1, seed=1)).rounds[0]


def _round(
    base: RoundRecord, table: str, round_no: int, players: str, scores: tuple[int, int, int]
) -> RoundRecord:
    result = dataclasses.replace(base.result, scores=scores)
    names = (players[0], players[1], players[2])
    return dataclasses.replace(base, table=table, round_no=round_no, players=names, result=result)


def test_the_duplicate_score_by_hand(a_record: RoundRecord) -> None:
    records = [
        # deal s1t1 round 1, complete: totals A 4-2+2 = 4, B -2-2-4 = -8, C -2+4+2 = 4
        _round(a_record, "s1t1.1", 1, "ABC", (4, -2, -2)),
        _round(a_record, "s1t1.2", 1, "BCA", (-2, 4, -2)),
        _round(a_record, "s1t1.3", 1, "CAB", (2, 2, -4)),
        # deal s1t1 round 2: two seatings only, not yet compared
        _round(a_record, "s1t1.1", 2, "ABC", (-6, 3, 3)),
        _round(a_record, "s1t1.2", 2, "BCA", (2, 2, -4)),
    ]
    for order in (records, records[::-1]):
        board = Leaderboard.from_rounds(order, names="ABC", seatings=3)
        agents = {a["name"]: a for a in board.to_dict()["agents"]}
        assert board.to_dict()["seatings"] == 3
        assert {n: (a["deals"], a["deal_points"], a["matchpoints"]) for n, a in agents.items()} == {
            "A": (1, 4, 1.5),
            "B": (1, -8, 0.0),
            "C": (1, 4, 1.5),
        }
        assert agents["A"]["points_per_deal"] == 4.0
        assert agents["B"]["matchpoints_per_deal"] == 0.0
        assert agents["A"]["points"] == 4 - 2 + 2 - 6 - 4  # raw points count every round
    live = Leaderboard(names="ABC", seatings=3)
    for record in records:
        live.add_round(record)
    live.settle()
    assert live.to_dict()["agents"] == board.to_dict()["agents"]


async def test_identical_agents_take_out_all_luck(tmp_path: Path) -> None:
    """Three copies of one deterministic agent: every hand is played by each from the
    same seat alike, so every deal total is 0 and every deal a three-way tie."""
    roster = [{"name": n, "type": "heuristic"} for n in ("H1", "H2", "H3")]
    with TournamentStore(tmp_path / "t.db") as store:
        run = await run_tournament(store, config("rotations", roster))
        rounds = store.rounds(run.tournament_id)
    assert any(any(r["scores"].values()) for r in rounds)  # the rounds themselves vary
    for agent in run.leaderboard.to_dict()["agents"]:
        assert (agent["points"], agent["deals"], agent["matchpoints"]) == (0, 10, 10.0)


def test_a_plain_board_has_no_duplicate_keys(a_record: RoundRecord) -> None:
    board = Leaderboard.from_rounds([a_record])
    assert "seatings" not in board.to_dict()
    assert "matchpoints" not in board.to_dict()["agents"][0]


async def test_show_json_has_the_duplicate_score(tmp_path: Path) -> None:
    from tournaments.cli import _board

    told: list[dict[str, Any]] = []  # what the MQTT leaderboard would publish
    with TournamentStore(tmp_path / "t.db") as store:
        run = await run_tournament(store, config("rotations"), on_leaderboard=told.append)
        stored = [round_record(r) for r in store.rounds(run.tournament_id)]
        board = _board(store.tournament(run.tournament_id), stored)
        rebuilt = Leaderboard.from_rounds(stored, seatings=3)
    shown = {a["name"]: a for a in board.to_dict()["agents"]}
    assert {n: a["deals"] for n, a in shown.items()} == {"Ann": 10, "Bob": 10, "Cid": 10}
    assert sum(a["matchpoints"] for a in shown.values()) == 10 * 3  # 3 pairs per deal
    assert board.to_dict()["agents"] == rebuilt.to_dict()["agents"]
    assert board.to_dict()["agents"] == run.leaderboard.to_dict()["agents"]
    assert told[-1]["seatings"] == 3
    assert told[-1]["agents"] == board.to_dict()["agents"]
    for published in told:  # deal by deal: the matchpoints of whole deals only
        deals = published["agents"][0]["deals"]
        assert sum(a["matchpoints"] for a in published["agents"]) == 3 * deals
