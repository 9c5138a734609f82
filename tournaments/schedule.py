"""Who plays whom, in which seat, stage by stage: pure functions of their inputs.

A tournament of three agents is one table match. With more, tables of three play in
stages: a stage's tables use distinct agents (they play at once), and a stage's
pairings are made only from the stages finished before it, by :func:`plan_stage`, a
pure function of the roster, that history and the seed. So a run that was stopped and
resumed pairs exactly as one that never stopped.

Two kinds of schedule:

- **Round robin** (small rosters): every triple of agents plays once, C(n, 3) tables,
  so every pair meets n - 2 times. The triples are ordered, and seated, so that every
  prefix of stages is balanced too (``[tournament] stages`` may cut a cycle short, or
  run past it into the next): see :class:`_RoundRobinPlan`. Measured over every
  prefix of three cycles (the tests check them all): seat counts differ by at most 1
  for 3 to 6 agents (the rosters a default round robin has), 2 for 7 to 12; pair
  meetings by at most 2, but 3 for six agents, where 2 is impossible (an exhaustive
  search over the orders of its ten stages finds none). A seat spread of 2 can be
  forced: three agents who each sat once in seats 1 and 2, never in 0, meet.
- **Swiss** (large rosters): each stage groups neighbours in the standings, preferring
  pairs that have met least (a third meeting costs more than two second ones), and
  seats them to even out their seat counts; when the roster is no multiple of 3, of
  those that sat out least, those with the fewest opponents still unmet (then the
  lowest-ranked) sit this stage out, and a group no seat order keeps within a
  seat spread of 2 is avoided. Every prefix's meetings differ by at most 2 within
  the default 5 stages, 3 beyond; seat counts by at most 2 (tested for 7 to 20
  agents, 1 to 8 stages). Seven agents in five stages always
  leave one pair unmet: no schedule that sits each out at most once avoids it.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from math import comb
from typing import Final

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
]

ROUND_ROBIN_LIMIT: Final = 20
"""The most table matches a default round robin has; beyond it, Swiss."""
SWISS_STAGES: Final = 5
"""Stages a Swiss tournament plays unless ``[tournament] stages`` says otherwise."""
LOOKAHEAD: Final = 24
"""First triples a round-robin stage is tried from (the best by :meth:`_RoundRobinPlan._key`)."""
RESTARTS: Final = 12
"""Seeded fresh starts of the Swiss grouping's local search when it ends on repeats."""

Trio = tuple[str, str, str]
Pair = tuple[str, str]


class ScheduleKind(StrEnum):
    """How tables are drawn."""

    ROUND_ROBIN = "round_robin"
    SWISS = "swiss"


@dataclass(frozen=True, slots=True)
class Table:
    """One table match of a stage: three agent names in seat order (seat 0 first)."""

    stage: int
    """The stage, from 1."""
    index: int
    """The table's place in its stage, from 1."""
    players: Trio

    @property
    def table_id(self) -> str:
        """``s2t1``: unique in the tournament, so round seeds derived from the
        tournament's seed and this id differ between tables."""
        return f"s{self.stage}t{self.index}"


@dataclass(frozen=True, slots=True)
class FinishedTable:
    """A table match that has ended, as later stages see it."""

    stage: int
    players: Trio
    """In seat order."""
    points: tuple[int, int, int]
    """Each seat's total over the match."""


# ─── round robin ─────────────────────────────────────────────────────────────────────


def default_kind(n: int) -> ScheduleKind:
    """Round robin while it has at most :data:`ROUND_ROBIN_LIMIT` tables, else Swiss."""
    return ScheduleKind.ROUND_ROBIN if comb(n, 3) <= ROUND_ROBIN_LIMIT else ScheduleKind.SWISS


def default_stages(n: int) -> int:
    """How many stages a roster of ``n`` plays by default: one full round robin over
    the triples, or :data:`SWISS_STAGES` Swiss stages when that would be more than
    :data:`ROUND_ROBIN_LIMIT` table matches."""
    _check_roster_size(n)
    if default_kind(n) is ScheduleKind.SWISS:
        return SWISS_STAGES
    return round_robin_stages(n)


def round_robin_stages(n: int) -> int:
    """Stages in one cycle of the round robin of ``n`` agents."""
    _check_roster_size(n)
    return len(_round_robin_by_index(n))


def round_robin(roster: Sequence[str], seed: int) -> list[list[Table]]:
    """One full cycle of the round robin: stages of tables, every triple once.

    The cycle's shape depends on the roster's size alone; the seed decides which agent
    takes which place in it (so two tournaments of the same agents differ by seed).
    """
    order = _seeded_order(_checked_roster(roster), seed)
    return [
        [
            Table(stage=s, index=i, players=(order[a], order[b], order[c]))
            for i, (a, b, c) in enumerate(tables, 1)
        ]
        for s, tables in enumerate(_round_robin_by_index(len(order)), 1)
    ]


