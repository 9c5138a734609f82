"""Where a seat's secret lives: the name of an environment variable, never the secret.

Model seats (``api_key_env``) and HTTP seats (``token_env``) read a key from the
environment. A careless config puts the key itself where the variable's name belongs,
and an error that echoed it would show it on stream: a value that is no variable name is
refused unseen.
"""

from __future__ import annotations

import re
from typing import Final

from arena.errors import ConfigError

__all__ = ["VARIABLE_NAME", "variable_name"]

VARIABLE_NAME: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
"""What an environment variable's name may be."""


def variable_name(value: object, option: str, *, example: str, secret: str) -> str:
    """``value`` as the name of the environment variable holding ``secret`` ("the key",
    "the token"); a ConfigError naming ``option`` otherwise, which never shows the value
    (a list or table there may hold the secret too)."""
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
    return value
