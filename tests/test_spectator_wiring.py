"""The delayed spectator feed wired to MQTT (issue 10), against a real Mosquitto.

``[spectator]`` / ``arena play --spectator-delay`` tee every table's recorder to a
:class:`SpectatorFeed` whose output is the MQTT sink: every hand goes to
``ddz-arena/tables/<t>/spectator``, never before its delay (checked against the item's
own times and against when a real subscriber got it), the hands are the real deal, and
no hidden card reaches the public topics. Off, there is no spectator topic at all.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import aiomqtt
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import (
    Subscriber,
    said,
    sink_for,
    still_hidden,
    subscribed_as,
    terminate_arena_mid_match,
)
from test_spectator_feed import hidden_cards_in

from arena.cli import main
from arena.config import MqttSettings, parse_config
from arena.errors import ConfigError
from arena.events import Event
from arena.games.ddz.spectator import DdzSpectatorTable
from arena.replay import load_replay
from arena.runner import build_tables, run_arena
from arena.sinks.base import CollectingSink
from arena.sinks.mqtt import MqttSink
from arena.sinks.spectator import SpectatorFeed
from arena.table import MatchSummary, TeeRecorder
from tournaments.publish import LeaderboardPublisher

REPO = Path(__file__).resolve().parent.parent
DELAY = 0.5


class TimedSubscriber(Subscriber):
    """A subscriber that also notes when (Unix ms, wall clock) each message came."""

    def __init__(self) -> None:
        super().__init__()
        self.received_ms: list[float] = []

    def add(self, message: aiomqtt.Message) -> None:
        self.received_ms.append(time.time() * 1000)
        super().add(message)

    def spectator(self, table: str) -> list[tuple[dict[str, Any], float, bool]]:
        """The table's spectator items: payload, when received, retained flag."""
        topic = f"ddz-arena/tables/{table}/spectator"
        return [
            (payload, received, retained)
            for (t, payload, retained), received in zip(
                self.messages, self.received_ms, strict=True
            )
            if t == topic
        ]


def subscribed(broker: Mosquitto) -> AbstractAsyncContextManager[TimedSubscriber]:
    return subscribed_as(broker, TimedSubscriber())


def paced(*, rounds: int, tables: int = 1) -> Any:
    """A lightly paced table: the publisher runs mid-round, the match lasts longer than
    the delay (so items are released while it is played, not only at the end)."""
    return parse_config(
        {
            "match": {"rounds": rounds, "tables": tables},
            "table": {"pace_s": 0.015, "auto_pass": False},
        }
    )


def check_never_early(items: Sequence[tuple[dict[str, Any], float, bool]]) -> None:
    for item, received, retained in items:
        assert not retained, item
        assert item["released_at"] - item["at"] >= DELAY * 1000, item
        assert received - item["at"] >= DELAY * 1000, (item, received)


def check_no_hidden_card_in_public(subscriber: Subscriber, table: str) -> None:
    """No event and no snapshot shows a card still hidden when it was published."""
    events = subscriber.events(table)
    assert events, "nothing was published"
    assert hidden_cards_in(events) == []
    states = [p for t, p, _ in subscriber.messages if t == f"ddz-arena/tables/{table}/state"]
    assert states
    for state in states:
        hidden = still_hidden(events, state["seq"])
        assert [c for c in hidden if c in str(state)] == [], state


