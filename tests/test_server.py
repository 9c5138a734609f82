"""The arena server (issue 14) over real HTTP and WebSockets on loopback: its feeds, the
controls and their token, the signed gift webhook, and the late joiner.

A real uvicorn serves the real app on a free port; the tests are clients (httpx,
websockets) as a browser or a bridge would be. The pages themselves are driven in a
real browser by test_overlay_browser.py.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
import socket
import time
from collections.abc import AsyncIterator, Sequence
from typing import Any

import httpx
import pytest
import websockets
from test_spectator_feed import hidden_cards_in

from arena.config import ArenaConfig, SeatConfig, ServerSettings, parse_config
from arena.errors import ConfigError
from arena.logs import EVENT_ATTRIBUTE
from arena.runner import build_tables, play_tables
from arena.server.flags import TOKEN_ENV
from arena.server.serving import Serving
from arena.server.wiring import ArenaServer
from arena.sinks.base import CollectingSink
from arena.sinks.spectator import SpectatorFeed
from arena.table import Table
from gifts.run import start_gifts
from gifts.settings import load_gift_settings
from gifts.signatures import sign_arena_webhook
from gifts.webhook import WebhookIntake

TOKEN = "s3cret-token-for-tests"
EVIL = "<img src=x onerror=alert(1)>"


def config(rounds: int = 2, **table: Any) -> ArenaConfig:
    return parse_config(
        {
            "match": {"rounds": rounds, "seed": 7},
            "table": {"pace_s": 0.0, **table},
            "seats": [
                {"name": EVIL, "type": "heuristic"},
                {"name": "Beta", "type": "greedy"},
                {"name": "Gamma", "type": "heuristic"},
            ],
        }
    )


@contextlib.asynccontextmanager
async def served(token: str | None = TOKEN, **kwargs: Any) -> AsyncIterator[ArenaServer]:
    server = ArenaServer(ServerSettings(port=0), mode="play", token=token or "", **kwargs)
    async with server:
        yield server


async def read_until(ws: Any, stop: Any, *, within: float = 10.0) -> list[dict[str, Any]]:
    """Messages until one for which ``stop(message)`` is true (that one included)."""
    got: list[dict[str, Any]] = []
    async with asyncio.timeout(within):
        while True:
            message = json.loads(await ws.recv())
            got.append(message)
            if stop(message):
                return got


def ws_url(server: ArenaServer, path: str = "/ws") -> str:
    return server.url.replace("http://", "ws://") + path


async def play(server: ArenaServer, cfg: ArenaConfig, **kwargs: Any) -> list[Table]:
    tables = build_tables(cfg, seed=7, sinks=[server.hub], sink_queue=None, **kwargs)
    server.attach(tables)
    await play_tables(tables, rounds=cfg.match.rounds, seed=7)
    server.hub.flush()
    return tables


async def test_a_page_gets_the_picture_then_every_public_event_and_never_a_hand() -> None:
    async with served() as server, websockets.connect(ws_url(server)) as ws:
        first = json.loads(await ws.recv())
        assert first["type"] == "server"
        assert first["match"] == "waiting"
        assert first["table"] is None
        game = asyncio.create_task(play(server, config()))
        got = await read_until(ws, lambda m: m.get("type") == "match_ended")
        await game
    events = [m for m in got if "seq" in m and m["type"] not in ("snapshot", "server")]
    first_seq = next(m for m in got if m["type"] == "snapshot")["state"]["seq"]
    # the picture covers the events up to its seq; every later one follows, none missing
    assert [e["seq"] for e in events] == list(range(first_seq + 1, first_seq + 1 + len(events)))
    assert {e["v"] for e in events} == {1}
    assert {e["run"] for e in events} == {server.hub.run_id}
    assert hidden_cards_in(events) == []
    snapshots = [m for m in got if m["type"] == "snapshot"]
    assert snapshots, "the page gets the table's picture as it changes"
    assert snapshots[0]["state"]["seats"][0]["player"] == EVIL  # as text, the page's job
    # no snapshot shows a card still hidden when it was sent, either
    assert hidden_cards_in([m for m in got if m["type"] != "server"]) == []


async def test_a_late_joiner_is_current_at_once() -> None:
    async with served() as server:
        await play(server, config(rounds=1))
        async with websockets.connect(ws_url(server)) as ws:
            got = [json.loads(await ws.recv()) for _ in range(2)]
    assert [m["type"] for m in got] == ["server", "snapshot"]
    assert got[0]["match"] == "ended"
    assert got[0]["table"] == "t1"
    state = got[1]["state"]
    assert state["status"] == "ended"
    assert state["standings"]
    assert {s["player"] for s in state["standings"]} == {
        EVIL,
        "Beta",
        "Gamma",
    }
    assert all(seat["cards_left"] is not None for seat in state["seats"])


async def test_table_query_picks_a_table_and_featured_follows_the_control() -> None:
    async with served() as server:
        two_tables = config(rounds=1)
        match = two_tables.match.model_copy(update={"tables": 2})
        await play(server, two_tables.model_copy(update={"match": match}))
        featured = server.hub.featured
        other = "t1" if featured == "t2" else "t2"
        async with websockets.connect(ws_url(server, f"/ws?table={other}")) as ws:
            got = [json.loads(await ws.recv()) for _ in range(2)]
        assert got[0]["table"] == other
        assert got[1]["table"] == other
        assert got[0]["featured"] == featured
        async with websockets.connect(ws_url(server)) as ws:
            first = await read_until(ws, lambda m: m["type"] == "snapshot")
            assert first[-1]["table"] == featured
            server.hub.feature(other)
            moved = await read_until(ws, lambda m: m["type"] == "snapshot")
        assert moved[0]["type"] == "server"
        assert moved[0]["featured"] == other
        assert moved[-1]["table"] == other
        with pytest.raises(ValueError, match="no table 't9'"):
            server.hub.feature("t9")


async def test_health_pages_and_static_files_are_served() -> None:
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        health = (await http.get("/healthz")).json()
        assert health["status"] == "ok"
        assert health["mode"] == "play"
        for page in ("/overlay", "/spectator", "/control"):
            answer = await http.get(page)
            assert answer.status_code == 200
            assert answer.headers["content-type"].startswith("text/html")
        assert (await http.get("/static/overlay.js")).status_code == 200
        assert (await http.get("/static/../hub.py")).status_code == 404
        assert (await http.get("/avatars/0")).status_code == 404


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({}, 401),
        ({"Authorization": "Bearer wrong"}, 401),
        ({"Authorization": f"Basic {TOKEN}"}, 401),
        ({"Authorization": f"Bearer {TOKEN}"}, 200),
    ],
)
async def test_the_controls_want_the_token(headers: dict[str, str], status: int) -> None:
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        answer = await http.post("/control/api/pause", headers=headers)
        assert answer.status_code == status
        assert server.control.pause_requested == (status == 200)
        state = await http.get("/control/api/state", headers=headers)
        assert state.status_code == status


async def test_without_a_token_the_controls_and_the_webhook_refuse_everything() -> None:
    async with served(token=None) as server, httpx.AsyncClient(base_url=server.url) as http:
        for path in ("/control/api/pause", "/gifts/webhook"):
            answer = await http.post(path, headers={"Authorization": "Bearer anything"})
            assert answer.status_code == 403
            assert "ARENA_SERVER_TOKEN" in answer.json()["error"]
        assert not server.control.pause_requested


def test_beyond_loopback_needs_a_token() -> None:
    with pytest.raises(ConfigError, match="needs a token"):
        ArenaServer(ServerSettings(), mode="play", host="0.0.0.0", token="")
    ArenaServer(ServerSettings(), mode="play", host="0.0.0.0", token=TOKEN)  # allowed


def test_a_server_without_a_token_on_loopback_makes_one_for_its_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ARENA_SERVER_TOKEN`` unset: a loopback server makes a token of its own (new each
    run, fit for a URL's fragment); set, that one is used; beyond loopback it must be set."""
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    made = ArenaServer(ServerSettings(port=0), mode="serve")
    again = ArenaServer(ServerSettings(port=0), mode="serve")
    assert made.token_made
    assert made.token is not None
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", made.token)
    assert again.token != made.token
    link = made.control_link()
    assert link == f"{made.url}/control#token={made.token}"
    assert made.token not in json.dumps(made.urls())
    with pytest.raises(ConfigError, match=f"needs a token: set {TOKEN_ENV}"):
        ArenaServer(ServerSettings(), mode="play", host="0.0.0.0")
    monkeypatch.setenv(TOKEN_ENV, f"  {TOKEN} ")
    chosen = ArenaServer(ServerSettings(), mode="play", host="0.0.0.0")
    assert (chosen.token, chosen.token_made) == (TOKEN, False)


