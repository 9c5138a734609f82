"""Running a tournament: stage by stage, tables at once, every round stored as it ends.

:func:`run_tournament` plays a new tournament, or resumes a stored one, from what the
store holds: the finished table matches are history (the next stage is paired from them
alone, so a resumed run pairs as an uninterrupted one), a table match cut off goes on
from its next round (a round cut off midway left nothing and is played again from its
start, dealt the same), and the leaderboard is rebuilt from the stored rounds. After
every round the leaderboard is updated and handed to ``on_leaderboard`` (the retained
MQTT message, the terminal's view); at each stage's end its ratings are settled in
canonical order (stage, table, round), so they do not depend on which table finished
first, and it is told again if that changed it.

A table match's seeds derive from the tournament's seed and the table's id
(``s<stage>t<index>``), the agents' from those and the seat: the same file and seed
play the same tournament. The seed is committed (``tournaments.epochs``): published as
its SHA-256 when the tournament starts, revealed when it ends; a ``daily`` one deals each
session's rounds from a new epoch's seed (pairing and the agents keep the first's).

In duplicate mode (``[tournament] duplicate``) a table match is played in several
seatings (one per seat, or every order) by :mod:`tournaments.duplicate`, each stored as
its own match (``s1t2.1`` ...) and all dealt from the base table's id; pairing sees a
group as one meeting.

A new tournament whose agents cannot start (an AgentStartError at its first tables)
before any round is stored is removed from the store again: nothing was played, and a
dead tournament would only wait in ``list`` to be resumed into the same failure. Once a
round is stored, a failure leaves it ``interrupted``, resumable.

A :class:`~tournaments.session.Session` may stop the tables short of the end (a daily
session's rounds played, or a stop asked): each stops after a round, the tournament is
left ``interrupted`` and :attr:`TournamentRun.finished` is false. With
:class:`~tournaments.gifts.TournamentGifts` each table takes viewer gifts while it
plays (ranked: never a changed result); that module, and the gifts package, are only
imported by a caller that turns gifts on.

Each table match is a table unit (:mod:`tournaments.table_match`). With ``workers`` ≥ 2,
:mod:`tournaments.workers` plays the stage's units of scripted and remote seats in
worker processes, against a proxy of the store; this process stays the only writer.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack, ExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from arena.errors import AgentStartError, ConfigError
from arena.games.base import Game
from arena.gc_policy import collecting_while_playing
from arena.runner import seat_agent
from arena.table import RoundRecord, build_moderator
from tournaments.config import TournamentConfig, parse_stored_config
from tournaments.deals import Duplicate, deal_table, seating_count
from tournaments.epochs import session_seed
from tournaments.forfeits import StandinRounds, scored_round
from tournaments.formats import Format, MatchLength
from tournaments.leaderboard import Leaderboard
from tournaments.lease import RunLease
from tournaments.playing import Playing, TableControl, run_together
from tournaments.schedule import FinishedTable, ScheduleKind, plan_stage
from tournaments.schedule import Table as Seating
from tournaments.seeds import epoch_seed
from tournaments.session import Session
from tournaments.store import MatchRow, TournamentStore, stored_round_record
from tournaments.table_match import play_table_match
from tournaments.workers import (
    WorkerPool,
    any_table_for_workers,
    check_workers,
    plays_in_main,
    refuse_with_workers,
)

if TYPE_CHECKING:
    from arena.sinks.base import Sink
    from arena.sinks.spectator import SpectatorFeed
    from tournaments.gifts import TournamentGifts

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
    """False when a session's end or a stop left it ``interrupted``, resumable."""


