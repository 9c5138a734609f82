"""What a play is: single, pair, tractor or throw (§6), and a throw's parts (§6.4).

A play in one suit group decomposes deterministically into parts: its longest tractors
first (longer first, then higher), then its remaining pairs, then its singles, each kind
highest first. A play of one part is that part's kind; a lead of more parts is a THROW.
A follow may mix groups (a player short of the lead's group): it is MIXED and has no
parts, and never wins a trick.

A pair is two copies of one card (same suit and rank; jokers with the same joker). Two
level cards of different suits are equal in power but no pair. A tractor is two or more
pairs of consecutive power in one group; level cards and jokers never chain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Final, NamedTuple

from arena.games.tractor.engine.cards import FACE, faces_text
from arena.games.tractor.engine.trump import CHAIN_TOP, Trump, group_name

__all__ = [
    "MIXED",
    "Kind",
    "Part",
    "Play",
    "classify",
    "fit_tractors",
    "pair_structure",
    "runs_of",
]

MIXED: Final = -1
"""The group of a follow with cards of more than one suit group."""


class Kind(StrEnum):
    """A play's pattern; member names are the wire names."""

    SINGLE = "SINGLE"
    PAIR = "PAIR"
    TRACTOR = "TRACTOR"
    THROW = "THROW"
    MIXED = "MIXED"


_SINGLE, _PAIR, _TRACTOR, _THROW, _MIXED = (
    Kind.SINGLE,
    Kind.PAIR,
    Kind.TRACTOR,
    Kind.THROW,
    Kind.MIXED,
)


class Part(NamedTuple):
    """One single, pair or tractor of a play (a named tuple: built by the thousand per
    round, and a tuple is built several times faster than a frozen dataclass)."""

    kind: Kind
    pairs: int
    """0 for a single, 1 for a pair, the pair count of a tractor."""
    top: int
    """The power of its highest card (what two parts of one kind compare by)."""
    cards: tuple[int, ...]
    """Its cards, highest first."""

    def text(self) -> str:
        """``♠Q ♠Q ♠K ♠K`` (lowest first, as people write it)."""
        return faces_text(reversed(self.cards))

    def describe(self) -> str:
        """``the pair ♠Q ♠Q``, ``the tractor ♠Q ♠Q ♠K ♠K``, ``the single ♠A``."""
        return f"the {self.kind.value.lower()} {self.text()}"


class Play(NamedTuple):
    """Some cards, classified under a round's trump (build one with :func:`classify`)."""

    kind: Kind
    group: int
    """The suit group of every card, or MIXED."""
    cards: tuple[int, ...]
    parts: tuple[Part, ...]
    """The decomposition (tractors, pairs, singles, each highest first); () when MIXED."""
    shape: tuple[int, ...]
    """The parts' pair counts in order: a tractor of 3 and a single is (3, 0)."""

    @property
    def tractors(self) -> tuple[int, ...]:
        """The lengths of its tractors, longest first."""
        return tuple(p.pairs for p in self.parts if p.pairs >= 2)

    @property
    def pair_count(self) -> int:
        """Its pairs, counting those inside tractors."""
        return sum(self.shape)

    def describe(self) -> str:
        """For people and prompts: ``a tractor in ♠ (♠Q ♠Q ♠K ♠K)``."""
        if self.kind is _MIXED:
            return f"{len(self.cards)} cards of several suit groups"
        where = group_name(self.group)
        if self.kind is _THROW:
            inner = ", ".join(p.describe() for p in self.parts)
            return f"a throw in {where} ({inner})"
        return f"a {self.kind.value.lower()} in {where} ({self.parts[0].text()})"


def pair_structure(cards: Iterable[int], trump: Trump) -> tuple[int, list[int]]:
    """How many pairs some cards of one group hold, and the powers of those that chain,
    ascending (the raw material of tractors)."""
    seen: set[int] = set()
    pairs = 0
    chain: list[int] = []
    power = trump.power
    for card in cards:
        face = FACE[card]
        if face in seen:
            pairs += 1
            p = power[card]
            if p <= CHAIN_TOP:
                chain.append(p)
        else:
            seen.add(face)
    chain.sort()
    return pairs, chain


def runs_of(chain: Sequence[int]) -> list[int]:
    """The lengths of the maximal runs of consecutive powers (ascending input) that are
    tractors (two pairs or more)."""
    runs: list[int] = []
    length = 0
    previous = -9
    for p in chain:
        if p == previous + 1:
            length += 1
        else:
            if length >= 2:
                runs.append(length)
            length = 1
        previous = p
    if length >= 2:
        runs.append(length)
    return runs


def fit_tractors(runs: Sequence[int], wanted: Sequence[int]) -> tuple[int, ...]:
    """The tractors some cards can give to a lead's tractors, part by part (§7.3): for
    each wanted length, longest first, the longest run left gives up to that length
    from one end (what is left of the run stays one run). A run too short (under two
    pairs) gives nothing, and then nothing after it either."""
    left = sorted(runs, reverse=True)
    given: list[int] = []
    for length in wanted:
        if not left or left[0] < 2:
            break
        take = min(length, left[0])
        rest = left[0] - take
        left[0] = rest
        left.sort(reverse=True)
        given.append(take)
    return tuple(given)


def _part_key(part: Part) -> tuple[int, int]:
    return (-part.pairs, -part.top)


def _parts(cards: Sequence[int], trump: Trump) -> tuple[Part, ...]:
    """§6.4: longest tractors (longer, then higher), then pairs, then singles."""
    power = trump.power
    by_face: dict[int, list[int]] = {}
    for card in cards:
        by_face.setdefault(FACE[card], []).append(card)
    chained: dict[int, list[int]] = {}  # chaining power -> its pair's cards
    parts: list[Part] = []
    for copies in by_face.values():
        top = power[copies[0]]
        if len(copies) == 1:
            parts.append(Part(_SINGLE, 0, top, (copies[0],)))
        elif top <= CHAIN_TOP:
            chained[top] = copies
        else:
            parts.append(Part(_PAIR, 1, top, (copies[0], copies[1])))
    run: list[int] = []
    for p in sorted(chained):
        if run and p != run[-1] + 1:
            parts.append(_run_part(run, chained))
            run = []
        run.append(p)
    if run:
        parts.append(_run_part(run, chained))
    parts.sort(key=_part_key)
    return tuple(parts)


def _run_part(run: list[int], chained: dict[int, list[int]]) -> Part:
    cards = tuple(c for p in reversed(run) for c in chained[p])
    if len(run) == 1:
        return Part(_PAIR, 1, run[0], cards)
    return Part(_TRACTOR, len(run), run[-1], cards)


def classify(cards: Sequence[int], trump: Trump) -> Play:
    """What some cards are under ``trump``: one group's single, pair, tractor or throw,
    or a MIXED follow."""
    group = trump.group
    first = group[cards[0]]
    if len(cards) == 1:  # most plays: no decomposition needed
        top = trump.power[cards[0]]
        return Play(_SINGLE, first, tuple(cards), (Part(_SINGLE, 0, top, tuple(cards)),), (0,))
    for card in cards:
        if group[card] != first:
            return Play(_MIXED, MIXED, tuple(cards), (), ())
    parts = _parts(cards, trump)
    kind = parts[0].kind if len(parts) == 1 else _THROW
    return Play(kind, first, tuple(cards), parts, tuple(p.pairs for p in parts))
