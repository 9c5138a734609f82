"""The overlay in a real browser (issue 14): Debian's chromium driven by Playwright,
against the real server playing a real scripted match on loopback.

Playwright's own browser download cannot work on these machines, so the browser is the
system's ``chromium`` (``.ci/run`` installs it, with CJK fonts). Screenshots are kept in
``test-artifacts/`` (or ``$ARENA_TEST_ARTIFACTS``) for a person to look at.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_overlay_game import events, registered
from fake_providers import FakeOpenAI, legal_model, shared_clients  # noqa: F401 (fixture)
from playwright.async_api import Browser, FloatRect, Page, async_playwright

from arena.config import ArenaConfig, ServerSettings, parse_config
from arena.events import Event
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.messages import PlayRequest, PlayResponse
from arena.runner import build_tables, play_tables
from arena.server.wiring import ArenaServer
from arena.sinks.spectator import SpectatorFeed
from gifts.run import start_gifts
from gifts.settings import load_gift_settings
from gifts.webhook import WebhookIntake
from protocol import Emotion

EVIL = "<img src=x onerror=alert(1)>"
TOKEN = "browser-test-token"
ARTIFACTS = Path(
    os.environ.get("ARENA_TEST_ARTIFACTS", Path(__file__).parent.parent / "test-artifacts")
)
REPO = Path(__file__).resolve().parent.parent
LANDSCAPE = {"width": 1920, "height": 1080}
PORTRAIT = {"width": 1080, "height": 1920}


class ChattyAgent(HeuristicAgent):
    """The heuristic player, commenting every play (with markup, to be shown as text)."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        reply = await super().play(request)
        return reply.model_copy(
            update={"comment": "看我的 <b>牌</b>!", "emotion": Emotion.CONFIDENT}
        )


