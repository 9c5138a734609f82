"""Tractor's hard positions for ``arena agent check``: thirteen requests an agent must
answer legally (:data:`CHECK`, which the game names: ``Game.check_positions``).

Each position is one request, built from a prepared deal played up to the seat's turn
through the rules engine (:class:`~arena.games.tractor.engine.Round`: trump declared and
locked, the kitty buried, the tricks played) and written as messages by the table's own
:class:`~arena.games.tractor.views.TractorViews`. So every request is one a real table
could send, consistent with itself and with the DEAL (and the trump messages) sent
before it. Each position is a round of its own (``round_no`` 1..13), four seats under
the default rules whatever the check's rules, since a position's cards are written for
them (its DEAL says so).

The judge is :func:`~arena.games.tractor.judge.judge_reply` (legality, from the request
alone, as the table judges). A legal reply to one of these positions is then played on
the position's own round, so the report also says what it did with the cards nobody
else could see: whether a throw stood or was punished, who takes the trick and its
points. Those words never fail an answer: the check is about legality.

Cards are written by face (``♥10``, ``小王``): copies are interchangeable. A seat's cards
not written are dealt from the rest of the deck by the round's number; where that could
matter (the agent's own hand, a suit a throw depends on) every card is written.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.errors import IllegalActionError
from arena.games.tractor.agents.base import read_play
from arena.games.tractor.engine import (
    DECK,
    SUIT,
    Kind,
    Played,
    Round,
    ThrowPunished,
    TractorRules,
    TrickWon,
    TrumpCandidate,
    TrumpLocked,
    legal_follows,
    legal_leads,
    resolve_cards,
    trick_winner,
)
from arena.games.tractor.engine.cards import RANK
from arena.games.tractor.judge import AnyRequest, judge_reply, reply_cards
from arena.games.tractor.messages import PlayRequest, PlayResponse
from arena.games.tractor.views import TractorViews, ids
from arena.table.calls import as_reply
from arena.testing.base import CheckPositions, Judgement, Position, Situation
from protocol import Message

__all__ = ["CHECK", "MATCH_ID", "POSITIONS", "RULES", "TABLE_ID", "listed", "setup_of"]

MATCH_ID: Final = "agent-check"
"""The ``match_id`` of every message the check sends."""

TABLE_ID: Final = "check"
"""The ``table_id`` of every message the check sends."""

RULES: Final = TractorRules(players=4)
"""The rules every position is dealt under (its DEAL tells them)."""

_OTHERS: Final = ("North", "East", "South", "West", "Northeast")


@dataclass(frozen=True, slots=True)
class Setup:
    """A position built: its messages, the round they come from, and the agent's seat."""

    situation: Situation
    round: Round
    seat: int
    names: tuple[str, ...]
    """Each seat's player, in seat order."""


Make = Callable[[str, int], Setup]
"""Builds a position for a player with a time limit."""


# --- building a position -------------------------------------------------------------


def _names(me: str, seat: int) -> tuple[str, ...]:
    """The seat order: the agent at ``seat``, three others named apart from it."""
    others = [n for n in _OTHERS if n != me][:3]
    others.insert(seat, me)
    return tuple(others)


def _deal(hands: Mapping[int, str], kitty: str, seed: int) -> list[list[int]]:
    """Each seat's given cards, then the kitty's, each filled from the rest of the deck
    shuffled by ``seed`` (a prepared deal for :class:`Round`)."""
    free = list(DECK)

    def take(faces: str) -> list[int]:
        cards = list(resolve_cards(faces.split(), free))
        for card in cards:
            free.remove(card)
        return cards

    held = {seat: take(faces) for seat, faces in hands.items()}
    under = take(kitty)
    random.Random(seed).shuffle(free)
    deal = []
    for seat in range(RULES.players):
        cards = held.get(seat, [])
        missing = RULES.hand_size - len(cards)
        deal.append(cards + free[:missing])
        del free[:missing]
    deal.append(under + free)
    return deal


