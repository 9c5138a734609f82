"""Viewer gifts in a tournament (issue 12): ranked mode, a desk per table while it plays.

Real parts throughout: the tournament runner and its SQLite store, the gifts package's
desks and sources (a gift file, a simulated audience, the MQTT topic on a real Mosquitto
started by the test on free ports). What is checked is what the store keeps: every gift
has exactly one ending, result-changing effects are rejected ``ranked_mode``, cosmetic
ones apply, a gift for a table not playing is rejected ``unknown_table``, and the
standings are those of the same tournament without gifts.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import Subscriber, subscribed_as

from arena.config import MqttSettings
from arena.sinks.mqtt import MqttSink
from gifts.events import RESULT_CHANGING, GiftEffect, GiftEvent
from gifts.send import send_gift
from gifts.settings import load_gift_settings
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.gifts import GiftSources, TournamentGifts
from tournaments.leaderboard import Leaderboard
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

RANKED_CHANGING = {effect.value for effect in RESULT_CHANGING}


def cup(agents: int = 4, *, fmt: str = "quick", pace: float = 0.002) -> TournamentConfig:
    roster = [
        {"name": "Ann", "type": "greedy"},
        {"name": "Bob", "type": "heuristic"},
        {"name": "Cid", "type": "random"},
        {"name": "Dee", "type": "greedy"},
    ][:agents]
    return parse_tournament_config(
        {
            "tournament": {"name": "gift cup", "format": fmt, "seed": 23},
            "agents": roster,
            "table": {"pace_s": pace},
            "gifts": {"enabled": True, "viewer_cooldown_s": 0, "ttl_s": 2.0},
        },
        source="test",
    )


def gifts_for(config: TournamentConfig, sources: GiftSources) -> TournamentGifts:
    return TournamentGifts(load_gift_settings(config.gifts, source="test"), sources)


def standings(board: Leaderboard) -> list[tuple[str, int, int, int]]:
    return [(s.name, s.rank, s.line.points, s.line.rounds) for s in board.standings()]


def stored_outcomes(store: TournamentStore, tid: str) -> dict[str, list[dict[str, Any]]]:
    """Every stored gift outcome, by table id."""
    return {m.table_id: store.gift_outcomes(m.id) for m in store.table_matches(tid)}


def check_ranked(outcomes: list[dict[str, Any]]) -> None:
    """One ending a gift unit; result-changing effects never applied."""
    ids = Counter(o["id"] for o in outcomes)
    assert all(n == 1 for n in ids.values()), [i for i, n in ids.items() if n > 1]
    assert {o["status"] for o in outcomes} <= {"applied", "rejected", "expired"}
    for outcome in outcomes:
        if outcome["effect"] in RANKED_CHANGING and outcome["status"] != "expired":
            assert (outcome["status"], outcome["reason"]) == ("rejected", "ranked_mode")
        assert not (outcome["effect"] in RANKED_CHANGING and outcome["status"] == "applied")


async def test_a_simulated_audience_changes_no_ranked_result_and_every_gift_is_stored(
    tmp_path: Path,
) -> None:
    config = cup()
    with TournamentStore(tmp_path / "plain.db") as store:
        plain = await run_tournament(store, config)
    gifts = gifts_for(config, GiftSources(simulate_rate=300))
    with TournamentStore(tmp_path / "gifts.db") as store:
        run = await run_tournament(store, config, gifts=gifts)
        by_table = stored_outcomes(store, run.tournament_id)
    assert standings(run.leaderboard) == standings(plain.leaderboard)
    assert sorted(by_table) == ["s1t1", "s2t1", "s3t1", "s4t1"]  # a table a stage
    for table in by_table.values():  # an audience a table: its gift ids are the table's
        check_ranked(table)
    outcomes = [o for table in by_table.values() for o in table]
    applied = {o["effect"] for o in outcomes if o["status"] == "applied"}
    assert applied
    assert applied <= {"CHEER", "EMOTE", "EFFECT", "PEEK"}
    assert any(o["reason"] == "ranked_mode" for o in outcomes)
    assert all(by_table.values())  # each table had its own audience while it played
    counts = gifts.counts()  # what the run counted is what the store kept, unit for unit
    for status in ("applied", "rejected", "expired"):
        stored = sum(o["units"] for o in outcomes if o["status"] == status)
        assert stored == counts[status], status
    assert counts["dropped"] == 0


async def test_a_gift_file_reaches_the_table_it_names_while_it_plays(tmp_path: Path) -> None:
    lines = [
        {"event_id": "swap", "platform": "test", "effect": "SWAP", "table": "s1t1"},
        {"event_id": "double", "platform": "test", "effect": "DOUBLE", "count": 2},
        {"event_id": "cheer", "platform": "test", "effect": "CHEER", "table": "s1t1"},
        {"event_id": "emote", "platform": "test", "effect": "EMOTE"},
        {"event_id": "later", "platform": "test", "effect": "EMOTE", "table": "s2t1"},
        {"event_id": "reshuffle", "platform": "test", "effect": "RESHUFFLE", "table": "s1t1"},
    ]
    file = tmp_path / "gifts.jsonl"
    file.write_text("".join(json.dumps(line) + "\n" for line in lines) + "not json\n")
    config = cup(fmt="standard", pace=0.001)
    with TournamentStore(tmp_path / "arena.db") as store:
        plain = await run_tournament(store, config)
    gifts = gifts_for(config, GiftSources(gift_file=file))
    with TournamentStore(tmp_path / "gifts.db") as store:
        run = await run_tournament(store, config, gifts=gifts)
        by_table = stored_outcomes(store, run.tournament_id)
    assert standings(run.leaderboard) == standings(plain.leaderboard)
    first = by_table["s1t1"]  # every line came before s1t1 ended: all told there
    assert all(not outcomes for table, outcomes in by_table.items() if table != "s1t1")
    check_ranked(first)
    ending = {o["id"]: (o["status"], o["reason"]) for o in first}
    assert ending == {
        "test:swap#0": ("rejected", "ranked_mode"),
        "test:double#0-1": ("rejected", "ranked_mode"),  # a gift of count 2: 2 units
        "test:cheer#0": ("applied", None),
        "test:emote#0": ("applied", None),
        "test:later#0": ("rejected", "unknown_table: s2t1"),  # not playing yet
        "test:reshuffle#0": ("rejected", "ranked_mode"),
        "?:?#0": ending["?:?#0"],
    }
    invalid = ending["?:?#0"][1]
    assert invalid is not None
    assert invalid.startswith("invalid: line 7")
    ranked = gifts.counts()["rejected_by_reason"]["ranked_mode"]
    assert ranked == 4  # units: SWAP, DOUBLE (2), RESHUFFLE


async def test_gifts_over_a_real_mosquitto_reach_a_tournament_table(
    tmp_path: Path,
    mosquitto: Mosquitto,
) -> None:
    """Gifts sent to ``ddz-arena/gifts/in`` end at table s1t1: stored, and told live on
    ``ddz-arena/tables/s1t1/gifts`` by the table feed."""
    settings = MqttSettings(port=mosquitto.port)
    config = cup(3, fmt="standard", pace=0.01)  # three agents: one table, s1t1, ~10 s
    gifts = gifts_for(config, GiftSources(mqtt=settings))
    sent = [
        GiftEvent(event_id="m-swap", platform="test", effect=GiftEffect.SWAP, table="s1t1"),
        GiftEvent(event_id="m-cheer", platform="test", effect=GiftEffect.CHEER, message="加油"),
        GiftEvent(event_id="m-add", platform="test", effect=GiftEffect.ADD, target_seat=1),
        GiftEvent(event_id="m-elsewhere", platform="test", effect=GiftEffect.EMOTE, table="s2t1"),
        GiftEvent(event_id="m-peek", platform="test", effect=GiftEffect.PEEK, target_seat=2),
    ]

    async def send_when_listening() -> None:
        assert gifts.listening is not None
        await asyncio.wait_for(gifts.listening.wait(), 20)
        for gift in sent:
            await send_gift(settings, gift)

    feed = MqttSink(settings, run_id="gift-cup")
    async with subscribed_as(mosquitto, Subscriber()) as watcher:
        await feed.started()
        with TournamentStore(tmp_path / "arena.db") as store:
            playing = asyncio.create_task(run_tournament(store, config, gifts=gifts, sinks=[feed]))
            await send_when_listening()
            run = await asyncio.wait_for(playing, 120)
            outcomes = stored_outcomes(store, run.tournament_id)["s1t1"]
        await feed.close()
        endings = [  # each gift's last word on the gifts topic
            (p["data"]["id"], (p["data"]["status"], p["data"]["reason"]))
            for topic, p, _ in watcher.messages
            if topic == "ddz-arena/tables/s1t1/gifts" and p["data"]["status"] != "queued"
        ]
    live = dict(endings)
    assert len(live) == len(endings)  # one ending a gift, live too
    with TournamentStore(tmp_path / "plain.db") as store:
        plain = await run_tournament(store, config.model_copy(update={"gifts": {}}))
    assert standings(run.leaderboard) == standings(plain.leaderboard)
    check_ranked(outcomes)
    ending = {o["id"]: (o["status"], o["reason"]) for o in outcomes}
    assert ending == {
        "test:m-swap#0": ("rejected", "ranked_mode"),
        "test:m-cheer#0": ("applied", None),
        "test:m-add#0": ("rejected", "ranked_mode"),
        "test:m-elsewhere#0": ("rejected", "unknown_table: s2t1"),
        "test:m-peek#0": ("applied", None),
    }
    assert live == ending  # an overlay saw what the store kept


def test_arena_tournament_run_takes_gifts_from_a_simulated_audience(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from arena.cli import main

    file = tmp_path / "cup.toml"
    roster = "".join(
        f'[[agents]]\nname = "{name}"\ntype = "{kind}"\n\n'
        for name, kind in (("Ann", "greedy"), ("Bob", "heuristic"), ("Cid", "random"))
    )
    file.write_text(
        '[tournament]\nname = "cup"\nformat = "quick"\nseed = 4\n\n'
        f"{roster}[table]\npace_s = 0.002\n\n[gifts]\nviewer_cooldown_s = 0\n"
    )
    db = tmp_path / "arena.db"
    argv = ["tournament", "run", str(file), "--db", str(db), "--simulate-gifts", "300"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "taking gifts (ranked mode) from a simulated audience (300 a second)" in err
    (summary,) = [line for line in err.splitlines() if line.startswith("arena: gifts: ")]
    with TournamentStore(db) as store:
        (tournament,) = store.tournaments()
        (match,) = store.table_matches(tournament.id)
        outcomes = store.gift_outcomes(match.id)
    check_ranked(outcomes)
    applied = sum(o["units"] for o in outcomes if o["status"] == "applied")
    assert applied > 0
    assert summary.startswith(f"arena: gifts: {applied} applied, ")
    assert "ranked_mode" in summary
    missing = ["tournament", "run", str(file), "--db", str(db), "--gift-file", "nope.jsonl"]
    assert main(missing) == 2
    assert "--gift-file: nope.jsonl: no such file" in capsys.readouterr().err


async def test_a_gift_between_stages_waits_for_the_next_table_and_is_told_there() -> None:
    from arena.games.ddz.agents.scripted import GreedyAgent
    from arena.sinks.base import CollectingSink
    from arena.table import Table

    gifts = gifts_for(cup(), GiftSources())
    gifts.start(seed=1)
    await gifts.accept(GiftEvent(event_id="early", platform="test", effect=GiftEffect.EMOTE))
    await gifts.accept(GiftEvent(event_id="gone", platform="test", effect=GiftEffect.SWAP))
    assert not gifts.desks  # no table plays: nothing is told yet, nothing lost
    sink = CollectingSink()
    table = Table([GreedyAgent(n) for n in "ABC"], table_id="s2t1", sinks=[sink])
    await gifts.attach(table)
    await gifts.detach(table)  # its match over (or cut off): what waits expires
    told = [(e.data["id"], e.data["status"], e.data["reason"]) for e in sink.events]
    assert ("test:gone#0", "rejected", "ranked_mode") in told
    assert ("test:early#0", "expired", None) in told  # queued, then never a safe point
    await gifts.accept(GiftEvent(event_id="late", platform="test", effect=GiftEffect.EMOTE))
    await gifts.stop()  # no table came after it
    assert gifts.counts()["dropped"] == 1
    assert gifts.summary().endswith(", 1 dropped (no table played after)")
