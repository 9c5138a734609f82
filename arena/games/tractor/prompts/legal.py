"""The legal plays a Tractor prompt lists, when the seat's ``legal_moves`` asks: worked
out from the request alone (its hand, its lead and its trump), or the request's own
``legal_plays`` when it carries them.

A lead lists every single, pair and tractor, tractors first (a throw is legal too, and
not listed: there are too many); a follow lists every legal follow, high cards first,
or, when there are too many to list (a seat out of the lead's group facing a long
lead), the one the fill order gives, so that a model always sees a legal play.
"""

from __future__ import annotations

from collections import Counter
from typing import Literal, TypeAlias

from arena.games.tractor.engine import (
    TRUMP,
    Kind,
    Play,
    Trump,
    card_ids,
    classify,
    fill_follow,
    legal_follows,
    legal_leads,
)
from arena.games.tractor.messages import PlayRequest
from arena.games.tractor.prompts.facts import faces, grouped, trump_of
from arena.games.tractor.prompts.wording import Language, phrase, phrases

__all__ = ["MAX_LISTED_PLAYS", "LegalMoves", "legal_plays", "legal_text"]

LegalMoves: TypeAlias = Literal["none", "summary", "full"]
#: The most legal plays a ``full`` list shows (a lead from 25 cards has some 30).
MAX_LISTED_PLAYS = 40
_KIND_ORDER = {Kind.TRACTOR: 0, Kind.PAIR: 1, Kind.SINGLE: 2}


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


def legal_text(request: PlayRequest, legal_moves: LegalMoves, language: Language, cap: int) -> str:
    """The legal-plays section of a PLAY prompt: nothing (``none``), how many of each
    kind (``summary``), or the plays, at most ``cap`` (``full``)."""
    if legal_moves == "none":
        return ""
    plays, complete = legal_plays(request)
    trump = trump_of(request.level, request.trump_suit)
    leading = request.lead is None
    if not complete:
        cards = _play_line(plays[0], trump, False).removeprefix("- ")
        return phrase(language, "legal_many", cards=cards) + "\n"
    if legal_moves == "summary":
        if leading:
            counts = Counter(p.kind.value for p in plays)
            text = ", ".join(f"{kind} ×{n}" for kind, n in counts.items())
            return phrase(language, "legal_summary_lead", counts=text) + "\n"
        return phrase(language, "legal_summary_follow", count=len(plays)) + "\n"
    lines = [phrase(language, "legal_full", count=len(plays))]
    lines += [_play_line(p, trump, leading) for p in plays[:cap]]
    if len(plays) > cap:
        lines.append(phrase(language, "legal_more", count=len(plays) - cap))
    if leading:
        lines.append(phrases(language)["legal_throw"])
    return "\n".join(lines) + "\n"
