"""Dou Dizhu's rules fit for duplicate deals (its :attr:`Game.duplicate_rules`).

In duplicate mode every seating of a deal must play the same cards. A redeal after all
pass would hand the seatings where everyone passed other cards than the rest, and the
comparison would be void: nobody redeals, and when all pass the first bidder takes the
deal at 1 (``max_redeals = 0``).
"""

from __future__ import annotations

from arena.errors import ConfigError
from arena.games.base import GameRules
from arena.games.ddz.engine.rules import Rules

__all__ = ["duplicate_rules"]


def duplicate_rules(rules: GameRules) -> GameRules:
    """``rules`` with ``max_redeals = 0``; a ConfigError (a ValueError: the tournament
    file's validation reports it under ``rules``) when the file asked for redeals."""
    given = Rules.of(rules)
    if "max_redeals" in given.model_fields_set and given.max_redeals != 0:
        raise ConfigError(
            f"max_redeals = {given.max_redeals} with tournament.duplicate: every seating "
            "of a deal must play the same cards, and a redeal after all pass would not; "
            "in duplicate mode the first bidder takes an unbid deal at 1 (leave "
            "max_redeals out, or write 0)"
        )
    return given.model_copy(update={"max_redeals": 0})
