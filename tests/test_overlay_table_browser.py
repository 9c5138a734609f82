"""The middle of the table on the overlay (issue 27), in a real browser: the current
trick in the centre, the ring of the seat to act, the move history, and a frame that
holds all of it without overlaps, in both layouts and both languages.

A real server plays a real scripted match on loopback (its first seat slow, so that the
page can be read while it thinks); the 4- and 6-seat game without a renderer is fed to
the hub by hand (tests/fake_overlay_game.py). Screenshots go to test-artifacts/; with
``ARENA_DOCS_SCREENSHOTS=1`` the landscape and portrait pictures of docs/overlay.md are
written too.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from typing import Any

import pytest
from fake_overlay_game import events, registered
from playwright.async_api import Browser, Page
from test_overlay_browser import (
    EVIL,
    LANDSCAPE,
    PORTRAIT,
    REPO,
    browser,  # noqa: F401 (fixture)
    open_page,
    overlaps,
    shot,
)

from arena.config import ServerSettings, parse_config
from arena.events import Event
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.messages import PlayRequest, PlayResponse
from arena.runner import build_tables, play_tables
from arena.server.wiring import ArenaServer
from arena.sinks.base import CollectingSink

TOKEN = "table-browser-test-token"
DOCS_SHOTS = os.environ.get("ARENA_DOCS_SCREENSHOTS") == "1"
MOVES = ("play", "pass")

# Everything the page shows of the table, read at once (the table moves on).
READ_TABLE = """() => {
  const app = window.arenaOverlay;
  const turn = app.snapshot && app.snapshot.turn;
  const box = (n) => {
    const r = n.getBoundingClientRect();
    return {x: r.x, y: r.y, width: r.width, height: r.height};
  };
  const visible = (n) => n && !n.hidden && getComputedStyle(n).display !== 'none'
    && n.getBoundingClientRect().width > 0;
  const part = (sel) => {
    const n = document.querySelector(sel);
    return visible(n) ? box(n) : null;
  };
  const limit = turn && turn.time_limit_ms;
  const latest = document.querySelector('#trick .trick-entry.latest');
  const rings = [...document.querySelectorAll('.seat .turn-ring')];
  return {
    seq: app.snapshot ? app.snapshot.seq : null,
    turnSeat: turn ? turn.seat : null,
    expected: limit ? (turn.deadline_at - Date.now()) / limit : null,
    ringSeats: rings.map(r => Number(r.closest('.seat').dataset.seat)),
    fraction: rings.length ? Number(rings[0].dataset.fraction) : null,
    turnSeats: [...document.querySelectorAll('.seat.turn')].map(s => Number(s.dataset.seat)),
    centre: latest ? [...latest.querySelectorAll('.card')].map(c => c.dataset.card) : null,
    centreSeat: latest ? Number(latest.dataset.seat) : null,
    centreNames: [...document.querySelectorAll('#trick .trick-who')].map(n => n.textContent),
    centreMarkup: document.querySelectorAll('#trick img, #moves img').length,
    moves: [...document.querySelectorAll('#moves .move')].map(m => ({
      seat: Number(m.dataset.seat), type: m.dataset.type,
      cards: m.dataset.cards ? m.dataset.cards.split(' ') : null,
      who: m.querySelector('.move-who').textContent,
    })),
    movesTitle: (document.querySelector('#moves .moves-title') || {}).textContent,
    boxes: {
      panels: [...document.querySelectorAll('.seat-panel')].filter(visible).map(box),
      trick: part('#trick'),
      entries: [...document.querySelectorAll('#trick .trick-entry')].map(box),
      moves: part('#moves'),
      topbar: box(document.querySelector('#topbar')),
      leaderboard: part('#leaderboard'),
    },
  };
}"""


# The moment to read: the slow seat a while into thinking over a play, the hostile
# seat's play in the trick and every play's flight into the centre over; the page is
# read in the same step (the table moves on), else nothing yet.
AT_THE_MOMENT = (
    """([evil, after]) => {
    const app = window.arenaOverlay, s = app.snapshot;
    const t = s && s.turn;
    if (!t || t.seat !== 0 || s.phase !== 'playing') return false;
    if (!t.time_limit_ms) return false;
    if (Date.now() - (t.deadline_at - t.time_limit_ms) < after) return false;
    const names = [...document.querySelectorAll('#trick .trick-who')]
        .map(n => n.textContent);
    if (!names.includes(evil) || !document.querySelector('#trick .latest')) return false;
    const flying = document.getAnimations().some(a => a.playState === 'running'
        && a.effect && a.effect.target && a.effect.target.closest
        && a.effect.target.closest('#trick'));
    return !flying && ("""
    + READ_TABLE
    + """)();
}"""
)


class ThinkingAgent(HeuristicAgent):
    """The heuristic player, taking three seconds over each play: long enough that a
    page on a loaded machine reads it still thinking, past THOUGHT_S."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(3.0)
        return await super().play(request)


