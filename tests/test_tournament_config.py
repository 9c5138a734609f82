"""Tournament files (issue 12): [tournament], [[agents]] and the table sections, every
mistake named with the file and the key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.games.ddz.engine import Rules
from arena.table.settings import TableSettings
from tournaments.config import (
    TournamentConfig,
    load_tournament_config,
    parse_tournament_config,
)
from tournaments.formats import Format, LandlordPolicy
from tournaments.schedule import ScheduleKind

EXAMPLE = Path(__file__).resolve().parents[1] / "config" / "tournament.toml"


def minimal(**tournament: Any) -> dict[str, Any]:
    return {
        "tournament": {"name": "Cup", **tournament},
        "agents": [{"name": "A"}, {"name": "B", "type": "greedy"}, {"name": "C"}],
    }


def problems(data: dict[str, Any]) -> str:
    with pytest.raises(ConfigError) as caught:
        parse_tournament_config(data, source="cup.toml")
    return str(caught.value)


def test_the_example_loads_with_the_documented_defaults() -> None:
    config = load_tournament_config(EXAMPLE)
    assert config.tournament.name == "Scripted bots, example cup"
    assert config.tournament.format is Format.STANDARD
    assert config.tournament.landlord_policy is LandlordPolicy.BID
    assert config.tournament.seed is None
    assert config.tournament.stages is None
    assert config.tournament.tables_at_once is None
    assert len(config.names) == 6
    assert len(set(config.names)) == 6
    assert {a.type for a in config.agents} == {"random", "greedy", "heuristic"}
    assert config.rules == Rules()
    assert config.table == TableSettings()  # pace_s 0: no pause between actions
    assert config.mqtt == MqttSettings()
    assert config.gifts == {"enabled": False, "mode": "ranked"}
    # what its comments say: six agents, a round robin of 10 stages of 2 tables
    assert config.schedule_kind is ScheduleKind.ROUND_ROBIN
    assert config.stage_count == 10


def test_stages_default_by_roster_size_unless_given() -> None:
    three = parse_tournament_config(minimal())
    assert (three.schedule_kind, three.stage_count) == (ScheduleKind.ROUND_ROBIN, 1)
    seven = minimal()
    seven["agents"] += [{"name": n} for n in "DEFG"]
    assert parse_tournament_config(seven).schedule_kind is ScheduleKind.SWISS
    assert parse_tournament_config(seven).stage_count == 5
    seven["tournament"]["stages"] = 8
    assert parse_tournament_config(seven).stage_count == 8


def test_defaults_of_a_minimal_file() -> None:
    config = parse_tournament_config(minimal())
    assert isinstance(config, TournamentConfig)
    assert (config.tournament.format, config.tournament.landlord_policy) == ("standard", "bid")
    assert config.gifts == {"mode": "ranked"}
    assert config.names == ("A", "B", "C")
    assert config.agents[0].type == "heuristic"


def test_every_field_of_tournament_is_read() -> None:
    data = minimal(format="quick", landlord_policy="rotate", seed=7, stages=3, tables_at_once=2)
    data["agents"].append({"name": "D"})  # stages need more than three agents
    config = parse_tournament_config(data)
    settings = config.tournament
    assert settings.format is Format.QUICK
    assert settings.landlord_policy is LandlordPolicy.ROTATE
    assert (settings.seed, settings.stages, settings.tables_at_once) == (7, 3, 2)


def test_each_mistake_is_named_with_file_and_key() -> None:
    data = minimal(format="blitz", seed="3", stages=0, fromat="quick")
    data["agents"].append({"name": "D", "tpye": "greedy"})
    text = problems(data)
    assert "cup.toml: tournament.format: Input should be 'quick'" in text
    assert "cup.toml: tournament.seed:" in text
    assert "write it without quotes" in text
    assert "cup.toml: tournament.stages: Input should be greater than or equal to 1" in text
    assert "cup.toml: tournament.fromat: unknown key; did you mean 'format'?" in text
    assert "cup.toml: agents.3.tpye (agent 'D'): unknown key; did you mean 'type'?" in text
    assert len(text.splitlines()) == 5


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"name": ""}, "tournament.name: String should have at least 1 character"),
        ({"name": "x" * 81}, "tournament.name: String should have at most 80 characters"),
        ({"seed": 2**53}, "tournament.seed: 9007199254740992 is out of range: a seed written"),
        ({"seed": -1}, "tournament.seed: -1 is out of range"),
        ({"seed": "0xZZ"}, "tournament.seed: '0xZZ' is not a seed: write hex text"),
        ({"seed": "42abc"}, "tournament.seed: '42abc' is not a seed"),
        ({"seed": 4.5}, "tournament.seed: 4.5 is not a seed"),
        ({"tables_at_once": 0}, "tournament.tables_at_once: Input should be greater"),
        ({"landlord_policy": "random"}, "tournament.landlord_policy: Input should be 'bid'"),
        ({"format": 5}, "tournament.format: Input should be 'quick'"),
    ],
)
def test_bad_tournament_values(change: dict[str, Any], expected: str) -> None:
    assert f"cup.toml: {expected}" in problems(minimal(**change))


def test_the_roster_needs_three_distinct_agents() -> None:
    two = minimal()
    two["agents"] = two["agents"][:2]
    assert "cup.toml: agents: at least 3 agents needed, 2 given" in problems(two)
    same = minimal()
    same["agents"].append({"name": "B"})
    assert "cup.toml: agents: agent names must be distinct: B more than once" in problems(same)
    assert "cup.toml: tournament: Field required" in problems({"agents": minimal()["agents"]})


def test_agent_types_are_checked_as_arena_play_checks_them() -> None:
    data = minimal()
    data["agents"][1]["type"] = "greedyy"
    data["agents"][2]["type"] = "nosuch"
    text = problems(data)
    assert "cup.toml: agents.1.type (agent 'B'): unknown agent type 'greedyy'" in text
    assert "cup.toml: agents.2.type (agent 'C'): unknown agent type 'nosuch'" in text
    standin = minimal()
    standin["table"] = {"standin": "nosuch"}
    assert "cup.toml: table.standin: unknown agent type 'nosuch'" in problems(standin)


def test_the_table_sections_are_arena_plays() -> None:
    data = minimal()
    data["rules"] = {"bidding": "grab"}
    data["table"] = {"max_retries": 1}
    data["mqtt"] = {"enabled": True, "topic_prefix": "studio/ddz"}
    config = parse_tournament_config(data)
    assert Rules.of(config.rules).bidding == "grab"
    assert config.table.max_retries == 1
    assert config.mqtt.topic_prefix == "studio/ddz"
    data["rules"] = {"biding": "grab"}
    assert "cup.toml: rules.biding: unknown key; did you mean 'bidding'?" in problems(data)


def test_seats_are_no_tournament_key() -> None:
    data = minimal()
    data["seats"] = [{"name": "A"}]
    assert "cup.toml: seats: unknown key; a tournament's roster is [[agents]]" in problems(data)


def test_a_secret_where_a_key_was_meant_is_told_to_come_from_the_environment() -> None:
    data = minimal()
    data["mqtt"] = {"password": "hunter2"}
    data["agents"][0]["api_key"] = "sk-123"
    said = problems(data)
    assert "cup.toml: mqtt.password: unknown key; the broker's user name and password" in said
    assert "cup.toml: agents.0.api_key (agent 'A'): unknown key; keys come from the" in said
    assert "did you mean" not in said
    assert "hunter2" not in said
    assert "sk-123" not in said


def test_gifts_are_always_ranked() -> None:
    data = minimal()
    data["gifts"] = {"enabled": True, "ttl_s": 30.0}
    config = parse_tournament_config(data)
    assert config.gifts == {"enabled": True, "ttl_s": 30.0, "mode": "ranked"}
    data["gifts"] = {"mode": "ranked"}
    assert parse_tournament_config(data).gifts["mode"] == "ranked"
    data["gifts"] = {"enabled": True, "mode": "show"}
    assert "cup.toml: gifts: mode 'show': tournaments are ranked" in problems(data)


def test_a_human_needs_one_table_at_a_time() -> None:
    data = minimal()
    data["agents"] += [{"name": n} for n in ("D", "E")]
    data["agents"].append({"name": "Me", "type": "human"})
    assert "tournament.tables_at_once: agent 'Me' is human" in problems(data)
    data["tournament"]["tables_at_once"] = 1
    assert parse_tournament_config(data).names[-1] == "Me"
    three = minimal()
    three["agents"][0]["type"] = "human"
    assert parse_tournament_config(three).agents[0].type == "human"  # one table anyway


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no such tournament file"):
        load_tournament_config(tmp_path / "missing.toml")
    with pytest.raises(ConfigError, match="is a folder"):
        load_tournament_config(tmp_path)
    bad = tmp_path / "bad.toml"
    bad.write_text("[tournament\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad\.toml: not valid TOML"):
        load_tournament_config(bad)


def test_the_config_is_frozen() -> None:
    config = parse_tournament_config(minimal())
    with pytest.raises(ValueError, match="frozen"):
        config.tournament.name = "Other"  # type: ignore[misc]


def test_three_agents_play_one_table_match_and_more_stages_are_refused() -> None:
    three = [{"name": n} for n in ("A", "B", "C")]
    config = parse_tournament_config({"tournament": {"name": "x"}, "agents": three}, source="s")
    assert config.stage_count == 1
    with pytest.raises(ConfigError) as raised:
        parse_tournament_config(
            {"tournament": {"name": "x", "stages": 3}, "agents": three}, source="cup.toml"
        )
    assert str(raised.value).startswith("cup.toml: tournament.stages: 3 stages with 3 agents")


def test_the_cap_on_viewer_doubles_may_be_given_under_gifts() -> None:
    data = {**minimal(), "gifts": {"enabled": True, "max_doubles_per_round": 0}}
    config = parse_tournament_config(data, source="cup.toml")
    assert Rules.of(config.rules).max_gift_doubles == 0
    assert "max_doubles_per_round" not in config.gifts
    data["rules"] = {"max_gift_doubles": 2}
    assert "rules.max_gift_doubles = 2 disagree" in problems(data)
