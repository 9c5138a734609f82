"""斗地主's public snapshot of a table: what a late subscriber needs to be current at once.

An MQTT subscriber (or the overlay) that joins in the middle of a match has missed the
events that set the board up: who is landlord, the bottom cards, how many cards each
seat holds, the scores so far. :class:`PublicTableState` folds a table's events, as the
table emits them, into one JSON-ready snapshot that is retained on the broker, so that
the newcomer reads it first and then follows the events.

Only public events go in, and only what they say comes out: hands are never in an event
(a round's ``round_result`` does list the hands left at the end; the snapshot leaves
them out, so that it never holds a card that was not played or shown as a bottom card).
Nothing is inferred about any hand.

What the events cannot say, the snapshot says it does not know (``None``) rather than
guess:

- The multiplier while a round is played counts the bombs and rockets played, the
  grabs and the viewer doubles (翻倍 gifts, each an ``effect_applied`` event) in
  ``common``. A four with two counts as a bomb under the ``quadplex_as_bomb`` rule, but
  no event says so before ``round_result``. Whether a farmer's double counts for one farmer or both
  (``per_defender_doubling``) is a rule no event carries either, so the farmers' own
  multipliers are given only once the round is settled, from ``round_result``, which is
  then authoritative for every figure.
- Running totals are summed from the ``round_result`` events seen; a snapshot that did
  not see the match start (``complete`` false) has the totals of the rounds it saw, until
  ``match_ended`` gives the final ones.

``seq`` is the number of the last event that changed the snapshot: a consumer that
merges the snapshot with the event stream drops events up to it. Events that change
nothing shown (``fault``, ``decision``, ``budget_spent``, unknown types) leave it as is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from arena.events import Event
from arena.sinks.public_state import STATE_VERSION, Status

__all__ = ["PublicTableState"]

_PHASES: Final = {
    "BID_REQUEST": "bidding",
    "DOUBLE_REQUEST": "doubling",
    "PLAY_REQUEST": "playing",
}
"""A round's phase, by the request a ``turn_started`` says the seat was asked."""

_FULL_HAND: Final = 17
_LANDLORD_HAND: Final = 20


@dataclass(slots=True)
class _Seat:
    """One seat as the audience sees it."""

    player: str | None = None
    role: str | None = None
    cards_left: int | None = None
    action: dict[str, Any] | None = None
    """The seat's last action in the current trick (or bidding, or doubling)."""
    bid: dict[str, Any] | None = None
    double: dict[str, Any] | None = None
    standin: dict[str, Any] | None = None
    comment: str | None = None
    emotion: str | None = None

    def new_deal(self, cards: int | None) -> None:
        self.role = self.action = self.bid = self.double = None
        self.comment = self.emotion = None
        self.cards_left = cards

    def to_dict(self, index: int, total: int | None) -> dict[str, Any]:
        return {
            "seat": index,
            "player": self.player,
            "role": self.role,
            "cards_left": self.cards_left,
            "action": None if self.action is None else dict(self.action),
            "bid": None if self.bid is None else dict(self.bid),
            "double": None if self.double is None else dict(self.double),
            "standin": None if self.standin is None else dict(self.standin),
            "comment": self.comment,
            "emotion": self.emotion,
            "total": total,
        }


