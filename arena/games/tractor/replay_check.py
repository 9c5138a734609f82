"""Checking one recorded Tractor round: its messages and events, replayed through a fresh
engine (the game's ``Game.replay_check``; :func:`arena.replay.verify_round` picks it by
the round header's ``game``).

The check walks a round's lines in file order beside a fresh
:class:`~arena.games.tractor.engine.Round` of the header's rules, seed, levels, banker
and tie-breaking seat, and a fresh :class:`~arena.games.tractor.views.TractorViews`, and
at each line checks that

- every message to an agent is the one the engine and the views would send at that
  point: DEAL shows the seat's dealt cards (and its seed, the rules, the levels), a
  request goes to the seat to act with its own hand and choices (a declaration window's
  options, the banker's hand with the kitty, the lead, the follow rule, every play so
  far), and TRUMP_CANDIDATE, TRUMP_LOCKED, THROW_PUNISHED, TRICK_WON, ROUND_RESULT and
  GAME_OVER say what the engine did;
- each decision reads request, reply (none when the agent timed out), then
  REPLY_REJECTED when the reply was not used; the action's event shows the one reply
  used, or says ``fallback`` when none was (then the action is the engine's fallback);
- each declaration window has one ``declare`` event per seat, in seat order, each a
  declaration the seat could make, and the engine takes them together; the burial is
  the round_result's ``kitty`` (the banker's BURY_RESPONSE, when not a fallback); each
  ``play`` is legal, and a punished throw is played as proposed (the ``throw_punished``
  event's ``original``) and shows the part the engine punished it to;
- what the engine did besides (a trump candidate, a deal step, trump locked, the kitty
  taken, each trick's winner and points) is announced by its event, in order, before
  the next request;
- the round's end (the ``round_result`` event, the round_end summary) shows the
  engine's score: trick and kitty points, the kill's multiplier, the level change, the
  next banker, each seat's score, the gifts that touched it; a match said over is over
  by the level rule or at a round limit;
- a viewer's swap (an ``effect`` line: the cards it moved) applies to the engine between
  two turns, as the table applied it, and its ``effect_applied`` event follows and shows
  the same effect, seats and number of cards; the round's record marks it ``SWAP``, after
  the changes between rounds (the header's ``gift_changes``, such as a ``RESHUFFLE``).

A round the replay stops inside is checked as far as it goes and reported as incomplete,
never as verified.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from arena.games.tractor.engine import (
    Event,
    Phase,
    Played,
    Round,
    RoundEnded,
    ThrowPunished,
    TractorRules,
    TrickWon,
    TrumpCandidate,
    TrumpLocked,
    card_ids,
    classify,
    judge_throw,
    resolve_cards,
    team_of,
)
from arena.games.tractor.replay_diff import as_recorded, card_difference, difference
from arena.games.tractor.replay_result import (
    ANNOUNCED_BY,
    announcement,
    gift_marks,
    recorded_result,
    result_agrees,
)
from arena.games.tractor.result import TractorResult
from arena.games.tractor.views import TractorViews, group_letter, ids
from arena.replay_attempts import Attempts
from arena.replay_round import Mismatch, RecordedRound, walk_round

__all__ = ["carried_over", "verify_round"]

_REPLY_TO = {
    "DECLARE_REQUEST": "DECLARE_RESPONSE",
    "BURY_REQUEST": "BURY_RESPONSE",
    "PLAY_REQUEST": "PLAY_RESPONSE",
}
"""Each request's reply."""


def carried_over(previous: Round, header: Mapping[str, Any]) -> str | None:
    """What the next round's header says against ``previous``, the round before it in
    the match: the levels its score left, the banker it named next, and the banker the
    next declaration's ties go after. None when they agree."""
    score = previous.result
    if score is None:
        return "the round before it did not finish"
    carried = {
        "levels": list(score.levels_after),
        "banker": score.next_banker,
        "tie_after": score.banker,
    }
    for key, expected in carried.items():
        if header.get(key) != expected:
            return (
                f"its header's {key} is {header.get(key)!r}, but round {header.get('round', 0) - 1}"
                f"'s score carries {expected!r} over"
            )
    return None


