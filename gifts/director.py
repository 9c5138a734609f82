"""Gifts applied at a table's safe points: the queue meets the round's effect hooks.

:class:`GiftDirector` is a table's safe point (``Table(safe_points=[director])``). At
each one it shows the queue what the table looks like now (a :class:`~gifts.queue.Moment`
made from the :class:`~arena.table.SafePointHandle`), takes the gifts that may apply,
one at a time, applies each through the handle, and settles it: applied, or rejected
with the engine's reason when a hook refuses (the round is never left half-changed: a
hook either applies whole or raises). The table then announces each applied effect,
in order, before the next turn, and the replay keeps its cards.

The cards an effect moves are drawn, as the rules say ("a random card"), from a
generator seeded by the match seed and the gift's id: the same gift in the same match
moves the same cards, on every machine.

What every card game can do, the director does through the handle:

- SWAP: one card of the target for one of another player drawn among those above the
  last-cards limit; ADD: the target takes one card from such a player (a handicap);
- PEEK: the target's hand goes to ``on_peek`` (the delayed spectator feed), never to
  an agent or a public topic;
- CHEER: a short quoted line for the target's next request (``audience``: viewer
  chatter, never an instruction) and a banner; EMOTE, EFFECT change nothing in the
  round (the overlay shows them from the gift's outcome);
- RESHUFFLE applies between rounds (:meth:`GiftDirector.between_rounds`): the next deal
  is dealt afresh from a seed derived from the match seed, the round and the gift's id.

The effects only a game's rules give a meaning to (Dou Dizhu's DOUBLE at a safe point,
its ROLE_SWAP between rounds) the game applies: its gift operations
(:attr:`arena.games.base.Game.gifts`, a :class:`~arena.table.safe_point.GameGifts`),
which also say what its rules refuse at the moment (Dou Dizhu's ``double_cap``).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from arena.errors import IllegalActionError
from arena.logs import get_logger
from arena.table import derive_seed
from arena.table.safe_point import (
    PHASE_BETWEEN_ROUNDS,
    BetweenRoundsHandle,
    GameGifts,
    SafePointHandle,
)
from gifts.events import GiftEffect
from gifts.queue import GiftQueue, Moment, Pending, others_involved

__all__ = ["BETWEEN_ROUNDS_MOMENT", "GiftDirector", "audience_line", "moment_of"]

BETWEEN_ROUNDS_MOMENT = Moment(
    phase=PHASE_BETWEEN_ROUNDS, to_act=None, leading=False, hand_sizes=()
)
"""What the queue sees between rounds: only the between-rounds effects may apply."""

log = get_logger(__name__)

PeekOutput = Callable[[Pending, int, list[str]], None]
"""Where a PEEK's cards go: (the gift, the seat, its cards)."""


def moment_of(handle: SafePointHandle, game_gifts: GameGifts | None = None) -> Moment:
    """What the queue needs to see of the table at this safe point: the handle's facts,
    and what the game's rules refuse now (``game_gifts``: the game's own operations)."""
    return Moment(
        phase=handle.phase,
        to_act=handle.to_act,
        leading=handle.is_leading,
        hand_sizes=handle.hand_sizes,
        refused=game_gifts.refusals(handle) if game_gifts is not None else {},
    )


class GiftDirector:
    """A table's safe point that applies the queue's gifts (see the module)."""

    def __init__(
        self,
        queue: GiftQueue,
        *,
        match_seed: int,
        clock: Callable[[], float] = time.monotonic,
        on_peek: PeekOutput | None = None,
        game_gifts: GameGifts | None = None,
    ) -> None:
        self.queue = queue
        self.match_seed = match_seed
        self.game_gifts = game_gifts
        """The game's own gift operations (None: a game with none of its own)."""
        self._own = game_gifts.effects if game_gifts is not None else frozenset()
        self._clock = clock
        self._on_peek = on_peek

    async def __call__(self, handle: SafePointHandle) -> None:
        """Apply every gift that may apply now, one at a time."""
        queue = self.queue
        if not queue.waiting:
            return

        def apply(pending: Pending) -> str | None:
            return _refusal_of(lambda: self._apply(pending, handle), pending)

        queue.drain(lambda: moment_of(handle, self.game_gifts), apply, self._clock())

    async def between_rounds(self, handle: BetweenRoundsHandle) -> None:
        """Between two rounds: apply every between-rounds effect that may apply now."""
        queue = self.queue
        if not queue.waiting:
            return

        def apply(pending: Pending) -> str | None:
            return _refusal_of(lambda: self._apply_between_rounds(pending, handle), pending)

        queue.drain(lambda: BETWEEN_ROUNDS_MOMENT, apply, self._clock())

    def _apply(self, pending: Pending, handle: SafePointHandle) -> None:
        effect, target = pending.effect, pending.target
        if effect in self._own:
            assert self.game_gifts is not None
            self.game_gifts.apply(effect, handle, target=target, gift_id=pending.id)
            return
        rng = random.Random(derive_seed(self.match_seed, "effect", pending.id))
        if effect in (GiftEffect.SWAP, GiftEffect.ADD):
            if target is None:
                raise IllegalActionError("the gift has no target seat")
            moment = moment_of(handle)
            others = others_involved(target, moment, self.queue.settings.last_cards)
            if not others:
                raise IllegalActionError("no other player holds enough cards")
            other = rng.choice(others)
            if effect is GiftEffect.SWAP:
                mine, theirs = rng.choice(handle.hand(target)), rng.choice(handle.hand(other))
                handle.swap_cards(target, mine, other, theirs)
            else:
                handle.transfer_card(other, target, rng.choice(handle.hand(other)))
        elif effect is GiftEffect.PEEK:
            if target is None:
                raise IllegalActionError("the gift has no target seat")
            if self._on_peek is not None:
                self._on_peek(pending, target, [c.text for c in handle.hand(target)])
        elif effect is GiftEffect.CHEER:
            if target is not None:
                handle.cheer(target, audience_line(pending))
        elif effect not in (GiftEffect.EMOTE, GiftEffect.EFFECT):
            raise IllegalActionError(f"{effect} means nothing in this game")
        # EMOTE, EFFECT: nothing in the round; the between-rounds effects never reach
        # here (their window is between rounds)

    def _apply_between_rounds(self, pending: Pending, handle: BetweenRoundsHandle) -> None:
        effect = pending.effect
        if effect in self._own:
            assert self.game_gifts is not None
            self.game_gifts.apply_between_rounds(
                effect, handle, target=pending.target, gift_id=pending.id
            )
        elif effect is GiftEffect.RESHUFFLE:
            handle.reshuffle(pending.id)
        else:
            raise IllegalActionError(f"{effect} does not apply between rounds")


def _refusal_of(effect: Callable[[], None], pending: Pending) -> str | None:
    """Apply one gift's effect: None when it applied, else why not, in the rules' words
    (an unexpected error is logged and named: a gift must never stop the match)."""
    try:
        effect()
    except IllegalActionError as exc:
        return str(exc)
    except Exception as exc:
        log.exception("gift_effect_failed", gift=pending.id, effect=pending.effect)
        return f"error: {type(exc).__name__}"
    return None


def audience_line(pending: Pending) -> str:
    """A CHEER as the agent reads it: who, and what they wrote (already cleaned), quoted
    by the protocol's ``audience`` field as chatter, never as an instruction."""
    gift = pending.gift
    return f"{gift.shown_name}: {gift.message or '加油!'}"
