"""A tournament's leaderboard: every agent's figures over the rounds it played.

Agents may play different numbers of rounds (several tables, stand-ins, formats that
stop early), so the ranking is by points per round played, with the rating
(:mod:`tournaments.ratings`) and its uncertainty beside it. The leaderboard is built one
:class:`~arena.table.records.RoundRecord` at a time (after every round), and goes out as
plain data (:meth:`Leaderboard.to_dict`: MQTT, ``--json``), CSV, or a terminal table.

Given the roster (``names``), the leaderboard lists every agent from the start: one yet
to play has zeros, no points per round (None: undefined), and ranks after those who
have played, in roster order. The ratings are rated in a canonical order, not as the
tables committed their rounds (:class:`~tournaments.ratings.TournamentRatings`): call
:meth:`Leaderboard.settle` at the end of a stage or run for the final ones.

A side wins together: each agent of the winning side (as the game gives the round's
sides, :attr:`arena.games.base.Game.sides`) is credited a round win.

Beside what every game has, the game brings its own figures
(:attr:`arena.games.base.Game.leaderboard_stats`): their keys follow ``round_wins`` in
an agent's standing, a round's result adds to them, and they have their own columns in
the terminal table (Dou Dizhu's landlord and farmer rounds, springs and bombs, in
:mod:`arena.games.ddz.leaderboard`). A game without has none.

In duplicate mode (``seatings`` above 1: ``tournaments.duplicate``) each agent also has a
duplicate score, compared deal by deal. A deal (a base table's round ``k``) is complete
when all its seatings have stored that round. For each complete deal an agent's *deal
total* is its points summed over the seatings; it earns 1 matchpoint for each other
agent of the table with a lower deal total and ½ for each with the same. ``deals``,
``deal_points`` (the deal totals summed), ``points_per_deal`` (their mean),
``matchpoints`` and ``matchpoints_per_deal`` (0 to 2) go beside the raw points; the
ranking stays by points per round.

Every round counts as the tournament's ``standin_rounds`` says
(:mod:`tournaments.forfeits`): with ``forfeit`` a round a seat did not play itself is a
loss at the round's stakes for it and never a win, in its points, round wins, rating,
duplicate score and the game's own figures (a Dou Dizhu spring); ``forfeits`` counts
them per agent, ``forfeits_standin`` and ``forfeits_fallback`` by what made most of its
decisions.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Final

from rich.table import Table as RichTable

from arena.games.base import Game, LeaderboardStats
from arena.games.registry import DEFAULT_GAME, get_game
from arena.table.faults import FAULT_CATEGORIES
from arena.table.records import RoundRecord
from tournaments.deals import deal_table
from tournaments.forfeits import ScoredRound, StandinRounds, scored_round
from tournaments.ratings import SIDE_SEAT_KEY, Rating, Ratings, TournamentRatings

__all__ = ["AgentLine", "Leaderboard", "Standing"]

CSV_FAULT_PREFIX: Final = "fault_"
"""A fault category's CSV column: ``fault_timeout`` ... (JSON nests them in ``faults``)."""