def _views(names: tuple[str, ...], round_no: int, rnd: Round) -> TractorViews:
    views = TractorViews(names, listing=[False] * len(names))
    views.new_match(MATCH_ID, TABLE_ID)
    views.new_round(round_no, seed=rnd.seed, rules=RULES)
    return views


def _request_id(round_no: int) -> str:
    return f"{TABLE_ID}-{round_no}-1"


def _announced(views: TractorViews, rnd: Round, events: Sequence[object]) -> list[Message]:
    """The trump messages every seat is told for some events of the declaring."""
    told: list[Message] = []
    for event in events:
        if isinstance(event, TrumpCandidate):
            told.append(views.trump_candidate(event.declaration, event.window))
        elif isinstance(event, TrumpLocked):
            told.append(views.trump_locked(event, len(rnd.kitty)))
    return told


def _level_card(rnd: Round, seat: int, suit: int) -> tuple[int]:
    """A level card of ``suit`` in the seat's hand (to declare with)."""
    return (next(c for c in rnd.hands[seat] if RANK[c] == rnd.level and SUIT[c] == suit),)


@dataclass(frozen=True, slots=True)
class _Deal:
    """What a play or bury position is dealt: the seats' cards, the banker, the level
    and trump suit (declared by ``declarer`` with one level card)."""

    hands: Mapping[int, str]
    kitty: str
    banker: int
    declarer: int
    suit: int
    level: int = 5


def _locked(
    me: str, round_no: int, seat: int, dealt: _Deal
) -> tuple[Round, TractorViews, list[Message]]:
    """The round dealt, trump declared and locked, and the notes the agent got."""
    names = _names(me, seat)
    levels = [2, 2]
    levels[dealt.banker % 2] = dealt.level
    rnd = Round(
        RULES,
        seed=round_no,
        levels=(levels[0], levels[1]),
        banker=dealt.banker,
        deal=_deal(dealt.hands, dealt.kitty, round_no),
    )
    views = _views(names, round_no, rnd)
    notes: list[Message] = [views.deal(rnd, seat)]
    events = rnd.declare({dealt.declarer: _level_card(rnd, dealt.declarer, dealt.suit)})
    events += rnd.declare({})
    notes += _announced(views, rnd, events)
    return rnd, views, notes


def _play_setup(
    me: str,
    time_limit_ms: int,
    *,
    round_no: int,
    seat: int,
    dealt: _Deal,
    plays: Sequence[str] = (),
) -> Setup:
    """The kitty buried as dealt, ``plays`` (faces) played in turn from the banker's
    lead, then the agent's PLAY_REQUEST."""
    rnd, views, notes = _locked(me, round_no, seat, dealt)
    rnd.bury(rnd.kitty)
    for faces in plays:
        acting = rnd.to_act
        assert acting is not None
        for event in rnd.play(acting, rnd.resolve(acting, faces.split())):
            if isinstance(event, Played):
                views.record_play(event.seat, event.play.cards)
    assert rnd.to_act == seat, "the position's plays end on another seat's turn"
    request = views.play_request(
        rnd, seat, time_limit_ms=time_limit_ms, request_id=_request_id(round_no)
    )
    return Setup(Situation(tuple(notes), request), rnd, seat, views.names)


def _bury_setup(me: str, time_limit_ms: int, *, round_no: int, dealt: _Deal) -> Setup:
    """The agent is the banker, asked to bury."""
    rnd, views, notes = _locked(me, round_no, dealt.banker, dealt)
    request = views.bury_request(rnd, time_limit_ms=time_limit_ms, request_id=_request_id(round_no))
    return Setup(Situation(tuple(notes), request), rnd, dealt.banker, views.names)


