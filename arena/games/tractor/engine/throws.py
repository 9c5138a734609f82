"""Whether a throw stands (§9), and its punishment when it does not.

A throw stands unless an opponent of the thrower (the other team: the thrower's
partners never count) holds, in the throw's suit group, a strictly higher part of the
same kind as one of its parts: a higher single, a higher pair, or a tractor at least as
long with a higher top. Being able to ruff does not make it fail.

A throw that does not stand is replaced by its lowest single, else its lowest pair, else
its lowest tractor (§9), and the round reports it (``ThrowPunished``: the original, the
play it became, and why). The other cards return to the thrower's hand.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.errors import SetupError
from arena.games.tractor.engine.cards import FACE
from arena.games.tractor.engine.patterns import Kind, Part, Play, classify
from arena.games.tractor.engine.trump import CHAIN_TOP, Trump, group_name

__all__ = ["ThrowVerdict", "beaten_part", "judge_throw", "punishment"]


@dataclass(frozen=True, slots=True)
class ThrowVerdict:
    """A throw that does not stand: the part an opponent beats, and what is played."""

    beaten: Part
    punished: Play
    reason: str


def _holds_higher(part: Part, cards: Sequence[int], trump: Trump) -> bool:
    """Whether ``cards`` (one hand's cards of the throw's group) hold a higher part of
    ``part``'s kind."""
    power = trump.power
    if part.kind is Kind.SINGLE:
        return any(power[c] > part.top for c in cards)
    seen: set[int] = set()
    pair_powers: list[int] = []
    for c in cards:
        face = FACE[c]
        if face in seen:
            pair_powers.append(power[c])
        else:
            seen.add(face)
    if part.kind is Kind.PAIR:
        return any(p > part.top for p in pair_powers)
    chain = {p for p in pair_powers if p <= CHAIN_TOP}
    return any(all(top - k in chain for k in range(part.pairs)) for top in chain if top > part.top)


def beaten_part(throw: Play, opponents: Sequence[Sequence[int]], trump: Trump) -> Part | None:
    """The first part of ``throw`` (in decomposition order) that an opponent's hand
    beats, or None when the throw stands."""
    group = trump.group
    g = throw.group
    mine = [[c for c in hand if group[c] == g] for hand in opponents]
    for part in throw.parts:
        for cards in mine:
            if _holds_higher(part, cards, trump):
                return part
    return None


def punishment(throw: Play, trump: Trump) -> Play:
    """The part a throw that does not stand is played as: its lowest single, else its
    lowest pair, else its lowest tractor (shortest first when tops tie)."""
    for kind in (Kind.SINGLE, Kind.PAIR, Kind.TRACTOR):
        parts = [p for p in throw.parts if p.kind is kind]
        if parts:
            lowest = min(parts, key=lambda p: (p.top, p.pairs))
            return classify(lowest.cards, trump)
    raise SetupError("a throw has parts")


def judge_throw(
    throw: Play, opponents: Sequence[Sequence[int]], trump: Trump
) -> ThrowVerdict | None:
    """None when ``throw`` stands against the opponents' hands; otherwise the part that
    fails, the play it is punished to, and the reason (which names the part, never the
    seat or cards that beat it)."""
    if throw.kind is not Kind.THROW:
        return None
    part = beaten_part(throw, opponents, trump)
    if part is None:
        return None
    punished = punishment(throw, trump)
    reason = (
        f"an opponent holds a higher {part.kind.value.lower()} in {group_name(throw.group)} "
        f"than {part.describe()}: the throw is played as {punished.describe()}"
    )
    return ThrowVerdict(part, punished, reason)
