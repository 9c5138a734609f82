"""Checking one recorded Dou Dizhu round: its messages and events, replayed through a fresh
engine (the game's ``Game.replay_check``; :func:`arena.replay.verify_round` picks it by
the round header's ``game``, and a header without one is Dou Dizhu's).

A replay is evidence only where it agrees with itself and with the rules. So the check
walks a round's lines in file order beside a fresh :class:`~arena.games.ddz.engine.Round` and, at
each line, checks that

- what the agents were told is what the engine says at that point: a DEAL shows the hand
  dealt, a request goes to the seat to act and shows its hand and its choices (the bids
  open to it, the trick to beat, the card counts, the bottom cards), BOTTOM_CARDS and
  the ``landlord_chosen`` event show the landlord and the bottom cards, and ROUND_RESULT
  the engine's scores;
- each decision attempt reads request, reply (none when the agent timed out), then
  REPLY_REJECTED when the reply was not used; the action event that follows shows the
  one reply used (the same bid or double, PASS, or cards that resolve against the seat's
  hand to exactly the event's cards), or says ``fallback`` when every attempt was
  rejected; a late reply is never used;
- every action is legal, event numbers increase, and the round's end (summary and
  ``round_result`` event) shows the engine's scores and winning side;
- a gift's effect (an ``effect`` line: the cards it moved) applies to the engine between
  two turns, like an action, and its ``effect_applied`` event follows it and shows the
  same effect, seats and number of cards;
- what gifts changed between rounds (the header's ``gift_changes``, in replays since
  viewer gifts, issue 11) is well formed and is what the header plays: a ROLE_SWAP's
  seat and call score are the header's landlord and call score (and a header landlord
  beside gift_changes has its ROLE_SWAP), a RESHUFFLE's seed is the header's seed, at
  most one of each; the ``round_started`` event says the same landlord and reshuffle;
- the round's record marks the result-changing gifts that touched it: the ``gifts`` of
  the round_end summary and of the ``round_result`` event are the between-rounds changes
  in order, then one per effect line (SWAP, ADD, DOUBLE). A replay from before these
  marks has neither key, and then no gift may have touched the round.

A round the replay stops inside (the recording was cut off) is checked as far as it
goes and then reported as incomplete, never as verified.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from arena.games.ddz.engine import (
    WINNER_SIDES,
    Card,
    DealtCards,
    Phase,
    Round,
    Rules,
    card,
    resolve_cards,
)
from arena.games.ddz.views import deal_seeds, table_rules
from arena.replay_attempts import Attempts
from arena.replay_round import Mismatch, RecordedRound, walk_round

__all__ = ["verify_round"]


def verify_round(recorded: RecordedRound) -> Round:
    """Replay a recorded round through a fresh engine; return the finished engine round.

    Raises :class:`RoundMismatch` naming the line and what differs, or
    :class:`RoundIncomplete` for a round the replay ends inside whose lines all check.
    """
    return walk_round(recorded, _RoundCheck)


_PHASE_OF = {
    "BID_REQUEST": Phase.BIDDING,
    "DOUBLE_REQUEST": Phase.DOUBLING,
    "PLAY_REQUEST": Phase.PLAYING,
}
_REQUEST_OF = {
    "bid": "BID_REQUEST",
    "double": "DOUBLE_REQUEST",
    "play": "PLAY_REQUEST",
    "pass": "PLAY_REQUEST",
}
_REPLY_TO = {
    "BID_REQUEST": "BID_RESPONSE",
    "DOUBLE_REQUEST": "DOUBLE_RESPONSE",
    "PLAY_REQUEST": "PLAY_RESPONSE",
}


class _RoundCheck:
    """The walk through one round's lines beside a fresh engine round."""

    def __init__(self, recorded: RecordedRound) -> None:
        self.recorded = recorded
        self.line = 0
        header = recorded.header  # a Dou Dizhu round's: arena.replay.verify_round chose
        self.players: list[str] = list(header["players"])
        deal = header.get("deal")
        self.rnd = Round(
            Rules.model_validate(header["rules"]),
            seed=header["seed"],
            deal=_deal_from(deal) if deal else None,
            first_bidder=header.get("first_bidder"),
            landlord=header.get("landlord"),
            call_score=header.get("call_score"),
        )
        self.attempts = Attempts(self.players, _REPLY_TO)
        self.seq = recorded.seq_before
        self.plays = 0
        """Plays and passes so far: a PLAY_REQUEST's ``play_history_len``."""
        self.effect: tuple[int, dict[str, Any]] | None = None
        """An effect applied, with its line, whose ``effect_applied`` event is still due."""
        self.gift_changes = _gift_changes(header)
        """The header's gift_changes, checked against the header (None: it has none)."""
        self.gifts: list[str] = [change["effect"] for change in self.gift_changes or ()]
        """The marks the round's record must show: the changes, then each effect applied."""

    def run(self) -> None:
        """Check every line in order; a mismatch names its line."""
        notices: dict[str, Callable[[int, dict[str, Any]], None]] = {
            "DEAL": self._deal,
            "BOTTOM_CARDS": self._bottom_cards,
            "REPLY_REJECTED": self.attempts.rejected,
            "ROUND_RESULT": self._round_result,
        }
        for number, line in self.recorded.lines:
            self.line = number
            try:
                if line["kind"] == "event":
                    self._event(line["event"])
                    continue
                if line["kind"] == "effect":
                    self._effect(line)
                    continue
                if line["kind"] != "message":
                    continue
                seat, message = line["seat"], line["message"]
                if line["dir"] == "from_agent":
                    self.attempts.replied(seat, message, self.line, late=bool(line.get("late")))
                elif message.get("type") in _PHASE_OF:
                    self._request(seat, message)
                elif message.get("type") in notices:
                    notices[message["type"]](seat, message)
            except Mismatch as exc:
                raise Mismatch(f"line {self.line}: {exc}") from exc

    def finish(self) -> None:
        """The end of a complete round: nothing left open, and the engine's result shown."""
        self.line = 0
        for seat, attempt in self.attempts:
            raise Mismatch(
                f"the {attempt.request['type']} to seat {seat} at line {attempt.line} "
                "is followed by no action"
            )
        self._effect_announced_before("the round's end")
        rnd = self.rnd
        if rnd.phase is not Phase.FINISHED or rnd.result is None:
            raise Mismatch("the recorded actions do not finish the round")
        _check_result(self.recorded, rnd, self.players)
        _check_marks(self.recorded, self.gifts)

    # --- messages to the agents ---------------------------------------------------------

    def _deal(self, seat: int, message: dict[str, Any]) -> None:
        self._addressed(seat, message)
        what = f"DEAL to seat {seat}"
        _same_cards(what, message["hand"], self.rnd.deal.hands[seat])
        # What DEAL tells an agent of its own (replays since issue 25): the rules of the
        # header, and the seat's seed derived from the round's seed and this deal.
        if message.get("rules") is not None:
            told = table_rules(self.rnd.rules).model_dump(mode="json")
            if message["rules"] != told:
                differ = sorted(k for k in told if message["rules"].get(k) != told[k])
                raise Mismatch(f"{what}: rules differ from the header's in {', '.join(differ)}")
        round_seed = self.recorded.header.get("seed")
        if message.get("seed") is not None and round_seed is not None:
            deal_number = self.rnd.deal_number
            derived = deal_seeds(round_seed, deal_number)[seat]
            if message["seed"] != derived:
                raise Mismatch(
                    f"{what}: seed {message['seed']} is not the seat's seed of deal "
                    f"{deal_number} of the round's seed ({derived})"
                )

    def _bottom_cards(self, seat: int, message: dict[str, Any]) -> None:
        rnd = self.rnd
        if rnd.landlord is None:
            raise Mismatch(f"BOTTOM_CARDS to seat {seat} before the engine has a landlord")
        self._in_this_round(seat, message)
        _same(f"BOTTOM_CARDS to seat {seat}", "landlord", message, self.players[rnd.landlord])
        _same(f"BOTTOM_CARDS to seat {seat}", "call_score", message, rnd.call_score)
        _same_cards(f"BOTTOM_CARDS to seat {seat}", message["bottom_cards"], rnd.bottom)

    def _round_result(self, seat: int, message: dict[str, Any]) -> None:
        result = self.rnd.result
        what = f"ROUND_RESULT to seat {seat}"
        if result is None:
            raise Mismatch(f"{what} before the engine finished the round")
        self._in_this_round(seat, message)
        deltas = dict(zip(self.players, result.scores, strict=True))
        _same(what, "score_deltas", message, deltas)
        _same(what, "landlord", message, self.players[result.landlord])
        side = WINNER_SIDES.get(message["winner_side"], message["winner_side"])
        if side != ("landlord" if result.landlord_won else "farmer"):
            raise Mismatch(f"{what}: winner_side {message['winner_side']!r} is not the engine's")

    def _request(self, seat: int, message: dict[str, Any]) -> None:
        kind = message["type"]
        rnd = self.rnd
        self._effect_announced_before(f"the {kind} to seat {seat}")
        if rnd.phase is not _PHASE_OF[kind] or rnd.to_act != seat:
            raise Mismatch(
                f"a {kind} to seat {seat}, but the engine is {rnd.phase.value} "
                f"with seat {rnd.to_act} to act"
            )
        self._addressed(seat, message)
        what = f"{kind} to seat {seat}"
        if message.get("hand") is not None:
            _same_cards(what, message["hand"], rnd.hand(seat))
        if kind == "BID_REQUEST":
            _same(what, "available_bids", message, rnd.legal_bids())
            _same(what, "current_highest_bid", message, rnd.auction.highest)
        elif kind == "DOUBLE_REQUEST":
            _same(what, "kind", message, "redouble" if rnd.is_redouble_turn else "double")
            _same_cards(f"{what} (bottom_cards)", message["bottom_cards"], rnd.bottom)
        else:
            self._play_request(what, message)
        self.attempts.asked(seat, message, self.line)

    def _play_request(self, what: str, message: dict[str, Any]) -> None:
        rnd = self.rnd
        players = self.players
        _same(what, "is_free_play", message, rnd.is_leading)
        shown = message["last_play"]
        last = rnd.last_play
        if last is None or shown is None:
            if shown is not last:
                raise Mismatch(f"{what}: last_play {shown} differs from the engine's {last}")
        else:
            _same_cards(f"{what} (last_play)", shown["cards"], last.cards)
        counts = {players[i]: len(rnd.hand(i)) for i in range(3)}
        _same(what, "remaining_cards", message, counts)
        if message.get("bottom_cards") is not None:
            _same_cards(f"{what} (bottom_cards)", message["bottom_cards"], rnd.bottom)
        assert rnd.landlord is not None
        if message.get("landlord") is not None:
            _same(what, "landlord", message, players[rnd.landlord])
        if "play_history_len" in message:
            _same(what, "play_history_len", message, self.plays)

    def _addressed(self, seat: int, message: dict[str, Any]) -> None:
        if message["player_id"] != self.players[seat]:
            raise Mismatch(
                f"{message['type']} to seat {seat} is addressed to {message['player_id']!r}, "
                f"not {self.players[seat]!r}"
            )
        self._in_this_round(seat, message)

    def _in_this_round(self, seat: int, message: dict[str, Any]) -> None:
        """A message naming its table and round (replays since issue 8) names this one."""
        recorded = self.recorded
        for key, wanted in (("table_id", recorded.table), ("round_no", recorded.round)):
            given = message.get(key)
            if given is not None and given != wanted:
                raise Mismatch(f"{message['type']} to seat {seat} says {key} {given!r}")

    # --- replies and actions -------------------------------------------------------------

    def _event(self, event: dict[str, Any]) -> None:
        seq = event["seq"]
        if isinstance(seq, bool) or not isinstance(seq, int) or seq <= self.seq:
            raise Mismatch(f"event number {seq!r} follows {self.seq}: the numbers must increase")
        self.seq = seq
        kind, seat, data = event["type"], event["seat"], event.get("data", {})
        if kind in _REQUEST_OF:
            try:
                self._action(kind, seat, data)
            except Mismatch as exc:
                raise Mismatch(f"event {seq} ({kind} by seat {seat}): {exc}") from exc
            except ValueError as exc:  # IllegalActionError, a card that is no card
                raise Mismatch(f"event {seq} ({kind} by seat {seat}): {exc}") from exc
        elif kind == "landlord_chosen":
            rnd = self.rnd
            if rnd.landlord != seat:
                raise Mismatch(f"event {seq} names seat {seat} landlord, the engine {rnd.landlord}")
            _same(f"event {seq} (landlord_chosen)", "call_score", data, rnd.call_score)
            _same_cards(f"event {seq} (landlord_chosen)", data["bottom_cards"], rnd.bottom)
        elif kind == "effect_applied":
            self._effect_announced(seq, data)
        elif kind == "round_started":
            self._round_started(seq, data)

    def _round_started(self, seq: int, data: dict[str, Any]) -> None:
        """Its ``landlord`` and ``reshuffled`` (told only when gifts changed the round
        between rounds) are what the header's gift_changes did."""
        what = f"event {seq} (round_started)"
        told = [key for key in ("landlord", "reshuffled") if key in data]
        changes = self.gift_changes
        if changes is None:
            if told:
                raise Mismatch(
                    f"{what} says {told[0]} {data[told[0]]!r}, but the round_start line has "
                    "no gift_changes (the table says it only of a round gifts changed)"
                )
            return
        reshuffled = any(change["effect"] == "RESHUFFLE" for change in changes)
        expected: dict[str, object] = {
            "landlord": self.recorded.header.get("landlord"),
            "reshuffled": reshuffled,
        }
        for key, wanted in expected.items():
            if key not in data:
                raise Mismatch(
                    f"{what} has no {key}, but the round_start line has gift_changes "
                    f"(expected {key} {wanted!r})"
                )
            shown = data[key]
            if shown != wanted or type(shown) is not type(wanted):
                raise Mismatch(
                    f"{what} says {key} {shown!r}; the round_start line's gift_changes make "
                    f"it {wanted!r}"
                )

    # --- gifts' effects ------------------------------------------------------------------

    def _effect(self, line: dict[str, Any]) -> None:
        """Apply a recorded effect to the engine: only between turns, only if legal."""
        self._effect_announced_before("the next effect")
        for seat, attempt in self.attempts:  # asked, and its action not yet shown
            raise Mismatch(
                f"an effect while seat {seat} decides (its request at line {attempt.line}): "
                "effects apply only between turns"
            )
        kind, seats, cards = line["effect"], line["seats"], line["cards"]
        rnd = self.rnd
        try:
            if kind == "swap":
                (seat_a, seat_b), (card_a, card_b) = seats, cards
                rnd.swap_cards(seat_a, card_a, seat_b, card_b)
            elif kind == "transfer":
                (source, target), (moved,) = seats, cards
                rnd.transfer_card(source, target, moved)
            elif kind == "double" and not seats and not cards:
                rnd.add_gift_double()
            else:
                raise Mismatch(f"no effect {kind!r} of seats {seats} moving {cards}")
        except ValueError as exc:  # IllegalActionError, a card that is no card, a bad shape
            raise Mismatch(f"the {kind} effect of seats {seats} cannot apply: {exc}") from exc
        self.effect = (self.line, line)
        self.gifts.append(_GIFT_OF_EFFECT[kind])

    def _effect_announced_before(self, what: str) -> None:
        if self.effect is not None:
            raise Mismatch(
                f"the effect at line {self.effect[0]} has no effect_applied event before {what}"
            )

    def _effect_announced(self, seq: int, data: dict[str, Any]) -> None:
        """The public event of the effect just applied: the same effect, seats and count."""
        if self.effect is None:
            raise Mismatch(f"event {seq} (effect_applied) follows no effect line")
        line_no, line = self.effect
        self.effect = None
        shown = (data["effect"], data["seats"], data["cards_moved"])
        applied = (line["effect"], line["seats"], len(line["cards"]))
        if shown != applied:
            raise Mismatch(
                f"event {seq} (effect_applied) shows {shown[0]} of seats {shown[1]} moving "
                f"{shown[2]} cards; the effect at line {line_no} was {applied[0]} of seats "
                f"{applied[1]} moving {applied[2]}"
            )

    def _action(self, kind: str, seat: int, data: dict[str, Any]) -> None:
        rnd = self.rnd
        if kind == "pass" and data.get("auto"):
            asked = self.attempts.open.get(seat)
            if asked is not None:
                raise Mismatch(f"an automatic pass, but seat {seat} was asked (line {asked.line})")
            if rnd.to_act == seat and not rnd.must_pass():
                raise Mismatch("an automatic pass, but the seat had a card that beats the trick")
        else:
            self._decision(kind, seat, data)
        if kind == "bid":
            rnd.bid(seat, data["bid"])
        elif kind == "double":
            rnd.double(seat, data["double"])
        elif kind == "pass":
            rnd.pass_turn(seat)
            self.plays += 1
        else:
            played = rnd.play(seat, data["cards"], data["hand_type"])
            self.plays += 1
            if played.main_rank != data["main_rank"]:
                raise Mismatch(f"reading differs from record (main rank {played.main_rank})")

    def _decision(self, kind: str, seat: int, data: dict[str, Any]) -> None:
        """The attempt this action ends: its one used reply is the action, or none was."""
        attempts = self.attempts
        reply = attempts.used(_REQUEST_OF[kind], seat, fallback=bool(data.get("fallback")))
        if reply is not None:
            _reply_agrees(self, kind, seat, data, reply, f"the reply at line {attempts.used_line}")


