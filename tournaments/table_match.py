"""One table unit of a tournament run: a stage's table match, played or resumed, stored.

The coroutine an in-process run plays each table with (:mod:`tournaments.runner`), and
the one a worker process plays (:mod:`tournaments.workers`): whatever it does at a table
runs in a worker unchanged. In duplicate mode it plays every seating
(:mod:`tournaments.duplicate`).
"""

from __future__ import annotations

from collections.abc import Callable

from arena.table import RoundRecord, play_match, tee_recorders
from arena.table.match import match_id_of
from tournaments.config import match_options
from tournaments.deals import Duplicate
from tournaments.duplicate import play_duplicate_match
from tournaments.formats import MatchLength
from tournaments.playing import Playing, new_table
from tournaments.schedule import Table as Seating
from tournaments.session import SessionEnd

__all__ = ["play_table_match"]


async def play_table_match(
    playing: Playing,
    seating: Seating,
    told: Callable[[RoundRecord], None],
) -> None:
    """Play (or resume) the table match ``seating`` of a stage and store its rounds,
    ``told`` hearing each after it is stored; in duplicate mode, in every seating."""
    store, config, seed, session = playing.store, playing.config, playing.seed, playing.session
    if playing.control is not None:
        await playing.control.gate()  # a pause holds the next table match too
    if config.tournament.duplicate is not Duplicate.OFF:
        await play_duplicate_match(playing, seating, told)
        return
    table_id = seating.table_id
    match_id = store.open_match(
        playing.tid, stage=str(seating.stage), table_id=table_id, players=seating.players, seed=seed
    )
    if store.match(match_id).status == "finished":
        return  # played before the interruption: already history and on the board
    done = store.round_records(match_id)
    if not session.may_start(table_id, len(done)):
        return  # this session's rounds are played (or a stop was asked)
    table = new_table(
        playing,
        table_id,
        seating.players,
        recorder=tee_recorders(
            recorder := store.recorder(match_id),
            None
            if playing.spectator is None
            else playing.spectator.for_table(table_id, config.game),
        ),
        sinks=playing.sinks,
    )
    length = MatchLength.of(
        config.tournament.format, standin_rounds=config.tournament.standin_rounds
    )
    in_all = len(done)

    async def on_round(record: RoundRecord) -> None:
        nonlocal in_all
        in_all += 1
        told(record)
        session.after_round(table_id, in_all)  # SessionEnd: the table stops here

    gifts = playing.gifts
    await table.open()
    try:
        if gifts is not None:
            await gifts.attach(table)
        await play_match(
            table,
            rounds=length.rounds,
            seed=playing.deal_seed,
            match_id=match_id_of(seed),  # the same in every epoch
            goes_on=length.goes_on_after,
            options=match_options(config),
            done=done,
            on_round=on_round,
        )
    except SessionEnd:
        pass  # stopped after a stored round: the match goes on when resumed
    finally:
        if gifts is not None:
            await gifts.detach(table)
        await table.close()
        recorder.flush()  # what was told after the last round (a gift's end)
