"""What happens in a round, as plain records: the round's events (what the table turns
into messages) and its actions (what a replay feeds back).

Cards are ints (:mod:`arena.games.tractor.engine.cards`); whoever puts a record on the
wire writes them as ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from arena.games.tractor.engine.declaring import Declaration
from arena.games.tractor.engine.patterns import Play
from arena.games.tractor.engine.scoring import RoundScore

__all__ = [
    "Action",
    "Buried",
    "BuryAction",
    "DeclareAction",
    "Event",
    "KittyTaken",
    "PlayAction",
    "Played",
    "RoundEnded",
    "StepRevealed",
    "SwapAction",
    "ThrowPunished",
    "TrickWon",
    "TrumpCandidate",
    "TrumpLocked",
]


@dataclass(frozen=True, slots=True)
class StepRevealed:
    """A deal step revealed more of each hand (``deal_steps`` > 1), 1-based."""

    step: int


@dataclass(frozen=True, slots=True)
class TrumpCandidate:
    """A window's strongest declaration, the candidate until overcalled (public)."""

    declaration: Declaration
    window: int


@dataclass(frozen=True, slots=True)
class TrumpLocked:
    """Trump is fixed: the level, the suit (None: no-trump), who declared it (None:
    nobody) and the banker."""

    level: int
    suit: int | None
    declarer: int | None
    banker: int


@dataclass(frozen=True, slots=True)
class KittyTaken:
    """The banker took the kitty into hand (its cards only the banker sees)."""

    banker: int
    count: int


@dataclass(frozen=True, slots=True)
class Buried:
    """The banker buried as many cards (hidden until the round's end)."""

    banker: int
    count: int


@dataclass(frozen=True, slots=True)
class ThrowPunished:
    """A throw that did not stand, the part it was played as, and why."""

    seat: int
    original: tuple[int, ...]
    punished: tuple[int, ...]
    reason: str


@dataclass(frozen=True, slots=True)
class Played:
    """A seat's play in a trick (a punished throw: the part played)."""

    seat: int
    play: Play
    leading: bool


@dataclass(frozen=True, slots=True)
class TrickWon:
    """A trick's winner, its points, and whether they count (a defender won it)."""

    seat: int
    points: int
    counted: bool
    trick: int


@dataclass(frozen=True, slots=True)
class RoundEnded:
    """The round's score; the buried kitty is shown to all."""

    score: RoundScore
    kitty: tuple[int, ...]


Event: TypeAlias = (
    StepRevealed
    | TrumpCandidate
    | TrumpLocked
    | KittyTaken
    | Buried
    | ThrowPunished
    | Played
    | TrickWon
    | RoundEnded
)


@dataclass(frozen=True, slots=True)
class DeclareAction:
    """One declaration window's replies: each declaring seat's cards (others passed)."""

    replies: Mapping[int, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class BuryAction:
    """The banker's buried cards."""

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PlayAction:
    """A seat's play as proposed (a throw before any punishment)."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SwapAction:
    """A viewer's 换牌: ``cards[0]`` went from ``seats[0]`` to ``seats[1]`` and ``cards[1]``
    back (hidden: the replay keeps the cards, the table tells only seats and a count)."""

    seats: tuple[int, int]
    cards: tuple[int, int]
    kind: ClassVar[str] = "swap"
    """The effect's name in a replay's ``effect`` line (as every game's swap)."""


Action: TypeAlias = DeclareAction | BuryAction | PlayAction | SwapAction