def verify_round(recorded: RecordedRound) -> Round:
    """Replay a recorded round through a fresh engine; return the finished engine round.

    Raises :class:`RoundMismatch` naming the line and what differs, or
    :class:`RoundIncomplete` for a round the replay ends inside whose lines all check.
    """
    return walk_round(recorded, _RoundCheck)


@dataclass(frozen=True)
class _Throw:
    """A ``throw_punished`` event, waiting for its ``play``."""

    seat: int
    original: tuple[int, ...]
    punished: tuple[int, ...]
    reason: str


_PHASE_OF = {
    "DECLARE_REQUEST": Phase.DECLARING,
    "BURY_REQUEST": Phase.BURYING,
    "PLAY_REQUEST": Phase.PLAYING,
}
_BETWEEN_ACTIONS = frozenset(
    {"turn_started", "fault", "decision", "budget_spent", "seat_replaced", "gift"}
)
"""Events that may come while a declaration window's replies are still being shown."""


class _RoundCheck:
    """The walk through one round's lines beside a fresh engine round."""

    def __init__(self, recorded: RecordedRound) -> None:
        self.recorded = recorded
        self.line = 0
        header = recorded.header
        self.rules = TractorRules.model_validate(header["rules"])
        self.players: list[str] = list(header["players"])
        if len(self.players) != self.rules.players:
            raise Mismatch(
                f"the round_start line names {len(self.players)} players for a table of "
                f"{self.rules.players}"
            )
        low, high = header["levels"]
        try:
            self.rnd = Round(
                self.rules,
                seed=header["seed"],
                levels=(low, high),
                banker=header["banker"],
                tie_after=header["tie_after"],
            )
        except ValueError as exc:  # SetupError: a seat or level out of range
            raise Mismatch(f"the round_start line sets up no round: {exc}") from exc
        self.views = TractorViews(tuple(self.players), listing=[False] * self.rules.players)
        self.views_ready = False
        self.attempts = Attempts(self.players, _REPLY_TO)
        self.seq = recorded.seq_before
        self.window: dict[int, tuple[int, ...]] = {}
        """The current declaration window's declare events so far, by seat."""
        self.pending: deque[Event] = deque()
        """What the engine did that its events have yet to announce, in order."""
        self.announced: dict[type, Event] = {}
        """The last of each kind announced (what its notification must say)."""
        self.throw: _Throw | None = None
        self.effect: tuple[int, dict[str, Any]] | None = None
        """A swap applied, with its line, whose ``effect_applied`` event is still due."""
        self.gifts = gift_marks(header)
        """The marks the round's record must show: the changes, then a SWAP per swap."""
        self.summary_result, self.result_line = recorded_result(recorded)
        """The result the round's end shows (None when the replay has none), and where."""

    def run(self) -> None:
        """Check every line in order; a mismatch names its line."""
        notices: dict[str, Callable[[int, dict[str, Any]], None]] = {
            "DEAL": self._deal,
            "TRUMP_CANDIDATE": self._trump_candidate,
            "TRUMP_LOCKED": self._trump_locked,
            "THROW_PUNISHED": self._throw_punished,
            "TRICK_WON": self._trick_won,
            "ROUND_RESULT": self._round_result,
            "GAME_OVER": self._game_over,
            "REPLY_REJECTED": self.attempts.rejected,
        }
        for number, line in self.recorded.lines:
            self.line = number
            try:
                kind = line["kind"]
                if kind == "event":
                    self._event(line["event"])
                elif kind == "effect":
                    self._effect(line)
                elif kind == "message":
                    seat, message = line["seat"], line["message"]
                    if line["dir"] == "from_agent":
                        late = bool(line.get("late"))
                        self.attempts.replied(seat, message, number, late=late)
                    elif message.get("type") in _PHASE_OF:
                        self._request(seat, message)
                    elif message.get("type") in notices:
                        self._ready(message)
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
        self._window_closed("the round's end")
        self._effect_announced_before("the round's end")
        if self.pending:
            raise Mismatch(f"the engine's {ANNOUNCED_BY[type(self.pending[0])]} is never announced")
        rnd = self.rnd
        if rnd.phase is not Phase.FINISHED or rnd.result is None:
            raise Mismatch(f"the recorded actions leave the round {rnd.phase.value}")
        summary = self.recorded.summary
        if summary is None:
            raise Mismatch("the round has no round_end line")
        results = [e for e in self.recorded.events if e["type"] == "round_result"]
        if len(results) != 1:
            raise Mismatch(f"expected one round_result event, found {len(results)}")
        result_agrees(self.result_line, summary, rnd, self.recorded, self.gifts)
        if summary["seed"] != self.recorded.header["seed"]:
            raise Mismatch(f"the round_end line says seed {summary['seed']!r}")

    # --- messages to the agents ---------------------------------------------------------

    def _ready(self, message: dict[str, Any]) -> None:
        """The views name the match the first message names (no header holds it)."""
        if not self.views_ready:
            self.views.new_match(message.get("match_id"), self.recorded.table)
            self.views.new_round(
                self.recorded.round, seed=self.recorded.header["seed"], rules=self.rules
            )
            self.views_ready = True

    def _agrees(
        self, what: str, shown: dict[str, Any], expected: BaseModel, ignore: Sequence[str] = ()
    ) -> None:
        found = difference(shown, as_recorded(expected), ignore=ignore)
        if found is not None:
            raise Mismatch(f"{what}: {found}")

    def _deal(self, seat: int, message: dict[str, Any]) -> None:
        if self.rnd.phase is not Phase.DECLARING or self.rnd.declaring.windows:
            raise Mismatch(f"a DEAL to seat {seat} after the declarations began")
        self._agrees(f"DEAL to seat {seat}", message, self.views.deal(self.rnd, seat))

    def _trump_candidate(self, seat: int, message: dict[str, Any]) -> None:
        last = self._last(TrumpCandidate, "TRUMP_CANDIDATE", seat)
        assert isinstance(last, TrumpCandidate)
        expected = self.views.trump_candidate(last.declaration, last.window)
        self._agrees(f"TRUMP_CANDIDATE to seat {seat}", message, expected)

    def _trump_locked(self, seat: int, message: dict[str, Any]) -> None:
        last = self._last(TrumpLocked, "TRUMP_LOCKED", seat)
        assert isinstance(last, TrumpLocked)
        expected = self.views.trump_locked(last, len(self.rnd.kitty))
        self._agrees(f"TRUMP_LOCKED to seat {seat}", message, expected)

    def _throw_punished(self, seat: int, message: dict[str, Any]) -> None:
        throw = self.throw
        if throw is None:
            raise Mismatch(f"THROW_PUNISHED to seat {seat} follows no throw_punished event")
        expected = self.views.throw_punished(
            throw.seat, throw.original, throw.punished, throw.reason
        )
        self._agrees(f"THROW_PUNISHED to seat {seat}", message, expected)

    def _trick_won(self, seat: int, message: dict[str, Any]) -> None:
        last = self._last(TrickWon, "TRICK_WON", seat)
        assert isinstance(last, TrickWon)
        expected = self.views.trick_won(last, self.rnd.trick_points)
        self._agrees(f"TRICK_WON to seat {seat}", message, expected)

    def _round_result(self, seat: int, message: dict[str, Any]) -> None:
        what = f"ROUND_RESULT to seat {seat}"
        score = self.rnd.result
        if score is None:
            raise Mismatch(f"{what} before the engine finished the round")
        totals = [message["total_scores"][player] for player in self.players]
        deltas = TractorResult(score=score, players=self.rnd.players, kitty=self.rnd.buried).scores
        expected = self.views.round_result(
            score, self.rnd.buried, deltas, totals, game_over=message["game_over"]
        )
        self._agrees(what, message, expected)
        shown = self.summary_result
        if shown is not None and message["game_over"] != shown["match_over"]:
            raise Mismatch(f"{what} says game_over {message['game_over']!r}")

    def _game_over(self, seat: int, message: dict[str, Any]) -> None:
        what = f"GAME_OVER to seat {seat}"
        score = self.rnd.result
        shown = self.summary_result
        if score is None or shown is None or not shown["match_over"]:
            raise Mismatch(f"{what}, but the round does not end the match")
        expected = self.views.game_over(
            shown["winner_team"], score.levels_after, message["rounds_played"]
        )
        self._agrees(what, message, expected)

    def _last(self, kind: type, message: str, seat: int) -> Event:
        found = self.announced.get(kind)
        if found is None:
            raise Mismatch(f"{message} to seat {seat} before its event")
        return found

    def _request(self, seat: int, message: dict[str, Any]) -> None:
        kind = message["type"]
        rnd = self.rnd
        self._ready(message)
        what = f"{kind} to seat {seat}"
        self._window_closed(f"the {what}")
        self._all_announced(f"the {what}")
        self._effect_announced_before(f"the {what}")
        to_act = rnd.to_act if kind != "DECLARE_REQUEST" else seat
        if rnd.phase is not _PHASE_OF[kind] or to_act != seat:
            raise Mismatch(
                f"a {kind} to seat {seat}, but the engine is {rnd.phase.value} "
                f"with seat {rnd.to_act} to act"
            )
        limits = {"time_limit_ms": message["time_limit_ms"], "request_id": message["request_id"]}
        expected: BaseModel
        if kind == "DECLARE_REQUEST":
            expected = self.views.declare_request(rnd, seat, **limits)
        elif kind == "BURY_REQUEST":
            expected = self.views.bury_request(rnd, **limits)
        else:
            listed = message.get("legal_plays") is not None
            self.views.listing = tuple(s == seat and listed for s in range(rnd.players))
            expected = self.views.play_request(rnd, seat, **limits)
        self._agrees(what, message, expected, ignore=("audience",))
        self.attempts.asked(seat, message, self.line)

    def _replied_cards(self, reply: dict[str, Any], held: Sequence[int]) -> tuple[int, ...]:
        try:
            return resolve_cards(reply["cards"], held)
        except ValueError as exc:
            raise Mismatch(f"the reply names cards the seat does not hold: {exc}") from exc

    # --- events -------------------------------------------------------------------------

    def _event(self, event: dict[str, Any]) -> None:
        seq = event["seq"]
        if isinstance(seq, bool) or not isinstance(seq, int) or seq <= self.seq:
            raise Mismatch(f"event number {seq!r} follows {self.seq}: the numbers must increase")
        self.seq = seq
        kind, seat, data = event["type"], event["seat"], event["data"]
        actions: dict[str, Callable[[int, dict[str, Any]], None]] = {
            "declare": self._declare,
            "bury": self._bury,
            "throw_punished": self._throw,
            "play": self._play,
        }
        try:
            if kind != "declare" and kind not in _BETWEEN_ACTIONS:
                self._window_closed(f"a {kind} event")
            if kind in actions:
                actions[kind](seat, data)
            elif kind in ANNOUNCED_BY.values():
                self._announced(kind, seat, data)
            elif kind == "round_started":
                self._round_started(data)
            elif kind == "game_over":
                self._game_over_event(data)
            elif kind == "effect_applied":
                self._effect_announced(seq, data)
        except (Mismatch, ValueError) as exc:  # ValueError: an illegal action, a bad card
            raise Mismatch(f"event {seq} ({kind} by seat {seat}): {exc}") from exc

    def _round_started(self, data: dict[str, Any]) -> None:
        header = self.recorded.header
        expected: dict[str, Any] = {
            "players": self.players,
            "levels": list(self.rnd.levels),
            "level": self.rnd.level,
            "banker": header["banker"],
            "cards": [len(self.rnd.revealed(seat)) for seat in range(self.rnd.players)],
        }
        changes = header.get("gift_changes")
        if changes:
            expected["reshuffled"] = any(change["effect"] == "RESHUFFLE" for change in changes)
        found = difference(data, expected)
        if found is not None:
            raise Mismatch(found)

    def _declare(self, seat: int, data: dict[str, Any]) -> None:
        rnd = self.rnd
        if rnd.phase is not Phase.DECLARING:
            raise Mismatch(f"a declaration while the engine is {rnd.phase.value}")
        window = rnd.declaring.windows + 1
        if data["window"] != window:
            raise Mismatch(f"it says window {data['window']!r}, the engine's next is {window}")
        if seat != len(self.window):
            raise Mismatch(
                f"window {window}'s declare events come in seat order, seat {len(self.window)} next"
            )
        cards = card_ids(data["cards"])
        if data["declared"] is not bool(cards):
            raise Mismatch(f"declared {data['declared']!r} with cards {data['cards']}")
        reply = self.attempts.used(
            "DECLARE_REQUEST", seat, fallback=bool(data["fallback"]), unasked=True
        )
        if reply is None and cards:
            raise Mismatch("a fallback passes, yet it shows cards")
        if reply is not None:
            if reply["action"] == "PASS":
                said: tuple[int, ...] = ()
            else:
                said = self._replied_cards(reply, rnd.revealed(seat))
            used = f"the DECLARE_RESPONSE used (line {self.attempts.used_line})"
            found = card_difference("its cards", ids(cards), ids(said), used)
            if found is not None:
                raise Mismatch(found)
        if cards:
            rnd.declaration(seat, cards)  # IllegalActionError: not a declaration it could make
        self.window[seat] = cards
        if len(self.window) == rnd.players:
            self._all_announced(f"window {window}'s declarations")
            replies = {s: c for s, c in self.window.items() if c}
            self.window = {}
            self._expect(rnd.declare(replies))

    def _bury(self, seat: int, data: dict[str, Any]) -> None:
        rnd = self.rnd
        self._all_announced("the burial")
        if rnd.phase is not Phase.BURYING or rnd.banker != seat:
            raise Mismatch(
                f"a burial by seat {seat}, but the engine is {rnd.phase.value} with "
                f"banker {rnd.banker}"
            )
        if data["count"] != len(rnd.kitty):
            raise Mismatch(f"count {data['count']!r}, but the kitty had {len(rnd.kitty)}")
        reply = self.attempts.used("BURY_REQUEST", seat, fallback=bool(data["fallback"]))
        if reply is None:
            cards, source = rnd.fallback(), "the engine's fallback burial"
        else:
            cards = self._replied_cards(reply, rnd.hands[seat])
            source = f"the BURY_RESPONSE used (line {self.attempts.used_line})"
        shown = self.summary_result
        if shown is not None:
            what = f"the kitty {self.result_line} shows"
            found = card_difference(what, shown["kitty"], ids(cards), source)
            if found is not None:
                raise Mismatch(found)
        rnd.bury(cards)

    def _throw(self, seat: int, data: dict[str, Any]) -> None:
        rnd = self.rnd
        if rnd.phase is not Phase.PLAYING or rnd.to_act != seat or rnd.lead is not None:
            raise Mismatch(f"a punished throw, but seat {seat} is not to lead")
        if self.throw is not None:
            raise Mismatch("a second throw_punished before the play")
        throw = _Throw(seat, card_ids(data["original"]), card_ids(data["punished"]), data["reason"])
        attempt = self.attempts.pending_reply(seat)
        if attempt is not None and attempt.reply is not None:
            said = self._replied_cards(attempt.reply, rnd.hands[seat])
            used = f"the reply at line {attempt.reply_line}"
            found = card_difference("original", ids(throw.original), ids(said), used)
            if found is not None:
                raise Mismatch(found)
        if rnd.trump is None:
            raise Mismatch("a punished throw before trump is locked")
        opponents = [h for s, h in enumerate(rnd.hands) if team_of(s) != team_of(seat)]
        verdict = judge_throw(classify(throw.original, rnd.trump), opponents, rnd.trump)
        if verdict is None:
            raise Mismatch("the engine lets this throw stand")
        found = difference(
            {"punished": ids(throw.punished), "reason": throw.reason},
            {"punished": ids(verdict.punished.cards), "reason": verdict.reason},
        )
        if found is not None:
            raise Mismatch(found)
        self.throw = throw

    def _play(self, seat: int, data: dict[str, Any]) -> None:
        rnd = self.rnd
        self._all_announced("the play")
        if rnd.phase is not Phase.PLAYING or rnd.to_act != seat:
            raise Mismatch(
                f"a play by seat {seat}, but the engine is {rnd.phase.value} with seat "
                f"{rnd.to_act} to act"
            )
        shown = card_ids(data["cards"])
        throw, self.throw = self.throw, None
        if throw is not None:
            if throw.seat != seat or data.get("punished") is not True:
                raise Mismatch("it is not the punished play of the throw_punished before it")
            what, event = "its cards", "the throw_punished event's punished part"
            found = card_difference(what, ids(shown), ids(throw.punished), event)
            if found is not None:
                raise Mismatch(found)
            proposed = throw.original
        elif "punished" in data:
            raise Mismatch("it says punished, but no throw_punished event precedes it")
        else:
            proposed = shown
        reply = self.attempts.used("PLAY_REQUEST", seat, fallback=bool(data["fallback"]))
        if reply is None:
            expected, source = rnd.fallback(), "the engine's fallback play"
        else:
            expected = self._replied_cards(reply, rnd.hands[seat])
            source = f"the PLAY_RESPONSE used (line {self.attempts.used_line})"
        what = "the throw proposed" if throw is not None else "its cards"
        found = card_difference(what, ids(proposed), ids(expected), source)
        if found is not None:
            raise Mismatch(found)
        made = rnd.play(seat, proposed)
        self._punished_agrees(throw, made)
        played = next(e for e in made if type(e) is Played)
        play = played.play
        expected_data = {
            "cards": ids(play.cards),
            "kind": play.kind.value,
            "suit_group": None if play.group < 0 else group_letter(play.group),
            "leading": played.leading,
            "cards_left": len(rnd.hands[seat]),
        }
        found = difference({k: data[k] for k in expected_data}, expected_data)
        if found is not None:
            raise Mismatch(found)
        self.views.record_play(seat, play.cards)
        self._expect(made)

    def _punished_agrees(self, throw: _Throw | None, made: Sequence[Event]) -> None:
        punished = next((e for e in made if type(e) is ThrowPunished), None)
        if throw is None:
            if punished is not None:
                raise Mismatch(
                    "the engine punishes this throw, but no throw_punished event precedes it"
                )
            return
        if punished is None:
            raise Mismatch("a throw_punished event precedes it, but the engine lets it stand")
        assert isinstance(punished, ThrowPunished)
        shown = {"original": ids(throw.original), "punished": ids(throw.punished)}
        engine = {"original": ids(punished.original), "punished": ids(punished.punished)}
        found = difference(shown, engine)
        if found is None and throw.reason != punished.reason:
            found = f"reason {throw.reason!r} differs from the engine's {punished.reason!r}"
        if found is not None:
            raise Mismatch(f"the throw_punished event: {found}")

    def _expect(self, made: Sequence[Event]) -> None:
        """What the engine did besides the action: its events must announce it."""
        self.pending.extend(e for e in made if type(e) in ANNOUNCED_BY)

    def _announced(self, kind: str, seat: int | None, data: dict[str, Any]) -> None:
        if not self.pending:
            raise Mismatch("the engine has nothing of the kind to announce here")
        made = self.pending[0]
        wanted = ANNOUNCED_BY[type(made)]
        if kind != wanted:
            raise Mismatch(f"the engine's next to announce is a {wanted}")
        self.pending.popleft()
        self.announced[type(made)] = made
        expected_seat, expected = announcement(self.rnd, made)
        if seat != expected_seat:
            raise Mismatch(f"it names seat {seat}, the engine's is seat {expected_seat}")
        if isinstance(made, RoundEnded):
            result_agrees("the round_result event", data, self.rnd, self.recorded, self.gifts)
            return
        found = difference(data, expected)
        if found is not None:
            raise Mismatch(found)

    def _game_over_event(self, data: dict[str, Any]) -> None:
        score, shown = self.rnd.result, self.summary_result
        if score is None or shown is None or not shown["match_over"]:
            raise Mismatch("the round does not end the match")
        expected = {"winner_team": shown["winner_team"], "levels": list(score.levels_after)}
        found = difference({k: data[k] for k in expected}, expected)
        if found is not None:
            raise Mismatch(found)

    # --- gifts' effects ------------------------------------------------------------------

    def _effect(self, line: dict[str, Any]) -> None:
        """A viewer's 换牌 (the only effect inside a Tractor round): applied to the engine
        between two turns, as the table applied it, if the engine allows it there."""
        self._effect_announced_before("the next effect")
        self._window_closed("an effect")
        self._all_announced("an effect")
        for seat, attempt in self.attempts:  # asked, and its action not yet shown
            raise Mismatch(
                f"an effect while seat {seat} decides (its request at line {attempt.line}): "
                "effects apply only between turns"
            )
        kind, seats, cards = line["effect"], line["seats"], line["cards"]
        if kind != "swap" or len(seats) != 2 or len(cards) != 2:
            raise Mismatch(f"no Tractor effect {kind!r} of seats {seats} moving {cards}")
        (seat_a, seat_b), (card_a, card_b) = seats, card_ids(cards)
        try:
            self.rnd.swap_cards(seat_a, card_a, seat_b, card_b)
        except ValueError as exc:  # IllegalActionError: not now, not these seats or cards
            raise Mismatch(
                f"the swap of seats {seats} moving {' '.join(cards)} cannot apply: {exc}"
            ) from exc
        self.effect = (self.line, line)
        self.gifts.append("SWAP")

    def _effect_announced(self, seq: int, data: dict[str, Any]) -> None:
        """The public event of the effect just applied: the same effect, seats and count."""
        if self.effect is None:
            raise Mismatch("it follows no effect line")
        number, line = self.effect
        self.effect = None
        applied = {
            "effect": line["effect"],
            "seats": line["seats"],
            "cards_moved": len(line["cards"]),
        }
        found = difference(data, applied)
        if found is not None:
            raise Mismatch(f"{found} (the effect at line {number})")

    def _effect_announced_before(self, what: str) -> None:
        if self.effect is not None:
            raise Mismatch(
                f"the effect at line {self.effect[0]} has no effect_applied event before {what}"
            )

    # --- order ----------------------------------------------------------------------------

    def _window_closed(self, what: str) -> None:
        if self.window:
            seats = sorted(self.window)
            raise Mismatch(
                f"{what} comes while window {self.rnd.declaring.windows + 1} has the "
                f"declare events of seats {seats} only"
            )

    def _all_announced(self, what: str) -> None:
        if self.pending:
            made = ANNOUNCED_BY[type(self.pending[0])]
            raise Mismatch(f"{what} comes before the engine's {made} is announced")