def test_a_token_of_spaces_only_is_said_and_a_token_made_for_the_run(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """``ARENA_SERVER_TOKEN="   "`` is a mistake (a variable expanded to nothing, say):
    it is no token, the run makes one, and a warning says why."""
    caplog.set_level(logging.WARNING, logger="arena.server.tokens")
    monkeypatch.setenv(TOKEN_ENV, "   ")
    made = ArenaServer(ServerSettings(port=0), mode="serve")
    assert made.token_made
    [said] = [getattr(r, EVENT_ATTRIBUTE) for r in caplog.records]
    assert said["event"] == "server_token_blank"
    assert TOKEN_ENV in said["detail"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/control", 200),
        ("GET", "/control/api/state", 401),
        ("GET", "/control/api/state", 200),
        ("POST", "/control/api/pause", 200),
        ("POST", "/control/api/explode", 404),
        ("GET", "/control/api/pause", 405),
    ],
)
async def test_the_controls_are_never_framed(method: str, path: str, status: int) -> None:
    """Another site's page could frame /control (logged in by the tab's token) and trick
    the streamer into clicking: the page and every answer of its API forbid framing."""
    auth = {"Authorization": f"Bearer {TOKEN}"} if status != 401 else {}
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        answer = await http.request(method, path, headers=auth)
    assert answer.status_code == status
    assert answer.headers["x-frame-options"] == "DENY"
    assert answer.headers["content-security-policy"] == "frame-ancestors 'none'"


