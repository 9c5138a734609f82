"""A ``daily`` tournament's sessions (issue 12): N rounds, then a clean stop, resumable.

Two sessions of N rounds must deal, pair and count exactly as one uninterrupted session
of 2N with the same seed: checked through the runner (one table, and two tables sharing
an odd number of rounds) and through ``arena tournament run|resume --rounds``; the first
Ctrl-C stops a real ``arena tournament run`` process after the current round.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from processes import ctrl_c_once_stored

from arena.cli import main
from arena.errors import ConfigError
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.leaderboard import Leaderboard
from tournaments.runner import run_tournament
from tournaments.session import Session, shares
from tournaments.store import TournamentStore

REPO = Path(__file__).resolve().parent.parent
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay"]
TYPES = ["greedy", "heuristic", "random"]


def daily(agents: int = 3, **tournament: Any) -> TournamentConfig:
    return parse_tournament_config(
        {
            "tournament": {"name": "daily show", "format": "daily", "seed": 5, **tournament},
            "agents": [
                {"name": name, "type": TYPES[i % 3]} for i, name in enumerate(NAMES[:agents])
            ],
        },
        source="test",
    )


def standings(board: Leaderboard) -> list[tuple[str, int, int, int]]:
    return [(s.name, s.rank, s.line.points, s.line.rounds) for s in board.standings()]


@pytest.mark.parametrize("agents", [4, 6])
def test_a_daily_tournament_is_for_three_agents(agents: int) -> None:
    with pytest.raises(ConfigError, match=rf"daily is one open-ended table match.*{agents} agents"):
        daily(agents)


def test_shares_split_the_rounds_in_table_order() -> None:
    assert shares(7, 3) == [3, 2, 2]
    assert shares(2, 3) == [1, 1, 0]
    assert sum(shares(1001, 4)) == 1001


@pytest.mark.parametrize("per_session", [1, 4, 7])
async def test_two_daily_sessions_equal_one_of_twice_the_rounds(
    tmp_path: Path, per_session: int
) -> None:
    config = daily()
    with TournamentStore(tmp_path / "whole.db") as store:
        whole = await run_tournament(store, config, session=Session(2 * per_session))
        assert store.tournament(whole.tournament_id).status == "interrupted"
        assert len(store.rounds(whole.tournament_id)) == 2 * per_session
    with TournamentStore(tmp_path / "days.db") as store:
        first = await run_tournament(store, config, session=Session(per_session))
        tid = first.tournament_id
        assert not first.finished
        assert store.tournament(tid).status == "interrupted"  # resumable
        assert first.leaderboard.rounds == per_session
        second = await run_tournament(store, tournament_id=tid, session=Session(per_session))
        assert not second.finished
        rounds = store.rounds(tid)
        matches = store.table_matches(tid)
    assert len(rounds) == 2 * per_session
    assert all(m.status != "finished" for m in matches)  # a daily match never ends
    assert standings(second.leaderboard) == standings(whole.leaderboard)


async def test_the_files_session_rounds_bound_a_run_and_only_a_daily_one_has_them(
    tmp_path: Path,
) -> None:
    with TournamentStore(tmp_path / "arena.db") as store:
        run = await run_tournament(store, daily(session_rounds=3))
        assert len(store.rounds(run.tournament_id)) == 3
    with pytest.raises(ConfigError, match=r"tournament: session_rounds: only a daily"):
        parse_tournament_config(
            {
                "tournament": {"name": "cup", "format": "standard", "session_rounds": 3},
                "agents": [{"name": n, "type": "random"} for n in NAMES[:3]],
            },
            source="cup.toml",
        )


def daily_file(tmp_path: Path, *, pace: float = 0.0, extra: str = "") -> Path:
    file = tmp_path / "daily.toml"
    agents = "".join(
        f'[[agents]]\nname = "{name}"\ntype = "{TYPES[i % 3]}"\n\n'
        for i, name in enumerate(NAMES[:3])
    )
    file.write_text(
        f'[tournament]\nname = "daily show"\nformat = "daily"\nseed = 9\n{extra}\n'
        f"{agents}[table]\npace_s = {pace}\n"
    )
    return file


def shown(db: Path, tid: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    capsys.readouterr()
    assert main(["tournament", "show", tid, "--json", "--db", str(db)]) == 0
    board: dict[str, Any] = json.loads(capsys.readouterr().out)
    return board


def only_id(db: Path, capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    assert main(["tournament", "list", "--json", "--db", str(db)]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["tournaments"]
    return str(listed["id"])


def table_of(board: dict[str, Any]) -> list[tuple[str, int, int]]:
    return [(a["name"], a["points"], a["rounds"]) for a in board["agents"]]


def test_run_and_resume_with_rounds_play_one_session_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = daily_file(tmp_path)
    whole_db = tmp_path / "whole.db"
    assert main(["tournament", "run", str(file), "--rounds", "6", "--db", str(whole_db)]) == 0
    whole = shown(whole_db, only_id(whole_db, capsys), capsys)
    db = tmp_path / "days.db"
    assert main(["tournament", "run", str(file), "--rounds", "3", "--db", str(db)]) == 0
    said = capsys.readouterr().err
    tid = only_id(db, capsys)
    assert f"session over; go on with: arena tournament resume {tid} --db {db}" in said
    day_one = shown(db, tid, capsys)
    assert (day_one["status"], day_one["rounds"]) == ("interrupted", 3)
    assert main(["tournament", "resume", tid, "--rounds", "3", "--db", str(db)]) == 0
    day_two = shown(db, tid, capsys)
    assert (day_two["status"], day_two["rounds"]) == ("interrupted", 6)
    assert table_of(day_two) == table_of(whole)


def test_rounds_is_refused_for_a_fixed_length_tournament(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = daily_file(tmp_path)
    file.write_text(file.read_text().replace('"daily"', '"quick"'))
    argv = ["tournament", "run", str(file), "--rounds", "3", "--db", str(tmp_path / "a.db")]
    assert main(argv) == 2
    assert "--rounds: only a daily tournament has sessions" in capsys.readouterr().err
    assert main([*argv[:3], "--rounds", "0", *argv[-2:]]) == 2
    assert "--rounds: 0: give 1 round or more" in capsys.readouterr().err


def test_the_first_ctrl_c_stops_a_daily_run_after_the_current_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "arena.db"
    file = daily_file(tmp_path, pace=0.002)
    code, err = ctrl_c_once_stored(["tournament", "run", str(file), "--db", str(db)], db)
    assert code == 130
    assert "stopping after the current round" in err
    tid = only_id(db, capsys)
    assert f"stopped after the current round; go on with: arena tournament resume {tid}" in err
    board = shown(db, tid, capsys)
    assert board["status"] == "interrupted"
    before = board["rounds"]
    assert before >= 2
    assert main(["tournament", "resume", tid, "--rounds", "2", "--db", str(db)]) == 0
    resumed = shown(db, tid, capsys)
    assert resumed["rounds"] == before + 2
    whole_db = tmp_path / "whole.db"  # the stop lost nothing and dealt nothing twice
    argv = ["tournament", "run", str(file), "--rounds", str(before + 2), "--db", str(whole_db)]
    assert main(argv) == 0
    assert table_of(shown(whole_db, only_id(whole_db, capsys), capsys)) == table_of(resumed)


async def test_a_session_limit_on_a_fixed_length_tournament_is_refused_before_it_plays(
    tmp_path: Path,
) -> None:
    quick = parse_tournament_config(
        {**daily().model_dump(mode="json"), "tournament": {"name": "q", "format": "quick"}},
        source="test",
    )
    with TournamentStore(tmp_path / "arena.db") as store:
        with pytest.raises(ConfigError, match="only a daily tournament has sessions"):
            await run_tournament(store, quick, session=Session(3))
        assert store.tournaments() == []  # nothing stored
        run = await run_tournament(store, quick, session=Session(None))
        store.mark_tournament(run.tournament_id, "interrupted")
        with pytest.raises(ConfigError, match="only a daily tournament has sessions"):
            await run_tournament(store, tournament_id=run.tournament_id, session=Session(3))
        assert store.tournament(run.tournament_id).status == "interrupted"  # untouched