@dataclass(slots=True)
class AgentLine:
    """One agent's running figures (sums: a round adds to each)."""

    name: str
    points: int = 0
    rounds: int = 0
    round_wins: int = 0
    game_stats: dict[str, int] = field(default_factory=dict)
    """The game's own figures (see the module), by key in the game's order."""
    faults: dict[str, int] = field(default_factory=lambda: dict.fromkeys(FAULT_CATEGORIES, 0))
    standin_rounds: int = 0
    """Rounds in which a stand-in played for the agent (some or all of its decisions)."""
    forfeits_standin: int = 0
    """Rounds forfeited because the stand-in made most of the seat's decisions."""
    forfeits_fallback: int = 0
    """Rounds forfeited because the table's fallbacks made most of them."""
    decisions: int = 0
    legal_first_try: int = 0
    legal_after_retry: int = 0
    fell_back: int = 0
    latency_tenths_ms: int = 0
    """Time the agent's own decisions took, all together, in tenths of a millisecond
    (the rounds' own precision): a sum of integers is the same in any order, so a board
    rebuilt from the store in another order says the same (floats would not)."""
    input_tokens: int = 0
    output_tokens: int = 0
    cost_nanos: int | None = None
    """The cost in billionths of a dollar (integers, as for the time); None until a round
    names a cost (an agent without prices never does)."""
    deals: int | None = None
    """Duplicate mode: complete deals played (None: not a duplicate tournament)."""
    deal_points: int = 0
    """Duplicate mode: the agent's deal totals (points over a deal's seatings) summed."""
    matchpoints: float = 0.0
    """Duplicate mode: per deal, 1 for each other agent with a lower deal total, ½ for
    each with the same."""

    @property
    def points_per_deal(self) -> float | None:
        """Mean deal total; None before a complete deal (or not duplicate)."""
        return self.deal_points / self.deals if self.deals else None

    @property
    def matchpoints_per_deal(self) -> float | None:
        """Mean matchpoints per deal (0 to 2); None before a complete deal."""
        return self.matchpoints / self.deals if self.deals else None

    @property
    def points_per_round(self) -> float:
        """What the ranking goes by; 0.0 before the first round (undefined then: the
        JSON says None, the standings put such an agent last)."""
        return self.points / self.rounds if self.rounds else 0.0

    @property
    def latency_ms(self) -> float:
        """Time the agent's own decisions took, all together."""
        return self.latency_tenths_ms / 10

    @property
    def cost(self) -> float | None:
        """What the agent's calls cost, in dollars; None without prices."""
        return None if self.cost_nanos is None else self.cost_nanos / 1e9

    @property
    def mean_latency_ms(self) -> float | None:
        """Mean time per decision; None without decisions."""
        return round(self.latency_ms / self.decisions, 1) if self.decisions else None

    @property
    def tokens(self) -> int:
        """Input and output tokens (reasoning tokens are part of the output)."""
        return self.input_tokens + self.output_tokens

    @property
    def forfeits(self) -> int:
        """Rounds the agent did not play itself, each counted as a loss."""
        return self.forfeits_standin + self.forfeits_fallback

    def add(
        self,
        record: RoundRecord,
        seat: int,
        scored: ScoredRound,
        figures: LeaderboardStats | None = None,
    ) -> None:
        """The round's figures of the agent in ``seat``, its points and win as the
        tournament counts them (``scored``), and the game's own (``figures``)."""
        won = seat in scored.winners
        self.points += scored.scores[seat]
        self.rounds += 1
        self.round_wins += won
        if figures is not None:
            for key, count in figures.count(record.result, seat, won).items():
                self.game_stats[key] = self.game_stats.get(key, 0) + int(count)
        for kind, count in record.faults[seat].items():
            self.faults[kind] = self.faults.get(kind, 0) + count
        self.standin_rounds += seat in record.standins
        forfeit = scored.forfeits[seat]
        if forfeit == "standin":
            self.forfeits_standin += 1
        elif forfeit == "fallback":
            self.forfeits_fallback += 1
        stats = record.stats[seat]
        self.decisions += stats.get("decisions", 0)
        self.legal_first_try += stats.get("legal_first_try", 0)
        self.legal_after_retry += stats.get("legal_after_retry", 0)
        self.fell_back += stats.get("fell_back", 0)
        self.latency_tenths_ms += round(stats.get("latency_ms", 0.0) * 10)
        self.input_tokens += stats.get("input_tokens", 0)
        self.output_tokens += stats.get("output_tokens", 0)
        cost = stats.get("cost")
        if cost is not None:
            nanos = round(cost * 1e9)
            self.cost_nanos = nanos if self.cost_nanos is None else self.cost_nanos + nanos