async def test_the_overlay_and_the_spectator_view_may_be_framed() -> None:
    """OBS and viewers' pages embed these: nothing forbids framing them."""
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        for path in ("/overlay", "/spectator", "/healthz", "/static/overlay.js", "/controls"):
            answer = await http.get(path)
            assert "x-frame-options" not in answer.headers, path
            assert "frame-ancestors" not in answer.headers.get("content-security-policy", "")


async def test_a_port_in_use_is_said_plainly() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ConfigError, match=f"port {port} on 127.0.0.1 is in use"):
            await Serving(object(), port=port).start()


async def test_pause_holds_every_table_after_its_round_until_resume() -> None:
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        assert (await http.post("/control/api/pause", headers=auth)).json()["ok"]
        async with websockets.connect(ws_url(server)) as ws:
            game = asyncio.create_task(play(server, config(rounds=2)))
            await read_until(ws, lambda m: m.get("type") == "round_result")
            paused = await read_until(ws, lambda m: m["type"] == "server" and m["paused"])
            assert not [m for m in paused if m["type"] == "round_started"]
            await asyncio.sleep(0.2)
            assert not game.done()
            state = (await http.get("/control/api/state", headers=auth)).json()
            assert state["paused"]
            assert state["match"] == "live"
            assert (await http.post("/control/api/resume", headers=auth)).json()["ok"]
            rest = await read_until(ws, lambda m: m.get("type") == "match_ended")
            await game
    assert [m["round"] for m in rest if m["type"] == "round_started"] == [2]