def _round_robin_by_index(n: int) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The first cycle's stages of seated triples of 0..n-1."""
    return _plan_for(n).cycle(0)


@cache
def _plan_for(n: int) -> _RoundRobinPlan:
    """One plan per roster size, grown on demand (it is a function of ``n`` alone)."""
    return _RoundRobinPlan(n)


Seated = tuple[int, int, int]


class _RoundRobinPlan:
    """Stages of repeated round-robin cycles over 0..n-1, balanced in every prefix.

    Every cycle plays each triple once. Stage by stage, a stage takes the triples left in
    its cycle one at a time, each the one (sharing no agent with those taken) that adds
    least imbalance to everything before it, then seats it: first the triple whose pairs
    have met least (the most any of its pairs has met, then their sum), then whose
    agents have played least, then whose best seat order adds least to its agents'
    fullest seats, then the first in a fixed order. Seats go, per table, to the order
    whose agents have sat there least (sum of counts, then the largest). So a
    tournament cut short (``stages`` fewer than a cycle) or run past one cycle plays a
    balanced prefix, and since the plan depends only on ``n`` (the seed only decides
    who is which index) a stage's tables never depend on when they are asked.
    """

    def __init__(self, n: int) -> None:
        self.n = n
        self.triples: tuple[Seated, ...] = tuple(itertools.combinations(range(n), 3))
        self.stages: list[tuple[Seated, ...]] = []
        self.cycle_ends: list[int] = []
        """The number of stages after each finished cycle."""
        self._left: list[Seated] = []
        self._met = [[0] * n for _ in range(n)]
        self._played = [0] * n
        self._seats = [[0, 0, 0] for _ in range(n)]

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

    def _best_order(self, trio: Seated) -> Seated:
        options = [(trio[p[0]], trio[p[1]], trio[p[2]]) for p in _PERMUTATIONS]
        return min(options, key=self._seat_cost)

    def _key(self, trio: Seated) -> tuple[int, int, int, tuple[int, int]]:
        a, b, c = trio
        met = (self._met[a][b], self._met[a][c], self._met[b][c])
        played = self._played[a] + self._played[b] + self._played[c]
        return (max(met), sum(met), played, self._seat_cost(self._best_order(trio)))

    def _next_stage(self) -> None:
        if not self._left:
            self._left = list(self.triples)
        firsts = sorted(self._left, key=self._key)[:LOOKAHEAD]
        stage = min((self._fill(first) for first in firsts), key=self._score)
        for seated in stage:
            a, b, c = sorted(seated)
            self._left.remove((a, b, c))
            self._count(seated, 1)
        self.stages.append(stage)
        if not self._left:
            self.cycle_ends.append(len(self.stages))

    def _fill(self, first: Seated) -> tuple[Seated, ...]:
        """A stage that starts with ``first``, completed greedily by :meth:`_key`."""
        stage: list[Seated] = []
        used: set[int] = set()
        trio: Seated | None = first
        while trio is not None:
            seated = self._best_order(trio)
            self._count(seated, 1)
            stage.append(seated)
            used.update(trio)
            options = [t for t in self._left if used.isdisjoint(t)]
            trio = min(options, key=self._key) if options else None
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


_PERMUTATIONS: Final = tuple(itertools.permutations(range(3)))


