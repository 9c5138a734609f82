"""How the ``heuristic`` player leads a trick.

In order of preference:

1. What stands: in a plain suit no opponent has shown a void in, every part of the
   hand's cards there that no unseen card can beat (a boss single, pair or tractor, or
   several of them thrown together: a throw that cannot be punished); in trumps, such
   pairs and tractors, or any boss trump once the hand holds more trumps than are unseen.
2. A low card of a suit a partner is void in and no opponent is: the partner ruffs.
3. As bankers with many trumps, a trump pair or a low trump, to draw the defenders'.
4. A plain tractor or pair, the strongest first, pairs of points last.
5. A low single of the shortest plain suit (to make a void to ruff with later), else the
   cheapest trump.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.tractor.agents.knowledge import Knowledge
from arena.games.tractor.agents.shaping import cheapest, dump_key, pair_faces, tractor_segments
from arena.games.tractor.engine import TRUMP, Kind, Play, beaten_part, classify
from arena.games.tractor.engine.cards import POINTS
from arena.games.tractor.engine.trump import Trump

__all__ = ["lead", "standing"]

Choice = tuple[list[int], str | None]

_PULL_TRUMPS = 0.4
"""As bankers, draw trumps while at least this share of the hand is trumps."""


def standing(cards: Sequence[int], unseen: Sequence[int], trump: Trump) -> list[int]:
    """The cards of the parts of ``cards`` (one suit group) that no unseen cards beat:
    led together, they stand (a throw is never punished)."""
    play = classify(cards, trump)
    kept: list[int] = []
    for part in play.parts:
        alone = Play(part.kind, play.group, part.cards, (part,), (part.pairs,))
        if beaten_part(alone, (unseen,), trump) is None:
            kept.extend(part.cards)
    if len(kept) > 1 and beaten_part(classify(kept, trump), (unseen,), trump) is not None:
        return []  # never expected (dropping parts merges none): be safe
    return kept


def lead(k: Knowledge) -> Choice:
    """The lead to play (see the module)."""
    r = k.reading
    trump, hand = r.trump, r.hand
    group = trump.group
    groups: dict[int, list[int]] = {}
    for c in hand:
        groups.setdefault(group[c], []).append(c)
    trumps_out = bool(k.unseen[TRUMP])
    found = _standing_lead(k, groups, trumps_out)
    if found is not None:
        return found, "throw" if classify(found, trump).kind is Kind.THROW else None
    key = dump_key(trump, hand)
    for g, cards in groups.items():
        if g == TRUMP or not trumps_out:
            continue
        partner_void = any(g in k.voids.get(p, ()) for p in k.partners)
        if partner_void and not k.void_opponents(g):
            return cheapest(cards, 1, key), None
    mine_trumps = groups.get(TRUMP, [])
    if k.bankers and trumps_out and len(mine_trumps) >= _PULL_TRUMPS * len(hand):
        pairs = list(pair_faces(mine_trumps).values())
        if pairs:
            return min(pairs, key=lambda cs: key(cs[0])), None
        return cheapest(mine_trumps, 1, key), None
    shaped = _pair_lead(k, groups, trump)
    if shaped is not None:
        return shaped, None
    plain = [(len(cs), g) for g, cs in groups.items() if g != TRUMP]
    if plain:
        _, g = min(plain)
        return cheapest(groups[g], 1, key), None
    return cheapest(hand, 1, key), None


def _standing_lead(
    k: Knowledge, groups: dict[int, list[int]], trumps_out: bool
) -> list[int] | None:
    """The richest lead that stands (see the module), None when there is none."""
    trump = k.reading.trump
    best: list[int] | None = None
    best_score = 0.0
    mine_trumps = len(groups.get(TRUMP, ()))
    for g, cards in groups.items():
        if g == TRUMP:
            stand = standing(cards, k.unseen[TRUMP], trump) if trumps_out else []
            if mine_trumps <= len(k.unseen[TRUMP]):
                pairs = pair_faces(stand)
                stand = [c for cs in pairs.values() for c in cs]
        else:
            if trumps_out and k.void_opponents(g):
                continue
            stand = standing(cards, k.unseen[g], trump)
        if not stand:
            continue
        score = len(stand) + sum(POINTS[c] for c in stand) / 10 + (g != TRUMP) * 0.5
        if score > best_score:
            best, best_score = stand, score
    return best


def _pair_lead(k: Knowledge, groups: dict[int, list[int]], trump: Trump) -> list[int] | None:
    """The strongest plain tractor or pair (points last), in a suit no opponent can
    ruff."""
    power = trump.power
    trumps_out = bool(k.unseen[TRUMP])
    options: list[tuple[float, list[int]]] = []
    for g, cards in groups.items():
        if g == TRUMP or (trumps_out and k.void_opponents(g)):
            continue
        pairs = pair_faces(cards)
        for length in range(len(pairs), 1, -1):
            for seg in tractor_segments(pairs, trump, length):
                options.append((20 * length + power[seg[0]], seg))
        for cs in pairs.values():
            options.append((power[cs[0]] - POINTS[cs[0]], cs))
    if not options:
        return None
    return max(options, key=lambda o: o[0])[1]
