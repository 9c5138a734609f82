"""A model seat's reasoning, cut to what a stream can show: its last sentences, no secrets.

The delayed spectator feed shows each model decision's strategy hint and a summary of
the reasoning behind it (a ``"thought"`` item, :mod:`arena.sinks.spectator`). The whole
reasoning stays in the replay: it runs to thousands of characters, and a box beside a
seat holds a few lines.

Why the end: a reasoning model reads its hand and the table first (restating the
prompt) and decides last, so its closing sentences say why it played what it played.
The summary starts at a sentence's beginning where one is near, so that it reads as
words, not as a cut.

Secrets go first, on the whole text: a model may echo a key it was shown (or one
shaped like a key) back in its reasoning, and a key cut in half by the summary could no
longer be recognised (:mod:`arena.masking`).
"""

from __future__ import annotations

import re
from typing import Final

from arena.masking import mask_incoming, mask_keys

__all__ = ["THOUGHT_CHARS", "reasoning_summary", "redacted"]

THOUGHT_CHARS: Final = 280
"""A summary's length at most (plus its leading "…"): four or five lines of the box,
a tweet's worth, about two sentences in English and more in 中文."""

_SENTENCE_END: Final = re.compile(r"[.!?。！？；;…]+[\"'”’)）]*\s*")
_ELLIPSIS: Final = "…"


def redacted(text: str) -> str:
    """``text`` without any registered secret (in any written form, escapes included) or
    anything shaped like a key (``sk-...``)."""
    return mask_keys(mask_incoming(text))


def reasoning_summary(reasoning: object, limit: int = THOUGHT_CHARS) -> str | None:
    """The last ``limit`` characters or so of ``reasoning``, secrets redacted and white
    space folded, from a sentence's start where one is in the first half of the cut
    (else from a word's start), with a leading "…" when cut; None for no text."""
    if not isinstance(reasoning, str):
        return None
    text = " ".join(redacted(reasoning).split())
    if not text:
        return None
    if len(text) <= limit:
        return text
    tail = text[-limit:]
    start = 0
    first = _SENTENCE_END.search(tail)
    if first is not None and first.end() <= limit // 2:
        start = first.end()
    elif not text[-limit - 1].isspace():
        space = tail.find(" ", 0, 40)
        start = space + 1 if space >= 0 else 0
    return _ELLIPSIS + tail[start:].lstrip()
