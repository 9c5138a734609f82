"""A game of four (or six) seats as the overlay sees it: its public snapshot, and no
renderer of its own, registered as a plugin would be. Its tables are fed by hand
(:func:`events`), never played: the overlay's shell must show them without Dou Dizhu.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Final

import pytest
from fake_games import plugged_in

from arena.events import Event
from arena.games import registry
from arena.games.base import Game
from arena.games.registry import get_game

__all__ = ["HEX", "QUAD", "QuadState", "events", "registered"]


class QuadState:
    """A table's public snapshot with only the keys every game shares, each seat its
    player, cards left, last play, comment and emotion."""

    def __init__(self, table: str, *, run_id: str, match_id: str | None = None) -> None:
        self.table, self.run_id, self.match_id = table, run_id, match_id
        self.status: Any = "waiting"
        self.seq: int | None = None
        self.round: int | None = None
        self.seats: list[dict[str, Any]] = []
        self.turn: dict[str, Any] | None = None

    def apply(self, event: Event) -> bool:
        data = event.data
        if event.type == "match_started":
            self.status = "live"
            self.seats = [
                {"seat": i, "player": p, "cards_left": 25, "action": None, "comment": None}
                for i, p in enumerate(data["players"])
            ]
        elif event.type == "turn_started":
            self.turn = {
                "seat": event.seat,
                "deadline_at": data.get("deadline_at"),
                "time_limit_ms": data.get("time_limit_ms"),
            }
        elif event.type == "play" and event.seat is not None:
            seat = self.seats[event.seat]
            seat["action"] = {"type": "play", "cards": list(data["cards"])}
            seat["cards_left"] -= len(data["cards"])
            seat["comment"], seat["emotion"] = data.get("comment"), data.get("emotion")
        elif event.type == "match_ended":
            self.status = "ended"
        else:
            return False
        self.seq, self.round = event.seq, event.round
        return True

    def snapshot(self) -> dict[str, Any]:
        return {
            "v": 1,
            "table": self.table,
            "run": self.run_id,
            "match_id": self.match_id,
            "status": self.status,
            "complete": True,
            "seq": self.seq,
            "round": self.round,
            "rounds": 1,
            "seats": [dict(seat) for seat in self.seats],
            "turn": None if self.turn is None else dict(self.turn),
            "totals": {},
        }


def _game(name: str, seats: int, overlay_assets: Path | None = None) -> Game:
    """Dou Dizhu's descriptor with another name, seat count and public snapshot."""
    return dataclasses.replace(
        get_game("ddz"),
        name=name,
        title=f"{seats} seats",
        seats=lambda rules: seats,
        gift_effects=frozenset({"CHEER", "EFFECT"}),
        public_state=QuadState,
        overlay_assets=overlay_assets,
    )


QUAD: Final = _game("quad", 4)
HEX: Final = _game("hex", 6)


@contextmanager
def registered(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The fake games found by name, as a plugin's would be."""
    plugins = {**registry._plugins(), "quad": f"{__name__}:QUAD", "hex": f"{__name__}:HEX"}
    with plugged_in(monkeypatch, plugins):
        yield


def events(game: str, players: list[str], table: str = "t1") -> list[Event]:
    """A match of ``game`` begun by hand: every seat plays a card, saying something
    (with markup, to be shown as text), then the last seat is to play."""
    made: list[Event] = []

    def add(type_: str, seat: int | None = None, **data: Any) -> None:
        made.append(Event(type_, table, 1, len(made) + 1, seat, None, data, game=game))

    add("match_started", players=players)
    for seat in range(len(players)):
        add("play", seat, cards=[f"♠{seat + 3}"], comment=f"<i>seat {seat}</i>", emotion="happy")
    add("turn_started", len(players) - 1, deadline_at=None)
    return made
