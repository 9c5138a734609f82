"""Who plays whom, in which seat, stage by stage: pure functions of their inputs.

A table seats as many agents as the game's table has seats (``size``: Dou Dizhu's 3,
Tractor's 4 or 6). A roster of one table's size is one table match. With more, tables
play in stages: a stage's tables use distinct agents (they play at once), and a stage's
pairings are made only from the stages finished before it, by :func:`plan_stage`, a
pure function of the roster, that history and the seed. So a run that was stopped and
resumed pairs exactly as one that never stopped.

Two kinds of schedule:

- **Round robin** (small rosters): every group of ``size`` agents plays once, C(n,
  size) tables (for three seats, every triple: every pair meets n - 2 times). The
  groups are ordered, and seated, so that every prefix of stages is balanced too
  (``[tournament] stages`` may cut a cycle short, or run past it into the next): see
  :class:`_RoundRobinPlan`. Measured for three seats over every prefix of three cycles
  (the tests check them all): seat counts differ by at most 1 for 3 to 6 agents (the
  rosters a default round robin has), 2 for 7 to 12; pair meetings by at most 2, but 3
  for six agents, where 2 is impossible (an exhaustive search over the orders of its
  ten stages finds none). A seat spread of 2 can be forced: three agents who each sat
  once in seats 1 and 2, never in 0, meet.
- **Swiss** (large rosters): each stage groups neighbours in the standings, preferring
  pairs that have met least (a third meeting costs more than two second ones), and
  seats them to even out their seat counts; when the roster is no multiple of the
  table's size, of those that sat out least, those with the fewest opponents still
  unmet (then the lowest-ranked) sit this stage out, and a group no seat order keeps
  within a seat spread of 2 is avoided. For three seats, every prefix's meetings differ
  by at most 2 within the default 5 stages, 3 beyond; seat counts by at most 2 (tested
  for 7 to 20 agents, 1 to 8 stages). Seven agents in five stages always leave one pair
  unmet: no schedule that sits each out at most once avoids it.

``size`` is a table's seats, always given: a tournament passes its game's
(:attr:`tournaments.config.TournamentConfig.seat_count`).
"""

from __future__ import annotations

import itertools
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from math import comb
from operator import itemgetter
from typing import Any, Final

from arena.table.match import derive_seed

__all__ = [
    "ROUND_ROBIN_LIMIT",
    "SWISS_STAGES",
    "FinishedTable",
    "ScheduleKind",
    "Table",
    "default_kind",
    "default_stages",
    "meetings",
    "plan_stage",
    "round_robin",
    "round_robin_stages",
    "seat_counts",
    "swiss_stage",
    "table_place",
]

ROUND_ROBIN_LIMIT: Final = 20
"""The most table matches a default round robin has; beyond it, Swiss."""
SWISS_STAGES: Final = 5
"""Stages a Swiss tournament plays unless ``[tournament] stages`` says otherwise."""
LOOKAHEAD: Final = 24
"""First groups a round-robin stage is tried from (the best by :meth:`_RoundRobinPlan._key`)."""
RESTARTS: Final = 12
"""Seeded fresh starts of the Swiss grouping's local search when it ends on repeats."""

Players = tuple[str, ...]
"""A table's agents in seat order (seat 0 first), as many as the table has seats."""
SeatCounts = tuple[int, ...]
"""An agent's times in each seat, seat 0 first."""
Pair = tuple[str, str]


class ScheduleKind(StrEnum):
    """How tables are drawn."""

    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"


@dataclass(frozen=True, slots=True)
class Table:
    """One table match of a stage: its agents' names in seat order (seat 0 first)."""

    stage: int
    """The stage, from 1."""
    index: int
    """The table's place in its stage, from 1."""
    players: Players

    @property
    def table_id(self) -> str:
        """``s2t1``: unique in the tournament, so round seeds derived from the
        tournament's seed and this id differ between tables."""
        return f"s{self.stage}t{self.index}"


