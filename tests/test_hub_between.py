"""The hub between two featured tables (``[server] between_tables_s``, a tournament's
overlay) and between two matches (``arena serve --next-in``): what the pages are told
(``next_at``, ``next``) and when they follow the next table. The hub alone, fed events
as a table would; the browser tests show the screen it drives."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest

from arena.config import ServerSettings
from arena.events import Event
from arena.server.hub import OverlayHub, Subscription
from arena.server.wiring import ArenaServer
from tournaments.schedule import table_place

HOLD_S = 0.3


def event(type_: str, table: str, seq: int, **data: Any) -> Event:
    return Event(type_, table, 1, seq, None, None, data)


def started(hub: OverlayHub, table: str, players: list[str]) -> None:
    hub.on_event(event("match_started", table, 1, players=players))


def ended(hub: OverlayHub, table: str) -> None:
    hub.on_event(event("match_ended", table, 2, standings=[]))


def told(page: Subscription) -> list[dict[str, Any]]:
    """The messages waiting for ``page``, read."""
    return [json.loads(page._queue.popleft()) for _ in range(page.pending())]


def tournament_hub(hold_s: float = HOLD_S) -> OverlayHub:
    hub = OverlayHub(run_id="run-1", mode="tournament", between_tables_s=hold_s)
    hub.describe_table = table_place
    return hub


async def test_the_featured_tables_end_is_held_then_the_pages_follow_the_next() -> None:
    hub = tournament_hub()
    page = hub.subscribe("public")
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    started(hub, "s1t2", ["Dee", "Eve", "Fay"])
    told(page)
    before = time.time() * 1000
    ended(hub, "s1t1")
    assert hub.featured == "s1t1"  # still the table that ended: the pages wait on it
    assert hub.next_at is not None
    assert before + HOLD_S * 1000 - 50 <= hub.next_at <= time.time() * 1000 + HOLD_S * 1000
    coming = {"table": "s1t2", "players": ["Dee", "Eve", "Fay"], "stage": 1, "index": 2}
    assert hub.upcoming == coming
    servers = [m for m in told(page) if m["type"] == "server"]
    assert servers[-1]["next_at"] == hub.next_at
    assert servers[-1]["next"] == coming
    assert servers[-1]["table"] == "s1t1"
    assert hub.server_state()["next_at"] == hub.next_at  # /healthz says it too
    await asyncio.sleep(HOLD_S + 0.2)
    assert hub.featured == "s1t2"
    assert hub.next_at is None
    assert hub.upcoming is None
    after = told(page)
    assert [m["next_at"] for m in after if m["type"] == "server"][-1] is None
    assert after[-1]["type"] == "snapshot"
    assert after[-1]["table"] == "s1t2"


async def test_a_table_that_starts_during_the_hold_is_named_next() -> None:
    """The end of a stage: no table plays when the featured one ends, the next stage's
    first table starts during the hold: the pages are told it, then follow it."""
    hub = tournament_hub()
    page = hub.subscribe("public")
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    ended(hub, "s1t1")
    assert hub.next_at is not None
    assert hub.upcoming is None  # nothing known yet
    told(page)
    started(hub, "s2t1", ["Bob", "Cid", "Dee"])
    assert hub.featured == "s1t1"
    assert hub.upcoming == {
        "table": "s2t1",
        "players": ["Bob", "Cid", "Dee"],
        "stage": 2,
        "index": 1,
    }
    assert [m["next"] for m in told(page) if m["type"] == "server"][-1] == hub.upcoming
    await asyncio.sleep(HOLD_S + 0.2)
    assert hub.featured == "s2t1"
    assert hub.next_at is None


async def test_when_no_table_plays_at_the_holds_end_the_next_to_start_is_followed() -> None:
    hub = tournament_hub()
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    ended(hub, "s1t1")
    await asyncio.sleep(HOLD_S + 0.2)
    assert hub.featured == "s1t1"
    assert hub.next_at is None
    started(hub, "s2t1", ["Bob", "Cid", "Dee"])
    assert hub.featured == "s2t1"  # at once: no hold before a table that just starts


async def test_off_the_pages_follow_the_next_table_at_once() -> None:
    hub = tournament_hub(hold_s=0)
    page = hub.subscribe("public")
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    started(hub, "s1t2", ["Dee", "Eve", "Fay"])
    ended(hub, "s1t1")
    assert hub.featured == "s1t2"
    assert hub.next_at is None
    assert hub.upcoming is None
    assert all(m["next_at"] is None for m in told(page) if m["type"] == "server")


async def test_a_table_not_featured_ending_holds_nothing() -> None:
    hub = tournament_hub()
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    started(hub, "s1t2", ["Dee", "Eve", "Fay"])
    ended(hub, "s1t2")
    assert hub.featured == "s1t1"
    assert hub.next_at is None


async def test_the_streamers_pick_during_the_hold_ends_it_at_once() -> None:
    hub = tournament_hub(hold_s=30)
    page = hub.subscribe("public")
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    started(hub, "s1t2", ["Dee", "Eve", "Fay"])
    started(hub, "s1t3", ["Gus", "Hal", "Ivy"])
    ended(hub, "s1t1")
    assert hub.upcoming is not None
    assert hub.upcoming["table"] == "s1t2"
    told(page)
    hub.feature("s1t3")
    assert hub.featured == "s1t3"
    assert hub.next_at is None
    assert hub.upcoming is None
    messages = told(page)
    assert [m["next_at"] for m in messages if m["type"] == "server"][-1] is None
    assert messages[-1]["table"] == "s1t3"


async def test_a_new_run_ends_the_hold() -> None:
    hub = tournament_hub(hold_s=30)
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    ended(hub, "s1t1")
    assert hub.next_at is not None
    hub.reset("run-2")
    assert hub.next_at is None
    assert hub.upcoming is None
    await asyncio.sleep(0)  # (no timer left behind to fire)


def test_outside_a_loop_the_featured_table_is_left_at_once() -> None:
    """Folded outside an event loop (no timer to end a hold): no hold at all."""
    hub = tournament_hub()
    started(hub, "s1t1", ["Ann", "Bob", "Cid"])
    started(hub, "s1t2", ["Dee", "Eve", "Fay"])
    ended(hub, "s1t1")
    assert hub.featured == "s1t2"
    assert hub.next_at is None


def test_the_next_match_of_arena_serve_names_its_players() -> None:
    hub = OverlayHub(run_id="run-1", mode="serve")
    page = hub.subscribe("public")
    at = int(time.time() * 1000) + 30_000
    hub.set_next(at, players=["Ann", None, "Cid"])
    last = told(page)[-1]
    assert last["next_at"] == at
    assert last["next"] == {"players": ["Ann", None, "Cid"]}
    hub.set_next(None, players=["Ann", None, "Cid"])  # nothing due: nothing coming
    last = told(page)[-1]
    assert last["next_at"] is None
    assert last["next"] is None


@pytest.mark.parametrize(("mode", "hold_s"), [("tournament", 7.5), ("play", 0.0), ("serve", 0.0)])
def test_only_a_tournaments_server_holds_between_tables(mode: str, hold_s: float) -> None:
    server = ArenaServer(ServerSettings(port=0, between_tables_s=7.5), mode=mode, token="t")  # type: ignore[arg-type]
    assert server.hub.between_tables_s == hold_s


def test_the_default_hold_is_a_few_seconds_and_zero_is_allowed() -> None:
    assert 0 < ServerSettings().between_tables_s <= 10
    assert ServerSettings(between_tables_s=0).between_tables_s == 0
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        ServerSettings(between_tables_s=-1)


@pytest.mark.parametrize(
    ("table", "place"),
    [
        ("s2t1", {"stage": 2, "index": 1}),
        ("s10t12.3", {"stage": 10, "index": 12, "seating": 3}),
        ("t1", {}),
        ("s1t1x", {}),
    ],
)
def test_a_tables_place_is_read_from_its_id(table: str, place: dict[str, int]) -> None:
    assert table_place(table) == place
