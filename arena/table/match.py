"""A match: several rounds at one table, with running scores and the final standings."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from arena.errors import SetupError
from arena.games.base import Game, GameRules
from arena.games.registry import DEFAULT_GAME, get_game
from arena.table.records import RoundRecord
from arena.table.safe_point import NextRound
from arena.table.table import Table
from protocol import MatchEnd, Standing

__all__ = [
    "MatchSummary",
    "begin_match",
    "derive_seed",
    "end_match",
    "new_summary",
    "plan_round",
    "play_match",
    "play_planned_round",
]


def match_id_of(seed: int) -> str:
    """The default match id of a seed: stable (the same seed, the same messages and
    replays), but not the seed itself, which deals every hand: an agent told the seed
    could rebuild the others' cards with the open engine. A fresh seed has 53 random
    bits, too many to find by hashing guesses; a small seed given by hand is guessable,
    as it always was."""
    digest = hashlib.sha256(f"ddz-arena match {seed}".encode()).hexdigest()
    return digest[:16]


def derive_seed(*parts: object) -> int:
    """A stable seed from any parts: same parts, same seed, on every machine.

    52 bits, so it survives a round trip through JSON in any language.
    """
    return random.Random(":".join(str(p) for p in parts)).getrandbits(52)


@dataclass
class MatchSummary:
    """What a match produced: every round record, totals, wins and faults per player."""

    table: str
    players: tuple[str, ...]
    rounds: list[RoundRecord] = field(default_factory=list)
    totals: dict[str, int] = field(default_factory=dict)
    rounds_won: dict[str, int] = field(default_factory=dict)
    faults: dict[str, dict[str, int]] = field(default_factory=dict)
    stats: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Each player's decision figures over the match (``arena.table.stats``): legal on
    the first try, after retries, fallbacks, latency, and a model's tokens and cost."""

    def standings(self) -> list[Standing]:
        """Players by total score (then round wins); equal totals and wins share a rank."""
        order = sorted(
            self.players, key=lambda p: (-self.totals.get(p, 0), -self.rounds_won.get(p, 0))
        )
        result: list[Standing] = []
        for index, player in enumerate(order):
            key = (self.totals.get(player, 0), self.rounds_won.get(player, 0))
            previous = result[-1] if result else None
            same = previous is not None and (previous.score, previous.rounds_won) == key
            rank = previous.rank if same and previous is not None else index + 1
            result.append(Standing(player=player, rank=rank, score=key[0], rounds_won=key[1]))
        return result

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready totals, wins, faults, decision figures and standings."""
        return {
            "table": self.table,
            "players": list(self.players),
            "rounds": len(self.rounds),
            "totals": dict(self.totals),
            "rounds_won": dict(self.rounds_won),
            "faults": {p: dict(f) for p, f in self.faults.items()},
            "stats": {p: dict(s) for p, s in self.stats.items()},
            "standings": [s.model_dump() for s in self.standings()],
        }


def _reseeder(seed: int, table_id: str, round_no: int) -> Callable[[str], int]:
    """A reshuffled deal's seed from the gift's id: derived from the match seed, the table
    and the round, so a replay or a tournament check derives it again."""
    return lambda gift_id: derive_seed(seed, table_id, round_no, "reshuffle", gift_id)


GoesOn = Callable[[Sequence[RoundRecord]], bool]
"""Whether a match goes on after the rounds played so far (a tournament format's rule)."""
OnRound = Callable[[RoundRecord], Awaitable[None]]
"""Told each round's record as it ends (a tournament's leaderboard)."""


async def play_match(
    table: Table,
    *,
    rounds: int | None,
    seed: int,
    match_id: str | None = None,
    goes_on: GoesOn | None = None,
    options: Mapping[str, Any] | None = None,
    landlord_policy: str | None = None,
    done: Sequence[RoundRecord] = (),
    on_round: OnRound | None = None,
) -> MatchSummary:
    """Play ``rounds`` rounds at ``table``; round seeds derive from ``seed`` and the table.

    ``match_id`` names the match in every message (default: :func:`match_id_of` the
    seed, so that the same seed gives the same messages and replays, without telling
    agents the seed).

    For tournaments: ``goes_on`` may end the match earlier (best of five), or, with
    ``rounds`` None, decides alone (open-ended); ``options`` are the match's options for
    the game's plan of each round (:attr:`arena.games.base.Game.round_plan`; Dou Dizhu's
    ``{"landlord_policy": "rotate"}`` makes seat 0, 1, 2 ... landlord in turn, asked
    only for its call score: 轮庄), and ``landlord_policy`` is the same option given by
    its old name; ``done`` are the rounds a match that was cut off already played
    (resumed, it goes on with the next round, dealt as it would have been, its totals
    counting them); and ``on_round`` hears every record as its round ends.
    """
    if rounds is None and goes_on is None and not table.game.ends_by_itself:
        raise SetupError("an open-ended match (rounds None) needs goes_on to end it")
    summary = new_summary(table, done)
    given = dict(options or {})
    if landlord_policy is not None:
        given["landlord_policy"] = landlord_policy
    # logged by the seed (to repeat the run), unless the caller names the match: a
    # tournament's seed is committed and secret until it ends, so its logs never hold it
    logged = seed if match_id is None else match_id
    with structlog.contextvars.bound_contextvars(match=f"{logged}/{table.table_id}"):
        return await _play(
            table,
            summary,
            rounds=rounds,
            seed=seed,
            match_id=match_id or match_id_of(seed),
            goes_on=goes_on,
            options=given,
            on_round=on_round,
        )


def _count(summary: MatchSummary, record: RoundRecord) -> None:
    """A round's record into the match's totals and round wins (a side wins together)."""
    summary.rounds.append(record)
    for seat, player in enumerate(summary.players):
        summary.totals[player] += record.result.scores[seat]
        if seat in record.result.winners:
            summary.rounds_won[player] += 1


async def _play(
    table: Table,
    summary: MatchSummary,
    *,
    rounds: int | None,
    seed: int,
    match_id: str,
    goes_on: GoesOn | None,
    options: Mapping[str, Any],
    on_round: OnRound | None,
) -> MatchSummary:
    await begin_match(table, summary, rounds=rounds, match_id=match_id)
    deals = table.table_id
    round_no = len(summary.rounds)
    over = table.game.match_over
    first = round_no + 1
    while (
        (rounds is None or round_no < rounds)
        and (goes_on is None or not summary.rounds or goes_on(summary.rounds))
        and not (summary.rounds and over(summary.rounds))
    ):
        round_no += 1
        if round_no > first and table.settings.round_pause_s:
            await table.clock.sleep(table.settings.round_pause_s)  # the result card is read
        plan = plan_round(
            seed, deals, round_no, game=table.game, rules=table.rules, options=options
        )
        record = await play_planned_round(table, summary, plan, seed=seed, deals=deals)
        if on_round is not None:
            await on_round(record)
    return await end_match(table, summary, match_id)


# --- the steps of a match, for a caller that drives several tables round by round ------
# (a tournament's duplicate mode plays one deal at every seating before the next)


def new_summary(table: Table, done: Sequence[RoundRecord] = ()) -> MatchSummary:
    """An empty summary of the match at ``table``, counting the rounds already ``done``
    (a resumed match)."""
    players = table.names
    summary = MatchSummary(
        table=table.table_id,
        players=players,
        totals=dict.fromkeys(players, 0),
        rounds_won=dict.fromkeys(players, 0),
    )
    for record in done:
        _count(summary, record)
    return summary


async def begin_match(
    table: Table, summary: MatchSummary, *, rounds: int | None, match_id: str
) -> None:
    """Start the match at the table (its totals those of the rounds ``summary`` already
    counts) and announce it: ``match_started``."""
    players = summary.players
    table.start_match(match_id)
    table.totals = [summary.totals[p] for p in players]  # a resumed match's rounds count
    await table.emit(
        "match_started",
        data={
            "players": list(players),
            "rounds": rounds,
            "rules": table.turns.public_rules(),
            "match_id": match_id,
        },
    )


def plan_round(
    seed: int,
    deals: str,
    round_no: int,
    *,
    game: Game | None = None,
    rules: GameRules | None = None,
    options: Mapping[str, Any] | None = None,
    rotate_bidder: bool | None = None,
    rotate_landlord: bool | None = None,
) -> NextRound:
    """Round ``round_no``'s plan: dealt from ``derive_seed(seed, deals, round_no)``
    (``deals``: the table's id, or the one its seatings share in duplicate mode), and
    what ``game``'s plan fixes of it under ``rules`` and the match's ``options``
    (:attr:`arena.games.base.Game.round_plan`; Dou Dizhu: the first bidder and the
    landlord when they rotate).

    ``rotate_bidder`` and ``rotate_landlord``: Dou Dizhu's options by their old names
    (a caller that names no game plans a round of the default game)."""
    if game is None:
        game = get_game(DEFAULT_GAME)
    given = dict(options or {})
    if rotate_bidder is not None:
        given["rotate_bidder"] = rotate_bidder
    if rotate_landlord is not None:
        given["landlord_policy"] = "rotate" if rotate_landlord else "bid"
    return NextRound(
        round_no,
        seed=derive_seed(seed, deals, round_no),
        fixed=game.round_plan(round_no, rules if rules is not None else game.rules(), given),
    )


async def play_planned_round(
    table: Table, summary: MatchSummary, plan: NextRound, *, seed: int, deals: str
) -> RoundRecord:
    """One round as ``plan`` says (between-rounds hooks may change it first), counted
    into ``summary``."""
    round_no = plan.round_no
    if round_no > 1 and table.between_rounds:
        await table.prepare_round(plan, reseed=_reseeder(seed, deals, round_no))
    record = await table.play_round(
        round_no, seed=plan.seed, gift_changes=plan.changes, **plan.fixed
    )
    _count(summary, record)
    return record


async def end_match(table: Table, summary: MatchSummary, match_id: str) -> MatchSummary:
    """End the match: the hooks, the faults and figures, MATCH_END to every seat and
    ``match_ended``."""
    players = summary.players
    for hook in table.match_end_hooks:
        await hook()
    summary.faults = {p: table.faults(p).to_dict() for p in players}
    summary.stats = {p: table.stats(p) for p in players}
    end = MatchEnd(
        rounds_played=len(summary.rounds),
        standings=summary.standings(),
        match_id=match_id,
        table_id=table.table_id,
    )
    for seat in range(len(table.seats)):
        await table.notify(seat, end)
    await table.emit("match_ended", data=summary.to_dict())
    return summary
