"""The fault campaign's gift fuzz (issue 25), end to end: no gift can stop a match.

A real ``arena play --mqtt --serve --gifts --record`` (real Mosquitto, real HTTP) plays a
paced match while a seeded generator sends it gifts over both intakes: the MQTT topic
``<prefix>/gifts/in`` and the signed webhook. Most payloads hold, in a numeric field
(``value``, ``count``, ``target_seat``), in the platform payload ``raw`` or in any other
field, what no gift may hold: numbers past 64 bits or past 2^53, negative, fractional,
written as strings, JSON's out-of-range ``1e400`` and the ``NaN``/``Infinity`` some
readers take; lists, objects, null, booleans, strings of 5,000 and 70,000 characters,
lone surrogates. Some are valid gifts, some have no event id one could trace.

When the match is over:

- every delivery is told exactly once: a payload that names an event id has either one
  ``rejected`` ``invalid: ...`` event, or terminal events (applied, rejected, expired)
  whose units add up to its count; the payloads that name none have as many anonymous
  ``invalid`` rejections; the webhook answered each (202, 400 with the very reason told,
  413 for one over 64 kB, never told: refused unread);
- no sink was lost: the MQTT feed carries every event of the match, none missing, the
  overlay's page got the same gift events and the match's end, and the replay holds
  every round and verifies;
- the rounds were all played, nothing unwritable reached an encoder
  (``json_value_replaced``), and the arena's summary line counts what was told.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any, Final

import aiomqtt
import httpx
import orjson
import websockets
from mosquitto import Mosquitto, free_port, mosquitto_fixture  # noqa: F401 (the fixture)
from test_gifts_live import (
    GIFTS_IN,
    GiftWatcher,
    finished,
    match_started,
    playing,
    send_until_heard,
    summary_of,
)
from test_mqtt import subscribed_as

from arena.config import MqttSettings
from arena.replay import load_replay, verify_round
from gifts.events import GiftEffect
from gifts.send import gift_for_test
from gifts.signatures import sign_arena_webhook

TOKEN = "fuzz-test-token"
SEED = 25
ROUNDS = 3
TERMINAL = ("applied", "rejected", "expired")

NUMBERS: Final = (
    "18446744073709551616",  # 2^64: the campaign's gift
    "9007199254740992",  # 2^53: one past what every JSON reader holds exactly
    "-9223372036854775809",
    "1" + "0" * 400,
    "-1",
    "-0",
    "0.5",
    "1.5",
    "2.0",
    "-0.0",
    "1e3",
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "-Infinity",
    '"5"',
    '"1e3"',
    '""',
    '"0x10"',
)
"""Numbers no numeric field of a gift takes, as JSON text (some of it no JSON)."""
ODD: Final = (
    "[]",
    "[1, 2]",
    "{}",
    '{"n": 1}',
    "null",
    "true",
    "false",
    '"' + "x" * 5_000 + '"',
    '"\\ud800"',
    '"a\\udfffb"',
    '"\\ud83d\\ude00 fine"',  # a whole surrogate pair: an emoji, valid
)
"""Values of the wrong type, long and broken strings."""
HUGE: Final = '"' + "y" * 70_000 + '"'
"""A string that makes the payload larger than either intake reads."""
NUMERIC: Final = ("value", "count", "target_seat")
OTHER: Final = (
    "display_name",
    "gift_name",
    "message",
    "currency",
    "room",
    "viewer_id",
    "gift_id",
    "table",
    "sent_at",
    "effect",
    "kind",
    "anonymous",
    "test",
)
EFFECTS: Final = tuple(effect.value for effect in GiftEffect)


def fuzzed(rng: random.Random, event_id: str) -> bytes:
    """One delivery's payload: a gift, mostly with one or two fields no gift holds."""
    fields: dict[str, str] = {
        "event_id": json.dumps(event_id),
        "platform": '"fuzz"',
        "effect": json.dumps(rng.choice(EFFECTS)),
        "display_name": json.dumps(rng.choice(["小明", "Ada", ""])),
    }
    kind = rng.random()
    if kind < 0.2:  # a valid gift, at times at the edge of what is valid
        fields["count"] = str(rng.choice([1, 1, 2, 3, 10_000]))
        fields["value"] = str(rng.choice([0, 100, 2**53 - 1]))
        if rng.random() < 0.5:
            fields["target_seat"] = str(rng.randint(0, 2))
        return _object(fields)
    for _ in range(rng.choice([1, 1, 2])):
        token = rng.choice(NUMBERS + ODD) if rng.random() < 0.97 else HUGE
        where = rng.random()
        if where < 0.5:
            fields[rng.choice(NUMERIC)] = token
        elif where < 0.7:
            fields["raw"] = rng.choice(['{"n": %s}', '{"a": [{"b": %s}], "ok": "yes"}']) % token
        elif where < 0.9:
            fields[rng.choice(OTHER)] = token
        else:  # no event id one could trace the refusal to
            fields["event_id"] = rng.choice(NUMBERS + ODD)
    return _object(fields)