async def test_every_hand_arrives_after_its_delay_and_none_on_the_public_topics(
    mosquitto: Mosquitto,
) -> None:
    collected = CollectingSink()
    sink = sink_for(mosquitto, run_id="spect")
    feed = SpectatorFeed([sink], delay_s=DELAY)
    async with subscribed(mosquitto) as subscriber:
        sink.start()
        feed.start()
        started = time.monotonic()
        summaries = await run_arena(
            paced(rounds=2, tables=2), seed=5, sinks=[collected, sink], spectator=feed
        )
        played_s = time.monotonic() - started
        await feed.close()
        await sink.close()
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)

    assert played_s > 1.5 * DELAY, "the match must outlast the delay"
    assert feed.dropped == 0
    assert feed.released == sink.stats.spectator_published > 0
    assert sink.stats.spectator_undelivered == sink.stats.undelivered == 0
    topics = {t for t, _, _ in subscriber.messages}
    assert topics == {
        "ddz-arena/status",
        *(f"ddz-arena/tables/{t}/{kind}" for t in ("t1", "t2") for kind in ("events", "state")),
        "ddz-arena/tables/t1/spectator",
        "ddz-arena/tables/t2/spectator",
    }
    # released while the match was played, not all at its end
    first_spectator = next(
        r
        for (t, _, _), r in zip(subscriber.messages, subscriber.received_ms, strict=True)
        if t.endswith("/spectator")
    )
    last_event = max(
        r
        for (t, _, _), r in zip(subscriber.messages, subscriber.received_ms, strict=True)
        if t.endswith("/events")
    )
    assert first_spectator < last_event

    for table, summary in zip(("t1", "t2"), summaries, strict=True):
        received = subscriber.spectator(table)
        items = [item for item, _, _ in received]
        check_never_early(received)
        assert [i["seq"] for i in items] == list(range(1, len(items) + 1))
        assert {i["run"] for i in items} == {"spect"}
        assert {i["table"] for i in items} == {table}
        # the feed alone tells the public story in order: the very events published
        public = [e for e in collected.events if e.table == table]
        assert [i["event"] for i in items if i["kind"] == "event"] == [
            {k: v for k, v in e.items() if k not in ("v", "run")} for e in subscriber.events(table)
        ]
        assert len(public) == len(subscriber.events(table))
        check_hands_match(items, summary)
        check_no_hidden_card_in_public(subscriber, table)
        # ...while the spectator items do show cards still hidden (the oracle sees them)
        hands = [{"type": "hands", **i} for i in items if i["kind"] == "hands"]
        assert hidden_cards_in([{"type": "round_started", "round": 1, "seq": 0}, *hands])


def check_hands_match(items: Sequence[dict[str, Any]], summary: MatchSummary) -> None:
    """Each round's deal and final hands are the ones the table dealt and left."""
    assert summary.rounds
    for record in summary.rounds:
        result = record.result
        hands = [i for i in items if i["kind"] == "hands" and i["round"] == record.round_no]
        deals = [i for i in hands if i["reason"] == "deal"]
        assert len(deals) == result.deals
        assert deals[-1]["hands"] == [[c.text for c in h] for h in result.deal.hands]
        assert deals[-1]["bottom"] == [c.text for c in result.deal.bottom]
        assert hands[-1]["hands"] == [[c.text for c in h] for h in result.final_hands]
        assert hands[-1]["landlord"] == result.landlord


async def test_with_the_feed_off_there_is_no_spectator_topic(mosquitto: Mosquitto) -> None:
    sink = sink_for(mosquitto, run_id="off")
    async with subscribed(mosquitto) as subscriber:
        await run_arena(paced(rounds=1), seed=5, sinks=[sink])
        await sink.close()
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    topics = {t for t, _, _ in subscriber.messages}
    assert topics == {"ddz-arena/status", "ddz-arena/tables/t1/events", "ddz-arena/tables/t1/state"}
    assert sink.stats.spectator_published == sink.stats.spectator_undelivered == 0
    check_no_hidden_card_in_public(subscriber, "t1")


def test_the_tables_recorder_is_teed_only_when_there_is_a_feed(tmp_path: Path) -> None:
    from arena.replay import ReplayWriter

    config = paced(rounds=1, tables=2)
    assert [t.recorder for t in build_tables(config, seed=1)] == [None, None]
    feed = SpectatorFeed([], delay_s=1)
    alone = build_tables(config, seed=1, spectator=feed)
    assert [type(t.recorder) for t in alone] == [DdzSpectatorTable, DdzSpectatorTable]
    assert [t.recorder for t in alone] == [feed.for_table("t1"), feed.for_table("t2")]
    replay = ReplayWriter(tmp_path / "r.jsonl")
    try:
        both = build_tables(config, seed=1, replay=replay, spectator=feed)
        assert [type(t.recorder) for t in both] == [TeeRecorder, TeeRecorder]
    finally:
        replay.close()


async def test_spectator_items_have_a_bounded_buffer_of_their_own(tmp_path: Path) -> None:
    """With no broker, a spectator burst drops the oldest spectator items only, never an
    event; everything left is counted undelivered, and an item after close too."""
    absent = Mosquitto(tmp_path)  # never started
    sink = sink_for(absent, queue_size=5)
    sink.close_within_s = 0.3
    for seq in range(1, 9):
        await sink.emit_spectator({"kind": "peek", "table": "t1", "seq": seq})
    collected = CollectingSink()
    await run_arena(
        parse_config({"match": {"rounds": 1}, "table": {"pace_s": 0}}),
        seed=1,
        sinks=[collected],
        sink_queue=None,
    )
    for event in collected.events[:3]:
        await sink.emit(event)
    assert sink.stats.spectator_dropped == 3
    assert sink.stats.dropped == 0
    await sink.close()
    await sink.emit_spectator({"kind": "peek", "table": "t1", "seq": 9})
    assert sink.stats.published == sink.stats.spectator_published == 0
    assert sink.stats.undelivered == 3
    assert sink.stats.spectator_undelivered == 9
    assert sink.stats.spectator_dropped == 4