class SlowAgent(HeuristicAgent):
    """The heuristic player, taking its time over each play (as a model would)."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(1.5)
        return await super().play(request)


MODEL_KEY_ENV = "ARENA_TEST_OVERLAY_KEY"
MODEL_KEY = "sk-overlay-test-0123456789"


def model_seat_config(base_url: str, *, third: str, prices: bool = False) -> ArenaConfig:
    """A match of one model seat ("GPT", its key in MODEL_KEY_ENV) against two scripted
    seats, the third named ``third``; ``prices`` gives its calls a cost."""
    options: dict[str, Any] = {
        "model": "gpt-test",
        "base_url": base_url,
        "api_key_env": MODEL_KEY_ENV,
        "structured": "none",
    }
    if prices:
        options["prices"] = {"input": 1.0, "output": 2.0}
    return parse_config(
        {
            "match": {"rounds": 1, "seed": 11},
            "table": {"pace_s": 0.0},
            "seats": [
                {"name": "GPT", "type": "openai", "options": options},
                {"name": "Beta", "type": "greedy"},
                {"name": third, "type": "heuristic"},
            ],
        }
    )


def config(rounds: int = 1, pace_s: float = 0.08) -> ArenaConfig:
    return parse_config(
        {
            "match": {"rounds": rounds, "seed": 11},
            "table": {"pace_s": pace_s},
            "seats": [
                {"name": EVIL, "type": "test_overlay_browser:ChattyAgent"},
                {"name": "Beta", "type": "greedy"},
                {"name": "甘玛", "type": "heuristic"},
            ],
        }
    )


@pytest.fixture
async def browser() -> AsyncIterator[Browser]:
    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    assert executable, "the overlay tests need Debian's chromium: apt-get install chromium"
    async with async_playwright() as playwright:
        launched = await playwright.chromium.launch(
            executable_path=executable,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        try:
            yield launched
        finally:
            await launched.close()


async def open_page(
    browser: Browser, url: str, viewport: dict[str, int] = LANDSCAPE
) -> tuple[Page, list[str]]:
    """A page at ``url``; the list collects every dialog and script error it raises."""
    page = await browser.new_page(viewport=viewport)  # type: ignore[arg-type]
    trouble: list[str] = []

    async def dismiss(dialog: Any) -> None:
        trouble.append(f"dialog: {dialog.message}")
        await dialog.dismiss()

    page.on("dialog", dismiss)
    page.on("pageerror", lambda error: trouble.append(f"error: {error}"))
    await page.goto(url)
    return page, trouble


async def shot(page: Page, name: str) -> None:
    """Keep a screenshot for a person to look at (Playwright makes the folder)."""
    await page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


async def test_the_overlay_shows_the_match_as_it_is_played(browser: Browser) -> None:
    cfg = config(rounds=2)
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server, httpx.AsyncClient(base_url=server.url) as http:
        page, trouble = await open_page(browser, f"{server.url}/overlay")
        tables = build_tables(cfg, seed=11, sinks=[server.hub], sink_queue=None)
        server.attach(tables)
        gifts = await start_gifts(
            tables, load_gift_settings({"enabled": True}, source="test"), match_seed=11
        )
        server.parts.gifts = WebhookIntake(gifts.router, secret=TOKEN)
        game = asyncio.create_task(play_tables(tables, rounds=2, seed=11))
        try:
            seats = page.locator(".seat")
            await page.locator(".seat-play .card").first.wait_for(timeout=20_000)
            assert await seats.count() == 3
            names = [await seats.nth(i).locator(".seat-name").text_content() for i in range(3)]
            assert names == [EVIL, "Beta", "甘玛"]  # the markup as text
            assert await page.locator(".seat-name img").count() == 0
            for i in range(3):
                left = await seats.nth(i).locator(".seat-cards-left").text_content()
                assert left is not None
                assert left.strip().isdigit()
            card = page.locator(".seat-play .card").first
            # both read at once: the next play may redraw the card between two reads
            shown, text = await card.evaluate("c => [c.dataset.card, c.textContent.trim()]")
            assert shown == text
            assert (await page.locator("#multiplier").text_content() or "").strip().startswith("×")
            # the bidding is over once a play is made: its outcome is on screen
            assert await page.locator("#bottom-cards .card").count() == 3
            call_score = (await page.locator("#call-score").text_content() or "").strip()
            assert call_score in {"1", "2", "3"}
            assert await page.locator(".seat.landlord .badge-landlord").count() == 1
            await page.locator(".seat-pass:not([hidden])").first.wait_for(timeout=20_000)
            # the bubble shows the comment as text; it comes and goes with the plays,
            # so it is waited for whole rather than read after it was once seen
            await page.wait_for_function(
                """() => {
                    const b = document.querySelector('.seat[data-seat="0"] .bubble');
                    return b && !b.hidden && b.dataset.emotion === "confident"
                        && b.textContent.includes("看我的 <b>牌</b>!");
                }""",
                timeout=20_000,
            )
            assert await page.locator('.seat[data-seat="0"] .bubble b').count() == 0
            await page.locator(".seat.turn .countdown").first.wait_for(timeout=10_000)
            sent = await http.post(
                "/control/api/gift",
                headers={"Authorization": f"Bearer {TOKEN}"},
                json={"effect": "CHEER", "target": 1, "viewer": EVIL, "message": "<b>加油</b>"},
            )
            assert sent.status_code == 202
            banner = page.locator("#gift-banners .gift-banner").first
            await banner.wait_for(timeout=10_000)
            assert EVIL in (await banner.text_content() or "")
            assert await page.locator("#gift-banners img, #gift-banners b").count() == 0
            effect = await http.post(
                "/control/api/gift",
                headers={"Authorization": f"Bearer {TOKEN}"},
                json={"effect": "EFFECT", "viewer": "小明"},
            )
            assert effect.status_code == 202
            await page.locator("#effects .fx-effect").wait_for(timeout=10_000)  # full screen
            assert await page.evaluate("window.arenaOverlay.sound") is False  # off by default
            assert not await page.locator("#leaderboard").is_visible()
            server.hub.set_leaderboard(
                {
                    "tournament": "t-1",
                    "rounds": 3,
                    "agents": [
                        {"rank": 1, "name": EVIL, "points": 12, "forfeits": 0},
                        {"rank": 2, "name": "Beta", "points": -4, "forfeits": 3},
                    ],
                }
            )
            rows = page.locator("#leaderboard .lb-row")
            await rows.first.wait_for(timeout=5_000)
            assert await rows.count() == 2
            assert (await rows.nth(0).locator(".lb-name").text_content()) == EVIL
            assert await rows.nth(0).locator(".lb-forfeits").count() == 0
            forfeits = await rows.nth(1).locator(".lb-forfeits").text_content()
            assert forfeits == "弃权 3"  # rounds Beta did not play itself, each a loss
            await shot(page, "overlay-landscape")
            await game
            await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
            # followed to the match's end: its last round, whenever the shot above was taken
            assert await page.locator("#round-info").text_content() == "第 2/2 局"
        finally:
            if not game.done():
                game.cancel()
            await gifts.stop()
    assert trouble == []


async def play_one_round(server: ArenaServer) -> None:
    """A one-round match, unpaced, played to its end before any page opens."""
    tables = build_tables(config(pace_s=0.0), seed=11, sinks=[server.hub], sink_queue=None)
    await play_tables(tables, rounds=1, seed=11)


async def test_a_late_joiner_sees_the_table_at_once(browser: Browser) -> None:
    seats = config().seats
    pictured = seats[1].model_copy(update={"avatar": str(REPO / "docs" / "overlay.png")})
    server = ArenaServer(
        ServerSettings(port=0), mode="play", token=TOKEN, seats=[seats[0], pictured, seats[2]]
    )
    async with server:
        await play_one_round(server)
        page, trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
        await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
        names = await page.locator(".seat .seat-name").all_text_contents()
        totals = await page.locator(".seat .seat-total").all_text_contents()
        status = await page.locator("#status").text_content()
        avatar = page.locator('.seat[data-seat="1"] img.seat-avatar')
        await avatar.wait_for(timeout=5_000)
        loaded = await avatar.evaluate("img => img.complete && img.naturalWidth > 0")
        src = await avatar.get_attribute("src")
        others = await page.locator('.seat:not([data-seat="1"]) img.seat-avatar').count()
    assert names == [EVIL, "Beta", "甘玛"]
    assert status == "Ended"  # ?lang=en
    assert src == "/avatars/1"
    assert loaded  # the file, served by the server
    assert others == 0
    assert all(any(ch.isdigit() for ch in total) for total in totals)
    assert trouble == []


async def test_the_portrait_layout_fits_1080_by_1920(browser: Browser) -> None:
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        await play_one_round(server)
        page, trouble = await open_page(
            browser, f"{server.url}/overlay?layout=portrait", viewport=PORTRAIT
        )
        await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
        assert await page.locator("#overlay").get_attribute("data-layout") == "portrait"
        size = await page.evaluate(
            "[document.documentElement.scrollWidth, document.documentElement.scrollHeight]"
        )
        assert size[0] <= PORTRAIT["width"]
        assert size[1] <= PORTRAIT["height"]
        for selector in (".seat", "#round-info", "#multiplier"):
            for box in [await el.bounding_box() for el in await page.locator(selector).all()]:
                assert box is not None
                assert box["x"] >= 0
                assert box["y"] >= 0
                assert box["x"] + box["width"] <= PORTRAIT["width"]
                assert box["y"] + box["height"] <= PORTRAIT["height"]
        await shot(page, "overlay-portrait")
    assert trouble == []


def overlaps(a: FloatRect, b: FloatRect) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


@pytest.mark.parametrize(("game", "count"), [("quad", 4), ("hex", 6)])
async def test_a_game_without_a_renderer_is_shown_by_the_shell_around_the_table(
    browser: Browser, monkeypatch: pytest.MonkeyPatch, game: str, count: int
) -> None:
    """Issue 26: a table of another game, of four or six seats, fed to the hub by hand:
    its seats around the table, names, plays, bubbles, the turn and a gift, by the
    shell alone (the game has no renderer), and none of Dou Dizhu's parts. One fed
    table, a page in each layout on it."""
    players = [EVIL, *(f"玩家{i}" for i in range(1, count))]
    with registered(monkeypatch):
        server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
        async with server:
            for event in events(game, players):
                server.hub.on_event(event)
            server.hub.flush()
            layouts = {"landscape": LANDSCAPE, "portrait": PORTRAIT}
            pages = {
                layout: await open_page(
                    browser, f"{server.url}/overlay?layout={layout}", viewport=viewport
                )
                for layout, viewport in layouts.items()
            }
            for layout, (page, _) in pages.items():
                await shows_the_fed_table(page, game, count, players, layouts[layout])
            gift = {"id": "g1", "status": "applied", "viewer": EVIL, "gift": "rose"}
            gift["effect"] = "CHEER"
            server.hub.on_event(Event("gift", "t1", 1, 100, data=gift, game=game))
            for layout, (page, _) in pages.items():
                banner = page.locator("#gift-banners .gift-banner").first
                await banner.wait_for(timeout=10_000)
                assert EVIL in (await banner.text_content() or "")
                await shot(page, f"overlay-{game}-{layout}")
    for _, trouble in pages.values():
        assert trouble == []


async def shows_the_fed_table(
    page: Page, game: str, count: int, players: list[str], viewport: dict[str, int]
) -> None:
    """The fed table of ``tests/fake_overlay_game.py`` as the shell shows it on ``page``."""
    await page.locator(f'.seat[data-seat="{count - 1}"] .seat-play .card').wait_for(timeout=10_000)
    assert await page.locator(".seat").count() == count
    assert await page.locator("#seats").get_attribute("data-count") == str(count)
    assert await page.locator(".seat .seat-name").all_text_contents() == players
    plays = [
        await page.locator(f'.seat[data-seat="{i}"] .seat-play .card').evaluate_all(
            "cards => cards.map(c => c.dataset.card)"
        )
        for i in range(count)
    ]
    assert plays == [[f"♠{i + 3}"] for i in range(count)]
    left = await page.locator(".seat .seat-cards-left").all_text_contents()
    assert left == ["24"] * count
    bubbles = await page.locator(".seat .bubble-text").all_text_contents()
    assert bubbles == [f"<i>seat {i}</i>" for i in range(count)]  # as text
    assert await page.locator(".seat .bubble i").count() == 0
    turn = page.locator(".seat.turn")
    assert await turn.count() == 1
    assert await turn.get_attribute("data-seat") == str(count - 1)
    assert await page.locator("#status").get_attribute("data-status") == "live"
    # Dou Dizhu's parts are its renderer's: none of them here
    for selector in ("#call-score", "#multiplier", "#bottom-cards", ".badge-landlord"):
        assert await page.locator(selector).count() == 0
    assert await page.evaluate("window.arenaOverlay.game") == game
    # every seat on screen, no two panels over each other
    panels = [await p.bounding_box() for p in await page.locator(".seat-panel").all()]
    boxes = [box for box in panels if box is not None]
    assert len(boxes) == count
    for box in boxes:
        assert box["x"] >= 0
        assert box["y"] >= 0
        assert box["x"] + box["width"] <= viewport["width"]
        assert box["y"] + box["height"] <= viewport["height"]
    for i, box in enumerate(boxes):
        assert not any(overlaps(box, other) for other in boxes[i + 1 :])


async def test_the_spectator_view_shows_hands_only_after_the_delay(browser: Browser) -> None:
    delay = 1.5
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN, spectator_delay_s=delay)
    async with server:
        feed = SpectatorFeed([server.hub], delay_s=delay)
        feed.start()
        spectator, trouble = await open_page(browser, f"{server.url}/spectator")
        public, public_trouble = await open_page(browser, f"{server.url}/overlay")
        tables = build_tables(
            config(pace_s=0.05), seed=11, sinks=[server.hub], sink_queue=None, spectator=feed
        )
        started = time.monotonic()
        game = asyncio.create_task(play_tables(tables, rounds=1, seed=11))
        try:
            await public.locator(".seat-cards-left").first.wait_for(timeout=10_000)
            early = await spectator.locator(".seat-hand .card").count()
            if time.monotonic() - started < delay:  # (a loaded machine may be later)
                assert early == 0  # not yet
            # every seat's hand read at once, the moment all three show (read seat by
            # seat, a loaded machine could see the round end between two reads)
            hands = await spectator.wait_for_function(
                """() => {
                    const hands = [0, 1, 2].map(i => [...document.querySelectorAll(
                        `.seat[data-seat="${i}"] .seat-hand .card`)].map(c => c.dataset.card));
                    return hands.every(h => h.length > 0) && hands;
                }""",
                timeout=10_000,
            )
            assert time.monotonic() - started >= delay
            shown: list[list[str]] = await hands.json_value()
            cards = [card for hand in shown for card in hand]
            assert all(1 <= len(hand) <= 20 for hand in shown)  # every seat's hand, face up
            assert len(set(cards)) == len(cards) > 17  # real cards, none twice
            await shot(spectator, "spectator")
            assert await public.locator(".seat-hand .card").count() == 0
        finally:
            await game
            await feed.close()
    assert trouble == []
    assert public_trouble == []


async def test_before_any_table_the_overlay_shows_the_games_seats_waiting(
    browser: Browser,
) -> None:
    """Before a match starts (``arena serve`` waits for Start) the page shows the
    default game's three seats, empty, as it always did: a table waiting."""
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page, trouble = await open_page(browser, f"{server.url}/overlay")
        await page.wait_for_function("document.querySelectorAll('.seat').length === 3")
        names = await page.locator(".seat-name").all_text_contents()
        assert names == ["", "", ""]
        assert await page.locator(".seat-play .card").count() == 0
    assert trouble == []


