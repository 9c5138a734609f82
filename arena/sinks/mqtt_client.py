"""An aiomqtt client from the ``[mqtt]`` settings, for the parts that subscribe or send now
and then (the gifts listener, ``arena gift send``, a tournament's leaderboard).

The live feed publishes through its own client (:mod:`arena.sinks.mqtt_publisher`); these
parts are few messages each and use aiomqtt. All read the broker's credentials the same
way: from the environment variables ``[mqtt]`` names, never from the file, and a variable
that is unset is a ConfigError naming it (never showing a value).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import Mapping
from typing import Final

import aiomqtt

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.secrets import register_secret

__all__ = ["TIMEOUT_S", "mqtt_client", "mqtt_credentials"]

TIMEOUT_S: Final = 5.0
"""How long connecting, subscribing or publishing may take before it counts as failed."""


def mqtt_credentials(
    settings: MqttSettings, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The user name and password from the variables the settings name (none when they
    name none), the password registered to be masked; a variable unset is a ConfigError
    naming it, never showing a value."""
    environ = os.environ if environ is None else environ
    found: dict[str, str] = {}
    for key, variable in (("username", settings.username_env), ("password", settings.password_env)):
        if variable is None:
            continue
        value = environ.get(variable)
        if not value:
            raise ConfigError(f"mqtt.{key}_env: the environment variable {variable} is not set")
        found[key] = value
    if "password" in found and "username" not in found:
        raise ConfigError("mqtt.password_env is set but mqtt.username_env is not")
    if "password" in found:
        register_secret(found["password"], str(settings.password_env))
    return found


def mqtt_client(
    settings: MqttSettings, *, client_id: str, credentials: Mapping[str, str]
) -> aiomqtt.Client:
    """An aiomqtt client for ``settings``, not yet connected (``async with`` connects):
    TLS with the system's authorities when ``settings.tls``, the settings' protocol."""
    return aiomqtt.Client(
        settings.host,
        settings.port,
        username=credentials.get("username"),
        password=credentials.get("password"),
        identifier=client_id,
        protocol=(
            aiomqtt.ProtocolVersion.V5 if settings.protocol == "5" else aiomqtt.ProtocolVersion.V311
        ),
        tls_context=ssl.create_default_context() if settings.tls else None,
        timeout=TIMEOUT_S,
    )
