"""Viewers' gifts on the terminal: their banners, and the tallies that keep them readable.

A gift is no game's, so this serves the plain lines and the live board of every game.
An applied gift (``gift`` events, issue 11) is a banner naming the viewer, the effect
with its Chinese name, its target and a CHEER's message; a rejected or expired one is a
quieter line with its reason in words; a queued one is no line (a stream may send
thousands a second). Plain lines show a refusal per reason at most every
:data:`QUIET_EVERY_S` and count the rest (:class:`GiftTally`); the board counts the
queue and keeps the last banners (:class:`BoardGifts`). Every count counts units (an
event may settle ``×9800`` at once), and viewer text is rich ``Text``, never markup.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from rich.text import Text

from arena.events import Event
from arena.games.registry import DEFAULT_GAME
from arena.sinks.game_console import console_of

__all__ = [
    "GIFT_BANNERS",
    "QUIET_EVERY_S",
    "BoardGifts",
    "GiftTally",
    "gift_text",
    "gift_units",
]

_GIFT_NAMES: Final = {
    "CHEER": "加油",
    "EMOTE": "表情",
    "PEEK": "偷看牌",
    "SWAP": "换牌",
    "ADD": "加牌",
    "EFFECT": "全场特效",
    "RESHUFFLE": "重新洗牌",
}
"""The Chinese name of each effect every game may offer, as streams and docs/gifts.md
call it; a game's own are its console's (``GameConsole.gift_names``)."""

_GIFT_REASONS: Final = {
    "duplicate": "already received (a duplicate)",
    "ranked_mode": "not in a ranked match",
    "queue_full": "the gift queue is full",
    "cooldown": "on cooldown",
    "last_cards": "too near the end of a hand",
    "unmapped": "this gift does nothing here",
    "not_offered": "not offered in this game",
    "unknown_table": "no such table",
    "no_target": "no seat to aim it at",
    "match_over": "the match is over",
    "invalid": "not a valid gift",
    "error": "failed unexpectedly",
}
"""Why a gift did not apply, in words, by the reason's code (its part before any ``:``;
the rest is a detail, kept: ``no such table: t9``); a game's own reasons are its
console's (``GameConsole.gift_reasons``). Another reason is shown as it is (the rules'
own words)."""

_GIFT_REASON_KEYS: Final = 16
"""Distinct reasons counted per table before the rest count as ``other`` (the engine's
words could vary without end; the count must not)."""

GIFT_BANNERS: Final = 3
"""The last banners a table's board shows under its trick line."""

QUIET_EVERY_S: Final = 10.0
"""Plain lines show a rejected or expired gift at most this often per reason and table
(with a count of those not shown): 10,000 refused gifts must not bury the game."""


def _gift_name(effect: str, game: str) -> str:
    """An effect's Chinese name (the game's own effects' from its console), or ``""``."""
    return _GIFT_NAMES.get(effect) or console_of(game).gift_names.get(effect, "")


def _reason_words(status: str, reason: str | None, game: str) -> str:
    """``rejected: on cooldown``; a reason with a detail after its code keeps it
    (``unknown_table: t9`` is ``rejected: no such table: t9``); a reason without words
    is shown as it came."""
    if not reason:
        return "expired unused" if status == "expired" else status
    code, _, detail = reason.partition(":")
    code = code.strip()
    words = _GIFT_REASONS.get(code) or console_of(game).gift_reasons.get(code)
    if words is None:
        return f"{status}: {reason}"
    detail = detail.strip()
    return f"{status}: {words}: {detail}" if detail else f"{status}: {words}"


def _quiet_key(data: Mapping[str, Any]) -> str:
    """What a quiet line is counted under: ``rejected cooldown``, ``expired``."""
    reason = data.get("reason")
    key = str(reason).partition(":")[0].strip() if reason else ""
    return f"{data.get('status')} {key}".rstrip()


def _quiet_words(key: str, game: str) -> str:
    """A :func:`_quiet_key`'s words: ``rejected: on cooldown``, ``expired unused``."""
    status, _, code = key.partition(" ")
    if code == "other":
        return f"{status} for other reasons"
    return _reason_words(status, code or None, game)


def gift_units(data: Mapping[str, Any]) -> int:
    """How many units of one gift the event settles (``units``; 1 in older events)."""
    units = data.get("units", 1)
    return units if type(units) is int and units > 1 else 1


