"""Viewer gifts in a tournament: ranked mode, a desk per table while it plays.

``arena play`` knows its tables before the match and gives each a desk for the whole
run (:func:`gifts.router.attach_gift_desks`). A tournament's tables come and go, stage
by stage (``s<stage>t<index>``), so :class:`TournamentGifts` is the sources' inbox for
the whole run and gives a table its desk when its match starts
(:meth:`TournamentGifts.attach`) and takes it back when it ends
(:meth:`TournamentGifts.detach`). A gift goes to the table it names while that table
plays; one naming a table that is not playing now is rejected ``unknown_table: <id>``
at the first table playing, where the streamer sees it; one naming no table goes to
the first table playing. A gift arriving while no table plays (between stages) waits
for the next table. Every outcome is told through the table's ``emit``, so the store
files it with the table's match.

The mode is always ``ranked`` (the tournament file refuses another): every effect that
could change a result is rejected ``ranked_mode``, the cosmetic ones apply. Imported
only when gifts are on: tournaments without gifts never load the gifts package.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from arena.config import MqttSettings
from arena.logs import get_logger
from arena.table import Table, derive_seed
from gifts.desk import GiftDesk
from gifts.events import GiftEvent
from gifts.router import attach_gift_desks
from gifts.run import summary_line
from gifts.settings import GiftSettings
from gifts.tasks import AtTable, cancel_firmly, start_logged

if TYPE_CHECKING:
    from arena.sinks.spectator import SpectatorFeed

__all__ = ["GiftSources", "TournamentGifts"]

log = get_logger(__name__)


MAX_HELD: Final = 1000
"""Gifts kept while no table plays (between stages); more are dropped, and counted."""


@dataclass(frozen=True)
class GiftSources:
    """Where a tournament's gifts come from (any of them, or several)."""

    mqtt: MqttSettings | None = None
    """Read ``<prefix>/gifts/in`` on this broker."""
    gift_file: Path | None = None
    """Replay a JSON-lines file, its ``at`` counted from the tournament's start."""
    simulate_rate: float | None = None
    """A simulated audience at each table while it plays, gifts a second."""

    def described(self) -> list[str]:
        """Each source as a phrase, for the line that says where gifts come from."""
        from gifts.sources import gifts_topic

        said = []
        if self.mqtt is not None:
            said.append(f"MQTT topic {gifts_topic(self.mqtt)}")
        if self.gift_file is not None:
            said.append(f"the file {self.gift_file}")
        if self.simulate_rate is not None:
            said.append(f"a simulated audience ({self.simulate_rate:g} a second)")
        return said


