"""升级's public snapshot of a table: what a late subscriber needs to be current at once.

An MQTT subscriber (or the overlay) that joins in the middle of a match has missed the
events that set the board up: the teams' levels, the trump and who declared it, the
banker, the points the defenders have won, the trick on the table. :class:`TractorPublicState`
folds a table's public events, as the table emits them, into one JSON-ready snapshot
(retained on the broker, sent to an overlay first), with the keys every game shares
(:mod:`arena.sinks.public_state`) and Tractor's own:

- ``phase`` (``declaring``, ``burying``, ``playing``, ``settled``; None before a round),
  ``teams`` (the seats of team 0 and of team 1), ``levels`` (both teams' levels, 2..14,
  14 = A, as the events give them), ``level`` (the round's), ``banker``;
- ``candidate`` (while declaring: the strongest declaration so far, its ``seat``,
  ``player``, ``cards``, ``strength``, ``suit``, ``window``), ``declaring`` (the open
  window: its number, deadline and the seats asked and answered: every seat is asked
  at once, so ``turn`` stays None meanwhile), ``trump`` (once locked: ``suit``, a suit
  letter or None for no trump, ``declarer`` and its ``player``, ``cards`` of the
  declaration that locked it), ``kitty_count``;
- ``defender_points``, ``tricks_done``, ``trick`` (the current trick: ``no``, ``leader``,
  ``lead``, ``plays`` in order, and ``seat``, the last seat to play), ``last_trick`` (the
  last one won: its plays, ``winner``, ``points``, ``counted``), ``punished`` (the
  throws of the current trick that did not stand, as ``throw_punished`` said them);
- each seat's ``team``, ``cards_left``, last ``action`` (its declaration, its burial or
  its play in the current trick), ``declared`` (its declaration this round), comment
  and emotion;
- ``result`` (the round's end: points, the kitty shown, the multiplier, the level
  change) and ``game_over`` (the winning team and the final levels).

Only public events go in, and only what they say comes out: cards are the ids the
events carry (``D1_H_10``); no hand is ever in the snapshot. What the events have not
said yet is None (a snapshot that joined late knows no hand size until a seat plays).

``seq`` is the number of the last event that changed the snapshot, as for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.events import Event
from arena.games.tractor.public_parts import PublicDeclaring, PublicTricks, fresh
from arena.sinks.public_state import STATE_VERSION, Status

__all__ = ["TractorPublicState"]

_PHASES: Final = {
    "DECLARE_REQUEST": "declaring",
    "BURY_REQUEST": "burying",
    "PLAY_REQUEST": "playing",
}
"""A round's phase, by the request a ``turn_started`` says the seat was asked."""

_MAX_SEATS: Final = 6


@dataclass(slots=True)
class _Seat:
    """One seat as the audience sees it."""

    player: str | None = None
    cards_left: int | None = None
    action: dict[str, Any] | None = None
    declared: dict[str, Any] | None = None
    standin: dict[str, Any] | None = None
    comment: str | None = None
    emotion: str | None = None

    def new_round(self, cards: int | None) -> None:
        self.action = self.declared = None
        self.comment = self.emotion = None
        self.cards_left = cards

    def to_dict(self, index: int, team: int, total: int | None) -> dict[str, Any]:
        return {
            "seat": index,
            "player": self.player,
            "team": team,
            "cards_left": self.cards_left,
            "action": fresh(self.action),
            "declared": fresh(self.declared),
            "standin": fresh(self.standin),
            "comment": self.comment,
            "emotion": self.emotion,
            "total": total,
        }


