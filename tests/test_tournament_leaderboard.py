"""The tournament leaderboard (issue 12): per-agent figures summed from real rounds at
several tables, ranked by points per round, exported as JSON and CSV, and rendered."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
import io
import itertools
import json
import random
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from agents_for_tests import FaultyAgent
from rich.console import Console

from arena.agents import Agent
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.table import FAULT_CATEGORIES, RoundRecord, Table, play_match
from tournaments.leaderboard import Leaderboard
from tournaments.ratings import DEFAULT_MU, DEFAULT_SIGMA, Ratings


async def _play_tables() -> list[RoundRecord]:
    """Three tables, six agents, different players and round counts per table."""
    tables: list[tuple[list[Agent], int]] = [
        ([GreedyAgent("Alpha"), HeuristicAgent("Beta"), RandomAgent("Gamma", seed=1)], 6),
        ([HeuristicAgent("Delta"), GreedyAgent("Alpha"), FaultyAgent("Faulty")], 4),
        ([HeuristicAgent("Beta"), RandomAgent("Echo", seed=2), FaultyAgent("Faulty")], 3),
    ]
    records: list[RoundRecord] = []
    for number, (agents, rounds) in enumerate(tables, start=1):
        table = Table(agents, table_id=f"t{number}")
        summary = await play_match(table, rounds=rounds, seed=5)
        records.extend(summary.rounds)
    return records


@pytest.fixture(scope="module")
def records() -> list[RoundRecord]:
    return asyncio.run(_play_tables())


def agents_of(board: Leaderboard) -> dict[str, dict[str, Any]]:
    return {a["name"]: a for a in board.to_dict()["agents"]}


def over(records: list[RoundRecord], name: str, figure: Callable[[RoundRecord, int], Any]) -> Any:
    """The sum of ``figure(record, seat)`` over the rounds ``name`` played."""
    return sum(figure(r, r.players.index(name)) for r in records if name in r.players)


def fault_count(kind: str) -> Callable[[RoundRecord, int], int]:
    return lambda record, seat: record.faults[seat][kind]


def stats_figure(figure: str) -> Callable[[RoundRecord, int], Any]:
    return lambda record, seat: record.stats[seat][figure]


def test_every_figure_sums_the_rounds_each_agent_played(records: list[RoundRecord]) -> None:
    board = Leaderboard.from_rounds(records)
    agents = agents_of(board)
    assert set(agents) == {"Alpha", "Beta", "Gamma", "Delta", "Echo", "Faulty"}
    assert board.to_dict()["rounds"] == len(records) == 13
    for name, a in agents.items():
        assert a["points"] == over(records, name, lambda r, s: r.result.scores[s])
        assert a["rounds"] == over(records, name, lambda r, s: 1)
        assert a["points_per_round"] == pytest.approx(a["points"] / a["rounds"], abs=1e-4)
        assert a["round_wins"] == over(records, name, lambda r, s: s in r.result.winners)
        assert a["landlord_rounds"] == over(records, name, lambda r, s: s == r.result.landlord)
        assert a["landlord_wins"] == over(
            records, name, lambda r, s: s == r.result.landlord and r.result.landlord_won
        )
        assert a["farmer_rounds"] == a["rounds"] - a["landlord_rounds"]
        assert a["farmer_wins"] == over(
            records, name, lambda r, s: s != r.result.landlord and not r.result.landlord_won
        )
        assert a["round_wins"] == a["landlord_wins"] + a["farmer_wins"]
        assert a["springs"] == over(
            records, name, lambda r, s: s in r.result.winners and r.result.spring is not None
        )
        assert a["bombs_played"] == over(records, name, lambda r, s: r.result.bombs_by_seat[s])
        for kind in FAULT_CATEGORIES:
            assert a["faults"][kind] == over(records, name, fault_count(kind))
        assert a["standin_rounds"] == over(records, name, lambda r, s: s in r.standins)
        for figure in ("decisions", "legal_first_try", "legal_after_retry", "fell_back"):
            assert a[figure] == over(records, name, stats_figure(figure))
        assert a["decisions"] == a["legal_first_try"] + a["legal_after_retry"] + a["fell_back"]
        latency = over(records, name, lambda r, s: r.stats[s]["latency_ms"])
        assert a["mean_latency_ms"] == pytest.approx(latency / a["decisions"], abs=0.051)
        assert (a["tokens"], a["cost"]) == (0, None)  # scripted agents: no model, no prices
    # farmers win together: a farmers' round credits two wins, a landlord's one
    wins = sum(a["round_wins"] for a in agents.values())
    assert wins == sum(len(r.result.winners) for r in records)
    assert wins == sum(1 if r.result.landlord_won else 2 for r in records)
    # the figures are not all zero: the checks above could fail
    faulty = agents["Faulty"]
    assert faulty["faults"]["agent_error"] > 0
    assert faulty["fell_back"] == faulty["faults"]["fallback"] > 0
    assert faulty["standin_rounds"] == faulty["rounds"] == 7
    assert agents["Alpha"]["rounds"] == 10
    assert sum(a["springs"] for a in agents.values()) > 0
    bombs = sum(a["bombs_played"] for a in agents.values())
    assert bombs == sum(r.result.bombs + r.result.rockets for r in records) > 0
    assert sum(a["landlord_wins"] for a in agents.values()) > 0
    assert sum(a["farmer_wins"] for a in agents.values()) > 0


def test_the_ratings_are_those_of_the_rounds_in_order(records: list[RoundRecord]) -> None:
    """The fixture's rounds are in canonical order (table, round): shuffled, they are
    rated in that order all the same."""
    board = Leaderboard.from_rounds(random.Random(2).sample(records, len(records)))
    ratings = Ratings.from_rounds(records)
    for a in board.to_dict()["agents"]:
        rating = ratings.rating(a["name"])
        assert (a["mu"], a["sigma"], a["ordinal"]) == (rating.mu, rating.sigma, rating.ordinal)
    assert board.to_dict()["rating_model"] == ratings.to_dict()["model"]
    assert board.to_dict()["landlord_seat"] == ratings.to_dict()["landlord_seat"]
    assert board.to_dict()["landlord_seat"]["rounds"] == len(records)


def test_standings_go_by_points_per_round_not_total_points(records: list[RoundRecord]) -> None:
    won = next(r for r in records if r.result.landlord_won)
    landlord = won.result.landlord
    farmer = 0 if landlord != 0 else 1  # the first seat cast() gives a farmer
    gain, loss = won.result.scores[landlord], won.result.scores[farmer]
    assert gain > 0 > loss >= -gain

    def cast(lord: str, farmers: tuple[str, str], round_no: int) -> RoundRecord:
        names = list(farmers)
        names.insert(landlord, lord)
        return dataclasses.replace(won, players=(names[0], names[1], names[2]), round_no=round_no)

    board = Leaderboard()
    for n in range(3):  # the veteran is a winning landlord three times, a loser once
        board.add_round(cast("Veteran", (f"F{n}", f"G{n}"), n))
    board.add_round(cast("Other", ("Veteran", "Extra"), 3))
    board.add_round(cast("Solo", ("H", "I"), 4))  # one round only, won
    agents = agents_of(board)
    veteran, solo = agents["Veteran"], agents["Solo"]
    assert veteran["rounds"] == 4 > solo["rounds"] == 1
    assert veteran["points"] == 3 * gain + loss > solo["points"] == gain
    names = [a["name"] for a in board.to_dict()["agents"]]
    assert names.index("Solo") < names.index("Veteran")
    ppr = [a["points_per_round"] for a in board.to_dict()["agents"]]
    assert ppr == sorted(ppr, reverse=True)


def test_an_agent_is_credited_its_own_bombs_not_its_partners(
    records: list[RoundRecord],
) -> None:
    record = records[0]

    def bombed(by_seat: tuple[int, int, int], round_no: int) -> RoundRecord:
        result = dataclasses.replace(
            record.result, bombs=sum(by_seat) - 1, rockets=1, bombs_by_seat=by_seat
        )
        return dataclasses.replace(record, result=result, round_no=round_no)

    board = Leaderboard()
    board.add_round(bombed((2, 0, 1), 1))
    board.add_round(bombed((0, 3, 1), 2))
    agents = agents_of(board)
    played = [agents[name]["bombs_played"] for name in record.players]
    assert played == [2, 3, 2]
    console = Console(record=True, width=220, color_system=None)
    console.print(board.render())
    header = next(line for line in console.export_text().splitlines() if "Agent" in line)
    assert "Bombs" in header


def test_a_round_stored_before_bombs_by_seat_credits_no_bombs(
    records: list[RoundRecord],
) -> None:
    """An older stored round: its settlement has the default count, all zeros."""
    record = records[0]
    older = dataclasses.replace(
        record, result=dataclasses.replace(record.result, bombs=2, bombs_by_seat=(0, 0, 0))
    )
    agents = agents_of(Leaderboard.from_rounds([older]))
    assert [agents[name]["bombs_played"] for name in record.players] == [0, 0, 0]


def test_equal_agents_share_a_rank_and_the_next_rank_skips(records: list[RoundRecord]) -> None:
    board = Leaderboard()
    board.add_round(records[0])  # its two farmers: the same points and the same rating
    standings = board.standings()
    by_rank = sorted((s.rank, s.name) for s in standings)
    farmers = sorted(p for s, p in enumerate(records[0].players) if s != records[0].result.landlord)
    if records[0].result.landlord_won:
        assert [r for r, _ in by_rank] == [1, 2, 2]
    else:
        assert [r for r, _ in by_rank] == [1, 1, 3]
    tied = [name for rank, name in by_rank if [r for r, _ in by_rank].count(rank) == 2]
    assert tied == farmers  # the tie is in name order
    assert [s.name for s in standings if s.name in farmers] == farmers


def test_the_full_standings_are_in_order_and_rank_only_ties_alike(
    records: list[RoundRecord],
) -> None:
    standings = Leaderboard.from_rounds(records).standings()
    keys = [(Fraction(s.line.points, s.line.rounds), s.rating.ordinal) for s in standings]
    assert keys == sorted(keys, reverse=True)
    assert [s.rank for s in standings] == [1 + keys.index(k) for k in keys]


def test_json_round_trip_and_the_same_rounds_give_the_same_board(
    records: list[RoundRecord],
) -> None:
    board = Leaderboard.from_rounds(records)
    data = board.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert Leaderboard.from_rounds(records).to_dict() == data
    first = data["agents"][0]
    assert list(first)[:8] == [
        "rank",
        "name",
        "points",
        "rounds",
        "points_per_round",
        "mu",
        "sigma",
        "ordinal",
    ]


def test_csv_parses_back_to_the_json(records: list[RoundRecord]) -> None:
    board = Leaderboard.from_rounds(records)
    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    agents = board.to_dict()["agents"]
    assert [r["name"] for r in rows] == [a["name"] for a in agents]
    for row, agent in zip(rows, agents, strict=True):
        for key, value in agent.items():
            if key == "faults":
                for kind, count in value.items():
                    assert int(row[f"fault_{kind}"]) == count
            elif value is None:
                assert row[key] == ""
            elif isinstance(value, float):
                assert float(row[key]) == value
            elif isinstance(value, int):
                assert int(row[key]) == value
            else:
                assert row[key] == value
    assert len(rows[0]) == len(agents[0]) - 1 + len(FAULT_CATEGORIES)


def test_an_empty_board_has_a_header_and_no_rows() -> None:
    board = Leaderboard()
    header, *rest = board.to_csv().splitlines()
    assert header.startswith("rank,name,points,rounds,points_per_round,mu,sigma")
    assert rest == []
    assert board.to_dict()["agents"] == []


def test_costs_and_tokens_add_up_when_a_seat_reports_them(records: list[RoundRecord]) -> None:
    def priced(record: RoundRecord, cost: float | None) -> RoundRecord:
        stats = dict(record.stats[0], input_tokens=100, output_tokens=20, cost=cost)
        return dataclasses.replace(record, stats=(stats, record.stats[1], record.stats[2]))

    board = Leaderboard()
    board.add_round(priced(records[0], 0.25))
    board.add_round(priced(records[1], None))
    board.add_round(priced(records[2], 0.5))
    seat0 = agents_of(board)[records[0].players[0]]
    assert (seat0["input_tokens"], seat0["output_tokens"], seat0["tokens"]) == (300, 60, 360)
    assert seat0["cost"] == pytest.approx(0.75)
    assert agents_of(board)[records[0].players[1]]["cost"] is None


def test_the_terminal_table_shows_the_top_agents_and_ratings(records: list[RoundRecord]) -> None:
    board = Leaderboard.from_rounds(records)
    names = [a["name"] for a in board.to_dict()["agents"]]
    console = Console(record=True, width=220, color_system=None)
    console.print(board.render(top=2))
    text = console.export_text()
    assert names[0] in text
    assert names[1] in text
    assert not any(name in text for name in names[2:])
    first = board.standings()[0]
    assert f"{first.rating.mu:.1f} ± {first.rating.sigma:.1f}" in text
    assert f"{first.line.points_per_round:.2f}" in text
    console = Console(record=True, width=220, color_system=None)
    console.print(board.render())
    text = console.export_text()
    assert all(name in text for name in names)


# --- the roster: every agent listed, those yet to play too

ROSTER = ("Alpha", "Beta", "Gamma", "Delta", "Echo", "Faulty", "Late", "Later")


def test_the_roster_lists_agents_yet_to_play_last_in_roster_order(
    records: list[RoundRecord],
) -> None:
    roster = ("Later", "Alpha", "Late", "Beta", "Gamma")  # Delta, Echo, Faulty not in it
    board = Leaderboard.from_rounds(records[:6], names=roster)  # the first table only
    agents = board.to_dict()["agents"]
    assert [a["name"] for a in agents[3:]] == ["Later", "Late"]
    assert {a["name"] for a in agents[:3]} == {"Alpha", "Beta", "Gamma"}
    assert [a["rank"] for a in agents[3:]] == [4, 4]  # tied: nothing tells them apart
    waiting = agents[3]
    assert (waiting["points"], waiting["rounds"], waiting["round_wins"]) == (0, 0, 0)
    assert waiting["points_per_round"] is None
    assert waiting["mean_latency_ms"] is None
    assert (waiting["mu"], waiting["sigma"]) == (DEFAULT_MU, DEFAULT_SIGMA)
    assert all(a["points_per_round"] is not None for a in agents[:3])
    # an agent in the rounds but not in the roster (older data) is still listed
    more = Leaderboard.from_rounds(records, names=roster)
    names = [a["name"] for a in more.to_dict()["agents"]]
    assert set(names) == {*roster, "Delta", "Echo", "Faulty"}
    assert names[-2:] == ["Later", "Late"]


def test_a_board_of_a_roster_alone_lists_everyone_at_zero() -> None:
    board = Leaderboard(names=ROSTER)
    agents = board.to_dict()["agents"]
    assert [a["name"] for a in agents] == list(ROSTER)
    assert {a["rank"] for a in agents} == {1}
    assert board.to_dict()["rounds"] == 0
    rows = list(csv.DictReader(io.StringIO(board.to_csv())))
    assert [r["name"] for r in rows] == list(ROSTER)
    assert {(r["points"], r["rounds"], r["points_per_round"]) for r in rows} == {("0", "0", "")}
    console = Console(record=True, width=220, color_system=None)
    console.print(board.render())
    text = console.export_text()
    assert all(name in text for name in ROSTER)
    assert json.loads(json.dumps(board.to_dict())) == board.to_dict()


def test_an_agent_of_the_roster_joins_the_ranking_with_its_first_round(
    records: list[RoundRecord],
) -> None:
    board = Leaderboard(names=ROSTER)
    seen = records[0].players
    board.add_round(records[0])
    ranked = board.standings()
    assert {s.name for s in ranked[:3]} == set(seen)
    assert [s.name for s in ranked[3:]] == [n for n in ROSTER if n not in seen]
    assert {s.rank for s in ranked[3:]} == {4}
    assert len(ranked) == len(ROSTER)


# --- ratings: a function of the set of rounds, not of the order tables committed them


def staged(records: list[RoundRecord]) -> list[RoundRecord]:
    """The fixture's rounds recast as two stages of two tables, in canonical order."""
    tables = [r for r in records if r.table == "t1"], [r for r in records if r.table == "t2"]
    out = []
    for stage in (1, 2):
        for index, table in enumerate(tables, start=1):
            for round_no, record in enumerate(table, start=1):
                out.append(
                    dataclasses.replace(record, table=f"s{stage}t{index}", round_no=round_no)
                )
    return out


