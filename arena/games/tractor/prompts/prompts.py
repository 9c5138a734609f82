"""Tractor's prompts for language-model seats, built from template files shipped with the
package (the seat, :mod:`arena.agents.llm.seat`, sends them: ``Game.model_prompts``).

The wording lives in ``templates/<language>/`` (``system.txt``, ``declare.txt``,
``bury.txt``, ``play.txt``, ``reply_*.txt``, ``retry.txt`` and ``phrases.json``), read
with ``importlib.resources`` and filled with :class:`string.Template`, so a translation
or a better phrasing is a text edit. A prompt holds a short rules summary (the table's
seats, kitty and match end), then what the request asks, written out for a reader of
cards rather than quoted as JSON (a PLAY_REQUEST's ids and play records would be some
2,000 tokens): the hand by suit group, trumps apart and each group high to low, in faces
(``♥10``, ``大王``); the trump and its order; the trick so far, its lead, who is winning
it; what the seat must play (the request's ``required``: the engine's own words in
English, the same requirement said in Chinese from the request's ``follow``); teams,
levels, points, cards left, the kitty and the cards played
(:mod:`arena.games.tractor.prompts.facts`); the legal plays if asked; the reply format.

Everything shown is the request's: a prompt cannot hold a card the seat may not know.
A PLAY_REQUEST's ``audience`` is shown as viewers' words, each a JSON string, under a
sentence saying they are not instructions (as Dou Dizhu's prompts do).

Pure: no I/O beyond reading the templates once.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from functools import cache
from importlib.resources import files
from string import Template
from typing import Literal, TypeAlias

import orjson

from arena.agents.llm.texts import Prompt, estimate_tokens
from arena.errors import ConfigError
from arena.games.base import GameRules
from arena.games.tractor.agents.base import level_of
from arena.games.tractor.engine import (
    DEFAULT_RULES,
    TRUMP,
    Kind,
    Play,
    TractorRules,
    Trump,
    card_ids,
    classify,
    fill_follow,
    legal_follows,
    legal_leads,
    points_of,
    trump_context,
)
from arena.games.tractor.engine.cards import SUIT_SYMBOLS
from arena.games.tractor.messages import (
    BuryRequest,
    DeclareRequest,
    FollowShape,
    Lead,
    PlayRequest,
)
from arena.games.tractor.prompts.facts import (
    Grouped,
    PlayFacts,
    faces,
    grouped,
    play_facts,
    trump_of,
)
from protocol import Emotion, ReplyRejected

__all__ = [
    "AUDIENCE_TOKENS",
    "LANGUAGES",
    "MAX_LISTED_PLAYS",
    "AskRequest",
    "Language",
    "LegalMoves",
    "build_prompt",
    "legal_plays",
    "retry_text",
    "template_text",
]

Language: TypeAlias = Literal["zh", "en"]
LegalMoves: TypeAlias = Literal["none", "summary", "full"]
LANGUAGES: tuple[Language, ...] = ("zh", "en")
AskRequest: TypeAlias = DeclareRequest | BuryRequest | PlayRequest
#: The most legal plays a ``full`` list shows (a lead from 25 cards has some 30).
MAX_LISTED_PLAYS = 40
#: The estimated tokens the audience lines may take: the newest that fit are shown.
AUDIENCE_TOKENS = 200

_EMOTIONS = "/".join(e.value for e in Emotion)
_KIND_ORDER = {Kind.TRACTOR: 0, Kind.PAIR: 1, Kind.SINGLE: 2}


@cache
def template_text(language: Language, name: str) -> str:
    """The text of one shipped template file (``templates/<language>/<name>``)."""
    if language not in LANGUAGES:
        raise ConfigError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    resource = files("arena.games.tractor.prompts").joinpath("templates", language, name)
    return resource.read_text(encoding="utf-8").rstrip("\n")


@cache
def _phrases(language: Language) -> dict[str, str]:
    loaded: dict[str, str] = json.loads(template_text(language, "phrases.json"))
    return loaded


def _fill(language: Language, name: str, **fields: object) -> str:
    return Template(template_text(language, name)).substitute(fields)


def _phrase(language: Language, key: str, **fields: object) -> str:
    return Template(_phrases(language)[key]).substitute(fields)


# --- pieces every prompt uses -----------------------------------------------------------


def _group_name(group: int, language: Language, *, declaring: bool = False) -> str:
    if group != TRUMP:
        return SUIT_SYMBOLS[group]
    return _phrases(language)["group_level" if declaring else "group_trump"]


def _suit_name(letter: str | None) -> str | None:
    return None if letter is None else SUIT_SYMBOLS["SHDC".index(letter)]


def _hand_lines(hand: Grouped, language: Language, *, declaring: bool = False) -> str:
    return "\n".join(
        _phrase(
            language,
            "hand_line",
            group=_group_name(g, language, declaring=declaring),
            count=len(cards),
            cards=faces(cards),
        )
        for g, cards in hand
    )


def _trump_text(level: str, trump_suit: str | None, language: Language) -> str:
    """``Level 5, ♥ trump. Trumps high to low: 大王 > 小王 > ♥5 > ♠5 = ♦5 = ♣5 > then ♥
    from A down.``: what is trump, in this round's cards."""
    suit = _suit_name(trump_suit)
    if suit is None:
        head = _phrase(language, "trump_none", level=level)
        order = ["大王", "小王", " = ".join(s + level for s in SUIT_SYMBOLS)]
    else:
        head = _phrase(language, "trump_suit", level=level, suit=suit)
        others = " = ".join(s + level for s in SUIT_SYMBOLS if s != suit)
        down = _phrase(language, "trump_suit_down", suit=suit)
        order = ["大王", "小王", suit + level, others, down]
    order_text = _phrase(language, "trump_order", order=" > ".join(order))
    return _phrase(language, "trump_line", head=head, order=order_text)


