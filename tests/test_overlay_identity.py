"""Who is who on the overlay (issue 27), in a real browser: a drawn default avatar per
player, distinct and the same after a reload; a colour per seat (``--seat-color``); a
model seat's provider badge; gift banners that name their target; and on ``/control``
the gift targets by name and a live preview of the overlay. Hostile names stay text.

The browser is Debian's chromium, as in ``test_overlay_browser``; screenshots go to
``test-artifacts/``.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fake_overlay_game import events, registered
from fake_providers import FakeOpenAI, legal_model, shared_clients  # noqa: F401 (fixture)
from playwright.async_api import Browser, Page
from test_overlay_browser import (  # noqa: F401 (the browser fixture)
    EVIL,
    LANDSCAPE,
    MODEL_KEY,
    MODEL_KEY_ENV,
    PORTRAIT,
    TOKEN,
    browser,
    model_seat_config,
    open_page,
    play_one_round,
    shot,
)

from arena.config import ServerSettings
from arena.events import Event
from arena.runner import build_tables, play_tables
from arena.server.wiring import ArenaServer

NAMES = [EVIL, "Beta", "甘玛"]

SEAT_LOOKS = """() => [...document.querySelectorAll('.seat')].map((seat) => {
    const svg = seat.querySelector('.seat-avatar-box svg.seat-avatar-default');
    const name = seat.querySelector('.seat-name');
    return {
        color: getComputedStyle(seat).getPropertyValue('--seat-color').trim(),
        underline: getComputedStyle(name).borderBottomColor,
        ring: getComputedStyle(seat.querySelector('.seat-avatar-box')).boxShadow,
        edge: getComputedStyle(seat.querySelector('.seat-panel'), '::before').backgroundColor,
        design: svg ? svg.dataset.design : null,
        title: svg ? svg.querySelector('title').textContent : null,
        cells: svg ? svg.querySelectorAll('rect').length : 0,
    };
})"""


def rgb(hex_color: str) -> str:
    """``#4cc9f0`` as a computed style says it: ``rgb(76, 201, 240)``."""
    value = hex_color.lstrip("#")
    r, g, b = (int(value[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgb({r}, {g}, {b})"


async def seat_looks(page: Page) -> list[dict[str, Any]]:
    looks: list[dict[str, Any]] = await page.evaluate(SEAT_LOOKS)
    return looks


async def test_each_seat_has_its_colour_and_a_drawn_avatar_the_same_after_a_reload(
    browser: Browser,
) -> None:
    """One match played, then a page in each layout on it."""
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        await play_one_round(server)
        for layout, viewport in (("landscape", LANDSCAPE), ("portrait", PORTRAIT)):
            page, trouble = await open_page(
                browser, f"{server.url}/overlay?layout={layout}", viewport=viewport
            )
            await has_its_colours_and_avatars(page, layout, viewport)
            assert trouble == []


async def has_its_colours_and_avatars(page: Page, layout: str, viewport: dict[str, int]) -> None:
    """Each seat of the ended match on ``page``: its colour, its drawn avatar, the same
    after a reload."""
    await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
    await page.locator(".seat svg.seat-avatar-default").nth(2).wait_for(timeout=5_000)
    looks = await seat_looks(page)
    pictures = [
        await page.locator(f'.seat[data-seat="{i}"] svg.seat-avatar-default').screenshot()
        for i in range(3)
    ]
    boxes = [await a.bounding_box() for a in await page.locator(".seat-avatar-box").all()]
    await shot(page, f"identity-seats-{layout}")
    await page.reload()
    await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
    await page.locator(".seat svg.seat-avatar-default").nth(2).wait_for(timeout=5_000)
    again = await seat_looks(page)
    assert await page.locator(".seat img, .seat-avatar-box svg foreignObject").count() == 0
    colors = [look["color"] for look in looks]
    assert all(color.startswith("#") for color in colors)
    assert len(set(colors)) == 3  # each seat its own colour
    for look in looks:
        # the seat's colour on its name's underline, its avatar's ring and its panel's edge
        assert look["underline"] == rgb(look["color"])
        assert rgb(look["color"]) in look["ring"]
        assert look["edge"] == rgb(look["color"])
    designs = [look["design"] for look in looks]
    assert None not in designs
    assert len(set(designs)) == 3  # three players, three avatars
    assert len(set(pictures)) == 3  # ... and they look different on screen
    assert [look["title"] for look in looks] == NAMES  # the hostile name as text
    assert all(look["cells"] > 4 for look in looks)
    # the same colours and avatars after a reload: compared as drawn (each avatar's
    # design), not as pixels, which a card fading in over the table may touch
    assert again == looks
    for box in boxes:
        assert box is not None
        assert box["width"] > 40
        assert 0 <= box["x"] <= viewport["width"] - box["width"]
        assert 0 <= box["y"] <= viewport["height"] - box["height"]


async def test_four_seats_have_four_colours_and_a_picture_that_fails_is_drawn_instead(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    players = [EVIL, "N", "E", "S"]
    with registered(monkeypatch):
        server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
        server.hub.avatars["N"] = "/avatars/9"  # configured, but the server has no such file
        async with server:
            for event in events("quad", players):
                server.hub.on_event(event)
            server.hub.flush()
            page, trouble = await open_page(browser, f"{server.url}/overlay")
            await page.locator('.seat[data-seat="3"] .seat-play .card').wait_for(timeout=10_000)
            await page.locator('.seat[data-seat="1"] svg.seat-avatar-default').wait_for(
                timeout=10_000
            )
            looks = await seat_looks(page)
            images = await page.locator(".seat-avatar-box img").count()
    assert len({look["color"] for look in looks}) == 4
    assert len({look["design"] for look in looks}) == 4
    assert [look["title"] for look in looks] == players
    assert images == 0  # no broken-image icon
    assert trouble == []


async def test_a_model_seat_shows_its_provider_badge(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL_KEY_ENV, MODEL_KEY)
    with FakeOpenAI(api_key=MODEL_KEY, respond=legal_model) as provider:
        cfg = model_seat_config(provider.base_url, third=EVIL)
        server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
        async with server:
            tables = build_tables(cfg, seed=11, sinks=[server.hub], sink_queue=None)
            await play_tables(tables, rounds=1, seed=11)
            # a seat whose provider and model call themselves markup, and a long model name
            hostile = {"model": EVIL, "provider": EVIL, "legal_first_try": True}
            server.hub.on_event(Event("decision", "t1", 1, 10_000, 2, EVIL, hostile))
            long_model = "Qwen/Qwen2.5-72B-Instruct-Turbo-Preview"
            qwen = {"model": long_model, "provider": "qwen", "legal_first_try": True}
            server.hub.on_event(Event("decision", "t1", 1, 10_001, 1, "Beta", qwen))
            server.hub.flush()
            page, trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
            badge = page.locator('.seat[data-seat="0"] .provider-badge')
            await badge.wait_for(timeout=10_000)
            await page.locator('.seat[data-seat="2"] .provider-badge').wait_for(timeout=10_000)
            shown = await page.locator(".seat .provider-badge").evaluate_all(
                """badges => badges.map(b => ({
                    provider: b.dataset.provider,
                    label: b.querySelector('.badge-provider').textContent,
                    model: b.querySelector('.badge-model').textContent,
                    title: b.title,
                    markup: b.querySelectorAll('img').length,
                }))"""
            )
            await shot(page, "identity-provider-badges")
            portrait, _ = await open_page(
                browser, f"{server.url}/overlay?layout=portrait", viewport=PORTRAIT
            )
            await portrait.locator(".seat .provider-badge").nth(2).wait_for(timeout=10_000)
            badges = [
                await b.bounding_box() for b in await portrait.locator(".provider-badge").all()
            ]
            await shot(portrait, "identity-provider-badges-portrait")
    gpt, qwen_badge, evil = shown
    assert gpt == {
        "provider": "openai",
        "label": "OpenAI",
        "model": "gpt-test",
        "title": "openai · gpt-test",
        "markup": 0,
    }
    assert qwen_badge["label"] == "Qwen"
    assert qwen_badge["model"].endswith("…")  # shortened on the badge ...
    assert len(qwen_badge["model"]) <= 18
    assert long_model in qwen_badge["title"]  # ... whole in its title
    assert evil["provider"] == "other"
    assert evil["label"] == EVIL  # as text
    assert evil["title"] == f"{EVIL} · {EVIL}"
    assert evil["markup"] == 0
    for box in badges:
        assert box is not None
        assert box["x"] >= 0
        assert box["x"] + box["width"] <= PORTRAIT["width"]
    assert trouble == []


async def test_a_gift_banner_names_its_target_in_its_seats_colour(browser: Browser) -> None:
    """One match played, a page per layout and language on it, the same gifts to all."""
    views = [("landscape", "zh"), ("portrait", "en"), ("landscape", "en")]
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        await play_one_round(server)
        pages = []
        for layout, lang in views:
            viewport = LANDSCAPE if layout == "landscape" else PORTRAIT
            page, trouble = await open_page(
                browser, f"{server.url}/overlay?layout={layout}&lang={lang}", viewport=viewport
            )
            await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
            pages.append((page, trouble))
        gifts: list[dict[str, Any]] = [
            {"id": "g1", "status": "applied", "viewer": "小明", "effect": "CHEER", "target": 1},
            {"id": "g2", "status": "applied", "viewer": EVIL, "effect": "CHEER", "target": 0},
            {"id": "g3", "status": "applied", "viewer": "小红", "effect": "EFFECT"},
        ]
        for seq, gift in enumerate(gifts, start=10_000):
            server.hub.on_event(Event("gift", "t1", 1, seq, data=gift))
        # read together: a banner leaves after some seconds
        await asyncio.gather(
            *(
                names_the_targets(page, layout, lang)
                for (page, _), (layout, lang) in zip(pages, views, strict=True)
            )
        )
    for _, trouble in pages:
        assert trouble == []


async def names_the_targets(page: Page, layout: str, lang: str) -> None:
    """The three gifts' banners on ``page``: each names its target, in its seat's colour."""
    viewport = LANDSCAPE if layout == "landscape" else PORTRAIT
    banners = page.locator("#gift-banners .gift-banner")
    await banners.nth(2).wait_for(timeout=10_000)
    texts = await banners.all_text_contents()
    targets = await page.locator("#gift-banners .gift-target").evaluate_all(
        """spans => spans.map(s => ({
            text: s.textContent, seat: s.dataset.seat ?? null, color: getComputedStyle(s).color,
        }))"""
    )
    colors = await seat_looks(page)
    markup = await page.locator("#gift-banners img").count()
    # measured where they rest: after each banner's slide-in
    await page.wait_for_function(
        "[...document.querySelectorAll('#gift-banners .gift-banner')]"
        ".every(b => b.getAnimations().length === 0)"
    )
    panels = [await b.bounding_box() for b in await banners.all()]
    await shot(page, f"identity-gift-banners-{layout}-{lang}")
    cheer = "加油" if lang == "zh" else "Cheer"
    everyone = "全场" if lang == "zh" else "everyone"
    effect = "特效" if lang == "zh" else "Effect"
    assert texts[0].endswith(f"小明 → Beta: {cheer}")
    assert texts[1].endswith(f"{EVIL} → {EVIL}: {cheer}")  # both as text
    assert texts[2].endswith(f"小红 → {everyone}: {effect}")
    assert targets[0] == {"text": "Beta", "seat": "1", "color": rgb(colors[1]["color"])}
    assert targets[1] == {"text": EVIL, "seat": "0", "color": rgb(colors[0]["color"])}
    assert targets[2]["seat"] is None
    assert markup == 0
    for box in panels:
        assert box is not None
        assert box["x"] >= 0
        assert box["y"] >= 0
        assert box["x"] + box["width"] <= viewport["width"]
        assert box["y"] + box["height"] <= viewport["height"]


async def test_the_control_page_offers_targets_by_name_and_previews_the_overlay(
    browser: Browser,
) -> None:
    class Gifts:
        effects = ("CHEER", "EFFECT")

    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    server.parts.gifts = Gifts()  # type: ignore[assignment]
    async with server, httpx.AsyncClient(base_url=server.url) as http:
        await play_one_round(server)
        page, trouble = await open_page(browser, f"{server.url}/control")
        await page.fill("#token", TOKEN)
        await page.click("#login")
        await page.locator("#auth-status[data-state=ok]").wait_for(timeout=5_000)
        options = await page.locator("#gift-target option").evaluate_all(
            "options => options.map(o => [o.value, o.textContent])"
        )
        assert await page.locator("#gift-target img").count() == 0
        frame = page.frame_locator("#preview")
        await frame.locator("#status[data-status=ended]").wait_for(timeout=10_000)
        framed = await frame.locator(".seat .seat-name").all_text_contents()
        preview = await page.locator("#preview").bounding_box()
        main = await page.locator("main").bounding_box()
        await shot(page, "identity-control-preview")
        await page.select_option("#preview-layout", "portrait")
        await page.wait_for_function(
            "() => document.querySelector('#preview').getAttribute('src')"
            " === '/overlay?layout=portrait&sound=0&preview=1'"
        )
        portrait = page.frame_locator("#preview")
        await (
            portrait.locator('#overlay[data-layout="portrait"] .seat')
            .nth(2)
            .wait_for(timeout=10_000)
        )
        tall = await page.locator("#preview").bounding_box()
        await shot(page, "identity-control-preview-portrait")
        # the controls are still framed by nobody (the preview is the overlay, not them)
        headers = (await http.get("/control")).headers
    assert options == [
        ["", "无 None"],
        ["0", f"{EVIL} (座位 Seat 1)"],
        ["1", "Beta (座位 Seat 2)"],
        ["2", "甘玛 (座位 Seat 3)"],
    ]
    assert framed == NAMES
    assert preview is not None
    assert main is not None
    assert preview["width"] <= main["width"]
    assert abs(preview["width"] / preview["height"] - 16 / 9) < 0.02
    assert tall is not None
    assert abs(tall["width"] / tall["height"] - 9 / 16) < 0.02
    assert headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert trouble == []
