"""Running a tournament: stage by stage, tables at once, every round stored as it ends.

:func:`run_tournament` plays a new tournament, or resumes a stored one, from what the
store holds: the finished table matches are history (the next stage is paired from them
alone, so a resumed run pairs as an uninterrupted one), a table match cut off goes on
from its next round (a round cut off midway left nothing and is played again from its
start, dealt the same), and the leaderboard is rebuilt from the stored rounds in the
order they were committed. After every round the leaderboard is updated and handed to
``on_leaderboard`` (the retained MQTT message, the terminal's view).

A table match's seeds derive from the tournament's seed and the table's id
(``s<stage>t<index>``), the agents' from those and the seat: the same file and seed
play the same tournament.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from arena.runner import new_seed, seat_agent
from arena.table import RoundRecord, Table, derive_seed, play_match
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.formats import MatchLength
from tournaments.leaderboard import Leaderboard
from tournaments.schedule import FinishedTable, ScheduleKind, plan_stage
from tournaments.schedule import Table as Seating
from tournaments.store import MatchRow, TournamentStore, round_record

__all__ = ["TournamentRun", "check_agents", "planned_rounds", "run_tournament"]

OnLeaderboard = Callable[[dict[str, Any]], None]
"""Hears the leaderboard (``Leaderboard.to_dict()`` with the tournament's id) after
every round."""


@dataclass
class TournamentRun:
    """What a run produced: the tournament's id and its final leaderboard."""

    tournament_id: str
    leaderboard: Leaderboard
    finished: bool


async def run_tournament(
    store: TournamentStore,
    config: TournamentConfig | None = None,
    *,
    tournament_id: str | None = None,
    on_leaderboard: OnLeaderboard | None = None,
    on_start: Callable[[str, int | None, int], None] | None = None,
) -> TournamentRun:
    """Play ``config`` as a new tournament, or resume ``tournament_id`` (its config and
    seed as stored); see the module. ``on_start`` hears, before the first round, the
    tournament's id, the rounds it plans at most (None: open-ended) and those played
    before (a resumed run). An interruption marks it ``interrupted``."""
    if (config is None) == (tournament_id is None):
        raise ValueError("give a config (a new tournament) or a tournament id (resume)")
    if tournament_id is None:
        assert config is not None
        check_agents(config)  # a seat's mistake said now, not when its table comes
        seed = config.tournament.seed if config.tournament.seed is not None else new_seed()
        tournament_id = store.new_tournament(config.tournament.name, config, seed=seed)
    else:
        row = store.tournament(tournament_id)
        config = parse_tournament_config(row.config, source=f"tournament {tournament_id}")
        seed = row.seed
        store.mark_tournament(tournament_id, "running")
    leaderboard = Leaderboard.from_rounds(
        round_record(stored) for stored in store.rounds(tournament_id)
    )
    tid = tournament_id
    if on_start is not None:  # the id, the rounds planned and those already played
        on_start(tid, planned_rounds(config, seed), leaderboard.rounds)

    def told(record: RoundRecord) -> None:
        leaderboard.add_round(record)
        if on_leaderboard is not None:
            on_leaderboard({"tournament": tid, **leaderboard.to_dict()})

    try:
        for stage_no in range(1, config.stage_count + 1):
            history = _history(store.table_matches(tid), before=stage_no)
            seatings = plan_stage(config.schedule_kind, stage_no, config.names, history, seed)
            await _play_stage(store, config, tid, seed, seatings, told)
    except BaseException:
        store.mark_tournament(tid, "interrupted")
        raise
    store.mark_tournament(tid, "finished")
    return TournamentRun(tid, leaderboard, finished=True)


def planned_rounds(config: TournamentConfig, seed: int) -> int | None:
    """How many rounds the tournament plays at most (a best-of-five may end sooner);
    None when open-ended (``daily``). A round robin's stages are known at once; a
    Swiss stage seats all but the agents left over (n % 3)."""
    length = MatchLength.of(config.tournament.format)
    if length.rounds is None:
        return None
    if config.schedule_kind is ScheduleKind.SWISS:
        matches = config.stage_count * (len(config.agents) // 3)
    else:
        matches = sum(
            len(plan_stage(ScheduleKind.ROUND_ROBIN, stage, config.names, [], seed))
            for stage in range(1, config.stage_count + 1)
        )
    return matches * length.rounds


def check_agents(config: TournamentConfig) -> None:
    """Build every agent once, as its tables will: a ConfigError names the agent's key
    and name before anything is played or stored."""
    for index, entry in enumerate(config.agents):
        seat_agent(entry, seed=0, rules=config.rules, seat_key=f"agents.{index}")


def _history(matches: Sequence[MatchRow], *, before: int) -> list[FinishedTable]:
    """The finished table matches of the stages before ``before``, as pairing sees them."""
    history = []
    for match in matches:
        stage = int(match.stage)
        if stage >= before or match.status != "finished" or match.summary is None:
            continue
        totals = match.summary["totals"]
        points = (totals[match.players[0]], totals[match.players[1]], totals[match.players[2]])
        history.append(FinishedTable(stage, match.players, points))
    return history


async def _play_stage(
    store: TournamentStore,
    config: TournamentConfig,
    tid: str,
    seed: int,
    seatings: Sequence[Seating],
    told: Callable[[RoundRecord], None],
) -> None:
    """Every table of one stage, ``tables_at_once`` at a time (default: all)."""
    at_once = asyncio.Semaphore(config.tournament.tables_at_once or max(len(seatings), 1))

    async def one(seating: Seating) -> None:
        async with at_once:
            await _play_table_match(store, config, tid, seed, seating, told)

    try:
        async with asyncio.TaskGroup() as group:
            for seating in seatings:
                group.create_task(one(seating))
    except ExceptionGroup as failed:  # one table's failure stops the stage: say it plainly
        if len(failed.exceptions) == 1:
            raise failed.exceptions[0] from None
        raise


async def _play_table_match(
    store: TournamentStore,
    config: TournamentConfig,
    tid: str,
    seed: int,
    seating: Seating,
    told: Callable[[RoundRecord], None],
) -> None:
    table_id = seating.table_id
    match_id = store.open_match(
        tid, stage=str(seating.stage), table_id=table_id, players=seating.players, seed=seed
    )
    if store.match(match_id).status == "finished":
        return  # played before the interruption: already history and on the board
    done = store.round_records(match_id)
    entries = {entry.name: (index, entry) for index, entry in enumerate(config.agents)}
    agents = []
    timeouts = []
    for position, name in enumerate(seating.players):
        index, entry = entries[name]
        agents.append(
            seat_agent(
                entry,
                seed=derive_seed(seed, table_id, "seat", position),
                rules=config.rules,
                seat_key=f"agents.{index}",
            )
        )
        timeouts.append(entry.effective_timeout_s)
    table = Table(
        agents,
        table_id=table_id,
        rules=config.rules,
        settings=config.table,
        recorder=store.recorder(match_id),
        timeouts=timeouts,
        standin_seed=derive_seed(seed, table_id, "standin"),
    )
    length = MatchLength.of(config.tournament.format)

    async def on_round(record: RoundRecord) -> None:
        told(record)

    await table.open()
    try:
        await play_match(
            table,
            rounds=length.rounds,
            seed=seed,
            goes_on=length.goes_on_after,
            landlord_policy="rotate" if config.tournament.landlord_policy == "rotate" else "bid",
            done=done,
            on_round=on_round,
        )
    finally:
        await table.close()
