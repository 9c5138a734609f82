"""Two parts of a Tractor table's public snapshot (:mod:`arena.games.tractor.public_state`),
each folded from its own events: the declaring and the tricks.

Declaring: every seat is asked at once in a window (its ``turn_started`` events, then
its ``declare`` events); the strongest declaration so far is the candidate
(``trump_candidate``); ``trump_locked`` fixes the trump, which keeps the cards of the
candidate that locked it.

Tricks: the current trick is every ``play`` since the last ``trick_won`` (a ``leading`` play
starts one), with its leader and lead; a won trick becomes the last one, with its winner
and points; a ``throw_punished`` comes just before the play its throw was made into, and
stays with that trick. The defenders' points and the tricks done are the ``trick_won``
events' own figures.
"""

from __future__ import annotations

from typing import Any

from arena.events import Event

__all__ = ["PublicDeclaring", "PublicTricks", "fresh"]


class PublicDeclaring:
    """One round's declaring, folded from its events (see the module)."""

    def __init__(self) -> None:
        self.window: dict[str, Any] | None = None
        self.windows = 0
        self.candidate: dict[str, Any] | None = None
        self.trump: dict[str, Any] | None = None

    def asked(self, event: Event) -> None:
        """A seat asked in a window: a seat asked again opens the next window."""
        data = event.data
        window = self.window
        if window is None or event.seat in window["answered"]:
            self.windows += 1
            window = self.window = {
                "window": self.windows,
                "deadline_at": None,
                "time_limit_ms": None,
                "asked": [],
                "answered": [],
            }
        window["deadline_at"] = data.get("deadline_at")
        window["time_limit_ms"] = data.get("time_limit_ms")
        if event.seat not in window["asked"]:
            window["asked"].append(event.seat)

    def answered(self, event: Event) -> None:
        """A seat's reply in the window (its ``declare``), whatever it said."""
        window, number = self.window, event.data.get("window")
        if window is None:
            return
        if isinstance(number, int):
            window["window"] = self.windows = number
        if event.seat not in window["answered"]:
            window["answered"].append(event.seat)

    def candidate_made(self, event: Event) -> None:
        """The window's strongest declaration: the candidate until a stronger one."""
        data = event.data
        self.candidate = {
            "seat": event.seat,
            "player": event.player,
            "cards": list(data.get("cards", ())),
            "strength": data.get("strength"),
            "suit": data.get("suit"),
            "window": data.get("window"),
        }

    def locked(self, event: Event, declarer_name: str | None) -> None:
        """Trump is fixed: its suit (None: no trump), its declarer and the cards."""
        data = event.data
        declarer = data.get("declarer")
        candidate = self.candidate
        cards: list[str] = []
        if candidate is not None and candidate["seat"] == declarer:
            cards = list(candidate["cards"])
        self.trump = {
            "suit": data.get("trump_suit"),
            "declarer": declarer,
            "player": declarer_name,
            "cards": cards,
        }
        self.candidate = self.window = None

    def snapshot(self) -> dict[str, Any]:
        """The snapshot's keys of the declaring, fresh objects."""
        return {
            "candidate": fresh(self.candidate),
            "declaring": fresh(self.window),
            "trump": fresh(self.trump),
        }


class PublicTricks:
    """One round's tricks, folded from its events (see the module)."""

    def __init__(self) -> None:
        self.trick: dict[str, Any] | None = None
        self.last: dict[str, Any] | None = None
        self.punished: list[dict[str, Any]] = []
        self.done = 0
        self.defender_points = 0

    def throw_punished(self, event: Event) -> None:
        """A throw that did not stand: it leads the next trick."""
        data = event.data
        if self.trick is None:
            self.punished = []
        self.punished.append(
            {
                "seat": event.seat,
                "player": event.player,
                "original": list(data.get("original", ())),
                "punished": list(data.get("punished", ())),
                "reason": data.get("reason"),
            }
        )

    def play(self, event: Event) -> None:
        """A play goes on the current trick (a lead starts one)."""
        data = event.data
        cards = list(data.get("cards", ()))
        kind = data.get("kind")
        trick = self.trick
        if trick is None or data.get("leading"):
            trick = self.trick = {
                "no": self.done + 1,
                "leader": event.seat,
                "lead": {"cards": list(cards), "kind": kind, "suit_group": data.get("suit_group")},
                "plays": [],
                "seat": None,
            }
        trick["plays"].append(
            {
                "seat": event.seat,
                "player": event.player,
                "cards": cards,
                "kind": kind,
                "punished": bool(data.get("punished", False)),
            }
        )
        trick["seat"] = event.seat  # the last seat to play (the shell orders the trick by it)

    def won(self, event: Event) -> None:
        """The trick is won: it becomes the last one; the points are the event's."""
        data = event.data
        trick = self.trick or {"no": None, "leader": None, "lead": None, "plays": []}
        self.last = {
            "no": data.get("trick", trick["no"]),
            "leader": trick["leader"],
            "lead": trick["lead"],
            "plays": trick["plays"],
            "winner": event.seat,
            "player": event.player,
            "points": data.get("points"),
            "counted": data.get("counted"),
            "punished": self.punished,
        }
        self.defender_points = data.get("defender_points", self.defender_points)
        self.done = data.get("trick", self.done + 1)
        self.trick = None
        self.punished = []

    def snapshot(self) -> dict[str, Any]:
        """The snapshot's keys of the tricks, fresh objects."""
        return {
            "defender_points": self.defender_points,
            "tricks_done": self.done,
            "trick": fresh(self.trick),
            "last_trick": fresh(self.last),
            "punished": fresh(self.punished),
        }


def fresh(value: Any) -> Any:
    """A copy of JSON-ready data, every list and dict in it fresh, so that a snapshot
    handed to a publisher never changes under it."""
    if type(value) is dict:
        return {key: fresh(item) for key, item in value.items()}
    if type(value) is list:
        return [fresh(item) for item in value]
    return value
