"""What a seat can work out from a PLAY_REQUEST alone: which cards are still unseen, who
has shown a void, who sits after it in the trick, who is winning the trick and whether
that lead can still be taken.

A scripted player counts cards the way people do: every card it neither holds nor saw
played (nor buried, for the banker) is *unseen*, and may be in any other hand or the
kitty. "No unseen card beats it" is therefore a proof that nobody can beat it in its suit
group, the test a throw must pass to stand (docs/rules-tractor.md). A seat that followed
a lead with fewer of the lead's group than the lead had played all it had: it is void
there, and may ruff.

Built once per request from the request's ``played``; the part read from the history is
kept between the requests of one round and only the new plays are read again (a round's
last requests carry about a hundred plays).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from arena.games.tractor.agents.base import Reading
from arena.games.tractor.engine import (
    TRUMP,
    Kind,
    Play,
    beaten_part,
    card_ids,
    classify,
    trick_winner,
)
from arena.games.tractor.engine.cards import CARD_COUNT, POINTS
from arena.games.tractor.messages import PlayedCards, PlayRequest

__all__ = ["History", "Knowledge", "seat_order"]


def seat_order(teams: Sequence[Sequence[str]]) -> tuple[str, ...]:
    """The seats in play order: teams are by seat parity, so the order interleaves them."""
    n = len(teams[0]) + len(teams[1])
    return tuple(teams[i % 2][i // 2] for i in range(n))


@dataclass(slots=True)
class History:
    """What the round's completed plays told: the cards out, and each seat's voids."""

    key: tuple[object, ...]
    """The round this history is of (match, table, round, banker)."""
    read: int = 0
    """How many plays of the round's ``played`` were read."""
    last: PlayedCards | None = None
    """The last play read, to tell that the next request continues this round."""
    out: set[int] = field(default_factory=set)
    """Every card played so far."""
    voids: dict[str, set[int]] = field(default_factory=dict)
    """Each seat's suit groups it showed it has none of."""

    def continues(self, key: tuple[object, ...], played: Sequence[PlayedCards]) -> bool:
        """Whether ``played`` is this round's, with the plays read still at its start."""
        if key != self.key or len(played) < self.read:
            return False
        return self.read == 0 or played[self.read - 1] == self.last

    def take(self, played: Sequence[PlayedCards], players: int, group: Sequence[int]) -> None:
        """Read the plays after those already read (each complete trick's follows show
        voids; the trick in progress only adds its cards)."""
        plays = played[self.read :]
        start = self.read
        lead_group = -1
        lead_count = 0
        for offset, record in enumerate(plays):
            cards = card_ids(record.cards)
            self.out.update(cards)
            place = (start + offset) % players
            if place == 0:
                lead_group = group[cards[0]]
                lead_count = len(cards)
            elif lead_group < 0:  # a trick begun before this batch: find its lead
                first = start + offset - place
                lead = card_ids(played[first].cards)
                lead_group, lead_count = group[lead[0]], len(lead)
                if sum(1 for c in cards if group[c] == lead_group) < lead_count:
                    self.voids.setdefault(record.player, set()).add(lead_group)
            elif sum(1 for c in cards if group[c] == lead_group) < lead_count:
                self.voids.setdefault(record.player, set()).add(lead_group)
        self.read = len(played)
        self.last = played[-1] if played else None


