"""A served match pauses between rounds (issue 27): the overlay's result card is read
before the next deal covers the table; unserved matches and explicit settings keep theirs."""

from __future__ import annotations

from pathlib import Path

from arena.commands.parser import build_parser
from arena.commands.play_config import SHOW_ROUND_PAUSE_S, effective_config


def pause_for(*argv: str) -> float:
    config, _ = effective_config(build_parser().parse_args(["play", *argv]))
    return config.table.round_pause_s


def test_a_served_paced_match_pauses_between_rounds() -> None:
    assert pause_for("--serve") == SHOW_ROUND_PAUSE_S
    assert pause_for("--serve", "--pace", "0.2") == SHOW_ROUND_PAUSE_S


def test_an_unserved_or_unpaced_match_does_not() -> None:
    assert pause_for("--no-live") == 0
    assert pause_for() == 0  # the live board (or plain lines here): no show card to read
    assert pause_for("--serve", "--pace", "0") == 0  # unpaced: nobody watches it play


def test_the_configs_own_pause_is_kept(tmp_path: Path) -> None:
    own = tmp_path / "own.toml"
    own.write_text("[table]\nround_pause_s = 1.5\n", encoding="utf-8")
    assert pause_for("--serve", "--config", str(own)) == 1.5
    none = tmp_path / "none.toml"
    none.write_text("[table]\nround_pause_s = 0\n", encoding="utf-8")
    assert pause_for("--serve", "--config", str(none)) == 0


def test_the_flag_says_it_for_any_match() -> None:
    assert pause_for("--serve", "--round-pause", "0") == 0
    assert pause_for("--no-live", "--round-pause", "2.5") == 2.5


def test_arena_serve_has_the_flag_too() -> None:
    from arena.commands.serve import _with_play_defaults

    args = _with_play_defaults(build_parser().parse_args(["serve", "--round-pause", "3"]))
    config, _ = effective_config(args)
    assert config.table.round_pause_s == 3
    args = _with_play_defaults(build_parser().parse_args(["serve"]))
    assert effective_config(args)[0].table.round_pause_s == SHOW_ROUND_PAUSE_S
