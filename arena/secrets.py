"""Secrets: named in the config, read from the environment, masked in all the arena says.

A secret (a model seat's API key, an HTTP seat's bearer token, the server's token, the
MQTT password) lives in an environment variable; a setting names the variable, never
the value (:func:`variable_name` refuses what looks like the value itself). Where a
secret is read, it is registered (:func:`register_secret`); from then on
:mod:`arena.masking` replaces it with ``***`` in any text, in this process and in the
processes it starts for tables (a tournament's workers get :func:`known_secrets`).

The variables that hold secrets are known by name too (:func:`secret_variables`): those
a setting names (:func:`variable_name` declares them as it checks them), those a secret
was read from, and the well-known ones (:data:`WELL_KNOWN_VARIABLES`). A program the
arena starts for a seat gets the arena's environment without them
(``arena.agents.program_env``): an entrant's program cannot read the organiser's keys.

A secret shorter than :data:`~arena.masking.MIN_MASKED_LENGTH` characters is used but
not masked (:mod:`arena.masking` says why): a warning names its variable (never its
value) and asks for a longer one. The masking is a module of its own, below the logging
this one warns with.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Final

from arena.errors import ConfigError
from arena.logs import get_logger
from arena.masking import MIN_MASKED_LENGTH, mask_values

__all__ = [
    "SERVER_TOKEN_ENV",
    "VARIABLE_NAME",
    "WELL_KNOWN_VARIABLES",
    "declare_secret_variables",
    "forget_secrets",
    "known_secrets",
    "register_environment_secrets",
    "register_secret",
    "register_secrets",
    "secret_variables",
    "variable_name",
]

VARIABLE_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What an environment variable's name may be."""

SERVER_TOKEN_ENV: Final = "ARENA_SERVER_TOKEN"
"""The variable holding the server's token (the control page's, the gift webhook's)."""
WELL_KNOWN_VARIABLES: Final = frozenset({SERVER_TOKEN_ENV})
"""Variables that hold a secret of the arena whether or not a setting names them: their
values are registered at every command's start (:func:`register_environment_secrets`)."""

_secrets: dict[str, str] = {}
"""Each secret registered, with the name of where it came from (a variable)."""
_warned: set[str] = set()
_variables: set[str] = set()
"""The environment variables known to hold secrets (declared, or a secret read there)."""


def variable_name(value: object, option: str, *, example: str, secret: str) -> str:
    """``value`` as the name of the environment variable holding ``secret`` ("the key",
    "the token"), declared a secret's variable (:func:`declare_secret_variables`); a
    ConfigError naming ``option`` otherwise, which never shows the value (a list or
    table there may hold the secret too)."""
    if not isinstance(value, str) or not value.strip():
        shown = "a blank string" if isinstance(value, str) else type(value).__name__
        raise ConfigError(f"{option} must name an environment variable, not {shown}")
    if not VARIABLE_NAME.fullmatch(value):
        raise ConfigError(
            f"{option} must be the NAME of an environment variable (such as {example}); "
            f"the value given is not a variable name and looks like it may be {secret} "
            f"itself, so it is not shown: put {secret} in the environment "
            f"(export {example}=...) and name the variable here"
        )
    _variables.add(value)
    return value


def register_secret(value: str, name: str = "a secret", *, warn: bool = True) -> bool:
    """Mask ``value`` from now on in everything this process writes or sends; ``name``
    says where it came from (its variable, never the value: a variable's name is then a
    secret's, :func:`secret_variables`) for the warning about a secret too short to
    mask (``warn=False``: none, for a value merely present). True when it is masked."""
    if VARIABLE_NAME.fullmatch(name):
        _variables.add(name)
    if len(value) < MIN_MASKED_LENGTH:
        if value and warn:
            _warn_short(name, len(value))
        return False
    if value not in _secrets:
        _secrets[value] = name
        mask_values(_secrets)
    return True


def register_secrets(secrets: Mapping[str, str]) -> None:
    """Register several secrets at once (``{value: name}``, as :func:`known_secrets`
    gives them): how a worker process learns those of the process that started it."""
    for value, name in secrets.items():
        register_secret(value, name)


def register_environment_secrets(
    names: Iterable[str] = WELL_KNOWN_VARIABLES, environ: Mapping[str, str] | None = None
) -> None:
    """Register the values of the variables ``names`` that are set (each command does it
    at its start for the well-known ones): a secret the arena may read is masked
    whether or not this run reads it, and before anything could quote it. No warning
    for a short one: where the arena uses it, it warns then."""
    environ = os.environ if environ is None else environ
    for name in names:
        value = environ.get(name, "").strip()
        _variables.add(name)
        if value:
            register_secret(value, name, warn=False)


def declare_secret_variables(names: Iterable[str]) -> None:
    """Say that these environment variables hold secrets, read yet or not: a program
    the arena starts does not get them (``arena.agents.program_env``)."""
    _variables.update(names)


def secret_variables() -> frozenset[str]:
    """The environment variables known to hold secrets: the well-known ones, those a
    setting names, those a secret was read from (a tournament's workers are handed them
    with :func:`known_secrets`, and declare them)."""
    return frozenset(_variables | WELL_KNOWN_VARIABLES)


def known_secrets() -> dict[str, str]:
    """Every secret registered in this process, with where it came from, for a process
    this one starts (pass it privately: in a pipe or a process argument, never argv)."""
    return dict(_secrets)


def forget_secrets() -> None:
    """Forget every secret (for tests, which play many configurations in one process)."""
    _secrets.clear()
    _warned.clear()
    _variables.clear()
    mask_values(())


def _warn_short(name: str, length: int) -> None:
    if name in _warned:
        return
    _warned.add(name)
    get_logger(__name__).warning(
        "secret_too_short_to_mask",
        secret=name,
        length=length,
        hint=(
            f"a secret of fewer than {MIN_MASKED_LENGTH} characters is used but not "
            "masked in logs, replays and feeds (masking it would wreck every text holding "
            "those letters): use a long random one, e.g. "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(24))'"
        ),
    )
