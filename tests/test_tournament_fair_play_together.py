"""Issue 13's three parts together: duplicate mode and a daily's epochs with workers,
and verification of a duplicate tournament played by workers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_tournament_workers import board, stored

from arena.cli import main
from tournaments import workers as workers_module
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.session import Session
from tournaments.store import TournamentStore

HEX_SEED = "0x" + "5eed" * 8  # 128 bits: verifiable, and the same in both runs


@pytest.fixture(autouse=True)
def in_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table unit to a worker: none played here while they start."""
    monkeypatch.setattr(workers_module, "PLAY_HERE_WHILE_STARTING", False)


def roster(count: int, **tournament: Any) -> TournamentConfig:
    kinds = ("greedy", "heuristic", "random")
    return parse_tournament_config(
        {
            "tournament": {"name": "fair", "seed": HEX_SEED, **tournament},
            "agents": [{"name": f"A{i}", "type": kinds[i % 3]} for i in range(count)],
        },
        source="test",
    )


def verify(db: Path, tid: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["tournament", "verify", tid, "--db", str(db)])
    captured = capsys.readouterr()
    return code, captured.out + captured.err


async def test_a_duplicate_tournament_with_two_workers_plays_as_with_one_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = roster(6, format="standard", stages=2, duplicate="rotations")
    found = []
    for workers in (1, 2):
        with TournamentStore(tmp_path / f"w{workers}.db") as store:
            run = await run_tournament(store, config, workers=workers)
            assert run.finished
            found.append((board(run.leaderboard.to_dict()), stored(store, run.tournament_id)))
            tid = run.tournament_id
    (one_board, one_rounds), (two_board, two_rounds) = found
    assert two_rounds == one_rounds  # every seating's headers, results and lines
    assert any(table.endswith(".3") for table in one_rounds)  # seatings were played
    assert two_board == one_board  # raw points, ratings and the duplicate score
    assert sum(agent["deals"] for agent in one_board["agents"]) == 6 * 2 * 10  # 2 stages
    code, said = verify(tmp_path / "w2.db", tid, capsys)
    assert code == 0, said


async def test_a_daily_deals_each_session_from_its_epoch_in_the_workers_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = roster(3, format="daily")
    found = []
    for workers in (1, 2):
        db = tmp_path / f"daily{workers}.db"
        with TournamentStore(db) as store:
            first = await run_tournament(store, config, session=Session(4), workers=workers)
            tid = first.tournament_id
            for _ in range(2):  # the third session reveals the second's seed
                await run_tournament(store, tournament_id=tid, session=Session(3), workers=workers)
            found.append((board(store_board(store, tid)), stored(store, tid)))
        code, said = verify(db, tid, capsys)
        assert code == 3, said  # the third epoch's seed is still secret
        assert "epoch 3" in said
        assert said.count("matches it") == 2, said  # epochs 1 and 2 check out
    assert found[1] == found[0]
    headers = found[0][1]["1/s1t1"]["headers"]
    assert len({header["seed"] for header in headers}) == 10


def store_board(store: TournamentStore, tid: str) -> dict[str, Any]:
    from tournaments.leaderboard import Leaderboard
    from tournaments.store import round_record

    return Leaderboard.from_rounds(round_record(row) for row in store.rounds(tid)).to_dict()
