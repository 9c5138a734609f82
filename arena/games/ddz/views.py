"""What each seat may know, as protocol messages: requests, notifications and results.

Every message to an agent is built here from the round's state, and only from what that
seat may see: its own hand, the public history, counts, the bottom cards once shown, the
rules in force, a seed of its own, and (for a seat that asked) its legal moves.
The public history is kept as wire records built once, when each action happens, so a
request copies references instead of rebuilding the round (its cost stays flat).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from arena.games.ddz.agents.inprocess import ListedPlayRequest, attach_moves
from arena.games.ddz.engine import DEFAULT_RULES, Card, Combo, ComboType, Round, Rules, Settlement
from arena.games.ddz.messages import (
    BidRecord,
    BidRequest,
    BottomCards,
    Deal,
    DoubleRecord,
    DoubleRequest,
    LastPlay,
    LegalMove,
    PlayRecord,
    PlayRequest,
    RoundResult,
    TableRules,
)
from protocol._trusted import adopt_fields, trusted, trusted_fields

__all__ = ["SeatViews", "deal_seeds", "legal_move_records", "table_rules", "with_legal_moves"]

_PASS_TYPE = ComboType.PASS  # a global: on Python 3.11 ``ComboType.X`` is a slow lookup


def deal_seeds(deal_seed: int, deal_number: int) -> tuple[int, int, int]:
    """Each seat's own seed for one deal of a round (DEAL's ``seed``), 52 bits each.

    Derived from the seed that deals the round (itself derived from the match's seed, the
    table and the round: stored in replays, committed in tournaments) and the deal's number
    (a redeal draws anew): the same match played again, resumed, or checked gives every
    seat the same seeds, each seat its own. A one-way hash (one per deal, its digest cut in
    three), because the deal's seed deals every hand: told it, an agent could rebuild the
    others' cards.
    """
    text = f"ddz-arena agent seeds {deal_seed} {deal_number}"
    digest = hashlib.sha256(text.encode()).digest()
    return (
        int.from_bytes(digest[0:7], "big") >> 4,
        int.from_bytes(digest[7:14], "big") >> 4,
        int.from_bytes(digest[14:21], "big") >> 4,
    )


def table_rules(rules: Rules) -> TableRules:
    """The rules in force as a DEAL tells them: every setting, the preset's resolved."""
    return TableRules(
        scoring=rules.scoring,
        bidding=rules.bidding,
        first_bidder=rules.first_bidder,
        max_redeals=rules.max_redeals,
        doubling=rules.has_doubling_phase,
        per_defender_doubling=rules.doubles_per_defender,
        loose_wings=rules.loose_wings,
        four_with_pair=rules.four_with_pair,
        quadplex_as_bomb=rules.quadplex_as_bomb,
        max_gift_doubles=rules.max_gift_doubles,
    )


def legal_move_records(moves: Iterable[Combo]) -> list[LegalMove]:
    """Engine moves as a PLAY_REQUEST's ``legal_moves``: canonical cards and hand type."""
    return [
        trusted_fields(LegalMove, {"cards": [c.text for c in move.cards], "hand_type": move.type})
        for move in moves
    ]


def with_legal_moves(request: PlayRequest, moves: Sequence[Combo]) -> PlayRequest:
    """The request listing ``moves`` as its ``legal_moves`` (a copy; the engine moves stay
    attached, so an agent in this process still gets them)."""
    fields = {**request.__dict__, "legal_moves": legal_move_records(moves)}
    listed = trusted_fields(ListedPlayRequest, fields)
    attach_moves(listed, tuple(moves))
    return listed


