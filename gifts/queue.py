"""The gift queue: one gift at a time, at safe points, under cooldowns, every one settled.

Gifts come in at any moment (:meth:`GiftQueue.submit`); the table asks at each safe
point, with what it can see then (:class:`Moment`), for the next gift that may apply now
(:meth:`GiftQueue.next`), applies it, and says how it went (:meth:`GiftQueue.settle`).
Every gift ends in exactly one outcome (:class:`Outcome`): ``applied``, ``rejected``
with a reason, or ``expired``; none is dropped silently (:attr:`GiftQueue.outcomes`).

- A delivery seen before (same platform and event id) is a duplicate: rejected at once,
  before any cooldown is counted. A gift of count N is N gifts, each through the rest.
- ``ranked`` mode rejects every effect that can change a result, at once.
- A full queue rejects the newcomer (``queue_full``); a gift waits at most its time to
  live (``ttl_s``), then expires.
- A gift whose window is closed (a SWAP while the target is not about to lead, a
  between-rounds effect mid-round) waits; the queue looks past it, in order, for the
  first gift that may apply, so a waiting SWAP does not hold up a CHEER.
- Cooldowns: per effect, per viewer, and one global for strong interventions (SWAP,
  ADD). On cooldown a gift waits (default) or is rejected (``on_cooldown = "reject"``).
- Strong interventions are rejected while the target holds 5 cards or fewer, or all
  the other players do (the other player involved is drawn among those above 5: see
  :func:`others_involved`); an effect the game's rules refuse at this moment is
  rejected with the game's reason (Dou Dizhu's DOUBLE, ``double_cap``, once the round
  has its cap of viewer doubles: :attr:`Moment.refused`).
- Seats are the moment's: as many as it has hand sizes (any table size); phases are
  the game's names, but for the few every game shares (``play``, ``over``,
  ``between_rounds``: :mod:`arena.table.safe_point`).

Times are the caller's clock (seconds, monotonic): the queue never reads a clock, so a
test or a replay drives it exactly.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Final, Literal

from arena.table.safe_point import PHASE_BETWEEN_ROUNDS, PHASE_OVER, PHASE_PLAY
from gifts.events import RESULT_CHANGING, STRONG, GiftEffect, GiftEvent

__all__ = [
    "BETWEEN_ROUNDS",
    "PLAY_PHASE",
    "GiftQueue",
    "Moment",
    "Outcome",
    "Pending",
    "QueueSettings",
    "others_involved",
]

_PRUNE_VIEWERS_AT: Final = 1024
"""Viewers remembered for their cooldown before those whose cooldown is over are
forgotten (a long stream meets many viewers)."""

PLAY_PHASE: Final = frozenset({GiftEffect.CHEER, GiftEffect.EMOTE, GiftEffect.PEEK})
"""Effects whose window is the play phase (any turn)."""
BEFORE_LEAD: Final = frozenset({GiftEffect.SWAP, GiftEffect.ADD})
"""Effects whose window opens when the target is about to lead (free play)."""
ANY_TIME: Final = frozenset({GiftEffect.DOUBLE, GiftEffect.EFFECT})
BETWEEN_ROUNDS: Final = frozenset({GiftEffect.ROLE_SWAP, GiftEffect.RESHUFFLE})

Phase = str
"""A moment's phase: ``play``, ``over``, ``between_rounds``, or a phase of the game's own
before the play (Dou Dizhu: ``bidding``, ``doubling``), where only the any-time effects
apply."""
Status = Literal["applied", "rejected", "expired"]


@dataclass(frozen=True)
class QueueSettings:
    """The queue's rules; the defaults are the documented ones."""

    mode: Literal["show", "ranked"] = "show"
    queue_size: int = 200
    ttl_s: float = 60.0
    on_cooldown: Literal["wait", "reject"] = "wait"
    effect_cooldown_s: dict[GiftEffect, float] = field(
        default_factory=lambda: {
            GiftEffect.CHEER: 0.0,
            GiftEffect.EMOTE: 0.0,
            GiftEffect.EFFECT: 2.0,
            GiftEffect.PEEK: 10.0,
            GiftEffect.SWAP: 20.0,
            GiftEffect.ADD: 20.0,
            GiftEffect.DOUBLE: 15.0,
            GiftEffect.ROLE_SWAP: 0.0,
            GiftEffect.RESHUFFLE: 0.0,
        }
    )
    viewer_cooldown_s: float = 5.0
    strong_cooldown_s: float = 30.0
    last_cards: int = 5


