"""A run's gifts: one desk per table, and the inbox every source delivers to.

:func:`attach_gift_desks` puts a :class:`~gifts.desk.GiftDesk` beside each table (its
safe points, its between-rounds hook, its ``emit``) and returns the
:class:`GiftRouter`, which the sources (the MQTT topic, a file, a simulated audience)
deliver to: each gift goes to the table it names, else the default table (the config's
``default_table``, else the first). A gift for a table that does not exist is rejected
``unknown_table: <table>`` at the default table, where the streamer sees it; a payload that is
no gift is told there too, with what is wrong.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from arena.errors import ConfigError
from arena.table import Table
from gifts.desk import GiftDesk
from gifts.events import GiftEvent
from gifts.queue import Pending
from gifts.settings import GiftSettings

if TYPE_CHECKING:
    from arena.sinks.spectator import SpectatorFeed

__all__ = ["GiftRouter", "attach_gift_desks"]

_HOLD_AT_MOST_S = 0.001
"""How long gifts handled back to back may hold the event loop before the tables get it."""


class GiftRouter:
    """The sources' inbox (:class:`gifts.sources.Inbox`): each gift to its table's desk."""

    def __init__(self, desks: Mapping[str, GiftDesk], *, default_table: str) -> None:
        if default_table not in desks:
            known = ", ".join(desks)
            raise ConfigError(f"gifts.default_table: no table {default_table!r} (tables: {known})")
        self.desks = dict(desks)
        self.default_table = default_table
        self._yielded_at = time.perf_counter()

    async def accept(self, gift: GiftEvent) -> None:
        """A gift from a source, to the desk of its table. A source catching up on a
        backlog calls this back to back: every millisecond or so it lets the tables
        have the loop, so a burst of gifts never holds a turn up."""
        if time.perf_counter() - self._yielded_at > _HOLD_AT_MOST_S:
            await asyncio.sleep(0)
            self._yielded_at = time.perf_counter()
        desk = self.desks.get(gift.table or self.default_table)
        if desk is None:
            default = self.desks[self.default_table]
            effect = default.settings.effect_for(gift)
            default.queue.refuse(
                gift,
                effect,
                f"unknown_table: {gift.table}",
                now=time.monotonic(),
                target=gift.target_seat,
            )
            await default.tell()
            return
        await desk.submit(gift)

    async def refuse(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        """A payload that is no gift: told at the default table, with the reason."""
        await self.desks[self.default_table].refuse_payload(
            reason, event_id=event_id, platform=platform
        )

    async def close(self) -> None:
        """Every table's match is over: what still waits expires, all of it told."""
        for desk in self.desks.values():
            if not desk.closed:
                await desk.close()

    def figures(self) -> dict[str, dict[str, Any]]:
        """Each table's outcomes by status and reason (every gift accounted for)."""
        return {table: desk.figures for table, desk in self.desks.items()}


def attach_gift_desks(
    tables: Sequence[Table],
    settings: GiftSettings,
    *,
    match_seed: int,
    spectator: SpectatorFeed | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> GiftRouter:
    """A desk beside each table (its safe points, its break between rounds, its events),
    and the router the sources deliver to. A PEEK's cards go to the ``spectator`` feed
    (delayed, hidden information) and nowhere else; without one, a PEEK shows only who
    peeked at whom."""
    desks: dict[str, GiftDesk] = {}
    for table in tables:
        desk = GiftDesk(
            settings,
            players=table.names,
            match_seed=match_seed,
            game=table.game,
            offered=table.game.gift_effects,
            clock=clock,
            on_peek=(
                _peek_to(spectator, table.table_id, table.game.name)
                if spectator is not None
                else None
            ),
        )
        desk.attach(table.emit, ready=_match_started(table))
        table.safe_points.append(desk.at_safe_point)
        table.between_rounds.append(desk.between_rounds)
        table.match_end_hooks.append(desk.close)
        desks[table.table_id] = desk
    default = settings.default_table or tables[0].table_id
    return GiftRouter(desks, default_table=default)


def _match_started(table: Table) -> Callable[[], bool]:
    """Whether the table's match has begun (``start_match`` names it, just before
    ``match_started``)."""
    return lambda: table.match_id is not None


def _peek_to(
    spectator: SpectatorFeed, table_id: str, game: str
) -> Callable[[Pending, int, list[str]], None]:
    recorder = spectator.for_table(table_id, game)

    def peek(pending: Pending, seat: int, cards: list[str]) -> None:
        recorder.note(
            "peek",
            {"gift": pending.id, "viewer": pending.gift.shown_name, "seat": seat, "cards": cards},
        )

    return peek