def _object(fields: dict[str, str]) -> bytes:
    return ("{" + ", ".join(f'"{key}": {value}' for key, value in fields.items()) + "}").encode()


def claimed_id(payload: bytes) -> str | None:
    """The event id a refusal of ``payload`` can be traced to: what a JSON reader finds
    in it, when it is a short string, in a payload an intake reads at all."""
    if len(payload) > 65_536:
        return None
    try:
        data = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    found = data.get("event_id") if isinstance(data, dict) else None
    return found if isinstance(found, str) and 0 < len(found) <= 128 else None


def count_of(payload: bytes) -> int:
    """How many gifts a payload that was accepted is (it was valid, so its count is)."""
    count = orjson.loads(payload).get("count", 1)
    assert isinstance(count, int)
    return count


async def overlay_page(base: str, into: list[dict[str, Any]], opened: asyncio.Event) -> None:
    """The overlay's public feed, as a page reads it, until the match ends."""
    async with websockets.connect(base.replace("http://", "ws://") + "/ws") as page:
        while True:
            message = json.loads(await page.recv())
            into.append(message)
            opened.set()
            if message.get("type") == "match_ended":
                return


async def up(base: str) -> None:
    async with httpx.AsyncClient(base_url=base) as http, asyncio.timeout(20):
        while True:
            with contextlib.suppress(httpx.TransportError):
                if (await http.get("/healthz")).status_code == 200:
                    return
            await asyncio.sleep(0.05)


