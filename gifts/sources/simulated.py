"""A simulated audience: seeded, plausible gifts for demos, rehearsals and load.

A few dozen made-up viewers (Chinese and English names, some giving anonymously) send
gifts at random moments, an exponential gap of mean ``1 / rate_per_s`` seconds before
each. Most gifts are harmless (cheers, emotes, effects), fewer touch the cards or the
stake (PEEK, DOUBLE, SWAP, ADD), and the between-rounds ones are rare. A cheer often
names a player, as real chat does ("加油 Alpha!"), which is what the targeting reads.
Everything is drawn from ``random.Random(seed)``: the same seed gives the same gifts,
gaps included, so a demo can be repeated exactly. The audience sends only the effects
the table's game offers (``offered``: :attr:`arena.games.base.Game.gift_effects`), in
the weights below (Dou Dizhu offers them all).
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Final

from gifts.events import GiftEffect, GiftEvent, GiftKind
from gifts.sources.inbox import Inbox

__all__ = ["EFFECT_WEIGHTS", "simulate_audience", "simulated_gifts"]

PLATFORM: Final = "simulated"
EFFECT_WEIGHTS: Final[dict[GiftEffect, int]] = {
    GiftEffect.CHEER: 30,
    GiftEffect.EMOTE: 22,
    GiftEffect.EFFECT: 18,
    GiftEffect.PEEK: 7,
    GiftEffect.DOUBLE: 7,
    GiftEffect.SWAP: 6,
    GiftEffect.ADD: 6,
    GiftEffect.ROLE_SWAP: 2,
    GiftEffect.RESHUFFLE: 2,
}
"""How often each effect is drawn, relative to the others."""

_GIFTS: Final[dict[GiftEffect, tuple[tuple[str, int], ...]]] = {
    GiftEffect.CHEER: (("小花花", 1), ("Heart", 1), ("加油棒", 10)),
    GiftEffect.EMOTE: (("比心", 5), ("Wave", 5), ("666", 6)),
    GiftEffect.EFFECT: (("烟花", 100), ("Fireworks", 100), ("彩虹", 50)),
    GiftEffect.PEEK: (("望远镜", 200), ("Spyglass", 200)),
    GiftEffect.DOUBLE: (("火箭", 500), ("Rocket", 500)),
    GiftEffect.SWAP: (("魔法棒", 300), ("Magic Wand", 300)),
    GiftEffect.ADD: (("礼物盒", 300), ("Gift Box", 300)),
    GiftEffect.ROLE_SWAP: (("皇冠", 1000), ("Crown", 1000)),
    GiftEffect.RESHUFFLE: (("洗牌机", 800), ("Shuffler", 800)),
}
"""Each effect's gift names, with what one costs in coins."""
_CHINESE: Final = ("小明", "阿强", "牌神", "老王", "春天的风", "斗地主达人", "小鱼儿", "明月")
_ENGLISH: Final = ("Ava", "Ben", "CardShark", "Mia", "NightOwl", "Leo", "Zoe", "LuckyDraw")
_CHEERS: Final = ("加油 {}!", "Go {}!", "{} 必胜", "{} you got this", "冲啊 {}")
_PLAIN_CHEERS: Final = ("加油!", "好牌!", "nice play", "", "")
_AIMED: Final = ("给 {}", "for {}", "{} 接着")


def _viewers(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """``count`` viewers: (viewer id, display name), half Chinese names, half English."""
    viewers = []
    for index in range(count):
        names = _CHINESE if index % 2 == 0 else _ENGLISH
        suffix = "" if rng.random() < 0.5 else str(rng.randint(1, 999))
        viewers.append((f"sim-viewer-{index + 1}", f"{rng.choice(names)}{suffix}"))
    return viewers


def _message(rng: random.Random, effect: GiftEffect, players: Sequence[str]) -> str:
    if effect is GiftEffect.CHEER:
        if players and rng.random() < 0.6:
            return rng.choice(_CHEERS).format(rng.choice(players))
        return rng.choice(_PLAIN_CHEERS)
    if (
        effect in (GiftEffect.SWAP, GiftEffect.ADD, GiftEffect.PEEK)
        and players
        and rng.random() < 0.4
    ):
        return rng.choice(_AIMED).format(rng.choice(players))
    return ""


def simulated_gifts(
    seed: int,
    players: Sequence[str],
    *,
    viewers: int = 24,
    offered: Collection[str] | None = None,
) -> Callable[[], GiftEvent]:
    """A function giving the audience's next gift each call, from ``seed`` alone: an
    effect among those ``offered`` (None: all)."""
    rng = random.Random(seed)
    audience = _viewers(rng, viewers)
    drawn = {e: w for e, w in EFFECT_WEIGHTS.items() if offered is None or e in offered}
    if not drawn:
        raise ValueError("the game offers none of the effects a simulated audience sends")
    effects, weights = list(drawn), list(drawn.values())
    sent = 0

    def next_gift() -> GiftEvent:
        nonlocal sent
        sent += 1
        viewer_id, name = rng.choice(audience)
        effect = rng.choices(effects, weights)[0]
        gift_name, price = rng.choice(_GIFTS[effect])
        count = 1 if rng.random() < 0.85 else rng.randint(2, 5)
        return GiftEvent(
            event_id=f"sim-{sent}",
            platform=PLATFORM,
            kind=GiftKind.GIFT,
            viewer_id=viewer_id,
            display_name=name,
            anonymous=rng.random() < 0.05,
            gift_name=gift_name,
            count=count,
            value=count * price,
            currency="coins",
            message=_message(rng, effect, players),
            effect=effect,
        )

    return next_gift


async def simulate_audience(
    inbox: Inbox,
    *,
    seed: int,
    players: Sequence[str],
    rate_per_s: float = 0.5,
    limit: int | None = None,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
    offered: Collection[str] | None = None,
) -> int:
    """Send ``limit`` gifts (forever when None) to ``inbox``, each after its random gap,
    and return how many were sent. ``players`` are the names cheers may call out;
    ``offered`` the effects the table's game offers (None: all)."""
    if not (rate_per_s > 0 and math.isfinite(rate_per_s)):
        raise ValueError(f"rate_per_s must be a positive number, not {rate_per_s!r}")
    gaps = random.Random(f"gaps-{seed}")  # apart from the gifts': a rate changes no gift
    next_gift = simulated_gifts(seed, players, offered=offered)
    sent = 0
    while limit is None or sent < limit:
        await sleep(gaps.expovariate(rate_per_s))
        await inbox.accept(next_gift())
        sent += 1
    return sent
