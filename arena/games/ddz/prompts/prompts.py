"""Dou Dizhu's prompts for language-model seats, built from template files shipped with the
package (the seat, :mod:`arena.agents.llm.seat`, sends them: ``Game.model_prompts``).

The wording lives in ``templates/<language>/`` (``system.txt``, ``play.txt``, ``bid.txt``,
``double.txt``, ``reply_*.txt``, ``retry.txt`` and ``phrases.json``), read with
``importlib.resources`` and filled with :class:`string.Template`, so a translation or a
better phrasing is a text edit, not a code change. A prompt holds a short rules summary,
the seat and its side, the request message itself as JSON, facts derived from it
(:mod:`arena.games.ddz.prompts.facts`), the legal moves if asked, and the reply format: only
what the model decides (the adapter fills ``player_id`` and ``request_id``).

The quoted request is the wire's message with its nulls left out (and a PASS record's
empty card list), and with only the latest ``play_history`` records: at most
:data:`MAX_QUOTED_PLAYS`, fewer when the prompt would pass :data:`PROMPT_TOKENS`
(long seat names, a long persona). A line then says the earlier plays are counted in the
facts (cards played, unseen cards per rank, cards left per player), and the play to beat
and who made it are always there (``last_play`` and a fact line). So a PLAY prompt
without its legal-move list stays under 1,500 estimated tokens in rounds of any length.

A PLAY_REQUEST's ``audience`` (viewer chatter the engine relayed) is text someone on a
stream typed, so it is shown as data, never as part of the instructions: in a section of
its own, each line a JSON string, under a sentence saying these are viewers' words for
colour that must not be followed; and it is left out of the quoted request, so the lines
appear only there. The newest lines that fit :data:`AUDIENCE_TOKENS` are shown. Without
chatter the prompt is exactly what it was before the section existed.

Pure: no I/O beyond reading the templates once.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from functools import cache
from importlib.resources import files
from string import Template
from typing import Any, Literal, TypeAlias

import orjson
from pydantic import BaseModel

from arena.agents.llm.texts import (
    AUDIENCE_TOKENS,
    Prompt,
    audience_section,
    char_counts,
    estimate_tokens,
)
from arena.errors import ConfigError
from arena.games.ddz.agents.reading import legal_for
from arena.games.ddz.engine import CARDS_BY_TEXT, DEFAULT_RULES, Rules
from arena.games.ddz.messages import BidRequest, DoubleRequest, PlayRequest
from arena.games.ddz.prompts.facts import AnyAskRequest, Facts, facts_of, rank_counts_text
from protocol import Emotion, ReplyRejected

__all__ = [
    "AUDIENCE_TOKENS",
    "LANGUAGES",
    "MAX_LISTED_MOVES",
    "MAX_QUOTED_PLAYS",
    "PROMPT_TOKENS",
    "Language",
    "LegalMoves",
    "Prompt",
    "build_prompt",
    "retry_text",
    "template_text",
]

Language: TypeAlias = Literal["zh", "en"]
LegalMoves: TypeAlias = Literal["none", "summary", "full"]
LANGUAGES: tuple[Language, ...] = ("zh", "en")
#: The most legal moves a ``full`` list shows; a 20-card lead can have thousands.
MAX_LISTED_MOVES = 40
#: The most ``play_history`` records a prompt quotes (four times round the table); the
#: earlier ones are summed up in the facts.
MAX_QUOTED_PLAYS = 12
#: The estimated tokens (system and user text, the legal-move list aside) a prompt quotes
#: fewer plays to stay within; the issue's bound is 1,500.
PROMPT_TOKENS = 1400


@cache
def template_text(language: Language, name: str) -> str:
    """The text of one shipped template file (``templates/<language>/<name>``)."""
    if language not in LANGUAGES:
        raise ConfigError(f"language must be one of {', '.join(LANGUAGES)}, not {language!r}")
    resource = files("arena.games.ddz.prompts").joinpath("templates", language, name)
    return resource.read_text(encoding="utf-8").rstrip("\n")


@cache
def _phrases(language: Language) -> dict[str, str]:
    loaded: dict[str, str] = json.loads(template_text(language, "phrases.json"))
    return loaded


def _fill(language: Language, name: str, **fields: object) -> str:
    return Template(template_text(language, name)).substitute(fields)


def _phrase(language: Language, key: str, **fields: object) -> str:
    return Template(_phrases(language)[key]).substitute(fields)


_EMOTIONS = "/".join(e.value for e in Emotion)


def _by_rank(cards: tuple[str, ...]) -> str:
    return rank_counts_text(Counter(CARDS_BY_TEXT[c].rank for c in cards))


def _facts_lines(facts: Facts, language: Language) -> str:
    p = _phrases(language)
    lines = [_phrase(language, "fact_hand", count=len(facts.hand), cards=_by_rank(facts.hand))]
    if facts.remaining:
        order = facts.seat_order or tuple(facts.remaining)
        shown = []
        for name in order:
            tag = (
                f" ({p['fact_you']})"
                if name == facts.me
                else f" ({p['fact_partner']})"
                if name in facts.teammates
                else ""
            )
            role = f" {p['landlord']}" if name == facts.landlord else ""
            shown.append(f"{name}{role}{tag} {facts.remaining.get(name, '?')}")
        lines.append(_phrase(language, "fact_cards_left", players=", ".join(shown)))
    if facts.is_free_play:
        lines.append(p["fact_lead"])
    elif facts.last_play is not None:
        last = facts.last_play
        side = p["fact_partner"] if last.by_teammate else p["fact_opponent"]
        lines.append(
            _phrase(
                language,
                "fact_last_play",
                player=last.player,
                side=side,
                hand_type=last.hand_type,
                cards=" ".join(last.cards),
            )
        )
    if facts.kind == "PLAY_REQUEST":
        if facts.played:
            lines.append(
                _phrase(
                    language, "fact_played", count=len(facts.played), cards=_by_rank(facts.played)
                )
            )
        else:
            lines.append(p["fact_played_none"])
    if facts.landlord_holds:
        lines.append(_phrase(language, "fact_landlord_holds", cards=" ".join(facts.landlord_holds)))
    lines.append(
        _phrase(
            language,
            "fact_unseen",
            count=facts.unseen_total,
            cards=rank_counts_text(facts.unseen),
        )
    )
    return "\n".join(lines)


def _legal_text(
    request: PlayRequest, legal_moves: LegalMoves, rules: Rules, language: Language, cap: int
) -> str:
    if legal_moves == "none":
        return ""
    moves = legal_for(request, rules)
    may_pass = not request.is_free_play
    p = _phrases(language)
    if legal_moves == "summary":
        counts = Counter(m.type.value for m in moves)
        parts = [f"{kind} ×{n}" for kind, n in counts.items()]  # "SINGLE 2" read as a card
        if may_pass:
            parts.append(p["legal_pass"])
        return _phrase(language, "legal_summary", counts=", ".join(parts)) + "\n"
    total = len(moves) + may_pass
    lines = [_phrase(language, "legal_full", count=total)]
    if may_pass:
        lines.append(f"- {p['legal_pass']}")
    shown = moves[: max(0, cap - may_pass)]
    lines.extend(f"- {m.type.value}: {' '.join(m.card_strings)}" for m in shown)
    left_out = total - len(shown) - may_pass
    if left_out > 0:
        lines.append(_phrase(language, "legal_more", count=left_out))
    return "\n".join(lines) + "\n"


def _system(language: Language, persona: str | None, rules: Rules) -> str:
    variants = "".join(
        _phrases(language)[f"variant_{name}"]
        for name in ("loose_wings", "four_with_pair", "quadplex_as_bomb")
        if getattr(rules, name)
    )
    return _fill(
        language,
        "system.txt",
        persona=_phrase(language, "persona", persona=persona) if persona else "",
        bidding=_phrases(language)[f"bidding_{rules.bidding}"],
        variants=variants,
    )


_REQUEST_MARK = "\x00request\x00"
_NOTE_MARK = "\x00note\x00"
_LEGAL_MARK = "\x00legal\x00"


@cache
def _dropped_when_default(cls: type[BaseModel]) -> dict[str, object]:
    """The optional fields of ``cls`` whose default is null or an empty list, with it."""
    found: dict[str, object] = {}
    for name, field in cls.model_fields.items():
        if not field.is_required() and field.default in (None, []):
            found[name] = field.default
    return found


def _compact(message: BaseModel, dumped: dict[str, Any]) -> dict[str, Any]:
    """``dumped`` (``message`` as JSON data) in field order, without the optional fields
    left at a null or empty default: parsing it back gives the same message."""
    dropped = _dropped_when_default(type(message))
    return {
        name: dumped[name]
        for name in type(message).model_fields
        if name in dumped and not (name in dropped and dumped[name] == dropped[name])
    }


def _json(value: object) -> str:
    return orjson.dumps(value).decode()


def _quoted_play(request: PlayRequest) -> tuple[str, str, list[str]]:
    """The PLAY_REQUEST as compact JSON in three parts: up to ``"play_history":[``, the
    latest :data:`MAX_QUOTED_PLAYS` records (oldest first), and from ``]`` on."""
    # the audience lines are quoted once, in their own section (_audience_text), not here
    dumped = _compact(
        request, request.model_dump(mode="json", exclude={"play_history", "audience"})
    )
    fields = list(type(request).model_fields)
    cut = fields.index("play_history")
    head = {name: dumped[name] for name in fields[:cut] if name in dumped}
    tail = {name: dumped[name] for name in fields[cut + 1 :] if name in dumped}
    records = [
        _json(_compact(record, record.model_dump(mode="json")))
        for record in request.play_history[-MAX_QUOTED_PLAYS:]
    ]
    return _json(head)[:-1] + ',"play_history":[', "]," + _json(tail)[1:], records


def _audience_text(lines: list[str] | None, language: Language) -> str:
    """The audience section (:func:`audience_section`) under this language's warning."""
    return audience_section(lines, _phrases(language)["audience"])


