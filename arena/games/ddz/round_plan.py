"""Dou Dizhu's plan of a round before it is dealt (its :attr:`Game.round_plan`): who bids
first and, under a tournament's 轮庄, who is landlord, by the round's number.

- ``[rules] first_bidder = "rotate"``: seat 0 bids first in round 1, seat 1 in round 2 ...
- ``landlord_policy = "rotate"`` (a match option, from a tournament): the landlord
  rotates the same way and is asked only for its call score.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = ["round_plan"]

_SEATS: Final = 3


def round_plan(round_no: int, rules: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    """Round ``round_no``'s ``first_bidder`` and ``landlord`` (None: bid for as usual).

    ``options``: ``landlord_policy`` (``"bid"`` or ``"rotate"``); ``rotate_bidder``
    (a caller that says it instead of the rules: the old ``plan_round`` keyword)."""
    rotate_bidder = options.get("rotate_bidder")
    if rotate_bidder is None:
        rotate_bidder = getattr(rules, "first_bidder", None) == "rotate"
    seat = (round_no - 1) % _SEATS
    return {
        "first_bidder": seat if rotate_bidder else None,
        "landlord": seat if options.get("landlord_policy") == "rotate" else None,
    }
