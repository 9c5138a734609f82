"""Skill ratings for a tournament: one landlord against two farmers, with openskill.

Points per round rank the agents; a rating says how sure that ranking is. Every agent
keeps a mean skill ``mu`` and an uncertainty ``sigma`` (openskill's Plackett-Luce model);
the conservative value ``ordinal`` (``mu - 3 sigma``) is what a ranking may break ties on.

Each round is a two-team game, the winning side ranked first:
``[landlord, landlord seat]`` against ``[farmer, farmer]``. The *landlord seat* is a
pseudo-player, rated like an agent and in every round, that stands for what sitting
alone with the bottom cards is worth. Why: openskill sums a team's skills, so plain
``[landlord]`` against ``[farmer, farmer]`` expects two equal farmers to beat an equal
landlord almost always (about 83 % at the start, over 95 % once sigmas shrink), while
real landlords win nearly half their rounds. Every landlord win then looks like a
surprise and moves ratings a lot, every farmers' win barely at all. In simulations of
three equal agents, landlord 60 %, 30 % and 10 % of the time, with landlords winning
30 to 60 % of rounds, the most frequent landlord ended 6 to 16 points of ``mu`` above
the least frequent after 20 rounds, on average; over longer runs every rating sank
towards 0 until the model's odds matched the game's. With the seat on the landlord's
side, equal agents make equal sums (an even game to begin with) and the seat's own
rating learns how often the landlord's side really wins, in this tournament, under its
rules and landlord policy, leaving the agents' ratings to measure the agents: in the
same simulations the gap was at most 4 points after 20 rounds (while the seat learns)
and under 1 after 100, and the ratings stayed near 25. A skill difference moves the
odds alike whether its agent is the landlord or a farmer.

Other openskill options do not fix the bias: ``weights`` only share a team's update
among its players, and ``balance`` reweights a team's outliers; neither changes how a
team of two is compared with a team of one.

The update is deterministic: the same rounds in the same order give the same numbers,
bit for bit, so a resumed tournament may load :meth:`Ratings.to_dict` or replay its
stored rounds with :meth:`Ratings.from_rounds` and get the same ratings either way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.table.records import RoundRecord

__all__ = ["DEFAULT_MU", "DEFAULT_SIGMA", "MODEL_NAME", "Rating", "Ratings"]

DEFAULT_MU: Final = 25.0
DEFAULT_SIGMA: Final = 25.0 / 3.0
DEFAULT_BETA: Final = 25.0 / 6.0
DEFAULT_TAU: Final = 25.0 / 300.0
ORDINAL_Z: Final = 3.0
"""How many sigmas the conservative value stays below the mean (openskill's default)."""
MODEL_NAME: Final = "PlackettLuce+landlord_seat"
"""The model as stored: ratings of another model (say, without the seat) do not mix."""


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
        self.landlord_seat = Rating(mu, sigma)
        """The pseudo-player on the landlord's side (see the module): ``mu`` above the
        starting one means the landlord's side wins more than an even game would."""

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

    def rate(self, landlord: str, farmers: tuple[str, str], *, landlord_won: bool) -> None:
        """One round: the landlord and the landlord seat against the two farmers, the
        winners ranked first (see the module for why the seat)."""
        if len({landlord, *farmers}) != 3:
            raise ValueError(f"a round needs three distinct agents: {landlord!r}, {farmers!r}")
        names = (landlord, *farmers)
        before = [self.rating(n) for n in names]
        seat = self.landlord_seat
        teams = [
            [
                PlackettLuceRating(before[0].mu, before[0].sigma),
                PlackettLuceRating(seat.mu, seat.sigma),
            ],
            [PlackettLuceRating(r.mu, r.sigma) for r in before[1:]],
        ]
        ranks: list[float] = [1.0, 2.0] if landlord_won else [2.0, 1.0]
        (new_landlord, new_seat), new_farmers = self._model.rate(teams, ranks=ranks)
        after = [new_landlord, *new_farmers]
        for name, old, new in zip(names, before, after, strict=True):
            self._ratings[name] = Rating(float(new.mu), float(new.sigma), old.rounds + 1)
        self.landlord_seat = Rating(float(new_seat.mu), float(new_seat.sigma), seat.rounds + 1)

    def add_round(self, record: RoundRecord) -> None:
        """Rate a finished round by its players (by seat) and its result."""
        result = record.result
        landlord = result.landlord
        farmers = [p for seat, p in enumerate(record.players) if seat != landlord]
        self.rate(
            record.players[landlord],
            (farmers[0], farmers[1]),
            landlord_won=result.landlord_won,
        )

    @classmethod
    def from_rounds(cls, records: Iterable[RoundRecord], **params: float) -> Ratings:
        """Ratings recomputed from stored rounds, in the order given."""
        ratings = cls(**params)
        for record in records:
            ratings.add_round(record)
        return ratings

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the model, the landlord seat's rating and each agent's, by name."""
        return {
            "model": self.model,
            "landlord_seat": self.landlord_seat.to_dict(),
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
        ratings.landlord_seat = _rating(data["landlord_seat"])
        for agent, rating in data.get("agents", {}).items():
            ratings._ratings[str(agent)] = _rating(rating)
        return ratings


def _rating(data: Mapping[str, Any]) -> Rating:
    return Rating(float(data["mu"]), float(data["sigma"]), int(data.get("rounds", 0)))
