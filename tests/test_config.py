"""Configuration is strict: a value of the wrong kind is an error naming the file and key.

Specification (issue 7): "`auto_pass = "yes"` is accepted as true: booleans in config are
strict. A config with two seats says "3 seats needed", not `seats.2: Field required`."
Every setting section (``[match]``, ``[rules]``, ``[table]``, ``[[seats]]``) refuses a
quiet conversion, while a float setting still takes a TOML integer.
"""

from __future__ import annotations

import types
import typing
from pathlib import Path

import pytest
from pydantic import BaseModel

from arena.config import MatchSettings, SeatConfig, load_config
from arena.errors import ConfigError
from arena.games.ddz.engine import Rules
from arena.table import TableSettings

SEATS = '[[seats]]\nname = "A"\n[[seats]]\nname = "B"\n[[seats]]\nname = "C"\n'


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "arena.toml"
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    return str(caught.value)


def fields_of_kind(model: type[BaseModel], kind: type) -> list[str]:
    """The fields of ``model`` whose type is ``kind`` or ``kind | None``."""
    names = []
    for name, info in model.model_fields.items():
        annotation = info.annotation
        options = (
            typing.get_args(annotation)
            if isinstance(annotation, types.UnionType)
            else (annotation,)
        )
        if kind in options:
            names.append(name)
    return names


SECTIONS: list[tuple[str, type[BaseModel]]] = [
    ("match", MatchSettings),
    ("rules", Rules),
    ("table", TableSettings),
]
BOOL_KEYS = [(s, name) for s, model in SECTIONS for name in fields_of_kind(model, bool)]
INT_KEYS = [(s, name) for s, model in SECTIONS for name in fields_of_kind(model, int)]
FLOAT_KEYS = [(s, name) for s, model in SECTIONS for name in fields_of_kind(model, float)]


def test_the_sections_have_the_settings_these_tests_expect() -> None:
    """Guards the introspection below: it must find the settings it checks."""
    assert ("table", "auto_pass") in BOOL_KEYS
    assert ("rules", "doubling") in BOOL_KEYS  # an optional bool
    assert ("match", "rounds") in INT_KEYS
    assert ("table", "decision_timeout_s") in FLOAT_KEYS


@pytest.mark.parametrize(("section", "key"), BOOL_KEYS)
@pytest.mark.parametrize("value", ['"yes"', "1", '"true"'])
def test_a_boolean_setting_takes_only_true_or_false(
    tmp_path: Path, section: str, key: str, value: str
) -> None:
    path = write(tmp_path, f"[{section}]\n{key} = {value}\n")
    message = error_of(path)
    assert f"{path}: {section}.{key}: " in message
    assert "boolean" in message


@pytest.mark.parametrize(("section", "key"), INT_KEYS)
@pytest.mark.parametrize("value", ['"3"', "true", "2.0"])
def test_a_whole_number_setting_takes_only_an_integer(
    tmp_path: Path, section: str, key: str, value: str
) -> None:
    message = error_of(write(tmp_path, f"[{section}]\n{key} = {value}\n"))
    assert f"{section}.{key}: " in message
    assert "integer" in message


@pytest.mark.parametrize(("section", "key"), FLOAT_KEYS)
def test_a_float_setting_takes_an_integer(tmp_path: Path, section: str, key: str) -> None:
    config = load_config(write(tmp_path, f"[{section}]\n{key} = 1\n"))
    value = getattr(getattr(config, section), key)
    assert value == 1.0
    assert isinstance(value, float)


@pytest.mark.parametrize(("section", "key"), FLOAT_KEYS)
@pytest.mark.parametrize("value", ["nan", "inf", '"1.5"'])
def test_a_float_setting_refuses_nan_infinity_and_text(
    tmp_path: Path, section: str, key: str, value: str
) -> None:
    message = error_of(write(tmp_path, f"[{section}]\n{key} = {value}\n"))
    assert f"{section}.{key}: " in message


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('[table]\nauto_pass = "yes"', "(got 'yes': write true or false without quotes)"),
        ('[table]\nmax_retries = "3"', "(got '3': write it without quotes)"),
        ('[table]\ndecision_timeout_s = "2.5"', "(got '2.5': write it without quotes)"),
        ("[table]\nauto_pass = 1", "(got 1)"),
    ],
)
def test_a_value_of_the_wrong_type_is_quoted_with_the_fix(
    tmp_path: Path, line: str, said: str
) -> None:
    """The commonest TOML slip is a number or a boolean in quotes."""
    assert error_of(write(tmp_path, line + "\n")).endswith(said)