@dataclass(frozen=True, slots=True)
class Standing:
    """An agent's place: rank (shared by a tie), its figures and its rating."""

    rank: int
    line: AgentLine
    rating: Rating

    @property
    def name(self) -> str:
        return self.line.name

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, in a fixed key order (the CSV's columns follow it); the duplicate
        score's keys at the end, in duplicate mode only."""
        line = self.line
        figures = {
            "rank": self.rank,
            "name": line.name,
            "points": line.points,
            "rounds": line.rounds,
            "points_per_round": round(line.points_per_round, 4) if line.rounds else None,
            "mu": self.rating.mu,
            "sigma": self.rating.sigma,
            "ordinal": self.rating.ordinal,
            "round_wins": line.round_wins,
            **line.game_stats,
            "faults": dict(line.faults),
            "standin_rounds": line.standin_rounds,
            "forfeits": line.forfeits,
            "forfeits_standin": line.forfeits_standin,
            "forfeits_fallback": line.forfeits_fallback,
            "decisions": line.decisions,
            "legal_first_try": line.legal_first_try,
            "legal_after_retry": line.legal_after_retry,
            "fell_back": line.fell_back,
            "latency_ms": round(line.latency_ms, 1),
            "mean_latency_ms": line.mean_latency_ms,
            "input_tokens": line.input_tokens,
            "output_tokens": line.output_tokens,
            "tokens": line.tokens,
            "cost": None if line.cost is None else round(line.cost, 9),
        }
        if line.deals is not None:
            figures.update(_duplicate_figures(line))
        return figures


def _duplicate_figures(line: AgentLine) -> dict[str, Any]:
    """The duplicate score's keys of an agent's standing."""
    per_deal, mp_per_deal = line.points_per_deal, line.matchpoints_per_deal
    return {
        "deals": line.deals,
        "deal_points": line.deal_points,
        "points_per_deal": None if per_deal is None else round(per_deal, 4),
        "matchpoints": line.matchpoints,
        "matchpoints_per_deal": None if mp_per_deal is None else round(mp_per_deal, 4),
    }


class Leaderboard:
    """Every agent's figures and rating, one round record at a time (see the module)."""

    def __init__(
        self,
        ratings: Ratings | None = None,
        *,
        names: Iterable[str] = (),
        seatings: int = 1,
        standin_rounds: StandinRounds = StandinRounds.COUNT,
        game: Game | None = None,
    ) -> None:
        """``ratings``: the starting ratings (the model's parameters); ``names``: the
        roster, so an agent that has not played yet is listed too (after those who
        have, in roster order); ``seatings``: in duplicate mode the seatings of each deal
        (:func:`tournaments.deals.seating_count`: a deal is complete when that many
        seatings played it), 1 otherwise; ``standin_rounds``: the tournament's setting (a
        tournament passes its own; ``count``, the table's scores as they are, when none
        is given); ``game``: whose rounds (their sides), the default game when None."""
        if seatings < 1:
            raise ValueError(f"seatings must be at least 1, not {seatings}")
        self.standin_rounds = standin_rounds
        self.game = game or get_game(DEFAULT_GAME)
        factory = self.game.leaderboard_stats
        self.stats: LeaderboardStats | None = factory() if factory is not None else None
        """The game's own figures (see the module); None for a game without."""
        if self.stats is not None:
            _check_game_keys(self.game, self.stats)
        self._ratings = TournamentRatings(ratings, standin_rounds=standin_rounds, game=self.game)
        self.seatings = seatings
        self._deals: dict[tuple[str, int], list[tuple[RoundRecord, ScoredRound]]] = {}
        """Duplicate mode: the rounds of each deal (base table, round) not yet complete."""
        self.lines: dict[str, AgentLine] = {}
        for name in names:
            self._line(name)
        """Every agent: the roster's first, in its order, then others as they play."""
        self.rounds = 0
        """Rounds added (each counts once, for all of its agents)."""

    @property
    def ratings(self) -> Ratings:
        """The ratings now: canonical once :meth:`settle` is called, provisional in
        the current stage before that (:class:`~tournaments.ratings.TournamentRatings`)."""
        return self._ratings.live

    @property
    def tournament_ratings(self) -> TournamentRatings:
        """The ratings with their stages (settled or not, updates made)."""
        return self._ratings

    def add_round(self, record: RoundRecord) -> None:
        """A finished round into every figure of its agents and their ratings
        (provisional within its stage until the next stage or :meth:`settle`)."""
        self._ratings.add_round(record)  # first: it refuses a round of agents not distinct
        self._add_figures(record)

    def settle(self) -> None:
        """Rate the current stage again in canonical order, so the ratings (and the
        ties they break) are a function of the rounds played, not of when each table
        committed its rounds. Call it at the end of a stage and of a run; cheap when
        nothing arrived out of order."""
        self._ratings.settle()

    def _line(self, name: str) -> AgentLine:
        line = self.lines.get(name)
        if line is None:
            line = self.lines[name] = self._new_line(name)
        return line

    def _new_line(self, name: str) -> AgentLine:
        """An agent's figures before its first round: zeros, the game's own too."""
        keys = self.stats.keys if self.stats is not None else ()
        deals = 0 if self.seatings > 1 else None
        return AgentLine(name, game_stats=dict.fromkeys(keys, 0), deals=deals)

    def _add_figures(self, record: RoundRecord) -> None:
        scored = scored_round(record, self.standin_rounds, self.game)
        for seat, name in enumerate(record.players):
            self._line(name).add(record, seat, scored, self.stats)
        self.rounds += 1
        if self.seatings > 1:
            key = (deal_table(record.table), record.round_no)
            deal = self._deals.setdefault(key, [])
            deal.append((record, scored))
            if len(deal) == self.seatings:
                del self._deals[key]
                self._score_deal(deal)

    def _score_deal(self, deal: list[tuple[RoundRecord, ScoredRound]]) -> None:
        """A complete deal's matchpoints (see the module), each seating's points as the
        tournament counts them (a forfeit's loss included): a deal whose seatings do not
        seat the same agents is no comparison, and is left out."""
        totals: dict[str, int] = {}
        for record, scored in deal:
            for seat, name in enumerate(record.players):
                totals[name] = totals.get(name, 0) + scored.scores[seat]
        if len(totals) != len(deal[0][0].players):
            return
        for name, total in totals.items():
            line = self._line(name)
            line.deals = (line.deals or 0) + 1
            line.deal_points += total
            line.matchpoints += sum(
                1.0 if total > other else 0.5 if total == other else 0.0
                for rival, other in totals.items()
                if rival != name
            )

    @classmethod
    def from_rounds(
        cls,
        records: Iterable[RoundRecord],
        *,
        names: Iterable[str] = (),
        ratings: Ratings | None = None,
        seatings: int = 1,
        standin_rounds: StandinRounds = StandinRounds.COUNT,
        game: Game | None = None,
    ) -> Leaderboard:
        """A leaderboard of stored rounds, in whatever order given: the rounds are rated
        in canonical order (stage, table, round), so the result is settled and the same
        as any run's after :meth:`settle`. ``names``, ``seatings``, ``standin_rounds``
        and ``game``: see the class."""
        records = list(records)
        board = cls(
            ratings, names=names, seatings=seatings, standin_rounds=standin_rounds, game=game
        )
        board._ratings = TournamentRatings.from_rounds(
            records, ratings, standin_rounds=standin_rounds, game=board.game
        )
        for record in records:
            board._add_figures(record)
        return board

    def standings(self) -> list[Standing]:
        """Agents by points per round (then rating ordinal, then name); agents equal in
        points per round and ordinal share a rank. Agents yet to play come last, in
        roster order, sharing a rank: their points per round are undefined."""
        ratings = self.ratings

        def key(line: AgentLine) -> tuple[bool, Fraction, float]:
            if not line.rounds:
                return False, Fraction(0), 0.0
            return True, Fraction(line.points, line.rounds), ratings.rating(line.name).ordinal

        played = sorted(
            (line for line in self.lines.values() if line.rounds),
            key=lambda line: (-key(line)[1], -key(line)[2], line.name),
        )
        waiting = [line for line in self.lines.values() if not line.rounds]
        standings: list[Standing] = []
        previous: tuple[bool, Fraction, float] | None = None
        for index, line in enumerate([*played, *waiting]):
            current = key(line)
            rank = standings[-1].rank if current == previous else index + 1
            standings.append(Standing(rank, line, ratings.rating(line.name)))
            previous = current
        return standings

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: rounds played, the rating model and its side seat (what the
        smaller side is worth, under its stored name :data:`SIDE_SEAT_KEY`), and the
        agents in ranked order."""
        board = {
            "rounds": self.rounds,
            "standin_rounds": str(self.standin_rounds),
            "rating_model": self.ratings.model,
            SIDE_SEAT_KEY: self.ratings.side_seat.to_dict(),
            "agents": [s.to_dict() for s in self.standings()],
        }
        if self.seatings > 1:  # duplicate mode: how many seatings play each deal
            board["seatings"] = self.seatings
        return board

    def to_csv(self) -> str:
        """A header row and one row per agent, ranked; faults one column per kind, and
        an empty cell for None."""
        rows = [_flat(s.to_dict()) for s in self.standings()]
        columns = dict.fromkeys(_flat(self._empty_row()))
        for row in rows:  # a fault kind from a newer arena gets a column too
            columns.update(dict.fromkeys(row))
        header = list(columns)
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return out.getvalue()

    def render(self, top: int | None = None) -> RichTable:
        """A terminal table of the first ``top`` agents (all of them for None)."""
        table = RichTable(title=f"Leaderboard · {self.rounds} rounds", title_justify="left")
        for header in ("#", "Agent", "Pts", "Rds", "Pts/Rd", "Rating (μ ± σ)", "Wins"):
            table.add_column(header, justify="left" if header == "Agent" else "right")
        game_headers = self.stats.headers if self.stats is not None else ()
        for header in (*game_headers, "Faults", "Stand-in", "Forfeits"):
            table.add_column(header, justify="right")
        table.add_column("Legal 1st", justify="right")
        for header in ("Retry ok", "ms/dec", "Tokens", "Cost"):
            table.add_column(header, justify="right")
        duplicate = self.seatings > 1
        if duplicate:
            for header in ("Deals", "Pts/Deal", "MP", "MP/Deal"):
                table.add_column(header, justify="right")
        standings = self.standings()
        for s in standings if top is None else standings[:top]:
            line = s.line
            faults = sum(line.faults.values())
            table.add_row(
                str(s.rank),
                line.name,
                str(line.points),
                str(line.rounds),
                f"{line.points_per_round:.2f}" if line.rounds else "-",
                f"{s.rating.mu:.1f} ± {s.rating.sigma:.1f}",
                str(line.round_wins),
                *(self.stats.cells(line.game_stats) if self.stats is not None else ()),
                str(faults),
                str(line.standin_rounds),
                str(line.forfeits),
                _percent(line.legal_first_try, line.decisions),
                str(line.legal_after_retry),
                "-" if line.mean_latency_ms is None else f"{line.mean_latency_ms:.1f}",
                str(line.tokens),
                "-" if line.cost is None else f"${line.cost:.4f}",
                *(_duplicate_cells(line) if duplicate else ()),
            )
        return table

    def _empty_row(self) -> dict[str, Any]:
        """The columns of a leaderboard without agents (a header alone; the duplicate
        score's come with the agents' rows)."""
        keys = self.stats.keys if self.stats is not None else ()
        line = AgentLine("", game_stats=dict.fromkeys(keys, 0))
        return Standing(1, line, Rating(0.0, 0.0)).to_dict()


def _check_game_keys(game: Game, stats: LeaderboardStats) -> None:
    """A game's own figures may not take the name of one every game has (a standing
    holds each key once): a ValueError naming them."""
    every_games = Standing(1, AgentLine(""), Rating(0.0, 0.0)).to_dict()
    taken = [key for key in stats.keys if key in every_games or key in _DUPLICATE_KEYS]
    if taken:
        raise ValueError(f"{game.title}'s leaderboard figures take the names of others: {taken}")


_DUPLICATE_KEYS: Final = frozenset(
    {"deals", "deal_points", "points_per_deal", "matchpoints", "matchpoints_per_deal"}
)
"""The duplicate score's keys (:func:`_duplicate_figures`)."""


def _duplicate_cells(line: AgentLine) -> tuple[str, ...]:
    """The duplicate score's cells of a terminal row."""
    per_deal, mp_per_deal = line.points_per_deal, line.matchpoints_per_deal
    return (
        str(line.deals or 0),
        "-" if per_deal is None else f"{per_deal:.2f}",
        f"{line.matchpoints:g}",
        "-" if mp_per_deal is None else f"{mp_per_deal:.3f}",
    )


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def _flat(row: Mapping[str, Any]) -> dict[str, Any]:
    """A standing's dict with its faults spread into ``fault_<kind>`` columns."""
    flat: dict[str, Any] = {}
    for key, value in row.items():
        if key == "faults":
            for kind, count in value.items():
                flat[CSV_FAULT_PREFIX + kind] = count
        else:
            flat[key] = "" if value is None else value
    return flat
