"""A user's mistake on the command line ends in one clear line and exit status 2.

Specification (issue 7): "Every user error ends in one line naming the problem and a
non-zero exit" — a bad flag value, a ``--record`` path that cannot be written, ``arena
schema`` onto a file, an agent whose constructor raises — checked before the match starts;
the agent's traceback is logged at debug so its author can find the line. With
``--log-format json`` every line the command writes to stderr is a JSON object.
"""

from __future__ import annotations

import io
import json
import sys
from importlib import metadata
from pathlib import Path

import pytest

from arena.cli import main

SEATS = '[[seats]]\nname = "A"\n[[seats]]\nname = "B"\n[[seats]]\nname = "C"\n'


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The single stderr line of a refused command (and nothing on stdout)."""
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("arena: error: "), lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        pytest.param(
            ["--log-level", "bogus"],
            ["--log-level", "'bogus'", "debug", "info", "warning", "error", "critical"],
            id="log-level",
        ),
        pytest.param(["--rounds", "0"], ["--rounds", "greater than or equal to 1"], id="rounds"),
        pytest.param(["--tables", "-1"], ["--tables", "greater than or equal to 1"], id="tables"),
        pytest.param(["--tables", "10001"], ["--tables", "less than or equal to 10000"], id="many"),
        pytest.param(["--pace", "-1"], ["--pace", "greater than or equal to 0"], id="pace"),
        pytest.param(["--pace", "nan"], ["--pace", "finite"], id="pace-nan"),
        pytest.param(["--seed", "abc"], ["--seed", "'abc'"], id="seed"),
        pytest.param(["--seed", "-1"], ["--seed", "greater than or equal to 0"], id="seed-sign"),
        pytest.param(["--rounds"], ["--rounds", "expected one argument"], id="no-value"),
        pytest.param(["--rouns", "3"], ["unrecognized arguments: --rouns"], id="typo"),
    ],
)
def test_a_bad_play_flag_is_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], words: list[str]
) -> None:
    assert main(["play", "--no-live", *argv]) == 2
    line = one_error_line(capsys)
    for word in words:
        assert word in line


def test_arena_alone_lists_the_commands_one_line_each(capsys: pytest.CaptureFixture[str]) -> None:
    """A newcomer's first try is ``arena``: it says what there is to do (and exits 2)."""
    assert main([]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    for command in ("play", "replay", "schema"):
        [line] = [line for line in lines if line.split()[:1] == [command]]
        assert len(line.split()) > 3  # the command and what it does
    assert "--help" in lines[-1]


def test_options_without_a_command_are_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--log-level", "debug"]) == 2
    assert "COMMAND" in one_error_line(capsys)


def test_version_is_the_installed_packages(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out == f"arena {metadata.version('ddz-arena')}\n"


def test_record_into_a_missing_folder_is_refused_before_the_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "no" / "such" / "match.jsonl"
    assert main(["play", "--no-live", "--rounds", "1", "--record", str(target)]) == 2
    line = one_error_line(capsys)  # no seed line: the match never started
    assert f"--record {target}: {target.parent} does not exist" in line


def test_record_onto_a_folder_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["play", "--no-live", "--rounds", "1", "--record", str(tmp_path)]) == 2
    assert f"--record {tmp_path}: is a folder" in one_error_line(capsys)


def test_record_under_a_file_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    target = tmp_path / "notes.txt" / "match.jsonl"
    assert main(["play", "--no-live", "--rounds", "1", "--record", str(target)]) == 2
    assert "is a file, not a folder" in one_error_line(capsys)


def test_a_folder_as_config_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["play", "--no-live", "--config", str(tmp_path)]) == 2
    assert f"{tmp_path}: is a folder, not a config file" in one_error_line(capsys)


def test_schema_onto_a_file_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "schemas.json"
    target.write_text("{}", encoding="utf-8")
    assert main(["schema", str(target)]) == 2
    assert f"{target}: is a file" in one_error_line(capsys)
    assert target.read_text(encoding="utf-8") == "{}"


def test_schema_under_a_file_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "file").write_text("", encoding="utf-8")
    target = tmp_path / "file" / "schemas"
    assert main(["schema", str(target)]) == 2
    assert f"{target}: cannot write the schemas" in one_error_line(capsys)


# ─── an agent that cannot be built ──────────────────────────────────────────────────────

BROKEN_AGENT = """
from arena.agents import BaseAgent


class NeedsKey(BaseAgent):
    def __init__(self, name, **options):
        super().__init__(name, **options)
        raise RuntimeError("OPENAI_API_KEY is not set")
"""


def seat_broken_agent(folder: Path) -> None:
    """seats.toml in ``folder`` seats C as an agent whose constructor raises."""
    (folder / "brokenbots.py").write_text(BROKEN_AGENT, encoding="utf-8")
    (folder / "seats.toml").write_text(
        SEATS.replace('name = "C"', 'name = "C"\ntype = "brokenbots:NeedsKey"'), "utf-8"
    )