_TABLE_ID: Final = re.compile(r"s(\d+)t(\d+)(?:\.(\d+))?")


def table_place(table_id: str) -> dict[str, int]:
    """A table's stage and number (and, in duplicate mode, its seating) from its id
    (``s2t1``, ``s2t1.3``), for the overlay to say which table comes next; empty for an
    id of another shape."""
    found = _TABLE_ID.fullmatch(table_id)
    if found is None:
        return {}
    place = {"stage": int(found[1]), "index": int(found[2])}
    if found[3] is not None:
        place["seating"] = int(found[3])
    return place


@dataclass(frozen=True, slots=True)
class FinishedTable:
    """A table match that has ended, as later stages see it."""

    stage: int
    players: Players
    """In seat order."""
    points: tuple[int, ...]
    """Each seat's total over the match."""


# ─── round robin ─────────────────────────────────────────────────────────────────────


def default_kind(n: int, *, size: int) -> ScheduleKind:
    """Round robin while it has at most :data:`ROUND_ROBIN_LIMIT` tables, else Swiss."""
    return ScheduleKind.ROUND_ROBIN if comb(n, size) <= ROUND_ROBIN_LIMIT else ScheduleKind.SWISS


def default_stages(n: int, *, size: int) -> int:
    """How many stages a roster of ``n`` plays by default at tables of ``size``: one
    full round robin over the groups, or :data:`SWISS_STAGES` Swiss stages when that
    would be more than :data:`ROUND_ROBIN_LIMIT` table matches."""
    _check_roster_size(n, size)
    if default_kind(n, size=size) is ScheduleKind.SWISS:
        return SWISS_STAGES
    return round_robin_stages(n, size=size)


def round_robin_stages(n: int, *, size: int) -> int:
    """Stages in one cycle of the round robin of ``n`` agents at tables of ``size``."""
    _check_roster_size(n, size)
    return len(_round_robin_by_index(n, size))


def round_robin(roster: Sequence[str], seed: int, *, size: int) -> list[list[Table]]:
    """One full cycle of the round robin: stages of tables, every group once.

    The cycle's shape depends on the roster's size (and the table's) alone; the seed
    decides which agent takes which place in it (so two tournaments of the same agents
    differ by seed).
    """
    order = _seeded_order(_checked_roster(roster, size), seed)
    return [
        [
            Table(stage=s, index=i, players=tuple(order[agent] for agent in seated))
            for i, seated in enumerate(tables, 1)
        ]
        for s, tables in enumerate(_round_robin_by_index(len(order), size), 1)
    ]


def _round_robin_by_index(n: int, size: int) -> tuple[tuple[Seated, ...], ...]:
    """The first cycle's stages of seated groups of 0..n-1."""
    return _plan_for(n, size).cycle(0)


@cache
def _plan_for(n: int, size: int) -> _RoundRobinPlan:
    """One plan per roster and table size, grown on demand (a function of those alone)."""
    return _RoundRobinPlan(n, size)


Seated = tuple[int, ...]
"""A group of agents by their index in the plan, in seat order."""


@cache
def _orders(size: int, members: int | None = None) -> tuple[tuple[int, ...], ...]:
    """Every order of ``size`` seats (``members`` of them: the seats a partial group's
    members may take), in :func:`itertools.permutations`' order: ties between seat
    orders go to the first, as they always did for three seats."""
    return tuple(itertools.permutations(range(size), members))


@cache
def _takers(size: int) -> tuple[Callable[[Sequence[Any]], tuple[Any, ...]], ...]:
    """For each order of :func:`_orders`, what puts a group in that order (fast: the
    round robin tries every order of every group it weighs)."""
    return tuple(itemgetter(*order) for order in _orders(size))


