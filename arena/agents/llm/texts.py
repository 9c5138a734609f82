"""What a model seat sends, as texts: a :class:`Prompt` and the estimate of its tokens.

A game builds its prompts (Dou Dizhu's: :mod:`arena.games.ddz.prompts`); the seat sends
them, and sizes budgets and estimated usage with :func:`estimate_tokens`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Prompt", "char_counts", "estimate_tokens"]


def estimate_tokens(text: str) -> int:
    """A rough token count: one per non-ASCII character, one per four ASCII characters.

    Chinese characters are about one token each in the common tokenizers, suit symbols
    (♠♥♦♣) one or two; English and JSON run near four characters a token. An estimate
    for sizing prompts and budgets, not a bill: providers report the real usage.
    """
    ascii_chars, other = char_counts(text)
    return math.ceil(ascii_chars / 4) + other


def char_counts(text: str) -> tuple[int, int]:
    """(ASCII characters, other characters) in ``text``: what :func:`estimate_tokens`
    counts, for a prompt builder that adds texts up before joining them."""
    ascii_chars = len(text.encode("ascii", "ignore"))
    return ascii_chars, len(text) - ascii_chars


@dataclass(frozen=True, slots=True)
class Prompt:
    """What a chat API needs: a system text and a user text."""

    system: str
    user: str

    @property
    def chars(self) -> int:
        """Characters in both texts."""
        return len(self.system) + len(self.user)

    @property
    def tokens(self) -> int:
        """Estimated tokens in both texts (:func:`estimate_tokens`)."""
        return estimate_tokens(self.system) + estimate_tokens(self.user)
