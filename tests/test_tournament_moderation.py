"""``[moderation]`` and ``[spectator]`` in a tournament file (issue 12).

``[moderation]`` is ``arena play``'s: every table of the tournament filters the agents'
comments with it, and the store keeps the filtered text. ``[spectator]`` is refused with
the reason: a tournament's tables publish no live feed for a delayed one to follow.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from arena.errors import ConfigError
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.runner import run_tournament
from tournaments.store import TournamentStore


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


def test_a_spectator_section_is_refused_with_the_reason() -> None:
    with pytest.raises(ConfigError, match=r"cup\.toml: spectator: not in a tournament file"):
        heuristic_cup(spectator={"enabled": True})


def test_gifts_default_table_and_a_bad_gift_key_are_refused() -> None:
    with pytest.raises(ConfigError, match=r"gifts\.default_table: not in a tournament"):
        heuristic_cup(gifts={"enabled": True, "default_table": "s1t1"})
    with pytest.raises(ConfigError, match=r"cup\.toml: gifts\.ttl: unknown key"):
        heuristic_cup(gifts={"enabled": True, "ttl": 3})
    with pytest.raises(ConfigError, match=r"gifts: mode 'show': tournaments are ranked"):
        heuristic_cup(gifts={"mode": "show"})