class _RoundRobinPlan:
    """Stages of repeated round-robin cycles over 0..n-1, balanced in every prefix.

    Every cycle plays each group of ``size`` once. Stage by stage, a stage takes the
    groups left in its cycle one at a time, each the one (sharing no agent with those
    taken) that adds least imbalance to everything before it, then seats it: first the
    group whose pairs have met least (the most any of its pairs has met, then their
    sum), then whose agents have played least, then whose best seat order adds least to
    its agents' fullest seats, then the first in a fixed order. Seats go, per table, to
    the order whose agents have sat there least (sum of counts, then the largest). So a
    tournament cut short (``stages`` fewer than a cycle) or run past one cycle plays a
    balanced prefix, and since the plan depends only on ``n`` and ``size`` (the seed
    only decides who is which index) a stage's tables never depend on when they are
    asked.
    """

    def __init__(self, n: int, size: int) -> None:
        self.n = n
        self.size = size
        self.groups: tuple[Seated, ...] = tuple(itertools.combinations(range(n), size))
        self.stages: list[tuple[Seated, ...]] = []
        self.cycle_ends: list[int] = []
        """The number of stages after each finished cycle."""
        self._left: list[Seated] = []
        self._met = [[0] * n for _ in range(n)]
        self._played = [0] * n
        self._seats = [[0] * size for _ in range(n)]

    def stage(self, index: int) -> tuple[Seated, ...]:
        """Stage ``index`` (from 0) of the repeated cycles."""
        while len(self.stages) <= index:
            self._next_stage()
        return self.stages[index]

    def cycle(self, k: int) -> tuple[tuple[Seated, ...], ...]:
        """The stages of cycle ``k`` (from 0)."""
        while len(self.cycle_ends) <= k:
            self._next_stage()
        first = self.cycle_ends[k - 1] if k else 0
        return tuple(self.stages[first : self.cycle_ends[k]])

    def _seat_cost(self, order: Sequence[int]) -> tuple[int, int]:
        counts = [self._seats[agent][seat] for seat, agent in enumerate(order)]
        return (sum(counts), max(counts))

    def _best_order(self, group: Seated) -> Seated:
        options: list[Seated] = [take(group) for take in _takers(self.size)]
        return min(options, key=self._seat_cost)

    def _key(self, group: Seated) -> tuple[int, int, int, tuple[int, int]]:
        met = [self._met[a][b] for a, b in itertools.combinations(group, 2)]
        played = sum(self._played[agent] for agent in group)
        return (max(met), sum(met), played, self._seat_cost(self._best_order(group)))

    def _next_stage(self) -> None:
        if not self._left:
            self._left = list(self.groups)
        firsts = sorted(self._left, key=self._key)[:LOOKAHEAD]
        stage = min((self._fill(first) for first in firsts), key=self._score)
        for seated in stage:
            self._left.remove(tuple(sorted(seated)))
            self._count(seated, 1)
        self.stages.append(stage)
        if not self._left:
            self.cycle_ends.append(len(self.stages))

    def _fill(self, first: Seated) -> tuple[Seated, ...]:
        """A stage that starts with ``first``, completed greedily by :meth:`_key`."""
        stage: list[Seated] = []
        used: set[int] = set()
        group: Seated | None = first
        while group is not None:
            seated = self._best_order(group)
            self._count(seated, 1)
            stage.append(seated)
            used.update(group)
            options = [g for g in self._left if used.isdisjoint(g)]
            group = min(options, key=self._key) if options else None
        for seated in stage:
            self._count(seated, -1)
        return tuple(stage)

    def _score(self, stage: tuple[Seated, ...]) -> tuple[int, ...]:
        """How unbalanced everything is once ``stage`` is played: the spread of the
        pairs' meetings, of the agents' games and of their seats, then sums of squares
        (smaller: more even), then fewer tables left over for later."""
        for seated in stage:
            self._count(seated, 1)
        met = [self._met[a][b] for a, b in itertools.combinations(range(self.n), 2)]
        seats = [count for counts in self._seats for count in counts]
        spread = max(max(c) - min(c) for c in self._seats)
        score = (
            max(met) - min(met),
            max(self._played) - min(self._played),
            spread,
            sum(m * m for m in met),
            sum(c * c for c in seats),
            -len(stage),
        )
        for seated in stage:
            self._count(seated, -1)
        return score

    def _count(self, seated: Seated, step: int) -> None:
        for seat, agent in enumerate(seated):
            self._seats[agent][seat] += step
            self._played[agent] += step
        for x, y in itertools.combinations(seated, 2):
            self._met[x][y] += step
            self._met[y][x] += step