def gift_text(event: Event, repeats: int = 0, *, since: bool = False) -> Text | None:
    """A gift event's banner as rich ``Text`` (viewer words are never parsed as markup),
    or None for a queued gift (the board counts those instead).

    ``🎁 小明 (小花花): CHEER 加油 → Ann “加油！”`` when applied; a PEEK says who
    peeked at whom and never a card; ``×9800`` after the effect when the event settles
    that many units of the gift at once. A rejected or expired gift is one dim line with
    its reason in words; ``repeats`` adds how many more like it were not shown (``since``:
    since the last line like it, as plain lines say).
    """
    d = event.data
    status = d.get("status")
    if status == "queued" or status is None:
        return None
    applied = status == "applied"
    text = Text("🎁 " if applied else "· ", style="" if applied else "dim")
    text.append(str(d.get("viewer") or "a viewer"), style="bold magenta" if applied else "")
    if d.get("gift"):
        text.append(f" ({d['gift']})")
    effect = d.get("effect")
    target = event.player or (f"seat {d['target']}" if d.get("target") is not None else "")
    text.append(": ")
    if effect:
        text.append(f"{effect} {_gift_name(effect, event.game)}".rstrip(), style="yellow" * applied)
    else:
        text.append("no effect")
    units = gift_units(d)
    if units > 1:
        text.append(f" ×{units}")
    if target:
        if applied and effect == "PEEK":
            text.append(f", peeked at {target}'s hand")
        else:
            text.append(" → ")
            text.append(target, style="bold" * applied)
    if applied and effect == "CHEER" and d.get("message"):
        text.append(" “")
        text.append(str(d["message"]), style="italic")
        text.append("”")
    if not applied:
        text.append(f" {_reason_words(str(status), d.get('reason'), event.game)}")
    if d.get("test"):
        text.append(" (test)")
    if repeats:
        text.append(f" (+{repeats:,} more like it{' since' if since else ''})")
    return text


# ─── plain lines: one table's gifts ─────────────────────────────────────────────────────


@dataclass
class GiftTally:
    """One table's ended gifts as plain lines count them: applied, and rejected or
    expired by reason, since the last summary; and per reason when its last line was
    shown, so that a reason's refusals are a line every :data:`QUIET_EVERY_S`."""

    applied: int = 0
    quiet: dict[str, int] = field(default_factory=dict)
    """Rejected and expired gifts (their units) by :func:`_quiet_key`, since the last
    gift summary."""
    quiet_shown: dict[str, tuple[float, int]] = field(default_factory=dict)
    """Per quiet key: when its last line was shown, and how many were not shown since."""
    game: str = DEFAULT_GAME
    """The table's game, as its gift events say (its own refusals are its words)."""

    def count(self, event: Event) -> tuple[str, int]:
        """Count an ended gift's units for the summary: the key it is counted under
        (empty when applied) and its units."""
        units = gift_units(event.data)
        self.game = event.game
        if event.data.get("status") == "applied":
            self.applied += units
            return "", units
        key = _quiet_key(event.data)
        quiet = self.quiet
        if key not in quiet and len(quiet) >= _GIFT_REASON_KEYS:
            key = f"{event.data.get('status')} other"
        quiet[key] = quiet.get(key, 0) + units
        return key, units

    def line(
        self, event: Event, key: str, units: int, clock: Callable[[], float] | None
    ) -> str | None:
        """A counted gift's line (``key`` and ``units`` as :meth:`count` said): an
        applied gift's banner; a rejected or expired one's at most every
        :data:`QUIET_EVERY_S` per reason (only the first without a clock), saying how
        many like it were not shown since the last; None when not shown."""
        held = 0
        if key:
            now = clock() if clock is not None else 0.0
            shown_at, held = self.quiet_shown.get(key, (-math.inf, 0))
            if shown_at > -math.inf and (clock is None or now - shown_at < QUIET_EVERY_S):
                self.quiet_shown[key] = (shown_at, held + units)
                return None
            self.quiet_shown[key] = (now, 0)
        text = gift_text(event, held, since=True)
        return f"[{event.table} r{event.round}] {text.plain}" if text is not None else None

    def hidden_lines(self) -> list[str]:
        """``· 20 more expired unused, not shown``: one line per reason with gifts not
        shown since its last line, which then count from nothing again."""
        lines = []
        for key, (shown_at, held) in list(self.quiet_shown.items()):
            if held:
                lines.append(f"· {held:,} more {_quiet_words(key, self.game)}, not shown")
                self.quiet_shown[key] = (shown_at, 0)
        return lines

    def end(self, tag: str) -> list[str]:
        """A match's (or a table's) last gift lines, each after ``tag``: the hidden ones
        per reason, then the summary; then counting from nothing again."""
        lines = [f"{tag} {line}" for line in self.hidden_lines()]
        summary = self.summary()
        if summary:
            lines.append(f"{tag} {summary}")
        return lines

    def summary(self) -> str | None:
        """``gifts: 12 applied, 9,876 rejected (9,000 queue full, 876 cooldown), 4
        expired``, then counting from nothing again; None when no gift ended here."""
        if not self.applied and not self.quiet:
            return None
        rejected = {k[9:] or "other": n for k, n in self.quiet.items() if k[:8] == "rejected"}
        parts = [f"{self.applied:,} applied"]
        if rejected:
            each = ", ".join(
                f"{n:,} {k.replace('_', ' ')}"
                for k, n in sorted(rejected.items(), key=lambda kn: -kn[1])
            )
            parts.append(f"{sum(rejected.values()):,} rejected ({each})")
        expired = sum(n for k, n in self.quiet.items() if k[:7] == "expired")
        if expired:
            parts.append(f"{expired:,} expired")
        self.applied, self.quiet, self.quiet_shown = 0, {}, {}
        return f"gifts: {', '.join(parts)}"


