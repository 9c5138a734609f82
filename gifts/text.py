"""Viewer text made safe to show and to quote: one line, no control characters, capped.

Names, gift names and messages come from anyone watching. Before they reach the
terminal, an overlay or an agent's prompt they lose what could fake a line break, hide
text or reverse it (control and format characters, bidirectional overrides), their runs
of white space become one space, and they are cut to a length, an ellipsis marking the
cut. A secret the arena knows in them is masked first, before a cut could hide half of
it (:mod:`arena.masking`). Rendering them as text, never as markup, is still each
display's job.
"""

from __future__ import annotations

import unicodedata
from typing import Final

from arena.masking import mask

__all__ = ["clean_viewer_text"]

_KEPT_FORMAT: Final = frozenset({"\u200d"})
"""Format characters kept: the zero-width joiner builds emoji sequences (👨‍👩‍👧)."""


def clean_viewer_text(text: str, cap: int) -> str:
    """``text`` as one clean line of at most ``cap`` characters (see the module)."""
    text = mask(text)
    if len(text) <= cap and text.isprintable() and "  " not in text and text == text.strip():
        return text  # already clean (most are): no character by character look
    kept = []
    for char in text:
        category = unicodedata.category(char)
        if char.isspace():
            kept.append(" ")
        elif category in ("Cc", "Cs", "Co", "Cn") or (
            category == "Cf" and char not in _KEPT_FORMAT
        ):
            continue
        else:
            kept.append(char)
    line = " ".join("".join(kept).split())
    return line if len(line) <= cap else line[: cap - 1].rstrip() + "…"
