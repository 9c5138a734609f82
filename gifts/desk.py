"""One table's gifts: what a gift does, whom it targets, the queue, and every outcome told.

A :class:`GiftDesk` sits beside one table. :meth:`GiftDesk.submit` takes a normalized
gift from any source: the config maps it to an effect (or it names its own), a target
is picked (:func:`gifts.targeting.pick_target`), and its units go to the queue. The
table calls the desk at each safe point (:meth:`GiftDesk.at_safe_point`) and between
rounds (:meth:`GiftDesk.between_rounds`), where the director applies what may apply.

Every unit is told as a ``gift`` event, through the table's own ``emit`` (so it reaches
the sinks, the MQTT feed's gifts topic and the replay like any event): ``queued`` when
it waits, then exactly one of ``applied``, ``rejected`` (with a reason) or ``expired``.
Outcomes settle synchronously inside the queue; the desk collects them and tells them
from whichever task is running (the source's, or the table's at a safe point), in the
order they happened.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Sequence
from typing import Any, Final

from arena.errors import ConfigError
from arena.games.base import Game
from arena.games.registry import DEFAULT_GAME, get_game
from arena.table.safe_point import BetweenRoundsHandle, GameGifts, SafePointHandle
from gifts.director import GiftDirector, PeekOutput
from gifts.events import GiftEffect, GiftEvent, GiftKind
from gifts.queue import GiftQueue, Outcome, Pending
from gifts.settings import GiftSettings
from gifts.targeting import named_seat, pick_target, seeded_seat

__all__ = ["TARGETED", "Emit", "GiftDesk", "gift_event_data"]

TARGETED: Final = frozenset(
    {GiftEffect.CHEER, GiftEffect.PEEK, GiftEffect.SWAP, GiftEffect.ADD, GiftEffect.ROLE_SWAP}
)
"""Effects that need a seat: a gift without one gets one picked. The others (EMOTE,
DOUBLE, EFFECT, RESHUFFLE) target a seat only when the gift or its message names one."""

Emit = Callable[[Any, int | None, dict[str, Any]], Awaitable[None]]
"""The table's ``emit(kind, seat, data)``."""