def _declare_setup(
    me: str,
    time_limit_ms: int,
    *,
    round_no: int,
    seat: int,
    hands: Mapping[int, str],
    before: Mapping[int, str] | None = None,
) -> Setup:
    """A match's first round at level 2: windows with ``before`` (seat: faces) declared
    first, then the agent's DECLARE_REQUEST."""
    names = _names(me, seat)
    rnd = Round(
        RULES, seed=round_no, levels=(2, 2), tie_after=seat, deal=_deal(hands, "", round_no)
    )
    views = _views(names, round_no, rnd)
    notes: list[Message] = [views.deal(rnd, seat)]
    if before:
        offers = {s: rnd.resolve(s, faces.split()) for s, faces in before.items()}
        notes += _announced(views, rnd, rnd.declare(offers))
    request = views.declare_request(
        rnd, seat, time_limit_ms=time_limit_ms, request_id=_request_id(round_no)
    )
    return Setup(Situation(tuple(notes), request), rnd, seat, views.names)


# --- the positions ---------------------------------------------------------------------

_SPADES: Final = 0
_DIAMONDS: Final = 2


def _declare_first(me: str, time_limit_ms: int) -> Setup:
    # Level 2, nothing declared yet: ♥2 ♥2 and eleven hearts, a lone ♣2 and a small joker.
    hand = "♥2 ♥2 ♥3 ♥6 ♥8 ♥9 ♥10 ♥J ♥Q ♥K ♥A ♣2 ♣4 ♣7 ♣K ♦3 ♦6 ♦9 ♦J ♠4 ♠6 ♠8 ♠Q ♠A 小王"
    return _declare_setup(me, time_limit_ms, round_no=1, seat=0, hands={0: hand})


def _declare_overcall(me: str, time_limit_ms: int) -> Setup:
    # An opponent declared ♣2: the agent's ♦2 is no stronger (refused); ♠2 ♠2 or 小王 is.
    hand = "♠2 ♠2 ♠3 ♠6 ♠7 ♠9 ♠J ♠Q ♠K ♠A ♦2 ♦4 ♦8 ♦10 ♥3 ♥5 ♥7 ♥9 ♥J ♣3 ♣6 ♣9 ♣Q ♣A 小王"
    return _declare_setup(
        me, time_limit_ms, round_no=2, seat=2, hands={2: hand, 1: "♣2"}, before={1: "♣2"}
    )


def _bury_points(me: str, time_limit_ms: int) -> Setup:
    # The banker at level 7, ♦ trump, took a kitty of ♣K ♠10 ♥5 and five more: bury 8.
    hand = "♦7 ♦7 ♦2 ♦4 ♦9 ♦J ♦Q ♦A ♠3 ♠4 ♠8 ♠K ♥2 ♥6 ♥6 ♥9 ♥J ♥A ♣3 ♣8 ♣10 ♣Q ♣7 大王 大王"
    dealt = _Deal({1: hand}, "♣K ♠10 ♥5", banker=1, declarer=1, suit=_DIAMONDS, level=7)
    return _bury_setup(me, time_limit_ms, round_no=3, dealt=dealt)


def _follow_pair(me: str, time_limit_ms: int) -> Setup:
    # ♥9 ♥9 led; the agent's ♥3 ♥3 ♥4 ♥4 ♥8 ♥A: a pair it must play (either pair).
    hand = "♥3 ♥3 ♥4 ♥4 ♥8 ♥A ♦2 ♦6 ♦7 ♦9 ♦J ♦Q ♦K ♣2 ♣3 ♣6 ♣8 ♣10 ♣Q ♣A ♠3 ♠7 ♠9 ♠J ♠Q"
    dealt = _Deal({2: hand, 1: "♠5 ♥9 ♥9"}, "", banker=1, declarer=1, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=4, seat=2, dealt=dealt, plays=["♥9 ♥9"])


