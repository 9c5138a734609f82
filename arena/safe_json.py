"""JSON that always encodes: a value orjson cannot write is written as the nearest it can.

Everything the arena writes (the replay, the MQTT feed, the overlay's pages, a
tournament's store) is JSON made by orjson, which raises on what JSON or its 64-bit
integers cannot hold: an integer beyond 64 bits, a string with a lone surrogate
(``"\\ud800"``, which is no Unicode text), a key that is no string, an object it does
not know, nesting past its depth. Numbers and text from outside are bounded where they
are parsed (gifts, agent replies, webhook bodies, provider usage), so none of these
should reach an encoder; if one does all the same, :func:`dumps` still writes the line,
each such value replaced (:func:`json_safe`: a huge integer by its digits as text, a
lone surrogate by U+FFFD, a key by its text, an unknown object by its repr) and logs
``json_value_replaced`` naming where and which values. No line is lost and no table
stops for one value.

The fast path is orjson itself: the fallback costs nothing until a line needs it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any, Final

import orjson

from arena.logs import get_logger

__all__ = ["INT64_MAX", "INT64_MIN", "Replaced", "dumps", "json_safe", "replaced_dumps"]

log = get_logger(__name__)

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**64 - 1
"""The integers orjson writes: a signed 64-bit one's least, an unsigned one's most."""
_MAX_DEPTH: Final = 128
"""Containers nested deeper than this are cut (orjson itself stops at 254)."""
_SHOWN: Final = 5
"""Replaced values a log line names, at most."""
_PATH_CAP: Final = 80
_SURROGATE: Final = re.compile("[\ud800-\udfff]")

Default = Callable[[Any], Any]
"""orjson's ``default``: an object it does not know as something it does."""
Replaced = list[tuple[str, str]]
"""Where a value was replaced (``$.data.value``; ``$`` is the whole), and what it was."""


def dumps(value: Any, *, default: Default | None = None, option: int = 0, where: str) -> bytes:
    """``orjson.dumps(value, default=default, option=option)``; when orjson cannot encode
    it, :func:`replaced_dumps`. ``where`` says what the line is, for the log."""
    try:
        return orjson.dumps(value, default=default, option=option)
    except TypeError:  # orjson.JSONEncodeError included
        return replaced_dumps(value, default=default, option=option, where=where)


def replaced_dumps(
    value: Any, *, default: Default | None = None, option: int = 0, where: str
) -> bytes:
    """``value`` encoded with what JSON cannot hold replaced (:func:`json_safe`), and
    logged: the slow path of :func:`dumps`, for an encoder that tried orjson itself."""
    safe, replaced = json_safe(value, default=default)
    log.warning(
        "json_value_replaced",
        where=where,
        replaced=len(replaced),
        at=[f"{_short(path)}: {what}" for path, what in replaced[:_SHOWN]],
        detail="a value JSON cannot hold reached an encoder: the line is written with it "
        "replaced (a number as text, a lone surrogate as U+FFFD, an object as its repr)",
    )
    return orjson.dumps(safe, option=option)


def json_safe(
    value: Any, *, default: Default | None = None, root: str = "$"
) -> tuple[Any, Replaced]:
    """``value`` as plain JSON data orjson always encodes, and what had to be replaced
    (paths start at ``root``). NaN and infinities become null, as orjson writes them;
    ``default`` (orjson's fallback) is tried on an object before its repr is."""
    replaced: Replaced = []
    return _safe(value, root, 0, default, replaced), replaced


def _safe(value: Any, path: str, depth: int, default: Default | None, replaced: Replaced) -> Any:
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        if _SURROGATE.search(value) is None:
            return value
        replaced.append((path, "a string with a lone surrogate"))
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, int):
        if INT64_MIN <= value <= INT64_MAX:
            return int(value)
        replaced.append((path, "an integer beyond 64 bits"))
        return _digits(value)
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        replaced.append((path, f"{value!r}, no JSON number"))
        return None
    if depth >= _MAX_DEPTH:
        replaced.append((path, f"nesting deeper than {_MAX_DEPTH}"))
        return None
    if isinstance(value, dict):
        safe = {}
        for key, item in value.items():
            name = key if type(key) is str else _key_text(key)
            if name is not key:
                replaced.append(
                    (f"{path}.{name}", f"a key that is no string ({type(key).__name__})")
                )
            elif _SURROGATE.search(key) is not None:
                name = _SURROGATE.sub("\ufffd", key)
                replaced.append((f"{path}.{name}", "a key with a lone surrogate"))
            safe[name] = _safe(item, f"{path}.{name}", depth + 1, default, replaced)
        return safe
    if isinstance(value, list | tuple):
        return [
            _safe(item, f"{path}[{index}]", depth + 1, default, replaced)
            for index, item in enumerate(value)
        ]
    try:  # what orjson writes itself (a datetime, an enum, a dataclass, a Fragment)
        orjson.dumps(value)
    except TypeError:
        pass
    else:
        return value
    if default is not None:
        try:
            converted = default(value)
        except Exception:  # the repr below says what it was
            pass
        else:
            return _safe(converted, path, depth + 1, default, replaced)
    replaced.append((path, f"a {type(value).__name__}, no JSON value"))
    return _repr(value)


def _digits(number: int) -> str:
    """A huge integer as its digits; beyond what ``str`` will convert, as its size."""
    try:
        return str(number)
    except ValueError:  # over sys.get_int_max_str_digits() digits
        return f"an integer of {number.bit_length()} bits"


def _key_text(key: object) -> str:
    """A key that is no string as text (orjson writes only string keys)."""
    if isinstance(key, int) and not isinstance(key, bool):
        text = _digits(key)
    elif isinstance(key, str | float | bool) or key is None:
        text = str(key)
    else:
        text = _repr(key)
    return _SURROGATE.sub("\ufffd", text)


def _repr(value: object) -> str:
    try:
        shown = repr(value)
    except Exception as exc:  # an object whose own repr fails
        shown = f"<{type(value).__name__} whose repr raised {type(exc).__name__}>"
    return _SURROGATE.sub("\ufffd", shown[:500])


def _short(path: str) -> str:
    return path if len(path) <= _PATH_CAP else path[: _PATH_CAP - 1] + "…"
