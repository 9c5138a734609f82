"""How Tractor's prompts write things, in each language: the template files and their
phrases, and the pieces every prompt is made of: suit groups, a hand by group, the
trump and its order in the round's cards, who is partner or opponent, and what the seat
must do (a request's ``required``: the engine's own words in English, the same
requirement said from the request's fields in Chinese).

The wording lives in ``templates/<language>/`` (``phrases.json`` and one file per
prompt), read once with ``importlib.resources`` and filled with :class:`string.Template`.
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from string import Template
from typing import Literal, TypeAlias

from arena.errors import ConfigError
from arena.games.tractor.engine import TRUMP, card_ids
from arena.games.tractor.engine.cards import SUIT_SYMBOLS
from arena.games.tractor.messages import BuryRequest, DeclareRequest, FollowShape, PlayRequest
from arena.games.tractor.prompts.facts import Grouped, faces

__all__ = [
    "LANGUAGES",
    "AskRequest",
    "Language",
    "count_text",
    "fill",
    "group_name",
    "hand_lines",
    "phrase",
    "phrases",
    "required_text",
    "side_word",
    "suit_name",
    "template_text",
    "trump_text",
]

Language: TypeAlias = Literal["zh", "en"]
LANGUAGES: tuple[Language, ...] = ("zh", "en")
AskRequest: TypeAlias = DeclareRequest | BuryRequest | PlayRequest
"""The requests a model seat answers at a Tractor table."""


@cache
def template_text(language: Language, name: str) -> str:
    """The text of one shipped template file (``templates/<language>/<name>``)."""
    if language not in LANGUAGES:
        raise ConfigError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    resource = files("arena.games.tractor.prompts").joinpath("templates", language, name)
    return resource.read_text(encoding="utf-8").rstrip("\n")


@cache
def phrases(language: Language) -> dict[str, str]:
    """The language's phrases (``phrases.json``), by key."""
    loaded: dict[str, str] = json.loads(template_text(language, "phrases.json"))
    return loaded


def fill(language: Language, name: str, **fields: object) -> str:
    """A template file filled in."""
    return Template(template_text(language, name)).substitute(fields)


def phrase(language: Language, key: str, **fields: object) -> str:
    """A phrase filled in."""
    return Template(phrases(language)[key]).substitute(fields)


def group_name(group: int, language: Language, *, declaring: bool = False) -> str:
    """``♠``, ``trumps`` / ``主牌``; while trump is declared, ``level cards and jokers``
    (the group a no-trump context puts them in: what a declaration is made with)."""
    if group != TRUMP:
        return SUIT_SYMBOLS[group]
    return phrases(language)["group_level" if declaring else "group_trump"]


def suit_name(letter: str | None) -> str | None:
    """A wire suit letter as its symbol (``H``: ``♥``); None stays None (no trump)."""
    return None if letter is None else SUIT_SYMBOLS["SHDC".index(letter)]


def hand_lines(hand: Grouped, language: Language, *, declaring: bool = False) -> str:
    """A hand by suit group, a line a group: ``- ♠ (3): ♠A ♠A ♠5``."""
    return "\n".join(
        phrase(
            language,
            "hand_line",
            group=group_name(g, language, declaring=declaring),
            count=len(cards),
            cards=faces(cards),
        )
        for g, cards in hand
    )


def trump_text(level: str, trump_suit: str | None, language: Language) -> str:
    """``Level 5, ♥ trump. Trumps high to low: 大王 > 小王 > ♥5 > ♠5 = ♦5 = ♣5 > then ♥
    from A down.``: what is trump, in this round's cards."""
    suit = suit_name(trump_suit)
    if suit is None:
        head = phrase(language, "trump_none", level=level)
        order = ["大王", "小王", " = ".join(s + level for s in SUIT_SYMBOLS)]
    else:
        head = phrase(language, "trump_suit", level=level, suit=suit)
        others = " = ".join(s + level for s in SUIT_SYMBOLS if s != suit)
        down = phrase(language, "trump_suit_down", suit=suit)
        order = ["大王", "小王", suit + level, others, down]
    order_text = phrase(language, "trump_order", order=" > ".join(order))
    return phrase(language, "trump_line", head=head, order=order_text)


def side_word(side: str, language: Language) -> str:
    """``you``, ``partner`` or ``opponent`` in ``language``."""
    return phrases(language)[f"side_{side}"]


def count_text(count: int, language: Language) -> str:
    """``1 card``, ``3 cards``."""
    if count == 1:
        return phrases(language)["one_card"]
    return phrase(language, "n_cards", count=count)


def _follow_text(shape: FollowShape, language: Language) -> str:
    """A FollowShape in words: the engine's ``FollowRule.describe()``, in ``language``."""
    where = group_name(
        TRUMP if shape.suit_group == "TRUMP" else "SHDC".index(shape.suit_group), language
    )
    if shape.void:
        return phrase(language, "need_void", group=where, count=shape.count)
    if shape.short:
        if shape.held == shape.count:
            return phrase(language, "need_all", group=where, held=shape.held)
        rest = shape.count - shape.held
        return phrase(language, "need_all_then", group=where, held=shape.held, rest=rest)
    parts = [phrase(language, "need_tractor", pairs=t) for t in shape.tractors]
    loose = shape.pairs - sum(shape.tractors)
    more = "more_" if parts else ""
    if loose == 1:
        parts.append(phrase(language, f"need_{more}pair"))
    elif loose > 1:
        parts.append(phrase(language, f"need_{more}pairs", count=loose))
    text = phrase(language, "need_group", group=where, count=shape.count)
    if parts:
        shape_words = phrases(language)["need_and"].join(parts)
        text += phrase(language, "need_including", shape=shape_words)
    return text


def required_text(request: AskRequest, language: Language) -> str:
    """What the request asks: its own ``required`` in English (the engine's words); said
    again from the request's fields in another language."""
    if language == "en" and request.required:
        return request.required
    if isinstance(request, PlayRequest):
        if request.follow is not None:
            return _follow_text(request.follow, language)
        return phrases(language)["need_lead"]
    if isinstance(request, BuryRequest):
        return phrase(language, "need_bury", count=request.count)
    candidate = request.candidate
    floor = ""
    if candidate is not None:
        floor = phrase(language, "need_floor", cards=faces(card_ids(candidate.cards)))
    return phrase(language, "need_declare", level=request.level, floor=floor)
