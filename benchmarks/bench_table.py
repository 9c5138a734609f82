"""Orchestrator speed: whole rounds through the table, request cost, concurrent tables.

Run: ``python -m benchmarks.bench_table`` (``--quick`` for a short run).

(a) Full rounds per second with scripted ``random`` agents through the whole table
    (events to a sink and a replay written to a temporary file), beside the bare engine
    playing the same kind of random rounds, and RLCard's environment loop, all in one run.
(b) The cost of building one PLAY_REQUEST as the round's history grows: it must stay
    flat, not grow with the length (so a round never costs the square of its length).
(c) 200 tables at once whose agents answer after a fixed 100 ms: agent decisions per
    second against the ideal (tables / delay). ``--tables 10000 --delay 1 --only
    concurrent``: the issue-25 goal, 10,000 tables of agents that answer in 1 s.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

from arena.events import Event
from arena.games.ddz.agents.inprocess import move_of
from arena.games.ddz.agents.scripted import RandomAgent
from arena.games.ddz.engine import Phase, PlayAction, Round, resolve_cards
from arena.games.ddz.messages import PlayRecord as WirePlayRecord
from arena.games.ddz.turns import DdzTurns
from arena.games.ddz.views import SeatViews
from arena.gc_policy import collecting_while_playing
from arena.replay import ReplayWriter
from arena.table import Table, TableSettings, play_match
from benchmarks.agents import SlowAgent
from benchmarks.bench_engine import ours_round
from protocol._trusted import trusted


class CountingSink:
    """Counts events: the cheapest sink that still receives every event."""

    def __init__(self) -> None:
        self.count = 0

    async def emit(self, event: Event) -> None:
        self.count += 1

    async def close(self) -> None:
        pass


def engine_rounds_per_second(rounds: int) -> float:
    """Random rounds through the bare engine (the same loop as the engine benchmark)."""
    started = time.perf_counter()
    for seed in range(rounds):
        ours_round(seed)
    return rounds / (time.perf_counter() - started)


def _drive(coroutine: Any) -> Any:
    """Run a coroutine that never suspends (a scripted agent's answer) to its result."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the agent suspended")


def message_floor_rounds_per_second(rounds: int) -> float:
    """The floor of a message-based table: requests, agents and engine checks only.

    No events, no replay, no asyncio, no deadlines or fault handling: what is left when
    every decision still goes out as a protocol request and comes back as a reply.
    """
    agents = [RandomAgent(f"R{i}", seed=i) for i in range(3)]
    views = SeatViews(("R0", "R1", "R2"))
    started = time.perf_counter()
    for seed in range(rounds):
        rnd = Round(seed=seed)
        views.new_round(seed + 1)
        while rnd.phase is not Phase.FINISHED:
            seat = rnd.to_act
            assert seat is not None
            if rnd.phase is Phase.BIDDING:
                request = views.bid_request(rnd, seat, time_limit_ms=1000, request_id="r")
                rnd.bid(seat, _drive(agents[seat].bid(request)).bid)
                continue
            if rnd.phase is Phase.DOUBLING:
                double = views.double_request(rnd, seat, time_limit_ms=1000, request_id="r")
                rnd.double(seat, _drive(agents[seat].double(double)).double)
                continue
            if not rnd.is_leading and not rnd.legal_moves():
                rnd.pass_turn(seat)
            else:
                play = views.play_request(rnd, seat, time_limit_ms=1000, request_id="r")
                reply = _drive(agents[seat].play(play))
                move = move_of(reply)  # the table's in-process check, as in Table
                if reply.action == "PASS":
                    rnd.pass_turn(seat)
                elif move is not None:
                    rnd.play(seat, move, reply.hand_type)
                else:
                    rnd.play(seat, resolve_cards(reply.cards, rnd.hand(seat)), reply.hand_type)
            action = next(a for a in reversed(rnd.history) if isinstance(a, PlayAction))
            views.record_play(seat, action.combo)
    return rounds / (time.perf_counter() - started)


async def table_rounds(
    rounds: int, replay_path: Path | None, *, with_sink: bool = True
) -> tuple[float, int]:
    """Random rounds through a table (a counting sink and a replay when asked): rate, events."""
    agents = [RandomAgent(f"R{i}", seed=i) for i in range(3)]
    sink = CountingSink()
    writer = ReplayWriter(replay_path) if replay_path is not None else None
    table = Table(
        agents,
        sinks=[sink] if with_sink else [],
        recorder=writer.for_table("t1") if writer is not None else None,
        settings=TableSettings(pace_s=0.0),
    )
    started = time.perf_counter()
    await play_match(table, rounds=rounds, seed=1)
    elapsed = time.perf_counter() - started
    if writer is not None:
        writer.close()
    return rounds / elapsed, sink.count


def table_rounds_per_second(rounds: int) -> tuple[float, int, int]:
    """Random rounds through the table with events and replay on; also events and bytes."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "bench.jsonl"
        rate, events = asyncio.run(table_rounds(rounds, path))
        return rate, events, path.stat().st_size


def rlcard_env_rounds_per_second(rounds: int) -> float | None:
    """RLCard's environment loop with its random agents (None if RLCard is missing)."""
    try:
        import rlcard
        from rlcard.agents import RandomAgent as RLRandomAgent
    except ImportError:
        return None
    env = rlcard.make("doudizhu", config={"seed": 1})
    env.set_agents([RLRandomAgent(num_actions=env.num_actions) for _ in range(3)])
    started = time.perf_counter()
    for _ in range(rounds):
        env.run(is_training=False)
    return rounds / (time.perf_counter() - started)


def rlcard_game_rounds_per_second(rounds: int) -> float | None:
    """RLCard's game loop (DoudizhuGame.step with random legal actions), None if missing."""
    try:
        from benchmarks.bench_engine import RLCard
    except ImportError:
        return None
    try:
        play = RLCard().make_round()
    except ImportError:
        return None
    started = time.perf_counter()
    for seed in range(rounds):
        play(seed)
    return rounds / (time.perf_counter() - started)


def request_cost_by_history(lengths: list[int], repeats: int) -> dict[int, float]:
    """µs to build a PLAY_REQUEST for a round whose history has each length."""
    agents = [RandomAgent(f"R{i}", seed=i) for i in range(3)]
    table = Table(agents, settings=TableSettings(pace_s=0.0))
    rnd = Round(seed=3, landlord=0, call_score=1)
    while rnd.phase is not Phase.PLAYING:
        assert rnd.to_act is not None
        rnd.double(rnd.to_act, False)
    record = trusted(WirePlayRecord, player="R1", action="PASS", type=None, cards=[])
    turns = table.turns
    assert isinstance(turns, DdzTurns)
    costs: dict[int, float] = {}
    for length in lengths:
        turns.views.history = [record] * length
        samples = []
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(repeats):
                turns.views.play_request(rnd, 0, time_limit_ms=1000, request_id="r")
            samples.append((time.perf_counter() - started) / repeats * 1e6)
        costs[length] = statistics.median(samples)
    return costs


class Concurrent(NamedTuple):
    """What the concurrent run measured after its warm-up."""

    decisions: int
    elapsed_s: float
    cpu_s: float
    full_collections: int
    paused_s: float


async def _concurrent(
    tables: int, duration_s: float, delay_s: float, warmup_s: float
) -> Concurrent:
    all_agents: list[SlowAgent] = []
    boards = []
    for t in range(tables):
        agents = [SlowAgent(f"S{i}", seed=t * 3 + i, delay_s=delay_s) for i in range(3)]
        all_agents.extend(agents)
        boards.append(Table(agents, table_id=f"t{t}", settings=TableSettings(pace_s=0.0)))
    # the garbage-collection policy of `arena play` and tournaments (arena.gc_policy)
    async with collecting_while_playing() as collector:
        tasks = [
            asyncio.create_task(play_match(b, rounds=1000, seed=t)) for t, b in enumerate(boards)
        ]
        await asyncio.sleep(warmup_s)  # let every table get going before measuring
        before = sum(a.decisions for a in all_agents)
        collections, paused = collector.full_collections, collector.paused_s
        cpu, started = time.process_time(), time.perf_counter()
        await asyncio.sleep(duration_s)
        elapsed = time.perf_counter() - started
        cpu = time.process_time() - cpu
        after = sum(a.decisions for a in all_agents)
        collections = collector.full_collections - collections
        paused = collector.paused_s - paused
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    return Concurrent(after - before, elapsed, cpu, collections, paused)


def concurrent_decisions(
    tables: int, duration_s: float, delay_s: float, warmup_s: float = 1.0
) -> tuple[float, float, Concurrent]:
    """Decisions per second across ``tables`` tables, measured for ``duration_s`` after
    ``warmup_s``; the ideal rate; and the figures."""
    run = asyncio.run(_concurrent(tables, duration_s, delay_s, warmup_s))
    return run.decisions / run.elapsed_s, tables / delay_s, run


def _row(cells: list[Any], widths: list[int]) -> str:
    return "  ".join(str(c).ljust(w) for c, w in zip(cells, widths, strict=True))


def main(argv: list[str] | None = None) -> int:
    """Run the three measurements and print a table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=1000, help="rounds for (a)")
    parser.add_argument("--tables", type=int, default=200, help="tables for (c)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measuring time for (c)")
    parser.add_argument(
        "--delay", type=float, default=0.1, help="seconds each agent takes to answer in (c)"
    )
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of (c) before measuring")
    parser.add_argument(
        "--only", choices=("concurrent",), help="run only (c), the concurrent tables"
    )
    parser.add_argument("--quick", action="store_true", help="a short run")
    args = parser.parse_args(argv)
    rounds = 200 if args.quick else args.rounds
    seconds = 3.0 if args.quick else args.seconds
    if args.only is None:
        _single_table(rounds, quick=args.quick)
    _concurrent_tables(args.tables, seconds, args.delay, args.warmup)
    return 0


def _single_table(rounds: int, *, quick: bool) -> None:
    """(a) and (b): one table's rounds per second, and the cost of a request."""
    engine = engine_rounds_per_second(rounds)
    floor = message_floor_rounds_per_second(rounds)
    table, events, size = table_rounds_per_second(rounds)
    rlcard = rlcard_game_rounds_per_second(max(100, rounds // 2))
    rlcard_env = rlcard_env_rounds_per_second(max(20, rounds // 20))
    widths = [46, 14, 22]
    print("(a) random full rounds per second (one core)")
    print(_row(["", "rounds/s", "note"], widths))
    print(_row(["bare engine (Round, random legal actions)", f"{engine:,.0f}", ""], widths))
    note = "no events/replay/asyncio"
    print(_row(["floor: requests, agents, engine checks", f"{floor:,.0f}", note], widths))
    note = f"{events / rounds:.0f} events, {size / rounds / 1024:.0f} KiB replay per round"
    print(_row(["table: agents, events, replay", f"{table:,.0f}", note], widths))
    overhead = (1 / table - 1 / engine) * 1e3
    print(_row(["orchestrator overhead per round", f"{overhead:.2f} ms", ""], widths))
    if rlcard is not None:
        print(_row(["RLCard game loop (random legal actions)", f"{rlcard:,.0f}", ""], widths))
        ratio = table / rlcard
        print(_row(["table vs RLCard game loop", f"{ratio:.1f}x", "goal: about 3x"], widths))
    if rlcard_env is not None:
        note = "with observation encoding"
        print(_row(["RLCard env.run (random agents)", f"{rlcard_env:,.0f}", note], widths))
    verdict = "PASS" if table >= 400 else "MISS"
    print(_row(["goal: table >= 400 rounds/s", verdict, ""], widths))

    print("\n(b) building one PLAY_REQUEST, by history length (µs)")
    costs = request_cost_by_history([0, 25, 50, 100, 200], 2000 if not quick else 300)
    for length, cost in costs.items():
        print(_row([f"history of {length} turns", f"{cost:.2f}", ""], widths))
    growth = costs[200] / max(costs[0], 1e-9)
    print(_row(["cost at 200 / cost at 0", f"{growth:.2f}x", "flat is good"], widths))


def _concurrent_tables(tables: int, seconds: float, delay_s: float, warmup_s: float) -> None:
    """(c): decisions per second of many tables whose agents await, against the ideal."""
    widths = [46, 14, 22]
    print(f"\n(c) {tables:,} tables at once, agents answer after {delay_s * 1000:g} ms")
    rate, ideal, run = concurrent_decisions(tables, seconds, delay_s, warmup_s)
    print(_row(["measured", f"{run.elapsed_s:.1f} s", f"after {warmup_s:g} s"], widths))
    share = rate / ideal
    verdict = "PASS" if share >= 0.9 else "MISS"
    print(_row(["decisions per second", f"{rate:,.0f}", f"ideal {ideal:,.0f}"], widths))
    print(_row(["share of ideal", f"{share:.0%}", f"goal >= 90%: {verdict}"], widths))
    per_decision = run.cpu_s / max(run.decisions, 1) * 1e6
    note = f"{run.cpu_s:.1f} s CPU in {run.elapsed_s:.1f} s"
    print(_row(["CPU per decision", f"{per_decision:.0f} µs", note], widths))
    note = f"{run.paused_s:.2f} s paused"
    print(_row(["full garbage collections", f"{run.full_collections}", note], widths))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(_row(["load average (1 min) at the end", f"{load:.2f}", "2 cores here"], widths))


if __name__ == "__main__":
    raise SystemExit(main())
