"""Finding the answer in a model's text, whatever the game: reasoning and code fences
stripped, the last JSON object taken.

A model often writes an example first and its answer last, and a reasoning model's
thoughts hold JSON-like drafts: so ``<think>`` blocks and fence lines go, and the LAST
object that parses wins. What the object must hold, and the repairs that keep a chatty
model's legal move, are the game's (Dou Dizhu's: :mod:`arena.games.ddz.prompts.extract`).
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

__all__ = ["last_json_object", "last_object", "quoted", "strip_fences", "strip_reasoning"]

#: How many complete ``{...}`` candidates are tried, the latest first: bounds the work on
#: pathological text (thousands of nested braces) while any real answer is among them.
_MAX_CANDIDATES: Final = 64
_QUOTE_LIMIT: Final = 60

_THINK_BLOCK: Final = re.compile(r"<(think|thinking)>.*?</\1>", re.IGNORECASE | re.DOTALL)
_THINK_CLOSE: Final = re.compile(r"</(?:think|thinking)>", re.IGNORECASE)
_THINK_OPEN: Final = re.compile(r"<(?:think|thinking)>", re.IGNORECASE)
_FENCE_LINE: Final = re.compile(r"^[ \t]*```[\w+-]*[ \t]*$", re.MULTILINE)


def strip_reasoning(text: str) -> str:
    """The text without its reasoning: ``<think>…</think>`` (or ``<thinking>``) blocks.

    A reasoning model's thoughts often hold JSON-like drafts that are not its answer. A
    close tag without an open one (some chat templates open the block themselves) drops
    everything before it; an open tag never closed (a model cut off while thinking) drops
    everything after it.
    """
    text = _THINK_BLOCK.sub("", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    opened = _THINK_OPEN.search(text)
    if opened:
        text = text[: opened.start()]
    return text


def strip_fences(text: str) -> str:
    """The text without Markdown code-fence lines (```` ```json ```` and ```` ``` ````)."""
    return _FENCE_LINE.sub("", text)


def _scan(text: str) -> tuple[list[tuple[int, int]], int | None]:
    """Every balanced ``{...}`` span (start, end) in order of its end, and where the last
    object still open at the end of the text starts (None when all are closed).

    Strings are tracked only inside braces: quotes in prose mean nothing to JSON.
    """
    spans: list[tuple[int, int]] = []
    opened: list[int] = []
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == "{":
            opened.append(index)
        elif not opened:
            continue
        elif char == '"':
            in_string = True
        elif char == "}":
            spans.append((opened.pop(), index + 1))
    return spans, (opened[-1] if opened else None)


def last_object(text: str) -> tuple[dict[str, Any] | None, int, int | None]:
    """The last complete JSON object, where it ends, and where an unclosed one starts
    (a game's reader tells a cut-off answer by it)."""
    spans, unclosed = _scan(text)
    for start, end in reversed(spans[-_MAX_CANDIDATES:]):
        try:
            value = json.loads(text[start:end])
        except (ValueError, RecursionError):
            continue
        if isinstance(value, dict):
            return value, end, unclosed
    return None, -1, unclosed


def last_json_object(text: str) -> dict[str, Any] | None:
    """The last JSON object in ``text`` that parses (an outer one over those inside it).

    Braces and quotes inside JSON strings are respected; a ``{...}`` that is not JSON (a
    set in prose, single quotes) is skipped, so the object before it may win.
    """
    return last_object(text)[0]


def quoted(text: str, *, end: bool = False) -> str:
    """A short quote of ``text`` (its start, or with ``end`` its end) for a detail."""
    shown = " ".join(text.split())
    if len(shown) > _QUOTE_LIMIT:
        shown = "…" + shown[-_QUOTE_LIMIT:] if end else shown[:_QUOTE_LIMIT] + "…"
    return repr(shown)