THOUGHT_S = 1.2  # into the slow seat's turn (of its 5 s) when the page is read


def inside(box: dict[str, float], viewport: dict[str, int]) -> bool:
    return (
        box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"] + 0.5
        and box["y"] + box["height"] <= viewport["height"] + 0.5
    )


def check_frame(seen: dict[str, Any], viewport: dict[str, int]) -> None:
    """Every part inside the frame; no two seat panels, nor the history or the centre
    and a seat, nor the history and the leaderboard, over each other."""
    boxes = seen["boxes"]
    parts = [*boxes["panels"], *boxes["entries"], boxes["topbar"]]
    parts += [b for b in (boxes["trick"], boxes["moves"], boxes["leaderboard"]) if b]
    for part in parts:
        assert inside(part, viewport), part
    panels = boxes["panels"]
    for i, panel in enumerate(panels):
        assert not any(overlaps(panel, other) for other in panels[i + 1 :])
    for solo in (boxes["moves"], boxes["leaderboard"], boxes["topbar"]):
        if solo is not None:
            assert not any(overlaps(solo, panel) for panel in panels), solo
    for entry in boxes["entries"]:
        assert not any(overlaps(entry, panel) for panel in panels), entry
        for other in (boxes["moves"], boxes["leaderboard"], boxes["topbar"]):
            assert other is None or not overlaps(entry, other)
    if boxes["moves"] and boxes["leaderboard"]:
        assert not overlaps(boxes["moves"], boxes["leaderboard"])


def match_config() -> Any:
    """Three seats, the first slow (the page is read while it thinks, 5 s to decide),
    the one before it hostile by name (it has always just acted)."""
    return parse_config(
        {
            "match": {"rounds": 1, "seed": 11},
            "table": {"pace_s": 0.05},
            "seats": [
                {
                    "name": "Slow",
                    "type": "test_overlay_table_browser:ThinkingAgent",
                    "timeout_s": 5,
                },
                {"name": "Beta", "type": "greedy"},
                {"name": EVIL, "type": "heuristic"},
            ],
        }
    )


async def save_docs(page: Page, layout: str) -> None:
    if DOCS_SHOTS:
        await page.screenshot(path=str(REPO / "docs" / f"overlay-{layout}.png"))


# Every layout in every language: one page each, on one match (or one fed table).
VIEWS = [("landscape", "zh"), ("landscape", "en"), ("portrait", "zh"), ("portrait", "en")]


def viewport_of(layout: str) -> dict[str, int]:
    return LANDSCAPE if layout == "landscape" else PORTRAIT


async def open_views(
    browser: Browser,  # noqa: F811 (fixture)
    url: str,
    views: list[tuple[str, str]],
) -> list[tuple[Page, list[str]]]:
    """One page per (layout, language) on the server at ``url``, opened together."""
    return list(
        await asyncio.gather(
            *(
                open_page(
                    browser, f"{url}/overlay?layout={layout}&lang={lang}", viewport_of(layout)
                )
                for layout, lang in views
            )
        )
    )


async def test_the_centre_shows_the_last_play_and_the_ring_the_seat_to_act(
    browser: Browser,  # noqa: F811 (fixture)
) -> None:
    """One real match, watched by a page per layout and language; each page is read
    at its own moment of the slow seat thinking (the next such turn if it missed one)."""
    recorder = CollectingSink()
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        pages = await open_views(browser, server.url, VIEWS)
        server.hub.set_leaderboard(
            {
                "tournament": "t-1",
                "rounds": 3,
                "agents": [
                    {"rank": 1, "name": "Slow", "points": 12, "forfeits": 0},
                    {"rank": 2, "name": EVIL, "points": -4, "forfeits": 0},
                    {"rank": 3, "name": "Beta", "points": -8, "forfeits": 0},
                ],
            }
        )
        tables = build_tables(
            match_config(), seed=11, sinks=[server.hub, recorder], sink_queue=None
        )
        server.attach(tables)
        game = asyncio.create_task(play_tables(tables, rounds=1, seed=11))

        async def read(page: Page, layout: str, lang: str) -> dict[str, Any]:
            # the slow seat thinking over a play (THOUGHT_S in), the hostile seat in the trick
            found = await page.wait_for_function(
                AT_THE_MOMENT, arg=[EVIL, THOUGHT_S * 1000], timeout=60_000, polling="raf"
            )
            seen: dict[str, Any] = await found.json_value()
            await shot(page, f"table-{layout}-{lang}")
            if lang == "zh":
                await save_docs(page, layout)
            return seen

        try:
            views = await asyncio.gather(
                *(
                    read(page, layout, lang)
                    for (page, _), (layout, lang) in zip(pages, VIEWS, strict=True)
                )
            )
        finally:
            game.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await game
    for seen, (_, trouble), (layout, lang) in zip(views, pages, VIEWS, strict=True):
        check_centre(seen, recorder, lang, viewport_of(layout))
        assert trouble == []


