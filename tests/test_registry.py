"""Finding and building agents from their configured type names.

Specification (issue 7): "`type = "mybots.agents:LowestFirst"` only imports from inside
the repository; it should find a module in the current folder, as people expect of
`module:attr` names" — also when ``arena`` runs as the installed script, whose own folder
is ``sys.path[0]``. And "an agent whose constructor raises" is a ConfigError naming the
agent and the exception, its traceback logged at debug for the author.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from arena.agents.registry import agent_class, create_agent
from arena.cli import main
from arena.errors import ConfigError
from arena.logs import EVENT_ATTRIBUTE

LOWEST_FIRST = """
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.reading import legal_for, pass_reply, play_reply


class LowestFirst(BaseAgent):
    async def play(self, request):
        moves = legal_for(request, self.rules)
        if not moves:
            return pass_reply(request)
        return play_reply(request, min(moves, key=lambda m: m.main_rank))
"""

SEATS = """
[[seats]]
name = "Low"
type = "t7userbots.agents:LowestFirst"
[[seats]]
name = "B"
[[seats]]
name = "C"
"""


# The README tells users to keep their own ``mybots.py`` in the clone's folder, which the
# editable install puts on sys.path: the test package must not share that name.
def write_package(folder: Path) -> None:
    """``t7userbots/agents.py`` in ``folder``: the README's example agent, as a package."""
    (folder / "t7userbots").mkdir()
    (folder / "t7userbots" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "t7userbots" / "agents.py").write_text(LOWEST_FIRST, encoding="utf-8")


def test_a_module_in_the_current_folder_is_found(user_folder: Path) -> None:
    write_package(user_folder)
    cls = agent_class("t7userbots.agents:LowestFirst")
    assert cls.__name__ == "LowestFirst"
    assert Path(sys.modules[cls.__module__].__file__ or "").parent.parent == user_folder


def test_a_config_naming_a_module_in_the_current_folder_plays(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_package(user_folder)
    (user_folder / "arena.toml").write_text(SEATS, encoding="utf-8")
    assert (
        main(["play", "--no-live", "--rounds", "1", "--seed", "2", "--config", "arena.toml"]) == 0
    )
    assert "Low plays " in capsys.readouterr().out


def test_the_installed_script_finds_a_module_in_the_current_folder(tmp_path: Path) -> None:
    """The real thing: ``.venv/bin/arena``, whose sys.path[0] is the venv's bin folder."""
    script = Path(sys.executable).with_name("arena")
    assert script.is_file(), "the dev install (pip install -e '.[dev]') makes this script"
    write_package(tmp_path)
    (tmp_path / "arena.toml").write_text(SEATS, encoding="utf-8")
    done = subprocess.run(
        [
            str(script),
            "play",
            "--no-live",
            "--rounds",
            "1",
            "--seed",
            "2",
            "--config",
            "arena.toml",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "Low plays " in done.stdout


def test_a_module_found_nowhere_says_where_it_was_looked_for(user_folder: Path) -> None:
    with pytest.raises(ConfigError, match="current folder and the installed packages"):
        agent_class("nosuchbots.agents:LowestFirst")


def test_a_module_that_fails_to_import_names_the_exception(user_folder: Path) -> None:
    (user_folder / "t7badbots.py").write_text("1 / 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="importing 't7badbots' raised ZeroDivisionError"):
        agent_class("t7badbots:Anything")


def test_a_missing_class_is_named(user_folder: Path) -> None:
    write_package(user_folder)
    with pytest.raises(ConfigError, match=r"t7userbots\.agents has no 'HighestFirst'"):
        agent_class("t7userbots.agents:HighestFirst")


class ExplodingAgent:
    """Any exception from a constructor, not only a TypeError from bad options."""

    def __init__(self, name: str, **options: object) -> None:
        raise KeyError("api_key")


def test_a_constructor_that_raises_becomes_a_config_error_naming_the_agent(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with (
        caplog.at_level(logging.DEBUG, logger="arena.agents.registry"),
        pytest.raises(ConfigError) as caught,
    ):
        create_agent(f"{__name__}:ExplodingAgent", "Zed")
    assert "agent 'Zed'" in str(caught.value)
    assert "KeyError: 'api_key'" in str(caught.value)
    assert isinstance(caught.value.__cause__, KeyError)
    [record] = caplog.records
    assert getattr(record, EVENT_ATTRIBUTE)["event"] == "agent_construction_failed"
    assert record.levelno == logging.DEBUG
    assert record.exc_info is not None  # the traceback, for the agent's author


def test_unknown_options_are_a_config_error_naming_the_agent() -> None:
    with pytest.raises(ConfigError, match=r"agent 'Zed' .*unknown options: colour"):
        create_agent("heuristic", "Zed", options={"colour": "red"})