def _follow_tractor(me: str, time_limit_ms: int) -> Setup:
    # ♥J ♥J ♥Q ♥Q led at level 5: ♥3 ♥3 ♥4 ♥4 ♥6 ♥6 is a run (5 is trump), so a tractor.
    hand = "♥3 ♥3 ♥4 ♥4 ♥6 ♥6 ♥9 ♥9 ♥A ♦2 ♦3 ♦8 ♦10 ♦K ♣4 ♣7 ♣9 ♣J ♣K ♣A ♠2 ♠4 ♠8 ♠10 ♠A"
    dealt = _Deal({0: hand, 3: "♠5 ♥J ♥J ♥Q ♥Q"}, "", banker=3, declarer=3, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=5, seat=0, dealt=dealt, plays=["♥J ♥J ♥Q ♥Q"])


def _follow_throw(me: str, time_limit_ms: int) -> Setup:
    # The throw ♣A ♣A ♣K stands (both aces are the thrower's): ♣2 ♣2 and one more ♣.
    hand = "♣2 ♣2 ♣3 ♣9 ♣J ♥2 ♥6 ♥7 ♥10 ♥Q ♥K ♦3 ♦4 ♦8 ♦9 ♦J ♦Q ♦A ♠3 ♠6 ♠7 ♠8 ♠9 ♠K 小王"
    dealt = _Deal({1: hand, 0: "♠5 ♣A ♣A ♣K"}, "", banker=0, declarer=0, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=6, seat=1, dealt=dealt, plays=["♣A ♣A ♣K"])


def _follow_short(me: str, time_limit_ms: int) -> Setup:
    # A ♦ tractor led; the agent holds two ♦: both, then any two other cards.
    hand = "♦3 ♦A ♥2 ♥3 ♥6 ♥6 ♥8 ♥J ♥Q ♥K ♣2 ♣4 ♣6 ♣7 ♣9 ♣10 ♣Q ♣K ♠2 ♠4 ♠6 ♠J ♠Q ♠A 大王"
    dealt = _Deal({2: hand, 1: "♠5 ♦9 ♦9 ♦10 ♦10"}, "", banker=1, declarer=1, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=7, seat=2, dealt=dealt, plays=["♦9 ♦9 ♦10 ♦10"])


def _ruff_void(me: str, time_limit_ms: int) -> Setup:
    # ♣10, ♣K (partner), ♣A (opponent): 20 points; the agent, last, has no ♣: ruff.
    hand = "♥2 ♥3 ♥6 ♥7 ♥9 ♥J ♥Q ♥A ♦2 ♦4 ♦6 ♦8 ♦10 ♦J ♦K ♦A ♠2 ♠3 ♠6 ♠7 ♠9 ♠10 ♠Q ♦5 小王"
    dealt = _Deal({3: hand, 0: "♠5 ♣10", 1: "♣K", 2: "♣A"}, "", banker=0, declarer=0, suit=_SPADES)
    return _play_setup(
        me, time_limit_ms, round_no=8, seat=3, dealt=dealt, plays=["♣10", "♣K", "♣A"]
    )


def _lead_throw_stands(me: str, time_limit_ms: int) -> Setup:
    # The banker's first lead; the other ♥K is buried: ♥A ♥A ♥K ♥Q stands, with ♥3 not.
    hand = "♥A ♥A ♥K ♥Q ♥3 ♦2 ♦3 ♦6 ♦8 ♦9 ♦J ♦K ♣2 ♣4 ♣6 ♣8 ♣J ♣Q ♠5 ♠3 ♠7 ♠9 ♠J ♠K 大王"
    dealt = _Deal({0: hand}, "♥K", banker=0, declarer=0, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=9, seat=0, dealt=dealt)


def _lead_throw_fails(me: str, time_limit_ms: int) -> Setup:
    # The banker's first lead; an opponent holds ♣K ♣K: ♣A ♣Q ♣Q would be played as ♣A.
    hand = "♣A ♣Q ♣Q ♣9 ♥2 ♥4 ♥6 ♥8 ♥10 ♥J ♥K ♦3 ♦4 ♦7 ♦9 ♦Q ♦A ♠5 ♠2 ♠4 ♠6 ♠8 ♠10 ♠Q 小王"
    dealt = _Deal({2: hand, 1: "♣K ♣K"}, "", banker=2, declarer=2, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=10, seat=2, dealt=dealt)


