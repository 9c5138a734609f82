"""斗地主 on the terminal: how its events read as plain lines, and its panel on the live
board (each seat's role and cards left; the trick, the bottom cards and the call).

The console (:mod:`arena.sinks.console_lines`, :mod:`arena.sinks.console_board`) is
every game's; it finds this (:class:`DdzConsole`) through
:attr:`arena.games.base.Game.console`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from rich.console import RenderableType
from rich.text import Text

from arena.events import Event, EventType

if TYPE_CHECKING:
    from arena.sinks.console_board import SeatView, TableView

__all__ = ["ACTIONS", "PLAY_KINDS", "DdzConsole", "line"]

ACTIONS: Final = frozenset({"bid", "double", "play", "pass"})
"""A Dou Dizhu seat's actions: each ends its turn, and may carry a comment and a mood."""

PLAY_KINDS: Final[frozenset[EventType]] = frozenset(
    {"redeal", "bid", "landlord_chosen", "double", "play", "pass", "trick_won"}
)
"""The events of a Dou Dizhu round's play, besides its start and each turn's."""

GIFT_NAMES: Final = {"DOUBLE": "翻倍", "ROLE_SWAP": "角色互换"}
"""Dou Dizhu's own gift effects' Chinese names, as streams and docs/gifts.md call them."""

GIFT_REASONS: Final = {"double_cap": "the round's doubles are used up"}
"""Why a gift of Dou Dizhu's own did not apply, in words, by the reason's code."""


def _bid_words(data: Mapping[str, Any]) -> str:
    """What a bid was: a score, or in grab bidding a call or a grab (叫地主 / 抢地主).

    ``data["grab"]`` says whether the seat was grabbing; a replay recorded before the
    flag existed has none, so it gets words that are true either way.
    """
    bid = data["bid"]
    if data.get("mode") != "grab":
        return f"bids {bid}" if bid else "passes the bid"
    if "grab" not in data:
        return "bids for landlord" if bid else "passes the bid"
    if data["grab"]:
        return "grabs the landlord (抢地主)" if bid else "does not grab (不抢)"
    return "calls the landlord (叫地主)" if bid else "does not call (不叫)"


def line(event: Event, tag: str, said: str) -> str | None:
    """A Dou Dizhu event's line after ``tag`` (a bid, the landlord, a double, a play, a
    pass, a trick, a redeal, a round's result), an action's ending with what it
    ``said`` (``arena.sinks.console_lines.voice``); None for any other event."""
    d = event.data
    kind = event.type
    if kind == "play":
        left = d["cards_left"]
        warn = " ⚠" if 0 < left <= 2 else ""
        return (
            f"{tag} {event.player or ''} plays {' '.join(d['cards'])} ({d['hand_type']}), "
            f"{left} left{warn}{said}"
        )
    if kind == "pass":
        note = " (cannot beat)" if d.get("auto") else ""
        return f"{tag} {event.player or ''} passes{note}{said}"
    if kind == "trick_won":
        return f"{tag} {event.player or ''} wins the trick"
    if kind == "bid":
        return f"{tag} {event.player or ''} {_bid_words(d)}{said}"
    if kind == "double":
        word = d["kind"] if d["double"] else f"no {d['kind']}"
        return f"{tag} {event.player or ''}: {word}{said}"
    if kind == "landlord_chosen":
        forced = " (forced after redeals)" if d.get("forced") else ""
        return (
            f"{tag} {event.player or ''} is landlord at {d['call_score']}{forced}; "
            f"bottom cards {' '.join(d['bottom_cards'])}"
        )
    if kind == "redeal":
        return f"{tag} nobody bid: redeal #{d['deal_number'] - 1}"
    if kind == "round_result":
        result = d["result"]
        side = "the landlord wins" if result["landlord_won"] else "the farmers win"
        spring = f", {result['spring'].replace('_', ' ')}" if result.get("spring") else ""
        bombs = result["bombs"] + result["rockets"]
        scores = ", ".join(f"{p} {s:+d}" for p, s in d["scores"].items())
        return f"{tag} {side}{spring} (bombs {bombs}, call {result['call_score']}): {scores}"
    return None


TITLE: Final = "斗地主 Arena"
"""The title of a table's board and of the rows."""

LEGEND: Final = "▶ to act, 地 landlord, cards, score"
"""What a row's seat cell says, in the rows' title."""

