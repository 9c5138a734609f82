"""Skill ratings for a tournament: one landlord against two farmers, with openskill.

Points per round rank the agents; a rating says how sure that ranking is. Each round is
a two-team game, ``[landlord]`` against ``[farmer, farmer]``, the winning side ranked
first, rated with openskill's Plackett-Luce model: every agent keeps a mean skill ``mu``
and an uncertainty ``sigma``; the conservative value ``ordinal`` (``mu - 3 sigma``) is
what a ranking may break ties on.

The update is deterministic: the same rounds in the same order give the same numbers,
bit for bit, so a resumed tournament may load :meth:`Ratings.to_dict` or replay its
stored rounds with :meth:`Ratings.from_rounds` and get the same ratings either way.

The model sums a team's skills, so two equal farmers are expected to beat an equal
landlord most of the time: a landlord's win moves the ratings much more than a
farmers' win. An agent is landlord about a third of the time, so this evens out
for agents that bid alike; it favours agents that win the landlord's seat and the round.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from openskill.models import PlackettLuce, PlackettLuceRating

from arena.table.records import RoundRecord

__all__ = ["DEFAULT_MU", "DEFAULT_SIGMA", "Rating", "Ratings"]

DEFAULT_MU: Final = 25.0
DEFAULT_SIGMA: Final = 25.0 / 3.0
DEFAULT_BETA: Final = 25.0 / 6.0
DEFAULT_TAU: Final = 25.0 / 300.0
ORDINAL_Z: Final = 3.0
"""How many sigmas the conservative value stays below the mean (openskill's default)."""


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

    def rate(self, landlord: str, farmers: tuple[str, str], *, landlord_won: bool) -> None:
        """One round: the landlord's side against the farmers', the winners ranked first."""
        if len({landlord, *farmers}) != 3:
            raise ValueError(f"a round needs three distinct agents: {landlord!r}, {farmers!r}")
        names = (landlord, *farmers)
        before = [self.rating(n) for n in names]
        teams = [
            [PlackettLuceRating(before[0].mu, before[0].sigma)],
            [PlackettLuceRating(r.mu, r.sigma) for r in before[1:]],
        ]
        ranks: list[float] = [1.0, 2.0] if landlord_won else [2.0, 1.0]
        (new_landlord,), new_farmers = self._model.rate(teams, ranks=ranks)
        after = [new_landlord, *new_farmers]
        for name, old, new in zip(names, before, after, strict=True):
            self._ratings[name] = Rating(float(new.mu), float(new.sigma), old.rounds + 1)

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
        """JSON-ready: the model's parameters and each agent's rating, by name."""
        return {
            "model": {"name": "PlackettLuce", **self.params},
            "agents": {name: r.to_dict() for name, r in sorted(self._ratings.items())},
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ratings:
        """Ratings as :meth:`to_dict` wrote them (a resumed tournament rates on)."""
        model = dict(data.get("model", {}))
        name = model.pop("name", "PlackettLuce")
        if name != "PlackettLuce":
            raise ValueError(f"ratings of an unknown model: {name!r}")
        ratings = cls(**{k: float(v) for k, v in model.items()})
        for agent, rating in data.get("agents", {}).items():
            ratings._ratings[str(agent)] = Rating(
                float(rating["mu"]), float(rating["sigma"]), int(rating.get("rounds", 0))
            )
        return ratings