class SeatViews:
    """Builds the messages of one table's seats; holds the round's public history.

    ``listing`` says, per seat, whether its PLAY_REQUESTs carry ``legal_moves``: only
    the seats that asked pay for writing them out.
    """

    def __init__(
        self, names: tuple[str, ...], *, listing: Sequence[bool] = (False, False, False)
    ) -> None:
        self.names = names
        self.listing: tuple[bool, ...] = tuple(bool(asked) for asked in listing)
        self._rules: tuple[Rules, TableRules] | None = None
        self._deal_seed: int | None = None
        self._deal_number = 0
        self._seeds: tuple[int, int, int] | None = None
        """The current deal's seeds, worked out at its first DEAL."""
        self.history: list[PlayRecord] = []
        self.bids: list[BidRecord] = []
        self.doubles: list[DoubleRecord] = []
        self._hand_texts: list[tuple[tuple[Card, ...], list[str]] | None] = [None] * 3
        self._play_fixed: dict[tuple[int, int, int, int], dict[str, Any]] = {}
        self._last_play_cache: tuple[Combo, int, LastPlay] | None = None
        self.context: dict[str, Any] = {"match_id": None, "table_id": None, "round_no": None}
        """Which match, table and round every message belongs to (one program may serve
        several tables): merged into each message as it is built."""

    def new_match(self, match_id: str | None, table_id: str) -> None:
        """Name the match and table that the messages from now on belong to."""
        self.context = {"match_id": match_id, "table_id": table_id, "round_no": None}

    def new_round(
        self, round_no: int, *, seed: int | None = None, rules: Rules = DEFAULT_RULES
    ) -> None:
        """Forget the previous round's public history. ``seed`` is the one that deals
        the round, from which each DEAL's own seed is derived (None: DEALs carry none);
        ``rules`` are the rules every DEAL tells."""
        self.context = {**self.context, "round_no": round_no}
        self.history, self.bids, self.doubles = [], [], []
        self._play_fixed = {}
        self._last_play_cache = None
        self._deal_seed, self._deal_number, self._seeds = seed, 0, None
        if self._rules is None or self._rules[0] is not rules:
            self._rules = (rules, table_rules(rules))

    def new_deal(self) -> None:
        """A deal (the first of a round, or a redeal) starts the auction again."""
        self.bids = []
        self._deal_number += 1
        self._seeds = None

    # --- public history -----------------------------------------------------------------

    def record_bid(self, seat: int, value: int) -> None:
        """A bid was made."""
        self.bids.append(trusted(BidRecord, player=self.names[seat], bid=value))

    def record_double(self, seat: int, double: bool) -> None:
        """A doubling decision was made."""
        self.doubles.append(trusted(DoubleRecord, player=self.names[seat], double=double))

    def record_play(self, seat: int, combo: Combo) -> list[str]:
        """A play or pass was made; returns the played cards as strings."""
        name = self.names[seat]
        if combo.type is _PASS_TYPE:
            self.history.append(
                trusted_fields(
                    PlayRecord, {"player": name, "action": "PASS", "type": None, "cards": []}
                )
            )
            return []
        cards = [c.text for c in combo.cards]
        self.history.append(
            trusted_fields(
                PlayRecord, {"player": name, "action": "PLAY", "type": combo.type, "cards": cards}
            )
        )
        return cards

    # --- requests -----------------------------------------------------------------------

    def bid_request(
        self, rnd: Round, seat: int, *, time_limit_ms: int, request_id: str
    ) -> BidRequest:
        """BID_REQUEST for the seat to act."""
        return trusted(
            BidRequest,
            player_id=self.names[seat],
            current_highest_bid=rnd.auction.highest,
            bid_history=list(self.bids),
            available_bids=rnd.legal_bids(),
            mode=rnd.auction.mode,
            hand=self.hand_texts(seat, rnd.hand(seat)),
            time_limit_ms=time_limit_ms,
            request_id=request_id,
            **self.context,
        )

    def double_request(
        self, rnd: Round, seat: int, *, time_limit_ms: int, request_id: str
    ) -> DoubleRequest:
        """DOUBLE_REQUEST: a farmer's double, or the landlord's redouble."""
        landlord = rnd.landlord
        assert landlord is not None
        return trusted(
            DoubleRequest,
            player_id=self.names[seat],
            kind="redouble" if rnd.is_redouble_turn else "double",
            landlord=self.names[landlord],
            call_score=rnd.call_score,
            bottom_cards=[c.text for c in rnd.bottom],
            double_history=list(self.doubles),
            hand=self.hand_texts(seat, rnd.hand(seat)),
            time_limit_ms=time_limit_ms,
            request_id=request_id,
            **self.context,
        )

    def play_request(
        self, rnd: Round, seat: int, *, time_limit_ms: int, request_id: str
    ) -> PlayRequest:
        """PLAY_REQUEST: the seat's hand, the trick to beat, the public history, counts."""
        landlord = rnd.landlord
        assert landlord is not None
        names = self.names
        key = (seat, landlord, rnd.call_score, time_limit_ms)
        fixed = self._play_fixed.get(key)
        build = adopt_fields  # the same keys as the first request of the round, checked
        if fixed is None:
            fixed = self._play_fixed[key] = self._fixed_play_fields(
                rnd, seat, landlord, time_limit_ms
            )
            build = trusted_fields
        hands = rnd.hands
        last = rnd.last_play
        fields = {
            **fixed,
            "hand": self.hand_texts(seat, hands[seat]),
            "is_free_play": last is None,
            "last_play": None if last is None else self._last_play(last, rnd.last_seat),
            "play_history": list(self.history),
            "remaining_cards": {
                names[0]: len(hands[0]),
                names[1]: len(hands[1]),
                names[2]: len(hands[2]),
            },
            # fresh lists: an agent may change its copy
            "teammates": list(fixed["teammates"]),
            "bottom_cards": list(fixed["bottom_cards"]),
            "seat_order": list(names),
            "multiplier": 2 ** (rnd.bombs + rnd.rockets + rnd.grabs + rnd.gift_doubles),
            "request_id": request_id,
        }
        moves = rnd.moves
        if self.listing[seat]:
            fields["legal_moves"] = legal_move_records(moves)
        request = build(ListedPlayRequest, fields)
        attach_moves(request, moves)
        return request

    def _fixed_play_fields(
        self, rnd: Round, seat: int, landlord: int, time_limit_ms: int
    ) -> dict[str, Any]:
        """The fields of a seat's PLAY_REQUEST that stay the same all through the play."""
        names = self.names
        return {
            "type": "PLAY_REQUEST",
            "player_id": names[seat],
            "role": "landlord" if seat == landlord else "farmer",
            "teammates": []
            if seat == landlord
            else [names[i] for i in range(3) if i not in (seat, landlord)],
            "landlord": names[landlord],
            "bottom_cards": [c.text for c in rnd.bottom],
            "call_score": rnd.call_score,
            "audience": None,
            "legal_moves": None,
            "time_limit_ms": time_limit_ms,
            **self.context,
        }

    def _last_play(self, last: Combo, seat: int | None) -> LastPlay:
        """The trick to beat, built once per play and shared by the requests that follow."""
        assert seat is not None
        cached = self._last_play_cache
        if cached is not None and cached[0] is last and cached[1] == seat:
            return cached[2]
        message = trusted(
            LastPlay,
            player=self.names[seat],
            type=last.type,
            cards=[c.text for c in last.cards],
            main_rank=last.main_rank,
        )
        self._last_play_cache = (last, seat, message)
        return message

    def hand_texts(self, seat: int, hand: tuple[Card, ...]) -> list[str]:
        """A seat's hand as card strings, rebuilt only when the hand changed."""
        cached = self._hand_texts[seat]
        if cached is None or cached[0] is not hand:
            cached = (hand, [c.text for c in hand])
            self._hand_texts[seat] = cached
        return list(cached[1])

    # --- notifications ------------------------------------------------------------------

    def deal(self, seat: int, hand: tuple[Card, ...]) -> Deal:
        """DEAL: the seat's own 17 cards, the rules in force and the seat's own seed."""
        rules, seeds = self._rules, self._seeds
        if seeds is None and self._deal_seed is not None:
            seeds = self._seeds = deal_seeds(self._deal_seed, self._deal_number)
        return trusted(
            Deal,
            player_id=self.names[seat],
            role=None,
            hand=[c.text for c in hand],
            hand_count=len(hand),
            seat_order=list(self.names),
            **self.context,
            rules=None if rules is None else rules[1],
            seed=None if seeds is None else seeds[seat],
        )

    def bottom_cards(self, landlord: int, bottom: tuple[Card, ...], call_score: int) -> BottomCards:
        """BOTTOM_CARDS: the landlord and the three cards everyone now sees."""
        return trusted(
            BottomCards,
            landlord=self.names[landlord],
            bottom_cards=[c.text for c in bottom],
            call_score=call_score,
            **self.context,
        )

    def round_result(self, result: Settlement, totals: list[int]) -> RoundResult:
        """ROUND_RESULT: the settlement, every hand that was left, the running totals."""
        names = self.names
        return trusted(
            RoundResult,
            landlord=names[result.landlord],
            call_score=result.call_score,
            winner_side="landlord" if result.landlord_won else "farmer",
            first_out=names[result.winner_seat],
            score_deltas={names[i]: result.scores[i] for i in range(3)},
            spring=result.spring,
            bombs=result.bombs,
            rockets=result.rockets,
            grabs=result.grabs,
            gift_doubles=result.gift_doubles,
            doubled={names[s]: d for s, d in result.doubled.items()},
            redoubled=result.redoubled,
            multiplier=2**result.common_exponent,
            farmer_multipliers={names[s]: 2**e for s, e in result.exponents.items()},
            gift_affected=result.effects_applied > 0,
            final_hands={names[i]: [c.text for c in result.final_hands[i]] for i in range(3)},
            total_scores={names[i]: totals[i] for i in range(3)},
            **self.context,
        )