COLUMNS: Final = ("role", "cards")
"""A board's columns after the seat's name: 地主 or 农民, and cards left."""

_BID_LABELS = {
    (False, True): "叫地主",
    (False, False): "不叫",
    (True, True): "抢地主",
    (True, False): "不抢",
}
"""Grab bidding's words on the board, by (grabbing, bid)."""


@dataclass
class DdzSeat:
    """A seat's Dou Dizhu state on the board: its role once the landlord is chosen,
    and its cards left."""

    role: str = ""
    cards: int = 17


@dataclass
class DdzTable:
    """A table's Dou Dizhu state on the board, for the round: the trick's last play,
    the bottom cards and the landlord's call."""

    trick: str = ""
    bottom: str = ""
    call: str = ""


def apply(view: TableView, seat: int, kind: str, d: Mapping[str, Any]) -> None:
    """A Dou Dizhu event of the seat numbered ``seat``: a bid, the landlord, a double, a
    play, a pass, a trick won, a round's result (and its scores)."""
    target = view.seats[seat]
    if kind == "bid":
        grabbing = d.get("grab")
        if grabbing is None:
            target.last = f"bid {d['bid']}" if d["bid"] else "no bid"
        else:
            target.last = _BID_LABELS[(grabbing, bool(d["bid"]))]
    elif kind == "landlord_chosen":
        for index, other in enumerate(view.seats):
            other.game.role = "地主" if index == seat else "农民"
            other.game.cards = 20 if index == seat else 17
        view.game.bottom = " ".join(d["bottom_cards"])
        view.game.call = f"{d['call_score']}"
    elif kind == "double":
        target.last = d["kind"] if d["double"] else f"no {d['kind']}"
    elif kind == "play":
        target.last = " ".join(d["cards"])
        target.game.cards = d["cards_left"]
        view.game.trick = f"{target.name}: {' '.join(d['cards'])}  ({d['hand_type']})"
    elif kind == "pass":
        target.last = "pass"
    elif kind == "trick_won":
        view.game.trick = ""
        for other in view.seats:
            other.last = ""
    elif kind == "round_result":
        view.to_act = view.thinking_since = None
        for other in view.seats:
            other.total += d["scores"].get(other.name, 0)


def seatless(view: TableView, kind: str, d: Mapping[str, Any]) -> None:
    """A Dou Dizhu event of no seat: a viewer's 加牌 moved a card from the first seat
    to the second, so their counts change (a play's event would set them right only at
    that seat's next play)."""
    if kind == "effect_applied" and d.get("effect") == "transfer":
        seats = d.get("seats", ())
        if len(seats) == 2 and all(0 <= s < len(view.seats) for s in seats):
            view.seats[seats[0]].game.cards -= 1
            view.seats[seats[1]].game.cards += 1


def cells(seat: SeatView) -> list[RenderableType]:
    """A seat's cells in :data:`COLUMNS`."""
    return [seat.game.role, str(seat.game.cards)]


def header(view: TableView) -> Text:
    """The line under the seats: ``trick: Ann: ♠3  (SINGLE)    bottom: ...    call: 3``."""
    game = view.game
    header = Text(f"trick: {game.trick or '—'}    bottom: {game.bottom or '?'}")
    if game.call:
        header.append(f"    call: {game.call}")
    return header


def row_cell(seat: SeatView) -> str:
    """A row's seat cell after the name: ``地 `` for the landlord, then cards left."""
    role = {"地主": "地 ", "农民": ""}.get(seat.game.role, "")
    return f"{role}{seat.game.cards}"


class DdzConsole:
    """Dou Dizhu's part of the terminal (:class:`arena.sinks.game_console.GameConsole`)."""

    title: Final = TITLE
    legend: Final = LEGEND
    columns: Final = COLUMNS
    actions: Final = ACTIONS
    play_kinds: Final = PLAY_KINDS
    gift_names: Final = GIFT_NAMES
    gift_reasons: Final = GIFT_REASONS

    # the module's functions, as the console calls them on this object
    line = staticmethod(line)
    new_table = DdzTable
    new_seat = DdzSeat
    apply = staticmethod(apply)
    seatless = staticmethod(seatless)
    cells = staticmethod(cells)
    header = staticmethod(header)
    row_cell = staticmethod(row_cell)