@dataclass(frozen=True)
class Moment:
    """What the table shows the queue at a safe point: enough to open or close each
    effect's window, nothing more."""

    phase: Phase
    to_act: int | None
    """The seat about to decide (None between rounds)."""
    leading: bool
    """Whether that seat is about to lead (free play), not follow."""
    hand_sizes: tuple[int, ...]
    """Cards in each seat's hand: one per seat of the table (none between rounds)."""
    refused: Mapping[str, str] = field(default_factory=dict)
    """The effects the game's rules refuse now, each with its reason (Dou Dizhu:
    ``{"DOUBLE": "double_cap"}`` once the round has its cap of viewer doubles)."""


@dataclass(frozen=True)
class Pending:
    """One gift (one of a count-N gift's N) waiting for its moment."""

    gift: GiftEvent
    effect: GiftEffect
    target: int | None
    unit: int
    """Which of the gift's ``count`` this is, from 0."""
    queued_at: float

    @property
    def id(self) -> str:
        """The unit's id: the gift's platform and event id, and the unit."""
        return f"{self.gift.platform}:{self.gift.event_id}#{self.unit}"


@dataclass(frozen=True)
class Outcome:
    """How one gift (unit) ended."""

    id: str
    gift: GiftEvent
    effect: GiftEffect | None
    status: Status
    reason: str | None = None
    at: float = 0.0
    target: int | None = None
    units: int = 1
    """Units of the gift this outcome settles: more than one when a gift's units were
    rejected at once for one reason (ids ``...#first-last``)."""


