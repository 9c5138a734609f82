"""``--workers N`` (issue 13): tables in worker processes, one writer. The same file and
seed store the same rounds and standings with 2 workers as with 1; a worker killed
midway fails the run naming its table, resumable to the standings of an uninterrupted
run; a stop asked ends every table after its round; model and human seats stay in the
main process; what cannot cross into a worker is refused."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import aiomqtt
import orjson
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from processes import alive, rounds_in, wait_for, workers_of
from rosters import roster as roster_text

from arena.cli import main
from arena.errors import ConfigError
from arena.sinks.base import CollectingSink
from tournaments import runner as runner_module
from tournaments import workers as workers_module
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.schedule import Table as Seating
from tournaments.session import Session
from tournaments.store import TournamentStore
from tournaments.workers import (
    WorkerError,
    any_table_for_workers,
    check_workers,
    plays_in_main,
    refuse_with_workers,
    worker_limit,
)

TIMING: frozenset[str] = frozenset(
    {"latency_ms", "mean_latency_ms", "elapsed_ms", "t_ms", "deadline_at"}
    | {"committed_at", "revealed_at"}  # when the seed was committed and revealed
)
"""What a clock measured: differs between any two runs, in or out of workers."""


@pytest.fixture(autouse=True)
def in_the_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every table unit to a worker: none played here while they start."""
    monkeypatch.setattr(workers_module, "PLAY_HERE_WHILE_STARTING", False)


def roster(count: int, *, pace_s: float = 0.0, **tournament: Any) -> TournamentConfig:
    """``pace_s``: slow enough that a round is long beside the main process's work."""
    kinds = ("greedy", "heuristic", "random")
    return parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 41, **tournament},
            "table": {"pace_s": pace_s},
            "agents": [{"name": f"A{i}", "type": kinds[i % 3]} for i in range(count)],
        },
        source="test",
    )


def untimed(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k not in TIMING}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def stored(store: TournamentStore, tid: str) -> dict[str, Any]:
    """Every match as stored, by table: players, status, summary, each round's header
    and result, and the replay's lines, all without what a clock measured."""
    tables: dict[str, Any] = {}
    for match in store.table_matches(tid):
        tables[f"{match.stage}/{match.table_id}"] = {
            "players": match.players,
            "status": match.status,
            "summary": untimed(match.summary),
            "headers": [
                store.header(match.id, n) for n in range(1, store.last_round(match.id) + 1)
            ],
            "results": untimed(store.rounds_of(match.id)),
            "lines": [untimed(orjson.loads(line)) for line in store.replay_lines(match.id)],
        }
    return tables


def board(run_board: dict[str, Any]) -> Any:
    return untimed({k: v for k, v in run_board.items() if k != "tournament"})