async def test_between_matches_the_overlay_counts_down_to_the_next(browser: Browser) -> None:
    """``arena serve --next-in``: the page says when the next match is dealt, counting
    down, in the middle of the frame; gone once it is dealt (the whole between screen:
    tests/test_overlay_between_browser.py). A page per language, on one server."""
    server = ArenaServer(ServerSettings(port=0), mode="serve", token=TOKEN)
    async with server:
        server.hub.set_next(int((time.time() + 30) * 1000))
        pages = {
            words: await open_page(browser, f"{server.url}/overlay?lang={lang}")
            for lang, words in (("zh", "下一场"), ("en", "Next match"))
        }
        for words, (page, _) in pages.items():
            box = page.locator("#between")
            await box.wait_for(state="visible", timeout=10_000)
            assert await page.locator(".between-title").text_content() == words
            clock = await page.locator(".between-clock").text_content() or ""
            assert clock.startswith("0:")
            seconds = int(clock.rsplit(":", 1)[1])
            assert 25 <= seconds <= 30
            frame = await page.locator(".between-card").bounding_box()
            assert frame is not None
            assert frame["x"] >= 0
            assert frame["x"] + frame["width"] <= LANDSCAPE["width"]
        server.hub.set_next(None)
        for page, _ in pages.values():
            await page.locator("#between").wait_for(state="hidden", timeout=10_000)
    for _, trouble in pages.values():
        assert trouble == []


