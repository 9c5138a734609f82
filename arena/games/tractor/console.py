"""升级 / 拖拉机 on the terminal: how its events read as plain lines, and its panel on
the live board (each seat's team, banker mark and cards left; both teams' levels, the
trump and who declared it, the kitty, the defenders' points, the trick and who leads it,
a punished throw).

The console (:mod:`arena.sinks.console_lines`, :mod:`arena.sinks.console_board`) is
every game's; it finds this (:class:`TractorConsole`) through
:attr:`arena.games.base.Game.console`. Events carry card ids (``D1_H_10``); the
terminal shows faces (``♥10``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from rich.console import RenderableType
from rich.text import Text

from arena.errors import InvalidCardError
from arena.events import Event, EventType
from arena.games.tractor.engine.cards import (
    SUIT_LETTERS,
    SUIT_SYMBOLS,
    card_id,
    face_text,
    rank_text,
)

if TYPE_CHECKING:
    from arena.sinks.console_board import SeatView, TableView

__all__ = ["ACTIONS", "PLAY_KINDS", "TractorConsole", "faces", "line"]

ACTIONS: Final = frozenset({"declare", "bury", "play"})
"""A Tractor seat's actions: each ends its turn, and may carry a comment and a mood."""

PLAY_KINDS: Final[frozenset[EventType]] = frozenset(
    {
        "declare",
        "trump_candidate",
        "deal_step",
        "trump_locked",
        "kitty_taken",
        "bury",
        "throw_punished",
        "play",
        "trick_won",
    }
)
"""The events of a Tractor round's play, besides its start and each turn's."""

TITLE: Final = "升级 Arena"
LEGEND: Final = "▶ to act, 庄 banker, team, cards, score"
COLUMNS: Final = ("team", "cards")


def faces(ids: Sequence[str]) -> str:
    """Card ids as faces, lowest last as played: ``♠Q ♠Q``; an unknown id as it is."""
    shown = []
    for text in ids:
        try:
            shown.append(face_text(card_id(text)))
        except InvalidCardError:  # an event from elsewhere: show it as it came
            shown.append(str(text))
    return " ".join(shown)


def trump_words(suit: str | None) -> str:
    """``♥ trump`` or ``no trump``."""
    return "no trump" if suit is None else f"{SUIT_SYMBOLS[SUIT_LETTERS.index(suit)]} trump"


def level_words(level: object) -> str:
    """A level from an event (the engine's rank 2..14) as people say it."""
    return rank_text(level) if isinstance(level, int) else str(level)


def line(event: Event, tag: str, said: str) -> str | None:
    """A Tractor event's line after ``tag``; None for any other event (and for a pass in
    a declaration window, which would crowd the log)."""
    d = event.data
    kind = event.type
    who = event.player or ""
    if kind == "play":
        verb = "leads" if d.get("leading") else "follows"
        return f"{tag} {who} {verb} {faces(d['cards'])} ({d['kind']}), {d['cards_left']} left{said}"
    if kind == "trick_won":
        counted = f", {d['points']} points to the defenders" if d["counted"] and d["points"] else ""
        return f"{tag} {who} wins trick {d['trick']}{counted} (defenders {d['defender_points']})"
    if kind == "throw_punished":
        return (
            f"{tag} ⚠ {who}'s throw {faces(d['original'])} does not stand: "
            f"played as {faces(d['punished'])}"
        )
    if kind == "declare":
        if not d.get("declared"):
            return None
        return f"{tag} {who} declares {faces(d['cards'])}{said}"
    if kind == "trump_candidate":
        return f"{tag} candidate: {who} {faces(d['cards'])} ({trump_words(d['suit'])})"
    if kind == "trump_locked":
        by = f", declared by seat {d['declarer']}" if d.get("declarer") is not None else ""
        return (
            f"{tag} trump locked: level {level_words(d['level'])}, "
            f"{trump_words(d['trump_suit'])}{by}; {who} is banker"
        )
    if kind == "kitty_taken":
        return f"{tag} {who} takes the kitty ({d['count']} cards)"
    if kind == "bury":
        return f"{tag} {who} buries {d['count']} cards{said}"
    if kind == "deal_step":
        return f"{tag} deal step {d['step']}"
    if kind == "round_result":
        r = d["result"]
        kill = f", kill ×{r['multiplier']}" if r["multiplier"] else ""
        team = r["up_team"]
        before, after = r["levels_before"][team], r["levels_after"][team]
        return (
            f"{tag} defenders {r['defender_points']} points (kitty {r['kitty_points']}{kill}); "
            f"team {team} {level_words(before)} → {level_words(after)} (+{r['delta']})"
        )
    if kind == "game_over":
        winner = d.get("winner_team")
        levels = "/".join(level_words(x) for x in d["levels"])
        if winner is None:
            return f"{tag} game over after {d['rounds']} rounds: a draw at levels {levels}"
        return f"{tag} game over: team {winner} wins after {d['rounds']} rounds (levels {levels})"
    return None


