"""``[moderation]`` and ``[spectator]`` in a tournament file (issue 12).

Both are ``arena play``'s. Every table of the tournament filters the agents' comments
with ``[moderation]``, and the store keeps the filtered text. ``[spectator]`` sends every
table's hands, and a PEEK's cards, delayed, to ``<prefix>/tables/<table>/spectator``
through the table feed of ``--mqtt`` (checked on a real Mosquitto); without ``--mqtt``
it has nowhere to go and the run says so.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from mosquitto import Mosquitto, mosquitto_fixture  # noqa: F401 (the fixture)
from test_mqtt import Subscriber, subscribed_as

from arena.cli import main
from arena.errors import ConfigError
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore

REPO = Path(__file__).resolve().parent.parent


def heuristic_cup(**sections: Any) -> TournamentConfig:
    """Three heuristic bots: each says 收工！ when it finishes a hand."""
    return parse_tournament_config(
        {
            "tournament": {"name": "cup", "format": "quick", "seed": 8},
            "agents": [{"name": name, "type": "heuristic"} for name in ("X", "Y", "Z")],
            **sections,
        },
        source="cup.toml",
    )


async def played(tmp_path: Path, config: TournamentConfig) -> tuple[int, list[str]]:
    """Texts filtered over the tournament, and the comments its stored events show
    viewers (the agents' own replies are kept as they were sent, for the replay)."""
    with TournamentStore(tmp_path / f"{id(config)}.db") as store:
        run = await run_tournament(store, config)
        filtered = sum(
            stats["filtered"]
            for stored in store.rounds(run.tournament_id)
            for stats in stored["stats"].values()
        )
        (match,) = store.table_matches(run.tournament_id)
        events = [orjson.loads(line) for line in store.replay_lines(match.id)]
    comments = [
        str(line["event"]["data"]["comment"])
        for line in events
        if line["kind"] == "event" and line["event"]["data"].get("comment")
    ]
    return filtered, comments


async def test_every_table_filters_comments_with_the_files_moderation(tmp_path: Path) -> None:
    moderation = {"blocklist": ["收工"], "replace_defaults": True, "replacement": "…"}
    filtered, comments = await played(tmp_path, heuristic_cup(moderation=moderation))
    assert filtered > 0
    assert "…！" in comments
    assert not [comment for comment in comments if "收工" in comment]
    plain_filtered, plain_comments = await played(tmp_path, heuristic_cup())
    assert plain_filtered == 0  # the shipped lists leave 收工 alone
    assert "收工！" in plain_comments


def test_a_bad_moderation_section_is_named() -> None:
    with pytest.raises(ConfigError, match=r"cup\.toml: moderation\.replace_default: unknown key"):
        heuristic_cup(moderation={"replace_default": True})
    with pytest.raises(ConfigError, match=r"cup\.toml: moderation\.hook: .*no_such_module"):
        heuristic_cup(moderation={"hook": "no_such_module:f"})


def cup_file(tmp_path: Path) -> Path:
    file = tmp_path / "cup.toml"
    roster = "".join(f'[[agents]]\nname = "{n}"\ntype = "heuristic"\n\n' for n in "XYZ")
    file.write_text(
        '[tournament]\nname = "cup"\nformat = "quick"\nseed = 8\n\n'
        f"{roster}[spectator]\nenabled = true\ndelay_s = 0.2\n"
    )
    return file


async def test_the_spectator_feed_shows_every_tables_hands_and_a_peek_over_mqtt(
    tmp_path: Path, mosquitto: Mosquitto
) -> None:
    gifts = tmp_path / "gifts.jsonl"
    peek = {"event_id": "p1", "platform": "test", "effect": "PEEK", "target_seat": 2}
    gifts.write_text(json.dumps(peek) + "\n")
    db = tmp_path / "arena.db"
    url = f"mqtt://127.0.0.1:{mosquitto.port}"
    argv = ["tournament", "run", str(cup_file(tmp_path)), "--db", str(db), "--mqtt", url]
    async with subscribed_as(mosquitto, Subscriber()) as watcher:
        process = await asyncio.create_subprocess_exec(  # a run as a streamer starts it
            *(sys.executable, "-m", "arena.cli", *argv, "--gift-file", str(gifts)),
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        try:
            _, err = await asyncio.wait_for(process.communicate(), 120)
        finally:
            if process.returncode is None:
                process.kill()
                await process.wait()
        assert process.returncode == 0, err.decode()
        assert b"every hand goes to ddz-arena/tables/<table>/spectator 0.2 s" in err
        await watcher.wait_for(
            lambda messages: any(p == "offline" for t, p, _ in messages), within_s=10
        )
    items = [p for t, p, _ in watcher.messages if t == "ddz-arena/tables/s1t1/spectator"]
    kinds = {item["kind"] for item in items}
    assert {"hands", "event", "peek"} <= kinds
    (peeked,) = [item for item in items if item["kind"] == "peek"]
    assert peeked["seat"] == 2
    assert 1 <= len(peeked["cards"]) <= 20
    assert all(len(item["hands"]) == 3 for item in items if item["kind"] == "hands")
    events = [p for t, p, _ in watcher.messages if t == "ddz-arena/tables/s1t1/events"]
    assert {"match_started", "round_result", "match_ended"} <= {e["type"] for e in events}
    assert not any("hands" in e["data"] for e in events)  # the public feed: no hands


def test_the_spectator_feed_without_mqtt_is_said_to_be_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["tournament", "run", str(cup_file(tmp_path)), "--db", str(tmp_path / "a.db")]
    assert main(argv) == 0
    assert "the spectator feed needs --mqtt or --serve to go anywhere, so it is off" in (
        capsys.readouterr().err
    )


def test_gifts_default_table_and_a_bad_gift_key_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"gifts\.default_table: not in a tournament"):
        heuristic_cup(gifts={"enabled": True, "default_table": "s1t1"})
    with pytest.raises(ConfigError, match=r"cup\.toml: gifts\.ttl: unknown key"):
        heuristic_cup(gifts={"enabled": True, "ttl": 3})
    with pytest.raises(ConfigError, match=r"gifts: mode 'show': tournaments are ranked"):
        heuristic_cup(gifts={"mode": "show"})
