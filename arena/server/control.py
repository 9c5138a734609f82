"""The streamer's controls: start a match, pause after this round, resume.

Pure asyncio, no HTTP: the control page's handlers call these, and the tables wait on
:meth:`MatchControl.gate` between two rounds (a between-rounds hook, and before a
tournament's table match begins). A pause never cuts into a round: the round being
played ends, then every table waits at its next gate until :meth:`resume`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from arena.table import BetweenRoundsHandle, Table

__all__ = ["MatchControl"]


class MatchControl:
    """Start, pause and resume, shared by every table of the server."""

    def __init__(self, *, started: bool = True, on_change: Callable[[], None] | None = None):
        self._start = asyncio.Event()
        if started:
            self._start.set()
        self._running = asyncio.Event()
        self._running.set()
        self._open = asyncio.Event()
        """What a gate waits on: set while running, and for good once released."""
        self._open.set()
        self.released = False
        """A stop was asked (:meth:`release`): no gate holds a table any more."""
        self.waiting_tables = 0
        """Tables held at a gate now (a tournament's next table match among them)."""
        self.waiting: set[str] = set()
        """The ids of the tables held between two rounds now."""
        self._on_change = on_change

    @property
    def started(self) -> bool:
        return self._start.is_set()

    @property
    def pause_requested(self) -> bool:
        """Paused, or about to be: the tables stop at their next gate."""
        return not self._running.is_set()

    @property
    def paused(self) -> bool:
        """At least one table is held at a gate."""
        return self.pause_requested and self.waiting_tables > 0

    def start(self) -> bool:
        """Let the match begin; False if it had already."""
        if self._start.is_set():
            return False
        self._start.set()
        self._changed()
        return True

    def rearm(self) -> None:
        """Wait for the next start (``arena serve``, after a match)."""
        self._start.clear()
        self._changed()

    async def wait_for_start(self) -> None:
        await self._start.wait()

    def pause(self) -> bool:
        """Pause after this round; False if a pause was already asked for."""
        if not self._running.is_set():
            return False
        self._running.clear()
        if not self.released:
            self._open.clear()
        self._changed()
        return True

    def resume(self) -> bool:
        """Play on; False if nothing was paused."""
        if self._running.is_set():
            return False
        self._running.set()
        self._open.set()
        self._changed()
        return True

    def release(self) -> None:
        """Open every gate for good: a stop was asked (Ctrl-C), and a table held by a
        pause must reach the point where it stops rather than wait for a resume that
        will not come. The caller decides whether a released table plays on."""
        self.released = True
        self._open.set()
        self._changed()

    async def gate(self, table_id: str | None = None) -> None:
        """Wait here while paused (called between rounds, never inside one), until
        resumed or released; ``table_id`` names the table held, if one is."""
        if self._open.is_set():
            return
        self.waiting_tables += 1
        if table_id is not None:
            self.waiting.add(table_id)
        self._changed()
        try:
            await self._open.wait()
        finally:
            self.waiting_tables -= 1
            if table_id is not None:
                self.waiting.discard(table_id)
            self._changed()

    def attach(self, table: Table, after_gate: Callable[[], None] | None = None) -> None:
        """Hold ``table`` at the gate before each of its rounds after the first;
        ``after_gate`` runs as the gate lets it go (a tournament ends a table there when
        the gate was released by a stop)."""
        table_id = table.table_id

        async def between_rounds(handle: BetweenRoundsHandle) -> None:
            await self.gate(table_id)
            if after_gate is not None:
                after_gate()

        table.between_rounds.insert(0, between_rounds)

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()
