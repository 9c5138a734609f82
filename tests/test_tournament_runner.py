"""Running a tournament (issue 12): stage by stage, every round stored, the leaderboard
told after each round, and a run interrupted midway resumed to the same standings."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.leaderboard import Leaderboard
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore, round_record


def four_agents(**tournament: Any) -> TournamentConfig:
    return parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 17, **tournament},
            "agents": [
                {"name": "Ann", "type": "greedy"},
                {"name": "Bob", "type": "heuristic"},
                {"name": "Cid", "type": "random", "options": {}},
                {"name": "Dee", "type": "greedy"},
            ],
        },
        source="test",
    )


def standings(board: Leaderboard) -> list[tuple[str, int, int, int]]:
    return [(s.name, s.rank, s.line.points, s.line.rounds) for s in board.standings()]


async def test_a_round_robin_of_four_plays_every_triple_and_stores_every_round(
    tmp_path: Path,
) -> None:
    told: list[dict[str, Any]] = []
    with TournamentStore(tmp_path / "arena.db") as store:
        run = await run_tournament(store, four_agents(), on_leaderboard=told.append)
        matches = store.table_matches(run.tournament_id)
        rounds = store.rounds(run.tournament_id)
        assert store.tournament(run.tournament_id).status == "finished"
    assert run.finished
    assert sorted(tuple(sorted(m.players)) for m in matches) == [
        ("Ann", "Bob", "Cid"),
        ("Ann", "Bob", "Dee"),
        ("Ann", "Cid", "Dee"),
        ("Bob", "Cid", "Dee"),
    ]
    assert all(m.status == "finished" for m in matches)
    assert all(3 <= len([r for r in rounds if r["table"] == m.table_id]) <= 5 for m in matches)
    assert told[0]["rounds"] == 0  # the board as it starts (the seed's commitment)
    assert len(told) == 1 + len(rounds)  # then after every round
    assert told[-1]["tournament"] == run.tournament_id
    rebuilt = Leaderboard.from_rounds(round_record(r) for r in rounds)
    assert standings(rebuilt) == standings(run.leaderboard)
    assert sum(s.line.rounds for s in run.leaderboard.standings()) == 3 * len(rounds)


class Interrupted(Exception):
    """Stands for a crash."""


async def test_an_interrupted_tournament_resumes_to_the_standings_of_an_uninterrupted_one(
    tmp_path: Path,
) -> None:
    with TournamentStore(tmp_path / "whole.db") as store:
        whole = await run_tournament(store, four_agents())
    heard = 0

    def crash_at_the_seventh_round(board: dict[str, Any]) -> None:
        nonlocal heard
        heard += 1
        if heard == 7:
            raise Interrupted

    with TournamentStore(tmp_path / "cut.db") as store:
        with pytest.raises(Interrupted):
            await run_tournament(store, four_agents(), on_leaderboard=crash_at_the_seventh_round)
        (cut,) = store.tournaments()
        assert cut.status == "interrupted"
        assert 5 <= len(store.rounds(cut.id)) <= 7  # rounds of other tables may have ended
        resumed = await run_tournament(store, tournament_id=cut.id)
        assert store.tournament(cut.id).status == "finished"
        stored = store.rounds(cut.id)
    assert standings(resumed.leaderboard) == standings(whole.leaderboard)
    keys = sorted((r["table"], r["round_no"]) for r in stored)
    assert len(keys) == len(set(keys))  # nothing counted twice


async def test_tables_played_one_by_one_or_at_once_end_with_the_same_board(
    tmp_path: Path,
) -> None:
    """Two tables a stage: at once their rounds interleave as timing has it, one by one
    they come table after table; the final board (ratings, and the ties they break)
    must not depend on it."""
    names = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
    agents = [
        {"name": n, "type": ["greedy", "heuristic", "random"][i % 3]} for i, n in enumerate(names)
    ]
    boards = []
    orders = []
    for at_once in (1, 2):
        tournament = {"name": "cup", "format": "quick", "seed": 3, "stages": 3}
        config = parse_tournament_config(
            {
                "tournament": {**tournament, "tables_at_once": at_once},
                "agents": agents,
                "table": {"pace_s": 0.001},  # a pause per action: tables at once interleave
            }
        )
        tables: list[str] = []
        with TournamentStore(tmp_path / f"at-once-{at_once}.db") as store:
            run = await run_tournament(store, config)
            tables = [str(row["table"]) for row in store.rounds(run.tournament_id)]
        board = run.leaderboard.to_dict()
        for agent in board["agents"]:  # decision times: the one thing timing may change
            agent.pop("latency_ms")
            agent.pop("mean_latency_ms")
        boards.append(board)
        orders.append(tables)
    assert orders[0] != orders[1]  # the rounds did arrive in another order
    assert sorted(orders[0]) == sorted(orders[1])
    assert boards[0] == boards[1]