async def played(
    path: Path, config: TournamentConfig, workers: int, **kwargs: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    with TournamentStore(path) as store:
        run = await run_tournament(store, config, workers=workers, **kwargs)
        assert run.finished
        assert store.tournament(run.tournament_id).status == "finished"
        return board(run.leaderboard.to_dict()), stored(store, run.tournament_id)


@pytest.mark.parametrize(
    "config",
    [roster(4), roster(7, format="standard", stages=3)],
    ids=["round robin", "swiss"],
)
async def test_two_workers_store_the_rounds_and_standings_of_one(
    tmp_path: Path, config: TournamentConfig
) -> None:
    one_board, one_rounds = await played(tmp_path / "one.db", config, 1)
    two_board, two_rounds = await played(tmp_path / "two.db", config, 2)
    assert two_rounds == one_rounds  # headers, results, replay lines: every table
    assert list(two_rounds) == list(one_rounds)  # the matches stored in the same order
    assert two_board == one_board  # points, ratings, ranks
    assert one_board["rounds"] > 0
    assert not multiprocessing.active_children()


async def test_units_played_here_while_the_workers_start_change_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(workers_module, "PLAY_HERE_WHILE_STARTING", True)
    config = roster(7, format="standard", stages=3)
    one_board, one_rounds = await played(tmp_path / "one.db", config, 1)
    two_board, two_rounds = await played(tmp_path / "two.db", config, 2)
    assert (two_board, two_rounds) == (one_board, one_rounds)
    assert list(two_rounds) == list(one_rounds)


async def test_a_table_with_a_main_process_seat_plays_here_among_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = roster(4)
    here: list[str] = []

    def first_table_here(config: TournamentConfig, seating: Seating) -> bool:
        if seating.index == 1:
            here.append(seating.table_id)
            return True
        return False

    monkeypatch.setattr(runner_module, "plays_in_main", first_table_here)  # the run asks it
    one_board, one_rounds = await played(tmp_path / "one.db", config, 1)
    two_board, two_rounds = await played(tmp_path / "two.db", config, 2)
    assert here == ["s1t1", "s2t1", "s3t1", "s4t1"]
    assert (two_board, two_rounds) == (one_board, one_rounds)


async def test_the_tables_events_reach_this_process_sinks_in_order(tmp_path: Path) -> None:
    config = roster(4)
    heard: dict[int, CollectingSink] = {1: CollectingSink(), 2: CollectingSink()}
    for workers, sink in heard.items():
        await played(tmp_path / f"w{workers}.db", config, workers, sinks=(sink,))

    def by_table(sink: CollectingSink) -> dict[str, list[Any]]:
        tables: dict[str, list[Any]] = {}
        for event in sink.events:
            tables.setdefault(event.table, []).append(untimed(event.to_dict()))
        return tables

    assert len(heard[2].events) == len(heard[1].events) > 0
    assert by_table(heard[2]) == by_table(heard[1])  # each table's events, in order


PROGRAM = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"


async def test_a_run_stopped_at_once_ends_the_programs_a_worker_started(tmp_path: Path) -> None:
    """A subprocess seat in a worker: cancelling the run (the second Ctrl-C, SIGTERM)
    closes the worker's table, whose agent ends the program it started."""
    pids = tmp_path / "pids"
    command = [sys.executable, str(PROGRAM), "--mode", "silent", "--pid-file", str(pids)]
    config = parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 3},
            "agents": [
                {
                    "name": "Mute",
                    "type": "subprocess",
                    "timeout_s": 60,
                    "options": {"command": command, "startup_s": 0.3},
                },
                {"name": "Bob", "type": "greedy"},
                {"name": "Cid", "type": "random"},
            ],
        },
        source="test",
    )
    with TournamentStore(tmp_path / "mute.db") as store:
        run = asyncio.ensure_future(run_tournament(store, config, workers=2))
        for _ in range(400):  # the program and its child started, in a worker
            await asyncio.sleep(0.05)
            if pids.exists() and len(pids.read_text().split()) == 2:
                break
        started = [int(pid) for pid in pids.read_text().split()]
        assert len(started) == 2
        run.cancel()
        with pytest.raises(asyncio.CancelledError):
            await run
        assert store.tournaments()[0].status == "interrupted"
    wait_for(lambda: not any(alive(pid) for pid in started), 10, "a program outlived the run")
    assert not multiprocessing.active_children()


async def test_a_worker_has_the_environment_of_its_run_not_of_the_fork_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers fork from a server process started by an earlier run (the fork server
    keeps the environment it started with): a variable set since reaches the programs
    a worker starts, as it would the main process's own."""
    await played(tmp_path / "first.db", roster(4), 2)  # the fork server is up after this
    monkeypatch.setenv("ARENA_TEST_MARK", "set after the fork server started")
    seen = tmp_path / "seen"
    script = f'printf %s "$ARENA_TEST_MARK" > {seen}; exec "$0" "$@"'
    command = ["sh", "-c", script, sys.executable, str(PROGRAM), "--mode", "good"]
    config = parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 3},
            "agents": [
                {"name": "Env", "type": "subprocess", "options": {"command": command}},
                {"name": "Bob", "type": "greedy"},
                {"name": "Cid", "type": "random"},
            ],
        },
        source="test",
    )
    _, rounds = await played(tmp_path / "env.db", config, 2)
    assert rounds  # the table played (in a worker: none plays here in these tests)
    assert seen.read_text() == "set after the fork server started"


