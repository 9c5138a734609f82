"""What every platform's normalizer needs: typed, bounded reads of a payload, one error
type, and the gift event built so that whatever is wrong with it is that error too."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from pydantic import ValidationError

from arena.errors import ArenaError
from gifts.events import GiftEvent
from gifts.sources.parse import validation_reason
from protocol import MAX_JSON_INT

__all__ = [
    "PayloadError",
    "field_int",
    "field_str",
    "gift_event",
    "mapping",
    "optional_str",
    "unix_time",
]

_ID_DIGITS: Final = 128
"""The most characters an id has (:class:`GiftEvent`'s cap)."""
_ID_LIMIT: Final = 10**_ID_DIGITS
_LATEST: Final = datetime(9999, 12, 31, tzinfo=UTC).timestamp()
"""The last second a time can be (datetime's own limit)."""


class PayloadError(ArenaError, ValueError):
    """A platform payload without a field a gift needs, or with one of the wrong type or
    out of range."""


def mapping(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise PayloadError(f"{what} is not a JSON object")
    return value


def field_str(data: Mapping[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        raise PayloadError(f"{what}: {key!r} is missing or not a string")
    return _text(value, key, what)


def optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, (str, int)) or value == "":
        return None
    return _text(value, key, "the payload")


def _text(value: str | int, key: str, what: str) -> str:
    """An id or a name as text: a number (an id some platforms send as one) as its
    digits, if it has no more than an id may."""
    if isinstance(value, int) and not -_ID_LIMIT < value < _ID_LIMIT:
        raise PayloadError(f"{what}: {key!r} is a number of more than {_ID_DIGITS} digits")
    return str(value)


def field_int(
    data: Mapping[str, Any],
    key: str,
    what: str,
    *,
    default: int | None = None,
    low: int = 0,
    high: int = MAX_JSON_INT,
) -> int:
    """A whole number from ``low`` to ``high``: a count or an amount (never negative,
    never more than every JSON reader holds exactly)."""
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PayloadError(f"{what}: {key!r} is missing or not a whole number")
    if not low <= value <= high:
        raise PayloadError(f"{what}: {key!r} is out of range ({low} to {high})")
    return value


def unix_time(data: Mapping[str, Any], key: str, what: str) -> datetime | None:
    """A Unix time in seconds (or milliseconds, when it is that large) as UTC; None when
    absent or not a number, a PayloadError when no time can be that one."""
    seconds = data.get(key)
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0:
        return None
    if not seconds <= _LATEST * 1000:  # NaN, infinity, or past the year 9999 in ms
        raise PayloadError(f"{what}: {key!r} is no time (NaN, infinite or past the year 9999)")
    if seconds > 10**11:  # milliseconds
        seconds = seconds / 1000
    return datetime.fromtimestamp(seconds, tz=UTC)


def gift_event(what: str, **fields: Any) -> GiftEvent:
    """The gift event of ``fields``; what the event refuses (a total over its cap, an id
    that is no id) is a PayloadError naming the field, like any other fault."""
    try:
        return GiftEvent(**fields)
    except ValidationError as exc:
        raise PayloadError(f"{what}: {validation_reason(exc)}") from None
