"""Issue 27, the round's and the match's story on the overlay, in a real browser: the
result card after a round (who won, what made the stakes, each seat's points, total and
cards left) and the match card at the end (standings, the round that swung it), checked
against the events the table emitted (a CollectingSink beside the server's hub), in both
layouts and both languages, for a page that watched and for one that joined late.

Screenshots go to ``test-artifacts/``; with ``ARENA_DOCS_SCREENSHOTS=1`` the landscape
cards are also written to ``docs/`` (overlay-round-result.png, overlay-match-end.png), so
that a plain run never changes a tracked file.
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import pytest
from fake_overlay_game import events, registered
from playwright.async_api import Browser, Page
from test_overlay_browser import (  # noqa: F401 (browser: a fixture)
    ARTIFACTS,
    EVIL,
    LANDSCAPE,
    PORTRAIT,
    REPO,
    TOKEN,
    browser,
    config,
    open_page,
    overlaps,
    shot,
)

from arena.config import ServerSettings
from arena.events import Event
from arena.runner import build_tables, play_tables
from arena.server.wiring import ArenaServer
from arena.sinks.base import CollectingSink

DOCS = os.environ.get("ARENA_DOCS_SCREENSHOTS") == "1"

ROUND_CARD = """() => {
    const card = document.querySelector("#round-card");
    if (!card || card.hidden || card.dataset.round !== "1") return null;
    const q = (sel) => [...card.querySelectorAll(sel)];
    return JSON.stringify({
        headline: card.querySelector(".story-headline").textContent,
        items: q(".story-item").map((i) => [
            i.dataset.kind, i.querySelector(".story-label").textContent,
            i.querySelector(".story-value").textContent]),
        names: q(".story-seat .story-name").map((n) => n.textContent),
        tags: q(".story-seat .story-tag").map((n) => n.textContent),
        points: q(".story-seat .story-points").map((n) => n.textContent),
        totals: q(".story-seat .story-total").map((n) => n.textContent),
        hands: q(".story-seat .story-hand").map((h) =>
            [...h.querySelectorAll(".card")].map((c) => c.dataset.card)),
        markup: card.querySelectorAll("img, b").length,
    });
}"""

MATCH_CARD = """() => {
    const card = document.querySelector("#match-card");
    if (!card || card.hidden) return null;
    const rows = [...card.querySelectorAll(".match-row:not(.match-header)")];
    const swing = card.querySelector(".match-swing");
    return JSON.stringify({
        rows: rows.map((r) => [r.querySelector(".match-rank").textContent,
            r.querySelector(".match-player").textContent,
            r.querySelector(".match-total").textContent,
            r.querySelector(".match-won").textContent]),
        swing: swing ? swing.dataset.round : null,
        headline: card.querySelector(".story-headline").textContent,
        motion: getComputedStyle(card).animationName,
        markup: card.querySelectorAll("img, b").length,
        roundShown: !document.querySelector("#round-card").hidden,
    });
}"""


def signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def swing_round(winner: str, results: list[Event]) -> int | None:
    """The rule of docs/overlay.md: the round that widened the winner's lead the most."""
    before, best, best_gain = 0, None, 0
    for event in results:
        totals = event.data["totals"]
        lead = totals[winner] - max(v for p, v in totals.items() if p != winner)
        if lead - before > best_gain:
            best, best_gain = event.data["round_no"], lead - before
        before = lead
    return best


async def inside(page: Page, selector: str, viewport: dict[str, int]) -> None:
    """The element's box, and every box in it, lie inside the viewport; nothing in it
    is cut off."""
    # (its parts never shrink: what does not fit would overflow the card, and show here)
    clipped = await page.evaluate(
        """(sel) => { const n = document.querySelector(sel);
            return [n.scrollHeight - n.clientHeight, n.scrollWidth - n.clientWidth]; }""",
        selector,
    )
    assert clipped[0] <= 1
    assert clipped[1] <= 1
    boxes = await page.evaluate(
        """(sel) => [document.querySelector(sel), ...document.querySelectorAll(sel + " *")]
            .map((n) => n.getBoundingClientRect())
            .filter((r) => r.width > 0 && r.height > 0)
            .map((r) => [r.left, r.top, r.right, r.bottom])""",
        selector,
    )
    assert boxes
    for left, top, right, bottom in boxes:
        assert left >= 0
        assert top >= 0
        assert right <= viewport["width"] + 0.5
        assert bottom <= viewport["height"] + 0.5


