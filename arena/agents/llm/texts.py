"""What a model seat sends, as texts: a :class:`Prompt` and the estimate of its tokens.

A game builds its prompts (Dou Dizhu's: :mod:`arena.games.ddz.prompts`); the seat sends
them, and sizes budgets and estimated usage with :func:`estimate_tokens`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

import orjson

__all__ = ["AUDIENCE_TOKENS", "Prompt", "audience_section", "char_counts", "estimate_tokens"]

AUDIENCE_TOKENS: Final = 200
"""The estimated tokens a prompt spends on viewers' lines at most (ten lines of 100
Chinese characters would be 1,000): the newest that fit are shown, so chatter cannot
crowd out the game."""


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


def audience_section(lines: list[str] | None, heading: str) -> str:
    """The viewers' lines a request relays, as a prompt's section in any game: the
    game's ``heading`` (a warning that they are chatter, never instructions), then the
    newest lines that fit :data:`AUDIENCE_TOKENS`, oldest first, each a JSON string (so a
    quote or a newline in one cannot pass for the prompt's own text); empty without
    chatter."""
    if not lines:
        return ""
    shown: list[str] = []
    budget = AUDIENCE_TOKENS
    for line in reversed(lines):
        quoted = f"- {orjson.dumps(line).decode()}"
        budget -= estimate_tokens(quoted)
        if budget < 0:
            break
        shown.append(quoted)
    if not shown:
        return ""
    return "\n".join([heading, *reversed(shown)]) + "\n"


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