class StampingSink:
    """When each event reached this process."""

    def __init__(self) -> None:
        self.times: list[tuple[str, int, float]] = []

    async def emit(self, event: Any) -> None:
        self.times.append((event.table, event.round, time.monotonic()))

    async def close(self) -> None:
        """Nothing held."""


async def test_a_paced_tables_events_arrive_as_they_happen_not_at_its_rounds_end(
    tmp_path: Path,
) -> None:
    sink = StampingSink()
    config = roster(3, pace_s=0.01)  # one table: a round of some 50 actions, 0.5 s or more
    with TournamentStore(tmp_path / "paced.db") as store:
        await run_tournament(store, config, workers=2, sinks=(sink,))
    first_round = [t for table, rnd, t in sink.times if rnd == 1]
    assert max(first_round) - min(first_round) > 0.25  # spread over the round, live


def test_model_and_human_seats_play_in_the_main_process() -> None:
    config = parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 1},
            "agents": [
                {"name": "Bot", "type": "greedy"},
                {"name": "Net", "type": "http", "options": {"url": "http://127.0.0.1:9/"}},
                {"name": "Pro", "type": "subprocess", "options": {"command": ["true"]}},
                {"name": "Gpt", "type": "openai", "options": {"model": "gpt-4o-mini"}},
                {"name": "Me", "type": "human", "timeout_s": 60},
            ],
        },
        source="test",
    )
    assert not plays_in_main(config, Seating(1, 1, ("Bot", "Net", "Pro")))
    assert plays_in_main(config, Seating(1, 2, ("Bot", "Net", "Gpt")))
    assert plays_in_main(config, Seating(1, 3, ("Me", "Bot", "Pro")))
    assert any_table_for_workers(config)  # Bot, Net and Pro may meet
    fewer = config.model_copy(update={"agents": config.agents[1:]})
    assert not any_table_for_workers(fewer)  # a table of Net, Pro and Gpt or Me: here


async def test_a_worker_killed_midway_fails_the_run_naming_its_table_and_it_resumes(
    tmp_path: Path,
) -> None:
    config = roster(6, format="standard", stages=2, pace_s=0.001)
    whole_board, whole_rounds = await played(tmp_path / "whole.db", config, 1)
    killed: list[int] = []

    def kill_a_worker(board: dict[str, Any]) -> None:
        if board["rounds"] == 25 and not killed:  # stage 2: both workers play a table
            victim = multiprocessing.active_children()[0]
            assert victim.pid is not None
            killed.append(victim.pid)
            os.kill(victim.pid, signal.SIGKILL)

    with TournamentStore(tmp_path / "cut.db") as store:
        with pytest.raises(WorkerError, match=r"while playing table s2t\d \(killed by signal 9\)"):
            await run_tournament(store, config, workers=2, on_leaderboard=kill_a_worker)
        (row,) = store.tournaments()
        assert row.status == "interrupted"
        assert 25 <= store.round_count(row.id) < whole_board["rounds"]
        assert not multiprocessing.active_children()  # none outlives the run
        run = await run_tournament(store, tournament_id=row.id, workers=2)
        assert run.finished
        assert board(run.leaderboard.to_dict()) == whole_board
        resumed = stored(store, row.id)
    assert {t: (r["results"], r["headers"]) for t, r in resumed.items()} == {
        t: (r["results"], r["headers"]) for t, r in whole_rounds.items()
    }


async def test_a_stop_ends_every_worker_table_after_its_round(tmp_path: Path) -> None:
    config = roster(6, format="championship", stages=1, pace_s=0.001)
    session = Session()

    def stop_at_the_fourth_round(board: dict[str, Any]) -> None:
        if board["rounds"] == 4:
            session.stop_asked = True

    with TournamentStore(tmp_path / "stop.db") as store:
        run = await run_tournament(
            store, config, workers=2, session=session, on_leaderboard=stop_at_the_fourth_round
        )
        assert not run.finished
        assert session.ended
        (row,) = store.tournaments()
        assert row.status == "interrupted"
        # each table stops after the round it plays when the stop reaches it (or, when
        # it came as that round was ending, after the next): none plays on to its end
        assert 4 <= store.round_count(row.id) <= 8
        resumed = await run_tournament(store, tournament_id=row.id, workers=2)
        assert resumed.finished
        assert resumed.leaderboard.rounds == 40
    whole_board, _ = await played(tmp_path / "whole.db", config, 1)
    assert board(resumed.leaderboard.to_dict()) == whole_board


