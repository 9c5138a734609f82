"""The between screen in a real browser (issue 27): ``arena serve --next-in`` between two
matches, and ``arena tournament run --serve`` between two featured tables, each a real
process on loopback watched by Debian's chromium.

The screen covers the table while the next match or table is coming: its title, a
countdown, the standings so far and who plays next, inside the frame in both layouts.
Screenshots go to ``test-artifacts/`` (the fixture and helpers of test_overlay_browser).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page
from test_overlay_browser import EVIL, LANDSCAPE, PORTRAIT, browser, open_page, shot  # noqa: F401

REPO = Path(__file__).resolve().parent.parent
PLAYERS = [EVIL, "Beta", "甘玛"]
SEATS = "".join(
    f'\n[[seats]]\nname = "{name}"\ntype = "{kind}"\n'
    for name, kind in zip(PLAYERS, ("greedy", "heuristic", "random"), strict=True)
)


@pytest.fixture
def started() -> Iterator[list[subprocess.Popen[str]]]:
    """The processes a test starts: killed at its end if they still run."""
    processes: list[subprocess.Popen[str]] = []
    yield processes
    for process in processes:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


def arena(log: Path, *args: str) -> subprocess.Popen[str]:
    """``arena ARGS`` in a process of its own, its stderr in ``log`` (a file, so that a
    test that stops reading never blocks it)."""
    env = {k: v for k, v in os.environ.items() if k != "ARENA_SERVER_TOKEN"}
    env["ARENA_SERVER_TOKEN"] = "between-test-token"
    with log.open("w", encoding="utf-8") as err:
        return subprocess.Popen(
            [sys.executable, "-m", "arena.cli", *args],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=err,
            text=True,
        )


def overlay_url(log: Path, process: subprocess.Popen[str], within_s: float = 30) -> str:
    """The server's base URL, once the process said it."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = re.search(r"overlay: (http://127\.0\.0\.1:\d+)/overlay", log.read_text("utf-8"))
        if found:
            return found.group(1)
        assert process.poll() is None, log.read_text("utf-8")
        time.sleep(0.05)
    raise AssertionError(f"no overlay URL in {log.read_text('utf-8')}")


async def inside_the_frame(page: Page, viewport: dict[str, int]) -> None:
    """The screen and every part of its card lie inside the viewport."""
    for selector in ("#between", ".between-card", ".between-clock", ".between-row"):
        for box in [await node.bounding_box() for node in await page.locator(selector).all()]:
            assert box is not None, selector
            assert box["x"] >= 0, (selector, box)
            assert box["y"] >= 0, (selector, box)
            assert box["x"] + box["width"] <= viewport["width"] + 0.5, (selector, box)
            assert box["y"] + box["height"] <= viewport["height"] + 0.5, (selector, box)
    card = await page.locator(".between-card").evaluate(
        "c => [c.scrollHeight, c.clientHeight, c.scrollWidth, c.clientWidth]"
    )
    assert card[0] <= card[1], f"the card's content is cut: {card}"
    assert card[2] <= card[3], f"the card's content is cut: {card}"


async def clock_seconds(page: Page) -> int:
    text = await page.locator(".between-clock").text_content() or ""
    found = re.fullmatch(r"(\d+):(\d\d)", text)
    assert found, text
    return int(found[1]) * 60 + int(found[2])


async def texts(page: Page, selector: str) -> list[str]:
    return await page.locator(selector).all_text_contents()


async def test_between_two_served_matches_the_screen_counts_down_over_the_last_standings(
    browser: Browser,  # noqa: F811
    started: list[subprocess.Popen[str]],
    tmp_path: Path,
) -> None:
    """``arena serve --next-in``: once a match ends, the screen says the next match,
    counts down, shows the match's final standings (as its match card ranks them) and
    who plays next (the same seats); it goes once the next match is dealt. Both layouts
    and languages, watching the same server."""
    config = tmp_path / "stream.toml"
    config.write_text(
        "[match]\nrounds = 1\nseed = 11\n[table]\npace_s = 0.04\n" + SEATS, encoding="utf-8"
    )
    log = tmp_path / "serve.log"
    process = arena(
        log, "serve", "--config", str(config), "--port", "0", "--start", "--next-in", "6"
    )
    started.append(process)
    base = overlay_url(log, process)
    pages = [
        (*await open_page(browser, f"{base}/overlay?lang=zh", LANDSCAPE), LANDSCAPE, "下一场"),
        (
            *await open_page(browser, f"{base}/overlay?layout=portrait&lang=en", PORTRAIT),
            PORTRAIT,
            "Next match",
        ),
    ]
    firsts = []
    for page, _, viewport, title in pages:
        await page.locator("#between").wait_for(state="visible", timeout=60_000)
        assert await page.locator(".between-title").text_content() == title
        first = await clock_seconds(page)
        assert 1 <= first <= 6
        firsts.append(first)
        rows = ".between-row:not(.between-header)"
        names = await texts(page, f"{rows} .between-name")
        ranks = [int(r) for r in await texts(page, f"{rows} .between-rank")]
        points = [int(p) for p in await texts(page, f"{rows} .between-points")]
        assert sorted(names) == sorted(PLAYERS)
        assert ranks[0] == 1
        assert ranks == sorted(ranks)
        assert points == sorted(points, reverse=True)
        assert sum(points) == 0
        totals = await page.evaluate("window.arenaOverlay.story.match.data.totals")
        assert {name: totals[name] for name in names} == dict(zip(names, points, strict=True))
        assert await texts(page, ".between-player") == PLAYERS  # the next match: same seats
        assert await page.locator("img").count() == 0  # the hostile name is text
        await inside_the_frame(page, viewport)
        layout = "portrait" if viewport is PORTRAIT else "landscape"
        await shot(page, f"between-serve-{layout}-{'zh' if title == '下一场' else 'en'}")
    await pages[0][0].wait_for_timeout(1_200)
    for (page, trouble, _, _), first in zip(pages, firsts, strict=True):
        assert await clock_seconds(page) < first  # counting down
        screen = page.locator("#between")
        await screen.wait_for(state="hidden", timeout=15_000)
        await page.wait_for_function(  # the next match dealt: the table plays again
            "window.arenaOverlay.snapshot && window.arenaOverlay.snapshot.status === 'live'",
            timeout=15_000,
        )
        assert await screen.is_hidden()
        assert trouble == []


