"""One round (一局) of Tractor as a pure state machine: deal, declare, bury, play, score.

The round never waits and never does I/O. The table asks it what is to be decided and
feeds the decisions back: a declaration window's replies, all at once
(:meth:`Round.declare`), the banker's buried cards (:meth:`Round.bury`), then one play
at a time (:meth:`Round.play`). An illegal action raises
:class:`~arena.errors.IllegalActionError` with a reason an agent can act on, and changes
nothing. Every action is kept (:attr:`Round.actions`): the same seed and actions replay
the same round.

Every one of the 108 cards is always in exactly one place: a hand (dealt, not yet
revealed ones included), the kitty, the buried cards, or the tricks played. A viewer's
换牌 reaches the cards only through :meth:`Round.swap_cards`, which keeps it so.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from enum import StrEnum

from arena.errors import IllegalActionError, SetupError
from arena.games.tractor.engine.cards import (
    DECK,
    POINTS,
    faces_text,
    rank_text,
    resolve_cards,
    shuffled_deck,
)
from arena.games.tractor.engine.declaring import (
    Declaration,
    Declaring,
    declaration_of,
    declarations,
)
from arena.games.tractor.engine.follow import FollowRule, check_follow, follow_rule
from arena.games.tractor.engine.legal import LEAD_RULE, fallback_bury, fallback_play
from arena.games.tractor.engine.patterns import Kind, Play, classify
from arena.games.tractor.engine.records import (
    Action,
    Buried,
    BuryAction,
    DeclareAction,
    Event,
    KittyTaken,
    PlayAction,
    Played,
    RoundEnded,
    StepRevealed,
    SwapAction,
    ThrowPunished,
    TrickWon,
    TrumpCandidate,
    TrumpLocked,
)
from arena.games.tractor.engine.rules import DEFAULT_RULES, TractorRules
from arena.games.tractor.engine.scoring import RoundScore, settle, team_of
from arena.games.tractor.engine.throws import judge_throw
from arena.games.tractor.engine.tricks import trick_winner
from arena.games.tractor.engine.trump import Trump, trump_context

__all__ = ["Phase", "Round"]


class Phase(StrEnum):
    """Where a round is."""

    DECLARING = "declaring"
    BURYING = "burying"
    PLAYING = "playing"
    FINISHED = "finished"


# Enum members as module constants on the hot paths: on Python 3.11 every ``Phase.X`` is
# a lookup through ``EnumType.__getattr__``, several times slower than a global.
_DECLARING, _BURYING, _PLAYING, _FINISHED = (
    Phase.DECLARING,
    Phase.BURYING,
    Phase.PLAYING,
    Phase.FINISHED,
)
_THROW = Kind.THROW


def _prepared(
    deal: Sequence[Sequence[int]], rules: TractorRules
) -> tuple[list[list[int]], tuple[int, ...]]:
    """A prepared deal checked: each seat's hand, then the kitty, the 108 cards once."""
    *hands, kitty = deal
    sizes = [len(h) for h in hands]
    if len(hands) != rules.players or set(sizes) != {rules.hand_size}:
        raise SetupError(f"a deal is {rules.players} hands of {rules.hand_size}, then the kitty")
    if len(kitty) != rules.kitty_size or sorted(c for part in deal for c in part) != list(DECK):
        raise SetupError(f"a deal holds the 108 cards once, {rules.kitty_size} in the kitty")
    return [list(h) for h in hands], tuple(kitty)


