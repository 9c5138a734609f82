"""The terminal's sinks: plain lines (:class:`PlainConsoleSink`) or a live board
(:class:`LiveConsoleSink`), for whatever game the tables play.

Plain lines are for scripts, CI and ``--no-live``; the live board (rich) is what a
streamer shows before the web overlay exists. Both end a match with what went wrong
besides the scores: each player's faults by category and the rounds a stand-in played
for it, and each model seat's figures. Plain lines add to each action its decision's
figures, or the seconds of any slow turn.

This module is only the sinks: what reaches them, what they skip, and when the board is
drawn. What an event says as a line is :mod:`arena.sinks.console_lines`, the board's
picture and its drawing :mod:`arena.sinks.console_board`, viewers' gifts
:mod:`arena.sinks.console_gifts`.

Every secret the arena knows is masked in an event as it reaches either console, before
the board cuts any text (:func:`shown_event`): what comes in was masked already, and a
terminal a stream shows is one more place a path nobody thought of could reach.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable
from typing import IO, Final

from rich.console import Console, RenderableType
from rich.live import Live
from rich.text import Text

from arena.events import Event, EventType
from arena.games.registry import DEFAULT_GAME
from arena.masking import masked, secrets_registered
from arena.sinks.console_board import LiveBoard
from arena.sinks.console_lines import EventLines, table_order
from arena.sinks.game_console import console_of

__all__ = [
    "FAULT_HINT",
    "PLAIN_ACTIONS_UP_TO",
    "EventLines",
    "LiveConsoleSink",
    "PlainConsoleSink",
    "shown_event",
]


def shown_event(event: Event) -> Event:
    """The event as a console shows it: every known secret in its data masked (the
    event itself when none is known, as in a scripted match)."""
    if not secrets_registered():
        return event
    return event._replace(data=masked(dict(event.data)))


FAULT_HINT = "details in the log (stderr)"
"""Where ``arena play`` says a rejected reply's detail is (the warning log line)."""


PLAIN_ACTIONS_UP_TO: Final = 100
"""Tables at most whose every action plain lines print; beyond, each round's result (at
10,000 tables every action is about 80 lines a round each: 800,000 lines no one reads,
which cost the process as much as the tables' play)."""

_MATCH_KINDS: Final[frozenset[EventType]] = frozenset(
    {"match_started", "round_started", "turn_started"}
)
"""Every game's events of a match's play (the players are in the match's last line too)."""


def action_kinds(game: str) -> frozenset[EventType]:
    """The events of a match's play, the game's own with them: their only use in plain
    lines is a line each."""
    return _MATCH_KINDS | console_of(game).play_kinds


class PlainConsoleSink:
    """Prints one line per event worth reading, and at a match's end who faulted.

    ``fault_hint`` is added to a match's first fault line, once: where its detail is.
    With ``actions`` false (many tables) the match's play is not printed: faults,
    stand-ins, gifts, each round's result and each match's end are. The kinds it does not
    print are :attr:`skipped_kinds`, which a :class:`~arena.sinks.queued.QueuedSink`
    does not even queue.
    """

    def __init__(
        self,
        stream: IO[str] | None = None,
        *,
        fault_hint: str | None = None,
        clock: Callable[[], float] = time.monotonic,
        actions: bool = True,
        game: str = DEFAULT_GAME,
    ) -> None:
        self._stream = stream or sys.stdout
        self._notes = EventLines(fault_hint, clock=clock)
        self.skipped_kinds: frozenset[str] = frozenset() if actions else action_kinds(game)

    async def emit(self, event: Event) -> None:
        """Print the event's lines, if it has any."""
        if event.type in self.skipped_kinds:
            return
        for line in self._notes.lines(shown_event(event)):
            print(line, file=self._stream, flush=True)

    async def close(self) -> None:
        """After the last match: the model seats' totals over the tables, if any."""
        for line in self._notes.closing_lines():
            print(line, file=self._stream, flush=True)


class LiveConsoleSink:
    """A live board per table (:class:`~arena.sinks.console_board.LiveBoard`), redrawn
    as events come (rich ``Live``).

    Below the final board, when the board is closed, each match's faults and stand-ins
    (what :class:`PlainConsoleSink` prints at its end).
    """

    REDRAW_S = 0.1
    """Rich shows a new frame 10 times a second: drawing more often is wasted work, which
    with 30 tables at full speed was most of the run."""

    def __init__(
        self,
        console: Console | None = None,
        *,
        log_lines: int = 6,
        clock: Callable[[], float] = time.monotonic,
        fault_hint: str | None = None,
    ) -> None:
        self._console = console or Console()
        self._notes = EventLines(fault_hint)  # the board shows a turn's time as it goes
        self._troubles: dict[str, list[str]] = {}
        self._board = LiveBoard(log_lines=log_lines, clock=clock)
        self._live: Live | None = None
        self._clock = clock
        self._drawn_at = 0.0
        self._pending: asyncio.TimerHandle | None = None

    async def emit(self, event: Event) -> None:
        """Update the board, and redraw it now, or at the latest a moment later."""
        event = shown_event(event)  # before the board cuts any text
        if event.type == "gift":
            # counted for the match's end; a refusal like the banner before it only
            # counts on that one
            self._notes.count_gift(event)
            self._board.gift(event)
        else:
            lines = self._notes.lines(event)  # at a match's end: scores, then who faulted
            if event.type == "match_ended":
                self._troubles[event.table] = lines[1:]
            self._board.apply(event, lines[0] if lines else None)
        now = self._clock()
        if self._live is None:
            self._live = Live(
                self._render(), console=self._console, refresh_per_second=1 / self.REDRAW_S
            )
            self._live.start()
            self._drawn_at = now
        elif now - self._drawn_at >= self.REDRAW_S:
            self._redraw()
        elif self._pending is None:
            # Drawn a moment ago: draw this event a moment later, even if no other comes
            # (a model seat's turn_started may be the last event for a minute).
            wait = self.REDRAW_S - (now - self._drawn_at)
            self._pending = asyncio.get_running_loop().call_later(wait, self._redraw)

    def _render(self) -> RenderableType:
        return self._board.render(self._console)

    def _redraw(self) -> None:
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._live is not None:
            self._live.update(self._render())
            self._drawn_at = self._clock()

    async def close(self) -> None:
        """Leave the final board on screen, and below it each match's faults."""
        if self._pending is not None:
            self._pending.cancel()
            self._pending = None
        if self._live is not None:
            self._live.update(self._render())
            self._live.stop()
            self._live = None
        troubles = [  # by table (t2 before t10), not in the order the tables finished
            line
            for table in sorted(self._troubles, key=table_order)
            for line in self._troubles[table]
        ]
        troubles.extend(self._notes.closing_lines())
        if troubles and not self._console.is_terminal:
            self._console.line()  # rich ends a board on a terminal only with a newline
        for line in troubles:
            self._console.print(Text(line))  # wrapped, not cut: every word counts here
        self._troubles = {}