def _reply_agrees(
    check: _RoundCheck, kind: str, seat: int, data: dict[str, Any], reply: dict[str, Any], at: str
) -> None:
    """The used reply (``at`` its line; its type, sender and request already checked) must
    be the action the event shows (the engine has not applied it yet)."""
    if kind in ("bid", "double"):
        if reply[kind] != data[kind]:
            raise Mismatch(f"{at} says {kind} {reply[kind]!r}, the event {data[kind]!r}")
        return
    if kind == "pass":
        if reply["action"] != "PASS":
            raise Mismatch(f"{at} plays {_shown(reply['cards'])}, the event passes")
        return
    if reply["action"] != "PLAY":
        raise Mismatch(f"{at} passes, the event plays {_shown(data['cards'])}")
    try:
        cards = resolve_cards(reply["cards"], check.rnd.hand(seat))
    except ValueError as exc:
        raise Mismatch(f"{at} plays cards seat {seat} does not hold: {exc}") from exc
    if sorted(c.id for c in cards) != sorted(card(c).id for c in data["cards"]):
        raise Mismatch(
            f"{at} plays {_shown(c.text for c in cards)}, the event {_shown(data['cards'])}"
        )
    hand_type = reply.get("hand_type")
    if hand_type is not None and hand_type != data["hand_type"]:
        raise Mismatch(f"{at} plays a {hand_type}, the event a {data['hand_type']}")


