"""Who wins a trick (§8).

A play beats the best so far only if it is strictly higher (equal plays: the earlier
wins): the lead's exact shape, part by part, in the lead's suit group with every part
higher than the matching part of the best; or, from a player void in a non-trump lead,
all trumps of the lead's exact shape, which beat any play of the lead's group (and
then a higher trump play, part by part, beats a lower one). A play of another suit, or
of mixed groups, never wins.

Shapes are matched on the canonical decomposition (§6.4): a ruff of a throw of two
pairs must be two pairs, not a tractor. Parts are matched in order (tractors longest
then highest, then pairs, then singles, each highest first).
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.tractor.engine.patterns import Play
from arena.games.tractor.engine.trump import TRUMP

__all__ = ["beats", "trick_winner"]


def beats(challenger: Play, best: Play, lead: Play) -> bool:
    """Whether ``challenger`` takes the trick from ``best`` (both following ``lead``,
    ``best`` possibly the lead itself)."""
    g = challenger.group
    if g != lead.group and g != TRUMP:
        return False
    if challenger.shape != lead.shape:
        return False
    if g != best.group:
        # a ruff over a play of the (non-trump) lead's group
        return g == TRUMP and best.group == lead.group
    return all(
        mine.top > theirs.top for mine, theirs in zip(challenger.parts, best.parts, strict=True)
    )


def trick_winner(plays: Sequence[Play]) -> int:
    """The index, in playing order, of the play that wins a trick (the lead first)."""
    lead = plays[0]
    best = 0
    for index in range(1, len(plays)):
        if beats(plays[index], plays[best], lead):
            best = index
    return best
