"""The options of a ``subprocess`` seat, checked when the seat is built.

Each mistake is a :class:`~arena.errors.ConfigError` naming the option and, where a
newcomer's slip is likely (a command written as one string, a script without its
interpreter), the fix: the registry shows it as ``seats.N.options (seat 'Name'): ...``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping
from typing import Final

from arena.errors import ConfigError

__all__ = [
    "command_option",
    "cwd_option",
    "env_option",
    "find_program",
    "int_option",
    "seconds_option",
]

_EXAMPLE: Final = '["node", "bot.js"]'
_INTERPRETERS: Final = {
    ".py": "python3",
    ".js": "node",
    ".mjs": "node",
    ".cjs": "node",
    ".rb": "ruby",
    ".sh": "sh",
    ".pl": "perl",
    ".php": "php",
    ".lua": "lua",
}


def command_option(command: object) -> list[str]:
    if command is None:
        raise ConfigError(
            f"options.command is required: the program and its arguments, such as {_EXAMPLE}"
        )
    if isinstance(command, str):
        raise ConfigError(
            f"options.command must be a list of strings such as {_EXAMPLE} (it is run "
            "without a shell), got a string"
        )
    if not isinstance(command, list | tuple) or not command:
        got = "an empty list" if isinstance(command, list | tuple) else type(command).__name__
        raise ConfigError(
            f"options.command must be a list of strings such as {_EXAMPLE}, got {got}"
        )
    for index, part in enumerate(command):
        if not isinstance(part, str) or not part or "\0" in part:
            raise ConfigError(f"options.command[{index}] must be a non-empty string, got {part!r}")
    return list(command)


def cwd_option(cwd: object) -> str:
    if cwd is None:
        return os.getcwd()
    if not isinstance(cwd, str | os.PathLike):
        raise ConfigError(f"options.cwd must be a folder's path, got {type(cwd).__name__}")
    folder = os.path.abspath(os.fspath(cwd))
    if not os.path.isdir(folder):
        problem = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise ConfigError(f"options.cwd: {os.fspath(cwd)!r} {problem}")
    return folder


def env_option(env: object) -> dict[str, str]:
    if env is None:
        return {}
    if not isinstance(env, Mapping):
        raise ConfigError(
            f'options.env must be a table of strings such as {{ DEBUG = "1" }}, '
            f"got {type(env).__name__}"
        )
    for key, value in env.items():
        if not isinstance(key, str) or not key or "=" in key or "\0" in key:
            raise ConfigError(f"options.env: {key!r} is not a variable name")
        if not isinstance(value, str) or "\0" in value:
            raise ConfigError(f"options.env.{key} must be a string, got {value!r}")
    return dict(env)


def int_option(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"options.{name} must be an integer from {low} to {high}, got {value!r}")
    return value


def seconds_option(name: str, value: object, *, allow_zero: bool = False) -> float:
    number = float(value) if isinstance(value, int | float) and not isinstance(value, bool) else -1
    if not (0 <= number <= 600) or (number == 0 and not allow_zero):
        least = "from 0" if allow_zero else "above 0"
        raise ConfigError(f"options.{name} must be seconds, {least} to 600, got {value!r}")
    return number


def find_program(name: str, cwd: str, environ: Mapping[str, str]) -> str:
    """The program's path, as the process will find it: on PATH (relative entries
    taken from ``cwd``), or a path with a slash, relative to ``cwd``."""
    if os.sep in name or (os.altsep and os.altsep in name):
        path = os.path.normpath(os.path.join(cwd, name))
        if not os.path.exists(path):
            raise ConfigError(f"options.command: program {name!r} not found (looked in {cwd})")
        if os.path.isdir(path) or not os.access(path, os.X_OK):
            what = "a folder" if os.path.isdir(path) else "not executable"
            raise ConfigError(
                f"options.command: {name!r} is {what}{_interpreter_hint(name, cwd, found=True)}"
            )
        return path
    search = environ.get("PATH", os.defpath)
    search = os.pathsep.join(os.path.join(cwd, entry) for entry in search.split(os.pathsep))
    found = shutil.which(name, path=search)
    if found is None:
        raise ConfigError(
            f"options.command: program {name!r} not found on PATH{_interpreter_hint(name, cwd)}"
        )
    return os.path.normpath(found)


def _interpreter_hint(name: str, cwd: str, *, found: bool = False) -> str:
    interpreter = _INTERPRETERS.get(os.path.splitext(name)[1].lower())
    if interpreter is not None:
        return (
            f' (a script is run by its interpreter: put it first, as ["{interpreter}", "{name}"])'
        )
    if found:
        return " (make it executable, or put its interpreter first)"
    if os.path.isfile(os.path.join(cwd, name)):
        return f" (to run the file {name!r} in {cwd}, write './{name}')"
    return ""