async def run_tournament(
    store: TournamentStore,
    config: TournamentConfig | None = None,
    *,
    tournament_id: str | None = None,
    on_leaderboard: OnLeaderboard | None = None,
    on_start: Callable[[str, int | None, int], None] | None = None,
    session: Session | None = None,
    gifts: TournamentGifts | None = None,
    sinks: Sequence[Sink] = (),
    spectator: SpectatorFeed | None = None,
    workers: int = 1,
    control: TableControl | None = None,
) -> TournamentRun:
    """Play ``config`` as a new tournament, or resume ``tournament_id`` (its config and
    seed as stored); see the module. ``on_start`` hears, before the first round, the
    tournament's id, the rounds it plans at most (None: open-ended) and those played
    before (a resumed run). An interruption, or a ``session`` that stops short of the
    end, marks it ``interrupted``. ``session`` defaults to the file's ``session_rounds``
    (``daily`` only); ``gifts`` are started with the seed and stopped at the end.
    ``sinks`` hear every table's events (the live MQTT feed); their owner starts and
    closes them, and gives only sinks that never wait (a table awaits each event). A
    ``spectator`` feed (started and closed by its owner) hears every table's hands, and
    a PEEK's cards.

    ``workers`` ≥ 2 plays the tables of scripted, subprocess and remote seats in that
    many worker processes, this one the only writer (:mod:`tournaments.workers`): the
    same rounds and standings as 1, every table here. Gifts and a spectator feed are
    refused with workers (ConfigError).

    A ``control`` (the arena server's pause, ``tournament run --serve``) holds every table
    of this process between two rounds, and each table match before it begins."""
    if (config is None) == (tournament_id is None):
        raise ValueError("give a config (a new tournament) or a tournament id (resume)")
    if workers != 1:
        check_workers(workers)
        refuse_with_workers(workers, gifts=gifts is not None, spectator=spectator is not None)
    held = ExitStack()  # the run's lease (tournaments.lease), from the id to the end
    new = tournament_id is None
    if tournament_id is None:
        assert config is not None
        session = _session_for(config, session, gifts)
        check_agents(config)  # a seat's mistake said now, not when its table comes
        first = epoch_seed(config.tournament.given_seed, 1, daily=_daily(config))
        tournament_id = store.free_tournament_id()
        held.enter_context(RunLease(store.path, tournament_id))  # or LeaseError: none stored
        store.new_tournament(
            config.tournament.name, config, seed=first, tournament_id=tournament_id
        )
        seed = deal_seed = first.value
    else:
        row = store.tournament(tournament_id)
        config = parse_stored_config(row.config, source=f"tournament {tournament_id}")
        session = _session_for(config, session, gifts)  # refused before it is marked running
        held.enter_context(RunLease(store.path, tournament_id))  # or TournamentBusy, untouched
        seed = row.seed  # pairing and the agents: the first epoch's, so it pairs as before
        deal_seed = session_seed(store, tournament_id, config)  # a daily's: a new epoch
        store.mark_tournament(tournament_id, "running")
    with held:  # a second run of this tournament is refused meanwhile
        stored = store.rounds(tournament_id)
        leaderboard = Leaderboard.from_rounds(
            (stored_round_record(row, store.path, config.game_info) for row in stored),
            names=config.names,
            seatings=seating_count(config.tournament.duplicate, config.seat_count),
            standin_rounds=config.tournament.standin_rounds,
            game=config.game_info,
        )
        played = Counter(str(row["table"]) for row in stored)
        tid = tournament_id
        sent: list[dict[str, Any]] = []  # the last board told

        def tell() -> None:
            if on_leaderboard is None:
                return  # nobody listens: no board to build
            board = {"tournament": tid, **leaderboard.to_dict()}
            if not sent or board != sent[-1]:
                sent[:] = [board]
                on_leaderboard(board)

        if on_start is not None:  # the id, the rounds planned and those already played
            on_start(tid, planned_rounds(config, seed), leaderboard.rounds)
        tell()  # before the first round: the retained board carries the seed's commitment

        def told(record: RoundRecord) -> None:
            leaderboard.add_round(record)
            tell()

        playing = Playing(
            store,
            config,
            tid,
            seed,
            deal_seed,
            session,
            gifts,
            build_moderator(config.moderation),
            sinks,
            spectator,
            control=control,
        )
        if gifts is not None:
            gifts.start(seed, spectator=spectator)
        pooled = AsyncExitStack()
        pool: WorkerPool | None = None
        try:
            # the arena's garbage-collection policy while tables play (arena.gc_policy)
            collector = await pooled.enter_async_context(collecting_while_playing())
            if workers > 1 and any_table_for_workers(config):  # not for model and human seats only
                pool = await pooled.enter_async_context(
                    WorkerPool(
                        workers, store=store, tid=tid, seed=seed, deal_seed=deal_seed, sinks=sinks
                    )
                )
            points = match_points(store, config.tournament.standin_rounds, config.game_info)
            for stage_no in range(1, config.stage_count + 1):
                history = _history(store.table_matches(tid), before=stage_no, points=points)
                seatings = plan_stage(
                    config.schedule_kind,
                    stage_no,
                    config.names,
                    history,
                    seed,
                    size=config.seat_count,
                )
                session.plan_stage([s.table_id for s in seatings], played)
                await _play_stage(playing, pool, seatings, told)
                collector.collect()  # a safe moment: no table plays between two stages
                leaderboard.settle()  # ratings in canonical order, whatever the timing
                tell()  # only if settling changed it
                if session.ended:
                    break
            await pooled.aclose()  # the workers done: they exit
        except BaseException as failed:
            await pooled.__aexit__(type(failed), failed, failed.__traceback__)  # killed now
            if new and isinstance(failed, AgentStartError) and not store.round_count(tid):
                store.discard_tournament(tid)  # never played: nothing to resume
            else:
                store.mark_tournament(tid, "interrupted")
            raise
        finally:
            if gifts is not None:
                await gifts.stop()
        if session.ended:  # mid-stage, maybe: its rounds rated as `show` will rate them
            leaderboard.settle()
            tell()
            store.mark_tournament(tid, "interrupted")
            return TournamentRun(tid, leaderboard, finished=False)
        store.mark_tournament(tid, "finished")
        return TournamentRun(tid, leaderboard, finished=True)


def _daily(config: TournamentConfig) -> bool:
    return config.tournament.format is Format.DAILY