async def test_a_slow_seat_is_shown_thinking_until_it_answers(browser: Browser) -> None:
    """A seat taking its time (a model thinking) is shown so, counting up; it goes when
    the seat plays. Scripted seats answer too fast to be shown thinking at all. One
    match, a page in each layout watching it."""
    cfg = parse_config(
        {
            "match": {"rounds": 1, "seed": 11},
            "table": {"pace_s": 0.05},
            "seats": [
                {"name": "Slow", "type": "test_overlay_browser:SlowAgent"},
                {"name": EVIL, "type": "greedy"},
                {"name": "Gamma", "type": "heuristic"},
            ],
        }
    )
    layouts = {"landscape": LANDSCAPE, "portrait": PORTRAIT}
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        pages = {
            layout: await open_page(
                browser, f"{server.url}/overlay?layout={layout}&lang=en", viewport=viewport
            )
            for layout, viewport in layouts.items()
        }
        tables = build_tables(cfg, seed=11, sinks=[server.hub], sink_queue=None)
        server.attach(tables)
        game = asyncio.create_task(play_tables(tables, rounds=1, seed=11))

        async def watch(page: Page, layout: str) -> None:
            viewport = layouts[layout]
            chip = page.locator('.seat[data-seat="0"] > .thinking')
            # read in the step that finds it: on a loaded machine the seat may have
            # played (the chip gone) by a later step
            found = await page.wait_for_function(
                """() => {
                    const c = document.querySelector('.seat[data-seat="0"] > .thinking');
                    const r = c && c.getBoundingClientRect();
                    if (!r || !r.width) return null;
                    return {text: c.textContent, x: r.left, y: r.top, w: r.width, h: r.height};
                }""",
                timeout=30_000,
                polling="raf",
            )
            box = await found.json_value()
            assert box["text"].startswith("Thinking ")
            assert box["x"] >= 0
            assert box["y"] >= 0
            assert box["x"] + box["w"] <= viewport["width"]
            assert box["y"] + box["h"] <= viewport["height"]
            await shot(page, f"thinking-{layout}")
            await chip.wait_for(state="detached", timeout=10_000)  # it played
            assert await page.locator('.seat:not([data-seat="0"]) > .thinking').count() == 0

        try:
            await asyncio.gather(*(watch(page, layout) for layout, (page, _) in pages.items()))
        finally:
            game.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await game
    for _, trouble in pages.values():
        assert trouble == []


