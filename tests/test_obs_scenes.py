"""The OBS scene collection a streamer imports (config/obs/ddz-arena.scenes.json): its
browser sources point at the arena's pages at the right sizes, its scenes hold them, and
each page opens at that size in a real browser without an error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Browser
from test_overlay_browser import TOKEN, browser, open_page  # noqa: F401 (fixture)

from arena.config import ServerSettings
from arena.server.wiring import ArenaServer

SCENES = Path(__file__).resolve().parent.parent / "config" / "obs" / "ddz-arena.scenes.json"


def collection() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(SCENES.read_text(encoding="utf-8"))
    return data


def browser_sources() -> list[dict[str, Any]]:
    return [s for s in collection()["sources"] if s["id"] == "browser_source"]


def test_each_browser_source_is_an_arena_page_at_its_layouts_size() -> None:
    sources = browser_sources()
    default_port = ServerSettings().port
    pages = set()
    for source in sources:
        settings = source["settings"]
        url = urlsplit(settings["url"])
        assert (url.scheme, url.hostname, url.port) == ("http", "127.0.0.1", default_port)
        portrait = url.query == "layout=portrait"
        size = (settings["width"], settings["height"])
        assert size == ((1080, 1920) if portrait else (1920, 1080)), source["name"]
        assert "rgba(0, 0, 0, 0)" in settings["css"]  # transparent over the scene
        pages.add((url.path, portrait))
    assert pages == {("/overlay", False), ("/overlay", True), ("/spectator", False)}


def test_every_scene_shows_a_source_of_the_collection_whole() -> None:
    data = collection()
    sources = {s["uuid"]: s for s in browser_sources()}
    scenes = [s for s in data["sources"] if s["id"] == "scene"]
    assert [s["name"] for s in scenes] == [o["name"] for o in data["scene_order"]]
    assert data["current_scene"] in {s["name"] for s in scenes}
    shown = set()
    for scene in scenes:
        for item in scene["settings"]["items"]:
            source = sources[item["source_uuid"]]
            assert item["name"] == source["name"]
            assert item["pos"] == {"x": 0.0, "y": 0.0}
            assert item["scale"] == {"x": 1.0, "y": 1.0}  # the page is drawn at its size
            shown.add(item["source_uuid"])
    assert shown == set(sources)
    uuids = [s["uuid"] for s in data["sources"]]
    assert len(set(uuids)) == len(uuids)


async def test_each_source_opens_at_its_size_without_an_error(browser: Browser) -> None:  # noqa: F811
    server = ArenaServer(ServerSettings(port=0), mode="play", token=TOKEN)
    async with server:
        served = urlsplit(server.url)
        for source in browser_sources():
            settings = source["settings"]
            url = urlsplit(settings["url"])._replace(netloc=served.netloc).geturl()
            size = {"width": settings["width"], "height": settings["height"]}
            page, trouble = await open_page(browser, url, viewport=size)
            # the shell ran: its status said in words, the game's seats laid out waiting
            await page.wait_for_function(
                "document.querySelector('#status').textContent.length > 0"
                " && document.querySelectorAll('.seat').length === 3"
            )
            box = await page.locator("#overlay").bounding_box()
            assert box is not None
            assert box["width"] <= size["width"]
            assert box["height"] <= size["height"]
            assert trouble == [], source["name"]
            await page.close()