def _round_robin_stage(roster: Sequence[str], stage_no: int, seed: int, size: int) -> list[Table]:
    """Stage ``stage_no`` of repeated round-robin cycles (see :class:`_RoundRobinPlan`)."""
    order = _seeded_order(roster, seed)
    return [
        Table(stage=stage_no, index=i, players=tuple(order[agent] for agent in seated))
        for i, seated in enumerate(_plan_for(len(order), size).stage(stage_no - 1), 1)
    ]


def _seeded_order(roster: Sequence[str], seed: int) -> list[str]:
    """The roster in the seed's order: who takes which index of the plan."""
    order = list(roster)
    random.Random(derive_seed(seed, "round robin")).shuffle(order)
    return order


# ─── Swiss ───────────────────────────────────────────────────────────────────────────


def meetings(tables: Iterable[FinishedTable | Table]) -> Counter[Pair]:
    """How often each pair of agents (sorted names) has shared a table."""
    met: Counter[Pair] = Counter()
    for table in tables:
        for a, b in itertools.combinations(sorted(table.players), 2):
            met[(a, b)] += 1
    return met


def seat_counts(tables: Iterable[FinishedTable | Table]) -> dict[str, SeatCounts]:
    """Each agent's times in each seat (seat 0 first), as many seats as its tables."""
    counts: dict[str, list[int]] = {}
    for table in tables:
        for seat, player in enumerate(table.players):
            counts.setdefault(player, [0] * len(table.players))[seat] += 1
    return {player: tuple(c) for player, c in counts.items()}


def swiss_stage(
    standings: Sequence[str],
    met: Mapping[Pair, int],
    seats: Mapping[str, SeatCounts],
    seed: int,
    stage_no: int,
    *,
    size: int,
) -> list[Table]:
    """A Swiss stage's tables: neighbours in ``standings`` (best first) grouped by
    ``size``.

    ``met`` counts the meetings so far (:func:`meetings`, pairs in sorted order),
    ``seats`` each agent's seat counts so far (:func:`seat_counts`). Groups avoid pairs
    that have met where they can (fewest repeated meetings first, weighed by
    :func:`_repeat_weight`, then the narrowest spread of ranks: a greedy draw mended by
    swaps between tables, and a few seeded restarts while pairs still repeat); seats go
    to whoever sat there least. With ``n % size`` agents too many, those that sat out
    least sit out, those with the fewest opponents still unmet first (sitting out one
    with many would waste meetings it still needs), then the lowest-ranked.
    """
    names = _checked_roster(standings, size)
    none: SeatCounts = (0,) * size
    played = {name: sum(seats.get(name, none)) for name in names}
    rank = {name: place for place, name in enumerate(names)}
    unmet = {
        name: sum(1 for other in names if other != name and not _met(met, name, other))
        for name in names
    }
    out = sorted(names, key=lambda name: (-played[name], unmet[name], -rank[name]))[
        : len(names) % size
    ]
    playing = [name for name in names if name not in out]
    fit = _seats_allowed(playing, seats, size)
    groups = _improve(_greedy_groups(playing, met, rank, fit), met, rank, fit)
    if _repeats(groups, met):  # a local search stuck on repeats: a few seeded restarts
        draw = random.Random(derive_seed(seed, "swiss restarts", stage_no))
        for _ in range(RESTARTS):
            start = list(playing)
            draw.shuffle(start)
            chunks = [start[i : i + size] for i in range(0, len(start), size)]
            other = _improve(chunks, met, rank, fit)
            if _total(other, met, rank, fit) < _total(groups, met, rank, fit):
                groups = other
    groups.sort(key=lambda group: min(rank[name] for name in group))
    rng = random.Random(derive_seed(seed, "swiss seats", stage_no))
    return [
        Table(stage=stage_no, index=i, players=_seat(group, seats, rng, size))
        for i, group in enumerate(groups, 1)
    ]


