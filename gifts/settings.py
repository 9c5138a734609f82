"""The ``[gifts]`` settings: which gift does what, and the queue's rules.

Each platform's gifts are mapped to effects by name or by id (``[gifts.map.<platform>]``,
``"小花花" = "CHEER"``), else by their kind (``comment = "CHEER"``); ``"*"`` maps for
every platform. A gift whose source already
names its effect (``arena gift send SWAP``) needs no mapping; a gift that maps to
nothing is rejected with the reason ``unmapped``. The queue's rules have the documented
defaults (:class:`gifts.queue.QueueSettings`); what a game's rules limit (Dou Dizhu's cap
on viewer doubles, ``[rules] max_gift_doubles``) the game's own gift operations refuse
(:attr:`arena.games.base.Game.gifts`), and a key a game moved out of ``[gifts]`` is moved
when the config is read (:attr:`arena.games.base.Game.migrate_config`).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    Strict,
    StrictBool,
    StrictInt,
    ValidationError,
)

from arena.errors import ConfigError
from gifts.events import GiftEffect, GiftEvent
from gifts.queue import QueueSettings

__all__ = ["DEFAULT_COOLDOWNS", "GiftSettings", "load_gift_settings"]

DEFAULT_COOLDOWNS: dict[GiftEffect, float] = dict(QueueSettings().effect_cooldown_s)
"""Seconds between two gifts of one effect, by default (strong ones also share a global
cooldown)."""

Seconds = Annotated[float, Field(ge=0, le=3600, allow_inf_nan=False)]
EffectName = Annotated[
    GiftEffect,
    Strict(False),
    BeforeValidator(lambda v: v.upper() if isinstance(v, str) and len(v) <= 20 else v),
]
"""An effect by its name, as TOML gives it ("SWAP", or "swap")."""


class GiftSettings(BaseModel):
    """``[gifts]`` (see the module)."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    enabled: StrictBool = False
    mode: Literal["show", "ranked"] = "show"
    """``ranked`` rejects every effect that can change a result (tournaments)."""
    default_table: Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{1,32}$")] | None = None
    """The table a gift without one goes to (None: the first table)."""
    queue_size: Annotated[StrictInt, Field(ge=1, le=100_000)] = 200
    ttl_s: Seconds = 60.0
    """How long a gift may wait for its window before it expires."""
    on_cooldown: Literal["wait", "reject"] = "wait"
    cooldowns: dict[EffectName, Seconds] = Field(default_factory=lambda: dict(DEFAULT_COOLDOWNS))
    """Per effect; effects left out keep their default."""
    viewer_cooldown_s: Seconds = 5.0
    strong_cooldown_s: Seconds = 30.0
    """One cooldown shared by the strong interventions (SWAP, ADD)."""
    last_cards: Annotated[StrictInt, Field(ge=0, le=20)] = 5
    """Strong interventions are refused while the target (or all the others) hold this
    many cards or fewer."""
    pick_target: Literal["message", "draw", "reject"] = "message"
    """How a gift that names no seat gets one, for the effects that need one: ``message``
    the player the viewer's message names, else a draw seeded by the match seed and the
    gift's id; ``draw`` always such a draw; ``reject`` none (rejected ``no_target``)."""
    map: dict[str, dict[str, EffectName]] = Field(default_factory=dict)
    """``{platform: {gift name or id: effect}}``; platform ``"*"`` for all. A gift that
    neither its name nor its id maps is mapped by its kind when that is a key
    (``comment``, ``super_chat``, ``cheer``, ``points``, ``gift``): Douyin's chat lines
    have no name to map."""

    def queue_settings(self) -> QueueSettings:
        """The queue's rules."""
        return QueueSettings(
            mode=self.mode,
            queue_size=self.queue_size,
            ttl_s=self.ttl_s,
            on_cooldown=self.on_cooldown,
            effect_cooldown_s={**DEFAULT_COOLDOWNS, **self.cooldowns},
            viewer_cooldown_s=self.viewer_cooldown_s,
            strong_cooldown_s=self.strong_cooldown_s,
            last_cards=self.last_cards,
        )

    def effect_for(self, gift: GiftEvent) -> GiftEffect | None:
        """The effect a gift has: its own, else its platform's mapping of its name or id,
        else the ``"*"`` mapping; None when nothing maps it."""
        if gift.effect is not None:
            return gift.effect
        for platform in (gift.platform, "*"):
            mapping = self.map.get(platform, {})
            for key in (gift.gift_name, gift.gift_id):
                if key and key in mapping:
                    return mapping[key]
        for platform in (gift.platform, "*"):  # then by what the viewer did
            by_kind = self.map.get(platform, {}).get(gift.kind.value)
            if by_kind is not None:
                return by_kind
        return None


def load_gift_settings(section: Mapping[str, Any], *, source: str) -> GiftSettings:
    """``[gifts]`` of a config file, validated: a ConfigError names the file and each bad
    key (``arena.toml: gifts.cooldowns.SWAP: ...``), an unknown key with the close one."""
    try:
        return GiftSettings.model_validate(dict(section))
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            loc = ".".join(str(p) for p in ("gifts", *error["loc"]) if p != "[key]")
            message = error["msg"]
            if error["type"] == "extra_forbidden" and len(error["loc"]) == 1:
                close = difflib.get_close_matches(str(error["loc"][0]), GiftSettings.model_fields)
                message = "unknown key" + (f"; did you mean {close[0]!r}?" if close else "")
            elif error["type"] in ("enum", "literal_error") or error["type"].endswith("_type"):
                message += f" (got {error.get('input')!r})"
            problems.append(f"{source}: {loc}: {message}")
        raise ConfigError("\n".join(problems)) from exc
