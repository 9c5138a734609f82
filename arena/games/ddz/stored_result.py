"""A Dou Dizhu round's result read back from a tournament's store: the
:class:`~arena.games.ddz.engine.records.Settlement` its ``to_dict()`` wrote."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.games.ddz.engine.cards import Card, card
from arena.games.ddz.engine.records import DealtCards, Settlement

__all__ = ["settlement_from_dict"]


def _cards(texts: Sequence[str]) -> tuple[Card, ...]:
    return tuple(card(text) for text in texts)


def _three(values: Sequence[int]) -> tuple[int, int, int]:
    return (values[0], values[1], values[2])


def settlement_from_dict(result: Mapping[str, Any]) -> Settlement:
    """The settlement :meth:`Settlement.to_dict` wrote (a result stored before issue 12
    has no bombs by seat: it reads back as none)."""
    hands = result["deal"]["hands"]
    final = result["final_hands"]
    return Settlement(
        landlord=result["landlord"],
        call_score=result["call_score"],
        landlord_won=result["landlord_won"],
        winner_seat=result["winner_seat"],
        spring=result["spring"],
        bombs=result["bombs"],
        rockets=result["rockets"],
        grabs=result["grabs"],
        gift_doubles=result["gift_doubles"],
        doubled={int(k): v for k, v in result["doubled"].items()},
        redoubled=result["redoubled"],
        common_exponent=result["common_exponent"],
        exponents={int(k): v for k, v in result["exponents"].items()},
        scores=_three(result["scores"]),
        deals=result["deals"],
        forced_landlord=result["forced_landlord"],
        first_bidder=result["first_bidder"],
        plays_by_seat=tuple(result["plays_by_seat"]),
        effects_applied=result["effects_applied"],
        deal=DealtCards(
            (_cards(hands[0]), _cards(hands[1]), _cards(hands[2])),
            _cards(result["deal"]["bottom"]),
        ),
        final_hands=(_cards(final[0]), _cards(final[1]), _cards(final[2])),
        seed=result["seed"],
        winners=tuple(result["winners"]),
        bombs_by_seat=_three(result.get("bombs_by_seat", (0, 0, 0))),
    )