class TournamentGifts:
    """The sources' inbox for a tournament, and the desks of the tables playing (see
    the module). :meth:`start` once the seed is known, :meth:`stop` at the end."""

    def __init__(self, settings: GiftSettings, sources: GiftSources) -> None:
        self.settings = settings.model_copy(update={"mode": "ranked"})
        self.sources = sources
        self.live: dict[str, GiftDesk] = {}
        """The desks of the tables playing now, in the order they started."""
        self.desks: dict[str, GiftDesk] = {}
        """Every desk of the run by table (ids are unique in a tournament), for the counts."""
        self.listening = asyncio.Event() if sources.mqtt is not None else None
        """Set while the MQTT source is subscribed (None without one)."""
        self.dropped = 0
        """Gifts that came while no table played and found no table after."""
        self._seed = 0
        self._spectator: SpectatorFeed | None = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._audiences: dict[str, asyncio.Task[Any]] = {}
        self._held: list[GiftEvent | tuple[str, str | None, str | None]] = []

    # --- the run ------------------------------------------------------------------------

    def start(self, seed: int, *, spectator: SpectatorFeed | None = None) -> None:
        """Start the run's sources (the MQTT topic, the file); audiences come per table.
        A PEEK's cards go to the ``spectator`` feed (delayed), and nowhere else."""
        from gifts.sources import listen_for_gifts, replay_gift_file

        self._seed = seed
        self._spectator = spectator
        sources: list[Coroutine[Any, Any, Any]] = []
        if self.sources.mqtt is not None:
            sources.append(listen_for_gifts(self.sources.mqtt, self, ready=self.listening))
        if self.sources.gift_file is not None:
            sources.append(replay_gift_file(self.sources.gift_file, self))
        self._tasks = [start_logged(source) for source in sources]

    async def stop(self) -> None:
        """Stop every source, then settle what still waits at a desk (expired, told).
        A gift held for a next table that never came is counted ``dropped``."""
        await cancel_firmly([*self._tasks, *self._audiences.values()])
        self._audiences.clear()
        for desk in list(self.live.values()):
            if not desk.closed:
                await desk.close()
        self.live.clear()
        if self._held:
            self.dropped += len(self._held)
            log.warning("gifts_unheard", count=len(self._held), reason="no table played after")
            self._held.clear()

    # --- tables -------------------------------------------------------------------------

    async def attach(self, table: Table) -> None:
        """Give ``table`` its desk before its match starts (and its audience, if any);
        gifts held while no table played go to it now."""
        router = attach_gift_desks(
            [table], self.settings, match_seed=self._seed, spectator=self._spectator
        )
        desk = router.desks[table.table_id]
        self.live[table.table_id] = desk
        self.desks[table.table_id] = desk

        async def gone() -> None:  # first of the hooks: a later gift goes elsewhere
            self.live.pop(table.table_id, None)
            self._stop_audience(table.table_id)

        table.match_end_hooks.insert(0, gone)
        rate = self.sources.simulate_rate
        if rate is not None:
            from gifts.sources import simulate_audience

            self._audiences[table.table_id] = start_logged(
                simulate_audience(
                    AtTable(self, table.table_id),
                    seed=derive_seed(self._seed, table.table_id, "audience"),
                    players=table.names,
                    rate_per_s=rate,
                    offered=table.game.gift_effects,
                )
            )
        held, self._held = self._held, []
        for item in held:
            if isinstance(item, GiftEvent):
                await self.accept(item)
            else:
                reason, event_id, platform = item
                await self.refuse(reason, event_id=event_id, platform=platform)

    async def detach(self, table: Table) -> None:
        """The table's match is over or cut off (a session's end, an interruption): its
        desk closes (what waits there expires, told) and takes no more gifts."""
        self.live.pop(table.table_id, None)
        self._stop_audience(table.table_id)
        desk = self.desks.get(table.table_id)
        if desk is not None and not desk.closed:
            await desk.close()

    def _stop_audience(self, table_id: str) -> None:
        task = self._audiences.pop(table_id, None)
        if task is not None:
            task.cancel()

    # --- the inbox ----------------------------------------------------------------------

    async def accept(self, gift: GiftEvent) -> None:
        """A gift from a source: to its table's desk while it plays (see the module)."""
        if not self.live:
            self._hold(gift)
            return
        desk = self.live.get(gift.table) if gift.table else next(iter(self.live.values()))
        if desk is not None:
            await desk.submit(gift)
            return
        first = next(iter(self.live.values()))
        first.queue.refuse(
            gift,
            first.settings.effect_for(gift),
            f"unknown_table: {gift.table}",
            now=time.monotonic(),
            target=gift.target_seat,
        )
        await first.tell()

    async def refuse(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        """A payload that is no gift: told at the first table playing."""
        if not self.live:
            self._hold((reason, event_id, platform))
            return
        first = next(iter(self.live.values()))
        await first.refuse_payload(reason, event_id=event_id, platform=platform)

    def _hold(self, item: GiftEvent | tuple[str, str | None, str | None]) -> None:
        if len(self._held) < MAX_HELD:
            self._held.append(item)
        else:
            self.dropped += 1

    # --- what happened ------------------------------------------------------------------

    def counts(self) -> dict[str, Any]:
        """Every gift of the run: applied, rejected (and by reason), expired, dropped
        (a payload that was no gift counts rejected ``invalid``, as its event says)."""
        totals: dict[str, Any] = {"applied": 0, "rejected": 0, "expired": 0}
        reasons: dict[str, int] = {}
        for desk in self.desks.values():
            figures = desk.figures
            for key in ("applied", "rejected", "expired"):
                totals[key] += figures.get(key, 0)
            for reason, count in figures["rejected_by_reason"].items():
                reason = reason.split(":")[0]  # unknown_table: s1t9 → unknown_table
                reasons[reason] = reasons.get(reason, 0) + count
            if figures["invalid"]:
                totals["rejected"] += figures["invalid"]
                reasons["invalid"] = reasons.get("invalid", 0) + figures["invalid"]
        totals["rejected_by_reason"] = dict(sorted(reasons.items()))
        totals["dropped"] = self.dropped
        return totals

    def summary(self) -> str:
        """One line counting every gift of the run (see :meth:`counts`)."""
        return summary_line(self.counts())