class PublicTableState:
    """One table's public snapshot, kept current by :meth:`apply`.

    Sync and cheap: a sink calls :meth:`apply` for every event (about 120 a round) and
    :meth:`snapshot` only when it publishes.
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
        self._totals: dict[str, int] = {}
        self._rounds_won: dict[str, int] | None = None
        self._standings: list[dict[str, Any]] | None = None
        self._seats = [_Seat(), _Seat(), _Seat()]
        self._new_round(0, None)
        self._handlers: dict[str, Callable[[Event], None]] = {
            "match_started": self._match_started,
            "round_started": self._round_started,
            "redeal": self._redeal,
            "turn_started": self._turn_started,
            "bid": self._bid,
            "landlord_chosen": self._landlord_chosen,
            "double": self._double,
            "play": self._play,
            "pass": self._pass,
            "trick_won": self._trick_won,
            "effect_applied": self._effect_applied,
            "seat_replaced": self._seat_replaced,
            "round_result": self._round_result,
            "match_ended": self._match_ended,
        }

    # --- folding events -----------------------------------------------------------------

    def apply(self, event: Event) -> bool:
        """Fold one event in; True when the snapshot changed.

        Events of another table, unknown types, and an event already applied (its ``seq``
        not above the last one seen, as a broker's duplicate would be) change nothing. A
        ``match_started`` always applies: a new table object starts its numbers again.
        """
        if event.table != self.table:
            return False
        seen = self._seen
        kind = event.type
        if seen is not None and event.seq <= seen and kind != "match_started":
            return False
        if seen is not None and event.seq != seen + 1:
            self._complete = False  # a gap: something was missed (a dropped event)
        self._seen = event.seq
        handler = self._handlers.get(kind)
        if handler is None:
            return False
        if kind != "match_started":
            if self.status == "waiting":
                self.status = "live"
            if event.round != self._round and kind != "round_started":
                self._new_round(event.round, None)  # joined in the middle of a round
            seat = event.seat
            if seat is not None and event.player is not None and 0 <= seat < 3:
                self._seats[seat].player = event.player
        handler(event)
        self.seq = event.seq
        return True

    def _new_round(self, round_no: int, cards: int | None) -> None:
        self._round = round_no
        self._phase: str | None = None
        self._deal = 1
        self._landlord: int | None = None
        self._call_score: int | None = None
        self._forced = False
        self._bottom: list[str] | None = None
        self._grabs = 0
        self._bombs = 0
        self._rockets = 0
        self._gift_doubles = 0
        self._settled: Mapping[str, Any] | None = None
        self._trick: dict[str, Any] | None = None
        self._turn: dict[str, Any] | None = None
        self._result: dict[str, Any] | None = None
        for seat in self._seats:
            seat.new_deal(cards)

    def _match_started(self, event: Event) -> None:
        data = event.data
        self.status = "live"
        self.match_id = data.get("match_id", self.match_id)
        self._complete = True
        self._rounds = data.get("rounds")
        players = list(data.get("players", ()))
        self._totals = dict.fromkeys(players, 0)
        self._rounds_won = self._standings = None
        self._seats = [_Seat(player=p) for p in players[:3]]
        self._seats += [_Seat() for _ in range(3 - len(self._seats))]
        self._new_round(0, None)

    def _round_started(self, event: Event) -> None:
        self._new_round(event.round, _FULL_HAND)
        self._phase = "bidding"
        for seat, player in zip(self._seats, event.data.get("players", ()), strict=False):
            seat.player = player
            if seat.standin is not None and seat.standin.get("until") != "match_end":
                seat.standin = None  # the table gives the seat back at a new round
            self._totals.setdefault(player, 0)

    def _redeal(self, event: Event) -> None:
        self._deal = event.data.get("deal_number", self._deal + 1)
        self._call_score = None
        self._grabs = 0
        self._trick = self._turn = None
        for seat in self._seats:
            seat.new_deal(_FULL_HAND)

    def _turn_started(self, event: Event) -> None:
        data = event.data
        request = data.get("request")
        if isinstance(request, str):
            self._phase = _PHASES.get(request, self._phase)
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
        seat = event.seat
        if seat is None or not 0 <= seat < 3:
            return None
        target = self._seats[seat]
        target.action = action
        target.comment = event.data.get("comment")
        target.emotion = event.data.get("emotion")
        return target

    def _bid(self, event: Event) -> None:
        data = event.data
        value, grab = data.get("bid", 0), data.get("grab")
        self._phase = "bidding"
        bid = {"bid": value, "mode": data.get("mode"), "grab": grab}
        target = self._acted(event, {"type": "bid", **bid})
        if target is not None:
            target.bid = bid
        if data.get("mode") == "grab":
            if value and grab:
                self._grabs += 1
            elif value:
                self._call_score = 1
        elif value:
            self._call_score = max(self._call_score or 0, value)

    def _landlord_chosen(self, event: Event) -> None:
        data = event.data
        self._landlord = landlord = event.seat
        self._call_score = data.get("call_score", self._call_score)
        self._grabs = data.get("grabs", self._grabs)
        self._forced = bool(data.get("forced", False))
        self._bottom = list(data.get("bottom_cards", ()))
        self._turn = None
        for index, seat in enumerate(self._seats):
            seat.role = "landlord" if index == landlord else "farmer"
            seat.cards_left = _LANDLORD_HAND if index == landlord else _FULL_HAND
            seat.action = None

    def _double(self, event: Event) -> None:
        data = event.data
        self._phase = "doubling"
        double = {"double": bool(data.get("double")), "kind": data.get("kind")}
        target = self._acted(event, {"type": "double", **double})
        if target is not None:
            target.double = double

    def _play(self, event: Event) -> None:
        data = event.data
        if self._phase != "playing":
            self._phase = "playing"
            for seat in self._seats:  # the doubles stay in each seat's ``double``
                seat.action = None
        cards = list(data.get("cards", ()))
        hand_type = data.get("hand_type")
        if hand_type == "BOMB":
            self._bombs += 1
        elif hand_type == "ROCKET":
            self._rockets += 1
        target = self._acted(event, {"type": "play", "cards": cards, "hand_type": hand_type})
        if target is not None:
            target.cards_left = data.get("cards_left", target.cards_left)
        self._trick = {
            "seat": event.seat,
            "player": event.player,
            "cards": list(cards),
            "hand_type": hand_type,
        }

    def _pass(self, event: Event) -> None:
        self._phase = "playing"
        self._acted(event, {"type": "pass", "auto": bool(event.data.get("auto", False))})

    def _trick_won(self, event: Event) -> None:
        self._trick = None
        for seat in self._seats:
            seat.action = None

    def _effect_applied(self, event: Event) -> None:
        """A gift's transfer moves one card between two seats (a swap keeps the counts);
        a viewer double adds one to the multiplier's exponent."""
        data = event.data
        if data.get("effect") == "double":
            self._gift_doubles += 1
            return
        seats = data.get("seats", ())
        if data.get("effect") == "transfer" and len(seats) == 2 and set(seats) <= {0, 1, 2}:
            source, target = self._seats[seats[0]], self._seats[seats[1]]
            if source.cards_left is not None and target.cards_left is not None:
                source.cards_left -= 1
                target.cards_left += 1

    def _seat_replaced(self, event: Event) -> None:
        seat = event.seat
        if seat is not None and 0 <= seat < 3:
            data = event.data
            self._seats[seat].standin = {
                "by": data.get("by"),
                "until": data.get("until"),
                "reason": data.get("reason"),
            }

    def _round_result(self, event: Event) -> None:
        data = event.data
        result: Mapping[str, Any] = data.get("result", {})
        scores: Mapping[str, int] = data.get("scores", {})
        self._phase = "settled"
        self._turn = self._trick = None
        self._settled = result
        if "totals" in data:  # running totals, if the event carries them
            self._totals = dict(data["totals"])
        else:
            for player, score in scores.items():
                self._totals[player] = self._totals.get(player, 0) + score
        self._name_seats(data.get("players", ()))
        names = [seat.player for seat in self._seats]
        self._result = {
            "landlord_won": result.get("landlord_won"),
            "winner_side": result.get("winner_side"),
            "winners": [_name(names, s) for s in result.get("winners", ())],
            "spring": result.get("spring"),
            "scores": dict(scores),
            "standins": list(data.get("standins", ())),
        }

    def _match_ended(self, event: Event) -> None:
        data = event.data
        self.status = "ended"
        self._turn = None
        self._totals = dict(data.get("totals", self._totals))
        self._rounds_won = dict(data.get("rounds_won", {}))
        self._name_seats(data.get("players", ()))
        self._standings = [dict(s) for s in data.get("standings", ())]
        for seat in self._seats:
            seat.standin = None

    def _name_seats(self, players: Any) -> None:
        """Seats whose player is not known yet (a state that joined late) get theirs."""
        for seat, player in zip(self._seats, players, strict=False):
            if seat.player is None:
                seat.player = player

    # --- the snapshot -------------------------------------------------------------------

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
            "deal": self._deal,
            "phase": self._phase,
            "seats": [
                seat.to_dict(i, totals.get(seat.player) if seat.player is not None else None)
                for i, seat in enumerate(self._seats)
            ],
            "landlord": self._landlord,
            "call_score": self._call_score,
            "forced_landlord": self._forced,
            "bottom_cards": None if self._bottom is None else list(self._bottom),
            "multiplier": self._multiplier(),
            "trick": None if self._trick is None else dict(self._trick),
            "turn": None if self._turn is None else dict(self._turn),
            "result": _copy(self._result),
            "totals": dict(totals),
            "rounds_won": None if self._rounds_won is None else dict(self._rounds_won),
            "standings": None if self._standings is None else [dict(s) for s in self._standings],
        }

    def _multiplier(self) -> dict[str, Any]:
        """The round's multiplier: counted from the plays while it lasts (``common``:
        bombs, rockets and grabs), the engine's own figures once it is settled."""
        settled = self._settled
        if settled is None:
            exponent = self._bombs + self._rockets + self._grabs + self._gift_doubles
            return {
                "settled": False,
                "common": 2**exponent,
                "common_exponent": exponent,
                "bombs": self._bombs,
                "rockets": self._rockets,
                "grabs": self._grabs,
                "spring": None,
                "gift_doubles": self._gift_doubles,
                "farmers": None,
            }
        names = [seat.player for seat in self._seats]
        exponent = int(settled.get("common_exponent", 0))
        exponents: Mapping[str, int] = settled.get("exponents", {})
        return {
            "settled": True,
            "common": 2**exponent,
            "common_exponent": exponent,
            "bombs": settled.get("bombs", self._bombs),
            "rockets": settled.get("rockets", self._rockets),
            "grabs": settled.get("grabs", self._grabs),
            "spring": settled.get("spring"),
            "gift_doubles": settled.get("gift_doubles"),
            "farmers": {_name(names, int(s)): 2**e for s, e in exponents.items()},
        }


def _name(names: list[str | None], seat: int) -> str:
    """A seat's player, or the seat's number as text when its player is not known."""
    name = names[seat] if 0 <= seat < len(names) else None
    return name if name is not None else str(seat)


def _copy(value: dict[str, Any] | None) -> dict[str, Any] | None:
    """A copy one level deeper than ``dict(value)``: its lists and dicts are fresh too,
    so that a snapshot handed to a publisher never changes under it."""
    if value is None:
        return None
    return {
        key: list(item) if type(item) is list else dict(item) if type(item) is dict else item
        for key, item in value.items()
    }