def signed(body: bytes, secret: str = TOKEN, at: float | None = None) -> dict[str, str]:
    timestamp = int(time.time() if at is None else at)
    return {
        "X-Arena-Signature": sign_arena_webhook(body, secret.encode(), timestamp),
        "Content-Type": "application/json",
    }


async def test_the_webhook_takes_signed_gifts_only_and_every_one_is_told() -> None:
    cfg = config(rounds=3, pace_s=0.02)
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        tables = build_tables(cfg, seed=7, sinks=[server.hub], sink_queue=None)
        settings = load_gift_settings({"enabled": True}, source="test")
        gifts = await start_gifts(tables, settings, match_seed=7)
        server.parts.gifts = WebhookIntake(gifts.router, secret=TOKEN)
        game = asyncio.create_task(play_tables(tables, rounds=3, seed=7))
        try:
            async with websockets.connect(ws_url(server)) as ws:
                await read_until(ws, lambda m: m.get("type") == "turn_started")
                gift = json.dumps(
                    {
                        "event_id": "w-1",
                        "platform": "test",
                        "effect": "CHEER",
                        "display_name": EVIL,
                        "message": "加油",
                    }
                ).encode()
                unsigned = await http.post("/gifts/webhook", content=gift)
                assert unsigned.status_code == 401
                assert "X-Arena-Signature" in unsigned.json()["error"]
                forged = await http.post("/gifts/webhook", content=gift, headers=signed(gift, "x"))
                assert forged.status_code == 401
                stale = await http.post(
                    "/gifts/webhook", content=gift, headers=signed(gift, at=time.time() - 3600)
                )
                assert stale.status_code == 401
                answer = await http.post("/gifts/webhook", content=gift, headers=signed(gift))
                assert answer.status_code == 202
                assert answer.json()["accepted"] == "w-1"
                junk = b'{"event_id": "w-2", "platform": "test", "count": "many"}'
                bad = await http.post("/gifts/webhook", content=junk, headers=signed(junk))
                assert bad.status_code == 400
                ended: dict[str, dict[str, Any]] = {}

                def both_ended(message: dict[str, Any]) -> bool:
                    if message.get("type") == "gift" and message["data"]["status"] != "queued":
                        ended[message["data"]["event_id"]] = message["data"]
                    return {"w-1", "w-2"} <= set(ended)

                await read_until(ws, both_ended)
        finally:
            await game
            await gifts.stop()
    assert ended["w-2"]["status"] == "rejected"
    assert "count" in ended["w-2"]["reason"]
    assert ended["w-1"]["status"] == "applied"
    assert ended["w-1"]["viewer"] == EVIL
    counts = gifts.counts()
    assert counts["applied"] == 1
    assert counts["rejected"] == 1


async def test_a_test_gift_from_the_controls_reaches_the_table() -> None:
    cfg = config(rounds=2, pace_s=0.02)
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        off = await http.post("/control/api/gift", headers=auth, json={"effect": "CHEER"})
        assert off.status_code == 503
        assert "--gifts" in off.json()["error"]
        tables = build_tables(cfg, seed=7, sinks=[server.hub], sink_queue=None)
        gifts = await start_gifts(
            tables, load_gift_settings({"enabled": True}, source="test"), match_seed=7
        )
        server.parts.gifts = WebhookIntake(gifts.router, secret=TOKEN)
        game = asyncio.create_task(play_tables(tables, rounds=2, seed=7))
        try:
            async with websockets.connect(ws_url(server)) as ws:
                await read_until(ws, lambda m: m.get("type") == "turn_started")
                wrong = await http.post("/control/api/gift", headers=auth, json={"effect": "KISS"})
                assert wrong.status_code == 400
                assert "KISS" in wrong.json()["error"]
                seat = await http.post(
                    "/control/api/gift", headers=auth, json={"effect": "cheer", "target": 7}
                )
                assert seat.status_code == 400
                assert "target_seat" in seat.json()["error"]
                sent = await http.post(
                    "/control/api/gift",
                    headers=auth,
                    json={"effect": "emote", "target": "1", "viewer": "主播"},
                )
                assert sent.status_code == 202, sent.text
                event_id = sent.json()["event_id"]
                done = await read_until(
                    ws,
                    lambda m: (
                        m.get("type") == "gift"
                        and m["data"]["event_id"] == event_id
                        and m["data"]["status"] != "queued"
                    ),
                )
        finally:
            await game
            await gifts.stop()
    assert done[-1]["data"]["status"] == "applied"
    assert done[-1]["data"]["test"] is True
    assert done[-1]["seat"] == 1


