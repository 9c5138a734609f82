"""The environment of a program the arena starts for a seat: the arena's own, no secrets.

A ``subprocess`` seat's program is an outsider's code (in a tournament, an entrant's): it
must not read the organiser's model keys, the server's token (which opens ``/control``)
or the MQTT password. It gets the arena's environment without

- every variable known to hold a secret (:func:`arena.secrets.secret_variables`: the
  well-known ones such as ``ARENA_SERVER_TOKEN``, those a setting names, such as a
  seat's ``api_key_env`` or ``token_env`` and ``[mqtt] password_env``, and those a
  secret was read from);
- the provider presets' key variables (``OPENAI_API_KEY`` ...), whether a seat of this
  run uses them or not;
- any variable whose value is a secret the arena knows (a key exported twice).

A program that needs one of them (an agent that calls a model itself) names it in
``options.pass_env``: the value comes from the arena's environment, never from the
config. ``options.env`` adds variables written in the config.

Decided when the program starts, not when its seat is built: by then every seat of the
run is built (``arena play`` builds every table's seats before it opens any, a
tournament every agent once before its first table), and building a seat that reads a
secret declares its variable; a config's ``[mqtt]`` variables are declared as it is read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Final

from arena.errors import ConfigError
from arena.secrets import VARIABLE_NAME, known_secrets, register_secret, secret_variables

__all__ = ["pass_env_option", "preset_key_variables", "program_environment", "withheld_variables"]

_EXAMPLE: Final = '["OPENAI_API_KEY"]'


def preset_key_variables() -> frozenset[str]:
    """The variables the provider presets read their keys from."""
    from arena.agents.llm.providers import PRESETS  # light: data only

    return frozenset(p.api_key_env for p in PRESETS.values() if p.api_key_env is not None)


def withheld_variables(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The variables of ``environ`` (the arena's) that a program does not get (see the
    module)."""
    environ = os.environ if environ is None else environ
    secrets = known_secrets()
    named = secret_variables() | preset_key_variables()
    return frozenset(
        name for name, value in environ.items() if name in named or value.strip() in secrets
    )


def program_environment(
    added: Mapping[str, str],
    passed: Sequence[str] = (),
    environ: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """What a program is started with: ``environ`` (the arena's) without the variables
    that hold secrets, except those ``passed`` (``options.pass_env``), and ``added``
    (``options.env``) over it."""
    environ = os.environ if environ is None else environ
    withheld = withheld_variables(environ).difference(passed)
    kept = {name: value for name, value in environ.items() if name not in withheld}
    return {**kept, **added}


def pass_env_option(value: object, environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """``options.pass_env``: names of the arena's variables the program gets even when
    they hold secrets. Each must be set (a program that needs a key would otherwise fail
    far from the cause); one that holds a secret is registered to be masked, since the
    program may now print it."""
    if value is None:
        return ()
    if isinstance(value, str) or not isinstance(value, list | tuple):
        raise ConfigError(
            f"options.pass_env must be a list of variable names such as {_EXAMPLE}, "
            f"got {type(value).__name__}"
        )
    environ = os.environ if environ is None else environ
    for index, name in enumerate(value):
        if not isinstance(name, str) or not VARIABLE_NAME.fullmatch(name):
            raise ConfigError(
                f"options.pass_env[{index}] must be the NAME of an environment variable "
                f"(such as OPENAI_API_KEY): the value given is not one, so it is not shown "
                "(it may be the secret itself)"
            )
        if name not in environ:
            raise ConfigError(
                f"options.pass_env: the environment variable {name} is not set in the "
                "arena's environment"
            )
    names = tuple(value)
    for name in withheld_variables(environ).intersection(names):
        register_secret(environ[name].strip(), name)
    return names
