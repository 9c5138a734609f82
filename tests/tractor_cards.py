"""Tractor cards for tests, written as people write them: ``cards("♠4 ♠4 ♠6 ♠6")``."""

from __future__ import annotations

from collections.abc import Iterable

from arena.games.tractor.engine import resolve_cards
from arena.games.tractor.engine.cards import DECK


def cards(text: str, *, taken: Iterable[int] = ()) -> tuple[int, ...]:
    """The cards of some faces, the first free copy of each (``taken`` are not free)."""
    free = [c for c in DECK if c not in set(taken)]
    return resolve_cards(text.split(), free)


def deal(
    given: dict[int, str], *, players: int = 4, kitty: str = "", avoid_rank: int | None = None
) -> list[tuple[int, ...]]:
    """A prepared deal (each seat's cards, then the kitty) where the seats in ``given``
    hold those cards first and the kitty starts with ``kitty``; the rest is filled from
    the deck in id order, cards of ``avoid_rank`` and jokers last."""
    from arena.games.tractor.engine import TractorRules
    from arena.games.tractor.engine.cards import RANK

    rules = TractorRules.model_validate({"players": players})
    taken: list[int] = []
    hands: list[list[int]] = [[] for _ in range(players)]
    for seat, text in given.items():
        hands[seat] = list(cards(text, taken=taken))
        taken += hands[seat]
    pile = list(cards(kitty, taken=taken)) if kitty else []
    taken += pile
    rest = sorted(
        (c for c in DECK if c not in set(taken)),
        key=lambda c: (RANK[c] == avoid_rank or RANK[c] >= 15, c),
    )
    for hand in hands:
        while len(hand) < rules.hand_size:
            hand.append(rest.pop(0))
    pile += rest
    return [tuple(h) for h in hands] + [tuple(pile)]