def _forced_follow(me: str, time_limit_ms: int) -> Setup:
    # A trump pair led; the agent's only trumps are ♠3 and ♥5 (a level card): both.
    hand = "♥2 ♥3 ♥4 ♥6 ♥7 ♥8 ♥9 ♥10 ♥J ♦2 ♦3 ♦4 ♦6 ♦7 ♦8 ♦9 ♣2 ♣3 ♣4 ♣6 ♣7 ♣8 ♣9 ♠3 ♥5"
    dealt = _Deal({1: hand, 0: "♠5 ♠K ♠K"}, "", banker=0, declarer=0, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=11, seat=1, dealt=dealt, plays=["♠K ♠K"])


def _feed_partner(me: str, time_limit_ms: int) -> Setup:
    # The agent's partner (a defender) takes ♦3 with ♦A; the agent is last: ♦K or ♦10.
    hand = "♦K ♦10 ♦6 ♥2 ♥3 ♥4 ♥6 ♥8 ♥9 ♥J ♥Q ♥A ♣2 ♣3 ♣6 ♣8 ♣9 ♣J ♣Q ♠2 ♠4 ♠6 ♠9 ♠J 小王"
    dealt = _Deal({3: hand, 0: "♠5 ♦3", 1: "♦A", 2: "♦4"}, "", banker=0, declarer=0, suit=_SPADES)
    return _play_setup(
        me, time_limit_ms, round_no=12, seat=3, dealt=dealt, plays=["♦3", "♦A", "♦4"]
    )


def _retry_after_rejection(me: str, time_limit_ms: int) -> Setup:
    hand = "♥3 ♥9 ♥K ♦2 ♦4 ♦6 ♦7 ♦9 ♦J ♦Q ♦A ♣3 ♣4 ♣6 ♣8 ♣10 ♣J ♣K ♠2 ♠3 ♠6 ♠8 ♠10 ♠Q 大王"
    dealt = _Deal({1: hand, 0: "♠5 ♥7"}, "", banker=0, declarer=0, suit=_SPADES)
    return _play_setup(me, time_limit_ms, round_no=13, seat=1, dealt=dealt, plays=["♥7"])


_SETUPS: Final[tuple[tuple[str, str, Make, bool], ...]] = (
    ("declare_first", "the first declaration window: a good ♥ holding", _declare_first, False),
    (
        "declare_overcall",
        "overcall an opponent's ♣2: only stronger counts",
        _declare_overcall,
        False,
    ),
    (
        "bury_points",
        "the banker buries 8 of 33 cards, the kitty holding points",
        _bury_points,
        False,
    ),
    ("follow_pair", "a pair led: a pair must follow", _follow_pair, False),
    (
        "follow_tractor",
        "a tractor led: the tractor in the hand must follow",
        _follow_tractor,
        False,
    ),
    ("follow_throw", "a throw that stood: its pair must be met with a pair", _follow_throw, False),
    ("follow_short", "two cards of the led suit: both, then any others", _follow_short, False),
    ("ruff_void", "void in the led suit, last, 20 points on the table", _ruff_void, False),
    ("lead_throw_stands", "a first lead with a throw that stands", _lead_throw_stands, False),
    ("lead_throw_fails", "a first lead where a tempting throw fails", _lead_throw_fails, False),
    (
        "forced_follow",
        "a trump pair led: the only legal play is both trumps",
        _forced_follow,
        False,
    ),
    ("feed_partner", "last, the partner takes the trick: points to give", _feed_partner, False),
    (
        "retry_after_rejection",
        "the first answer rejected on purpose; the retry is judged",
        _retry_after_rejection,
        True,
    ),
)