async def test_the_spectator_feed_is_delayed_and_the_public_one_never_has_hands() -> None:
    delay = 0.4
    async with served(spectator_delay_s=delay) as server:
        feed = SpectatorFeed([server.hub], delay_s=delay)
        feed.start()
        async with (
            websockets.connect(ws_url(server)) as public,
            websockets.connect(ws_url(server, "/ws/spectator")) as spectator,
        ):
            assert json.loads(await spectator.recv())["spectator"] is True
            game = asyncio.create_task(play(server, config(rounds=1), spectator=feed))
            first_public = await read_until(public, lambda m: m.get("type") == "round_started")
            public_at = time.monotonic()
            first_hands = await read_until(
                spectator, lambda m: m["type"] == "spectator" and m["item"]["kind"] == "hands"
            )
            hands_at = time.monotonic()
            await game
            await feed.close()
            public_rest = await read_until(public, lambda m: m.get("type") == "match_ended")
    item = first_hands[-1]["item"]
    assert item["released_at"] - item["at"] >= delay * 1000
    assert hands_at - public_at >= delay * 0.8
    assert sorted(c for hand in item["hands"] for c in hand) + item["bottom"] != []
    assert len([c for hand in item["hands"] for c in hand]) == 51
    publics = [m for m in first_public + public_rest if m["type"] not in ("server", "snapshot")]
    assert hidden_cards_in(publics) == []
    assert not any(m["type"] == "spectator" for m in first_public + public_rest)


async def test_a_page_that_falls_behind_is_sent_the_picture_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from arena.server import hub as hub_module

    monkeypatch.setattr(hub_module, "MAX_QUEUED", 50)
    async with served() as server:
        page = server.hub.subscribe("public", None)
        await play(server, config(rounds=2))  # hundreds of events, none read meanwhile
        texts = [await page.next() for _ in range(page.pending())]
        page.close()
    assert page.resyncs >= 1
    assert len(texts) <= 50
    kinds = [json.loads(text)["type"] for text in texts]
    restart = max(i for i, kind in enumerate(kinds) if kind == "server")
    assert kinds[restart + 1] == "snapshot"  # the picture, then what came after it
    state = json.loads(texts[restart + 1])["state"]
    later = [json.loads(t) for t in texts[restart + 2 :] if json.loads(t)["type"] == "match_ended"]
    assert state["status"] == "ended" or later  # current: nothing needed was lost


def test_avatars_are_files_served_by_index_or_urls(tmp_path: Any) -> None:
    picture = tmp_path / "a.png"
    picture.write_bytes(b"\x89PNG\r\n")
    seats = [
        SeatConfig(name="A", avatar=str(picture)),
        SeatConfig(name="B", avatar="https://example.org/b.png"),
        SeatConfig(name="C"),
    ]
    server = ArenaServer(ServerSettings(), mode="play", seats=seats, token="")
    assert server.hub.avatars == {"A": "/avatars/0", "B": "https://example.org/b.png"}
    with pytest.raises(ConfigError, match="no such file"):
        ArenaServer(
            ServerSettings(), mode="play", seats=[SeatConfig(name="A", avatar="nope.png")], token=""
        )
    with pytest.raises(ValueError, match="an image file or an http"):
        SeatConfig(name="A", avatar="javascript:alert(1)")