def _system(language: Language, persona: str | None, rules: TractorRules) -> str:
    ending = _phrases(language)["ending_play_through" if rules.play_through else "ending"]
    if rules.round_limit is not None:
        ending += _phrase(language, "round_limit", rounds=rules.round_limit)
    return _fill(
        language,
        "system.txt",
        persona=_phrase(language, "persona", persona=persona) if persona else "",
        players=rules.players,
        kitty=rules.kitty_size,
        ending=ending,
    )


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


def _audience_text(lines: list[str] | None, language: Language) -> str:
    """The audience section: the warning sentence, then the newest lines that fit
    :data:`AUDIENCE_TOKENS`, oldest first, each a JSON string (so a quote or a newline in
    one cannot pass for the prompt's own text); empty without chatter."""
    if not lines:
        return ""
    shown: list[str] = []
    budget = AUDIENCE_TOKENS
    for line in reversed(lines):
        quoted = f"- {_json(line)}"
        budget -= estimate_tokens(quoted)
        if budget < 0:
            break
        shown.append(quoted)
    if not shown:
        return ""
    return "\n".join([_phrases(language)["audience"], *reversed(shown)]) + "\n"


# --- what the seat must do, in its language ---------------------------------------------


def _follow_text(shape: FollowShape, language: Language) -> str:
    """A FollowShape in words: the engine's ``FollowRule.describe()``, in ``language``."""
    where = _group_name(
        TRUMP if shape.suit_group == "TRUMP" else "SHDC".index(shape.suit_group), language
    )
    if shape.void:
        return _phrase(language, "need_void", group=where, count=shape.count)
    if shape.short:
        if shape.held == shape.count:
            return _phrase(language, "need_all", group=where, held=shape.held)
        rest = shape.count - shape.held
        return _phrase(language, "need_all_then", group=where, held=shape.held, rest=rest)
    parts = [_phrase(language, "need_tractor", pairs=t) for t in shape.tractors]
    loose = shape.pairs - sum(shape.tractors)
    more = "more_" if parts else ""
    if loose == 1:
        parts.append(_phrase(language, f"need_{more}pair"))
    elif loose > 1:
        parts.append(_phrase(language, f"need_{more}pairs", count=loose))
    text = _phrase(language, "need_group", group=where, count=shape.count)
    if parts:
        shape_words = _phrases(language)["need_and"].join(parts)
        text += _phrase(language, "need_including", shape=shape_words)
    return text


