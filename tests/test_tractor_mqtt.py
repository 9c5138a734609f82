"""``arena play --game tractor --mqtt``: a Tractor match on a real broker, its events
naming the game, the retained snapshot Tractor's, and the delayed spectator feed
showing every hand."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from typing import Any

from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import REPO, Subscriber, subscribed


def test_a_tractor_match_publishes_its_events_snapshot_and_hands(mosquitto: Mosquitto) -> None:
    command = [
        *(sys.executable, "-m", "arena.cli", "play", "--game", "tractor", "--no-live"),
        *("--rounds", "1", "--seed", "6", "--mqtt", mosquitto.url, "--spectator-delay", "0.2"),
    ]

    async def run() -> tuple[subprocess.CompletedProcess[str], Subscriber]:
        async with subscribed(mosquitto) as subscriber:
            done = await asyncio.to_thread(
                subprocess.run,
                command,
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=90,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            await subscriber.wait_for(
                lambda ms: ("ddz-arena/status", "offline", False) in ms, within_s=10
            )
            return done, subscriber

    done, subscriber = asyncio.run(run())
    assert done.returncode == 0, done.stderr
    events = subscriber.events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert {e["game"] for e in events} == {"tractor"}
    kinds = {e["type"] for e in events}
    assert {"trump_locked", "bury", "play", "trick_won", "round_result"} <= kinds
    state = subscriber.last("ddz-arena/tables/t1/state")
    assert state["status"] == "ended"
    assert len(state["seats"]) == 4
    result = next(e for e in events if e["type"] == "round_result")["data"]["result"]
    assert state["levels"] == result["levels_after"]
    for event in events:  # no public event names a card still hidden
        if event["type"] in ("trump_locked", "kitty_taken", "bury"):
            assert not _cards_in(event["data"])
    items: list[dict[str, Any]] = [
        p for t, p, _ in subscriber.messages if t == "ddz-arena/tables/t1/spectator"
    ]
    hands = [item for item in items if item.get("kind") == "hands"]
    assert hands
    dealt = hands[0]["hands"]
    assert len(dealt) == 4
    assert all(len(hand) == 25 for hand in dealt)


def _cards_in(data: Any) -> list[str]:
    """Every card id in an event's data."""
    if isinstance(data, dict):
        return [c for value in data.values() for c in _cards_in(value)]
    if isinstance(data, list):
        return [c for value in data for c in _cards_in(value)]
    return [data] if isinstance(data, str) and data[:3] in ("D1_", "D2_") else []
