"""Dou Dizhu's hard positions for ``arena agent check``: twelve requests an agent must get
right (:data:`CHECK`, which the game names: ``Game.check_positions``).

Each position is one request, asked once, built from a prepared deal played up to the
seat's turn through the rules engine (:class:`~arena.games.ddz.engine.Round`), and written as
messages by the table's own :class:`~arena.games.ddz.views.SeatViews`. So every request is
one a real table could send, consistent with itself (hand, history, counts, multiplier)
and with the DEAL and BOTTOM_CARDS sent before it. Each position is a round of its own
(``round_no`` 1..12), so an agent that keeps state per round starts each one afresh.

The one exception is ``bid_only_pass``: a BID_REQUEST offering nothing but 0. The
arena's own auctions end at a bid of 3, so it never sends one; the protocol allows it,
and it tells whether an agent answers from ``available_bids`` or from its own idea of
the rules.

Cards are written here by rank only (``"9 9 9 9"``): suits never matter in play, so a
hand's cards are dealt lowest suit first and the rest of the deck fills the other hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from arena.games.ddz.agents.reading import legal_for
from arena.games.ddz.engine import (
    DECK,
    DEFAULT_RULES,
    PASS,
    Card,
    DealtCards,
    Phase,
    Round,
    Rules,
    resolve_cards,
)
from arena.games.ddz.judge import judge_reply
from arena.games.ddz.messages import BidRecord, BidRequest, DoubleRequest, PlayRequest
from arena.games.ddz.views import SeatViews, with_legal_moves
from arena.testing.base import CheckPositions, Position, Situation
from protocol import Message, parse_token

__all__ = ["CHECK", "MATCH_ID", "POSITIONS", "TABLE_ID", "listed", "position_named"]

MATCH_ID: Final = "agent-check"
"""The ``match_id`` of every message the check sends."""

TABLE_ID: Final = "check"
"""The ``table_id`` of every message the check sends."""

Request = BidRequest | DoubleRequest | PlayRequest


def position_named(name: str) -> Position:
    """The position of that name (a KeyError, as from a dict, if there is none).
    A position's ``rules`` (default: the competition preset) are the check's, the play
    variants of which it is dealt under (its auction and doubling are its own)."""
    return CHECK.named(name)


def listed(request: Request, rules: Rules = DEFAULT_RULES) -> Request:
    """A PLAY_REQUEST with its legal moves, as a table sends it to a seat that asked for
    them (``legal_moves``); any other request as it is."""
    if isinstance(request, PlayRequest):
        return with_legal_moves(request, legal_for(request, rules))
    return request


# --- building a position -------------------------------------------------------------


class _Deck:
    """Hands out cards by rank, lowest suit first, each card once."""

    def __init__(self) -> None:
        self.free: list[Card] = list(DECK)

    def take(self, ranks: str) -> list[Card]:
        taken = []
        for token in ranks.split():
            rank, _ = parse_token(token)
            found = next(c for c in self.free if c.rank == rank)
            self.free.remove(found)
            taken.append(found)
        return taken


def _names(me: str, seat: int) -> tuple[str, str, str]:
    """The seat order: the agent at ``seat``, two rivals (named apart from the agent)."""
    rivals = [n for n in ("Rival-A", "Rival-B", "Rival-C") if n != me][:2]
    names = [*rivals]
    names.insert(seat, me)
    return (names[0], names[1], names[2])


def _deal(hands: dict[int, str], bottom: str) -> DealtCards:
    """A deal where each seat holds at least the given ranks and the bottom holds the
    given ones; the rest of the deck, lowest first, fills every hand to 17 cards."""
    deck = _Deck()
    held = {seat: deck.take(ranks) for seat, ranks in hands.items()}
    under = deck.take(bottom)
    order: list[Card] = []
    for seat in range(3):
        cards = held.get(seat, [])
        missing = 17 - len(cards)
        order += cards + deck.free[:missing]
        del deck.free[:missing]
    return DealtCards.from_order(order + under + deck.free)


def _own_setup(rules: Rules) -> Rules:
    """The check's rules as a position plays them: the play variants as configured (what
    beats what), the auction and the doubling as the position sets them up itself."""
    return rules.model_copy(update=_SETUP)


_SETUP: Final = {
    "scoring": "competition",
    "bidding": "single_round",
    "doubling": None,
    "per_defender_doubling": None,
}


def _views(names: tuple[str, str, str], round_no: int, rnd: Round) -> SeatViews:
    """The messages of round ``round_no``, dealt once as ``rnd`` was."""
    views = SeatViews(names)
    views.new_match(MATCH_ID, TABLE_ID)
    views.new_round(round_no, seed=rnd.seed, rules=rnd.rules)
    views.new_deal()
    return views


def _request_id(round_no: int) -> str:
    return f"{TABLE_ID}-{round_no}-1"


def _bid_situation(
    me: str,
    time_limit_ms: int,
    rules: Rules,
    *,
    round_no: int,
    seat: int,
    hand: str,
    fixed_landlord: bool = False,
) -> Situation:
    """The agent bids first (or, as a fixed landlord, names its call score)."""
    names = _names(me, seat)
    dealt = _deal({seat: hand}, "")
    rnd = Round(
        _own_setup(rules),
        seed=round_no,
        deal=dealt,
        first_bidder=seat,
        landlord=seat if fixed_landlord else None,
    )
    assert rnd.phase is Phase.BIDDING
    assert rnd.to_act == seat
    views = _views(names, round_no, rnd)
    request = views.bid_request(
        rnd, seat, time_limit_ms=time_limit_ms, request_id=_request_id(round_no)
    )
    return Situation((views.deal(seat, dealt.hands[seat]),), request)


def _play_situation(
    me: str,
    time_limit_ms: int,
    rules: Rules,
    *,
    round_no: int,
    seat: int,
    landlord: int,
    call_score: int,
    hands: dict[int, str],
    bottom: str,
    plays: Sequence[str] = (),
    double_request: bool = False,
) -> Situation:
    """Play ``plays`` (rank specs, ``-`` a pass) in turn order from the landlord's lead,
    nobody doubling, then the agent's request (a PLAY_REQUEST, or its DOUBLE_REQUEST)."""
    names = _names(me, seat)
    dealt = _deal(hands, bottom)
    rnd = Round(
        _own_setup(rules), seed=round_no, deal=dealt, landlord=landlord, call_score=call_score
    )
    views = _views(names, round_no, rnd)
    notes: tuple[Message, ...] = (
        views.deal(seat, dealt.hands[seat]),
        views.bottom_cards(landlord, rnd.bottom, rnd.call_score),
    )
    request_id = _request_id(round_no)
    while rnd.phase is Phase.DOUBLING:
        acting = rnd.to_act
        assert acting is not None
        if double_request and acting == seat:
            asked = views.double_request(
                rnd, seat, time_limit_ms=time_limit_ms, request_id=request_id
            )
            return Situation(notes, asked)
        rnd.double(acting, False)
        views.record_double(acting, False)
    for spec in plays:
        acting = rnd.to_act
        assert acting is not None
        if spec == "-":
            rnd.pass_turn(acting)
            views.record_play(acting, PASS)
        else:
            cards = resolve_cards(spec.split(), rnd.hand(acting))
            views.record_play(acting, rnd.play(acting, cards))
    assert rnd.phase is Phase.PLAYING, "the position's plays end the round"
    assert rnd.to_act == seat, "the position's plays end on another seat's turn"
    request = views.play_request(rnd, seat, time_limit_ms=time_limit_ms, request_id=request_id)
    return Situation(notes, request)


