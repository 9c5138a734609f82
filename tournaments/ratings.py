"""Skill ratings for a tournament: a round's sides against each other, with openskill.

Points per round rank the agents; a rating says how sure that ranking is. Every agent
keeps a mean skill ``mu`` and an uncertainty ``sigma`` (openskill's Plackett-Luce model);
the conservative value ``ordinal`` (``mu - 3 sigma``) is what a ranking may break ties on.

Each round is rated from its sides as the game gives them
(:attr:`arena.games.base.Game.sides`: seat tuples, the winning side first), each side a
team, the winning side ranked first. Sides of equal size (Tractor's two teams) are
rated team against team as they are. A side smaller than the others is joined by the
*side seat*, a pseudo-player rated like an agent in every such round, that stands for
what sitting on the smaller side is worth: for example Dou Dizhu's landlord, alone
against two, rated as ``[lone agent, side seat]`` against ``[agent, agent]``. It is
stored and published under :data:`SIDE_SEAT_KEY`, the name it was given when Dou Dizhu
was the only game. Why: openskill sums a team's skills, so a plain one against two
expects two equal agents to beat an equal lone one almost always (about 83 % at the
start, over 95 % once sigmas shrink), while Dou Dizhu's lone side wins nearly half its
rounds. Every lone win then looks like a surprise and moves ratings a lot, every win of
the pair barely at all. In simulations of three equal agents, alone 60 %, 30 % and 10 %
of the time, the lone side winning 30 to 60 % of rounds, the agent most often alone
ended 6 to 16 points of ``mu`` above the least often after 20 rounds, on average; over
longer runs every rating sank towards 0 until the model's odds matched the game's. With
the seat on the smaller side, equal agents make equal sums (an even game to begin with)
and the seat's own rating learns how often the smaller side really wins, in this
tournament, under its rules and policies, leaving the agents' ratings to measure the
agents: in the same simulations the gap was at most 4 points after 20 rounds (while the
seat learns) and under 1 after 100, and the ratings stayed near 25. A skill difference
moves the odds alike whichever side its agent sits on.

Other openskill options do not fix the bias: ``weights`` only share a team's update
among its players, and ``balance`` reweights a team's outliers; neither changes how a
team of two is compared with a team of one.

The update is deterministic: the same rounds in the same order give the same numbers,
bit for bit, so a resumed tournament may load :meth:`Ratings.to_dict` or replay its
stored rounds with :meth:`Ratings.from_rounds` and get the same ratings either way.

But the order matters, and a tournament's tables play at once, committing their rounds
in an order no seed fixes. :class:`TournamentRatings` therefore rates a tournament's
rounds in a canonical order (:func:`round_order`: stage, table, round), the current
stage provisionally as its rounds arrive until it is settled: the final ratings are a
function of the set of rounds played, in a run, a resumed run or ``show``.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.games.base import Game
from arena.games.registry import DEFAULT_GAME, get_game
from arena.table.records import RoundRecord
from tournaments.forfeits import StandinRounds, scored_round

__all__ = [
    "DEFAULT_MU",
    "DEFAULT_SIGMA",
    "MODEL_NAME",
    "SIDE_SEAT_KEY",
    "RatedRound",
    "Rating",
    "Ratings",
    "SideNames",
    "TournamentRatings",
    "round_order",
    "side_names",
]

DEFAULT_MU: Final = 25.0
DEFAULT_SIGMA: Final = 25.0 / 3.0
DEFAULT_BETA: Final = 25.0 / 6.0
DEFAULT_TAU: Final = 25.0 / 300.0
ORDINAL_Z: Final = 3.0
"""How many sigmas the conservative value stays below the mean (openskill's default)."""
SIDE_SEAT_KEY: Final = "landlord_seat"
"""The side seat's name in stored ratings and the published leaderboard, for every game:
the name it was given when Dou Dizhu was the only game (see the module), kept so stores
and published boards stay as they were."""
MODEL_NAME: Final = f"PlackettLuce+{SIDE_SEAT_KEY}"
"""The model as stored: ratings of another model (say, without the seat) do not mix."""

SideNames = tuple[tuple[str, ...], ...]
"""A round's sides by the agents' names, the winning side first."""


@dataclass(frozen=True, slots=True)
class Rating:
    """One agent's skill estimate after ``rounds`` rated rounds."""

    mu: float
    sigma: float
    rounds: int = 0

    @property
    def ordinal(self) -> float:
        """The conservative value ``mu - 3 sigma``: high only once the rating is sure."""
        return self.mu - ORDINAL_Z * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """``{"mu", "sigma", "rounds"}``: the floats exact, so a reload rates on alike."""
        return {"mu": self.mu, "sigma": self.sigma, "rounds": self.rounds}


class Ratings:
    """Every agent's rating, updated round by round (see the module)."""

    def __init__(
        self,
        *,
        mu: float = DEFAULT_MU,
        sigma: float = DEFAULT_SIGMA,
        beta: float = DEFAULT_BETA,
        tau: float = DEFAULT_TAU,
    ) -> None:
        self.params: dict[str, float] = {"mu": mu, "sigma": sigma, "beta": beta, "tau": tau}
        """The model's parameters: stored with the ratings, as they shape every update."""
        self._model = PlackettLuce(mu=mu, sigma=sigma, beta=beta, tau=tau)
        self._ratings: dict[str, Rating] = {}
        self.side_seat = Rating(mu, sigma)
        """The pseudo-player on the smaller side (see the module): ``mu`` above the
        starting one means the smaller side wins more than an even game would."""

    def __contains__(self, name: object) -> bool:
        return name in self._ratings

    def __len__(self) -> int:
        return len(self._ratings)

    def __iter__(self) -> Iterator[str]:
        """The rated agents' names, in the order they were first rated."""
        return iter(self._ratings)

    def rating(self, name: str) -> Rating:
        """An agent's rating; the model's starting one for an agent not rated yet."""
        found = self._ratings.get(name)
        if found is None:
            return Rating(self.params["mu"], self.params["sigma"])
        return found

    @property
    def model(self) -> dict[str, Any]:
        """The model's name and parameters, as :meth:`to_dict` stores them."""
        return {"name": MODEL_NAME, **self.params}

    def rate_sides(
        self, sides: Sequence[Sequence[str]], *, forfeited: Collection[str] = ()
    ) -> None:
        """One round: its sides (agents' names), the winning side first, each a team
        ranked in that order, the smaller side with the side seat (see the module). An
        agent ``forfeited`` (:mod:`tournaments.forfeits`) is rated as in the round ranked
        the other way round, when one of the winning side forfeited; everyone else, and
        the side seat, as the round went."""
        names = [name for side in sides for name in side]
        if len(sides) < 2 or len(set(names)) != len(names):
            raise ValueError(f"a round needs two sides or more of distinct agents: {sides!r}")
        before = [self.rating(name) for name in names]
        seated = _smaller_side(sides)
        seat = self.side_seat
        teams = _teams(sides, before, seated, seat)
        # The winners first and no ranks: the same numbers, bit for bit, as ranks=[1, 2]
        # (tested), without openskill's rank sorting, whose closures leave reference
        # cycles behind (8 objects a round for the garbage collector).
        went = self._model.rate(teams)
        after = _without_seat(went, seated)
        if any(name in forfeited for name in sides[0]):  # rated as the losing side
            turned = len(teams) - 1  # the winners last: the round the other way round
            lost = _without_seat(self._model.rate([*teams[1:], teams[0]]), seated, turned)
            after = [lost[i] if name in forfeited else after[i] for i, name in enumerate(names)]
        for i in _smaller_sides_first(sides):  # the order agents are first listed in
            self._ratings[names[i]] = Rating(
                float(after[i].mu), float(after[i].sigma), before[i].rounds + 1
            )
        if seated is not None:
            new_seat = went[seated][-1]
            self.side_seat = Rating(float(new_seat.mu), float(new_seat.sigma), seat.rounds + 1)

    def add_round(self, record: RoundRecord, game: Game | None = None) -> None:
        """Rate a finished round by its players (by seat) and its sides, as ``game``
        (the default game when None) gives them."""
        self.rate_sides(side_names(record, game))

    def copy(self) -> Ratings:
        """An independent copy (the ratings are immutable, the dict is not): what a
        stage is rated again from (:class:`TournamentRatings`)."""
        twin = Ratings(**self.params)
        twin._ratings = dict(self._ratings)
        twin.side_seat = self.side_seat
        return twin

    @classmethod
    def from_rounds(
        cls, records: Iterable[RoundRecord], game: Game | None = None, **params: float
    ) -> Ratings:
        """Ratings recomputed from stored rounds of ``game``, in the order given (order
        matters: :meth:`TournamentRatings.from_rounds` gives the canonical order's)."""
        ratings = cls(**params)
        for record in records:
            ratings.add_round(record, game)
        return ratings

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the model, the side seat's rating (as :data:`SIDE_SEAT_KEY`) and
        each agent's, by name."""
        return {
            "model": self.model,
            SIDE_SEAT_KEY: self.side_seat.to_dict(),
            "agents": {name: r.to_dict() for name, r in sorted(self._ratings.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ratings:
        """Ratings as :meth:`to_dict` wrote them (a resumed tournament rates on)."""
        model = dict(data.get("model", {}))
        name = model.pop("name", None)
        if name != MODEL_NAME:  # "PlackettLuce" alone: no seat, recompute from the rounds
            raise ValueError(f"ratings of an unknown model: {name!r}")
        ratings = cls(**{k: float(v) for k, v in model.items()})
        ratings.side_seat = _rating(data[SIDE_SEAT_KEY])
        for agent, rating in data.get("agents", {}).items():
            ratings._ratings[str(agent)] = _rating(rating)
        return ratings


def _rating(data: Mapping[str, Any]) -> Rating:
    return Rating(float(data["mu"]), float(data["sigma"]), int(data.get("rounds", 0)))


def side_names(record: RoundRecord, game: Game | None = None) -> SideNames:
    """The round's sides by the agents' names, the winning side first, as ``game`` (the
    default game when None) reads its result."""
    sides = (game or get_game(DEFAULT_GAME)).sides(record.result)
    return tuple(tuple(record.players[seat] for seat in side) for side in sides)


def _smaller_side(sides: Sequence[Sequence[str]]) -> int | None:
    """The side the side seat joins: the one smaller than every other, if any (none for
    equal teams)."""
    sizes = [len(side) for side in sides]
    smallest = min(sizes)
    if sizes.count(smallest) != 1 or smallest == max(sizes):
        return None
    return sizes.index(smallest)


def _smaller_sides_first(sides: Sequence[Sequence[str]]) -> list[int]:
    """Where each agent is among the sides' names, the smaller sides' first (whichever
    side won), else in the sides' order."""
    starts = [0]
    for side in sides:
        starts.append(starts[-1] + len(side))
    order = sorted(range(len(sides)), key=lambda index: len(sides[index]))
    return [i for index in order for i in range(starts[index], starts[index + 1])]


def _teams(
    sides: Sequence[Sequence[str]], before: Sequence[Rating], seated: int | None, seat: Rating
) -> list[list[PlackettLuceRating]]:
    """The sides as openskill's teams, each agent's rating as ``before`` (in the sides'
    order) and the side seat last on side ``seated``."""
    teams: list[list[PlackettLuceRating]] = []
    start = 0
    for index, side in enumerate(sides):
        team = [PlackettLuceRating(r.mu, r.sigma) for r in before[start : start + len(side)]]
        start += len(side)
        if index == seated:
            team.append(PlackettLuceRating(seat.mu, seat.sigma))
        teams.append(team)
    return teams


def _without_seat(
    teams: Sequence[Sequence[PlackettLuceRating]], seated: int | None, moved: int | None = None
) -> list[PlackettLuceRating]:
    """The agents' new ratings, side after side in the round's order, the side seat
    left out; ``moved``: where the winning side went when the round was turned round
    (it is put back first)."""
    ordered = list(teams)
    if moved is not None:
        ordered = [ordered[moved], *ordered[:moved]]
    return [
        rating
        for index, team in enumerate(ordered)
        for rating in (team[:-1] if index == seated else team)
    ]


TABLE_ID: Final = re.compile(r"s(\d+)t(\d+)(\.\d+)?")
"""A tournament's table id, ``s<stage>t<index>`` (tournaments.schedule), with
``.<seating>`` for a duplicate seating (tournaments.deals)."""

RoundKey = tuple[int, int, int, str, int]
"""Where a round stands in the canonical order: see :func:`round_order`."""


def round_order(table: str, round_no: int) -> RoundKey:
    """A round's place in the canonical order: by stage, then table, then round number.

    ``s10t2`` sorts after ``s2t1`` (the numbers are compared, not the text); a table id
    of another shape (``T1``, an older or a test table) sorts after every ``s<n>t<m>``,
    by its text, and all such tables count as one last stage. A duplicate seating
    (``s1t2.3``) is in its base table's stage, after the seatings before it."""
    found = TABLE_ID.fullmatch(table)
    if found is None:
        return (1, 0, 0, table, round_no)
    return (0, int(found[1]), int(found[2]), found[3] or "", round_no)


def _stage_of(key: RoundKey) -> tuple[int, int]:
    return key[0], key[1]


@dataclass(frozen=True, slots=True, order=True)
class RatedRound:
    """What rating a round needs, kept so a stage can be rated again: its key first,
    then the rest, so equal keys (a round stored twice) still sort the same way (by the
    smaller side, the larger, then which won: for Dou Dizhu as they always did)."""

    key: RoundKey
    seated: SideNames
    """The sides, the smaller first (then as :attr:`sides`): an order of the seats
    that does not depend on who won, for sorting."""
    won: tuple[bool, ...]
    """Whether each of :attr:`seated` won."""
    sides: SideNames = field(compare=False)
    """The sides, the winning side first: what is rated."""
    forfeited: tuple[str, ...] = ()
    """The agents that forfeited the round (rated as having lost)."""

    @classmethod
    def of(
        cls,
        record: RoundRecord,
        standin_rounds: StandinRounds = StandinRounds.COUNT,
        game: Game | None = None,
    ) -> RatedRound:
        """The round's sides as ``game`` (the default game when None) gives them and its
        forfeits under ``standin_rounds``, refused (ValueError) unless its players are
        distinct."""
        if len(set(record.players)) != len(record.players):
            raise ValueError(f"a round needs distinct agents: {record.players!r}")
        sides = side_names(record, game)
        seated = tuple(sorted(sides, key=len))
        forfeited = scored_round(record, standin_rounds, game).forfeited
        return cls(
            round_order(record.table, record.round_no),
            seated,
            tuple(side == sides[0] for side in seated),
            sides,
            tuple(record.players[seat] for seat in forfeited),
        )


class TournamentRatings:
    """Ratings that depend on the set of rounds played, not on the order they arrived.

    Why: tables play at once and openskill's updates depend on their order, so rating
    rounds as they are committed made two runs of one seed (or a resumed run) end with
    different ratings, and ratings break ties in the standings. The canonical order is
    :func:`round_order`'s. To stay O(rounds), the stages before the current one are
    *settled* (rated once in canonical order); the current stage's rounds are rated
    *provisionally* as they arrive (a live view that moves with every round), and rated
    again from the settled ratings in canonical order when a round of a later stage
    arrives or :meth:`settle` is called: each round is rated at most twice. A round of a
    stage already passed (never in a run, which plays its stages in order) rates every
    round again.

    ``standin_rounds`` says how a round a seat did not play itself is rated
    (:mod:`tournaments.forfeits`): with ``forfeit`` that seat as having lost. ``game``
    gives each round's sides (the default game when None).
    """

    def __init__(
        self,
        start: Ratings | None = None,
        *,
        standin_rounds: StandinRounds = StandinRounds.COUNT,
        game: Game | None = None,
    ) -> None:
        self.standin_rounds = standin_rounds
        self.game = game or get_game(DEFAULT_GAME)
        self._start = start if start is not None else Ratings()
        """The ratings before any round (the model's parameters): kept for a rebuild."""
        self._done: list[RatedRound] = []
        """The rounds of the settled stages, in canonical order."""
        self._base = self._start.copy()
        """The settled ratings: after every stage before the current one."""
        self._stage: list[RatedRound] = []
        """The current stage's rounds, in arrival order."""
        self._live = self._base.copy()
        self._canonical = True
        """Whether the live ratings are the canonical ones (the stage arrived in order,
        or was rated again since)."""
        self.updates = 0
        """Rating updates made so far (each costs ~50 µs): at most two a round."""

    @property
    def live(self) -> Ratings:
        """The current ratings: canonical when :attr:`settled`, else provisional."""
        return self._live

    @property
    def settled(self) -> bool:
        """Whether the ratings are those of the rounds in canonical order."""
        return self._canonical

    def __len__(self) -> int:
        return len(self._done) + len(self._stage)

    def add_round(self, record: RoundRecord) -> None:
        """Rate a finished round (ValueError unless its agents are distinct): provisionally
        if it is out of the canonical order within its stage (see the class)."""
        rated = RatedRound.of(record, self.standin_rounds, self.game)
        stage = _stage_of(rated.key)
        current = _stage_of(self._stage[-1].key) if self._stage else None
        if current is not None and stage > current:
            self._close_stage()
        elif current is not None and stage < current:
            self._rebuild(rated)  # a stage already passed: rate everything again
            return
        if self._stage and rated < self._stage[-1]:  # the stage is sorted while canonical
            self._canonical = False
        self._stage.append(rated)
        self._rate(self._live, rated)

    def settle(self) -> None:
        """Make the ratings canonical now (at the end of a stage or of the run): the
        current stage is rated again from the settled ratings, in canonical order, unless
        its rounds arrived in that order."""
        if self._canonical:
            return
        self._stage.sort()
        self._live = self._base.copy()
        for rated in self._stage:
            self._rate(self._live, rated)
        self._canonical = True

    @classmethod
    def from_rounds(
        cls,
        records: Iterable[RoundRecord],
        start: Ratings | None = None,
        *,
        standin_rounds: StandinRounds = StandinRounds.COUNT,
        game: Game | None = None,
    ) -> TournamentRatings:
        """The ratings of stored rounds of ``game``, in whatever order given: each rated
        once."""
        ratings = cls(start, standin_rounds=standin_rounds, game=game)
        rounds = (RatedRound.of(record, standin_rounds, ratings.game) for record in records)
        for rated in sorted(rounds):
            ratings._add_rated(rated)
        return ratings

    def _add_rated(self, rated: RatedRound) -> None:
        """A round known to come after every round so far (canonical order)."""
        if self._stage and _stage_of(rated.key) > _stage_of(self._stage[-1].key):
            self._close_stage()
        self._stage.append(rated)
        self._rate(self._live, rated)

    def _close_stage(self) -> None:
        """Settle the current stage and start the next from its ratings."""
        self.settle()
        self._done.extend(self._stage)
        self._stage = []
        self._base = self._live
        self._live = self._base.copy()

    def _rebuild(self, late: RatedRound) -> None:
        """Every round again, in canonical order, with a round of a stage passed."""
        everything = sorted([*self._done, *self._stage, late])
        self._done, self._stage, self._canonical = [], [], True
        self._base = self._start.copy()
        self._live = self._base.copy()
        for rated in everything:
            self._add_rated(rated)

    def _rate(self, ratings: Ratings, rated: RatedRound) -> None:
        ratings.rate_sides(rated.sides, forfeited=rated.forfeited)
        self.updates += 1