def test_a_seat_is_strict_too(tmp_path: Path) -> None:
    path = write(tmp_path, SEATS.replace('name = "B"', 'name = "B"\ntimeout_s = "10"'))
    assert "seats.1.timeout_s (seat 'B'): " in error_of(path)
    path = write(tmp_path, SEATS.replace('name = "B"', "name = 7"))
    assert "seats.1.name" in error_of(path)
    path = write(tmp_path, SEATS.replace('name = "B"', 'name = "B"\ntimeout_s = 10'))
    assert load_config(path).seats[1] == SeatConfig(name="B", timeout_s=10.0)


@pytest.mark.parametrize("count", [0, 1, 2, 4])
def test_a_config_without_three_seats_says_three_are_needed(tmp_path: Path, count: int) -> None:
    text = (
        "seats = []\n"
        if count == 0
        else "".join(f'[[seats]]\nname = "P{i}"\n' for i in range(count))
    )
    path = write(tmp_path, text)
    message = error_of(path)
    assert message == f"{path}: seats: 3 seats needed for 斗地主 (Dou Dizhu), {count} given"


def test_a_config_with_three_seats_and_a_mistake_in_one_names_the_seat(tmp_path: Path) -> None:
    """By key and by name: keys count seats from 0, people from 1, and names not at all."""
    path = write(tmp_path, SEATS.replace('name = "C"', 'name = "C"\ncolour = "red"'))
    assert error_of(path) == f"{path}: seats.2.colour (seat 'C'): unknown key"


@pytest.mark.parametrize("key", ["api_key", "API_KEY", "apikey", "token"])
def test_a_key_at_a_seats_level_says_keys_come_from_the_environment(
    tmp_path: Path, key: str
) -> None:
    secret = "sk-proj-abc1234567890123456789012345678901234"
    path = write(tmp_path, SEATS.replace('name = "C"', f'name = "C"\n{key} = "{secret}"'))
    message = error_of(path)
    assert message == (
        f"{path}: seats.2.{key} (seat 'C'): unknown key; keys come from the environment "
        "only: set options.api_key_env (model seats) to the variable's name"
    )
    assert "sk-proj" not in message


def test_a_seat_without_a_usable_name_is_named_by_its_key_alone(tmp_path: Path) -> None:
    path = write(tmp_path, SEATS.replace('name = "C"', "name = 3"))
    assert error_of(path).startswith(f"{path}: seats.2.name: ")


def test_a_misspelt_seat_key_is_one_mistake_not_two(tmp_path: Path) -> None:
    """``nmae`` for ``name`` also leaves ``name`` missing: the suggestion covers both."""
    path = write(tmp_path, SEATS.replace('name = "B"', 'nmae = "B"'))
    assert error_of(path) == f"{path}: seats.1.nmae: unknown key; did you mean 'name'?"


def test_a_missing_name_with_an_unrelated_unknown_key_is_two_mistakes(tmp_path: Path) -> None:
    path = write(tmp_path, SEATS.replace('name = "B"', 'colour = "B"'))
    assert error_of(path).splitlines() == [
        f"{path}: seats.1.name: Field required",
        f"{path}: seats.1.colour: unknown key",
    ]


@pytest.mark.parametrize(
    ("text", "key", "meant"),
    [
        ("[[seat]]\nname = 'A'\n", "seat", "seats"),
        ("[matchs]\nrounds = 1\n", "matchs", "match"),
        ("[match]\nround = 1\n", "match.round", "rounds"),
        ("[rules]\nbiding = 'grab'\n", "rules.biding", "bidding"),
        ("[table]\nstandins = 'greedy'\n", "table.standins", "standin"),
    ],
)
def test_an_unknown_key_close_to_a_known_one_offers_it(
    tmp_path: Path, text: str, key: str, meant: str
) -> None:
    path = write(tmp_path, text)
    assert error_of(path) == f"{path}: {key}: unknown key; did you mean {meant!r}?"