async def test_the_example_acl_keeps_every_hand_from_anonymous_subscribers(
    tmp_path: Path,
) -> None:
    """config/mosquitto.acl on a broker players can reach: anyone reads the public
    topics, only the stream's user the spectator one, and the arena (a user) writes."""
    broker = Mosquitto(
        tmp_path,
        users={"arena": "arena-secret", "studio": "studio-secret"},
        acl=REPO / "config" / "mosquitto.acl",
    )
    broker.start()
    try:
        settings = MqttSettings(
            enabled=True, port=broker.port, username_env="ARENA_USER", password_env="ARENA_PW"
        )
        sink = MqttSink(
            settings, run_id="acl", environ={"ARENA_USER": "arena", "ARENA_PW": "arena-secret"}
        )
        feed = SpectatorFeed([sink], delay_s=0.05)
        async with (
            subscribed_as(broker, TimedSubscriber()) as anonymous,
            subscribed_as(
                broker, TimedSubscriber(), username="studio", password="studio-secret"
            ) as studio,
        ):
            assert await sink.started()
            feed.start()
            fast = parse_config({"match": {"rounds": 1}, "table": {"pace_s": 0}})
            await run_arena(fast, seed=3, sinks=[sink], spectator=feed)
            board = LeaderboardPublisher(
                settings, "t-acl", environ={"ARENA_USER": "arena", "ARENA_PW": "arena-secret"}
            )
            board.publish({"rounds": 1, "agents": []})
            board.finish("finished")
            assert await board.close()  # a tournament's standings: public too
            await feed.close()
            await sink.close()
            for subscriber in (anonymous, studio):
                await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    finally:
        broker.stop()
    assert sink.stats.undelivered == sink.stats.spectator_undelivered == 0
    assert studio.spectator("t1"), "the stream's user reads the hands"
    assert len(studio.spectator("t1")) == sink.stats.spectator_published
    assert anonymous.spectator("t1") == []
    public = {t for t, _, _ in anonymous.messages}
    assert public == {
        "ddz-arena/status",
        "ddz-arena/tables/t1/events",
        "ddz-arena/tables/t1/state",
        "ddz-arena/tournaments/t-acl/leaderboard",
    }
    assert anonymous.events("t1") == studio.events("t1")


PLAY = ("--rounds", "1", "--no-live", "--seed", "4", "--pace", "0.003")


def test_arena_play_spectator_delay_end_to_end(mosquitto: Mosquitto, tmp_path: Path) -> None:
    record = tmp_path / "match.jsonl"

    async def run() -> tuple[subprocess.CompletedProcess[str], TimedSubscriber]:
        async with subscribed(mosquitto) as subscriber:
            done = await asyncio.to_thread(
                subprocess.run,
                [
                    *(sys.executable, "-m", "arena.cli", "play", "--mqtt", mosquitto.url),
                    *("--spectator-delay", str(DELAY), "--record", str(record), *PLAY),
                ],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=60,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
            return done, subscriber

    done, subscriber = asyncio.run(run())
    assert done.returncode == 0, done.stderr
    assert f"every hand goes to ddz-arena/tables/<table>/spectator {DELAY:g} s after" in (
        done.stderr
    )
    received = subscriber.spectator("t1")
    check_never_early(received)
    items = [item for item, _, _ in received]
    events = subscriber.events("t1")
    assert {i["run"] for i in items} == {events[0]["run"]}
    assert [i["event"]["seq"] for i in items if i["kind"] == "event"] == [e["seq"] for e in events]
    assert items[-1]["event"]["type"] == "match_ended"  # close waited out the delay
    # the hands are those the replay says each seat was dealt
    (recorded,) = load_replay(record).rounds
    dealt: dict[int, list[str]] = {}
    for line in recorded.messages:
        if line["dir"] == "to_agent" and line["message"]["type"] == "DEAL":
            dealt[line["seat"]] = line["message"]["hand"]
    deals = [i for i in items if i["kind"] == "hands" and i["reason"] == "deal"]
    assert deals[-1]["hands"] == [dealt[0], dealt[1], dealt[2]]
    check_no_hidden_card_in_public(subscriber, "t1")


def test_spectator_delay_without_mqtt_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--no-live", "--spectator-delay", "5"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        "arena: error: --spectator-delay: the spectator feed needs --mqtt or --serve to go anywhere"
    ]


