"""Issue 27, the session around a match: ``arena play --serve`` run as a streamer runs it
(a real process) keeps serving once the match is over, and an overlay opened then, in
either layout and either language, shows the final standings, not a frozen table or
"connecting"."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator

import httpx
import pytest
from playwright.async_api import Browser
from test_overlay_browser import (  # noqa: F401 (browser: a fixture)
    LANDSCAPE,
    PORTRAIT,
    browser,
    open_page,
    shot,
)
from test_overlay_story_browser import MATCH_CARD, card_of, inside, settled
from test_server_cli import arena, lines_until

PLAYERS = ["Alpha", "Beta", "Gamma"]  # the built-in seats


@pytest.fixture(scope="module")
def ended_show() -> Iterator[str]:
    """An ``arena play --serve`` whose match of two rounds is over: the server's URL."""
    process = arena(
        *("play", "--serve", "--port", "0", "--no-live", "--rounds", "2", "--seed", "5"),
        *("--pace", "0", "--round-pause", "0"),
    )
    try:
        found, _ = lines_until(process.stderr, r"overlay: (http://127\.0\.0\.1:\d+)/overlay")
        base = found.group(1)
        deadline = time.monotonic() + 60
        while httpx.get(f"{base}/healthz", timeout=5).json()["match"] != "ended":
            assert time.monotonic() < deadline, "the match did not end"
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        assert process.wait(timeout=20) == 0  # the show ends cleanly on SIGTERM
        assert process.stderr is not None
        process.stderr.close()
        assert process.stdout is not None
        process.stdout.close()


@pytest.mark.parametrize(
    ("layout", "lang", "ended", "title"),
    [
        ("landscape", "zh", "已结束", "比赛结束 · 共 2 局"),
        ("portrait", "en", "Ended", "Final standings · 2 rounds"),
        ("landscape", "en", "Ended", "Final standings · 2 rounds"),
        ("portrait", "zh", "已结束", "比赛结束 · 共 2 局"),
    ],
)
async def test_after_the_match_the_overlay_shows_the_final_standings(
    browser: Browser,  # noqa: F811 (the fixture)
    ended_show: str,
    layout: str,
    lang: str,
    ended: str,
    title: str,
) -> None:
    viewport = LANDSCAPE if layout == "landscape" else PORTRAIT
    await asyncio.sleep(0.5)  # the match is over some time already: still served
    async with httpx.AsyncClient() as client:
        health = (await client.get(f"{ended_show}/healthz", timeout=5)).json()
    assert health["match"] == "ended"
    page, trouble = await open_page(
        browser, f"{ended_show}/overlay?layout={layout}&lang={lang}", viewport
    )
    try:
        shown = await card_of(page, MATCH_CARD)
        assert sorted(row[1] for row in shown["rows"]) == PLAYERS
        assert [row[0] for row in shown["rows"]] == ["1", "2", "3"]
        assert await page.text_content("#status") == ended
        assert await page.text_content("#match-card .story-title") == title
        await inside(page, "#match-card", viewport)
        await settled(page)
        await shot(page, f"session-ended-{layout}-{lang}")
        assert trouble == []
    finally:
        await page.close()


def test_the_standings_are_the_matchs(ended_show: str) -> None:
    """What the page shows is the table's: the hub's story says the same totals."""
    import websockets.sync.client as ws_client

    with ws_client.connect(ended_show.replace("http://", "ws://") + "/ws") as ws:
        story = None
        for _ in range(10):
            message = json.loads(ws.recv(timeout=10))
            if message.get("type") == "snapshot":
                story = message["story"]
                break
    assert story is not None
    ended = story["match"]["data"]
    assert sorted(ended["players"]) == PLAYERS
    assert len(story["rounds"]) == 2
    last_totals = story["rounds"][-1]["totals"]
    assert ended["totals"] == last_totals