async def test_between_two_featured_tournament_tables_the_screen_names_the_next_table(
    browser: Browser,  # noqa: F811
    started: list[subprocess.Popen[str]],
    tmp_path: Path,
) -> None:
    """``arena tournament run --serve`` with ``[server] between_tables_s``: when the
    featured table ends the pages keep it a few seconds with the screen over it (next
    table, its stage and number, its players, the tournament's leaderboard, a countdown),
    then follow the next table. Both layouts and languages, watching the same run."""
    cup = tmp_path / "cup.toml"
    agents = "".join(
        f'\n[[agents]]\nname = "{name}"\ntype = "{kind}"\n'
        for name, kind in zip(
            [*PLAYERS, "Dee"], ("greedy", "heuristic", "random", "greedy"), strict=True
        )
    )
    cup.write_text(
        '[tournament]\nname = "Cup"\nformat = "quick"\nseed = 5\n[table]\npace_s = 0.05\n'
        "[server]\nbetween_tables_s = 5\n" + agents,
        encoding="utf-8",
    )
    log = tmp_path / "cup.log"
    process = arena(
        log, "tournament", "run", str(cup), "--db", str(tmp_path / "cup.db"), "--serve",
        "--port", "0",
    )  # fmt: skip
    started.append(process)
    base = overlay_url(log, process)
    pages = [
        (*await open_page(browser, f"{base}/overlay?lang=zh", LANDSCAPE), LANDSCAPE, "zh"),
        (
            *await open_page(browser, f"{base}/overlay?layout=portrait&lang=en", PORTRAIT),
            PORTRAIT,
            "en",
        ),
    ]
    for page, trouble, viewport, lang in pages:
        screen = page.locator("#between")
        await screen.wait_for(state="visible", timeout=90_000)
        held = await page.locator("#overlay").get_attribute("data-table")
        assert held
        assert re.fullmatch(r"s\dt\d", held)
        assert await page.locator(".between-title").text_content() == (
            "下一桌" if lang == "zh" else "Next table"
        )
        which = page.locator(".between-which[data-table]")  # once the next table is known
        await which.wait_for(timeout=10_000)
        coming = await which.get_attribute("data-table")
        assert coming
        assert coming != held
        stage = re.fullmatch(r"s(\d+)t(\d+)", coming)
        assert stage
        assert await which.text_content() == (
            f"第 {stage[1]} 轮 · 第 {stage[2]} 桌"
            if lang == "zh"
            else f"Round {stage[1]} · Table {stage[2]}"
        )
        players = await texts(page, ".between-player")
        assert len(players) == 3
        assert set(players) <= {*PLAYERS, "Dee"}
        names = await texts(page, ".between-row:not(.between-header) .between-name")
        assert sorted(names) == sorted([*PLAYERS, "Dee"])  # the leaderboard, every agent
        await page.wait_for_function(  # as its panel ranks them (a round may just have ended)
            """() => {
                const of = (s) => [...document.querySelectorAll(s)].map((n) => n.textContent);
                const shown = of(".between-row:not(.between-header) .between-name");
                return JSON.stringify(shown) === JSON.stringify(of("#lb-rows .lb-name"));
            }""",
            timeout=5_000,
        )
        points = await texts(page, ".between-row:not(.between-header) .between-points")
        assert all(re.fullmatch(r"-?\d+(\.\d+)? (分|pts)", p) for p in points), points
        assert 1 <= await clock_seconds(page) <= 5
        assert await page.locator("img").count() == 0
        await inside_the_frame(page, viewport)
        layout = "portrait" if viewport is PORTRAIT else "landscape"
        await shot(page, f"between-tournament-{layout}-{lang}")
        await screen.wait_for(state="hidden", timeout=10_000)
        await page.wait_for_function(
            f"document.querySelector('#overlay').dataset.table !== {held!r}", timeout=10_000
        )
        assert trouble == []