class TractorPublicState:
    """One Tractor table's public snapshot, kept current by :meth:`apply` (see the module).

    Sync and cheap: a sink calls :meth:`apply` for every event and :meth:`snapshot` only
    when it publishes.
    """

    def __init__(self, table: str, *, run_id: str, match_id: str | None = None) -> None:
        self.table = table
        self.run_id = run_id
        self.match_id = match_id
        self.status: Status = "waiting"
        self.seq: int | None = None
        self._seen: int | None = None
        self._complete = False
        self._rounds: int | None = None
        self._rules: Mapping[str, Any] = {}
        self._teams: list[list[int]] | None = None
        self._totals: dict[str, int] = {}
        self._rounds_won: dict[str, int] | None = None
        self._standings: list[dict[str, Any]] | None = None
        self._levels: list[int] | None = None
        self._game_over: dict[str, Any] | None = None
        self._seats: list[_Seat] = []
        self._new_round(0)
        self._handlers: dict[str, Callable[[Event], None]] = {
            "match_started": self._match_started,
            "round_started": self._round_started,
            "turn_started": self._turn_started,
            "declare": self._declare,
            "trump_candidate": self._trump_candidate,
            "deal_step": self._deal_step,
            "trump_locked": self._trump_locked,
            "kitty_taken": self._kitty_taken,
            "bury": self._bury,
            "throw_punished": self._throw_punished,
            "play": self._play,
            "trick_won": self._trick_won,
            "seat_replaced": self._seat_replaced,
            "round_result": self._round_result,
            "game_over": self._game_over_event,
            "match_ended": self._match_ended,
        }

    # --- folding events -----------------------------------------------------------------

    def apply(self, event: Event) -> bool:
        """Fold one event in; True when the snapshot changed.

        Events of another table, unknown types, and an event already applied (its ``seq``
        not above the last one seen) change nothing. A ``match_started`` always applies.
        """
        if event.table != self.table:
            return False
        seen = self._seen
        kind = event.type
        if seen is not None and event.seq <= seen and kind != "match_started":
            return False
        if seen is not None and event.seq != seen + 1:
            self._complete = False  # a gap: something was missed
        self._seen = event.seq
        handler = self._handlers.get(kind)
        if handler is None:
            return False
        if kind != "match_started":
            if self.status == "waiting":
                self.status = "live"
            if event.round != self._round and kind != "round_started":
                self._new_round(event.round)  # joined in the middle of a round
            if event.seat is not None and event.player is not None:
                seat = self._seat(event.seat)
                if seat is not None:
                    seat.player = event.player
        handler(event)
        self.seq = event.seq
        return True

    def _seat(self, index: object) -> _Seat | None:
        """The seat at ``index``, made when a late snapshot first hears of it."""
        if not isinstance(index, int) or not 0 <= index < _MAX_SEATS:
            return None
        seats = self._seats
        while len(seats) <= index:
            seats.append(_Seat())
        return seats[index]

    def _new_round(self, round_no: int) -> None:
        self._round = round_no
        self._phase: str | None = None
        self._level: int | None = None
        self._banker: int | None = None
        self._declaring = PublicDeclaring()
        self._kitty_count: int | None = None
        self._tricks = PublicTricks()
        self._turn: dict[str, Any] | None = None
        self._result: dict[str, Any] | None = None
        for seat in self._seats:
            seat.new_round(None)

    def _match_started(self, event: Event) -> None:
        data = event.data
        self.status = "live"
        self.match_id = data.get("match_id", self.match_id)
        self._complete = True
        self._rounds = data.get("rounds")
        rules = data.get("rules")
        self._rules = dict(rules) if isinstance(rules, Mapping) else {}
        teams = self._rules.get("teams")
        self._teams = [list(t) for t in teams] if isinstance(teams, list) else None
        players = list(data.get("players", ()))
        self._totals = dict.fromkeys(players, 0)
        self._rounds_won = self._standings = None
        self._levels = None
        self._game_over = None
        self._seats = [_Seat(player=p) for p in players[:_MAX_SEATS]]
        self._new_round(0)

    def _round_started(self, event: Event) -> None:
        data = event.data
        self._new_round(event.round)
        players = list(data.get("players", ()))
        for index, player in enumerate(players):
            seat = self._seat(index)
            if seat is None:
                continue
            seat.player = player
            if seat.standin is not None and seat.standin.get("until") != "match_end":
                seat.standin = None  # the table gives the seat back at a new round
            self._totals.setdefault(player, 0)
        dealt = data.get("cards", ())
        for index, seat in enumerate(self._seats):
            seat.cards_left = dealt[index] if index < len(dealt) else None
        levels = data.get("levels")
        if isinstance(levels, list) and len(levels) == 2:
            self._levels = list(levels)
        self._level = data.get("level")
        self._banker = data.get("banker")
        self._phase = "declaring"

    def _turn_started(self, event: Event) -> None:
        data = event.data
        request = data.get("request")
        if isinstance(request, str):
            self._phase = _PHASES.get(request, self._phase)
        if request == "DECLARE_REQUEST":  # a window: every seat asked at once
            self._declaring.asked(event)
            self._turn = None
            return
        self._turn = {
            "seat": event.seat,
            "player": event.player,
            "request": request,
            "agent": data.get("agent"),
            "time_limit_ms": data.get("time_limit_ms"),
            "deadline_at": data.get("deadline_at"),
        }

    def _acted(self, event: Event, action: dict[str, Any]) -> _Seat | None:
        """What every action does: the seat's action, comment and mood; its turn ends."""
        turn = self._turn
        if turn is not None and turn["seat"] == event.seat:
            self._turn = None
        target = self._seat(event.seat)
        if target is None:
            return None
        target.action = action
        target.comment = event.data.get("comment")
        target.emotion = event.data.get("emotion")
        return target

    def _declare(self, event: Event) -> None:
        data = event.data
        self._phase = "declaring"
        cards = list(data.get("cards", ()))
        declared = bool(data.get("declared"))
        window = data.get("window")
        target = self._acted(
            event, {"type": "declare", "cards": cards, "declared": declared, "window": window}
        )
        if target is not None and declared:
            target.declared = {"cards": list(cards), "window": window}
        self._declaring.answered(event)

    def _trump_candidate(self, event: Event) -> None:
        self._declaring.candidate_made(event)

    def _deal_step(self, event: Event) -> None:
        counts = event.data.get("cards", ())
        for index, count in enumerate(counts):
            seat = self._seat(index)
            if seat is not None:
                seat.cards_left = count

    def _trump_locked(self, event: Event) -> None:
        data = event.data
        declarer = data.get("declarer")
        names = [seat.player for seat in self._seats]
        self._declaring.locked(event, _name(names, declarer) if isinstance(declarer, int) else None)
        self._level = data.get("level", self._level)
        self._banker = data.get("banker", event.seat)
        self._kitty_count = data.get("kitty_count")
        self._phase = "burying"
        for seat in self._seats:
            seat.action = None  # the declaring is over: its words leave the seats

    def _kitty_taken(self, event: Event) -> None:
        seat = self._seat(event.seat)
        count = event.data.get("count")
        if seat is not None and seat.cards_left is not None and isinstance(count, int):
            seat.cards_left += count
        self._phase = "burying"

    def _bury(self, event: Event) -> None:
        count = event.data.get("count")
        target = self._acted(event, {"type": "bury", "count": count})
        if target is not None and target.cards_left is not None and isinstance(count, int):
            target.cards_left -= count
        if isinstance(count, int):
            self._kitty_count = count

    def _throw_punished(self, event: Event) -> None:
        self._tricks.throw_punished(event)

    def _play(self, event: Event) -> None:
        data = event.data
        if self._phase != "playing":
            self._phase = "playing"
            for seat in self._seats:
                seat.action = None
        action: dict[str, Any] = {
            "type": "play",
            "cards": list(data.get("cards", ())),
            "kind": data.get("kind"),
            "suit_group": data.get("suit_group"),
            "punished": bool(data.get("punished", False)),
        }
        target = self._acted(event, action)
        if target is not None:
            target.cards_left = data.get("cards_left", target.cards_left)
        self._tricks.play(event)

    def _trick_won(self, event: Event) -> None:
        self._tricks.won(event)
        for seat in self._seats:
            seat.action = None

    def _seat_replaced(self, event: Event) -> None:
        seat = self._seat(event.seat)
        if seat is not None:
            data = event.data
            seat.standin = {
                "by": data.get("by"),
                "until": data.get("until"),
                "reason": data.get("reason"),
            }

    def _round_result(self, event: Event) -> None:
        data = event.data
        result: Mapping[str, Any] = data.get("result", {})
        scores: Mapping[str, int] = data.get("scores", {})
        self._phase = "settled"
        self._turn = self._declaring.window = self._tricks.trick = None
        if "totals" in data:
            self._totals = dict(data["totals"])
        else:
            for player, score in scores.items():
                self._totals[player] = self._totals.get(player, 0) + score
        self._name_seats(data.get("players", ()))
        names = [seat.player for seat in self._seats]
        levels_after = result.get("levels_after")
        if isinstance(levels_after, list) and len(levels_after) == 2:
            self._levels = list(levels_after)
        if "defender_points" in result:
            self._tricks.defender_points = result["defender_points"]
        banker = result.get("banker")
        self._result = {
            "banker": banker,
            "banker_team": None if not isinstance(banker, int) else self._team_of(banker),
            "trick_points": result.get("trick_points"),
            "kitty": list(result.get("kitty", ())),
            "kitty_points": result.get("kitty_points"),
            "multiplier": result.get("multiplier"),
            "defender_points": result.get("defender_points"),
            "last_trick_winner": result.get("last_trick_winner"),
            "up_team": result.get("up_team"),
            "delta": result.get("delta"),
            "levels_before": _list(result.get("levels_before")),
            "levels_after": _list(levels_after),
            "next_banker": result.get("next_banker"),
            "winners": [_name(names, s) for s in result.get("winners", ())],
            "match_over": result.get("match_over"),
            "winner_team": result.get("winner_team"),
            "scores": dict(scores),
            "standins": list(data.get("standins", ())),
        }

    def _game_over_event(self, event: Event) -> None:
        data = event.data
        levels = data.get("levels")
        if isinstance(levels, list) and len(levels) == 2:
            self._levels = list(levels)
        self._game_over = {
            "winner_team": data.get("winner_team"),
            "levels": _list(levels),
            "rounds": data.get("rounds"),
            "points": _list(data.get("points")),
        }

    def _match_ended(self, event: Event) -> None:
        data = event.data
        self.status = "ended"
        self._turn = self._declaring.window = None
        self._totals = dict(data.get("totals", self._totals))
        self._rounds_won = dict(data.get("rounds_won", {}))
        self._name_seats(data.get("players", ()))
        self._standings = [dict(s) for s in data.get("standings", ())]
        for seat in self._seats:
            seat.standin = None

    def _name_seats(self, players: Sequence[Any]) -> None:
        """Seats whose player is not known yet (a state that joined late) get theirs."""
        for index, player in enumerate(players):
            seat = self._seat(index)
            if seat is not None and seat.player is None:
                seat.player = player

    # --- the snapshot -------------------------------------------------------------------

    def _team_of(self, seat: int) -> int:
        """A seat's team: as ``match_started`` listed them, else by seat parity (the
        game's rule, docs/rules-tractor.md)."""
        for team, seats in enumerate(self._teams or ()):
            if seat in seats:
                return team
        return seat % 2

    def _team_seats(self) -> list[list[int]]:
        if self._teams is not None:
            return [list(t) for t in self._teams]
        n = len(self._seats)
        return [[s for s in range(n) if s % 2 == team] for team in (0, 1)]

    def snapshot(self) -> dict[str, Any]:
        """The table as a late subscriber should first see it: JSON-ready, fresh objects
        (no later :meth:`apply` changes them), keys always in the same order."""
        totals = self._totals
        return {
            "v": STATE_VERSION,
            "table": self.table,
            "run": self.run_id,
            "match_id": self.match_id,
            "status": self.status,
            "complete": self._complete,
            "seq": self.seq,
            "round": self._round,
            "rounds": self._rounds,
            "phase": self._phase,
            "seats": [
                seat.to_dict(i, self._team_of(i), totals.get(seat.player) if seat.player else None)
                for i, seat in enumerate(self._seats)
            ],
            "teams": self._team_seats(),
            "levels": _list(self._levels),
            "level": self._level,
            "banker": self._banker,
            **self._declaring.snapshot(),
            "kitty_count": self._kitty_count,
            **self._tricks.snapshot(),
            "turn": fresh(self._turn),
            "result": fresh(self._result),
            "game_over": fresh(self._game_over),
            "totals": dict(totals),
            "rounds_won": fresh(self._rounds_won),
            "standings": fresh(self._standings),
        }


def _name(names: Sequence[str | None], seat: object) -> str:
    """A seat's player, or the seat's number as text when its player is not known."""
    name = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else None
    return name if name is not None else str(seat)


def _list(value: object) -> list[Any] | None:
    return list(value) if isinstance(value, list) else None