async def test_a_daily_session_with_workers_plays_its_rounds_as_without(tmp_path: Path) -> None:
    config = roster(3, format="daily")
    boards = []
    for workers in (1, 2):
        with TournamentStore(tmp_path / f"daily{workers}.db") as store:
            first = await run_tournament(store, config, session=Session(7), workers=workers)
            assert not first.finished
            assert first.leaderboard.rounds == 7
            tid = first.tournament_id
            second = await run_tournament(
                store, tournament_id=tid, session=Session(5), workers=workers
            )
            assert second.leaderboard.rounds == 12
            boards.append((board(second.leaderboard.to_dict()), stored(store, tid)))
    assert boards[1] == boards[0]


def test_worker_counts_out_of_range_are_refused() -> None:
    assert check_workers(2) == 2
    for wrong in (0, -1, worker_limit() + 1):
        with pytest.raises(ConfigError, match=f"--workers {wrong}: give 1 .* up to"):
            check_workers(wrong)


def test_gifts_and_the_spectator_feed_are_refused_with_workers() -> None:
    refuse_with_workers(1, gifts=True, spectator=True)  # one process: all allowed
    refuse_with_workers(2, gifts=False, spectator=False)
    with pytest.raises(ConfigError, match="viewer gifts reach tables in this process only"):
        refuse_with_workers(2, gifts=True, spectator=False)
    with pytest.raises(ConfigError, match=r"spectator feed \(\[spectator\] enabled\)"):
        refuse_with_workers(2, gifts=False, spectator=True)


CUP = """\
[tournament]
name = "cup"
format = "quick"
seed = 5
""" + roster_text(4)


def test_the_cli_with_two_workers_shows_the_board_of_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(CUP, encoding="utf-8")
    shown = []
    for workers in ("1", "2"):
        db = str(tmp_path / f"w{workers}.db")
        assert main(["tournament", "run", str(file), "--workers", workers, "--db", db]) == 0
        capsys.readouterr()
        assert main(["tournament", "list", "--json", "--db", db]) == 0
        (listed,) = json.loads(capsys.readouterr().out)["tournaments"]
        assert main(["tournament", "show", listed["id"], "--json", "--db", db]) == 0
        document = json.loads(capsys.readouterr().out)
        shown.append(untimed({k: v for k, v in document.items() if k != "tournament"}))
    assert shown[0] == shown[1]
    for wrong in ("0", str(worker_limit() + 1)):
        assert main(["tournament", "run", str(file), "--workers", wrong, "--db", db]) == 2
        assert f"--workers {wrong}: give 1" in capsys.readouterr().err


