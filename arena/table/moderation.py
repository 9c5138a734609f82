"""Moderation at the table: every agent's ``comment`` and ``strategy_hint`` pass here
before any event carries them to viewers.

A blocklist (中文 and English, shipped with the package, extended or replaced by the
``[moderation]`` config section) is one precompiled regular expression: a clean text,
what nearly every comment is, costs one search. Chinese words match anywhere in the
text; Latin words match as whole words, case-insensitively ("ass" does not hide
"class"). Each matched word is replaced by ``replacement``.

A ``hook`` (``"module:function"``) can hand every text on to a moderation service:
``hook(text, *, seat, player) -> str | None``, sync (run in a thread: a blocking call
must not stall the tables) or async, gets the text as the blocklist left it and returns
the text to show instead, or None to keep it. A hook that
raises or takes longer than :data:`HOOK_TIMEOUT_S` is logged, and the blocklist's result
stands. The text itself is never logged.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from arena.errors import ConfigError, error_text
from arena.logs import get_logger

__all__ = [
    "HOOK_TIMEOUT_S",
    "ModerationHook",
    "ModerationSettings",
    "Moderator",
    "build_moderator",
    "default_moderator",
    "default_words",
    "load_hook",
]

log = get_logger(__name__)

HOOK_TIMEOUT_S: Final = 1.0
"""How long a moderation hook may take before the blocklist's result is used."""

ModerationHook = Callable[..., Any]
"""``hook(text, *, seat, player) -> str | None`` (or an awaitable of it): the text to
show instead, or None to keep it."""

_BLOCKLISTS: Final = ("blocklist_zh.txt", "blocklist_en.txt")
_LATIN: Final = re.compile(r"[A-Za-z]")
_HERE: Final = Path(__file__).parent