def _required(request: AskRequest, language: Language) -> str:
    """What the request asks: its own ``required`` in English (the engine's words); said
    again from the request's fields in another language."""
    if language == "en" and request.required:
        return request.required
    if isinstance(request, PlayRequest):
        if request.follow is not None:
            return _follow_text(request.follow, language)
        return _phrases(language)["need_lead"]
    if isinstance(request, BuryRequest):
        return _phrase(language, "need_bury", count=request.count)
    candidate = request.candidate
    floor = ""
    if candidate is not None:
        floor = _phrase(language, "need_floor", cards=faces(card_ids(candidate.cards)))
    return _phrase(language, "need_declare", level=request.level, floor=floor)


# --- the legal plays --------------------------------------------------------------------


def legal_plays(request: PlayRequest) -> tuple[list[Play], bool]:
    """The request's legal plays (its own ``legal_plays`` when it lists them, else worked
    out from its hand and lead: a lead's singles, pairs and tractors, throws aside), and
    whether that is all of them (False: a follow with too many to list, of which the
    list holds one, the fill order's)."""
    trump = trump_of(request.level, request.trump_suit)
    hand = card_ids(request.hand)
    if request.legal_plays is not None:
        return [classify(card_ids(p), trump) for p in request.legal_plays], True
    if request.lead is None:
        leads = legal_leads(hand, trump)
        power = trump.power
        leads.sort(
            key=lambda p: (_KIND_ORDER[p.kind], p.group == TRUMP, p.group, -power[p.cards[0]])
        )
        return leads, True
    lead = classify(card_ids(request.lead.cards), trump)
    follows = legal_follows(hand, lead, trump)
    if follows is None:
        return [classify(fill_follow(hand, lead, trump), trump)], False
    power = trump.power
    follows.sort(key=lambda cards: sorted(-power[c] for c in cards))
    return [classify(cards, trump) for cards in follows], True


def _play_line(play: Play, trump: Trump, leading: bool) -> str:
    shown = grouped(play.cards, trump)
    cards = " ".join(faces(c) for _, c in shown)
    return f"- {play.kind.value}: {cards}" if leading else f"- {cards}"


def _legal_text(request: PlayRequest, legal_moves: LegalMoves, language: Language, cap: int) -> str:
    if legal_moves == "none":
        return ""
    plays, complete = legal_plays(request)
    trump = trump_of(request.level, request.trump_suit)
    leading = request.lead is None
    if not complete:
        cards = _play_line(plays[0], trump, False).removeprefix("- ")
        return _phrase(language, "legal_many", cards=cards) + "\n"
    if legal_moves == "summary":
        if leading:
            counts = Counter(p.kind.value for p in plays)
            text = ", ".join(f"{kind} ×{n}" for kind, n in counts.items())
            return _phrase(language, "legal_summary_lead", counts=text) + "\n"
        return _phrase(language, "legal_summary_follow", count=len(plays)) + "\n"
    lines = [_phrase(language, "legal_full", count=len(plays))]
    lines += [_play_line(p, trump, leading) for p in plays[:cap]]
    if len(plays) > cap:
        lines.append(_phrase(language, "legal_more", count=len(plays) - cap))
    if leading:
        lines.append(_phrases(language)["legal_throw"])
    return "\n".join(lines) + "\n"


# --- the three requests -----------------------------------------------------------------


def _side_word(side: str, language: Language) -> str:
    return _phrases(language)[f"side_{side}"]


def _count_text(count: int, language: Language) -> str:
    """``1 card``, ``3 cards``."""
    if count == 1:
        return _phrases(language)["one_card"]
    return _phrase(language, "n_cards", count=count)