# ─── the live board: one table's gifts ──────────────────────────────────────────────────


@dataclass
class BoardGifts:
    """One table's gifts as its board shows them: the queue's length, this match's
    ended gifts by status, and the last banners."""

    seen: bool = False
    """A gift came to this table: the board has a gift line (never before, so a stream
    without gifts keeps the board it had)."""
    waiting: int = 0
    """Gifts waiting in the table's queue, as the latest gift event said."""
    ended: dict[str, int] = field(default_factory=dict)
    """This match's gifts by status (``applied``, ``rejected``, ``expired``)."""
    banners: list[tuple[Event, int]] = field(default_factory=list)
    """The last :data:`GIFT_BANNERS` ended gifts, each with how many like it followed (a
    run of refusals for one reason is one banner); made into text only when drawn."""

    def new_match(self) -> None:
        """A new match: its own counts and banners (the queue stays as it is)."""
        self.ended, self.banners = {}, []

    def add(self, event: Event) -> None:
        """A gift: the queue's length, and an ended gift's banner (counted); a refusal
        like the banner before it only counts on that one."""
        d = event.data
        self.seen = True
        waiting = d.get("waiting")
        if isinstance(waiting, int):
            self.waiting = waiting
        status = d.get("status")
        if status == "queued":
            return
        self.ended[str(status)] = self.ended.get(str(status), 0) + gift_units(d)
        banners = self.banners
        if status != "applied" and banners:
            last, repeats = banners[-1]
            if last.data.get("status") != "applied" and _quiet_key(last.data) == _quiet_key(d):
                banners[-1] = (event, repeats + gift_units(last.data))
                return
        banners.append((event, 0))
        if len(banners) > GIFT_BANNERS:
            del banners[0]

    def height(self) -> int:
        """Lines the board gives its gifts: none until one comes, then the queue's line
        and the banners."""
        return 1 + len(self.banners) if self.seen else 0

    def texts(self, lines: int) -> list[Text]:
        """``gifts: 3 waiting · 12 applied · 40 rejected``, then the last banners:
        ``lines`` lines in all (the board cuts each to its width)."""
        head = Text("gifts: ", style="magenta")
        head.append(f"{self.waiting:,} waiting", style="bold" if self.waiting else "")
        for status in ("applied", "rejected", "expired"):
            if self.ended.get(status):
                head.append(f" · {self.ended[status]:,} {status}")
        texts = [head]
        banners = self.banners[max(len(self.banners) - lines + 1, 0) :] if lines > 1 else []
        for event, repeats in banners:
            text = gift_text(event, repeats)
            if text is not None:
                texts.append(text)
        return texts