class ModerationSettings(BaseModel):
    """The ``[moderation]`` config section."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    enabled: bool = True
    """False: texts reach viewers as the agents wrote them."""
    blocklist: list[str] = Field(default_factory=list)
    """Words to filter besides the shipped lists (or instead: ``replace_defaults``)."""
    replace_defaults: bool = False
    """Use only ``blocklist``, not the shipped 中文 and English lists."""
    replacement: str = Field(default="***", max_length=20)
    """What each matched word becomes."""
    hook: str | None = Field(default=None, pattern=r"^[\w.]+:[\w]+$")
    """``"module:function"`` of a moderation service: ``(text, *, seat, player) -> str | None``."""

    @field_validator("blocklist")
    @classmethod
    def _words(cls, words: list[str]) -> list[str]:
        for word in words:
            if not word.strip():
                raise ValueError("an empty word would match every text")
        return words


class Moderator:
    """Filters texts for viewers: a blocklist, then an optional hook; counts nothing itself
    (the table counts what it filtered per seat)."""

    __slots__ = ("_hook", "_is_async", "_pattern", "_quick", "_replacement", "hook_timeout_s")

    def __init__(
        self,
        words: Iterable[str] = (),
        *,
        replacement: str = "***",
        hook: ModerationHook | None = None,
        hook_timeout_s: float = HOOK_TIMEOUT_S,
    ) -> None:
        patterns = _compile(words)
        self._quick: re.Pattern[str] | None = patterns[0]
        self._pattern: re.Pattern[str] | None = patterns[1]
        self._replacement = replacement
        self._hook = hook
        self._is_async = hook is not None and inspect.iscoroutinefunction(hook)
        self.hook_timeout_s = hook_timeout_s

    @property
    def active(self) -> bool:
        """Whether any text could ever change: False for no words and no hook."""
        return self._quick is not None or self._hook is not None

    @property
    def synchronous(self) -> bool:
        """No hook: :meth:`filter` says all, and nothing awaits."""
        return self._hook is None

    def filter(self, text: str) -> str:
        """The text with every blocked word replaced (the same object when clean).

        A clean text costs one case-sensitive search of its lower-cased copy, which the
        regex engine runs fast (an ignore-case search of the same words took 20x as
        long); only a text where some word appears, as a word or inside one, pays for
        the careful pattern (case-insensitive, with the word boundaries of Latin words).
        """
        quick = self._quick
        if quick is None:
            return text
        lowered = text.lower()
        if quick.search(lowered) is None and len(lowered) == len(text):
            return text
        assert self._pattern is not None
        return self._pattern.sub(self._replacement, text)

    async def moderate(self, text: str, *, seat: int, player: str) -> str:
        """The text as viewers may see it: the blocklist's result, then the hook's."""
        filtered = self.filter(text)
        hook = self._hook
        if hook is None:
            return filtered
        try:
            async with asyncio.timeout(self.hook_timeout_s):
                verdict: object
                if self._is_async:
                    verdict = await hook(filtered, seat=seat, player=player)
                else:  # a blocking call to a service must not stall every table here
                    verdict = await asyncio.to_thread(hook, filtered, seat=seat, player=player)
                    if inspect.isawaitable(verdict):
                        verdict = await verdict
        except TimeoutError:
            log.warning(
                "moderation_hook_timed_out", seat=seat, player=player, after_s=self.hook_timeout_s
            )
            return filtered
        except Exception as exc:
            log.warning("moderation_hook_failed", seat=seat, player=player, error=error_text(exc))
            return filtered
        if verdict is None:
            return filtered
        if not isinstance(verdict, str):
            log.warning(
                "moderation_hook_failed",
                seat=seat,
                player=player,
                error=f"returned a {type(verdict).__name__}, not text or None",
            )
            return filtered
        return verdict


def _compile(
    words: Iterable[str],
) -> tuple[re.Pattern[str], re.Pattern[str]] | tuple[None, None]:
    """Two patterns for the words, longest first (so 操你妈 wins over 操你): a quick one
    (lower case, no word boundaries) that finds every candidate, and the careful one."""
    unique = sorted({w.strip() for w in words if w.strip()}, key=lambda w: (-len(w), w))
    if not unique:
        return None, None
    parts = []
    for word in unique:
        escaped = re.escape(word)
        if _LATIN.search(word):
            escaped = rf"(?<![A-Za-z]){escaped}(?![A-Za-z])"
        parts.append(escaped)
    lowered = sorted({w.lower() for w in unique}, key=lambda w: (-len(w), w))
    quick = re.compile("|".join(re.escape(w) for w in lowered))
    return quick, re.compile("|".join(parts), re.IGNORECASE)


@cache
def default_words() -> tuple[str, ...]:
    """The shipped blocklists, 中文 and English (data files in this package)."""
    words: list[str] = []
    for name in _BLOCKLISTS:
        text = (_HERE / name).read_text(encoding="utf-8")
        words.extend(
            line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")
        )
    return tuple(words)


def default_moderator() -> Moderator:
    """The shipped blocklists, no hook: what a table uses unless told otherwise."""
    return _DEFAULT


_DEFAULT: Final = Moderator(default_words())
"""Built at import (about 1 ms): a program that freezes its start-up objects out of
garbage collection (``arena play``, the benchmarks) then never scans these."""
_DEFAULT_SETTINGS: Final = ModerationSettings()


def build_moderator(settings: ModerationSettings) -> Moderator:
    """The moderator a ``[moderation]`` section describes (the shipped one, built once,
    when it says nothing); raises ConfigError for a hook that cannot be loaded."""
    if settings == _DEFAULT_SETTINGS:
        return _DEFAULT
    if not settings.enabled:
        return Moderator()
    words = list(settings.blocklist)
    if not settings.replace_defaults:
        words.extend(default_words())
    hook = load_hook(settings.hook) if settings.hook else None
    return Moderator(words, replacement=settings.replacement, hook=hook)


def load_hook(path: str) -> ModerationHook:
    """The callable a ``"module:function"`` names (ConfigError, naming the key, if none)."""
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise ConfigError(
            f"moderation.hook: cannot import {module_name!r}: {error_text(exc)}"
        ) from exc
    found: Any = getattr(module, attribute, None)
    if found is None or not callable(found):
        raise ConfigError(f"moderation.hook: {module_name} has no function {attribute!r}")
    hook: ModerationHook = found
    return hook