def _session_for(
    config: TournamentConfig, session: Session | None, gifts: TournamentGifts | None
) -> Session:
    """The run's session: the one given, else the file's ``session_rounds``; a limit on
    a format of fixed length, or gifts in duplicate mode, is a ConfigError."""
    if session is None:
        session = Session(config.tournament.session_rounds)
    if gifts is not None and config.tournament.duplicate is not Duplicate.OFF:
        raise ConfigError(
            "gifts: not with tournament.duplicate: a viewer's gift or cheer could carry a "
            "deal from one seating to the next (turn one of them off)"
        )
    if session.rounds is not None and config.tournament.format is not Format.DAILY:
        raise ConfigError(
            f"a session of {session.rounds} rounds: only a daily tournament has sessions; "
            f"a {config.tournament.format} tournament has a fixed length"
        )
    return session


def planned_rounds(config: TournamentConfig, seed: int) -> int | None:
    """How many rounds the tournament plays at most (a best-of-five may end sooner);
    None when open-ended (``daily``). A round robin's stages are known at once; a
    Swiss stage seats all but the agents left over (n % seats). In duplicate mode each
    table match is played in every seating: that many times the rounds."""
    length = MatchLength.of(config.tournament.format)
    if length.rounds is None:
        return None
    seats = config.seat_count
    if config.schedule_kind is ScheduleKind.SWISS:
        matches = config.stage_count * (len(config.agents) // seats)
    else:
        matches = sum(
            len(plan_stage(ScheduleKind.ROUND_ROBIN, stage, config.names, [], seed, size=seats))
            for stage in range(1, config.stage_count + 1)
        )
    return matches * length.rounds * seating_count(config.tournament.duplicate, seats)


def check_agents(config: TournamentConfig) -> None:
    """Build every agent once, as its tables will: a ConfigError names the agent's key
    and name before anything is played or stored."""
    for index, entry in enumerate(config.agents):
        seat_agent(
            entry, seed=0, rules=config.rules, seat_key=f"agents.{index}", game=config.game_info
        )


def _summary_totals(match: MatchRow) -> Mapping[str, int]:
    """A finished table match's points per player, as its table scored them."""
    assert match.summary is not None
    totals: Mapping[str, int] = match.summary["totals"]
    return totals


def match_points(
    store: TournamentStore, standin_rounds: StandinRounds, game: Game | None = None
) -> Callable[[MatchRow], Mapping[str, int]]:
    """Each finished table match's points per player as the tournament counts them
    (what Swiss pairing ranks by): its summary's totals, or with forfeits its stored
    rounds scored again (:mod:`tournaments.forfeits`), each match read once."""
    if standin_rounds == StandinRounds.COUNT:
        return _summary_totals
    counted: dict[int, dict[str, int]] = {}

    def points(match: MatchRow) -> Mapping[str, int]:
        found = counted.get(match.id)
        if found is None:
            found = counted[match.id] = dict.fromkeys(match.players, 0)
            for record in store.round_records(match.id):
                scored = scored_round(record, standin_rounds, game)
                for seat, player in enumerate(record.players):
                    found[player] += scored.scores[seat]
        return found

    return points


def _history(
    matches: Sequence[MatchRow],
    *,
    before: int,
    points: Callable[[MatchRow], Mapping[str, int]] = _summary_totals,
) -> list[FinishedTable]:
    """The finished table matches of the stages before ``before``, as pairing sees them,
    each with its ``points`` (:func:`match_points`).

    A duplicate group's seatings (``s1t2.1``, ``s1t2.2`` ...) are one meeting of its
    agents: folded into one table (the first seating's order), each agent's
    points summed over the seatings, and only once every seating is finished."""
    groups: dict[tuple[int, str], list[MatchRow]] = {}
    for match in matches:
        stage = int(match.stage)
        if stage < before:
            groups.setdefault((stage, deal_table(match.table_id)), []).append(match)
    history = []
    for (stage, _), group in groups.items():
        if any(m.status != "finished" or m.summary is None for m in group):
            continue
        players = group[0].players
        summed = [sum(points(match)[player] for match in group) for player in players]
        history.append(FinishedTable(stage, players, tuple(summed)))
    return history


async def _play_stage(
    playing: Playing,
    pool: WorkerPool | None,
    seatings: Sequence[Seating],
    told: Callable[[RoundRecord], None],
) -> None:
    """Every table of one stage, ``tables_at_once`` at a time (default: all); with a
    pool, a table without model or human seats plays in the next free worker (so at
    most as many of those at once as there are workers)."""
    at_once = asyncio.Semaphore(playing.config.tournament.tables_at_once or max(len(seatings), 1))
    here = {seating.table_id for seating in seatings}
    if pool is not None:
        here = {s.table_id for s in seatings if plays_in_main(playing.config, s)}

    async def one(seating: Seating) -> None:
        async with at_once:
            if pool is None or seating.table_id in here:
                await play_table_match(playing, seating, told)
            else:
                await pool.play(
                    seating,
                    playing.session,
                    told,
                    here=lambda: play_table_match(playing, seating, told),
                )

    await run_together([one(seating) for seating in seatings])  # one fails: the stage stops
