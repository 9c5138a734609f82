"""Tractor's prompts for language-model seats, built from template files shipped with the
package (the seat, :mod:`arena.agents.llm.seat`, sends them: ``Game.model_prompts``).

The wording lives in ``templates/<language>/`` (``system.txt``, ``declare.txt``,
``bury.txt``, ``play.txt``, ``reply_*.txt``, ``retry.txt`` and ``phrases.json``; read by
:mod:`arena.games.tractor.prompts.wording`), so a translation or a better phrasing is a
text edit. A prompt holds a short rules summary (the table's seats, kitty and match
end), then what the request asks, written out for a reader of cards rather than quoted
as JSON (a PLAY_REQUEST's ids and play records run to some 1,500 tokens late in a
round): the hand by suit group, trumps apart and each group high to low, in faces
(``♥10``, ``大王``); the trump and its order; the trick so far, its lead, who is winning
it; what the seat must play (the request's ``required``: the engine's own words in
English, the same requirement said in Chinese from the request's ``follow``); teams,
levels, points, cards left, the kitty and the cards played
(:mod:`arena.games.tractor.prompts.facts`); the legal plays if asked
(:mod:`arena.games.tractor.prompts.legal`); the reply format.

Everything shown is the request's: a prompt cannot hold a card the seat may not know.
A PLAY_REQUEST's ``audience`` is shown as viewers' words, each a JSON string, under a
sentence saying they are not instructions (as Dou Dizhu's prompts do).

Pure: no I/O beyond reading the templates once.
"""

from __future__ import annotations

from collections.abc import Sequence

import orjson

from arena.agents.llm.texts import AUDIENCE_TOKENS, Prompt, audience_section
from arena.games.base import GameRules
from arena.games.tractor.agents.base import level_of
from arena.games.tractor.engine import (
    DEFAULT_RULES,
    Play,
    TractorRules,
    card_ids,
    points_of,
    trump_context,
)
from arena.games.tractor.messages import BuryRequest, DeclareRequest, Lead, PlayRequest
from arena.games.tractor.prompts.facts import PlayFacts, faces, grouped, play_facts, trump_of
from arena.games.tractor.prompts.legal import MAX_LISTED_PLAYS, LegalMoves, legal_text
from arena.games.tractor.prompts.wording import (
    LANGUAGES,
    AskRequest,
    Language,
    count_text,
    fill,
    group_name,
    hand_lines,
    phrase,
    phrases,
    required_text,
    side_word,
    suit_name,
    trump_text,
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
    "retry_text",
]

_EMOTIONS = "/".join(e.value for e in Emotion)


def _system(language: Language, persona: str | None, rules: TractorRules) -> str:
    ending = phrases(language)["ending_play_through" if rules.play_through else "ending"]
    if rules.round_limit is not None:
        ending += phrase(language, "round_limit", rounds=rules.round_limit)
    return fill(
        language,
        "system.txt",
        persona=phrase(language, "persona", persona=persona) if persona else "",
        players=rules.players,
        kitty=rules.kitty_size,
        ending=ending,
    )


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


def _audience_text(lines: list[str] | None, language: Language) -> str:
    """The audience section (:func:`audience_section`) under this language's warning."""
    return audience_section(lines, phrases(language)["audience"])


# --- the three requests -----------------------------------------------------------------


def _lead_text(lead: Lead, play: Play, side: str, language: Language) -> str:
    where = group_name(play.group, language)
    if lead.kind == "THROW":
        parts = []
        for pairs in lead.shape:
            if pairs >= 2:
                parts.append(phrase(language, "part_tractor", pairs=pairs))
            else:
                parts.append(phrases(language)["part_pair" if pairs else "part_single"])
        return phrase(
            language,
            "lead_throw",
            player=lead.player,
            side=side_word(side, language),
            group=where,
            parts=phrases(language)["list_sep"].join(parts),
        )
    return phrase(
        language,
        "lead_is",
        player=lead.player,
        side=side_word(side, language),
        what=phrases(language)[f"kind_{lead.kind}"],
        group=where,
    )


def _trick_text(request: PlayRequest, facts: PlayFacts, language: Language) -> str:
    number = request.tricks_done + 1
    if request.lead is None or facts.lead is None:
        return phrase(language, "trick_lead", trick=number)
    trump = facts.trump
    plays = phrases(language)["group_sep"].join(
        phrase(
            language,
            "trick_play",
            player=t.player,
            side=side_word(t.side, language),
            cards=" ".join(faces(c) for _, c in grouped(t.cards, trump)),
        )
        for t in facts.trick
    )
    lines = [
        phrase(language, "trick_so_far", trick=number, plays=plays),
        _lead_text(request.lead, facts.lead, facts.trick[0].side, language),
    ]
    if facts.winning is not None:
        w = facts.winning
        lines.append(phrase(language, "winning", player=w.player, side=side_word(w.side, language)))
    return "\n".join(lines)