def _lead_text(lead: Lead, play: Play, side: str, language: Language) -> str:
    where = _group_name(play.group, language)
    if lead.kind == "THROW":
        parts = []
        for pairs in lead.shape:
            if pairs >= 2:
                parts.append(_phrase(language, "part_tractor", pairs=pairs))
            else:
                parts.append(_phrases(language)["part_pair" if pairs else "part_single"])
        return _phrase(
            language,
            "lead_throw",
            player=lead.player,
            side=_side_word(side, language),
            group=where,
            parts=_phrases(language)["list_sep"].join(parts),
        )
    return _phrase(
        language,
        "lead_is",
        player=lead.player,
        side=_side_word(side, language),
        what=_phrases(language)[f"kind_{lead.kind}"],
        group=where,
    )


def _trick_text(request: PlayRequest, facts: PlayFacts, language: Language) -> str:
    number = request.tricks_done + 1
    if request.lead is None or facts.lead is None:
        return _phrase(language, "trick_lead", trick=number)
    trump = facts.trump
    plays = _phrases(language)["group_sep"].join(
        _phrase(
            language,
            "trick_play",
            player=t.player,
            side=_side_word(t.side, language),
            cards=" ".join(faces(c) for _, c in grouped(t.cards, trump)),
        )
        for t in facts.trick
    )
    lines = [
        _phrase(language, "trick_so_far", trick=number, plays=plays),
        _lead_text(request.lead, facts.lead, facts.trick[0].side, language),
    ]
    if facts.winning is not None:
        w = facts.winning
        lines.append(
            _phrase(language, "winning", player=w.player, side=_side_word(w.side, language))
        )
    return "\n".join(lines)


def _facts_text(request: PlayRequest, facts: PlayFacts, language: Language) -> str:
    p = _phrases(language)
    lines = [
        _phrase(language, "fact_levels", mine=facts.my_level, theirs=facts.their_level),
        _phrase(
            language,
            "fact_points",
            points=request.defender_points,
            tricks=request.tricks_done,
            out=facts.points_out,
        ),
    ]
    left = []
    for name, count in request.cards_left.items():
        side = "you" if name == facts.me else "partner" if name in facts.partners else "opponent"
        left.append(
            _phrase(
                language, "left_line", player=name, side=_side_word(side, language), count=count
            )
        )
    lines.append(_phrase(language, "fact_cards_left", players=p["list_sep"].join(left)))
    if facts.buried is not None:
        lines.append(_phrase(language, "fact_buried", cards=faces(facts.buried)))
    else:
        lines.append(_phrase(language, "fact_kitty", count=request.kitty_count))
    if facts.played_count:
        shown = p["group_sep"].join(
            _phrase(language, "played_group", group=_group_name(g, language), cards=faces(c))
            for g, c in facts.played
        )
        lines.append(_phrase(language, "fact_played", count=facts.played_count, cards=shown))
    else:
        lines.append(p["fact_played_none"])
    return "\n".join(lines)


def _play_prompt(
    request: PlayRequest, language: Language, legal_moves: LegalMoves, cap: int
) -> str:
    p = _phrases(language)
    facts = play_facts(request)
    if request.banker == facts.me:
        side = p["banker_you"]
    else:
        side = _phrase(language, "bankers" if facts.bankers else "defenders", banker=request.banker)
    partners = _phrase(
        language,
        "partners",
        partners=p["list_sep"].join(facts.partners),
        opponents=p["list_sep"].join(facts.opponents),
    )
    if request.lead is None:
        count = p["lead_count"]
    else:
        count = _count_text(len(request.lead.cards), language)
    return _fill(
        language,
        "play.txt",
        me=facts.me,
        side=side,
        partners=partners,
        trump=_trump_text(request.level, request.trump_suit, language),
        count=len(request.hand),
        points=facts.hand_points,
        hand=_hand_lines(facts.hand, language),
        trick=_trick_text(request, facts, language),
        required=_required(request, language),
        facts=_facts_text(request, facts, language),
        audience=_audience_text(request.audience, language),
        legal_moves=_legal_text(request, legal_moves, language, cap),
        reply_format=_fill(language, "reply_play.txt", count=count, emotions=_EMOTIONS),
    )