class GiftQueue:
    """See the module. ``on_outcome`` hears every outcome as it happens (the gifts
    topic, the replay); :attr:`outcomes` keeps them all too."""

    def __init__(
        self,
        settings: QueueSettings | None = None,
        *,
        on_outcome: Callable[[Outcome], None] | None = None,
        on_queued: Callable[[Pending], None] | None = None,
        remember: int = 100_000,
        keep_outcomes: bool = True,
    ) -> None:
        self.settings = settings or QueueSettings()
        self.outcomes: list[Outcome] = []
        """Every outcome, when ``keep_outcomes`` (a long live run hands them to
        ``on_outcome`` only, and keeps :attr:`counts`: memory stays bounded)."""
        self.counts: dict[tuple[Status, str | None], int] = {}
        """Outcomes by status and reason: every gift accounted for."""
        self._keep = keep_outcomes
        self._on_outcome = on_outcome
        self._on_queued = on_queued
        self._waiting: deque[Pending] = deque()
        self._kept: deque[Pending] = deque()
        """While :meth:`next` walks the queue: the gifts it keeps so far (counted waiting)."""
        self._seen: dict[tuple[str, str], None] = {}
        self._remember = remember
        self._effect_free_at: dict[GiftEffect, float] = {}
        self._viewer_free_at: dict[str, float] = {}
        self._strong_free_at = 0.0
        self._in_hand: Pending | None = None
        self._duplicates = 0

    @property
    def waiting(self) -> int:
        """Gifts waiting now (exact even while :meth:`next` walks the queue, so an
        outcome told then says how many still wait)."""
        return len(self._waiting) + len(self._kept)

    # --- in ---------------------------------------------------------------------------

    def submit(
        self,
        gift: GiftEvent,
        effect: GiftEffect,
        *,
        target: int | None = None,
        now: float,
        pick: Callable[[], int | None] | None = None,
        target_required: bool = False,
    ) -> None:
        """Queue a gift (``count`` units), or settle it at once: a duplicate, a
        streak's running update (not a gift), ranked mode, a full queue.

        ``pick`` gives the target when ``target`` is None, called only once a unit is
        about to be queued (a burst that overflows the queue costs no targeting); with
        ``target_required``, a unit left without one is rejected ``no_target``. The
        units settled at once for one reason are one outcome (``units``): a gift of
        count 10,000 that overflows the queue is one ``queue_full``, not 9,800."""
        if not gift.counts:
            return  # a streak's running count (not remembered: it may share the final's id)
        if self._duplicate(gift, effect, target, now):
            return
        self._remember_key(gift.key)
        if self.settings.mode == "ranked" and effect in RESULT_CHANGING:
            self._settle_units(gift, effect, target, 0, gift.count, "ranked_mode", now)
            return
        picked = pick is None or target is not None
        room = self.settings.queue_size - len(self._waiting)
        queued = min(gift.count, max(room, 0))
        for unit in range(queued):
            if not picked and pick is not None:
                target, picked = pick(), True
            if target is None and target_required:
                self._settle_units(gift, effect, None, unit, gift.count, "no_target", now)
                return
            pending = Pending(gift, effect, target, unit, now)
            self._waiting.append(pending)
            if self._on_queued is not None:
                self._on_queued(pending)
        if queued < gift.count:
            self._settle_units(gift, effect, target, queued, gift.count, "queue_full", now)

    def refuse(
        self,
        gift: GiftEvent,
        effect: GiftEffect | None,
        reason: str,
        *,
        now: float,
        target: int | None = None,
    ) -> None:
        """Settle a gift that cannot be queued at all (no effect maps it, its table is
        unknown, the match is over): its units rejected with ``reason`` as one outcome,
        or a ``duplicate`` when its delivery was seen before."""
        if not gift.counts:
            return
        if self._duplicate(gift, effect, target, now):
            return
        self._remember_key(gift.key)
        self._settle_units(gift, effect, target, 0, gift.count, reason, now)

    def _duplicate(
        self, gift: GiftEvent, effect: GiftEffect | None, target: int | None, now: float
    ) -> bool:
        """A delivery seen before: rejected ``duplicate`` under an id of its own
        (``...#dup1``, ``#dup2`` ...), so the first delivery's units keep theirs, each
        with one ending."""
        if gift.key not in self._seen:
            return False
        self._duplicates += 1
        unit_id = f"{gift.platform}:{gift.event_id}#dup{self._duplicates}"
        self._settle_unit(unit_id, gift, effect, "rejected", "duplicate", now, target)
        return True

    def _settle_units(
        self,
        gift: GiftEvent,
        effect: GiftEffect | None,
        target: int | None,
        first: int,
        end: int,
        reason: str,
        now: float,
    ) -> None:
        """Units ``first`` to ``end - 1`` of a gift rejected for one reason, as one
        outcome (id ``...#first`` for one unit, ``...#first-last`` for several)."""
        key = f"{gift.platform}:{gift.event_id}"
        unit_id = f"{key}#{first}" if end - first == 1 else f"{key}#{first}-{end - 1}"
        self._settle_unit(unit_id, gift, effect, "rejected", reason, now, target, end - first)

    # --- at a safe point ----------------------------------------------------------------

    def next(self, moment: Moment, now: float) -> Pending | None:
        """The first waiting gift that may apply now, taken out of the queue (settle
        it once applied or refused); gifts past their time to live expire, and gifts
        that can never apply here are rejected on the way."""
        if self._in_hand is not None:
            raise RuntimeError("settle the gift in hand before asking for the next")
        kept = self._kept
        chosen: Pending | None = None
        while self._waiting:
            pending = self._waiting.popleft()
            if chosen is not None:
                kept.append(pending)
                continue
            if now - pending.queued_at > self.settings.ttl_s:
                self._settle(pending, "expired", None, now)
                continue
            if not _window_open(pending, moment):
                kept.append(pending)
                continue
            refusal = self._refusal(pending, moment)
            if refusal is not None:
                self._settle(pending, "rejected", refusal, now)
                continue
            if self._cooling(pending, now):
                if self.settings.on_cooldown == "reject":
                    self._settle(pending, "rejected", "cooldown", now)
                else:
                    kept.append(pending)
                continue
            chosen = pending
        self._waiting, self._kept = kept, self._waiting  # the walked one is empty now
        self._in_hand = chosen
        return chosen

    def drain(
        self,
        moment: Callable[[], Moment],
        apply: Callable[[Pending], str | None],
        now: float,
    ) -> int:
        """Apply, in one walk of the queue, every gift that may apply now: what
        :meth:`next` and :meth:`settle` do gift by gift, at the cost of one walk however
        many apply (a safe point in a burst stays short). ``apply`` applies a gift and
        returns None, or why it could not; ``moment`` is read again after each applied
        gift (an effect changes the hand sizes, the doubles). Returns how many applied."""
        if self._in_hand is not None:
            raise RuntimeError("settle the gift in hand before draining")
        settings = self.settings
        kept = self._kept
        current = moment()
        applied = 0
        try:
            while self._waiting:
                pending = self._waiting.popleft()
                if now - pending.queued_at > settings.ttl_s:
                    self._settle(pending, "expired", None, now)
                    continue
                if not _window_open(pending, current):
                    kept.append(pending)
                    continue
                refusal = self._refusal(pending, current)
                if refusal is not None:
                    self._settle(pending, "rejected", refusal, now)
                    continue
                if self._cooling(pending, now):
                    if settings.on_cooldown == "reject":
                        self._settle(pending, "rejected", "cooldown", now)
                    else:
                        kept.append(pending)
                    continue
                self._in_hand = pending
                refused = apply(pending)
                self.settle(pending, now, refused=refused)
                if refused is None:
                    applied += 1
                    current = moment()
        finally:
            if self._in_hand is not None:  # apply raised: the gift is settled, not lost
                self.settle(self._in_hand, now, refused="error")
            kept.extend(self._waiting)  # and the rest wait on
            self._waiting.clear()
            self._waiting, self._kept = kept, self._waiting
        return applied

    def settle(self, pending: Pending, now: float, *, refused: str | None = None) -> Outcome:
        """The gift :meth:`next` gave was applied (``refused`` None: its cooldowns
        start now) or could not be (``refused``: why, as the engine said)."""
        if pending is not self._in_hand:
            raise RuntimeError("settle the gift that next() gave")
        self._in_hand = None
        if refused is not None:
            return self._settle(pending, "rejected", refused, now)
        settings = self.settings
        effect = pending.effect
        self._effect_free_at[effect] = now + settings.effect_cooldown_s.get(effect, 0.0)
        viewer = pending.gift.viewer_id
        if viewer is not None:
            free_at = self._viewer_free_at
            if len(free_at) >= _PRUNE_VIEWERS_AT:  # forget viewers whose cooldown is over
                self._viewer_free_at = {v: t for v, t in free_at.items() if t > now}
            self._viewer_free_at[viewer] = now + settings.viewer_cooldown_s
        if effect in STRONG:
            self._strong_free_at = now + settings.strong_cooldown_s
        return self._settle(pending, "applied", None, now)

    def close(self, now: float) -> None:
        """The match is over: every gift still waiting expires (settled, not lost)."""
        while self._waiting:
            self._settle(self._waiting.popleft(), "expired", None, now)

    # --- rules ------------------------------------------------------------------------

    def _refusal(self, pending: Pending, moment: Moment) -> str | None:
        effect, target = pending.effect, pending.target
        if effect in STRONG:
            if target is None:
                return "no_target"
            sizes, fewest = moment.hand_sizes, self.settings.last_cards
            if not 0 <= target < len(sizes):
                return "no_target"
            others = [seat for seat in range(len(sizes)) if seat != target]
            # the other player involved is drawn among those above the limit
            if sizes[target] <= fewest or all(sizes[seat] <= fewest for seat in others):
                return "last_cards"
        return moment.refused.get(effect)

    def _cooling(self, pending: Pending, now: float) -> bool:
        if now < self._effect_free_at.get(pending.effect, 0.0):
            return True
        viewer = pending.gift.viewer_id
        if viewer is not None and now < self._viewer_free_at.get(viewer, 0.0):
            return True
        return pending.effect in STRONG and now < self._strong_free_at

    def _remember_key(self, key: tuple[str, str]) -> None:
        """A delivery seen (the oldest forgotten past ``remember``: memory stays bounded)."""
        self._seen[key] = None
        if len(self._seen) > self._remember:
            del self._seen[next(iter(self._seen))]

    def _settle(self, pending: Pending, status: Status, reason: str | None, now: float) -> Outcome:
        return self._settle_unit(
            pending.id, pending.gift, pending.effect, status, reason, now, pending.target
        )

    def _settle_unit(
        self,
        unit_id: str,
        gift: GiftEvent,
        effect: GiftEffect | None,
        status: Status,
        reason: str | None,
        now: float,
        target: int | None = None,
        units: int = 1,
    ) -> Outcome:
        outcome = Outcome(unit_id, gift, effect, status, reason, now, target, units)
        if self._keep:
            self.outcomes.append(outcome)
        key = (status, reason)
        self.counts[key] = self.counts.get(key, 0) + units
        if self._on_outcome is not None:
            self._on_outcome(outcome)
        return outcome


def others_involved(target: int, moment: Moment, last_cards: int = 5) -> list[int]:
    """The seats a strong intervention on ``target`` may draw its other player from:
    the others at the table, but not one holding ``last_cards`` cards or fewer."""
    sizes = moment.hand_sizes
    return [s for s in range(len(sizes)) if s != target and sizes[s] > last_cards]


def _window_open(pending: Pending, moment: Moment) -> bool:
    effect = pending.effect
    if effect in BETWEEN_ROUNDS:
        return moment.phase == PHASE_BETWEEN_ROUNDS
    if moment.phase in (PHASE_BETWEEN_ROUNDS, PHASE_OVER):
        return False
    if effect in ANY_TIME:
        return True
    if moment.phase != PHASE_PLAY:
        return False
    if effect in BEFORE_LEAD:
        return moment.leading and moment.to_act == pending.target
    return True  # PLAY_PHASE
