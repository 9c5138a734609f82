"""Gifts for a run of ``arena play``: a desk per table, the sources started, then stopped.

:func:`start_gifts` attaches the desks (:func:`gifts.router.attach_gift_desks`) and
starts each source as a task delivering to the router: the MQTT topic
``<prefix>/gifts/in`` when the run publishes over MQTT, a JSON-lines file replayed with
its timing, and a seeded simulated audience. Once every table's match is over the
sources are stopped (a gift that still arrives is rejected ``match_over``, and said), so
every gift event is out before the run closes its sinks. :meth:`GiftRun.summary` counts
every gift: applied, rejected by reason, expired.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.config import MqttSettings
from arena.logs import get_logger
from arena.table import Table, derive_seed
from gifts.router import GiftRouter, attach_gift_desks
from gifts.settings import GiftSettings
from gifts.tasks import AtTable, cancel_firmly, start_logged

if TYPE_CHECKING:
    from arena.sinks.spectator import SpectatorFeed

__all__ = ["GiftRun", "start_gifts"]

log = get_logger(__name__)


@dataclass
class GiftRun:
    """The run's gifts: the router, and the sources' tasks."""

    router: GiftRouter
    tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    listening: asyncio.Event | None = None
    """Set while the MQTT source is subscribed (None without one)."""

    async def stop(self) -> None:
        """Stop every source, then settle what still waits (expired, and told)."""
        await cancel_firmly(self.tasks)
        await self.router.close()

    def _stop_sources(self) -> None:
        for task in self.tasks:
            task.cancel()

    def counts(self) -> dict[str, Any]:
        """Every gift of the run (all tables): applied, rejected (and by reason), expired;
        ``invalid`` payloads that were no gift, also counted rejected (reason
        ``invalid``), as their events say."""
        totals: dict[str, Any] = {"applied": 0, "rejected": 0, "expired": 0, "invalid": 0}
        reasons: dict[str, int] = {}
        for figures in self.router.figures().values():
            for key in ("applied", "rejected", "expired", "invalid"):
                totals[key] += figures.get(key, 0)
            for reason, count in figures["rejected_by_reason"].items():
                reasons[reason] = reasons.get(reason, 0) + count
        if totals["invalid"]:  # a payload that was no gift is told as rejected 'invalid: ...'
            totals["rejected"] += totals["invalid"]
            reasons["invalid"] = totals["invalid"]
        totals["rejected_by_reason"] = dict(sorted(reasons.items()))
        return totals

    def summary(self) -> str:
        """One line counting every gift of the run (see :meth:`counts`)."""
        return summary_line(self.counts())


def summary_line(counts: Mapping[str, Any]) -> str:
    """``gifts: 3 applied, 2 rejected (2 cooldown), 1 expired``: a run's gift counts in
    one line (``dropped``, where the counts have it, after: gifts no table took)."""
    reasons = counts["rejected_by_reason"]
    why = ", ".join(f"{count} {reason}" for reason, count in reasons.items())
    text = f"gifts: {counts['applied']} applied, {counts['rejected']} rejected"
    text += f" ({why})" if why else ""
    text += f", {counts['expired']} expired"
    if counts.get("dropped"):
        text += f", {counts['dropped']} dropped (no table played after)"
    return text


async def start_gifts(
    tables: Sequence[Table],
    settings: GiftSettings,
    *,
    match_seed: int,
    mqtt: MqttSettings | None = None,
    gift_file: Path | None = None,
    simulate_rate: float | None = None,
    spectator: SpectatorFeed | None = None,
) -> GiftRun:
    """Attach the desks and start the sources (see the module)."""
    from gifts.sources import listen_for_gifts, replay_gift_file, simulate_audience

    router = attach_gift_desks(tables, settings, match_seed=match_seed, spectator=spectator)
    run = GiftRun(router)
    sources: list[Coroutine[Any, Any, Any]] = []
    if mqtt is not None:
        run.listening = asyncio.Event()
        sources.append(listen_for_gifts(mqtt, router, ready=run.listening))
    if gift_file is not None:
        sources.append(replay_gift_file(gift_file, router))
    if simulate_rate is not None:  # an audience of its own at each table
        for table in tables:
            sources.append(
                simulate_audience(
                    AtTable(router, table.table_id),
                    seed=derive_seed(match_seed, table.table_id, "audience"),
                    players=table.names,
                    rate_per_s=simulate_rate,
                    offered=table.game.gift_effects,
                )
            )
    run.tasks = [start_logged(source) for source in sources]
    remaining = {table.table_id for table in tables}

    def ended(table_id: str) -> Any:
        async def hook() -> None:
            remaining.discard(table_id)
            if not remaining:  # no table takes gifts any more
                run._stop_sources()

        return hook

    for table in tables:
        table.match_end_hooks.append(ended(table.table_id))
    return run