def _check_result(recorded: RecordedRound, rnd: Round, players: list[str]) -> None:
    """Every score and winning side the round's end shows must be the engine's."""
    result = rnd.result
    assert result is not None
    scores = list(result.scores)
    by_player = dict(zip(players, scores, strict=True))
    if recorded.summary is None:
        raise Mismatch("the round has no round_end line")
    summary = recorded.summary
    results = [e for e in recorded.events if e["type"] == "round_result"]
    if len(results) != 1:
        raise Mismatch(f"expected one round_result event, found {len(results)}")
    data = results[0]["data"]
    shown: list[tuple[str, Any]] = [
        ("round_end result.scores", summary["result"]["scores"]),
        ("round_end scores", summary["scores"]),
        ("round_result event scores", data["scores"]),
        ("round_result event result.scores", data["result"]["scores"]),
    ]
    for label, value in shown:
        expected = by_player if isinstance(value, dict) else scores
        if value != expected:
            raise Mismatch(f"{label} {value} differ from the engine's {expected}")
    side = "landlord" if result.landlord_won else "farmer"
    for label, where in (("round_end", summary), ("round_result event", data)):
        recorded_side = where["result"]["winner_side"]  # "farmers" before issue 7
        if WINNER_SIDES.get(recorded_side) != side:
            raise Mismatch(f"{label} winner_side {recorded_side!r} is not the engine's {side!r}")
        if where["result"]["landlord"] != result.landlord:
            raise Mismatch(f"{label} names seat {where['result']['landlord']} landlord")