async def test_a_pinned_page_follows_its_table_into_the_next_match() -> None:
    async with served() as server:
        page = server.hub.subscribe("public", "t1")
        for run in range(2):
            server.hub.reset(f"run-{run}")
            await play(server, config(rounds=1))
            texts = [json.loads(await page.next()) for _ in range(page.pending())]
            ended = [m for m in texts if m["type"] == "match_ended"]
            assert len(ended) == 1, f"match {run}: the pinned page saw its table"
            assert ended[0]["run"] == f"run-{run}"
        page.close()


async def test_the_streamers_pick_lapses_when_its_match_ends_and_another_plays() -> None:
    from arena.table import play_match

    async with served() as server:
        cfg = config(rounds=1, pace_s=0.01)
        two = cfg.model_copy(update={"match": cfg.match.model_copy(update={"tables": 2})})
        t1, t2 = build_tables(two, seed=7, sinks=[server.hub], sink_queue=None)
        short = asyncio.create_task(play_match(t1, rounds=1, seed=7))
        long = asyncio.create_task(play_match(t2, rounds=3, seed=7))
        await asyncio.sleep(0.05)  # both matches started (paced: far from over)
        assert server.hub.tables == ["t1", "t2"]
        server.hub.feature("t1")
        assert server.hub.featured == "t1"
        await short
        assert server.hub.featured == "t2"  # t1 is over, t2 plays: the overlay shows it
        await long
        await t1.close()
        await t2.close()


async def test_the_control_api_refuses_what_it_does_not_know() -> None:
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        odd = await http.post("/control/api/pause", headers=auth, json={"when": "now"})
        assert odd.status_code == 400
        assert "unknown field(s) when" in odd.json()["error"]
        assert not server.control.pause_requested
        junk = await http.post("/control/api/resume", headers=auth, content=b"[1, 2")
        assert junk.status_code == 400
        nothing = await http.post("/control/api/explode", headers=auth)
        assert nothing.status_code == 404
        server.parts.gifts = WebhookIntake(_NoInbox(), secret=TOKEN)
        await play(server, config(rounds=1))
        nowhere = await http.post(
            "/control/api/gift", headers=auth, json={"effect": "CHEER", "table": "t9"}
        )
        assert nowhere.status_code == 404
        assert "no table 't9' (tables: t1)" in nowhere.json()["error"]
        number = await http.post(
            "/control/api/gift", headers=auth, json={"effect": "CHEER", "viewer": 5}
        )
        assert number.status_code == 400
        assert "viewer" in number.json()["error"]
        for target in ("9" * 5_000, "²", "-1", 2**64, 1.5, [1]):  # one connection for all
            seat = await http.post(
                "/control/api/gift", headers=auth, json={"effect": "CHEER", "target": target}
            )
            assert seat.status_code == 400, (target, seat.text)
            assert seat.json()["error"].startswith("target_seat: "), seat.json()


class _NoInbox:
    """An inbox that must not be reached."""

    async def accept(self, gift: Any) -> None:
        raise AssertionError(f"no gift should arrive: {gift}")

    async def refuse(self, reason: str, **claimed: Any) -> None:
        raise AssertionError(f"no payload should arrive: {reason}")


async def test_the_webhook_says_why_a_signed_payload_is_no_gift() -> None:
    from gifts.sources import CollectingInbox

    inbox = CollectingInbox()
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        server.parts.gifts = WebhookIntake(inbox, secret=TOKEN)
        junk = b'{"event_id": "w-9", "platform": "test", "count": "3"}'
        bad = await http.post("/gifts/webhook", content=junk, headers=signed(junk))
    assert bad.status_code == 400
    assert bad.json()["error"].startswith("invalid: count")
    assert [refusal.event_id for refusal in inbox.refused] == ["w-9"]  # told, not lost


def connection_of(answer: httpx.Response) -> object:
    """The local end of the connection an answer came on: the same for every request
    sent over one kept-alive connection."""
    return answer.extensions["network_stream"].get_extra_info("client_addr")