async def card_of(page: Page, script: str) -> dict[str, Any]:
    """What a card shows, read the moment it shows it."""
    handle = await page.wait_for_function(script, timeout=30_000, polling="raf")
    shown: dict[str, Any] = json.loads(await handle.json_value())
    return shown


async def settled(page: Page) -> None:
    """The cards' entrance is over (for a screenshot)."""
    await page.wait_for_function(
        """() => document.getAnimations().every((a) => a.playState !== "running"
            || !a.effect || !a.effect.target || !a.effect.target.classList
            || !a.effect.target.classList.contains("story-card"))"""
    )


async def test_the_result_and_match_cards_tell_what_the_table_emitted(
    browser: Browser,  # noqa: F811 (the fixture, imported)
) -> None:
    sink = CollectingSink()
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        wide, trouble_wide = await open_page(browser, f"{server.url}/overlay")
        tall, trouble_tall = await open_page(
            browser, f"{server.url}/overlay?layout=portrait&lang=en", viewport=PORTRAIT
        )
        for page in (wide, tall):  # the game's renderer is in before the first result
            await page.locator("#status").wait_for()
        tables = build_tables(
            config(rounds=2, pace_s=0.03), seed=11, sinks=[server.hub, sink], sink_queue=None
        )
        server.attach(tables)
        game = asyncio.create_task(play_tables(tables, rounds=2, seed=11))
        try:
            seen_wide, seen_tall = await asyncio.gather(
                card_of(wide, ROUND_CARD), card_of(tall, ROUND_CARD)
            )
            await asyncio.gather(settled(wide), settled(tall))
            await shot(wide, "story-round-landscape")
            await shot(tall, "story-round-portrait")
            await inside(wide, "#round-card", LANDSCAPE)
            await inside(tall, "#round-card", PORTRAIT)
            # landscape: the card sits between the seats, hiding none of their panels
            card = await wide.locator("#round-card").bounding_box()
            assert card is not None
            for panel in await wide.locator(".seat-panel").all():
                box = await panel.bounding_box()
                assert box is not None
                assert not overlaps(card, box)
            if DOCS:
                await wide.screenshot(path=str(REPO / "docs" / "overlay-round-result.png"))
            await game
            ended_wide, ended_tall = await asyncio.gather(
                card_of(wide, MATCH_CARD), card_of(tall, MATCH_CARD)
            )
            await asyncio.gather(settled(wide), settled(tall))
            await shot(wide, "story-match-landscape")
            await shot(tall, "story-match-portrait")
            await inside(wide, "#match-card", LANDSCAPE)
            await inside(tall, "#match-card", PORTRAIT)
            if DOCS:
                await wide.screenshot(path=str(REPO / "docs" / "overlay-match-end.png"))
            # a page that opens after the match ended shows the match card at once
            # (and, for a viewer who asked for less motion, without its entrance)
            late = await browser.new_page(
                viewport=LANDSCAPE,  # type: ignore[arg-type]
                reduced_motion="reduce",
            )
            trouble_late: list[str] = []
            late.on("pageerror", lambda error: trouble_late.append(str(error)))
            await late.goto(f"{server.url}/overlay?lang=en")
            ended_late = await card_of(late, MATCH_CARD)
        finally:
            if not game.done():
                game.cancel()

    first = sink.of_type("round_result")[0].data
    result = first["result"]
    players = first["players"]
    assert players[0] == EVIL
    for seen, lang in ((seen_wide, "zh"), (seen_tall, "en")):
        assert seen["markup"] == 0
        assert seen["names"] == players  # the hostile name, as text
        assert seen["points"] == [signed(first["scores"][p]) for p in players]
        assert [t.split()[-1] for t in seen["totals"]] == [str(first["totals"][p]) for p in players]
        assert seen["hands"] == result["final_hands"]
        landlord = players[result["landlord"]]
        if result["winner_side"] == "landlord":
            expected = f"地主 {landlord} 胜" if lang == "zh" else f"Landlord {landlord} wins"
        else:
            expected = "农民胜" if lang == "zh" else "The farmers win"
        assert seen["headline"] == expected
        kinds = [kind for kind, _, _ in seen["items"]]
        assert kinds.count("bomb") == result["bombs"]
        assert kinds.count("rocket") == result["rockets"]
        assert ("spring" in kinds) == (result["spring"] is not None)
        assert seen["items"][0][0] == "call"
        assert seen["items"][0][2] == str(result["call_score"])
        stake = seen["items"][-1]
        assert stake[0] == "total"
        # each farmer's stake: call × multiplier = what a farmer wins or loses
        farmers = {abs(s) for i, s in enumerate(result["scores"]) if i != result["landlord"]}
        assert {int(part.split("=")[1]) for part in stake[2].split(" / ")} == farmers
        tags = seen["tags"]
        assert tags[result["landlord"]] in ("地主", "Landlord")

    ended = sink.of_type("match_ended")[0].data
    results = sink.of_type("round_result")
    rows = [
        [str(s["rank"]), s["player"], str(ended["totals"][s["player"]]), str(s["rounds_won"])]
        for s in ended["standings"]
    ]
    swing = swing_round(ended["standings"][0]["player"], results)
    champion = ended["standings"][0]["player"]
    assert ended_wide["headline"] == f"冠军 {champion}"
    assert ended_tall["headline"] == ended_late["headline"] == f"Winner: {champion}"
    assert ended_wide["motion"] != "none"
    assert ended_late["motion"] == "none"  # prefers-reduced-motion
    for shown in (ended_wide, ended_tall, ended_late):
        assert shown["rows"] == rows
        assert shown["markup"] == 0
        assert shown["roundShown"] is False
        assert shown["swing"] == (None if swing is None else str(swing))
    assert trouble_wide == trouble_tall == trouble_late == []
    assert ARTIFACTS.is_dir()


