"""Rule settings: one typed, immutable object holding the preset and every variant.

The defaults are the `competition` preset of docs/rules.md. Settings arrive from TOML config,
so this is a strict pydantic model: an unknown key or a wrong value is an error naming it.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from arena.games.base import GameRules
from arena.games.ddz.messages import BiddingRule, FirstBidder, ScoringPreset

__all__ = ["DEFAULT_RULES", "Rules", "ScoringPreset"]


class Rules(GameRules):
    """Every rule setting of a round. Build one with :meth:`preset` or keyword overrides.

    Strict: ``doubling = "no"`` or ``max_redeals = true`` is an error, not a conversion.
    """

    scoring: ScoringPreset = "competition"
    """`competition`: doubling phase, per-defender doubling; `casual`: neither."""

    bidding: BiddingRule = "single_round"
    """`single_round` (叫分, each seat once), `until_settled` (bids go round) or `grab` (抢地主)."""

    first_bidder: FirstBidder = "random"
    """Random (seeded) per deal, or moving one seat each round."""

    max_redeals: int = Field(default=3, ge=0, le=100)
    """Redeals in a row when nobody bids; after that the first bidder takes it at score 1."""

    doubling: bool | None = None
    """Doubling phase (加倍); None follows the preset (on in competition, off in casual)."""

    per_defender_doubling: bool | None = None
    """A farmer's double applies only between them and the landlord; None follows preset."""

    loose_wings: bool = False
    """Airplane single wings may repeat a rank (333444+55)."""

    four_with_pair: bool = False
    """Four-with-two-singles may carry a pair (6666+88)."""

    quadplex_as_bomb: bool = False
    """Four-with-two counts as a bomb of its quad's rank (docs/rules.md, Variants)."""

    max_gift_doubles: int = Field(default=2, ge=0, le=20)
    """How many viewer 翻倍 gifts may double one round."""

    @classmethod
    def preset(cls, name: ScoringPreset, **overrides: Any) -> Rules:
        """The named preset with some settings overridden."""
        return cls(scoring=name, **overrides)

    @property
    def has_doubling_phase(self) -> bool:
        """Whether farmers are asked to double after the landlord is known."""
        return self.scoring == "competition" if self.doubling is None else self.doubling

    @property
    def doubles_per_defender(self) -> bool:
        """Whether each farmer's double applies only to their own settlement."""
        if self.per_defender_doubling is None:
            return self.scoring == "competition"
        return self.per_defender_doubling


DEFAULT_RULES = Rules()