@dataclass(frozen=True, slots=True)
class Knowledge:
    """One request's view of the table (see the module)."""

    reading: Reading
    me: str
    order: tuple[str, ...]
    partners: frozenset[str]
    """This seat's team-mates (not itself)."""
    opponents: frozenset[str]
    bankers: bool
    """Whether this seat's team holds the bank."""
    unseen: tuple[tuple[int, ...], ...]
    """The unseen cards of each suit group (0..3, then trumps at index 4)."""
    voids: dict[str, set[int]]
    after: tuple[str, ...]
    """The seats still to play in this trick after this one."""
    plays: tuple[Play, ...]
    """The trick's plays so far, classified (the lead first)."""
    best: int
    """The index in ``plays`` of the play winning the trick so far (-1 when leading)."""
    points: int
    """The points in the trick so far."""

    @property
    def winner(self) -> str | None:
        """The seat winning the trick so far (None when leading)."""
        return None if self.best < 0 else self.reading.trick[self.best][0]

    @property
    def best_play(self) -> Play | None:
        """The play winning the trick so far."""
        return None if self.best < 0 else self.plays[self.best]

    def opponents_after(self) -> tuple[str, ...]:
        """The opponents still to play in this trick."""
        return tuple(p for p in self.after if p in self.opponents)

    def void_opponents(self, group: int, seats: Sequence[str] | None = None) -> bool:
        """Whether an opponent (of ``seats``, default all) showed a void in ``group``."""
        voids = self.voids
        return any(group in voids.get(p, ()) for p in (seats or self.opponents))

    def unbeatable(self, play: Play) -> bool:
        """Whether no unseen cards of ``play``'s group hold a higher part of any of its
        parts: nobody can beat it in its group (a ruff aside)."""
        return beaten_part(play, (self.unseen[play.group],), self.reading.trump) is None

    def holds(self, play: Play, lead: Play) -> bool:
        """Whether ``play``, winning a trick led by ``lead``, will still win it when the
        seats after this one have played: nobody unseen beats it in its group, and (when
        it is in a plain suit, or a ruff) no opponent still to play showed a void."""
        after = self.opponents_after()
        if not after:
            return True
        trumps_left = bool(self.unseen[TRUMP])
        if play.kind is Kind.THROW and play.cards == lead.cards:
            # a lead that stood: no opponent holds a higher part in its group
            return lead.group == TRUMP or not (
                trumps_left and self.void_opponents(lead.group, after)
            )
        if play.group != TRUMP:
            return self.unbeatable(play) and not (
                trumps_left and self.void_opponents(lead.group, after)
            )
        if lead.group == TRUMP:
            return self.unbeatable(play)
        # a ruff: only an opponent void in the lead's group can overruff
        return self.unbeatable(play) or not self.void_opponents(lead.group, after)


def know(
    request: PlayRequest, reading: Reading, history: History | None
) -> tuple[Knowledge, History]:
    """The :class:`Knowledge` of one request, and the round's history brought up to date
    (``history``, when it is of this round, is extended in place; else a new one)."""
    trump = reading.trump
    group = trump.group
    key = (request.match_id, request.table_id, request.round_no, request.banker)
    order = seat_order(request.teams)
    players = len(order)
    if history is None or not history.continues(key, request.played):
        history = History(key)
    history.take(request.played, players, group)
    me = request.player_id
    mine = request.teams[request.team]
    partners = frozenset(p for p in mine if p != me)
    opponents = frozenset(request.teams[1 - request.team])
    known = set(history.out)
    known.update(reading.hand)
    if request.buried:
        known.update(card_ids(request.buried))
    unseen: list[list[int]] = [[], [], [], [], []]
    for card in range(CARD_COUNT):
        if card not in known:
            unseen[group[card]].append(card)
    at = order.index(me) if me in order else 0
    left = players - len(reading.trick) - 1
    after = tuple(order[(at + k) % players] for k in range(1, left + 1))
    plays = tuple(classify(cards, trump) for _, cards in reading.trick)
    best = trick_winner(plays) if plays else -1
    points = sum(POINTS[c] for _, cards in reading.trick for c in cards)
    knowledge = Knowledge(
        reading=reading,
        me=me,
        order=order,
        partners=partners,
        opponents=opponents,
        bankers=request.banker in mine,
        unseen=tuple(tuple(u) for u in unseen),
        voids=history.voids,
        after=after,
        plays=plays,
        best=best,
        points=points,
    )
    return knowledge, history