def check_centre(
    seen: dict[str, Any], recorder: CollectingSink, lang: str, viewport: dict[str, int]
) -> None:
    """What one page read while the slow seat thought, against what the table emitted."""
    # the centre: the last play the page had seen, by the seat that made it
    plays = [e for e in recorder.of_type("play") if e.seq <= seen["seq"]]
    assert seen["centre"] == list(plays[-1].data["cards"])
    assert seen["centreSeat"] == plays[-1].seat
    assert EVIL in seen["centreNames"]  # as text
    assert seen["centreMarkup"] == 0
    # the turn: the seat to act alone lit and ringed; the ring as full as the time left
    assert seen["turnSeats"] == [0]
    assert seen["ringSeats"] == [0]
    assert seen["expected"] is not None
    assert abs(seen["fraction"] - seen["expected"]) < 0.12
    assert seen["fraction"] < 0.85  # 1.2 s of 5 gone: the ring has emptied some
    # the history: the round's last moves, newest first, by seat and cards
    round_no = plays[-1].round
    done = [
        e
        for e in recorder.events
        if e.type in MOVES and e.round == round_no and e.seq <= seen["seq"]
    ]
    shown = [m for m in seen["moves"] if m["type"] in MOVES]
    assert shown
    wanted = [
        {
            "seat": e.seat,
            "type": e.type,
            "cards": list(e.data["cards"]) if e.type == "play" else None,
        }
        for e in reversed(done)
    ][: len(shown)]
    assert [{k: m[k] for k in ("seat", "type", "cards")} for m in shown] == wanted
    assert EVIL in [m["who"] for m in seen["moves"]]
    assert seen["movesTitle"] == ("出牌记录" if lang == "zh" else "Moves")
    check_frame(seen, viewport)


@pytest.mark.parametrize(
    ("game", "count", "views"),
    [
        ("hex", 6, VIEWS),
        ("quad", 4, [("landscape", "en"), ("portrait", "zh")]),
    ],
    ids=["hex-6", "quad-4"],
)
async def test_a_game_of_more_seats_has_its_trick_ring_and_history_in_the_frame(
    browser: Browser,  # noqa: F811 (fixture)
    monkeypatch: pytest.MonkeyPatch,
    game: str,
    count: int,
    views: list[tuple[str, str]],
) -> None:
    """The shell alone (the game has no renderer): its trick from the seats' actions, its
    history rebuilt from the snapshot by a page that joins late, the ring on the seat
    to act; and the result card takes the centre when the round ends. One fed table,
    a page per layout and language on it."""
    players = [EVIL, *(f"玩家{i}" for i in range(1, count))]
    with registered(monkeypatch):
        server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
        async with server:
            fed = events(game, players)
            now = int(time.time() * 1000)
            # the next seat round the table is to act, two thirds of its 300 s left (the
            # pages are read a while after, one by one: a loaded machine may take 20 s
            # to open and read four, the ring emptying a three-hundredth a second)
            fed.append(
                Event("turn_started", "t1", 1, len(fed) + 1, 0, None,
                      {"deadline_at": now + 200_000, "time_limit_ms": 300_000}, game=game)
            )  # fmt: skip
            for event in fed:
                server.hub.on_event(event)
            server.hub.flush()
            pages = await open_views(browser, server.url, views)
            seen = []
            for (page, _), (layout, lang) in zip(pages, views, strict=True):
                await page.locator("#trick .trick-entry.latest .card").wait_for(timeout=10_000)
                await page.locator(".seat .turn-ring").wait_for(timeout=10_000)
                seen.append(await page.evaluate(READ_TABLE))
                await shot(page, f"table-{game}-{layout}-{lang}")
            result = {
                "round_no": 1,
                "players": players,
                "scores": {p: (3 if i == 0 else -1) for i, p in enumerate(players)},
                "totals": {p: (3 if i == 0 else -1) for i, p in enumerate(players)},
                "result": {},
            }
            server.hub.on_event(
                Event("round_result", "t1", 1, len(fed) + 1, None, None, result, game=game)
            )
            trick_hidden = []
            for (page, _), (layout, lang) in zip(pages, views, strict=True):
                await page.locator("#round-card").wait_for(state="visible", timeout=10_000)
                trick_hidden.append(not await page.locator("#trick").is_visible())
                await shot(page, f"table-{game}-{layout}-{lang}-result")
    for one, (_, trouble), (layout, _lang) in zip(seen, pages, views, strict=True):
        assert one["centre"] == [f"♠{count + 2}"]  # the last play: the last seat's
        assert one["centreSeat"] == count - 1
        assert one["turnSeats"] == [0]
        assert one["ringSeats"] == [0]
        assert abs(one["fraction"] - one["expected"]) < 0.1
        assert 0.5 < one["fraction"] < 0.8
        # every seat played once: the history, newest first, rebuilt on joining
        assert [(m["seat"], m["cards"]) for m in one["moves"]] == [
            (i, [f"♠{i + 3}"]) for i in reversed(range(count))
        ]
        assert one["moves"][-1]["who"] == EVIL
        assert one["centreMarkup"] == 0
        check_frame(one, viewport_of(layout))
        assert trouble == []
    assert all(trick_hidden)  # the result card has the centre


