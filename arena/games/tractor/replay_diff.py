"""What differs between a message or event as a replay holds it and as the engine would
have made it, said for a person (the Tractor replay check's words), and the error that
says it (:class:`Mismatch`).

Both sides are plain JSON values. Lists of card ids compare as sets of cards (a
message's order is for reading, not meaning) and say which cards one side has that the
other lacks; every other value compares exactly, ``true`` never equal to ``1``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable
from typing import Any

import orjson
from pydantic import BaseModel

from arena.games.tractor.messages import CARD_ID_PATTERN
from arena.replay import encoded_message

__all__ = ["as_recorded", "card_difference", "difference"]

_CARD_ID = re.compile(CARD_ID_PATTERN)


def as_recorded(message: BaseModel) -> dict[str, Any]:
    """A message as the replay writes it (its fields, nested records as theirs, a
    request's ``played`` as ``played_len``)."""
    found: dict[str, Any] = orjson.loads(encoded_message(message))
    return found


def difference(
    shown: Any, expected: Any, path: str = "", *, ignore: Collection[str] = ()
) -> str | None:
    """The first place where ``shown`` differs from ``expected`` and how, or None.

    ``ignore``: top-level keys not compared (what the engine does not decide, such as a
    request's viewer lines)."""
    if type(shown) is dict and type(expected) is dict:
        for key in [*expected, *(k for k in shown if k not in expected)]:
            if not path and key in ignore:
                continue
            where = f"{path}.{key}" if path else str(key)
            if key not in shown:
                return f"{where} is missing (the engine's is {_brief(expected[key])})"
            if key not in expected:
                return f"{where} is there, but the engine's message has no such key"
            found = difference(shown[key], expected[key], where)
            if found is not None:
                return found
        return None
    if type(shown) is list and type(expected) is list:
        if _cards(shown) and _cards(expected) and (shown or expected):
            return card_difference(path, shown, expected)
        if len(shown) != len(expected):
            return f"{path} has {len(shown)} entries, the engine's {len(expected)}"
        for index, (mine, theirs) in enumerate(zip(shown, expected, strict=True)):
            found = difference(mine, theirs, f"{path}[{index}]")
            if found is not None:
                return found
        return None
    if type(shown) is type(expected) and shown == expected:
        return None
    return f"{path or 'the value'} {_brief(shown)} differs from the engine's {_brief(expected)}"


def card_difference(
    what: str, shown: Iterable[str], expected: Iterable[str], versus: str = "the engine's"
) -> str | None:
    """Which cards ``shown`` has that ``expected`` (``versus``: whose they are) lacks and
    the other way (as sets with repeats); None when they hold the same cards."""
    mine, theirs = Counter(shown), Counter(expected)
    if mine == theirs:
        return None
    parts = []
    extra, missing = mine - theirs, theirs - mine
    if extra:
        parts.append(f"shows {_listed(extra.elements())} that {versus} does not")
    if missing:
        parts.append(f"lacks {_listed(missing.elements())}")
    return f"{what or 'the cards'}: {', '.join(parts)}"


def _cards(values: list[Any]) -> bool:
    """Whether a list holds card ids only (an empty one may be cards too)."""
    return all(type(v) is str and _CARD_ID.match(v) for v in values)


def _listed(cards: Iterable[str]) -> str:
    return " ".join(sorted(cards)) or "nothing"


def _brief(value: Any, limit: int = 80) -> str:
    text = orjson.dumps(value).decode()
    return text if len(text) <= limit else text[: limit - 1] + "…"