@pytest.mark.parametrize("delay", ["-1", "3601", "nan"])
def test_a_spectator_delay_out_of_range_names_the_flag(
    delay: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["play", "--no-live", "--mqtt", "mqtt://127.0.0.1:1", "--spectator-delay", delay]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: --spectator-delay: "), err
    assert "every hand" not in err  # refused before anything started


def test_spectator_enabled_in_a_file_without_mqtt_says_it_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    file = tmp_path / "arena.toml"
    file.write_text("[spectator]\nenabled = true\ndelay_s = 1.0\n")
    assert main(["play", "--no-live", "--rounds", "1", "--config", str(file)]) == 0
    err = capsys.readouterr().err
    assert "the spectator feed needs --mqtt or --serve to go anywhere, so it is off" in err


@pytest.mark.parametrize(
    ("section", "words"),
    [
        ({"delay_s": -0.1}, "greater than or equal to 0"),
        ({"delay_s": 3600.5}, "less than or equal to 3600"),
        ({"max_pending": 0}, "greater than or equal to 1"),
        ({"delai_s": 3}, "did you mean 'delay_s'"),
    ],
)
def test_the_spectator_section_is_checked(section: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError, match=words):
        parse_config({"spectator": section})


def test_the_spectator_feed_is_off_by_default() -> None:
    settings = parse_config({}).spectator
    assert (settings.enabled, settings.delay_s, settings.max_pending) == (False, 30.0, 20_000)


async def test_a_terminated_arena_drops_the_held_hands_at_once_and_shows_none_early(
    mosquitto: Mosquitto,
) -> None:
    """SIGTERM mid-match with a 30 s delay: the arena stops within seconds (its close
    waits 0.5 s, not the delay), publishes no hand early, and says how many it dropped."""
    async with subscribed(mosquitto) as subscriber:
        err, took = await terminate_arena_mid_match(
            mosquitto, subscriber, "--spectator-delay", "30"
        )
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    assert took < 5.0, f"{took:.1f} s to stop"
    assert subscriber.spectator("t1") == []
    assert "spectator item(s) were never published (0 were" in err


async def test_spectator_items_wait_out_a_broker_outage_and_are_never_early(
    mosquitto: Mosquitto,
) -> None:
    """The broker stops mid-match and comes back after it: every held item still goes
    out, in order, none before its delay, none lost."""
    delay = 1.5  # longer than the match and the broker's restart: all due after it

    class StopTheBroker(CollectingSink):
        async def emit(self, event: Event) -> None:
            if event.seq == 40 and event.table == "t1":
                mosquitto.stop()
            await super().emit(event)

    sink = sink_for(mosquitto, run_id="outage")
    feed = SpectatorFeed([sink], delay_s=delay)
    sink.start()
    async with subscribed(mosquitto) as watcher:  # online before the match: the outage
        await watcher.wait_for(lambda ms: said(ms, "online"), within_s=10)  # is mid-match
    feed.start()
    started = time.monotonic()
    fast = parse_config({"match": {"rounds": 2}, "table": {"pace_s": 0}})
    await run_arena(fast, seed=11, sinks=[StopTheBroker(), sink], spectator=feed)
    assert not mosquitto.running
    mosquitto.start()
    async with subscribed(mosquitto) as subscriber:
        assert time.monotonic() - started < delay, "subscribed before anything fell due"
        await feed.close()
        await sink.close()
        await subscriber.wait_for(lambda ms: said(ms, "offline"), within_s=10)
    assert sink.stats.connections == 2
    received = subscriber.spectator("t1")
    for item, at_ms, _ in received:
        assert item["released_at"] - item["at"] >= delay * 1000
        assert at_ms - item["at"] >= delay * 1000
    seqs = [item["seq"] for item, _, _ in received]
    assert sorted(set(seqs)) == list(range(1, feed.released + 1))  # a resend may repeat one
    assert seqs == sorted(seqs)
    assert sink.stats.spectator_published == feed.released
    assert sink.stats.spectator_undelivered == feed.dropped == 0


class RawSubscriber(TimedSubscriber):
    """A subscriber that keeps every payload as bytes (a gift on gifts/in, a forgery)."""

    def add(self, message: aiomqtt.Message) -> None:
        assert isinstance(message.payload, bytes)
        self.received_ms.append(time.time() * 1000)
        self.messages.append((str(message.topic), message.payload, bool(message.retain)))
        self._arrived.set()

    def on(self, topic: str) -> list[bytes]:
        return [payload for t, payload, _ in self.messages if t == topic]


GIFTS_IN = "ddz-arena/gifts/in"
ACL_USERS = {"arena": "arena-secret", "gifts": "gifts-secret", "studio": "studio-secret"}


async def test_the_example_acl_lets_only_the_gifts_and_arena_users_send_gifts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """config/mosquitto.acl: the ``gifts`` user (bridges, ``arena gift send``) writes
    ``gifts/in`` and nothing else, and reads only the outcomes (``tables/+/gifts``, for
    refunds) and the arena's status; an anonymous client reads the
    public ``tables/+/gifts`` but cannot send a gift; the arena's user reads ``gifts/in``
    (its gift listener gets what the gifts user sent, and nothing anonymous)."""
    from gifts.events import GiftEffect
    from gifts.send import GiftSendError, gift_for_test, send_gift
    from gifts.sources import CollectingInbox, listen_for_gifts

    broker = Mosquitto(tmp_path, users=ACL_USERS, acl=REPO / "config" / "mosquitto.acl")
    broker.start()
    arena = MqttSettings(port=broker.port, username_env="ARENA_USER", password_env="ARENA_PW")
    inbox, ready = CollectingInbox(), asyncio.Event()
    listener = asyncio.create_task(
        listen_for_gifts(
            arena,
            inbox,
            ready=ready,
            environ={"ARENA_USER": "arena", "ARENA_PW": ACL_USERS["arena"]},
        )
    )
    forged = b'{"forged": true}'
    outcome = b'{"type": "gift", "data": {"status": "applied"}}'
    try:
        async with (
            subscribed_as(broker, RawSubscriber()) as anonymous,
            subscribed_as(
                broker, RawSubscriber(), username="studio", password=ACL_USERS["studio"]
            ) as studio,
            subscribed_as(
                broker, RawSubscriber(), username="gifts", password=ACL_USERS["gifts"]
            ) as gifts_user,
        ):
            async with asyncio.timeout(5):
                await ready.wait()
            # anonymous: a gift of its own is refused by the broker (and said so)
            with pytest.raises(GiftSendError, match=r"Not authorized \(135\)"):
                await send_gift(
                    MqttSettings(port=broker.port),
                    gift_for_test(GiftEffect.DOUBLE, event_id="anon"),
                )
            # the gifts user: every topic but gifts/in refused, then a gift sent
            async with aiomqtt.Client(
                "127.0.0.1", broker.port, username="gifts", password=ACL_USERS["gifts"]
            ) as client:
                for topic in ("events", "state", "gifts", "spectator"):
                    await client.publish(f"ddz-arena/tables/t1/{topic}", forged, qos=1)
                await client.publish("ddz-arena/status", forged, qos=1)
            monkeypatch.setenv("GIFT_USER", "gifts")
            monkeypatch.setenv("GIFT_PW", ACL_USERS["gifts"])
            sender = MqttSettings(
                port=broker.port, username_env="GIFT_USER", password_env="GIFT_PW"
            )
            await send_gift(sender, gift_for_test(GiftEffect.SWAP, event_id="bridged", target=1))
            async with asyncio.timeout(5):
                await inbox.wait_for(1)
            # the arena tells the outcome on the public gifts topic: anyone reads it
            async with aiomqtt.Client(
                "127.0.0.1", broker.port, username="arena", password=ACL_USERS["arena"]
            ) as client:
                await client.publish("ddz-arena/tables/t1/gifts", outcome, qos=1)
            for reader in (anonymous, studio, gifts_user):
                await reader.wait_for(
                    lambda ms: any(t == "ddz-arena/tables/t1/gifts" for t, _, _ in ms),
                    within_s=5,
                )
            await asyncio.sleep(0.2)  # anything the gifts user could read is in by now
    finally:
        listener.cancel()
        with pytest.raises(asyncio.CancelledError):
            await listener
        broker.stop()
    assert [g.event_id for g in inbox.accepted] == ["bridged"]  # "anon" never reached it
    assert inbox.refused == []
    # the stream's user reads everything there was: the gift, the outcome, no forgery
    assert [t for t, _, _ in studio.messages] == [GIFTS_IN, "ddz-arena/tables/t1/gifts"]
    assert b'"bridged"' in studio.on(GIFTS_IN)[0]
    assert studio.on("ddz-arena/tables/t1/gifts") == [outcome]
    # anonymous reads the public gifts topic, not what viewers send
    assert [t for t, _, _ in anonymous.messages] == ["ddz-arena/tables/t1/gifts"]
    assert anonymous.on("ddz-arena/tables/t1/gifts") == [outcome]
    # the gifts user reads the outcomes (a refund bridge), and nothing else
    assert [t for t, _, _ in gifts_user.messages] == ["ddz-arena/tables/t1/gifts"]