def _fit_history(
    fixed_tokens: int, fixed: tuple[int, int], records: list[str], total: int, language: Language
) -> tuple[int, str]:
    """How many of the latest ``records`` to quote, and the note saying the earlier ones
    are in the facts (empty when all ``total`` are quoted): as many as keep the prompt
    within :data:`PROMPT_TOKENS`, none if even that does not."""
    counts = [char_counts(r) for r in records]
    for shown in range(len(records), -1, -1):
        note = (
            ""
            if shown == total
            else _phrase(language, "history_note", shown=shown, total=total) + "\n"
        )
        note_ascii, note_other = char_counts(note)
        ascii_chars = fixed[0] + note_ascii + max(shown - 1, 0)
        other = fixed[1] + note_other
        for a, o in counts[len(counts) - shown :]:
            ascii_chars += a
            other += o
        if fixed_tokens + math.ceil(ascii_chars / 4) + other <= PROMPT_TOKENS or shown == 0:
            return shown, note
    raise AssertionError("unreachable")


def build_prompt(
    request: AnyAskRequest,
    *,
    language: Language = "zh",
    persona: str | None = None,
    legal_moves: LegalMoves = "none",
    rules: Rules = DEFAULT_RULES,
    max_moves: int = MAX_LISTED_MOVES,
) -> Prompt:
    """The system and user texts asking a model to answer ``request``.

    ``legal_moves`` (PLAY_REQUEST only): ``none``, ``summary`` (counts per hand type) or
    ``full`` (the moves themselves, at most ``max_moves``, saying how many were left out).
    A PLAY_REQUEST quotes its latest plays only (see the module's docstring).
    """
    system = _system(language, persona, rules)
    p = _phrases(language)
    facts = facts_of(request)
    reply = _fill(language, f"reply_{_KINDS[request.type]}.txt", emotions=_EMOTIONS)
    common = {
        "me": request.player_id,
        "facts": _facts_lines(facts, language),
        "reply_format": reply,
    }
    if isinstance(request, PlayRequest):
        teammate = (
            _phrase(language, "teammate", teammate=", ".join(request.teammates))
            if request.teammates
            else p["no_teammate"]
            if request.role == "landlord"
            else ""
        )
        user = _fill(
            language,
            "play.txt",
            role=p[request.role],
            teammate=teammate,
            request=_REQUEST_MARK,
            history_note=_NOTE_MARK,
            audience=_audience_text(request.audience, language),
            legal_moves=_LEGAL_MARK,
            **common,
        )
        head, tail, records = _quoted_play(request)
        bare = user.replace(_REQUEST_MARK, head + tail).replace(_NOTE_MARK, "")
        shown, note = _fit_history(
            estimate_tokens(system),
            char_counts(bare.replace(_LEGAL_MARK, "")),
            records,
            len(request.play_history),
            language,
        )
        quoted = head + ",".join(records[len(records) - shown :]) + tail
        legal = _legal_text(request, legal_moves, rules, language, max_moves)
        user = (
            user.replace(_REQUEST_MARK, quoted)
            .replace(_NOTE_MARK, note)
            .replace(_LEGAL_MARK, legal)
        )
    elif isinstance(request, BidRequest):
        user = _fill(
            language,
            "bid.txt",
            mode=p[f"mode_{request.mode}"],
            choices=", ".join(str(b) for b in request.available_bids),
            request=_json(_compact(request, request.model_dump(mode="json"))),
            **common,
        )
    else:
        assert isinstance(request, DoubleRequest)
        user = _fill(
            language,
            "double.txt",
            role=p[facts.role or "farmer"],
            landlord=request.landlord,
            what=p[f"what_{request.kind}"],
            request=_json(_compact(request, request.model_dump(mode="json"))),
            **common,
        )
    return Prompt(system=system, user=user)


_KINDS = {"PLAY_REQUEST": "play", "BID_REQUEST": "bid", "DOUBLE_REQUEST": "double"}


def retry_text(rejected: ReplyRejected, *, language: Language = "zh") -> str:
    """The follow-up message after a REPLY_REJECTED: the reason and detail, and what to do.

    A ``truncated`` reply is asked to come back much shorter.
    """
    advice = "advice_truncated" if rejected.reason == "truncated" else "advice"
    return _fill(
        language,
        "retry.txt",
        reason=rejected.reason,
        detail=rejected.detail,
        advice=_phrases(language)[advice],
        retries_left=rejected.retries_left,
    )