def _met(met: Mapping[Pair, int], a: str, b: str) -> int:
    return met.get((a, b) if a < b else (b, a), 0)


@dataclass(frozen=True, slots=True)
class Fit:
    """Each agent's seats that keep its seat counts within 2 of each other, as a bit
    mask (seat ``s``: bit ``s``), and the table's size."""

    masks: Mapping[str, int]
    size: int


def _seats_allowed(playing: Sequence[str], seats: Mapping[str, SeatCounts], size: int) -> Fit:
    """The seats each agent may take without its seat spread passing 2."""
    allowed = {}
    for name in playing:
        counts = seats.get(name, (0,) * size)
        mask = 0
        for seat in range(size):
            after = list(counts)
            after[seat] += 1
            if max(after) - min(after) <= 2:
                mask |= 1 << seat
        allowed[name] = mask
    return Fit(allowed, size)


def _unseatable(group: Sequence[str], fit: Fit) -> bool:
    """Whether no seat order keeps every member's seat spread within 2 (for a group
    still being drawn: no distinct seats for its members so far)."""
    return not _seatable(tuple(sorted(fit.masks[name] for name in group)), fit.size)


@cache
def _seatable(masks: tuple[int, ...], size: int) -> bool:
    """Whether members with these allowed seats (bit masks) can take distinct seats."""
    return any(
        all(mask >> seat & 1 for mask, seat in zip(masks, order, strict=True))
        for order in _orders(size, len(masks))
    )


def _group_cost(
    group: Sequence[str], met: Mapping[Pair, int], rank: Mapping[str, int], fit: Fit
) -> int:
    """Repeated meetings weigh more than a group that cannot be seated evenly, which
    weighs more than any spread of ranks could."""
    repeats = sum(_repeat_weight(_met(met, a, b)) for a, b in itertools.combinations(group, 2))
    ranks = [rank[name] for name in group]
    uneven = 1_000 if _unseatable(group, fit) else 0
    return repeats * 100_000 + uneven + max(ranks) - min(ranks)


def _total(
    groups: Sequence[Sequence[str]], met: Mapping[Pair, int], rank: Mapping[str, int], fit: Fit
) -> int:
    return sum(_group_cost(group, met, rank, fit) for group in groups)


def _repeat_weight(times: int) -> int:
    """What meeting once more costs a pair that met ``times`` times: 0, 1, 3, 6 ... (a
    pair's third meeting costs more than two pairs' second, so the meetings spread out
    over the pairs instead of piling on a few while others never meet)."""
    return times * (times + 1) // 2


def _repeats(groups: Sequence[Sequence[str]], met: Mapping[Pair, int]) -> int:
    return sum(_met(met, a, b) for group in groups for a, b in itertools.combinations(group, 2))


def _greedy_groups(
    playing: Sequence[str], met: Mapping[Pair, int], rank: Mapping[str, int], fit: Fit
) -> list[list[str]]:
    """The best-ranked agent left, with the others left that cost it least, chosen two
    at a time (three seats: the best pair; more: every pair of a group of six would be
    too many to try)."""
    left = list(playing)
    groups: list[list[str]] = []
    while left:
        group, left = [left[0]], left[1:]
        while len(group) < fit.size:
            taken = group
            more = min(
                itertools.combinations(left, min(2, fit.size - len(group))),
                key=lambda extra: _group_cost((*taken, *extra), met, rank, fit),
            )
            group = [*group, *more]
            left = [name for name in left if name not in more]
        groups.append(group)
    return groups