async def test_every_invalid_webhook_body_is_a_4xx_and_the_connection_stays_usable() -> None:
    """Issue 25: a gift whose raw payload held an integer past 64 bits raised out of
    validation, and a value of 2^64 was accepted (202), then its telling failed: the
    server answered 500 and reset the connection. Every invalid body is a 4xx naming
    what is wrong, and one kept-alive connection carries them all and a valid gift."""
    from gifts.sources import CollectingInbox

    inbox = CollectingInbox()
    head = b'{"event_id": "w-%d", "platform": "test", "effect": "CHEER", '
    invalid = [
        (b'"value": 18446744073709551616}', 400, "invalid: value: "),
        (b'"raw": {"n": 18446744073709551616}}', 400, "invalid: raw: holds an integer beyond"),
        (b'"raw": {"n": 1e400}}', 400, "invalid: not JSON: number is infinity"),
        (b'"count": 1.5}', 400, "invalid: count: "),
        (b'"message": "\\ud800"}', 400, "invalid: not JSON: "),
        (b'"target_seat": -18446744073709551616}', 400, "invalid: target_seat: "),
        (b'"sent_at": 1e300}', 400, "invalid: sent_at: "),
        (b'"value": "5"}', 400, "invalid: value: "),
        (b"[[[[", 400, "invalid: not JSON"),
        (b'"raw": {"blob": "' + b"x" * 70_000 + b'"}}', 413, "a gift is at most"),
    ]
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        server.parts.gifts = WebhookIntake(inbox, secret=TOKEN)
        connections = set()
        for number, (rest, status, reason) in enumerate(invalid):
            body = head % number + rest
            answer = await http.post("/gifts/webhook", content=body, headers=signed(body))
            assert (answer.status_code, number) == (status, number), answer.text
            assert answer.json()["error"].startswith(reason), answer.json()
            connections.add(connection_of(answer))
        valid = head % 99 + b'"value": 9007199254740991}'
        answer = await http.post("/gifts/webhook", content=valid, headers=signed(valid))
        assert answer.status_code == 202
        connections.add(connection_of(answer))
    assert len(connections) == 1
    assert [gift.value for gift in inbox.accepted] == [2**53 - 1]
    assert len(inbox.refused) == len(invalid) - 1  # the one too large is never read


async def test_the_webhook_answers_an_intake_that_fails_and_keeps_the_connection() -> None:
    """The arena's own failure handling a delivery is a 500 saying so, answered, not
    raised: the bridge's connection stays usable for its next gift."""

    class Failing:
        effects: Sequence[str] = ("CHEER",)

        async def webhook(self, headers: Any, body: bytes) -> tuple[int, dict[str, Any]]:
            raise OSError(28, "No space left on device")

        async def test_gift(self, fields: Any) -> tuple[int, dict[str, Any]]:
            raise AssertionError("not asked")

    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        server.parts.gifts = Failing()
        first = await http.post("/gifts/webhook", content=b"{}")
        second = await http.get("/healthz")
        assert connection_of(first) == connection_of(second)
    assert first.status_code == 500
    assert "OSError" in first.json()["error"]
    assert second.status_code == 200


async def test_the_featured_table_is_picked_on_the_control_api() -> None:
    async with served() as server, httpx.AsyncClient(base_url=server.url) as http:
        auth = {"Authorization": f"Bearer {TOKEN}"}
        two_tables = config(rounds=1)
        match = two_tables.match.model_copy(update={"tables": 2})
        await play(server, two_tables.model_copy(update={"match": match}))
        other = "t1" if server.hub.featured == "t2" else "t2"
        picked = await http.post("/control/api/feature", headers=auth, json={"table": other})
        assert picked.status_code == 200
        assert picked.json()["state"]["featured"] == other
        assert server.hub.featured == other
        unknown = await http.post("/control/api/feature", headers=auth, json={"table": "t9"})
        assert unknown.status_code == 404
        assert server.hub.featured == other
        refused = await http.post("/control/api/feature", json={"table": "t1"})
        assert refused.status_code == 401