@dataclass
class TractorSeat:
    """A seat's Tractor state on the board: its team, whether it is banker, cards left."""

    team: int = 0
    banker: bool = False
    cards: int = 0


@dataclass
class TractorTable:
    """A table's Tractor state on the board, for the round."""

    levels: list[int] = field(default_factory=lambda: [2, 2])
    level: int = 2
    trump: str = "?"
    declarer: str = ""
    kitty: int = 0
    points: int = 0
    trick: str = ""
    leader: str = ""
    punished: str = ""


def apply(view: TableView, seat: int, kind: str, d: Mapping[str, Any]) -> None:
    """A Tractor event of the seat numbered ``seat``."""
    target = view.seats[seat]
    game: TractorTable = view.game
    if kind == "play":
        cards = faces(d["cards"])
        target.last = cards
        target.game.cards = d["cards_left"]
        if d.get("leading"):
            game.leader, game.trick = target.name, ""
        game.trick = f"{game.trick}  {target.name}: {cards}".strip()
    elif kind == "declare":
        target.last = faces(d["cards"]) if d.get("declared") else "pass"
    elif kind == "trump_candidate":
        game.trump = f"{trump_words(d['suit'])}?"
        game.declarer = target.name
    elif kind == "trump_locked":
        game.trump = trump_words(d["trump_suit"])
        game.level = d["level"]
        game.kitty = d["kitty_count"]
        declarer = d.get("declarer")
        game.declarer = view.seats[declarer].name if declarer is not None else ""
        for index, other in enumerate(view.seats):
            other.game.banker = index == seat
            other.last = ""
    elif kind == "bury":
        target.last = f"buried {d['count']}"
    elif kind == "throw_punished":
        game.punished = f"{target.name}: {faces(d['original'])} → {faces(d['punished'])}"
    elif kind == "trick_won":
        game.points = d["defender_points"]
        game.trick, game.punished = f"won by {target.name}", ""
        for other in view.seats:
            other.last = ""
    elif kind == "round_result":
        view.to_act = view.thinking_since = None
        game.levels = list(d["result"]["levels_after"])
        for other in view.seats:
            other.total += d["scores"].get(other.name, 0)


def seatless(view: TableView, kind: str, d: Mapping[str, Any]) -> None:
    """A Tractor event of no seat: a round's start sets levels, teams and hand sizes."""
    game: TractorTable = view.game
    if kind == "round_started":
        game.levels = list(d.get("levels", game.levels))
        game.level = d.get("level", game.level)
        dealt = d.get("cards", ())
        for index, seat in enumerate(view.seats):
            seat.game.team = index % 2
            seat.game.cards = dealt[index] if index < len(dealt) else 0
            seat.game.banker = index == d.get("banker")
    elif kind == "deal_step":
        for seat, cards in zip(view.seats, d.get("cards", ()), strict=False):
            seat.game.cards = cards


def cells(seat: SeatView) -> list[RenderableType]:
    """A seat's cells in :data:`COLUMNS`: team (庄 for the banker) and cards left."""
    team = Text(f"{'庄 ' if seat.game.banker else ''}team {seat.game.team}")
    team.stylize("bold cyan" if seat.game.team == 0 else "bold magenta")
    return [team, str(seat.game.cards)]


def header(view: TableView) -> Text:
    """The lines under the seats: levels, trump, kitty, points; the trick; a punished
    throw."""
    game: TractorTable = view.game
    levels = "/".join(level_words(x) for x in game.levels)
    declared = f" by {game.declarer}" if game.declarer else ""
    text = Text(
        f"levels {levels} (team 0/1)    level {level_words(game.level)}, "
        f"{game.trump}{declared}    kitty {game.kitty}    defenders {game.points}\n"
    )
    led = f" (led by {game.leader})" if game.leader and not game.trick.startswith("won") else ""
    text.append(f"trick{led}: {game.trick or '—'}")
    if game.punished:
        text.append(f"\n⚠ throw punished: {game.punished}", style="bold red")
    return text


def row_cell(seat: SeatView) -> str:
    """A row's seat cell after the name: ``庄 `` for the banker, team, cards left."""
    return f"{'庄 ' if seat.game.banker else ''}T{seat.game.team} {seat.game.cards}"


class TractorConsole:
    """Tractor's part of the terminal (:class:`arena.sinks.game_console.GameConsole`)."""

    title: Final = TITLE
    legend: Final = LEGEND
    columns: Final = COLUMNS
    actions: Final = ACTIONS
    play_kinds: Final = PLAY_KINDS
    gift_names: Final[Mapping[str, str]] = {}
    gift_reasons: Final[Mapping[str, str]] = {}
    """None by code: Tractor's refusals are sentences already (the engine's, and
    ``arena.games.tractor.gifts.DECLINED``), shown as they are."""

    line = staticmethod(line)
    new_table = TractorTable
    new_seat = TractorSeat
    apply = staticmethod(apply)
    seatless = staticmethod(seatless)
    cells = staticmethod(cells)
    header = staticmethod(header)
    row_cell = staticmethod(row_cell)