class GiftDesk:
    """One table's gifts (see the module)."""

    def __init__(
        self,
        settings: GiftSettings,
        *,
        players: Sequence[str],
        match_seed: int,
        clock: Callable[[], float] = time.monotonic,
        on_peek: PeekOutput | None = None,
        keep_outcomes: bool = False,
        game: str | Game = DEFAULT_GAME,
        offered: Collection[str] | None = None,
    ) -> None:
        self.settings = settings
        self.game = game if isinstance(game, str) else game.name
        """The game the table plays (by name): a gift for an effect it does not offer is
        refused, and the game's own effects are applied by the game."""
        self.offered = frozenset(GiftEffect) if offered is None else frozenset(offered)
        """The effects the game offers (:attr:`arena.games.base.Game.gift_effects`)."""
        self.players = tuple(players)
        self.match_seed = match_seed
        self._clock = clock
        self._told: deque[tuple[str, Pending | Outcome | dict[str, Any], int]] = deque()
        self.queue = GiftQueue(
            settings.queue_settings(),
            on_outcome=self._outcome,
            on_queued=self._queued,
            keep_outcomes=keep_outcomes,
        )
        self.director = GiftDirector(
            self.queue,
            match_seed=match_seed,
            clock=clock,
            on_peek=on_peek,
            game_gifts=_game_gifts(game),
        )
        self._emit: Emit | None = None
        self._ready: Callable[[], bool] | None = None
        self.closed = False
        self.invalid = 0
        """Payloads refused before they were gifts (not JSON, wrong fields, bad signature)."""

    def attach(self, emit: Emit, *, ready: Callable[[], bool] | None = None) -> None:
        """Tell outcomes through ``emit`` (the table's), once ``ready`` says the match has
        started: a gift sent before it waits to be told after ``match_started``, where
        an overlay that starts afresh with each match will see it."""
        self._emit = emit
        self._ready = ready

    # --- in -----------------------------------------------------------------------------

    async def submit(self, gift: GiftEvent) -> None:
        """Take a gift: mapped, targeted, queued (or settled at once), and told."""
        now = self._clock()
        effect = self.settings.effect_for(gift)
        named = gift.target_seat
        seats = len(self.players)
        if named is not None and named >= seats:
            reason = (
                f"invalid: target_seat: the table has {seats} seats (0-{seats - 1}), not {named}"
            )
            self.queue.refuse(gift, effect, reason, now=now)
        elif effect is None:
            self.queue.refuse(gift, None, "unmapped", now=now, target=named)
        elif effect not in self.offered:
            reason = self._not_offered(effect)
            self.queue.refuse(gift, effect, reason, now=now, target=named)
        elif self.closed:
            self.queue.refuse(gift, effect, "match_over", now=now, target=named)
        else:
            self.queue.submit(
                gift,
                effect,
                target=named,
                now=now,
                pick=lambda: self._target(gift, effect),
                target_required=effect in TARGETED,  # None only with pick_target "reject"
            )
        await self.tell()

    async def refuse_payload(
        self, reason: str, *, event_id: str | None = None, platform: str | None = None
    ) -> None:
        """A payload that is not a gift (its reason names what is wrong): told as a
        rejected gift, so the streamer sees it and it is counted, but nothing else."""
        self.invalid += 1
        self._told.append(
            (
                "rejected",
                {
                    "id": f"{platform or '?'}:{event_id or '?'}#0",
                    "event_id": event_id,
                    "platform": platform,
                    "status": "rejected",
                    "reason": f"invalid: {reason}",
                    "effect": None,
                    "target": None,
                    "viewer": "a viewer",
                    "gift": "",
                    "kind": "gift",
                    "value": 0,
                    "currency": None,
                    "message": "",
                    "test": False,
                    "refund": False,
                    "waiting": self.queue.waiting,
                    "units": 1,
                },
                self.queue.waiting,
            )
        )
        await self.tell()

    def _not_offered(self, effect: GiftEffect) -> str:
        """``not_offered: <game>``, and the game's why when it says one (Tractor's
        ``DOUBLE``: ``not_offered: tractor: Tractor has no stakes to double: ...``)."""
        game_gifts = self.director.game_gifts
        why = game_gifts.declined.get(effect) if game_gifts is not None else None
        return f"not_offered: {self.game}: {why}" if why else f"not_offered: {self.game}"

    def _target(self, gift: GiftEvent, effect: GiftEffect) -> int | None:
        """The gift's seat: its own, else as ``[gifts] pick_target`` says for the
        effects that need one (None for ``reject``), else the one its message names."""
        if gift.target_seat is not None:
            return gift.target_seat
        if effect in TARGETED:
            rule = self.settings.pick_target
            if rule == "message":
                return pick_target(gift, self.players, match_seed=self.match_seed)
            if rule == "draw":
                return seeded_seat(gift, self.match_seed, len(self.players))
            return None
        return named_seat(gift.message, self.players)

    # --- at the table -------------------------------------------------------------------

    async def at_safe_point(self, handle: SafePointHandle) -> None:
        """The table's safe point: apply what may apply, then tell it (before the
        table announces the effects and asks the next seat)."""
        if self.queue.waiting:
            await self.director(handle)
        if self._told:
            await self.tell(now=True)  # the table is playing: its match has begun

    async def between_rounds(self, handle: BetweenRoundsHandle) -> None:
        """The break before a round: RESHUFFLE and the game's between-rounds effects
        (Dou Dizhu's ROLE_SWAP) apply here."""
        if self.queue.waiting:
            await self.director.between_rounds(handle)
        if self._told:
            await self.tell(now=True)

    async def close(self) -> None:
        """The match is over: every gift still waiting expires, and later ones are
        rejected ``match_over``; all of it told."""
        self.closed = True
        self.queue.close(self._clock())
        await self.tell(now=True)  # even a match that never began accounts for its gifts

    # --- out ----------------------------------------------------------------------------

    def _queued(self, pending: Pending) -> None:
        self._told.append(("queued", pending, self.queue.waiting))

    def _outcome(self, outcome: Outcome) -> None:
        self._told.append((outcome.status, outcome, self.queue.waiting))

    async def tell(self, *, now: bool = False) -> None:
        """Emit every outcome not told yet, in order; before the match has begun (see
        :meth:`attach`) only when ``now``, else they wait for the first safe point."""
        told = self._told
        emit = self._emit
        if not now and emit is not None and self._ready is not None and not self._ready():
            return
        while told:
            status, item, waiting = told.popleft()
            if emit is None:
                continue  # no table attached (a library user reads queue.outcomes)
            if isinstance(item, dict):  # a payload that was no gift, told as it was built
                data = item
            else:
                data = gift_event_data(item, status, waiting=waiting)
            await emit("gift", data["target"], data)

    @property
    def figures(self) -> dict[str, Any]:
        """Outcomes so far by status and reason, gifts waiting, and payloads refused."""
        by_status: dict[str, int] = {}
        by_reason: dict[str, int] = {}
        for (status, reason), count in self.queue.counts.items():
            by_status[status] = by_status.get(status, 0) + count
            if reason is not None:
                by_reason[reason] = by_reason.get(reason, 0) + count
        return {
            **by_status,
            "rejected_by_reason": by_reason,
            "waiting": self.queue.waiting,
            "invalid": self.invalid,
        }


def _game_gifts(game: str | Game) -> GameGifts | None:
    """The game's own gift operations; none for a game only named, that this install
    does not know."""
    if isinstance(game, str):
        try:
            game = get_game(game)
        except ConfigError:
            return None
    return game.gifts() if game.gifts is not None else None


def gift_event_data(item: Pending | Outcome, status: str, *, waiting: int) -> dict[str, Any]:
    """A ``gift`` event's data (protocol.events.GiftData): the unit, its status and
    reason, and the viewer's gift as an overlay shows it (never a PEEK's cards)."""
    gift = item.gift
    effect = item.effect
    reason = item.reason if isinstance(item, Outcome) else None
    return {
        "id": item.id,
        "event_id": gift.event_id,
        "platform": gift.platform,
        "status": status,
        "reason": reason,
        "effect": None if effect is None else effect.value,
        "target": item.target,
        "viewer": gift.shown_name,
        "gift": gift.gift_name,
        "kind": gift.kind.value,
        "value": gift.value,
        "currency": gift.currency,
        "message": gift.message,
        "test": gift.test,
        "refund": _refundable(status, reason, gift),
        "waiting": waiting,
        "units": item.units if isinstance(item, Outcome) else 1,
    }


def _refundable(status: str, reason: str | None, gift: GiftEvent) -> bool:
    """A channel-points redemption that did not apply (Twitch's model: accept, queue, then
    fulfil or refund); a duplicate delivery is not a second redemption to refund."""
    return (
        gift.kind is GiftKind.POINTS and status in ("rejected", "expired") and reason != "duplicate"
    )