async def test_reduced_motion_is_respected(browser: Browser) -> None:
    """A viewer (or OBS) asking for reduced motion gets no slide, zoom or pulse: a gift
    banner and a thinking chip are simply there."""
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page, trouble = await open_page(browser, f"{server.url}/overlay")
        await page.emulate_media(reduced_motion="reduce")
        gift = {"id": "g1", "status": "applied", "viewer": "小明", "effect": "CHEER"}
        server.hub.on_event(Event("gift", "t1", 1, 1, data=gift))
        banner = page.locator("#gift-banners .gift-banner").first
        await banner.wait_for(timeout=10_000)
        seconds = await banner.evaluate("b => parseFloat(getComputedStyle(b).animationDuration)")
        assert seconds < 0.001
    assert trouble == []


async def test_the_spectator_view_says_when_it_is_off(browser: Browser) -> None:
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page, trouble = await open_page(browser, f"{server.url}/spectator")
        off = page.locator("#spectator-off")
        await off.wait_for(state="visible", timeout=10_000)
        assert "--spectator-delay" in (await off.text_content() or "")
    assert trouble == []


async def test_the_control_page_refuses_a_wrong_token_and_pauses_with_the_right_one(
    browser: Browser,
) -> None:
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page, trouble = await open_page(browser, f"{server.url}/control")
        await page.fill("#token", "not-the-token")
        await page.click("#login")
        await page.locator("#auth-status[data-state=refused]").wait_for(timeout=5_000)
        await page.click("#pause")
        await asyncio.sleep(0.3)
        assert not server.control.pause_requested
        await page.fill("#token", TOKEN)
        await page.click("#login")
        await page.locator("#auth-status[data-state=ok]").wait_for(timeout=5_000)
        await page.click("#pause")
        for _ in range(50):
            if server.control.pause_requested:
                break
            await asyncio.sleep(0.1)
        assert server.control.pause_requested
        await shot(page, "control")
    assert trouble == []