def _round_robin_stage(roster: Sequence[str], stage_no: int, seed: int) -> list[Table]:
    """Stage ``stage_no`` of repeated round-robin cycles (see :class:`_RoundRobinPlan`)."""
    order = _seeded_order(roster, seed)
    return [
        Table(stage=stage_no, index=i, players=(order[a], order[b], order[c]))
        for i, (a, b, c) in enumerate(_plan_for(len(order)).stage(stage_no - 1), 1)
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


def seat_counts(tables: Iterable[FinishedTable | Table]) -> dict[str, tuple[int, int, int]]:
    """Each agent's times in seat 0, 1 and 2."""
    counts: dict[str, list[int]] = {}
    for table in tables:
        for seat, player in enumerate(table.players):
            counts.setdefault(player, [0, 0, 0])[seat] += 1
    return {player: (c[0], c[1], c[2]) for player, c in counts.items()}


def swiss_stage(
    standings: Sequence[str],
    met: Mapping[Pair, int],
    seats: Mapping[str, tuple[int, int, int]],
    seed: int,
    stage_no: int,
) -> list[Table]:
    """A Swiss stage's tables: neighbours in ``standings`` (best first) grouped by three.

    ``met`` counts the meetings so far (:func:`meetings`, pairs in sorted order),
    ``seats`` each agent's seat counts so far (:func:`seat_counts`). Groups avoid pairs
    that have met where they can (fewest repeated meetings first, weighed by
    :func:`_repeat_weight`, then the narrowest spread of ranks: a greedy draw mended by
    swaps between tables, and a few seeded restarts while pairs still repeat); seats go
    to whoever sat there least. With ``n % 3`` agents too many, those that sat out
    least sit out, those with the fewest opponents still unmet first (sitting out one
    with many would waste meetings it still needs), then the lowest-ranked.
    """
    names = _checked_roster(standings)
    played = {name: sum(seats.get(name, (0, 0, 0))) for name in names}
    rank = {name: place for place, name in enumerate(names)}
    unmet = {
        name: sum(1 for other in names if other != name and not _met(met, name, other))
        for name in names
    }
    out = sorted(names, key=lambda name: (-played[name], unmet[name], -rank[name]))[
        : len(names) % 3
    ]
    playing = [name for name in names if name not in out]
    fit = _seats_allowed(playing, seats)
    groups = _improve(_greedy_groups(playing, met, rank, fit), met, rank, fit)
    if _repeats(groups, met):  # a local search stuck on repeats: a few seeded restarts
        draw = random.Random(derive_seed(seed, "swiss restarts", stage_no))
        for _ in range(RESTARTS):
            start = list(playing)
            draw.shuffle(start)
            other = _improve([start[i : i + 3] for i in range(0, len(start), 3)], met, rank, fit)
            if _total(other, met, rank, fit) < _total(groups, met, rank, fit):
                groups = other
    groups.sort(key=lambda group: min(rank[name] for name in group))
    rng = random.Random(derive_seed(seed, "swiss seats", stage_no))
    return [
        Table(stage=stage_no, index=i, players=_seat(group, seats, rng))
        for i, group in enumerate(groups, 1)
    ]


def _met(met: Mapping[Pair, int], a: str, b: str) -> int:
    return met.get((a, b) if a < b else (b, a), 0)


Fit = Mapping[str, frozenset[int]]
"""Each agent's seats that keep its seat counts within 2 of each other."""


def _seats_allowed(playing: Sequence[str], seats: Mapping[str, tuple[int, int, int]]) -> Fit:
    """The seats each agent may take without its seat spread passing 2."""
    allowed = {}
    for name in playing:
        counts = seats.get(name, (0, 0, 0))
        ok = []
        for seat in range(3):
            after = list(counts)
            after[seat] += 1
            if max(after) - min(after) <= 2:
                ok.append(seat)
        allowed[name] = frozenset(ok)
    return allowed


def _unseatable(group: Sequence[str], fit: Fit) -> bool:
    """Whether no seat order keeps every member's seat spread within 2."""
    return not any(all(seat in fit[group[p[seat]]] for seat in range(3)) for p in _PERMUTATIONS)


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
    """The best-ranked agent left, with the two left that cost it least."""
    left = list(playing)
    groups: list[list[str]] = []
    while left:
        head, rest = left[0], left[1:]
        pair = min(
            itertools.combinations(rest, 2),
            key=lambda two: _group_cost((head, *two), met, rank, fit),
        )
        groups.append([head, *pair])
        left = [name for name in rest if name not in pair]
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
            for i, j in itertools.product(range(3), range(3)):
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
    group: Sequence[str], seats: Mapping[str, tuple[int, int, int]], rng: random.Random
) -> Trio:
    """The seat order giving each player a seat they sat in least: first the one
    leaving the narrowest seat spread to any of them (ties: seeded)."""

    def cost(order: Trio) -> tuple[int, int, int]:
        counts = [seats.get(name, (0, 0, 0))[seat] for seat, name in enumerate(order)]
        widest = 0
        for seat, name in enumerate(order):
            after = list(seats.get(name, (0, 0, 0)))
            after[seat] += 1
            widest = max(widest, max(after) - min(after))
        return (widest, sum(c * c for c in counts), max(counts))

    options: list[Trio] = [(group[p[0]], group[p[1]], group[p[2]]) for p in _PERMUTATIONS]
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
) -> list[Table]:
    """Stage ``stage_no``'s tables (from 1), from the tables of earlier stages alone.

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
    names = _checked_roster(roster)
    if kind is ScheduleKind.ROUND_ROBIN:
        return _round_robin_stage(names, stage_no, seed)
    tiebreak = list(names)
    random.Random(derive_seed(seed, "swiss order")).shuffle(tiebreak)
    points: Counter[str] = Counter()
    for table in history:
        for player, score in zip(table.players, table.points, strict=True):
            points[player] += score
    score_of: Mapping[str, float] = ratings if ratings is not None else points
    place = {name: index for index, name in enumerate(tiebreak)}
    standings = sorted(names, key=lambda name: (-score_of.get(name, 0), place[name]))
    return swiss_stage(standings, meetings(history), seat_counts(history), seed, stage_no)


def _check_roster_size(n: int) -> None:
    if n < 3:
        raise ValueError(f"a tournament needs at least 3 agents, not {n}")


def _checked_roster(roster: Sequence[str]) -> tuple[str, ...]:
    names = tuple(roster)
    _check_roster_size(len(names))
    if len(set(names)) != len(names):
        twice = sorted(name for name, count in Counter(names).items() if count > 1)
        raise ValueError(f"agent names must be distinct: {', '.join(twice)} more than once")
    return names
