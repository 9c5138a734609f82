"""Tractor cards for tests, written as people write them: ``cards("♠4 ♠4 ♠6 ♠6")``."""

from __future__ import annotations

from collections.abc import Iterable

from arena.games.tractor.engine import resolve_cards
from arena.games.tractor.engine.cards import DECK


def cards(text: str, *, taken: Iterable[int] = ()) -> tuple[int, ...]:
    """The cards of some faces, the first free copy of each (``taken`` are not free)."""
    free = [c for c in DECK if c not in set(taken)]
    return resolve_cards(text.split(), free)
