"""Tractor on the overlay, in a real browser: what a viewer sees of a table of four and
one of six, in both layouts and both languages.

Two real matches of random seats. The four-seat one is played first, then its events are
fed to a real server's hub in steps, each step read by a page per layout and language at
a moment the match chose (a candidate being declared, a throw that did not stand, a
trick under way, the round's result, the match won): nothing is left to timing. The
six-seat one is played live through a served table (and its delayed spectator feed), the
pages reading it as it goes. Every reading is checked against the events themselves.
Screenshots go to test-artifacts/; with ``ARENA_DOCS_SCREENSHOTS=1`` the Tractor pictures
of docs/overlay.md are written too.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Sequence
from typing import Any

from playwright.async_api import Browser, Page
from test_overlay_browser import (
    EVIL,
    REPO,
    browser,  # noqa: F401 (fixture)
    open_page,
    overlaps,
    shot,
)
from test_overlay_table_browser import (
    READ_TABLE,
    VIEWS,
    check_frame,
    inside,
    open_views,
    viewport_of,
)

from arena.config import ArenaConfig, ServerSettings, parse_config
from arena.events import Event
from arena.games.tractor.engine import card_id, face_text
from arena.runner import build_tables, play_tables
from arena.server.wiring import ArenaServer
from arena.sinks.base import CollectingSink
from arena.sinks.spectator import SpectatorFeed

TOKEN = "tractor-browser-test-token"
DOCS_SHOTS = os.environ.get("ARENA_DOCS_SCREENSHOTS") == "1"
FOUR = ["Alpha" if DOCS_SHOTS else EVIL, "Beta", "甘玛", "Delta"]
"""A hostile name shows as text (the docs' pictures get a plain one)."""
SIX = [*FOUR, "Echo", "Foxtrot"]
SEED_FOUR = 36
"""Round 1 of this seed's four-seat match: ♥ declared, a throw that does not stand, the
kitty killed (×2), red up 2; the round limit (2) ends it with red ahead."""
TEAM = {"zh": ("红队", "蓝队"), "en": ("Red", "Blue")}

# Tractor's parts of the page, read at once (with the table's: READ_TABLE).
READ_TRACTOR = (
    """() => {
  const text = (sel) => {
    const n = document.querySelector(sel);
    return n && !n.hidden && getComputedStyle(n).display !== 'none' ? n.textContent.trim() : null;
  };
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const colour = (n) => n ? getComputedStyle(n).backgroundColor : null;
  const callout = document.querySelector('#tr-callout');
  const shown = callout && !callout.hidden;
  return {
    table: ("""
    + READ_TABLE
    + """)(),
    status: document.querySelector('#status').dataset.status,
    teams: [0, 1].map(t => {
      const chip = document.querySelector(`#tr-teams .tr-team[data-team="${t}"]`);
      return {name: chip.querySelector('.tr-team-name').textContent,
              level: chip.querySelector('.tr-team-level').textContent,
              banker: chip.classList.contains('banker-team'), colour: colour(chip)};
    }),
    level: text('#tr-level'), trump: text('#tr-trump'), declarer: text('#tr-declarer'),
    points: text('#tr-points'), kitty: text('#tr-kitty'), champion: text('#tr-champion'),
    seats: [...document.querySelectorAll('.seat')].map(n => ({
      team: n.dataset.team, chip: text(`.seat[data-seat="${n.dataset.seat}"] .tr-seat-team`),
      colour: colour(n.querySelector('.tr-seat-team')),
      banker: !!n.querySelector('.tr-badge-banker'),
      trump: text(`.seat[data-seat="${n.dataset.seat}"] .tr-badge-trump`),
      left: n.querySelector('.seat-cards-left').textContent,
      name: n.querySelector('.seat-name').textContent,
    })),
    callout: shown ? {kind: callout.dataset.kind, text: callout.textContent,
      cards: [...callout.querySelectorAll('.mini-card')].map(c => c.dataset.card),
      box: box(callout)} : null,
    label: text('#trick .trick-entry.latest .trick-label'),
    markup: document.querySelectorAll('.seat img, #trick img, #tr-callout img, #topbar img').length,
  };
}"""
)

READ_RESULT = """() => {
  const card = document.querySelector('#round-card');
  if (!card || card.hidden) return null;
  return {
    headline: card.querySelector('.story-headline').textContent,
    items: [...card.querySelectorAll('.story-item')].map(i => ({
      kind: i.dataset.kind, label: i.querySelector('.story-label').textContent,
      value: i.querySelector('.story-value').textContent,
      cards: [...i.querySelectorAll('.card')].map(c => c.dataset.id || c.dataset.card)})),
    tags: [...card.querySelectorAll('.story-seat .story-tag')].map(t => t.textContent),
    hands: card.querySelectorAll('.story-hand').length,
  };
}"""


def faces(ids: Sequence[str]) -> list[str]:
    return [face_text(card_id(c)) for c in ids]


def tractor_config(players: list[str], *, seed: int, pace_s: float, limit: int) -> ArenaConfig:
    return parse_config(
        {
            "game": "tractor",
            "rules": {"players": len(players), "round_limit": limit},
            "match": {"rounds": limit, "seed": seed},
            "table": {"pace_s": pace_s, "round_pause_s": 0},
            "seats": [{"name": name, "type": "random"} for name in players],
        }
    )


async def played(players: list[str], *, seed: int, limit: int) -> list[Event]:
    """A whole match of random seats at a real table, unpaced: its public events."""
    sink = CollectingSink()
    config = tractor_config(players, seed=seed, pace_s=0, limit=limit)
    tables = build_tables(config, seed=seed, sinks=[sink], sink_queue=None)
    await play_tables(tables, rounds=limit, seed=seed)
    return list(sink.events)


SETTLED = """[...document.styleSheets].some(s => (s.href || '').includes('/games/tractor/'))
    && !document.getAnimations().some(a => a.playState === 'running' && a.effect
    && a.effect.target && a.effect.target.closest && a.effect.target.closest('#trick'))"""
"""Tractor's style in (the shell draws once the renderer's script is: its style may come
a moment later), and no play flying into the centre (a flight starts at its seat)."""


async def read_all(pages: list[tuple[Page, list[str]]], until: str) -> list[dict[str, Any]]:
    """Every page once ``until`` holds on it (and no play is flying), read at that moment."""

    async def one(page: Page) -> dict[str, Any]:
        found = await page.wait_for_function(
            f"() => ({until}) && ({SETTLED}) && ({READ_TRACTOR})()", timeout=15_000, polling="raf"
        )
        seen: dict[str, Any] = await found.json_value()
        return seen

    return list(await asyncio.gather(*(one(page) for page, _ in pages)))


def check_teams(seen: dict[str, Any], lang: str, players: int) -> None:
    """Both teams named and coloured alike in the top bar and on every seat."""
    red, blue = TEAM[lang]
    assert [t["name"] for t in seen["teams"]] == [red, blue]
    assert seen["teams"][0]["colour"] != seen["teams"][1]["colour"]
    for index, seat in enumerate(seen["seats"]):
        team = index % 2
        assert seat["team"] == str(team)
        assert seat["colour"] == seen["teams"][team]["colour"]
        assert seat["chip"] in (TEAM[lang][team], TEAM[lang][team][0])
    assert len(seen["seats"]) == players
    assert seen["markup"] == 0  # a hostile name is text


def check_callout_clear(seen: dict[str, Any], viewport: dict[str, int]) -> None:
    """The callout is in the frame and covers no seat panel, trick entry or the bar."""
    box = seen["callout"]["box"]
    boxes = seen["table"]["boxes"]
    assert inside(box, viewport), box
    for other in [*boxes["panels"], *boxes["entries"], boxes["topbar"]]:
        assert not overlaps(box, other), (box, other)


async def feed(server: ArenaServer, events: Sequence[Event]) -> None:
    for event in events:
        server.hub.on_event(event)
    server.hub.flush()
    await asyncio.sleep(0)


def index_of(events: Sequence[Event], kind: str, after: int = 0, **data: Any) -> int:
    for i in range(after, len(events)):
        e = events[i]
        if e.type == kind and all(e.data.get(k) == v for k, v in data.items()):
            return i
    raise AssertionError(f"no {kind} {data} after {after}: pick another seed")


async def test_a_four_seat_match_step_by_step_in_every_layout_and_language(
    browser: Browser,  # noqa: F811 (fixture)
) -> None:
    events = await played(FOUR, seed=SEED_FOUR, limit=2)
    candidate = index_of(events, "trump_candidate")
    punished = index_of(events, "throw_punished")
    punished_play = index_of(events, "play", punished)
    won = index_of(events, "trick_won", punished)
    later = index_of(events, "play", index_of(events, "trick_won", won + 1) + 1)
    result = index_of(events, "round_result")
    locked = events[index_of(events, "trump_locked")].data
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        pages = await open_views(browser, server.url, VIEWS)
        # a candidate declared: the callout names who, with what
        await feed(server, events[: candidate + 1])
        declaring = await read_all(pages, "document.querySelector('#tr-callout:not([hidden])')")
        # a throw that did not stand, and the play it was made into
        await feed(server, events[candidate + 1 : punished_play + 1])
        throwing = await read_all(
            pages, "document.querySelector('#tr-callout[data-kind=\"punished\"]:not([hidden])')"
        )
        for (page, _), (layout, lang) in zip(pages, VIEWS, strict=True):
            await shot(page, f"tractor-4-{layout}-{lang}-punished")
            if DOCS_SHOTS and lang == "zh":
                suffix = "" if layout == "landscape" else "-portrait"
                await page.screenshot(path=str(REPO / "docs" / f"overlay-tractor{suffix}.png"))
        # a trick under way, points won
        await feed(server, events[punished_play + 1 : later + 1])
        seq = events[later].seq
        playing = await read_all(pages, f"window.arenaOverlay.snapshot.seq === {seq}")
        # the round's result
        await feed(server, events[later + 1 : result + 1])
        results = [await page.wait_for_function(READ_RESULT, timeout=15_000) for page, _ in pages]
        shown = [await r.json_value() for r in results]
        for (page, _), (layout, lang) in zip(pages, VIEWS, strict=True):
            await shot(page, f"tractor-4-{layout}-{lang}-result")
            if DOCS_SHOTS and (layout, lang) == ("landscape", "zh"):
                await page.locator("#effects .fx").first.wait_for(state="detached")
                await page.screenshot(path=str(REPO / "docs" / "overlay-tractor-result.png"))
        # the match won
        await feed(server, events[result + 1 :])
        ended = await read_all(pages, "document.querySelector('#tr-champion:not([hidden])')")
    cand = events[candidate]
    throw = events[punished]
    last_won = [e for e in events[:later] if e.type == "trick_won"][-1]
    round_result = events[result].data["result"]
    over = next(e for e in events if e.type == "game_over").data
    for i, (layout, lang) in enumerate(VIEWS):
        viewport = viewport_of(layout)
        red, blue = TEAM[lang]
        # declaring
        seen = declaring[i]
        check_teams(seen, lang, 4)
        assert seen["callout"]["kind"] == "candidate"
        assert seen["callout"]["cards"] == faces(cand.data["cards"])
        assert cand.player in seen["callout"]["text"]
        assert seen["seats"][cand.seat]["trump"] is not None  # the candidate's seat marked
        assert [t["level"] for t in seen["teams"]] == ["2", "2"]
        # a throw that did not stand: called out, and its play so labelled in the centre
        seen = throwing[i]
        callout = seen["callout"]
        assert callout["cards"] == faces(throw.data["original"]) + faces(throw.data["punished"])
        assert ("甩牌失败" if lang == "zh" else "Throw failed") in callout["text"]
        assert throw.player in callout["text"]
        assert seen["table"]["centre"] == faces(throw.data["punished"])
        assert seen["label"] == ("甩牌失败" if lang == "zh" else "Throw failed")
        check_callout_clear(seen, viewport)
        check_frame(seen["table"], viewport)
        # a trick under way: trump, banker, points, cards in the centre, cards left
        seen = playing[i]
        check_teams(seen, lang, 4)
        assert seen["trump"] == "♥" == {"H": "♥"}[locked["trump_suit"]]
        if layout == "landscape":
            assert seen["declarer"] is not None
            assert FOUR[locked["declarer"]][:3] in seen["declarer"]
        assert [s["banker"] for s in seen["seats"]] == [s == locked["banker"] for s in range(4)]
        assert seen["teams"][locked["banker"] % 2]["banker"]
        assert seen["points"] == str(last_won.data["defender_points"])
        assert int(seen["points"]) > 0
        assert seen["kitty"] == "8"
        assert seen["level"] == "2"
        assert seen["table"]["centre"] == faces(events[later].data["cards"])
        assert seen["table"]["centreSeat"] == events[later].seat
        assert seen["seats"][events[later].seat]["left"] == str(events[later].data["cards_left"])
        assert seen["callout"] is None  # the punished throw's trick is over
        check_frame(seen["table"], viewport)
        # the result card: the defenders' points, the kitty shown and its kill, the levels
        card = shown[i]
        assert card["headline"] == (
            f"{red} 升 2 级 (2 → 4)" if lang == "zh" else f"{red} up 2 (2 → 4)"
        )
        assert round_result["up_team"] == 0
        assert round_result["levels_after"] == [4, 2]
        items = {item["kind"]: item for item in card["items"]}
        assert items["total"]["value"] == str(round_result["defender_points"])
        kill = items["kill"]
        assert kill["cards"] == round_result["kitty"]
        points, mult = round_result["kitty_points"], round_result["multiplier"]
        assert mult == 2
        assert f"{points} × {mult} = {points * mult}" in kill["value"]
        assert items["team-0"]["value"] == "2 → 4"
        assert items["team-1"]["value"] == "2"
        assert card["tags"][round_result["banker"]].endswith("庄" if lang == "zh" else "Banker")
        assert card["tags"][1].startswith(blue)
        assert card["hands"] == 0  # every card was played: no hands on the card
        # the match won
        seen = ended[i]
        assert over["winner_team"] == 0
        assert seen["champion"] == (f"♛ {red} 胜" if lang == "zh" else f"♛ {red} wins")
        assert [t["level"] for t in seen["teams"]] == [str(x) for x in over["levels"]]
        assert seen["status"] == "ended"
    for _, trouble in pages:
        assert trouble == []


async def test_a_six_seat_match_served_live_and_its_hands_on_the_spectator_view(
    browser: Browser,  # noqa: F811 (fixture)
) -> None:
    """One round, served as it is played (a short pace, the pages asking for reduced
    motion: a play comes before the last one's flight would end): each page reads the
    table at a moment of the play, then the result card, then the match's end; the
    delayed spectator view shows every seat's hand, face up."""
    delay = 0.5
    recorder = CollectingSink()
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN, spectator_delay_s=delay)
    async with server:
        spectator_feed = SpectatorFeed([server.hub], delay_s=delay)
        spectator_feed.start()
        pages = await open_views(browser, server.url, VIEWS)
        for page, _ in pages:  # plays come faster than a flight lasts: no flights
            await page.emulate_media(reduced_motion="reduce")
        spectator, spectator_trouble = await open_page(
            browser, f"{server.url}/spectator?layout=portrait", viewport_of("portrait")
        )
        config = tractor_config(SIX, seed=7, pace_s=0.03, limit=1)
        tables = build_tables(
            config, seed=7, sinks=[server.hub, recorder], sink_queue=None, spectator=spectator_feed
        )
        server.attach(tables)
        game = asyncio.create_task(play_tables(tables, rounds=1, seed=7))
        try:

            async def hands_shown() -> list[list[list[str]]]:
                found = await spectator.wait_for_function(
                    """() => {
                        const seats = [...document.querySelectorAll('.seat')];
                        const hands = seats.map(s => [...s.querySelectorAll('.seat-hand .card')]
                            .map(c => [c.dataset.id, c.dataset.card]));
                        return seats.length === 6 && hands.every(h => h.length > 2) && hands;
                    }""",
                    timeout=20_000,
                    polling="raf",
                )
                await shot(spectator, "tractor-6-spectator")
                shown: list[list[list[str]]] = await found.json_value()
                return shown

            held, playing = await asyncio.gather(
                hands_shown(),
                read_all(
                    pages,
                    "window.arenaOverlay.snapshot"
                    " && window.arenaOverlay.snapshot.phase === 'playing'"
                    " && document.querySelector('#trick .trick-entry.latest .card')",
                ),
            )
            for (page, _), (layout, lang) in zip(pages, VIEWS, strict=True):
                await shot(page, f"tractor-6-{layout}-{lang}")
            cards = [
                await (await page.wait_for_function(READ_RESULT, timeout=30_000)).json_value()
                for page, _ in pages
            ]
            ended = await read_all(pages, "document.querySelector('#tr-champion:not([hidden])')")
        finally:
            await game
            await spectator_feed.close()
            public_hands = [await page.locator(".seat-hand .card").count() for page, _ in pages]
    events = recorder.events
    locked = next(e for e in events if e.type == "trump_locked").data
    result = next(e for e in events if e.type == "round_result").data["result"]
    over = next(e for e in events if e.type == "game_over").data
    # the spectator view: six hands of real cards, faces shown, no card twice
    ids = [card for hand in held for card, _ in hand]
    assert len(ids) == len(set(ids)) > 6 * 2
    assert all(face == face_text(card_id(card)) for hand in held for card, face in hand)
    assert public_hands == [0, 0, 0, 0]  # the public overlay never shows a hand
    for i, (layout, lang) in enumerate(VIEWS):
        seen = playing[i]
        check_teams(seen, lang, 6)
        plays = [e for e in events if e.type == "play" and e.seq <= seen["table"]["seq"]]
        assert seen["table"]["centre"] == faces(plays[-1].data["cards"])
        assert seen["table"]["centreSeat"] == plays[-1].seat
        won = [e for e in events if e.type == "trick_won" and e.seq <= seen["table"]["seq"]]
        assert seen["points"] == str(won[-1].data["defender_points"] if won else 0)
        trump = locked["trump_suit"]
        assert seen["trump"] == (
            {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[trump]
            if trump
            else ("无主" if lang == "zh" else "No trump")
        )
        assert [s["banker"] for s in seen["seats"]] == [s == locked["banker"] for s in range(6)]
        assert seen["kitty"] == "12"
        check_frame(seen["table"], viewport_of(layout))
        if seen["callout"] is not None:  # a throw that did not stand, as it happened
            check_callout_clear(seen, viewport_of(layout))
        card = cards[i]
        items = {item["kind"]: item for item in card["items"]}
        assert items["total"]["value"] == str(result["defender_points"])
        kitty = items.get("kill") or items["kitty"]
        assert kitty["cards"] == result["kitty"]
        assert ended[i]["champion"] is not None
        assert [t["level"] for t in ended[i]["teams"]] == [str(x) for x in over["levels"]]
    for _, trouble in [*pages, (spectator, spectator_trouble)]:
        assert trouble == []
