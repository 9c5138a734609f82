"""Tractor's rule settings (``[rules]`` in a config): one strict, frozen model.

The defaults are the game as docs/rules-tractor.md describes it: 4 players, a kitty of 8,
all cards dealt at once, the match over when a team reaches A. A wrong value is an error
naming its key, as for every game's rules.
"""

from __future__ import annotations

from typing import Literal, Self

from pydantic import Field, model_validator

from arena.games.base import GameRules
from arena.games.tractor.engine.cards import CARD_COUNT

__all__ = ["DEFAULT_RULES", "TractorRules"]

DEFAULT_KITTY = {4: 8, 6: 12}
"""The kitty when the rules name none: 4 players 8 (25 cards each), 6 players 12 (16)."""


class TractorRules(GameRules):
    """Every rule setting of a Tractor match."""

    players: Literal[4, 6] = 4
    """Seats at the table; teams by seat parity (0, 2, … against 1, 3, …)."""

    kitty: int | None = Field(default=None, ge=2, le=36)
    """Cards in the kitty (底牌); None: 8 for 4 players, 12 for 6. The rest must deal
    evenly: 108 − kitty a multiple of ``players``."""

    deal_steps: int = Field(default=1, ge=1, le=25)
    """1: the whole hand is dealt, then trump is declared. N > 1: the hand is revealed in
    N steps with a declaration window after each, as in a real draw."""

    play_through: bool = False
    """False: the match ends when a team reaches A. True: a team at A must still win a
    round as bankers at A."""

    round_limit: int | None = Field(default=None, ge=1, le=1000)
    """The most rounds of a match (streams, tournaments); the higher level wins, then the
    points. None: play until the level rule ends it."""

    @model_validator(mode="after")
    def _deals_evenly(self) -> Self:
        dealt = CARD_COUNT - self.kitty_size
        if dealt % self.players:
            raise ValueError(
                f"kitty = {self.kitty_size} leaves {dealt} cards, which {self.players} "
                f"players cannot share evenly"
            )
        if self.deal_steps > self.hand_size:
            raise ValueError(f"deal_steps = {self.deal_steps} is more than a hand's cards")
        return self

    @property
    def kitty_size(self) -> int:
        """The kitty's cards under these rules."""
        return DEFAULT_KITTY[self.players] if self.kitty is None else self.kitty

    @property
    def hand_size(self) -> int:
        """Each seat's cards as dealt."""
        return (CARD_COUNT - self.kitty_size) // self.players


DEFAULT_RULES = TractorRules()
