"""What each seat may know of a Tractor round, as protocol messages.

Every message to an agent is built here from the engine's :func:`seat_view` of that
seat (its own hand, the kitty only for the banker, every card played, counts) or from a
public record: a request cannot carry a card its receiver may not know.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from arena.games.tractor.engine import (
    TRUMP,
    Declaration,
    Round,
    RoundScore,
    Strength,
    TractorRules,
    TrickWon,
    TrumpLocked,
    card_text,
    legal_follows,
    legal_leads,
    seat_view,
    team_of,
)
from arena.games.tractor.engine.cards import SUIT_LETTERS, rank_text
from arena.games.tractor.messages import (
    BuryRequest,
    Deal,
    DeclarationOption,
    Declared,
    DeclareRequest,
    FollowShape,
    GameOver,
    Lead,
    PlayedCards,
    PlayRequest,
    RoundResult,
    TableRules,
    ThrowPunishedMessage,
    TrickWonMessage,
    TrumpCandidateMessage,
    TrumpLockedMessage,
)
from protocol._trusted import trusted

__all__ = [
    "STRENGTH_NAMES",
    "TractorViews",
    "agent_seeds",
    "group_letter",
    "ids",
    "level_text",
    "suit_letter",
    "table_rules",
]

STRENGTH_NAMES: dict[Strength, str] = {
    Strength.LEVEL_SINGLE: "level_single",
    Strength.LEVEL_PAIR: "level_pair",
    Strength.RANK_SMALL_JOKER: "small_joker",
    Strength.RANK_BIG_JOKER: "big_joker",
    Strength.SMALL_JOKER_PAIR: "small_joker_pair",
    Strength.BIG_JOKER_PAIR: "big_joker_pair",
}
"""A declaration's strength as the wire names it."""


def ids(cards: Sequence[int]) -> list[str]:
    """Cards as wire ids."""
    return [card_text(c) for c in cards]


def level_text(level: int) -> str:
    """A level as the wire writes it: ``"2"`` .. ``"10"``, ``"J"`` .. ``"A"``."""
    return rank_text(level)


def suit_letter(suit: int | None) -> str | None:
    """A suit as its letter (``"H"``), None as None (no trump)."""
    return None if suit is None else SUIT_LETTERS[suit]


def group_letter(group: int) -> str:
    """A suit group as the wire writes it: a suit letter, or ``"TRUMP"``."""
    return "TRUMP" if group == TRUMP else SUIT_LETTERS[group]


def table_rules(rules: TractorRules) -> TableRules:
    """The rules in force as a DEAL tells them (the kitty's size resolved)."""
    return trusted(
        TableRules,
        players=rules.players,
        kitty=rules.kitty_size,
        deal_steps=rules.deal_steps,
        play_through=rules.play_through,
        round_limit=rules.round_limit,
    )


def agent_seeds(round_seed: int, players: int) -> tuple[int, ...]:
    """Each seat's own seed for a round (DEAL's ``seed``), 52 bits each: a one-way hash
    of the round's seed, which deals every hand and so is never told."""
    digest = hashlib.sha256(f"tractor-arena agent seeds {round_seed}".encode()).digest()
    return tuple(int.from_bytes(digest[i * 5 : i * 5 + 7], "big") >> 4 for i in range(players))