def start_cup(tmp_path: Path, db: Path) -> subprocess.Popen[str]:
    """``arena tournament run`` with 2 workers, paced to be caught midway, in a process
    group of its own (a terminal's Ctrl-C reaches the whole group)."""
    file = tmp_path / "paced.toml"
    file.write_text(
        CUP.replace('format = "quick"', 'format = "championship"') + "[table]\npace_s = 0.002\n",
        encoding="utf-8",
    )
    run_main = "from arena.cli import main; raise SystemExit(main())"
    return subprocess.Popen(
        [
            sys.executable,
            "-c",
            run_main,
            "tournament",
            "run",
            str(file),
            "--workers",
            "2",
            "--db",
            str(db),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def test_ctrl_c_stops_the_workers_tables_after_their_round_and_says_how_to_resume(
    tmp_path: Path,
) -> None:
    db = tmp_path / "cup.db"
    arena = start_cup(tmp_path, db)
    try:
        wait_for(lambda: rounds_in(db) >= 25, 60, "no rounds stored")  # workers ready
        wait_for(lambda: len(workers_of(arena.pid)) == 2, 60, "the workers did not start")
        workers = workers_of(arena.pid)
        os.killpg(arena.pid, signal.SIGINT)  # the terminal's Ctrl-C: workers ignore it
        _, err = arena.communicate(timeout=60)
    finally:
        arena.kill()
    assert arena.returncode == 130, err
    assert "stopping after the current round" in err
    assert "go on with: arena tournament resume" in err
    wait_for(lambda: not any(alive(pid) for pid in workers), 10, "a worker outlived the run")
    assert rounds_in(db) < 80


def test_the_cli_names_a_killed_workers_table_and_how_to_resume(tmp_path: Path) -> None:
    db = tmp_path / "cup.db"
    arena = start_cup(tmp_path, db)
    try:
        wait_for(lambda: rounds_in(db) >= 25, 60, "no rounds stored")  # workers ready
        wait_for(lambda: len(workers_of(arena.pid)) == 2, 60, "the workers did not start")
        workers = workers_of(arena.pid)
        os.kill(workers[0], signal.SIGKILL)
        _, err = arena.communicate(timeout=60)
    finally:
        arena.kill()
    assert arena.returncode == 2, err
    # one table a stage here: the worker killed may be the one left idle
    ended = r"ended (while playing table s\d+t\d|while idle) \(killed by signal 9\)"
    assert re.search(r"error: worker \d \(pid \d+\) " + ended, err)
    assert "interrupted; go on with: arena tournament resume" in err


def test_workers_do_not_outlive_a_killed_main_process(tmp_path: Path) -> None:
    db = tmp_path / "cup.db"
    arena = start_cup(tmp_path, db)
    try:
        wait_for(lambda: rounds_in(db) >= 3, 60, "no rounds stored")
        wait_for(lambda: len(workers_of(arena.pid)) == 2, 60, "the workers did not start")
        workers = workers_of(arena.pid)
        arena.kill()  # kill -9: no chance to stop them
        arena.wait(10)
        wait_for(lambda: not any(alive(pid) for pid in workers), 10, "a worker outlived it")
    finally:
        arena.kill()
        arena.communicate()
    with TournamentStore(db, create=False) as store:  # whole rounds only: it resumes
        (row,) = store.tournaments()
        run = asyncio.run(run_tournament(store, tournament_id=row.id))
        assert run.finished
        assert run.leaderboard.rounds == 80


async def test_with_workers_the_leaderboard_and_the_tables_go_live_over_mqtt(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    file = tmp_path / "cup.toml"
    file.write_text(CUP, encoding="utf-8")
    db = tmp_path / "cup.db"
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    argv = ["tournament", "run", str(file), "--workers", "2", "--db", str(db), "--mqtt", url]
    ended: dict[str, int] = {}
    async with aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="watcher") as client:
        await client.subscribe("ddz-arena/tables/+/events", qos=1)
        run = asyncio.ensure_future(asyncio.to_thread(main, argv))
        messages = aiter(client.messages)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # until the run is over and no event comes
            try:
                async with asyncio.timeout(0.5):
                    message = await anext(messages)
            except TimeoutError:
                if run.done():
                    break
                continue
            event = json.loads(bytes(message.payload))
            if event["type"] == "round_result":
                ended[event["table"]] = ended.get(event["table"], 0) + 1
        assert await run == 0
    with TournamentStore(db, create=False) as store:
        (row,) = store.tournaments()
        stored = {m.table_id: store.last_round(m.id) for m in store.table_matches(row.id)}
    assert ended == stored  # every round of every table, live from the workers
    async with aiomqtt.Client("127.0.0.1", mosquitto.port, identifier="late-reader") as client:
        await client.subscribe("ddz-arena/tournaments/+/leaderboard", qos=1)
        async with asyncio.timeout(5):
            message = await anext(aiter(client.messages))
    board = json.loads(bytes(message.payload))
    assert board["status"] == "finished"
    assert board["rounds"] == sum(stored.values())