async def test_the_control_page_offers_the_featured_games_effects_by_their_names(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 26: the test gift's effects and seats are the featured table's game's; a
    Dou Dizhu table's own effects are named by its overlay renderer, as before; a game of
    four seats without a renderer offers its seats and its effects."""

    class Effects:
        effects = ("CHEER", "DOUBLE", "EFFECT", "ROLE_SWAP")

    with registered(monkeypatch):
        for game, players in (("ddz", ["A", "B", "C"]), ("quad", ["N", "E", "S", "W"])):
            server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
            server.parts.gifts = Effects()  # type: ignore[assignment]
            async with server:
                for event in events(game, players):
                    server.hub.on_event(event)
                page, trouble = await open_page(browser, f"{server.url}/control")
                await page.fill("#token", TOKEN)
                await page.click("#login")
                await page.locator("#auth-status[data-state=ok]").wait_for(timeout=5_000)
                effects = page.locator("#gift-effect option")
                if game == "ddz":
                    await page.wait_for_function(
                        "() => [...document.querySelectorAll('#gift-effect option')]"
                        ".some(o => o.textContent === '翻倍 Double')",
                        timeout=5_000,
                    )
                    assert await effects.all_text_contents() == [
                        "加油 Cheer",
                        "翻倍 Double",
                        "特效 Effect",
                        "角色互换 Role swap",
                    ]
                else:
                    assert await effects.all_text_contents() == ["加油 Cheer", "特效 Effect"]
                targets = await page.locator("#gift-target option").evaluate_all(
                    "options => options.map(o => o.value)"
                )
                assert targets == ["", *(str(i) for i in range(len(players)))]
            assert trouble == []


async def test_the_printed_control_link_logs_in_and_starts_the_match(
    browser: Browser, tmp_path: Path
) -> None:
    """``arena serve`` without ARENA_SERVER_TOKEN prints a link with a token made for the
    run; opened in the browser, the page logs in by itself, takes the token off the
    address bar, and its Start plays the match."""
    stream = tmp_path / "stream.toml"
    stream.write_text("[match]\nrounds = 1\n[table]\npace_s = 0.0\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    process = await asyncio.create_subprocess_exec(
        *(sys.executable, "-m", "arena.cli", "serve", "--config", str(stream), "--port", "0"),
        cwd=REPO,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None
    lines: list[str] = []

    async def line_with(text: str) -> str:
        async with asyncio.timeout(30):
            while True:
                line = (await process.stderr.readline()).decode()  # type: ignore[union-attr]
                assert line, f"no line with {text!r}: {lines}"
                lines.append(line)
                if text in line:
                    return line

    try:
        said = await line_with("open the controls at ")
        link = said.split("open the controls at ")[1].split()[0]
        base, _, token = link.partition("/control#token=")
        await line_with("waiting for Start")
        page, trouble = await open_page(browser, link)
        await page.locator("#auth-status[data-state=ok]").wait_for(timeout=10_000)
        assert page.url == f"{base}/control"  # the token is off the address bar
        assert token not in await page.evaluate("history.state + location.href")
        kept = await page.evaluate("sessionStorage.getItem('arena-control-token')")
        assert kept == token
        await page.click("#start")
        await page.locator("#result", has_text="the match starts").wait_for(timeout=10_000)
        await line_with("seed ")  # the match the Start began
        await line_with("waiting for Start")  # ... played to its end
        await shot(page, "control-from-link")
    finally:
        if process.returncode is None:
            process.send_signal(signal.SIGINT)
        async with asyncio.timeout(30):
            await process.wait()
    assert trouble == []


async def test_another_page_cannot_frame_the_controls_but_may_frame_the_overlay(
    browser: Browser,
) -> None:
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page = await browser.new_page()
        await page.set_content(
            f'<iframe id="control" src="{server.url}/control"></iframe>'
            f'<iframe id="overlay" src="{server.url}/overlay"></iframe>'
        )
        framed = page.frame_locator("#overlay").locator("body")
        await framed.wait_for(state="attached", timeout=10_000)
        control = page.frame_locator("#control").locator("#login-form")
        await page.wait_for_load_state("load")
        assert await control.count() == 0  # the browser refused to show it in a frame
        urls = [frame.url for frame in page.frames]
        assert f"{server.url}/overlay" in urls
        assert f"{server.url}/control" not in urls


async def test_a_model_seat_shows_its_legal_move_rate_and_cost(
    browser: Browser, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MODEL_KEY_ENV, MODEL_KEY)
    with FakeOpenAI(api_key=MODEL_KEY, respond=legal_model) as provider:
        cfg = model_seat_config(provider.base_url, third="Gamma", prices=True)
        server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
        async with server:
            tables = build_tables(cfg, seed=11, sinks=[server.hub], sink_queue=None)
            await play_tables(tables, rounds=1, seed=11)
            page, trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
            figures = page.locator('.seat[data-seat="0"] .seat-figures')
            await figures.wait_for(timeout=10_000)
            text = await figures.text_content() or ""
            others = await page.locator('.seat[data-seat="1"] .seat-figures').count()
            # the match card, at the end: the model seat's figures beside its standing
            card = page.locator("#match-card .match-row", has_text="GPT")
            await card.wait_for(timeout=10_000)
            on_card = await card.locator(".match-figures").text_content() or ""
            card_figures = await page.locator("#match-card .match-figures").count()
    assert "gpt-test" in text
    assert "100%" in text  # the fake model always answers legally
    assert "$" in text
    assert others == 0  # a scripted seat has no model figures
    assert "gpt-test" in on_card
    assert "Legal 100%" in on_card
    assert "$" in on_card
    assert card_figures == 1  # the scripted seats' standings have none
    assert trouble == []


async def test_the_overlay_says_degraded_while_a_sink_keeps_failing_and_live_once_it_recovers(
    browser: Browser,
) -> None:
    """Issue 25: never "live" while a sink keeps failing: the badge says so, and names
    the sink in its tooltip; once the sink takes its events again, "live" it is."""
    from test_sink_health import Clock, FlakySink

    from arena.sinks.health import WINDOW_S, SinkHealthBoard

    clock = Clock()
    console = FlakySink(broken=True)
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page, trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
        badge = page.locator("#status")
        with SinkHealthBoard({"overlay": server.hub, "console": console}, clock=clock):
            for seed, shown in ((11, "degraded"), (12, "live")):
                tables = build_tables(
                    config(pace_s=0.05), seed=seed, sinks=[server.hub, console], sink_queue=None
                )
                game = asyncio.create_task(play_tables(tables, rounds=1, seed=seed))
                try:
                    await page.locator(f"#status[data-status={shown}]").wait_for(timeout=10_000)
                    if shown == "degraded":
                        said, title = await badge.text_content(), await badge.get_attribute("title")
                        await shot(page, "overlay-degraded")
                finally:
                    await game
                console.broken = False
                clock.now += WINDOW_S + 1
            recovered = await badge.text_content()
            await page.locator("#status[data-status=ended]").wait_for(timeout=10_000)
    assert said == "Degraded"
    assert title is not None
    assert title.startswith("console: ")
    assert "RuntimeError (emit)" in title
    assert recovered in ("Live", "Ended")
    assert trouble == []


async def test_a_feed_that_cannot_deliver_is_said_in_words_on_the_badge_and_the_controls(
    browser: Browser, tmp_path: Path
) -> None:
    """Issue 25's acceptance review: the MQTT feed whose broker is away past the grace
    is degraded, and the badge's tooltip and the control page say why in the feed's own
    words (not a count of failures it never had)."""
    from mosquitto import Mosquitto

    from arena.config import MqttSettings
    from arena.sinks.health import SinkHealthBoard
    from arena.sinks.mqtt import MqttSink

    absent = Mosquitto(tmp_path)  # never started: nothing listens on its port
    feed = MqttSink(MqttSettings(enabled=True, port=absent.port), run_id="away", environ={})
    feed.unreachable_grace_s = 0.3
    feed.close_within_s = 0.5  # the broker never comes: no use waiting 5 s for it at close
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        overlay, trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
        controls, more_trouble = await open_page(browser, f"{server.url}/control")
        await controls.fill("#token", TOKEN)
        await controls.click("#login")
        with SinkHealthBoard({"mqtt": feed, "overlay": server.hub}):
            assert await feed.started()
            tables = build_tables(config(), seed=11, sinks=[server.hub, feed], sink_queue=None)
            game = asyncio.create_task(play_tables(tables, rounds=1, seed=11))
            try:
                badge = overlay.locator("#status[data-status=degraded]")
                await badge.wait_for(timeout=10_000)
                title = await badge.get_attribute("title")
                state = controls.locator("#control-state", has_text="degraded: mqtt")
                await state.wait_for(timeout=10_000)
                said = await state.text_content()
                await shot(overlay, "overlay-feed-degraded")
            finally:  # (the match's end is nothing to this test: it stops here)
                game.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await game
        await feed.close()
    assert title is not None
    assert title.startswith("mqtt: broker unreachable for ")
    assert " × " not in title
    assert said is not None
    assert "信号异常 degraded: mqtt: broker unreachable for " in said
    assert trouble == more_trouble == []
