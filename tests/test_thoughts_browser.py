"""Model seats on stage in a real browser (issue 27): the delayed /spectator view shows a
model seat's strategy hint and reasoning beside it, after the delay; the live /overlay
never does. A real server plays a real match on loopback, the model seat asking the fake
OpenAI-compatible provider, which returns ``reasoning_content`` as DeepSeek does.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from fake_providers import (
    FakeOpenAI,
    RecordedRequest,
    Reply,
    answer,
    legal_answer,
    request_in,
    shared_clients,  # noqa: F401 (an autouse fixture)
)
from playwright.async_api import Browser, Page
from test_overlay_browser import (  # noqa: F401 (browser: a fixture)
    EVIL,
    MODEL_KEY,
    MODEL_KEY_ENV,
    PORTRAIT,
    TOKEN,
    browser,
    model_seat_config,
    open_page,
    shot,
)

from arena.config import ServerSettings
from arena.runner import build_tables, play_tables
from arena.server.wiring import ArenaServer
from arena.sinks.spectator import SpectatorFeed

HINT = f"keep the pairs {EVIL}"
REASONING = f"The landlord is low on cards. {EVIL} So the lowest single it is, 留着对子."
SHOWN = "留着对子"
"""A piece of the reasoning that only a thought box could put on a page."""


def thinking_model(recorded: RecordedRequest) -> Reply:
    """A legal decision with a hostile hint, and reasoning beside it."""
    decision = legal_answer(request_in(recorded))
    decision["strategy_hint"] = HINT
    return answer(recorded, decision, reasoning=REASONING)


async def box_geometry(page: Page) -> dict[str, object]:
    """The thought box of seat 0: inside the frame, over no seat panel?"""
    result: dict[str, object] = await page.evaluate(
        """() => {
          const root = document.getElementById("overlay").getBoundingClientRect();
          const box = document.querySelector('#thoughts .thought[data-seat="0"]')
            .getBoundingClientRect();
          const hit = (a, b) => Math.min(a.right, b.right) > Math.max(a.left, b.left)
            && Math.min(a.bottom, b.bottom) > Math.max(a.top, b.top);
          const panels = [...document.querySelectorAll(".seat-panel")]
            .map((p) => p.getBoundingClientRect());
          return {
            inside: box.left >= root.left && box.top >= root.top
              && box.right <= root.right + 0.5 && box.bottom <= root.bottom + 0.5,
            overPanel: panels.some((p) => hit(p, box)),
            images: document.querySelectorAll("#thoughts img").length,
          };
        }"""
    )
    return result


async def test_the_spectator_view_shows_a_model_seats_thoughts_and_the_overlay_never(
    browser: Browser,  # noqa: F811 (the fixture, imported)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(MODEL_KEY_ENV, MODEL_KEY)
    delay = 1.5
    with FakeOpenAI(api_key=MODEL_KEY, respond=thinking_model) as provider:
        cfg = model_seat_config(provider.base_url, third="Gamma")
        server = ArenaServer(
            ServerSettings(port=0), mode="play", token=TOKEN, spectator_delay_s=delay
        )
        async with server:
            feed = SpectatorFeed([server.hub], delay_s=delay)
            feed.start()
            wide, wide_trouble = await open_page(browser, f"{server.url}/spectator?lang=en")
            tall, tall_trouble = await open_page(
                browser, f"{server.url}/spectator?layout=portrait", PORTRAIT
            )
            live, live_trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
            tables = build_tables(cfg, seed=11, sinks=[server.hub], sink_queue=None, spectator=feed)
            started = time.monotonic()
            game = asyncio.create_task(play_tables(tables, rounds=1, seed=11))
            try:
                await live.locator(".seat-cards-left").first.wait_for(timeout=10_000)
                early = await wide.locator("#thoughts .thought").count()
                if time.monotonic() - started < delay:  # (a loaded machine may be later)
                    assert early == 0  # not yet
                thought = wide.locator('#thoughts .thought[data-seat="0"]')
                await thought.wait_for(timeout=15_000)
                assert time.monotonic() - started >= delay
                hint = await thought.locator(".thought-hint").text_content() or ""
                reasoning = await thought.locator(".thought-reasoning").text_content() or ""
                await tall.locator('#thoughts .thought[data-seat="0"]').wait_for(timeout=15_000)
                tall_labels = await tall.locator("#thoughts .thought-label").all_text_contents()
                others = await wide.locator("#thoughts .thought").count()
                wide_box = await box_geometry(wide)
                tall_box = await box_geometry(tall)
                await shot(wide, "thoughts-spectator-landscape")
                await shot(tall, "thoughts-spectator-portrait")
                live_text = await live.locator("body").inner_text()
                live_boxes = await live.locator(".thought").count()
            finally:
                await game
                await feed.close()
            await asyncio.sleep(0.3)
            live_text += await live.locator("body").inner_text()
            live_html = await live.content()
    assert hint == f"Strategy{HINT}"  # the label, then the hint as text
    assert reasoning == f"Reasoning{REASONING}"
    assert tall_labels[:2] == ["策略", "思路"]
    assert others == 1  # the scripted seats have nothing in mind to show
    for geometry in (wide_box, tall_box):
        assert geometry == {"inside": True, "overPanel": False, "images": 0}
    # the live overlay: no thought box, no hint, no reasoning, ever
    assert live_boxes == 0
    assert SHOWN not in live_text
    assert "keep the pairs" not in live_text
    assert SHOWN not in live_html
    assert wide_trouble == tall_trouble == live_trouble == []