def test_an_agent_whose_constructor_raises_is_one_line_naming_the_seat(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Before the seed line: the agents are built before the match is announced."""
    seat_broken_agent(user_folder)
    assert main(["play", "--no-live", "--rounds", "1", "--config", "seats.toml"]) == 2
    assert one_error_line(capsys) == (
        "arena: error: seats.toml: seats.2 (seat 'C'): brokenbots:NeedsKey could not be "
        "created: RuntimeError: OPENAI_API_KEY is not set (its traceback is logged at debug "
        "level)"
    )


def test_an_agent_that_cannot_start_leaves_no_empty_replay_behind(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seat_broken_agent(user_folder)
    argv = ["play", "--no-live", "--rounds", "1", "--config", "seats.toml"]
    assert main([*argv, "--record", "match.jsonl"]) == 2
    assert "seats.2 (seat 'C')" in one_error_line(capsys)
    assert not (user_folder / "match.jsonl").exists()


def test_the_agent_constructors_traceback_is_logged_at_debug(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seat_broken_agent(user_folder)
    argv = ["play", "--no-live", "--rounds", "1", "--config", "seats.toml"]
    assert main([*argv, "--log-level", "debug", "--log-format", "json"]) == 2
    records = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    [failed] = [r for r in records if r["event"] == "agent_construction_failed"]
    assert failed["agent"] == "C"
    assert "brokenbots.py" in failed["exception"]  # the author's file and line
    assert 'raise RuntimeError("OPENAI_API_KEY is not set")' in failed["exception"]
    assert [r["event"] for r in records if r["level"] != "debug"] == ["command_failed"]
    assert "seats.2 (seat 'C')" in records[-1]["error"]


# ─── a seat's mistake: one line naming the file, the key and the seat ──────────────────

USER_MODULE = """
from arena.games.ddz.agents.scripted import GreedyAgent


def make_agent(name, **options):
    return None


class LowestFirst:
    pass


class Chatty(GreedyAgent):
    def __init__(self, name, *, temperature=0.5, **options):
        super().__init__(name, **options)
        self.temperature = temperature


class NeedsKey(GreedyAgent):
    def __init__(self, name, *, api_key, seed=None, rules=None):
        super().__init__(name, seed=seed)
"""


@pytest.mark.parametrize(
    ("seat", "line"),
    [
        pytest.param(
            'type = "heuristic"\noptions = { colour = "red" }',
            "seats.1.options (seat 'B'): heuristic got unknown options: colour "
            "(it takes no options)",
            id="unknown-option",
        ),
        pytest.param(
            'type = "usermodule:Chatty"\noptions = { temprature = 1.0 }',
            "seats.1.options (seat 'B'): usermodule:Chatty got unknown options: temprature "
            "(did you mean 'temperature'? it takes: temperature)",
            id="misspelt-option",
        ),
        pytest.param(
            "options = { seed = 3 }",
            "seats.1.options (seat 'B'): heuristic cannot take 'seed' as an option: "
            "the arena sets it",
            id="reserved-option",
        ),
        pytest.param(
            'type = "usermodule:NeedsKey"',
            "seats.1 (seat 'B'): usermodule:NeedsKey cannot be built as NeedsKey(name=..., "
            "seed=..., rules=..., **options): missing a required argument: 'api_key'",
            id="missing-option",
        ),
        pytest.param(
            'type = "collections:OrderedDict"',
            "seats.1.type (seat 'B'): agent type 'collections:OrderedDict': OrderedDict lacks "
            "the Agent interface (it has no notify, bid, double, play, close)",
            id="not-an-agent-class",
        ),
        pytest.param(
            'type = "usermodule:make_agent"',
            "seats.1.type (seat 'B'): agent type 'usermodule:make_agent': make_agent is a "
            "function, not an agent class",
            id="function",
        ),
        pytest.param(
            'type = "usermodule.py:LowestFirst"',
            "seats.1.type (seat 'B'): agent type 'usermodule.py:LowestFirst': name the module, "
            "not its file: drop the '.py' and write 'usermodule:LowestFirst'",
            id="file-name",
        ),
        pytest.param(
            'type = "heurstic"',
            "seats.1.type (seat 'B'): unknown agent type 'heurstic' (did you mean "
            "'heuristic'?); known: random, greedy, heuristic, human, subprocess, http, openai, "
            "anthropic; or give a 'module:Class' path",
            id="misspelt-type",
        ),
    ],
)
def test_a_seats_mistake_is_one_line_naming_file_key_and_seat(
    user_folder: Path, capsys: pytest.CaptureFixture[str], seat: str, line: str
) -> None:
    """One line, and no seed line first: nothing is announced that will not be played."""
    (user_folder / "usermodule.py").write_text(USER_MODULE, encoding="utf-8")
    (user_folder / "my.toml").write_text(
        SEATS.replace('name = "B"', f'name = "B"\n{seat}'), encoding="utf-8"
    )
    assert main(["play", "--no-live", "--rounds", "1", "--config", "my.toml"]) == 2
    assert one_error_line(capsys) == f"arena: error: my.toml: {line}"


@pytest.mark.parametrize(
    ("text", "line"),
    [
        pytest.param(
            SEATS.replace('name = "B"', 'nmae = "B"'),
            "seats.1.nmae: unknown key; did you mean 'name'?",
            id="seat-key",
        ),
        pytest.param(
            SEATS.replace("[[seats]]", "[[seat]]"),
            "seat: unknown key; did you mean 'seats'?",
            id="section",
        ),
        pytest.param(
            SEATS.replace('name = "B"', 'name = "B"\ntimeout = 5'),
            "seats.1.timeout (seat 'B'): unknown key; did you mean 'timeout_s'?",
            id="named-seat",
        ),
        pytest.param(
            "[table]\npace = 1\n",
            "table.pace: unknown key; did you mean 'pace_s'?",
            id="setting",
        ),
        pytest.param("[table]\nzzz = 1\n", "table.zzz: unknown key", id="nothing-close"),
    ],
)
def test_a_misspelt_key_is_one_line_offering_the_known_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, line: str
) -> None:
    path = tmp_path / "my.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["play", "--no-live", "--rounds", "1", "--config", str(path)]) == 2
    assert one_error_line(capsys) == f"arena: error: {path}: {line}"


# ─── --log-format json covers every stderr line ─────────────────────────────────────────


def test_with_json_logs_the_seed_and_replay_lines_are_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = tmp_path / "r.jsonl"
    argv = ["play", "--no-live", "--rounds", "1", "--seed", "4", "--record", str(replay)]
    assert main([*argv, "--log-format", "json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert [r["event"] for r in records] == ["match_seed", "replay_written"]
    assert records[0]["seed"] == 4
    assert records[1]["path"] == str(replay)
    assert all("timestamp" in r and r["level"] == "info" for r in records)


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param(["play", "--seed", "abc"], id="usage"),
        pytest.param(["play", "--rounds", "0"], id="config"),
        pytest.param(["schema", __file__], id="schema"),
    ],
)
def test_with_json_logs_an_error_is_a_json_line(
    capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    assert main([*argv, "--log-format", "json"]) == 2
    [line] = capsys.readouterr().err.splitlines()
    record = json.loads(line)
    assert (record["event"], record["level"]) == ("command_failed", "error")
    assert record["error"]


def test_a_config_with_several_mistakes_gives_a_line_each(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[match]\nrounds = "3"\n[table]\nauto_pass = "yes"\n', encoding="utf-8")
    assert main(["play", "--no-live", "--config", str(path)]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert all(line.startswith(f"arena: error: {path}: ") for line in lines)


def test_more_tables_for_a_human_seat_names_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "me.toml"
    path.write_text(SEATS.replace('name = "A"', 'name = "A"\ntype = "human"'), encoding="utf-8")
    assert main(["play", "--config", str(path), "--tables", "2"]) == 2
    line = one_error_line(capsys)
    assert line == (
        "arena: error: --tables: a human seat, seats.0 (seat 'A'), plays at one table only, not 2"
    )


# ─── a human seat needs a terminal ──────────────────────────────────────────────────────


class FakeTerminal(io.StringIO):
    """Standard input that says it is a terminal, with nobody typing (end of input)."""

    def isatty(self) -> bool:
        return True


def seat_a_human(folder: Path) -> Path:
    path = folder / "me.toml"
    path.write_text(SEATS.replace('name = "B"', 'name = "B"\ntype = "human"'), encoding="utf-8")
    return path


def test_a_human_seat_without_a_terminal_is_one_line_before_the_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Not EOFError retries until a stand-in takes the seat."""
    monkeypatch.setattr(sys, "stdin", io.StringIO("3\n"))
    path = seat_a_human(tmp_path)
    replay = tmp_path / "match.jsonl"
    assert main(["play", "--rounds", "1", "--config", str(path), "--record", str(replay)]) == 2
    assert one_error_line(capsys) == (
        f"arena: error: {path}: seats.1 (seat 'B'): a human seat needs a terminal "
        "(stdin is not a TTY)"
    )
    assert not replay.exists()


def test_agent_check_refuses_a_human_seat_without_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As ``arena play`` does, not twelve EOFError verdicts."""
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    path = seat_a_human(tmp_path)
    assert main(["agent", "check", str(path)]) == 2
    assert one_error_line(capsys) == (
        f"arena: error: {path}: seats.1 (seat 'B'): a human seat needs a terminal "
        "(stdin is not a TTY)"
    )


def test_agent_check_of_another_seat_needs_no_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main(["agent", "check", str(seat_a_human(tmp_path)), "--seat", "A"]) == 0
    out = capsys.readouterr().out
    assert "== seat 0: A" in out
    assert "seat 1" not in out


def test_a_human_seat_at_a_terminal_plays(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "stdin", FakeTerminal(""))
    assert (
        main(["play", "--rounds", "1", "--seed", "2", "--config", str(seat_a_human(tmp_path))]) == 0
    )
    assert "match over" in capsys.readouterr().out