class TractorViews:
    """Builds the messages of one table's seats (see the module).

    ``listing`` says, per seat, whether its PLAY_REQUESTs carry ``legal_plays``.
    """

    def __init__(self, names: tuple[str, ...], *, listing: Sequence[bool]) -> None:
        self.names = names
        self.listing = tuple(bool(asked) for asked in listing)
        self.context: dict[str, Any] = {"match_id": None, "table_id": None, "round_no": None}
        """Which match, table and round every message belongs to."""
        n = len(names)
        self.teams = [[names[s] for s in range(n) if s % 2 == team] for team in (0, 1)]
        self._rules: TableRules | None = None
        self._seeds: tuple[int, ...] = ()
        self._played: list[PlayedCards] = []
        """The round's plays as wire records, built once each."""

    def new_match(self, match_id: str | None, table_id: str) -> None:
        """Name the match and table that the messages from now on belong to."""
        self.context = {"match_id": match_id, "table_id": table_id, "round_no": None}

    def new_round(self, round_no: int, *, seed: int, rules: TractorRules) -> None:
        """A round begins: messages name it; each seat's seed is drawn from ``seed``."""
        self.context = {**self.context, "round_no": round_no}
        if self._rules is None:
            self._rules = table_rules(rules)
        self._seeds = agent_seeds(seed, len(self.names))
        self._played = []

    # --- records --------------------------------------------------------------------

    def declared(self, declaration: Declaration) -> Declared:
        """A declaration as the wire writes it."""
        return trusted(
            Declared,
            player=self.names[declaration.seat],
            cards=ids(declaration.cards),
            strength=STRENGTH_NAMES[declaration.strength],
            suit=suit_letter(declaration.suit),
        )

    def record_play(self, seat: int, cards: Sequence[int]) -> PlayedCards:
        """A play as a wire record, kept for every later request's ``played``."""
        record = trusted(PlayedCards, player=self.names[seat], cards=ids(cards))
        self._played.append(record)
        return record

    def _lead(self, rnd: Round) -> Lead | None:
        lead = rnd.lead
        if lead is None or not rnd.trick:
            return None
        seat = rnd.trick[0][0]
        return trusted(
            Lead,
            player=self.names[seat],
            cards=ids(lead.cards),
            kind=lead.kind.value,
            suit_group=group_letter(lead.group),
            shape=list(lead.shape),
        )

    # --- engine → agent -------------------------------------------------------------

    def deal(self, rnd: Round, seat: int) -> Deal:
        """The round's DEAL for ``seat``: its cards so far, seats, teams and levels."""
        hand = rnd.revealed(seat)
        assert self._rules is not None
        return trusted(
            Deal,
            player_id=self.names[seat],
            hand=ids(hand),
            hand_count=len(hand),
            seat=seat,
            seat_order=list(self.names),
            teams=[list(t) for t in self.teams],
            team=team_of(seat),
            levels=[level_text(x) for x in rnd.levels],
            level=level_text(rnd.level),
            banker=None if rnd.banker is None else self.names[rnd.banker],
            rules=self._rules,
            seed=self._seeds[seat],
            **self.context,
        )

    def declare_request(
        self, rnd: Round, seat: int, *, time_limit_ms: int, request_id: str
    ) -> DeclareRequest:
        """A declaration window's question to ``seat``."""
        view = seat_view(rnd, seat)
        best = view.candidate
        options = [
            trusted(
                DeclarationOption,
                cards=ids(option.cards),
                strength=STRENGTH_NAMES[option.strength],
                suit=suit_letter(option.suit),
            )
            for option in rnd.declaration_options(seat)
        ]
        return trusted(
            DeclareRequest,
            player_id=self.names[seat],
            hand=ids(view.hand),
            level=level_text(view.level),
            window=rnd.declaring.windows + 1,
            deal_step=rnd.declaring.step,
            deal_steps=rnd.rules.deal_steps,
            candidate=None if best is None else self.declared(best),
            options=options,
            required=rnd.requirement(seat),
            time_limit_ms=time_limit_ms,
            request_id=request_id,
            **self.context,
        )

    def trump_candidate(self, declaration: Declaration, window: int) -> TrumpCandidateMessage:
        """The window's strongest declaration, told every seat."""
        return trusted(
            TrumpCandidateMessage,
            candidate=self.declared(declaration),
            window=window,
            **self.context,
        )

    def trump_locked(self, locked: TrumpLocked, kitty_count: int) -> TrumpLockedMessage:
        """Trump fixed, told every seat."""
        names = self.names
        return trusted(
            TrumpLockedMessage,
            level=level_text(locked.level),
            trump_suit=suit_letter(locked.suit),
            declarer=None if locked.declarer is None else names[locked.declarer],
            banker=names[locked.banker],
            banker_team=team_of(locked.banker),
            kitty_count=kitty_count,
            **self.context,
        )

    def bury_request(self, rnd: Round, *, time_limit_ms: int, request_id: str) -> BuryRequest:
        """The banker's question: its hand with the kitty, and how many to bury."""
        banker = rnd.banker
        assert banker is not None
        assert rnd.trump is not None
        view = seat_view(rnd, banker)
        return trusted(
            BuryRequest,
            player_id=self.names[banker],
            hand=ids(view.hand),
            kitty=ids(rnd.kitty),
            count=len(rnd.kitty),
            level=level_text(rnd.level),
            trump_suit=suit_letter(rnd.trump.suit),
            required=rnd.requirement(banker),
            time_limit_ms=time_limit_ms,
            request_id=request_id,
            **self.context,
        )

    def play_request(
        self, rnd: Round, seat: int, *, time_limit_ms: int, request_id: str
    ) -> PlayRequest:
        """``seat``'s turn to lead or follow, from its own view."""
        view = seat_view(rnd, seat)
        names = self.names
        trump = rnd.trump
        assert trump is not None
        assert view.banker is not None
        lead = self._lead(rnd)
        rule = view.follow
        follow = None
        if rule is not None:
            follow = trusted(
                FollowShape,
                suit_group=group_letter(rule.group),
                count=rule.count,
                held=rule.held,
                void=rule.void,
                short=rule.short,
                tractors=list(rule.tractors),
                pairs=rule.pairs,
            )
        legal: list[list[str]] | None = None
        if self.listing[seat]:
            legal = self._legal_plays(rnd, seat)
        trick_start = len(self._played) - len(rnd.trick)
        return trusted(
            PlayRequest,
            player_id=names[seat],
            hand=ids(view.hand),
            leading=lead is None,
            lead=lead,
            trick=self._played[trick_start:],
            follow=follow,
            required=rnd.requirement(seat),
            level=level_text(view.level),
            trump_suit=suit_letter(view.trump_suit),
            banker=names[view.banker],
            team=team_of(seat),
            teams=[list(t) for t in self.teams],
            levels=[level_text(x) for x in view.levels],
            defender_points=view.defender_points,
            tricks_done=rnd.tricks_done,
            cards_left={names[s]: n for s, n in enumerate(view.counts)},
            kitty_count=view.kitty_count,
            buried=None if view.buried is None else ids(view.buried),
            played=list(self._played),
            audience=None,
            legal_plays=legal,
            time_limit_ms=time_limit_ms,
            request_id=request_id,
            **self.context,
        )

    def _legal_plays(self, rnd: Round, seat: int) -> list[list[str]] | None:
        """Every legal play when few enough to list (leads: every single, pair and
        tractor; a throw is legal too, and not listed); None when too many."""
        trump = rnd.trump
        assert trump is not None
        hand = rnd.hands[seat]
        if rnd.lead is None:
            return [ids(play.cards) for play in legal_leads(hand, trump)]
        follows = legal_follows(hand, rnd.lead, trump)
        return None if follows is None else [ids(cards) for cards in follows]

    def throw_punished(
        self, seat: int, original: Sequence[int], punished: Sequence[int], reason: str
    ) -> ThrowPunishedMessage:
        """A throw that did not stand, told every seat."""
        return trusted(
            ThrowPunishedMessage,
            player=self.names[seat],
            original=ids(original),
            punished=ids(punished),
            reason=reason,
            **self.context,
        )

    def trick_won(self, won: TrickWon, defender_points: int) -> TrickWonMessage:
        """A trick's plays and winner, told every seat."""
        names = self.names
        return trusted(
            TrickWonMessage,
            winner=names[won.seat],
            trick_no=won.trick,
            plays=self._played[-len(names) :],  # a trick is a play of every seat
            points=won.points,
            counted=won.counted,
            defender_points=defender_points,
            **self.context,
        )

    def round_result(
        self,
        score: RoundScore,
        kitty: Sequence[int],
        deltas: Sequence[int],
        totals: Sequence[int],
        *,
        game_over: bool,
    ) -> RoundResult:
        """The round's end, told every seat (the buried kitty shown to all)."""
        names = self.names
        up = score.up_team
        return trusted(
            RoundResult,
            banker=names[score.banker],
            banker_team=team_of(score.banker),
            trick_points=score.trick_points,
            kitty=ids(kitty),
            kitty_points=score.kitty_points,
            multiplier=score.multiplier,
            defender_points=score.defender_points,
            last_trick_winner=names[score.last_winner],
            up_team=up,
            level_from=level_text(score.levels_before[up]),
            level_to=level_text(score.levels_after[up]),
            delta=score.delta,
            levels_before=[level_text(x) for x in score.levels_before],
            levels_after=[level_text(x) for x in score.levels_after],
            next_banker=names[score.next_banker],
            score_deltas=dict(zip(names, deltas, strict=True)),
            total_scores=dict(zip(names, totals, strict=True)),
            game_over=game_over,
            **self.context,
        )

    def game_over(
        self, winner: int | None, levels: tuple[int, int], rounds_played: int
    ) -> GameOver:
        """The match won by the level rule or decided at the round limit."""
        return trusted(
            GameOver,
            winner_team=winner,
            winners=[] if winner is None else list(self.teams[winner]),
            levels=[level_text(x) for x in levels],
            teams=[list(t) for t in self.teams],
            rounds_played=rounds_played,
            **self.context,
        )