def _declared(
    cards: Sequence[str], strength: str, suit: str | None, language: Language
) -> dict[str, str]:
    """A declaration's faces, strength and the trump it makes, in words."""
    letter = _suit_name(suit)
    trump = (
        _phrase(language, "declares_suit", suit=letter)
        if letter
        else _phrases(language)["declares_none"]
    )
    return {
        "cards": faces(card_ids(cards)),
        "strength": _phrases(language)[f"strength_{strength}"],
        "trump": trump,
    }


def _declare_prompt(request: DeclareRequest, language: Language) -> str:
    p = _phrases(language)
    candidate = request.candidate
    if candidate is None:
        said = p["candidate_none"]
    else:
        words = _declared(candidate.cards, candidate.strength, candidate.suit, language)
        said = _phrase(language, "candidate", player=candidate.player, **words)
    if request.options:
        options = [p["options"]]
        options += [
            _phrase(language, "option_line", **_declared(o.cards, o.strength, o.suit, language))
            for o in request.options
        ]
    else:
        options = [p["options_none"]]
    no_trump = trump_context(level_of(request.level), None)
    return _fill(
        language,
        "declare.txt",
        me=request.player_id,
        level=request.level,
        window=request.window,
        step=request.deal_step,
        steps=request.deal_steps,
        candidate=said,
        count=len(request.hand),
        hand=_hand_lines(grouped(card_ids(request.hand), no_trump), language, declaring=True),
        options="\n".join(options),
        required=_required(request, language),
        reply_format=_fill(language, "reply_declare.txt", emotions=_EMOTIONS),
    )


def _bury_prompt(request: BuryRequest, language: Language) -> str:
    trump = trump_of(request.level, request.trump_suit)
    hand = card_ids(request.hand)
    kitty = card_ids(request.kitty)
    return _fill(
        language,
        "bury.txt",
        me=request.player_id,
        trump=_trump_text(request.level, request.trump_suit, language),
        kitty_count=len(kitty),
        kitty=" ".join(faces(c) for _, c in grouped(kitty, trump)),
        count=len(hand),
        points=points_of(hand),
        hand=_hand_lines(grouped(hand, trump), language),
        required=_required(request, language),
        reply_format=_fill(
            language,
            "reply_bury.txt",
            count=_count_text(request.count, language),
            emotions=_EMOTIONS,
        ),
    )


def build_prompt(
    request: AskRequest,
    *,
    language: Language = "zh",
    persona: str | None = None,
    legal_moves: LegalMoves = "none",
    rules: GameRules = DEFAULT_RULES,
    max_plays: int = MAX_LISTED_PLAYS,
) -> Prompt:
    """The system and user texts asking a model to answer ``request``.

    ``legal_moves`` (PLAY_REQUEST only): ``none``, ``summary`` (how many of each kind
    when leading, how many follows) or ``full`` (the plays themselves, at most
    ``max_plays``, saying how many were left out). A follow with too many legal plays to
    list shows one of them in either.
    """
    system = _system(language, persona, TractorRules.of(rules))
    if isinstance(request, PlayRequest):
        user = _play_prompt(request, language, legal_moves, max_plays)
    elif isinstance(request, BuryRequest):
        user = _bury_prompt(request, language)
    elif isinstance(request, DeclareRequest):
        user = _declare_prompt(request, language)
    else:
        raise TypeError(f"not a request a model answers: {type(request).__name__}")
    return Prompt(system=system, user=user)


def retry_text(rejected: ReplyRejected, *, language: Language = "zh") -> str:
    """The follow-up message after a REPLY_REJECTED: the reason and detail (the engine's
    words), and what to do. A ``truncated`` reply is asked to come back much shorter."""
    advice = "advice_truncated" if rejected.reason == "truncated" else "advice"
    return _fill(
        language,
        "retry.txt",
        reason=rejected.reason,
        detail=rejected.detail,
        advice=_phrases(language)[advice],
        retries_left=rejected.retries_left,
    )