async def test_a_game_without_a_renderer_gets_the_cards_without_its_part(
    browser: Browser,  # noqa: F811 (the fixture, imported)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shell's cards for a game of four or six seats with no renderer: the result
    card's seats, points, totals and hands, without the stakes (no ``roundStory``), its
    headline naming the players whose score went up; then the match card. The two games
    are fed at once, each to its own server, so that their result cards' hold (the
    story's HOLD_MS) is waited out together."""
    with registered(monkeypatch):
        await asyncio.gather(
            gets_the_cards(browser, "hex", 6, "landscape"),
            gets_the_cards(browser, "quad", 4, "portrait"),
        )


async def gets_the_cards(
    browser: Browser,  # noqa: F811 (the fixture, imported)
    game: str,
    count: int,
    layout: str,
) -> None:
    """One game's table fed to a server of its own, its cards read on a page."""
    players = [EVIL, *(f"玩家{i}" for i in range(1, count))]
    viewport = LANDSCAPE if layout == "landscape" else PORTRAIT
    scores = {p: (9 if i == 0 else 3 if i % 2 == 0 else -3) for i, p in enumerate(players)}
    ranks = {9: 1, 3: 2, -3: 3}
    hands = [[f"♥{3 + i}"] * (i % 3) for i in range(count)]
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        made = events(game, players)
        for event in made:
            server.hub.on_event(event)
        server.hub.flush()
        page, trouble = await open_page(
            browser, f"{server.url}/overlay?layout={layout}&lang=en", viewport=viewport
        )
        await page.locator(".seat").first.wait_for()
        data = {
            "round_no": 1,
            "players": players,
            "scores": scores,
            "totals": scores,
            "result": {"final_hands": hands},
        }
        server.hub.on_event(Event("round_result", "t1", 1, 50, None, None, data, game=game))
        seen = await card_of(page, ROUND_CARD)
        await settled(page)
        await inside(page, "#round-card", viewport)
        await shot(page, f"story-round-{game}-{layout}")
        standings = [
            {"player": p, "rank": ranks[scores[p]], "score": scores[p]}
            | {"rounds_won": int(scores[p] > 0)}
            for p in sorted(players, key=lambda p: -scores[p])
        ]
        ended = {"players": players, "rounds": 1, "totals": scores, "standings": standings}
        ended["rounds_won"] = {s["player"]: s["rounds_won"] for s in standings}
        server.hub.on_event(Event("match_ended", "t1", 1, 51, None, None, ended, game=game))
        shown = await card_of(page, MATCH_CARD)
        await inside(page, "#match-card", viewport)
    winners = [p for p in players if scores[p] > 0]
    assert seen["headline"] == f"{', '.join(winners)} win"
    assert seen["items"] == []  # no renderer: no stakes
    assert seen["tags"] == []
    assert seen["names"] == players
    assert seen["points"] == [f"+{scores[p]}" if scores[p] > 0 else str(scores[p]) for p in players]
    assert seen["hands"] == hands
    assert seen["markup"] == 0
    assert [row[1] for row in shown["rows"]] == [s["player"] for s in standings]
    assert shown["headline"] == f"Winner: {EVIL}"  # the hostile name, as text
    assert shown["swing"] == "1"  # its lead: 9 - 3, all of it in round 1
    assert trouble == []