def _improve(
    groups: list[list[str]], met: Mapping[Pair, int], rank: Mapping[str, int], fit: Fit
) -> list[list[str]]:
    """Swap agents between groups while a swap lowers the total cost (a local search,
    deterministic: the greedy draw leaves repeats at the end that a swap often mends)."""
    improved = True
    while improved:
        improved = False
        for g, h in itertools.combinations(range(len(groups)), 2):
            for i, j in itertools.product(range(fit.size), range(fit.size)):
                first, second = list(groups[g]), list(groups[h])
                first[i], second[j] = second[j], first[i]
                before = _group_cost(groups[g], met, rank, fit) + _group_cost(
                    groups[h], met, rank, fit
                )
                after = _group_cost(first, met, rank, fit) + _group_cost(second, met, rank, fit)
                if after < before:
                    groups[g], groups[h] = first, second
                    improved = True
    return groups


def _seat(
    group: Sequence[str], seats: Mapping[str, SeatCounts], rng: random.Random, size: int
) -> Players:
    """The seat order giving each player a seat they sat in least: first the one
    leaving the narrowest seat spread to any of them (ties: seeded)."""
    none: SeatCounts = (0,) * size

    def cost(order: Players) -> tuple[int, int, int]:
        counts = [seats.get(name, none)[seat] for seat, name in enumerate(order)]
        widest = 0
        for seat, name in enumerate(order):
            after = list(seats.get(name, none))
            after[seat] += 1
            widest = max(widest, max(after) - min(after))
        return (widest, sum(c * c for c in counts), max(counts))

    options: list[Players] = [take(group) for take in _takers(size)]
    rng.shuffle(options)
    return min(options, key=cost)


# ─── the entry point ─────────────────────────────────────────────────────────────────


def plan_stage(
    kind: ScheduleKind,
    stage_no: int,
    roster: Sequence[str],
    history: Sequence[FinishedTable],
    seed: int,
    *,
    ratings: Mapping[str, float] | None = None,
    size: int,
) -> list[Table]:
    """Stage ``stage_no``'s tables (from 1) of ``size`` seats, from the tables of
    earlier stages alone.

    Pure: the same roster, history, seed (and ratings) give the same tables, so a
    resumed tournament pairs exactly as an uninterrupted one. ``history`` must hold
    only finished tables of earlier stages (a later one would make the pairing depend
    on when it was asked). Swiss standings are by ``ratings`` when given, else by
    points over ``history``; ties in a seeded order of the roster.
    """
    if stage_no < 1:
        raise ValueError(f"stages count from 1, not {stage_no}")
    late = sorted({table.stage for table in history if table.stage >= stage_no})
    if late:
        raise ValueError(
            f"stage {stage_no} is planned from earlier stages only; history has stage {late[0]}"
        )
    names = _checked_roster(roster, size)
    if kind is ScheduleKind.ROUND_ROBIN:
        return _round_robin_stage(names, stage_no, seed, size)
    tiebreak = list(names)
    random.Random(derive_seed(seed, "swiss order")).shuffle(tiebreak)
    points: Counter[str] = Counter()
    for table in history:
        for player, score in zip(table.players, table.points, strict=True):
            points[player] += score
    score_of: Mapping[str, float] = ratings if ratings is not None else points
    place = {name: index for index, name in enumerate(tiebreak)}
    standings = sorted(names, key=lambda name: (-score_of.get(name, 0), place[name]))
    return swiss_stage(
        standings, meetings(history), seat_counts(history), seed, stage_no, size=size
    )


def _check_roster_size(n: int, size: int) -> None:
    """A table needs two seats at least, and a tournament one table's agents."""
    if size < 2:
        raise ValueError(f"a table of {size} seat(s) is no match: a game needs two seats or more")
    if n < size:
        raise ValueError(f"a tournament needs at least {size} agents, not {n}")


def _checked_roster(roster: Sequence[str], size: int) -> tuple[str, ...]:
    names = tuple(roster)
    _check_roster_size(len(names), size)
    if len(set(names)) != len(names):
        twice = sorted(name for name, count in Counter(names).items() if count > 1)
        raise ValueError(f"agent names must be distinct: {', '.join(twice)} more than once")
    return names