def test_an_agent_type_that_is_no_agent_class_names_the_seat(tmp_path: Path) -> None:
    """Checked without building an agent: building one may open connections."""
    path = write(tmp_path, SEATS.replace('name = "A"', 'name = "A"\ntype = "builtins:dict"'))
    assert error_of(path) == (
        f"{path}: seats.0.type (seat 'A'): agent type 'builtins:dict': dict lacks the Agent "
        "interface (it has no notify, bid, double, play, close)"
    )


def test_a_folder_is_not_a_config_file(tmp_path: Path) -> None:
    assert error_of(tmp_path) == f"{tmp_path}: is a folder, not a config file"


def test_a_file_that_is_not_utf8_is_named_with_the_fix(tmp_path: Path) -> None:
    gbk = tmp_path / "gbk.toml"
    gbk.write_bytes(('[match]\nrounds = 1\n[[seats]]\nname = "张三"\n').encode("gbk"))
    assert error_of(gbk) == (
        f"{gbk}: not UTF-8 text (byte 0xd5 on line 4): save it as UTF-8 (an editor's "
        "'Save with encoding'; GBK and Latin-1 are not read)"
    )
    binary = tmp_path / "binary.toml"
    binary.write_bytes(bytes(range(256)))
    assert "not UTF-8 text (byte 0x80 on line 2)" in error_of(binary)


def test_a_file_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.toml"
    path.write_bytes("\ufeff[match]\nrounds = 4\n".encode() + SEATS.encode())
    assert load_config(path).match.rounds == 4


def test_a_human_seat_plays_at_one_table_only(tmp_path: Path) -> None:
    """Two tables would ask the one person at the keyboard at once."""
    path = write(
        tmp_path,
        "[match]\ntables = 2\n" + SEATS.replace('name = "A"', 'name = "A"\ntype = "human"'),
    )
    assert error_of(path) == (
        f"{path}: match.tables: a human seat, seats.0 (seat 'A'), plays at one table only, not 2"
    )


def test_ten_thousand_tables_may_play_in_one_process_and_no_more(tmp_path: Path) -> None:
    """Issue 25: 10,000 tables of agents that await fit one process's event loop."""
    assert load_config(write(tmp_path, "[match]\ntables = 10000\n")).match.tables == 10_000
    assert error_of(write(tmp_path, "[match]\ntables = 10001\n")) == (
        f"{tmp_path / 'arena.toml'}: match.tables: Input should be less than or equal to 10000"
    )


@pytest.mark.parametrize("seed", [-1, 2**53])
def test_a_seed_must_survive_json_in_any_language(tmp_path: Path, seed: int) -> None:
    assert f"{tmp_path / 'arena.toml'}: match.seed: " in error_of(
        write(tmp_path, f"[match]\nseed = {seed}\n")
    )
    assert load_config(write(tmp_path, f"[match]\nseed = {2**53 - 1}\n")).match.seed == 2**53 - 1


def test_the_cap_on_viewer_doubles_may_be_given_under_gifts(tmp_path: Path) -> None:
    # [gifts] max_doubles_per_round and [rules] max_gift_doubles are one setting.
    from gifts.settings import load_gift_settings

    config = load_config(
        write(tmp_path, SEATS + "[gifts]\nenabled = true\nmax_doubles_per_round = 1\n")
    )
    assert Rules.of(config.rules).max_gift_doubles == 1
    assert load_gift_settings(config.gifts, source="arena.toml").enabled  # the key is taken
    same = "[rules]\nmax_gift_doubles = 1\n[gifts]\nmax_doubles_per_round = 1\n"
    assert Rules.of(load_config(write(tmp_path, SEATS + same)).rules).max_gift_doubles == 1
    assert Rules.of(load_config(write(tmp_path, SEATS)).rules).max_gift_doubles == 2  # the default


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "[rules]\nmax_gift_doubles = 3\n[gifts]\nmax_doubles_per_round = 1\n",
            "gifts.max_doubles_per_round = 1 and rules.max_gift_doubles = 3 disagree",
        ),
        ("[gifts]\nmax_doubles_per_round = 21\n", "gifts.max_doubles_per_round: give a whole"),
        ("[gifts]\nmax_doubles_per_round = true\n", "(got True)"),
        ('[gifts]\nmax_doubles_per_round = "2"\n', "(got '2')"),
    ],
)
def test_a_wrong_cap_on_viewer_doubles_is_named(tmp_path: Path, text: str, message: str) -> None:
    error = error_of(write(tmp_path, SEATS + text))
    assert "arena.toml: " in error
    assert message in error