_GIFT_OF_EFFECT = {"swap": "SWAP", "transfer": "ADD", "double": "DOUBLE"}
"""The gift an effect line marks its round with (as :func:`arena.table.table.gift_effects`)."""

_CHANGE_FIELDS: dict[str, tuple[str, ...]] = {
    "ROLE_SWAP": ("gift", "seat", "call_score"),
    "RESHUFFLE": ("gift", "prepared_seed", "seed"),
}
"""What each between-rounds change of a header's gift_changes holds (see
:class:`arena.table.safe_point.NextRound`)."""


def _gift_changes(header: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The header's gift_changes, checked: well formed, at most one of each kind, and what
    the header plays (None when it has none: no gift changed the round, or an older
    replay, or a caller that chose the landlord itself)."""
    if "gift_changes" not in header:
        return None
    where = "the round_start line's gift_changes"
    changes = header["gift_changes"]
    if type(changes) is not list or not changes:  # the table writes none rather than []
        raise Mismatch(f"{where} is {changes!r}, not a list of the changes gifts made")
    found: dict[str, dict[str, Any]] = {}
    for index, change in enumerate(changes):
        what = f"{where}[{index}]"
        if type(change) is not dict:
            raise Mismatch(f"{what} is {change!r}, not a change")
        kind = change.get("effect")
        if not isinstance(kind, str) or kind not in _CHANGE_FIELDS:
            raise Mismatch(f"{what} has effect {kind!r}, neither ROLE_SWAP nor RESHUFFLE")
        fields = _CHANGE_FIELDS[kind]
        for key in fields:
            _change_field(what, kind, change, key)
        if kind == "RESHUFFLE":
            before = found.get("RESHUFFLE")
            if before is not None and change["prepared_seed"] != before["seed"]:
                raise Mismatch(
                    f"{what}: RESHUFFLE throws away the deal of seed {change['prepared_seed']}, "
                    f"but the RESHUFFLE before it dealt seed {before['seed']}"
                )
            if change["prepared_seed"] == change["seed"]:
                raise Mismatch(
                    f"{what}: RESHUFFLE deals seed {change['seed']} again instead of a fresh deal"
                )
        if kind in found:
            raise Mismatch(
                f"{what} is a second {kind}: the table refuses a second before one round"
            )
        found[kind] = change
    landlord, call_score = header.get("landlord"), header.get("call_score")
    swap = found.get("ROLE_SWAP")
    if swap is None:
        if landlord is not None:
            raise Mismatch(
                f"the round_start line makes seat {landlord} landlord without bidding, but "
                f"{where} hold no ROLE_SWAP that chose it"
            )
    elif (swap["seat"], swap["call_score"]) != (landlord, call_score):
        raise Mismatch(
            f"{where}: ROLE_SWAP makes seat {swap['seat']} landlord at call score "
            f"{swap['call_score']}, but the round_start line has landlord {landlord} at "
            f"call score {call_score}"
        )
    # The first RESHUFFLE's prepared_seed is the seed the match derived for the round,
    # from the match seed, which no replay holds: what can be checked is that it chains
    # and that the deal played is the last RESHUFFLE's.
    reshuffle = found.get("RESHUFFLE")
    if reshuffle is not None and reshuffle["seed"] != header["seed"]:
        raise Mismatch(
            f"{where}: RESHUFFLE deals seed {reshuffle['seed']}, but the round_start line "
            f"has seed {header['seed']}"
        )
    return changes


def _change_field(what: str, kind: str, change: dict[str, Any], key: str) -> None:
    """One field of a between-rounds change: there, and of its type and range."""
    if key not in change:
        raise Mismatch(f"{what} ({kind}) lacks {key!r}")
    value = change[key]
    if key == "gift":
        fits = isinstance(value, str) and bool(value)
    elif key == "seat":
        fits = type(value) is int and 0 <= value <= 2
    elif key == "call_score":
        fits = type(value) is int and value >= 1
    else:  # a seed
        fits = type(value) is int and value >= 0
    if not fits:
        raise Mismatch(f"{what} ({kind}) has {key} {value!r}")


def _check_marks(recorded: RecordedRound, expected: list[str]) -> None:
    """The round's record (round_end summary and round_result event) marks the gifts the
    round's gift_changes and effect lines applied, in order; an older replay has no marks,
    and then nothing may have touched the round."""
    summary = recorded.summary
    assert summary is not None
    result = next(e for e in recorded.events if e["type"] == "round_result")
    end_line = next((n for n, line in recorded.lines if line["kind"] == "round_end"), 0)
    result_line = next(
        (n for n, line in recorded.lines if line["kind"] == "event" and line["event"] is result), 0
    )
    places = (
        (f"line {end_line} (round_end)", summary),
        (f"line {result_line}: event {result['seq']} (round_result)", result.get("data", {})),
    )
    if all("gifts" not in where for _, where in places):
        if expected:
            raise Mismatch(
                "neither the round_end line nor the round_result event marks the gifts "
                f"applied to this round: expected gifts {expected}, found no gifts key"
            )
        return  # a replay from before the marks
    for label, where in places:
        if "gifts" not in where:
            raise Mismatch(f"{label} has no gifts key; expected gifts {expected}")
        if where["gifts"] != expected:
            raise Mismatch(
                f"{label} marks gifts {where['gifts']!r}; the round's gift_changes and "
                f"effect lines make them {expected!r}"
            )


def _same(what: str, key: str, shown: dict[str, Any], expected: object) -> None:
    if shown[key] != expected:
        raise Mismatch(f"{what}: {key} {shown[key]!r} differs from the engine's {expected!r}")


def _same_cards(what: str, shown: list[str], expected: Iterable[Card]) -> None:
    """The same cards in any order (a message's order is for reading, not meaning)."""
    wanted = [c.text for c in expected]
    if sorted(shown) == sorted(wanted):
        return
    extra = Counter(shown) - Counter(wanted)
    missing = Counter(wanted) - Counter(shown)
    parts = []
    if extra:
        parts.append(f"shows {_shown(extra.elements())} that the engine's does not")
    if missing:
        parts.append(f"lacks {_shown(missing.elements())}")
    raise Mismatch(f"{what}: the cards differ from the engine's: {', '.join(parts)}")


def _shown(cards: Iterable[str]) -> str:
    return " ".join(cards) or "nothing"


def _deal_from(data: dict[str, Any]) -> DealtCards:
    order = [*data["hands"][0], *data["hands"][1], *data["hands"][2], *data["bottom"]]
    return DealtCards.from_order([card(c) for c in order])
