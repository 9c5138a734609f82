"""What every platform's normalizer needs: typed reads of a payload, one error type."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from arena.errors import ArenaError

__all__ = ["PayloadError", "field_int", "field_str", "mapping", "optional_str", "unix_time"]


class PayloadError(ArenaError, ValueError):
    """A platform payload without a field a gift needs, or with one of the wrong type."""


def mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise PayloadError(f"{what} is not a JSON object")
    return value


def field_str(data: Mapping[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise PayloadError(f"{what}: {key!r} is missing or not a string")
    return str(value)


def optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        return None
    return str(value)


def field_int(data: Mapping[str, Any], key: str, what: str, *, default: int | None = None) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"{what}: {key!r} is missing or not a whole number")
    return value


def unix_time(seconds: Any) -> datetime | None:
    """A Unix time in seconds (or milliseconds, when it is that large) as UTC, if any."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        return None
    if seconds > 10**11:  # milliseconds
        seconds = seconds / 1000
    return datetime.fromtimestamp(seconds, tz=UTC)