def _facts_text(request: PlayRequest, facts: PlayFacts, language: Language) -> str:
    p = phrases(language)
    lines = [
        phrase(language, "fact_levels", mine=facts.my_level, theirs=facts.their_level),
        phrase(
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
            phrase(language, "left_line", player=name, side=side_word(side, language), count=count)
        )
    lines.append(phrase(language, "fact_cards_left", players=p["list_sep"].join(left)))
    if facts.buried is not None:
        buried = grouped(facts.buried, facts.trump)
        lines.append(phrase(language, "fact_buried", cards=" ".join(faces(c) for _, c in buried)))
    else:
        lines.append(phrase(language, "fact_kitty", count=request.kitty_count))
    if facts.played_count:
        shown = p["group_sep"].join(
            phrase(language, "played_group", group=group_name(g, language), cards=faces(c))
            for g, c in facts.played
        )
        lines.append(phrase(language, "fact_played", count=facts.played_count, cards=shown))
    else:
        lines.append(p["fact_played_none"])
    return "\n".join(lines)


def _play_prompt(
    request: PlayRequest, language: Language, legal_moves: LegalMoves, cap: int
) -> str:
    p = phrases(language)
    facts = play_facts(request)
    if request.banker == facts.me:
        side = p["banker_you"]
    else:
        side = phrase(language, "bankers" if facts.bankers else "defenders", banker=request.banker)
    partners = phrase(
        language,
        "partners",
        partners=p["list_sep"].join(facts.partners),
        opponents=p["list_sep"].join(facts.opponents),
    )
    if request.lead is None:
        count = p["lead_count"]
    else:
        count = count_text(len(request.lead.cards), language)
    return fill(
        language,
        "play.txt",
        me=facts.me,
        side=side,
        partners=partners,
        trump=trump_text(request.level, request.trump_suit, language),
        count=len(request.hand),
        points=facts.hand_points,
        hand=hand_lines(facts.hand, language),
        trick=_trick_text(request, facts, language),
        required=required_text(request, language),
        facts=_facts_text(request, facts, language),
        audience=_audience_text(request.audience, language),
        legal_moves=legal_text(request, legal_moves, language, cap),
        reply_format=fill(language, "reply_play.txt", count=count, emotions=_EMOTIONS),
    )


def _declared(
    cards: Sequence[str], strength: str, suit: str | None, language: Language
) -> dict[str, str]:
    """A declaration's faces, strength and the trump it makes, in words."""
    letter = suit_name(suit)
    trump = (
        phrase(language, "declares_suit", suit=letter)
        if letter
        else phrases(language)["declares_none"]
    )
    return {
        "cards": faces(card_ids(cards)),
        "strength": phrases(language)[f"strength_{strength}"],
        "trump": trump,
    }


def _declare_prompt(request: DeclareRequest, language: Language) -> str:
    p = phrases(language)
    candidate = request.candidate
    if candidate is None:
        said = p["candidate_none"]
    else:
        words = _declared(candidate.cards, candidate.strength, candidate.suit, language)
        said = phrase(language, "candidate", player=candidate.player, **words)
    if request.options:
        options = [p["options"]]
        options += [
            phrase(language, "option_line", **_declared(o.cards, o.strength, o.suit, language))
            for o in request.options
        ]
    else:
        options = [p["options_none"]]
    no_trump = trump_context(level_of(request.level), None)
    return fill(
        language,
        "declare.txt",
        me=request.player_id,
        level=request.level,
        window=request.window,
        step=request.deal_step,
        steps=request.deal_steps,
        candidate=said,
        count=len(request.hand),
        hand=hand_lines(grouped(card_ids(request.hand), no_trump), language, declaring=True),
        options="\n".join(options),
        required=required_text(request, language),
        reply_format=fill(language, "reply_declare.txt", emotions=_EMOTIONS),
    )


def _bury_prompt(request: BuryRequest, language: Language) -> str:
    trump = trump_of(request.level, request.trump_suit)
    hand = card_ids(request.hand)
    kitty = card_ids(request.kitty)
    return fill(
        language,
        "bury.txt",
        me=request.player_id,
        trump=trump_text(request.level, request.trump_suit, language),
        kitty_count=len(kitty),
        kitty=" ".join(faces(c) for _, c in grouped(kitty, trump)),
        count=len(hand),
        points=points_of(hand),
        hand=hand_lines(grouped(hand, trump), language),
        required=required_text(request, language),
        reply_format=fill(
            language,
            "reply_bury.txt",
            count=count_text(request.count, language),
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
    return fill(
        language,
        "retry.txt",
        reason=rejected.reason,
        detail=rejected.detail,
        advice=phrases(language)[advice],
        retries_left=rejected.retries_left,
    )
