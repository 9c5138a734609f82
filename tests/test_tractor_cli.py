"""``arena play --game tractor``: four scripted seats by default, six with ``--players 6``
or a config file; the same seed plays the same match; several tables; a replay; and the
mistakes a new user makes get errors naming the flag."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.cli import main

PLAY = ["play", "--no-live", "--seed", "5", "--rounds", "1"]


def test_tractor_plays_from_the_command_line_and_repeats_by_seed(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    record = tmp_path / "tractor.jsonl"
    assert main([*PLAY, "--game", "tractor", "--record", str(record)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[t1 r0] match: North / East / South / West")
    assert any("trump locked: level 2" in line for line in lines)
    assert any(" leads " in line for line in lines)
    assert any(" follows " in line for line in lines)
    assert any("defenders" in line and "→" in line for line in lines)  # the level change
    assert lines[-1].startswith("[t1 r1] match over:")
    recorded = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    header = next(line for line in recorded if line["kind"] == "round_start")
    assert header["game"] == "tractor"
    assert header["players"] == ["North", "East", "South", "West"]
    assert main([*PLAY, "--game", "tractor"]) == 0
    assert capsys.readouterr().out.splitlines() == lines  # same seed, same match


def test_six_players_and_two_tables(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*PLAY, "--game", "tractor", "--players", "6", "--tables", "2"]) == 0
    out = capsys.readouterr().out
    assert out.count("match over") == 2
    assert "[t2 r1]" in out
    first = next(line for line in out.splitlines() if "match:" in line)
    assert first.count(" / ") == 5  # six seats, the default ones repeated and numbered


def test_a_config_file_for_tractor_needs_no_flag(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "tractor.toml"
    config.write_text(
        'game = "tractor"\n[rules]\nplayers = 6\nround_limit = 1\n[match]\nrounds = 5\n',
        encoding="utf-8",
    )
    assert main(["play", "--no-live", "--seed", "2", "--config", str(config)]) == 0
    out = capsys.readouterr().out
    assert out.count("── round") == 1  # the round limit ended the match
    assert "game over" in out


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--game", "chess"], "no game called 'chess'"),
        (["--game", "tractor", "--players", "5"], "--players:"),
        (["--players", "4"], "is played by 3 players, no other number"),  # no choice
    ],
)
def test_mistakes_name_the_flag(
    capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    assert main([*PLAY, *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("arena: error: ")
    assert said in err


def test_another_game_than_the_files_refuses_its_seats(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "ddz.toml"
    config.write_text(
        '[[seats]]\nname = "A"\ntype = "random"\n[[seats]]\nname = "B"\ntype = "random"\n'
        '[[seats]]\nname = "C"\ntype = "random"\n',
        encoding="utf-8",
    )
    assert main([*PLAY, "--config", str(config), "--game", "tractor"]) == 2
    err = capsys.readouterr().err
    assert "--game tractor" in err
    assert "[seats]" in err
