"""Following a lead (§7): what a follow must contain, and why a follow is refused.

The rule (§7, with the fill order of §7.3 read as a rule about shape):

- a player holding at least as many cards of the lead's suit group as the lead has
  plays only cards of that group; one holding fewer plays all of them, then any others;
- within the group, a follow must contain the longest tractor the player can form (up
  to the lead's length), then as many pairs as the player holds there (up to the pairs
  the lead has, its tractors' included), then singles. A throw's tractors are served
  one by one, longest first. Any cards of the required shape are legal.

:func:`follow_rule` states the requirement once per hand and lead (a
:class:`FollowRule`, which also reads as a sentence for a prompt);
:func:`check_follow` judges a proposed follow in a few µs and says what is missing in
words an agent can act on ("you hold a pair in ♠: play a pair").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from arena.games.tractor.engine.patterns import Play, fit_tractors, pair_structure, runs_of
from arena.games.tractor.engine.trump import TRUMP, Trump, group_name

__all__ = ["FollowRule", "check_follow", "follow_rule"]


@dataclass(frozen=True, slots=True)
class FollowRule:
    """What a follow of one lead from one hand must be."""

    group: int
    """The lead's suit group."""
    count: int
    """The cards to play: as many as the lead."""
    held: int
    """The cards of the lead's group in the hand."""
    tractors: tuple[int, ...] = ()
    """The tractors (pair counts) the follow must contain, one per lead tractor served."""
    pairs: int = 0
    """The pairs the follow must contain, those inside its tractors included."""

    @property
    def void(self) -> bool:
        """Whether the hand has no card of the lead's group (any cards may be played)."""
        return self.held == 0

    @property
    def short(self) -> bool:
        """Whether the whole group must be played (it has no more cards than the lead)."""
        return self.held <= self.count

    def describe(self) -> str:
        """The requirement as a sentence: ``play 4 ♠ cards: a tractor of 2 pairs``."""
        where, kind = group_name(self.group), _card_word(self.group)
        if self.void:
            return f"you have no {where}: play any {_cards(self.count)}"
        if self.short:
            mine = (
                f"your {kind} card" if self.held == 1 else f"all {self.held} of your {kind} cards"
            )
            if self.held == self.count:
                return f"play {mine}"
            return f"play {mine}, then any {_cards(self.count - self.held, 'other')}"
        shape = self._shape_words()
        return f"play {_cards(self.count, kind)}" + (f", including {shape}" if shape else "")

    def _shape_words(self) -> str:
        words = [f"a tractor of {t} pairs" for t in self.tractors]
        loose = self.pairs - sum(self.tractors)
        more = " more" if words else ""
        if loose == 1:
            words.append(f"one{more} pair" if words else "a pair")
        elif loose > 1:
            words.append(f"{loose}{more} pairs")
        return " and ".join(words)


def follow_rule(hand: Sequence[int], lead: Play, trump: Trump) -> FollowRule:
    """What a follow of ``lead`` from ``hand`` must be (see the module)."""
    g = lead.group
    group = trump.group
    count = len(lead.cards)
    if count == 1 or not lead.pair_count:  # no shape to ask for: only the group counts
        return FollowRule(g, count, sum(1 for c in hand if group[c] == g))
    mine = [c for c in hand if group[c] == g]
    if len(mine) <= count:
        return FollowRule(g, count, len(mine))
    pairs, chain = pair_structure(mine, trump)
    wanted = lead.tractors
    tractors = fit_tractors(runs_of(chain), wanted) if wanted else ()
    return FollowRule(g, count, len(mine), tractors, min(pairs, lead.pair_count))


def check_follow(hand: Sequence[int], cards: Sequence[int], lead: Play, trump: Trump) -> str | None:
    """Why ``cards`` may not follow ``lead`` from ``hand``, or None when they may.

    The reason says what the follow must contain, for the agent's retry. Measured at
    about 5–10 µs on a 25-card hand (benchmarks/bench_tractor_engine.py).
    """
    count = len(lead.cards)
    if len(cards) != count:
        return f"play {_cards(count)}, as many as the lead"
    held = set(hand)
    if len(set(cards)) != count or not held.issuperset(cards):
        return "play cards of your own hand, each once"
    rule = follow_rule(hand, lead, trump)
    return refusal(rule, cards, trump)


def refusal(rule: FollowRule, cards: Sequence[int], trump: Trump) -> str | None:
    """Why ``cards`` (distinct, of the hand, as many as the lead) break ``rule``."""
    g = rule.group
    where, kind = group_name(g), _card_word(g)
    group = trump.group
    mine = [c for c in cards if group[c] == g]
    if rule.short:
        if len(mine) != rule.held:
            return f"you hold {_cards(rule.held, kind)}: {rule.describe()}"
        return None
    if len(mine) != rule.count:
        return f"you hold {rule.held} {kind} cards: play {rule.count} of them and nothing else"
    if not rule.pairs:
        return None
    pairs, chain = pair_structure(mine, trump)
    if rule.tractors:
        given = fit_tractors(runs_of(chain), rule.tractors)
        if len(given) < len(rule.tractors) or any(
            have < need for have, need in zip(given, rule.tractors, strict=False)
        ):
            return f"you hold {_tractors_words(rule.tractors)} in {where}: {rule.describe()}"
    if pairs < rule.pairs:
        if rule.pairs == 1:
            return f"you hold a pair in {where}: play a pair"
        return f"you hold {rule.pairs} pairs in {where}: play {rule.pairs} pairs"
    return None


def _card_word(group: int) -> str:
    """A suit group before "card": ``♠`` or ``trump`` (``1 trump card``, not ``trumps``)."""
    return "trump" if group == TRUMP else group_name(group)


def _cards(count: int, what: str = "") -> str:
    """``1 ♥ card``, ``2 other cards``, ``3 cards``."""
    words = f"{count} {what} card" if what else f"{count} card"
    return words if count == 1 else words + "s"


def _tractors_words(tractors: Sequence[int]) -> str:
    if len(tractors) == 1:
        return f"a tractor of {tractors[0]} pairs"
    return "tractors of " + " and ".join(str(t) for t in tractors) + " pairs"
