"""Duplicate mode: one table match played in several seatings, deal by deal.

With ``[tournament] duplicate = "rotations"`` (one seating per seat: 3 for Dou Dizhu) or
``"all"`` (every order: 6 for three seats) a table match (``s1t2``) is played once per
seating (:func:`tournaments.deals.seatings`),
each its own stored table match (``s1t2.1``, ``s1t2.2`` ...) with its players in that
seating's order. Round ``k`` of every seating is dealt from the base table's id
(:func:`tournaments.deals.deal_table`), with the same first bidder and landlord by seat
position, so each agent plays the same cards from every seat, bidding included; luck is
what the seatings share and the comparison (``tournaments.leaderboard``) takes it out.

No agent may carry a deal into its replay:

- each seating has its own :class:`~arena.table.Table` and fresh agents (new instances,
  new programs, new conversations);
- the seatings of deal ``k`` play at once, and deal ``k + 1`` only after all of them;
- until every seating of a deal has ended, the agents are not told its ROUND_RESULT
  (it shows the final hands), and the table's events for the live sinks and the
  spectator feed are held back too (someone watching could tell an agent); the
  leaderboard hears the deal's rounds after it, together.

The limit: a remote agent's server is shared by its seatings, which play at once, each
dealt another hand of the deal: it can see them all while it plays. The arena keeps
apart only what it runs (docs/tournaments.md says so).

Resuming: the seatings of a cut-off group may differ by one round (some stored deal
``k``, others not); the lagging seatings play deal ``k`` first, then all go on together.
A stop (Ctrl-C) ends the group after a whole deal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import structlog

from arena.events import Event
from arena.sinks.health import guard_after_failure
from arena.table import RoundRecord, Table, tee_recorders
from arena.table.match import (
    MatchSummary,
    begin_match,
    end_match,
    match_id_of,
    new_summary,
    plan_round,
    play_planned_round,
)
from tournaments.config import match_options
from tournaments.deals import seating_tables
from tournaments.formats import MatchLength
from tournaments.playing import Playing, new_table, run_together
from tournaments.schedule import Table as Seating
from tournaments.session import SessionEnd

if TYPE_CHECKING:
    from arena.sinks.base import Sink
    from arena.table.records import Recorder

__all__ = ["HeldEvents", "HeldRecorder", "play_duplicate_match"]


class HeldEvents:
    """A sink that keeps a table's events until :meth:`release` hands them on to the
    live sinks (a failing one is counted, as a table counts it: :mod:`arena.sinks.health`)."""

    def __init__(self, sinks: Sequence[Sink]) -> None:
        self.sinks = list(sinks)
        self._held: list[Event] = []

    async def emit(self, event: Event) -> None:
        """Keep the event."""
        self._held.append(event)

    async def close(self) -> None:
        """Nothing to release: the live sinks belong to the run."""

    def drop(self) -> None:
        """Forget what is held (a deal cut off: it will be played again)."""
        self._held.clear()

    async def release(self) -> None:
        """Hand every held event on, in order."""
        held, self._held = self._held, []
        for event in held:
            for sink in self.sinks:
                try:
                    await sink.emit(event)
                except Exception as exc:
                    self.sinks = guard_after_failure(self.sinks, sink, exc)


class HeldRecorder:
    """A recorder (the spectator feed's, which shows every hand) whose calls are kept
    until :meth:`release` makes them, in order."""

    def __init__(self, inner: Recorder) -> None:
        self._inner = inner
        self._held: list[tuple[Callable[..., None], tuple[Any, ...], dict[str, Any]]] = []

    def round_started(self, header: dict[str, Any]) -> None:
        self._held.append((self._inner.round_started, (header,), {}))

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        args = (direction, seat, message, elapsed_ms)
        self._held.append((self._inner.message, args, {"late": late} if late else {}))

    def event(self, event: Event) -> None:
        self._held.append((self._inner.event, (event,), {}))

    def round_ended(self, summary: dict[str, Any]) -> None:
        self._held.append((self._inner.round_ended, (summary,), {}))

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        """Kept if the inner recorder files decisions."""
        method = getattr(self._inner, "decision", None)
        if method is not None:
            self._held.append((method, (seat, record), {}))

    def effect(self, record: dict[str, Any]) -> None:
        """Kept if the inner recorder files gifts' effects."""
        method = getattr(self._inner, "effect", None)
        if method is not None:
            self._held.append((method, (record,), {}))

    def drop(self) -> None:
        """Forget what is held (a deal cut off)."""
        self._held.clear()

    def release(self) -> None:
        """Make every held call, in order."""
        held, self._held = self._held, []
        for method, args, kwargs in held:
            method(*args, **kwargs)


@dataclass
class _SeatingPlay:
    """One seating of a duplicate group: its stored match and, once opened, its table."""

    table_id: str
    players: tuple[str, ...]
    match_id: int
    done: list[RoundRecord]
    finished: bool
    events: HeldEvents
    spectator: HeldRecorder | None = None
    table: Table | None = None
    summary: MatchSummary | None = None
    flushes: list[Callable[[], None]] = field(default_factory=list)

    async def release(self) -> None:
        """What the deal held back: results to the agents, events to the audience."""
        if self.table is not None:
            await self.table.release_results()
        await self.events.release()
        if self.spectator is not None:
            self.spectator.release()


async def play_duplicate_match(
    playing: Playing,
    seating: Seating,
    told: Callable[[RoundRecord], None],
) -> None:
    """Play (or resume) the table match ``seating`` in every seating of the tournament's
    duplicate mode, deal by deal (see the module)."""
    store, config, seed = playing.store, playing.config, playing.seed
    base = seating.table_id
    plays = []
    for table_id, players in seating_tables(base, seating.players, config.tournament.duplicate):
        match_id = store.open_match(
            playing.tid, stage=str(seating.stage), table_id=table_id, players=players, seed=seed
        )
        finished = store.match(match_id).status == "finished"
        plays.append(
            _SeatingPlay(
                table_id,
                players,
                match_id,
                [] if finished else store.round_records(match_id),
                finished,
                HeldEvents(playing.sinks),
            )
        )
    going = [play for play in plays if not play.finished]
    if not going:
        return  # played before the interruption: history, and on the board
    length = MatchLength.of(config.tournament.format)
    rounds = length.rounds
    assert rounds is not None  # the config refuses duplicate for daily
    deals_done = min(len(play.done) for play in going)
    if not playing.session.may_start(base, deals_done):
        return
    with structlog.contextvars.bound_contextvars(match=f"{match_id_of(seed)}/{base}"):
        try:
            await _open(playing, seating, going)
            await _play_deals(playing, base, going, rounds, deals_done, told)
        except SessionEnd:
            pass  # stopped after a whole deal: the group goes on when resumed
        finally:
            for play in going:
                play.events.drop()  # a deal cut off: never shown, it is played again
                if play.spectator is not None:
                    play.spectator.drop()
            await asyncio.gather(*(p.table.close() for p in going if p.table is not None))
            for play in going:
                for flush in play.flushes:
                    flush()


async def _open(playing: Playing, seating: Seating, going: Sequence[_SeatingPlay]) -> None:
    """Each seating's table with fresh agents, opened, its match begun (and announced)."""
    config, seed = playing.config, playing.seed
    rounds = MatchLength.of(config.tournament.format).rounds
    for play in going:
        recorder = playing.store.recorder(play.match_id)
        play.flushes.append(recorder.flush)
        if playing.spectator is not None:
            held = playing.spectator.for_table(play.table_id, playing.config.game)
            play.spectator = HeldRecorder(held)
        play.table = new_table(
            playing,
            play.table_id,
            play.players,
            recorder=tee_recorders(recorder, play.spectator),
            sinks=[play.events],
        )
        play.table.hold_results()
    await run_together([_opened(play) for play in going])
    for play in going:
        assert play.table is not None
        play.summary = new_summary(play.table, play.done)
        await begin_match(play.table, play.summary, rounds=rounds, match_id=match_id_of(seed))
        await play.release()


async def _opened(play: _SeatingPlay) -> None:
    assert play.table is not None
    await play.table.open()


async def _play_deals(
    playing: Playing,
    base: str,
    going: Sequence[_SeatingPlay],
    rounds: int,
    deals_done: int,
    told: Callable[[RoundRecord], None],
) -> None:
    """Deal after deal: every seating that has not played it, at once; then what the
    deal held back is released and the leaderboard told; then the matches end."""
    seed, config = playing.deal_seed, playing.config  # the rounds' epoch (one: not daily)
    options = match_options(config)
    for deal in range(deals_done + 1, rounds + 1):
        behind = [play for play in going if len(play.done) < deal]

        async def one(play: _SeatingPlay, deal: int = deal) -> None:
            assert play.table is not None
            assert play.summary is not None
            plan = plan_round(
                seed, base, deal, game=config.game_info, rules=config.rules, options=options
            )
            record = await play_planned_round(play.table, play.summary, plan, seed=seed, deals=base)
            play.done.append(record)

        await run_together([one(play) for play in behind])
        for play in going:
            await play.release()
        for play in behind:
            told(play.done[-1])
        playing.session.after_round(base, deal)  # SessionEnd: the group stops here
    for play in going:
        assert play.table is not None
        assert play.summary is not None
        await end_match(play.table, play.summary, match_id_of(playing.seed))
        await play.release()