def setup_of(name: str, me: str, time_limit_ms: int = 2000) -> Setup:
    """The position of that name built for ``me``: its messages, round and seat (a
    KeyError if there is none)."""
    found = {entry[0]: entry[2] for entry in _SETUPS}[name]
    return found(me, time_limit_ms)


def _position(round_no: int, name: str, about: str, make: Make, retry: bool) -> Position:
    def build(me: str, time_limit_ms: int, rules: Any = RULES) -> Situation:
        """The position's messages; the check's ``rules`` change nothing, its cards are
        written for four seats under the default rules (see the module)."""
        return make(me, time_limit_ms).situation

    return Position(name, about, round_no, build, retry=retry)


POSITIONS: Final[tuple[Position, ...]] = tuple(
    _position(index + 1, *entry) for index, entry in enumerate(_SETUPS)
)
"""Every position, in the order they are asked (``round_no`` 1..13)."""


# --- the judge and the listed request --------------------------------------------------


def judge(request: AnyRequest, reply: object, rules: object = None) -> Judgement:
    """The table's judgement of the reply (:func:`judge_reply`); a legal reply to one of
    these positions is then played on the position's round, and what it did is said."""
    judged = judge_reply(request, reply, rules)
    if judged.verdict != "legal":
        return judged
    outcome = _outcome(request, reply)
    return judged if outcome is None else Judgement("legal", f"{judged.detail}: {outcome}")


def _outcome(request: AnyRequest, reply: object) -> str | None:
    """What a legal play did on the position's own round, None for other requests."""
    if not isinstance(request, PlayRequest) or request.match_id != MATCH_ID:
        return None
    position = next((p for p in POSITIONS if p.round_no == request.round_no), None)
    if position is None:
        return None
    setup = setup_of(position.name, request.player_id, request.time_limit_ms)
    built = setup.situation.request
    if not isinstance(built, PlayRequest) or built.hand != request.hand:
        return None
    response = as_reply(reply, PlayResponse)
    cards = reply_cards(request, list(response.cards))
    rnd, seat = setup.round, setup.seat
    try:
        events = rnd.play(seat, cards)
    except IllegalActionError:  # the judge said legal: never expected
        return None
    return _said(setup, events, request)


def _said(setup: Setup, events: Sequence[object], request: PlayRequest) -> str:
    """A legal play's consequence in words, seats by their players' names."""
    rnd, seat, names = setup.round, setup.seat, setup.names
    parts: list[str] = []
    for event in events:
        if isinstance(event, ThrowPunished):
            parts.append(f"the throw does not stand ({event.reason})")
    lead = rnd.lead
    if request.leading and not parts and lead is not None and lead.kind is Kind.THROW:
        parts.append("the throw stands")
    won = next((e for e in events if isinstance(e, TrickWon)), None)
    if won is not None:
        who = "takes" if won.seat == seat else f"{names[won.seat]} takes"
        parts.append(f"{who} the trick ({won.points} points)")
    elif not request.leading:
        best = rnd.trick[trick_winner([p for _, p in rnd.trick])][0]
        parts.append(
            "is winning the trick" if best == seat else f"{names[best]} is winning the trick"
        )
    return "; ".join(parts) if parts else "played"


def listed(request: AnyRequest, rules: object = None) -> AnyRequest:
    """A PLAY_REQUEST with its legal plays, as a table sends it to a seat that asked for
    them (``legal_plays``; none when too many to list); any other request as it is."""
    if not isinstance(request, PlayRequest):
        return request
    seen = read_play(request)
    if seen.lead is None:
        plays: list[list[str]] | None = [ids(p.cards) for p in legal_leads(seen.hand, seen.trump)]
    else:
        follows = legal_follows(seen.hand, seen.lead, seen.trump)
        plays = None if follows is None else [ids(cards) for cards in follows]
    return request.model_copy(update={"legal_plays": plays})


CHECK: Final = CheckPositions(positions=POSITIONS, judge=judge, listed=listed)
"""What ``arena agent check`` asks of a Tractor agent, and how it judges the replies."""