class Round:
    """A round from the deal to the score.

    ``levels`` are the teams' levels (team 0: even seats); the round is played at the
    banker team's. ``banker`` is None in a match's first round: the seat whose
    declaration locks becomes banker (nobody: a seat drawn from the seed), and both
    teams must be at one level. ``tie_after``: equal declarations in one window go to
    the seat nearest after it (the previous banker); None: a seat drawn from the seed.
    ``deal`` plays a prepared deal (each seat's cards in the order dealt, then the
    kitty) instead of the seed's; the seed still draws the seats it draws.
    """

    __slots__ = (
        "_dealt",
        "_drawn_banker",
        "actions",
        "banker",
        "buried",
        "declaring",
        "events",
        "hands",
        "kitty",
        "lead",
        "level",
        "levels",
        "phase",
        "played",
        "result",
        "rules",
        "seed",
        "to_act",
        "trick",
        "trick_points",
        "tricks_done",
        "trump",
    )

    def __init__(
        self,
        rules: TractorRules = DEFAULT_RULES,
        *,
        seed: int,
        levels: tuple[int, int] = (2, 2),
        banker: int | None = None,
        tie_after: int | None = None,
        deal: Sequence[Sequence[int]] | None = None,
    ) -> None:
        n = rules.players
        for name, seat in (("banker", banker), ("tie_after", tie_after)):
            if seat is not None and not 0 <= seat < n:
                raise SetupError(f"{name} must be a seat 0..{n - 1}, got {seat!r}")
        if banker is None and levels[0] != levels[1]:
            raise SetupError("a round without a banker (a match's first) needs equal levels")
        if not all(2 <= level <= 14 for level in levels):
            raise SetupError(f"levels are 2..14 (A), got {levels!r}")
        self.rules = rules
        self.seed = seed
        rng = random.Random(seed)
        deck = shuffled_deck(rng)
        dealt = n * rules.hand_size
        self._dealt = [deck[seat:dealt:n] for seat in range(n)]
        """Each seat's cards in the order dealt (deal steps reveal them in this order)."""
        self.kitty: tuple[int, ...] = tuple(deck[dealt:])
        if deal is not None:
            self._dealt, self.kitty = _prepared(deal, rules)
        self._drawn_banker = rng.randrange(n)
        drawn_tie = rng.randrange(n)
        self.levels = levels
        self.banker = banker
        self.level = levels[0] if banker is None else levels[team_of(banker)]
        self.declaring = Declaring(
            n, tie_after=drawn_tie if tie_after is None else tie_after, steps=rules.deal_steps
        )
        self.hands: list[list[int]] = [list(cards) for cards in self._dealt]
        self.trump: Trump | None = None
        self.buried: tuple[int, ...] = ()
        self.phase = _DECLARING
        self.to_act: int | None = None
        self.lead: Play | None = None
        self.trick: list[tuple[int, Play]] = []
        self.played: list[tuple[int, tuple[int, ...]]] = []
        """Every play so far, in order (public)."""
        self.tricks_done = 0
        self.trick_points = 0
        """Points in the tricks the defenders won so far."""
        self.result: RoundScore | None = None
        self.events: list[Event] = []
        self.actions: list[Action] = []

    # --- reading the state -------------------------------------------------------------

    @property
    def players(self) -> int:
        """Seats at the table."""
        return self.rules.players

    def revealed(self, seat: int) -> tuple[int, ...]:
        """The cards a seat has seen: its whole hand, or while trump is declared under
        ``deal_steps``, the part dealt so far."""
        if self.phase is not _DECLARING:
            return tuple(self.hands[seat])
        cards = self._dealt[seat]
        shown = -(-len(cards) * self.declaring.step // self.rules.deal_steps)
        return tuple(cards[:shown])

    def declaration_options(self, seat: int) -> list[Declaration]:
        """What ``seat`` may declare in the next window (empty outside declaring)."""
        if self.phase is not _DECLARING:
            return []
        return declarations(seat, self.revealed(seat), self.level, self.declaring.best)

    def resolve(self, seat: int, tokens: Sequence[object]) -> tuple[int, ...]:
        """The cards of ``seat``'s hand an agent's tokens name (ids, or faces such as
        ``♥10``, ``H10``, ``大王`` for any copy held); CardResolutionError otherwise."""
        return resolve_cards(tokens, self.revealed(seat))

    def fallback(self) -> tuple[int, ...]:
        """One legal play (or, while burying, a legal bury) for the seat to act, for a
        fallback or a stand-in; () while declaring (a pass)."""
        seat, trump = self.to_act, self.trump
        if seat is None or trump is None:
            return ()
        if self.phase is _BURYING:
            return fallback_bury(self.hands[seat], len(self.kitty), trump)
        return fallback_play(self.hands[seat], self.lead, trump)

    def requirement(self, seat: int) -> str:
        """What ``seat`` is asked for now, as a sentence for a request or a prompt ("" if
        nothing)."""
        if self.phase is _DECLARING:
            best = self.declaring.best
            floor = f", stronger than {faces_text(best.cards)}" if best else ""
            return (
                f"declare trump with a level card ({rank_text(self.level)}) or a pair of "
                f"them, or with jokers for no trump{floor}; or pass"
            )
        if seat != self.to_act:
            return ""
        if self.phase is _BURYING:
            return f"bury {len(self.kitty)} cards of your hand"
        rule = self.follow_rule()
        return LEAD_RULE if rule is None else rule.describe()

    def follow_rule(self) -> FollowRule | None:
        """What the seat to act must play, when it follows a lead."""
        if self.phase is not _PLAYING or self.lead is None or self.to_act is None:
            return None
        return follow_rule(self.hands[self.to_act], self.lead, self._trump())

    def _trump(self) -> Trump:
        trump = self.trump
        if trump is None:
            raise IllegalActionError("trump is not fixed yet")
        return trump

    # --- declaring --------------------------------------------------------------------

    def declaration(self, seat: int, cards: Sequence[int]) -> Declaration:
        """The declaration ``seat`` makes with ``cards`` in the next window, or an
        IllegalActionError saying why it cannot."""
        if self.phase is not _DECLARING:
            raise IllegalActionError("trump is no longer being declared")
        if not 0 <= seat < self.players:
            raise IllegalActionError(f"no seat {seat!r}")
        shown = self.revealed(seat)
        if any(card not in shown for card in cards):
            raise IllegalActionError("declare only with cards dealt to you so far")
        made = declaration_of(seat, cards, self.level)
        if isinstance(made, str):
            raise IllegalActionError(made)
        reason = self.declaring.refusal(made)
        if reason is not None:
            raise IllegalActionError(reason)
        return made

    def declare(self, replies: Mapping[int, Sequence[int] | None]) -> list[Event]:
        """One declaration window: each seat's cards, or None (or absent) for a pass. All
        replies count equally; any illegal one raises and nothing changes."""
        offers = {seat: self.declaration(seat, cards) for seat, cards in replies.items() if cards}
        self.actions.append(DeclareAction({s: d.cards for s, d in offers.items()}))
        start = len(self.events)
        step = self.declaring.step
        candidate = self.declaring.window(offers)
        if candidate is not None:
            self.events.append(TrumpCandidate(candidate, self.declaring.windows))
        if self.declaring.step != step:
            self.events.append(StepRevealed(self.declaring.step))
        if self.declaring.locked:
            self._lock()
        return self.events[start:]

    def _lock(self) -> None:
        best = self.declaring.best
        if self.banker is None:
            self.banker = best.seat if best is not None else self._drawn_banker
        banker = self.banker
        self.trump = trump_context(self.level, best.suit if best is not None else None)
        self.events.append(
            TrumpLocked(self.level, self.trump.suit, best.seat if best else None, banker)
        )
        self.hands[banker].extend(self.kitty)
        self.events.append(KittyTaken(banker, len(self.kitty)))
        self.phase = _BURYING
        self.to_act = banker

    # --- burying ----------------------------------------------------------------------

    def bury(self, cards: Sequence[int]) -> list[Event]:
        """The banker buries as many cards as the kitty had, any of its hand."""
        if self.phase is not _BURYING or self.banker is None:
            raise IllegalActionError("nothing is to be buried now")
        hand = self.hands[self.banker]
        count = len(self.kitty)
        if len(cards) != count or len(set(cards)) != count:
            raise IllegalActionError(f"bury exactly {count} different cards")
        if any(card not in hand for card in cards):
            raise IllegalActionError("bury only cards of your hand")
        self.actions.append(BuryAction(tuple(cards)))
        for card in cards:
            hand.remove(card)
        self.buried = tuple(cards)
        self.phase = _PLAYING
        event = Buried(self.banker, count)
        self.events.append(event)
        return [event]

    # --- playing ----------------------------------------------------------------------

    def refusal(self, seat: int, cards: Sequence[int]) -> str | None:
        """Why ``seat`` may not play ``cards`` now, or None when it may (a throw that
        will be punished is a legal play)."""
        if self.phase is not _PLAYING:
            return "no card is to be played now"
        if seat != self.to_act:
            return f"it is seat {self.to_act}'s turn"
        trump = self._trump()
        hand = self.hands[seat]
        if self.lead is None:
            if not cards:
                return "play at least one card"
            if len(set(cards)) != len(cards) or any(c not in hand for c in cards):
                return "play cards of your own hand, each once"
            if len({trump.group[c] for c in cards}) != 1:
                return "a lead must be of one suit group (one suit, or all trumps)"
            return None
        return check_follow(hand, cards, self.lead, trump)

    def play(self, seat: int, cards: Sequence[int]) -> list[Event]:
        """``seat`` plays ``cards``: a lead (a throw is judged and maybe punished) or a
        follow. Raises IllegalActionError, changing nothing, when it may not."""
        reason = self.refusal(seat, cards)
        if reason is not None:
            raise IllegalActionError(reason)
        trump = self._trump()
        self.actions.append(PlayAction(seat, tuple(cards)))
        start = len(self.events)
        play = classify(cards, trump)
        leading = self.lead is None
        if leading and play.kind is _THROW:
            opponents = [h for s, h in enumerate(self.hands) if team_of(s) != team_of(seat)]
            verdict = judge_throw(play, opponents, trump)
            if verdict is not None:
                self.events.append(
                    ThrowPunished(seat, play.cards, verdict.punished.cards, verdict.reason)
                )
                play = verdict.punished
        if leading:
            self.lead = play
        hand = self.hands[seat]
        for card in play.cards:
            hand.remove(card)
        self.trick.append((seat, play))
        self.played.append((seat, play.cards))
        self.events.append(Played(seat, play, leading))
        if len(self.trick) == self.players:
            self._end_trick()
        else:
            self.to_act = (seat + 1) % self.players
        return self.events[start:]

    # --- a viewer's swap (the gifts layer, at a safe point only) ------------------------

    def swap_refusal(self, seat_a: int, card_a: int, seat_b: int, card_b: int) -> str | None:
        """Why ``card_a`` of ``seat_a`` may not be exchanged for ``card_b`` of ``seat_b``
        now, or None. Only during play, before a trick's lead, between opponents: while
        trump is declared a card swapped could make or break a declaration, while the
        banker buries its hand holds the kitty, and once a lead is played each seat's
        duty to follow it (and the throw's judgement) was fixed by the hands then. The
        refusal never names a card (a gift's reason is public)."""
        if self.phase is not _PLAYING:
            if self.phase is _FINISHED:
                return "the round is over"
            return (
                "cards change hands only during play, not while trump is declared or the "
                "banker buries (the kitty never changes hands)"
            )
        if self.lead is not None:
            return (
                "cards change hands only before a trick's lead: once it is played, what each "
                "seat must follow with was fixed by its hand"
            )
        n = self.players
        if not (0 <= seat_a < n and 0 <= seat_b < n):
            return f"a swap is between two seats 0..{n - 1}"
        if team_of(seat_a) == team_of(seat_b):
            return "a swap is between opponents (partners would be passing cards to each other)"
        for seat, card in ((seat_a, card_a), (seat_b, card_b)):
            if card not in self.hands[seat]:
                return f"the card to swap is not in seat {seat}'s hand"
        return None

    def swap_cards(self, seat_a: int, card_a: int, seat_b: int, card_b: int) -> SwapAction:
        """换牌: ``card_a`` goes to ``seat_b`` and ``card_b`` to ``seat_a``; hand sizes and
        the 108 cards' places stay whole. Kept as an action (a replay applies it again);
        raises IllegalActionError, changing nothing, when :meth:`swap_refusal` says why."""
        reason = self.swap_refusal(seat_a, card_a, seat_b, card_b)
        if reason is not None:
            raise IllegalActionError(reason)
        hand_a, hand_b = self.hands[seat_a], self.hands[seat_b]
        hand_a[hand_a.index(card_a)] = card_b
        hand_b[hand_b.index(card_b)] = card_a
        action = SwapAction((seat_a, seat_b), (card_a, card_b))
        self.actions.append(action)
        return action

    def _end_trick(self) -> None:
        plays = [p for _, p in self.trick]
        winner = self.trick[trick_winner(plays)][0]
        points = sum(POINTS[c] for p in plays for c in p.cards)
        counted = team_of(winner) != team_of(self.banker or 0)
        if counted:
            self.trick_points += points
        self.tricks_done += 1
        self.events.append(TrickWon(winner, points, counted, self.tricks_done))
        last_lead = plays[0].kind
        self.trick = []
        self.lead = None
        self.to_act = winner
        if not self.hands[winner]:
            self._finish(winner, last_lead)

    def _finish(self, last_winner: int, last_lead: Kind) -> None:
        banker = self.banker if self.banker is not None else 0
        self.result = settle(
            players=self.players,
            banker=banker,
            levels=self.levels,
            trick_points=self.trick_points,
            kitty_points=sum(POINTS[c] for c in self.buried),
            last_winner=last_winner,
            last_lead=last_lead,
        )
        self.phase = _FINISHED
        self.to_act = None
        self.events.append(RoundEnded(self.result, self.buried))