# --- the positions ---------------------------------------------------------------------


def _bid_only_pass(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    round_no, seat = 1, 1
    strong = "3 5 6 7 8 9 10 J Q K A A 2 2 2 SJ BJ"
    base = _bid_situation(me, time_limit_ms, rules, round_no=round_no, seat=seat, hand=strong)
    first = base.request
    assert isinstance(first, BidRequest)
    before = _names(me, seat)[0]
    request = BidRequest(
        player_id=me,
        current_highest_bid=3,
        bid_history=[BidRecord(player=before, bid=3)],
        available_bids=[0],
        mode="call_score",
        hand=first.hand,
        time_limit_ms=time_limit_ms,
        request_id=first.request_id,
        match_id=MATCH_ID,
        table_id=TABLE_ID,
        round_no=round_no,
    )
    return Situation(base.notifications, request)


def _bid_opening(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    hand = "3 4 4 5 6 7 7 8 9 10 J Q Q K A 2 SJ"
    return _bid_situation(me, time_limit_ms, rules, round_no=2, seat=0, hand=hand)


def _bid_fixed_landlord(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    weak = "3 3 4 5 5 6 7 8 8 9 10 10 J Q K A 2"
    return _bid_situation(
        me, time_limit_ms, rules, round_no=3, seat=2, hand=weak, fixed_landlord=True
    )


def _double_farmer(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=4,
        seat=1,
        landlord=0,
        call_score=2,
        hands={1: "3 4 5 6 7 8 9 10 J Q K K A A 2 2 BJ"},
        bottom="6 9 Q",
        double_request=True,
    )


def _follow_bomb_with_rocket(
    me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES
) -> Situation:
    # The landlord bombs the agent's pair of kings; its own 5555 is too low: rocket or pass.
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=5,
        seat=0,
        landlord=2,
        call_score=3,
        hands={0: "K K 5 5 5 5 SJ BJ 3 6 7 8 10 J Q A 2", 2: "4 4 9 9 9 9"},
        bottom="3 8 J",
        plays=["4 4", "K K", "-", "9 9 9 9"],
    )


def _follow_airplane_with_wings(
    me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES
) -> Situation:
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=6,
        seat=2,
        landlord=1,
        call_score=1,
        hands={2: "8 8 8 9 9 9 3 5 6 J Q K A 2 10 10 SJ", 1: "3 3 3 4 4 4 6 7"},
        bottom="5 K 2",
        plays=["3 3 3 4 4 4 6 7"],
    )


def _follow_four_with_two(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=7,
        seat=1,
        landlord=0,
        call_score=2,
        hands={1: "10 10 10 10 4 5 5 7 9 J Q K A 2 2 3 SJ", 0: "6 6 6 6 3 8"},
        bottom="4 J A",
        plays=["6 6 6 6 3 8"],
    )


def _forced_pass(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    # No bomb, no rocket, nothing above a pair of 2s: only PASS is legal. A table with
    # ``auto_pass = false`` asks anyway.
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=8,
        seat=1,
        landlord=0,
        call_score=1,
        hands={1: "3 4 5 6 7 8 9 10 J Q K A 3 4 5 6 SJ", 0: "2 2"},
        bottom="7 9 K",
        plays=["2 2"],
    )


def _lead_after_passes(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    # The agent's aces won the trick: both others passed, and it leads (no PASS now).
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=9,
        seat=1,
        landlord=0,
        call_score=2,
        hands={1: "A A 4 5 6 7 8 9 9 10 J J Q K 2 2 SJ", 0: "3 3"},
        bottom="5 8 Q",
        plays=["3 3", "A A", "-", "-"],
    )


def _last_cards(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    # The landlord ran its hand down to a pair of 9s, and leads again.
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=10,
        seat=0,
        landlord=0,
        call_score=3,
        hands={0: "3 4 5 6 7 8 9 10 J Q 2 2 SJ 10 10 9 9"},
        bottom="K A 2",
        plays=[
            "3 4 5 6 7 8 9 10 J Q K A",
            "-",
            "-",
            "2 2 2 SJ",
            "-",
            "-",
            "10 10",
            "-",
            "-",
        ],
    )


def _long_hand_lead(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    # Twenty cards: an airplane, a bomb, pairs, a straight; the landlord's opening lead.
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=11,
        seat=2,
        landlord=2,
        call_score=3,
        hands={2: "3 3 3 4 4 4 5 6 7 7 7 7 9 10 10 J Q"},
        bottom="8 J Q",
    )


def _retry_after_rejection(me: str, time_limit_ms: int, rules: Rules = DEFAULT_RULES) -> Situation:
    return _play_situation(
        me,
        time_limit_ms,
        rules,
        round_no=12,
        seat=2,
        landlord=1,
        call_score=1,
        hands={2: "3 6 8 9 10 J Q K A 2 4 4 7 7 K Q J", 1: "5"},
        bottom="6 10 A",
        plays=["5"],
    )


POSITIONS: Final[tuple[Position, ...]] = (
    Position("bid_only_pass", "a BID_REQUEST offering only 0, to a strong hand", 1, _bid_only_pass),
    Position("bid_opening", "the first bid of a round (call_score: 3, 2, 1 or 0)", 2, _bid_opening),
    Position(
        "bid_fixed_landlord",
        "a fixed landlord names its score (1..3, no pass)",
        3,
        _bid_fixed_landlord,
    ),
    Position("double_farmer", "a farmer's DOUBLE_REQUEST (加倍)", 4, _double_farmer),
    Position(
        "follow_bomb_with_rocket",
        "a bomb to beat, holding a rocket and a lower bomb",
        5,
        _follow_bomb_with_rocket,
    ),
    Position(
        "follow_airplane_with_wings",
        "an airplane with single wings to beat, holding a higher one",
        6,
        _follow_airplane_with_wings,
    ),
    Position(
        "follow_four_with_two",
        "a four-with-two to beat, holding a higher four",
        7,
        _follow_four_with_two,
    ),
    Position("forced_pass", "nothing beats a pair of 2s: only PASS is legal", 8, _forced_pass),
    Position(
        "lead_after_passes",
        "a lead after both others passed (PASS is illegal)",
        9,
        _lead_after_passes,
    ),
    Position("last_cards", "the last two cards (a pair), on a free lead", 10, _last_cards),
    Position("long_hand_lead", "the opening lead with 20 cards of every kind", 11, _long_hand_lead),
    Position(
        "retry_after_rejection",
        "the first answer rejected on purpose; the retry is judged",
        12,
        _retry_after_rejection,
        retry=True,
    ),
)
"""Every position, in the order they are asked."""


CHECK: Final = CheckPositions(positions=POSITIONS, judge=judge_reply, listed=listed)
"""What ``arena agent check`` asks of a Dou Dizhu agent, and how it judges the replies."""