async def test_a_sink_that_keeps_failing_is_said_on_healthz_and_to_every_page() -> None:
    """Issue 25: a sink that keeps failing (the console, behind its queue) makes
    ``/healthz`` say ``degraded`` and every page's ``server`` message name it, its count
    and its error's class; once it takes its events again, both say so."""
    from test_sink_health import Clock, FlakySink

    from arena.sinks.health import WINDOW_S, SinkHealthBoard

    clock = Clock()
    console = FlakySink(broken=True)
    async with (
        served() as server,
        httpx.AsyncClient(base_url=server.url) as http,
        websockets.connect(ws_url(server)) as ws,
    ):
        first = await read_until(ws, lambda m: m["type"] == "server")
        assert first[-1]["degraded"] == []
        with SinkHealthBoard({"overlay": server.hub, "console": console}, clock=clock):
            for seed in (7, 8):
                collected = CollectingSink()
                sinks = [server.hub, console, collected]
                tables = build_tables(config(rounds=1), seed=seed, sinks=sinks)
                await play_tables(tables, rounds=1, seed=seed)
                if seed == 7:
                    told = await read_until(ws, lambda m: m["type"] == "server" and m["degraded"])
                    health = (await http.get("/healthz")).json()
                    console.broken = False
                    clock.now += WINDOW_S + 1
            recovered = await read_until(
                ws, lambda m: m["type"] == "server" and m["degraded"] == []
            )
        after = (await http.get("/healthz")).json()
    [entry] = told[-1]["degraded"]
    assert entry["sink"] == "console"
    assert (entry["last_error"], entry["during"]) == ("RuntimeError", "emit")
    assert health["status"] == "degraded"
    assert health["degraded"] == told[-1]["degraded"]
    assert recovered[-1]["degraded"] == []
    assert (after["status"], after["degraded"]) == ("ok", [])
    assert console.events == collected.events  # the second match, all of it


async def test_the_snapshot_tells_the_rounds_and_the_matchs_story_to_a_late_joiner() -> None:
    """Issue 27: the overlay's result and match cards are drawn from the snapshot's
    ``story``: the last round's result until the next round starts, each round's scores
    and totals, and the match's end, so that a page that joins late draws them too."""
    sink = CollectingSink()
    async with served() as server:
        tables = build_tables(config(rounds=2), seed=7, sinks=[server.hub, sink], sink_queue=None)
        server.attach(tables)
        await play_tables(tables, rounds=2, seed=7)
        server.hub.flush()
        async with websockets.connect(ws_url(server)) as ws:
            got = [json.loads(await ws.recv()) for _ in range(2)]
        # the same events, one by one, into a hub of their own: the story as it grows
        hub = type(server.hub)(run_id="story")
        page = hub.subscribe("public")

        def story() -> Any:
            return json.loads(hub.picture(page)[-1])["story"]

        seen = []
        for event in sink.events:
            hub.on_event(event)
            if event.type in ("round_result", "round_started", "match_ended"):
                seen.append((event.type, story()))
    results = [e.to_dict() for e in sink.of_type("round_result")]
    ended = sink.of_type("match_ended")[0].to_dict()
    final = got[1]["story"]
    assert final["match"] == ended
    assert final["round"] == results[-1]  # the last round's, the match over
    assert final["rounds"] == [
        {
            "round_no": r["data"]["round_no"],
            "scores": r["data"]["scores"],
            "totals": r["data"]["totals"],
        }
        for r in results
    ]
    kinds = [
        (kind, s["round"] is not None, len(s["rounds"]), s["match"] is not None) for kind, s in seen
    ]
    assert kinds == [
        ("round_started", False, 0, False),
        ("round_result", True, 1, False),
        ("round_started", False, 1, False),  # the card's round is over: the next began
        ("round_result", True, 2, False),
        ("match_ended", True, 2, True),
    ]
