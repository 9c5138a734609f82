"""Dou Dizhu's old config keys in their new place (its :attr:`Game.migrate_config`).

The cap on viewer 翻倍 per round was ``[gifts] max_doubles_per_round``; it is a rule of
the round (the engine applies it), ``[rules] max_gift_doubles``. A config or tournament
file may give either name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from arena.errors import ConfigError

__all__ = ["GIFT_DOUBLES_KEY", "migrate_config"]

GIFT_DOUBLES_KEY: Final = "max_doubles_per_round"
"""``[gifts]``'s name for the cap on viewer 翻倍 per round, which the rules hold."""


def migrate_config(data: Mapping[str, Any], source: str) -> dict[str, Any]:
    """``[gifts] max_doubles_per_round`` moved to ``[rules] max_gift_doubles``: either
    name sets it. Both given and different is an error naming both (and ``source``)."""
    gifts = data.get("gifts")
    if not isinstance(gifts, Mapping) or GIFT_DOUBLES_KEY not in gifts:
        return dict(data)
    value = gifts[GIFT_DOUBLES_KEY]
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 20:
        raise ConfigError(
            f"{source}: gifts.{GIFT_DOUBLES_KEY}: give a whole number from 0 to 20 (got {value!r})"
        )
    rules = data.get("rules")
    rules = dict(rules) if isinstance(rules, Mapping) else {}
    if rules.get("max_gift_doubles", value) != value:
        raise ConfigError(
            f"{source}: gifts.{GIFT_DOUBLES_KEY} = {value} and rules.max_gift_doubles = "
            f"{rules['max_gift_doubles']!r} disagree: they are one setting, give one"
        )
    rest = {key: item for key, item in gifts.items() if key != GIFT_DOUBLES_KEY}
    return {**data, "gifts": rest, "rules": {**rules, "max_gift_doubles": value}}