def test_two_arrival_orders_give_the_same_board_once_settled(
    records: list[RoundRecord],
) -> None:
    rounds = staged(records)
    stage_one = [r for r in rounds if r.table.startswith("s1")]
    stage_two = [r for r in rounds if r.table.startswith("s2")]

    def zipped(stage: list[RoundRecord]) -> list[RoundRecord]:
        """The two tables' rounds alternating, the second table first."""
        first = [r for r in stage if r.table.endswith("t1")]
        second = [r for r in stage if r.table.endswith("t2")]
        mixed = [r for pair in itertools.zip_longest(second, first) for r in pair if r]
        return mixed

    boards = []
    for arrival in (rounds, [*zipped(stage_one), *zipped(stage_two)]):
        board = Leaderboard(names=ROSTER)
        for record in arrival:
            board.add_round(record)
        boards.append(board)
    assert boards[0].to_dict() != boards[1].to_dict()  # provisional: arrival order shows
    for board in boards:
        board.settle()
    assert boards[0].to_dict() == boards[1].to_dict()
    assert boards[0].to_csv() == boards[1].to_csv()
    shuffled = random.Random(4).sample(rounds, len(rounds))
    rebuilt = Leaderboard.from_rounds(shuffled, names=ROSTER)
    assert rebuilt.to_dict() == boards[0].to_dict()
    assert rebuilt.to_dict() == Leaderboard.from_rounds(rounds, names=ROSTER).to_dict()
    assert rebuilt.tournament_ratings.updates == len(rounds)
    assert boards[1].tournament_ratings.updates <= 2 * len(rounds)


def test_a_resumed_board_settles_to_the_uninterrupted_ones(records: list[RoundRecord]) -> None:
    """Killed mid-stage two: rebuilt from the store (commit order), then played on live
    in another interleaving; once settled, as if never interrupted."""
    rounds = staged(records)
    rng = random.Random(8)
    stage_one = rng.sample(rounds[: len(rounds) // 2], len(rounds) // 2)
    stage_two = rng.sample(rounds[len(rounds) // 2 :], len(rounds) // 2)
    whole = Leaderboard(names=ROSTER)
    for record in [*stage_one, *stage_two]:
        whole.add_round(record)
    whole.settle()
    cut = len(stage_one) + 3
    committed = [*stage_one, *stage_two][:cut]
    resumed = Leaderboard.from_rounds(reversed(committed), names=ROSTER)
    for record in reversed([*stage_one, *stage_two][cut:]):
        resumed.add_round(record)
    assert not resumed.tournament_ratings.settled  # the rest came out of order
    resumed.settle()
    assert resumed.to_dict() == whole.to_dict()
    assert [s.name for s in resumed.standings()] == [s.name for s in whole.standings()]
