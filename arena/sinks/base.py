"""Where public events go: the terminal, a replay, later MQTT and the overlay.

A sink is anything with async ``emit`` and ``close``. A sink that fails is counted and
logged, and gets the next event all the same (:mod:`arena.sinks.health`): a broken
display must never stop a match, and one bad event must not cost a sink the rest of it.

A table awaits its sinks' ``emit`` in turn, so a slow sink would slow every table it is
attached to. ``arena play`` puts each sink behind its own bounded queue and task
(:class:`arena.sinks.queued.QueuedSink`, :func:`arena.sinks.queued.queued_sinks`); a
sink handed straight to ``Table(sinks=[...])`` gets each event at once, as tests want.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from arena.events import Event

__all__ = ["CollectingSink", "Sink"]


@runtime_checkable
class Sink(Protocol):
    """Receives every public event of the tables it is attached to, in order."""

    async def emit(self, event: Event) -> None:
        """Handle one event; should return quickly (or be wrapped in a ``QueuedSink``)."""
        ...

    async def close(self) -> None:
        """Flush and release resources; called once when the match ends."""
        ...


class CollectingSink:
    """Keeps every event in a list: for tests and for programs embedding the arena."""

    def __init__(self) -> None:
        self.events: list[Event] = []

    async def emit(self, event: Event) -> None:
        """Store the event."""
        self.events.append(event)

    async def close(self) -> None:
        """Nothing to release."""

    def of_type(self, *types: str) -> list[Event]:
        """The stored events of the given types, in order."""
        return [e for e in self.events if e.type in types]