async def test_fuzzed_gifts_over_mqtt_and_the_webhook_are_all_told_and_lose_nothing(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    rng = random.Random(SEED)
    over_mqtt = [fuzzed(rng, f"m-{n}") for n in range(160)]
    over_webhook = [fuzzed(rng, f"w-{n}") for n in range(60)]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    replay = tmp_path / "fuzz.jsonl"
    page: list[dict[str, Any]] = []
    answers: list[httpx.Response] = []
    async with (
        subscribed_as(mosquitto, GiftWatcher()) as watcher,
        playing(
            mosquitto,
            *("--rounds", str(ROUNDS), "--pace", "0.04", "--round-pause", "0"),
            *("--gifts", "--record", str(replay)),
            *("--serve", "--exit-when-done", "--port", str(port)),
            environ={"ARENA_SERVER_TOKEN": TOKEN},
        ) as arena,
    ):
        await up(base)
        opened = asyncio.Event()
        reading = asyncio.create_task(overlay_page(base, page, opened))
        async with asyncio.timeout(10):
            await opened.wait()  # the page is on before any gift is sent
        await match_started(watcher)
        probe = gift_for_test(GiftEffect.EMOTE, event_id="probe")
        await send_until_heard(MqttSettings(port=mosquitto.port), probe, watcher)

        async def publish() -> None:
            async with aiomqtt.Client("127.0.0.1", mosquitto.port) as client:
                for payload in over_mqtt:
                    await client.publish(GIFTS_IN, payload, qos=1)

        async def post() -> None:
            async with httpx.AsyncClient(base_url=base, timeout=10) as http:
                for body in over_webhook:
                    signature = sign_arena_webhook(body, TOKEN.encode(), int(time.time()))
                    headers = {"X-Arena-Signature": signature}
                    answers.append(await http.post("/gifts/webhook", content=body, headers=headers))

        await asyncio.gather(publish(), post())
        delivered = [
            *over_mqtt,
            *(b for b, a in zip(over_webhook, answers, strict=True) if a.status_code != 413),
        ]
        anonymous = sum(claimed_id(payload) is None for payload in delivered)

        def all_told(_: object) -> bool:
            told = [e["data"] for e in watcher.gifts() if e["data"]["status"] in TERMINAL]
            ended = {d["event_id"] for d in told}
            return sum(d["event_id"] is None for d in told) >= anonymous and all(
                claimed in ended
                for payload in delivered
                if (claimed := claimed_id(payload)) is not None
            )

        try:
            await watcher.wait_for(all_told, within_s=20)
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):  # it may have ended (crashed)
                arena.kill()
            _, said = await arena.communicate()
            untold = f"deliveries never told; the arena said: {said.decode()[-3000:]}"
            raise AssertionError(untold) from None
        err = await finished(arena, watcher)
        async with asyncio.timeout(10):
            await reading

    # every delivery told exactly once
    terminal = [e["data"] for e in watcher.gifts() if e["data"]["status"] in TERMINAL]
    traced = [d["id"] for d in terminal if d["event_id"] is not None]
    assert len(set(traced)) == len(traced), "a unit told twice"
    by_id: dict[str | None, list[dict[str, Any]]] = {}
    for told in terminal:
        by_id.setdefault(told["event_id"], []).append(told)
    accepted = refused = 0
    for payload in delivered:
        claimed = claimed_id(payload)
        if claimed is None:
            continue
        outcomes = by_id.pop(claimed)
        if any((d["reason"] or "").startswith("invalid: ") for d in outcomes):
            assert len(outcomes) == 1, outcomes
            refused += 1
        else:
            assert sum(d["units"] for d in outcomes) == count_of(payload), outcomes
            accepted += 1
    assert len(by_id.pop(None, [])) == anonymous
    assert set(by_id) == {"probe"}
    assert accepted > 10
    assert refused > 50
    assert anonymous > 20

    # the webhook answered each, the 400s with the very reason told
    assert Counter(a.status_code for a in answers).keys() <= {202, 400, 413}
    assert any(a.status_code == 413 for a in answers)
    for body, answer in zip(over_webhook, answers, strict=True):
        claimed = claimed_id(body)
        if answer.status_code == 400 and claimed is not None:
            [told] = [e["data"] for e in watcher.gifts() if e["data"]["event_id"] == claimed]
            assert answer.json()["error"] == told["reason"]
        elif answer.status_code == 202:
            assert answer.json()["accepted"] == claimed

    # no sink lost (every event of the match on the MQTT feed and the overlay's page, in
    # order, gifts told from the intakes' tasks included), every round played, nothing
    # unwritable
    events = watcher.events("t1")
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    assert max(events, key=lambda e: e["seq"])["type"] == "match_ended"
    rounds = sorted(e["round"] for e in watcher.of_type("round_result"))
    assert rounds == list(range(1, ROUNDS + 1))
    assert [m for m in page if m.get("type") == "gift"] == watcher.gifts()
    recorded = load_replay(replay).rounds
    assert [r.round for r in recorded] == list(range(1, ROUNDS + 1))
    for played in recorded:
        verify_round(played)
    assert "Traceback" not in err
    assert "json_value_replaced" not in err
    assert "sink_failed" not in err
    summary = summary_of(err)
    counted = sum(int(summary[status] or 0) for status in TERMINAL)
    assert counted == sum(d["units"] for d in terminal)