async def test_a_play_flies_in_and_reduced_motion_keeps_it_still(
    browser: Browser,  # noqa: F811 (fixture)
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A new play comes into the centre with a short flight; a viewer asking for
    reduced motion gets it there at once."""
    players = ["A", "B", "C", "D"]
    with registered(monkeypatch):
        server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
        async with server:
            page, trouble = await open_page(browser, f"{server.url}/overlay")
            still, still_trouble = await open_page(browser, f"{server.url}/overlay")
            await still.emulate_media(reduced_motion="reduce")
            fed = events("quad", players)
            server.hub.on_event(fed[0])  # the match starts: its table drawn, empty
            for p in (page, still):
                await p.wait_for_function("document.querySelectorAll('.seat').length === 4")
            for event in fed[1:]:
                server.hub.on_event(event)
            durations = []
            for p in (page, still):
                entry = p.locator("#trick .trick-entry.latest.entering")
                await entry.wait_for(timeout=10_000)
                durations.append(
                    await entry.evaluate("e => parseFloat(getComputedStyle(e).animationDuration)")
                )
    assert durations[0] > 0.2
    assert durations[1] < 0.001
    assert trouble == still_trouble == []


async def test_a_bomb_lands_in_the_centre_named_and_shaking(
    browser: Browser,  # noqa: F811 (fixture)
) -> None:
    """Dou Dizhu's renderer: a bomb in the centre under its hand type's name, the trick
    shaking and the full-screen effect; the landlord's bid listed in the moves."""
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        page, trouble = await open_page(browser, f"{server.url}/overlay?lang=en")
        made: list[Event] = []

        def add(type_: str, seat: int | None = None, **data: Any) -> None:
            made.append(Event(type_, "t1", 1, len(made) + 1, seat, None, data))

        add("match_started", players=["A", EVIL, "C"], rounds=1)
        add("round_started", players=["A", EVIL, "C"], round_no=1)
        add("bid", 1, bid=3, mode="score")
        add("landlord_chosen", 1, call_score=3, bottom_cards=["♠3", "♠4", "♠5"])
        for event in made:
            server.hub.on_event(event)
        await page.locator(".seat.landlord").wait_for(timeout=10_000)
        add("play", 1, cards=["♠9", "♥9", "♣9", "♦9"], hand_type="BOMB", cards_left=16)
        server.hub.on_event(made[-1])
        await page.locator("#trick.boom").wait_for(timeout=10_000)
        await page.locator("#effects .fx-bomb").wait_for(timeout=10_000)
        latest = page.locator("#trick .trick-entry.latest")
        await latest.locator(".card").first.wait_for(timeout=10_000)
        cards = await latest.locator(".card").evaluate_all("cs => cs.map(c => c.dataset.card)")
        label = await latest.locator(".trick-label").text_content()
        who = await latest.locator(".trick-who").text_content()
        moves = await page.locator("#moves .move").all_text_contents()
        await shot(page, "table-bomb")
    assert cards == ["♠9", "♥9", "♣9", "♦9"]
    assert label == "Bomb"
    assert who == EVIL
    assert moves[0].startswith(EVIL)  # newest first: the bomb, then the bid
    assert moves[1] == f"{EVIL}Bid 3"
    assert trouble == []
