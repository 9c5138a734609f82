"""How the ``heuristic`` player follows a lead: feed a partner who holds the trick,
take it when that is worth a card, else give the cheapest cards.

- A partner winning a trick that no one after can take (:meth:`Knowledge.holds`) gets
  points: 10s and Ks first, then 5s, within what the follow rule allows.
- Against an opponent: the cheapest play that wins and will hold; the last to play
  takes any trick worth it; a seat void in a plain lead ruffs (with the lead's exact
  shape in trumps) when the trick holds points.
- Otherwise the cheapest legal cards: no points, no trumps, no broken pairs.

Returns cards only; the agent has the engine check them before it answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.games.tractor.agents.knowledge import Knowledge
from arena.games.tractor.agents.shaping import (
    Key,
    cheapest,
    dump_key,
    feed_key,
    pair_faces,
    shaped,
    tractor_segments,
)
from arena.games.tractor.engine import TRUMP, FollowRule, Kind, Play, beats, classify, follow_rule
from arena.games.tractor.engine.cards import FACE, POINTS
from arena.games.tractor.engine.trump import Trump

__all__ = ["Choice", "follow"]

Choice = tuple[list[int], str | None]
"""Cards to play and why, when it is worth a word (``"ruff"``, ``"feed"``)."""

_SINGLE, _PAIR, _TRACTOR = Kind.SINGLE, Kind.PAIR, Kind.TRACTOR
_CHEAP_TRUMP = 6
"""A trump no stronger than this (a low card of the trump suit) is cheap enough to ruff
a trick worth nothing, for the lead."""


def follow(k: Knowledge) -> Choice:
    """The follow to play (see the module)."""
    r = k.reading
    lead, trump, hand = r.lead, r.trump, r.hand
    assert lead is not None
    best = k.best_play
    assert best is not None
    rule = follow_rule(hand, lead, trump)
    group = trump.group
    mine = [c for c in hand if group[c] == rule.group]
    secure = k.winner in k.partners and k.holds(best, lead)
    dump = dump_key(trump, hand)
    if secure:
        feed = feed_key(trump, hand)
        if rule.void or rule.short:
            others = [c for c in hand if group[c] != rule.group]
            cards = mine + cheapest(others, rule.count - len(mine), feed)
        else:
            cards = shaped(mine, rule, trump, feed)
        return cards, "feed" if sum(POINTS[c] for c in cards) >= 20 else None
    if rule.void:
        if lead.group != TRUMP:
            trumps = [c for c in hand if group[c] == TRUMP]
            ruff = _choose_win(k, _ruffs(trumps, lead, best, trump, dump), dump)
            if ruff is not None:
                return ruff, "ruff"
        return cheapest(hand, rule.count, dump), None
    if rule.short:
        others = [c for c in hand if group[c] != rule.group]
        return mine + cheapest(others, rule.count - len(mine), dump), None
    if best.group == lead.group and lead.kind is not Kind.THROW:
        win = _choose_win(k, _wins_in_group(mine, rule, lead, best, trump), dump)
        if win is not None:
            return win, None
    return shaped(mine, rule, trump, dump), None


def _wins_in_group(
    mine: Sequence[int], rule: FollowRule, lead: Play, best: Play, trump: Trump
) -> list[list[int]]:
    """The follows of a single, pair or tractor that beat the best play, in the lead's
    group (only when the follow rule asks for just that part)."""
    power = trump.power
    top = best.parts[0].top
    if lead.kind is _SINGLE:
        seen: dict[int, int] = {}
        for c in mine:
            seen.setdefault(FACE[c], c)
        return [[c] for c in seen.values() if power[c] > top]
    pairs = pair_faces(mine)
    if lead.kind is _PAIR:
        if rule.pairs < 1:
            return []
        return [cards for cards in pairs.values() if power[cards[0]] > top]
    length = lead.parts[0].pairs
    if rule.tractors != (length,):
        return []
    return [s for s in tractor_segments(pairs, trump, length) if power[s[0]] > top]


def _ruffs(
    trumps: Sequence[int], lead: Play, best: Play, trump: Trump, key: Key
) -> list[list[int]]:
    """Trump plays of the lead's exact shape that beat the best play."""
    if len(trumps) < len(lead.cards):
        return []
    if lead.kind is _SINGLE:
        seen: dict[int, int] = {}
        for c in trumps:
            seen.setdefault(FACE[c], c)
        options = [[c] for c in seen.values()]
    elif lead.kind is _PAIR:
        options = list(pair_faces(trumps).values())
    elif lead.kind is _TRACTOR:
        options = tractor_segments(pair_faces(trumps), trump, lead.parts[0].pairs)
    else:
        built = _shape_of(trumps, lead, trump, key)
        options = [] if built is None else [built]
    return [cards for cards in options if beats(classify(cards, trump), best, lead)]


def _shape_of(cards: Sequence[int], lead: Play, trump: Trump, key: Key) -> list[int] | None:
    """Cheap ``cards`` in the exact shape of a throw (its tractors, pairs and singles),
    or None when the greedy choice cannot make it."""
    pairs = pair_faces(cards)
    chosen: list[int] = []
    for part in lead.parts:
        if part.pairs >= 2:
            options = tractor_segments(pairs, trump, part.pairs)
        elif part.pairs == 1:
            options = list(pairs.values())
        else:
            continue
        if not options:
            return None
        pick = min(options, key=lambda cs: sum(key(c) for c in cs))
        chosen += pick
        for card in pick:
            pairs.pop(FACE[card], None)
    used = {FACE[c] for c in chosen}
    singles = sorted((c for c in cards if FACE[c] not in used), key=key)
    for part in lead.parts:
        if part.pairs:
            continue
        pick_one = next((c for c in singles if FACE[c] not in used), None)
        if pick_one is None:
            return None
        used.add(FACE[pick_one])
        chosen.append(pick_one)
    if classify(chosen, trump).shape != lead.shape:
        return None
    return chosen


def _choose_win(k: Knowledge, wins: list[list[int]], key: Key) -> list[int] | None:
    """The winning play worth making, if any: the cheapest that will hold the trick; the
    last opponent-free seat takes a trick worth it with its cheapest win; a trick worth
    10 or more gets the strongest try."""
    if not wins:
        return None
    trump = k.reading.trump
    lead = k.reading.lead
    assert lead is not None
    wins.sort(key=lambda cards: sum(key(c) for c in cards))
    partner = k.winner in k.partners
    if not k.opponents_after():
        cards = wins[0]
        return cards if not partner and (k.points > 0 or _cheap(cards, trump)) else None
    for cards in wins:
        if k.holds(classify(cards, trump), lead):
            if k.points > 0 or (not partner and _cheap(cards, trump)):
                return cards
            return None
    if k.points >= 10 and not partner:
        return max(wins, key=lambda cards: trump.power[cards[0]])
    return None


def _cheap(cards: Sequence[int], trump: Trump) -> bool:
    """Whether taking a trick worth nothing with these cards costs little: plain cards,
    or low cards of the trump suit."""
    group, power = trump.group, trump.power
    return all(group[c] != TRUMP or power[c] <= _CHEAP_TRUMP for c in cards)
