"""Legal plays for agents and the table: the leads of one kind, the follows when they
are few, and one legal play for fallbacks and stand-ins.

Throws and the discards of a player short of the lead's group are combinatorial: for
them an agent proposes and :func:`~arena.games.tractor.engine.follow.check_follow` (or
the round) judges; :func:`legal_follows` lists follows only while they are few.
Plays are listed once per distinct set of faces (copies are interchangeable): a face
played once is its lower copy in the hand.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Final

from arena.games.tractor.engine.cards import FACE, POINTS
from arena.games.tractor.engine.follow import FollowRule, follow_rule, refusal
from arena.games.tractor.engine.patterns import Play, classify
from arena.games.tractor.engine.trump import CHAIN_TOP, TRUMP, Trump

__all__ = [
    "LEAD_RULE",
    "fallback_bury",
    "fallback_play",
    "fill_follow",
    "legal_follows",
    "legal_leads",
    "random_lead",
]

LEAD_RULE: Final = (
    "lead any single, pair or tractor, or a throw: several of them in one suit group "
    "(if an opponent holds a higher single, pair or tractor of that group than one of its "
    "parts, it is played as its lowest single, else its lowest pair, else its lowest tractor)"
)
"""What a lead must be, for requests and prompts."""

CANDIDATE_CAP: Final = 4000
"""The most candidate follows :func:`legal_follows` tries before it gives up (None)."""


def _by_face(cards: Sequence[int]) -> dict[int, list[int]]:
    found: dict[int, list[int]] = {}
    for card in sorted(cards):
        found.setdefault(FACE[card], []).append(card)
    return found


def legal_leads(hand: Sequence[int], trump: Trump) -> list[Play]:
    """Every lead of one kind (no throws): each single, pair and tractor (every stretch
    of two pairs or more of a run), once per set of faces."""
    faces = _by_face(hand)
    power, group = trump.power, trump.group
    leads = [classify((copies[0],), trump) for copies in faces.values()]
    pairs = [copies for copies in faces.values() if len(copies) == 2]
    leads += [classify(tuple(copies), trump) for copies in pairs]
    chains: dict[tuple[int, int], tuple[int, int]] = {
        (group[c[0]], power[c[0]]): (c[0], c[1]) for c in pairs if power[c[0]] <= CHAIN_TOP
    }
    for g, p in sorted(chains):
        if (g, p - 1) in chains:
            continue  # not the low end of a run
        run = [chains[(g, p)]]
        while (g, p + len(run)) in chains:
            run.append(chains[(g, p + len(run))])
        for start in range(len(run)):
            for end in range(start + 2, len(run) + 1):
                leads.append(classify(tuple(c for pair in run[start:end] for c in pair), trump))
    return leads


def _multisets(faces: list[list[int]], size: int) -> int:
    """How many ways ``size`` cards can be taken from faces of 1 or 2 copies."""
    ways = [1] + [0] * size
    for copies in faces:
        for total in range(size, 0, -1):
            ways[total] += sum(ways[total - k] for k in range(1, len(copies) + 1) if k <= total)
    return ways[size]


def _choices(faces: list[list[int]], size: int, start: int = 0) -> list[list[int]]:
    if size == 0:
        return [[]]
    found: list[list[int]] = []
    for index in range(start, len(faces)):
        copies = faces[index]
        for k in range(1, len(copies) + 1):
            if k <= size:
                found += [copies[:k] + rest for rest in _choices(faces, size - k, index + 1)]
    return found


def legal_follows(
    hand: Sequence[int], lead: Play, trump: Trump, *, cap: int = CANDIDATE_CAP
) -> list[tuple[int, ...]] | None:
    """Every legal follow of ``lead`` (once per set of faces), or None when there are too
    many to list (more than ``cap`` candidates): then ask for a play and check it."""
    rule = follow_rule(hand, lead, trump)
    group = trump.group
    mine = [c for c in hand if group[c] == rule.group]
    if rule.short:
        pool, base = [c for c in hand if group[c] != rule.group], mine
    else:
        pool, base = mine, []
    faces = list(_by_face(pool).values())
    need = rule.count - len(base)
    if _multisets(faces, need) > cap:
        return None
    follows = [tuple(base + chosen) for chosen in _choices(faces, need)]
    if rule.short or not rule.pairs:
        return follows
    return [f for f in follows if refusal(rule, f, trump) is None]


def _lowest_first(cards: list[int], trump: Trump) -> list[int]:
    """Cheapest to give away first: non-trumps, no points, low power."""
    power, group = trump.power, trump.group
    return sorted(cards, key=lambda c: (group[c] == TRUMP, POINTS[c], power[c], c))


def fill_follow(
    hand: Sequence[int], lead: Play, trump: Trump, rng: random.Random | None = None
) -> tuple[int, ...]:
    """A legal follow by the fill order of §7.3: the tractors the rule asks for (from the
    low end of the longest run), then pairs low to high, then singles low to high; when
    short, the whole group, then the lowest other cards. With ``rng``, the choices are
    random among those the rule allows (random agents, benchmarks)."""
    rule = follow_rule(hand, lead, trump)
    group = trump.group
    mine = [c for c in hand if group[c] == rule.group]
    if rule.short:
        others = [c for c in hand if group[c] != rule.group]
        need = rule.count - len(mine)
        extra = rng.sample(others, need) if rng else _lowest_first(others, trump)[:need]
        return tuple(mine + extra)
    return tuple(_shaped(mine, rule, trump, rng))


def fallback_play(hand: Sequence[int], lead: Play | None, trump: Trump) -> tuple[int, ...]:
    """One legal play for a seat whose agent gave none (a fallback, a stand-in): a lead
    of the cheapest single (a plain card without points if there is one), or the follow
    by the fill order."""
    if lead is None:
        return (_lowest_first(list(hand), trump)[0],)
    return fill_follow(hand, lead, trump)


def fallback_bury(hand: Sequence[int], count: int, trump: Trump) -> tuple[int, ...]:
    """A legal bury for a banker whose agent gave none: the ``count`` cheapest cards
    (plain cards without points first, low ones first)."""
    return tuple(_lowest_first(list(hand), trump)[:count])


def _shaped(
    mine: list[int], rule: FollowRule, trump: Trump, rng: random.Random | None
) -> list[int]:
    power = trump.power
    faces = _by_face(mine)
    pairs = {f: c for f, c in faces.items() if len(c) == 2}
    chosen: list[int] = []
    used: set[int] = set()
    if rule.tractors:
        chain = {power[c[0]]: f for f, c in pairs.items() if power[c[0]] <= CHAIN_TOP}
        runs = _runs(sorted(chain))
        for length in rule.tractors:
            runs.sort(key=len, reverse=True)
            run = runs[0]
            from_top = rng is not None and rng.random() < 0.5
            taken = run[len(run) - length :] if from_top else run[:length]
            runs[0] = run[: len(run) - length] if from_top else run[length:]
            for p in taken:
                used.add(chain[p])
                chosen += pairs[chain[p]]
    loose = [f for f in pairs if f not in used]
    if rng:
        rng.shuffle(loose)
    else:
        loose.sort(key=lambda f: power[pairs[f][0]])
    for face in loose[: rule.pairs - sum(rule.tractors)]:
        used.add(face)
        chosen += pairs[face]
    rest = [c for c in mine if FACE[c] not in used]
    if rng:
        rng.shuffle(rest)
    else:
        rest.sort(key=lambda c: (power[c], c))
    return chosen + rest[: rule.count - len(chosen)]


def _runs(chain: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for p in chain:
        if runs and runs[-1][-1] == p - 1:
            runs[-1].append(p)
        else:
            runs.append([p])
    return runs


def random_lead(hand: Sequence[int], trump: Trump, rng: random.Random) -> tuple[int, ...]:
    """A random lead: mostly a single, a pair or a tractor, sometimes a throw of a few
    cards of one group (which may be punished)."""
    card = hand[rng.randrange(len(hand))]
    group = trump.group
    g = group[card]
    roll = rng.random()
    if roll < 0.15:
        mine = [c for c in hand if group[c] == g]
        return tuple(rng.sample(mine, min(len(mine), rng.randint(2, 5))))
    face = FACE[card]
    twin = card + 54 if card < 54 else card - 54
    if roll < 0.6 and twin in hand:
        play = [card, twin]
        power = trump.power
        p = power[card]
        if p <= CHAIN_TOP:
            for step in (1, -1):  # stretch into a tractor where the hand has one
                q = p + step
                while True:
                    pair = [c for c in hand if group[c] == g and power[c] == q and FACE[c] != face]
                    if len(pair) != 2 or q > CHAIN_TOP or q < 0:
                        break
                    play += pair
                    q += step
        return tuple(play)
    return (card,)
