"""The overlay's game seam (issue 26): each ``snapshot`` names its table's game and that
game's renderer, the server serves a game's renderer from its package, and a game of
four or six seats is carried whole (its figures, its seats) by the hub. The pages
themselves are driven in a real browser by test_overlay_browser.py.
"""

from __future__ import annotations

import json

import httpx
import pytest
from fake_overlay_game import events, registered

from arena.config import ServerSettings
from arena.events import Event
from arena.games.registry import get_game
from arena.server.game_assets import asset_file, game_overlay
from arena.server.hub import OverlayHub
from arena.server.wiring import ArenaServer

DDZ_OVERLAY = {
    "name": "ddz",
    "script": "/static/games/ddz/overlay.js",
    "style": "/static/games/ddz/overlay.css",
}


def snapshot_of(hub: OverlayHub, table: str = "t1") -> dict[str, object]:
    texts = hub.picture(hub.subscribe("public", table))
    message: dict[str, object] = json.loads(texts[1])
    assert message["type"] == "snapshot"
    return message


def test_dou_dizhu_names_its_renderer_in_its_package() -> None:
    folder = get_game("ddz").overlay_assets
    assert folder is not None
    assert (folder / "overlay.js").read_text(encoding="utf-8").count('register("ddz"') == 1
    assert game_overlay("ddz") == DDZ_OVERLAY
    assert asset_file("ddz", "overlay.js") == (folder / "overlay.js").resolve()


def test_a_game_without_a_renderer_or_unknown_has_none() -> None:
    assert game_overlay("no-such-game") == {"name": "no-such-game", "script": None, "style": None}
    assert asset_file("no-such-game", "overlay.js") is None
    assert asset_file("ddz", "../game.py") is None  # out of the folder
    assert asset_file("ddz", ".") is None  # a folder
    assert asset_file("ddz", "nothing.js") is None


def test_a_dou_dizhu_snapshot_names_its_game_and_three_seats_figures() -> None:
    hub = OverlayHub(run_id="r1")
    hub.on_event(Event("match_started", "t1", 0, 1, data={"players": ["A", "B", "C"]}))
    message = snapshot_of(hub)
    assert message["game"] == DDZ_OVERLAY
    assert message["figures"] == [None, None, None]  # as before the seam


def test_a_four_seat_table_has_four_seats_its_figures_and_no_renderer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with registered(monkeypatch):
        hub = OverlayHub(run_id="r1")
        for event in events("quad", ["N", "E", "S", "W"]):
            hub.on_event(event)
        hub.on_event(
            Event("decision", "t1", 1, 99, 3, "W", {"model": "m", "legal_first_try": True}, "quad")
        )
        message = snapshot_of(hub)
    assert message["game"] == {"name": "quad", "script": None, "style": None}
    state = message["state"]
    assert isinstance(state, dict)
    assert [seat["player"] for seat in state["seats"]] == ["N", "E", "S", "W"]
    figures = message["figures"]
    assert isinstance(figures, list)
    assert len(figures) == 4
    assert figures[:3] == [None, None, None]
    assert figures[3]["model"] == "m"
    assert figures[3]["legal_rate"] == 1.0


def test_a_six_seat_table_keeps_the_figures_of_every_seat(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with registered(monkeypatch):
        hub = OverlayHub(run_id="r1")
        for event in events("hex", [f"P{i}" for i in range(6)]):
            hub.on_event(event)
        hub.on_event(Event("decision", "t1", 1, 99, 5, "P5", {"model": "m"}, "hex"))
        message = snapshot_of(hub)
    figures = message["figures"]
    assert isinstance(figures, list)
    assert len(figures) == 6
    assert figures[5] is not None


async def test_the_server_serves_a_games_renderer_and_nothing_else() -> None:
    server = ArenaServer(ServerSettings(port=0), mode="play", token="t")
    async with server, httpx.AsyncClient(base_url=server.url) as http:
        script = await http.get("/static/games/ddz/overlay.js")
        style = await http.get("/static/games/ddz/overlay.css")
        missing = [
            (await http.get(path)).status_code
            for path in (
                "/static/games/ddz/nothing.js",
                "/static/games/ddz/%2e%2e/game.py",
                "/static/games/ddz/..%2fgame.py",
                "/static/games/no-such-game/overlay.js",
                "/static/games/ddz/",
            )
        ]
    assert script.status_code == 200
    assert "javascript" in script.headers["content-type"]
    assert "ArenaOverlay.register" in script.text
    assert style.status_code == 200
    assert style.headers["content-type"].startswith("text/css")
    assert missing == [404] * 5


NO_RENDERER = {"name": "quad", "script": None, "style": None}


class StubGifts:
    """A gift intake that only lists every effect (what the control page offers)."""

    effects = ("CHEER", "EMOTE", "PEEK", "SWAP", "ADD", "DOUBLE", "EFFECT", "ROLE_SWAP")


@pytest.mark.parametrize(
    ("game", "players", "effects", "overlay"),
    [
        ("ddz", ["A", "B", "C"], list(StubGifts.effects), DDZ_OVERLAY),
        ("quad", ["N", "E", "S", "W"], ["CHEER", "EFFECT"], NO_RENDERER),
    ],
)
async def test_the_controls_offer_the_featured_games_effects_and_seats(
    monkeypatch: pytest.MonkeyPatch,
    game: str,
    players: list[str],
    effects: list[str],
    overlay: dict[str, object],
) -> None:
    with registered(monkeypatch):
        server = ArenaServer(ServerSettings(port=0), mode="play", token="t")
        server.parts.gifts = StubGifts()  # type: ignore[assignment]
        async with server, httpx.AsyncClient(base_url=server.url) as http:
            auth = {"Authorization": "Bearer t"}
            before = (await http.get("/control/api/state", headers=auth)).json()
            for event in events(game, players):
                server.hub.on_event(event)
            state = (await http.get("/control/api/state", headers=auth)).json()
    assert before["effects"] == list(StubGifts.effects)  # no table yet: every effect
    assert (before["game"], before["seats"]) == (None, None)
    assert state["effects"] == effects
    assert state["game"] == overlay
    assert state["seats"] == len(players)
