"""The delayed spectator feed: every hand for a stream, released only after a delay.

A stream usually shows every player's cards, but an agent must never see them live: a
viewer (or an agent's author) watching the stream would otherwise read the other
hands during the match. So the hidden information goes to a separate feed, held here in
the server process and handed to the feed's outputs only when it is ``delay_s`` old.
It is never delayed in a browser: that would put live hands on the wire.

The feed is a recorder (:class:`~arena.table.Recorder`), one per table from
:meth:`SpectatorFeed.for_table`, so the table needs no change: tee it with the replay's
(:func:`~arena.table.tee_recorders`). It learns each seat's hand from the DEAL message
sent to that seat, the bottom cards as the rest of the deck (once the three hands are
dealt), the landlord's full hand from ``landlord_chosen``, and every play from the
``play`` events. It gives nothing to agents or to the public sinks; it is off unless
someone builds one.

Items are JSON-ready dicts, in order per table, each with a ``kind``:

- ``"event"``: a public event (``event``: :meth:`Event.to_dict`), so that the feed alone
  tells the whole story in the right order;
- ``"hands"``: every seat's hand after a change (``reason``: ``"deal"``, ``"landlord"``
  or ``"play"``), ``players``, ``hands`` (three lists of canonical cards, by seat),
  ``bottom`` and ``landlord`` (seat or None), ``seat`` (who played, for ``"play"``);
- any kind a caller adds with :meth:`SpectatorTable.note` (a gift's ``"peek"``).

Each also has ``table``, ``round``, ``seq`` (the feed's own count per table, from 1),
``after_seq`` (the last public event's ``seq`` at that moment: where the item fits in
the public feed), ``at`` (Unix ms, wall clock, when it happened) and ``released_at``
(Unix ms, when it was handed on). A ``hands`` item is a whole snapshot, so a viewer
that joins late or misses items is right again at the next one.

Outputs are anything with ``async emit_spectator(item)``: a name apart from a sink's
``emit`` on purpose, so that no public sink can be handed hidden items by mistake (the
MQTT sink's :meth:`~arena.sinks.mqtt.MqttSink.emit_spectator` publishes them to
``<prefix>/tables/<t>/spectator`` only; ``arena play --spectator-delay`` wires it).

Releasing: an item becomes due at ``clock.now() + delay_s`` (the table's
:class:`~arena.table.clock.Clock`, so tests drive it); :meth:`SpectatorFeed.pump`
releases what is due, in order; the task :meth:`SpectatorFeed.start` starts does so as
items fall due. The queue holds at most ``max_pending`` items: one more is dropped,
counted (:attr:`SpectatorFeed.dropped`) and logged, never blocking a table (the next
``hands`` item repairs the view). An output that raises is counted under the sinks'
health policy (:mod:`arena.sinks.health`) and gets the next items all the same.

Closing waits out the delay of what is pending and releases it (the last hand of the
match is shown, never early); that takes at most ``delay_s`` plus the outputs' time,
and the caller bounds it if it must (``asyncio.timeout``): what a cancelled close
leaves is dropped, counted and logged.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from arena.errors import ConfigError
from arena.events import Event
from arena.logs import get_logger
from arena.sinks.health import guard_after_failure
from arena.table.clock import Clock, MonotonicClock
from protocol import Deal
from protocol.cards import CANONICAL_CARDS

__all__ = [
    "CollectingSpectatorOutput",
    "SpectatorFeed",
    "SpectatorOutput",
    "SpectatorTable",
]

log = get_logger(__name__)

DEFAULT_MAX_PENDING = 20_000
"""About 100 rounds of one table (~180 items a round): far more than a paced show
holds in a delay of minutes, small enough to bound the memory of a runaway one."""

_CARD_ORDER = {card: index for index, card in enumerate(CANONICAL_CARDS)}


@runtime_checkable
class SpectatorOutput(Protocol):
    """Where released spectator items go (hidden information: never a public topic)."""

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """Handle one released item; should return quickly (queue slow work)."""
        ...


class CollectingSpectatorOutput:
    """Keeps every released item, with the feed's clock reading when it came: for tests
    and for programs embedding the arena."""

    def __init__(self, clock: Clock | None = None) -> None:
        self.items: list[dict[str, Any]] = []
        self.received_at: list[float] = []
        self._clock = clock

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """Store the item (and the clock's time, when given one)."""
        self.items.append(item)
        if self._clock is not None:
            self.received_at.append(self._clock.now())

    def of_kind(self, *kinds: str) -> list[dict[str, Any]]:
        """The stored items of the given kinds, in order."""
        return [i for i in self.items if i["kind"] in kinds]


class SpectatorFeed:
    """The delay and the outputs, shared by every table (one queue, one release task)."""

    def __init__(
        self,
        outputs: Sequence[SpectatorOutput],
        *,
        delay_s: float,
        clock: Clock | None = None,
        wall: Callable[[], float] = time.time,
        max_pending: int = DEFAULT_MAX_PENDING,
    ) -> None:
        if not delay_s >= 0:
            raise ConfigError(f"a spectator delay is 0 s or more, not {delay_s!r}")
        if max_pending < 1:
            raise ConfigError(f"max_pending is at least 1, not {max_pending!r}")
        self.outputs = list(outputs)
        self.delay_s = float(delay_s)
        self.clock: Clock = clock or MonotonicClock()
        self._wall = wall
        self.max_pending = max_pending
        self._pending: deque[tuple[float, dict[str, Any]]] = deque()
        self.released = 0
        """Items handed to the outputs so far."""
        self.dropped = 0
        """Items lost: the queue was full, the feed was closed, or a close was cancelled."""
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._closing = False
        self._tables: dict[str, SpectatorTable] = {}

    # --- tables put items in --------------------------------------------------------------

    def for_table(self, table: str) -> SpectatorTable:
        """The recorder of one table, feeding this feed (the same one each time asked, so
        a table's ``seq`` never starts again)."""
        recorder = self._tables.get(table)
        if recorder is None:
            recorder = self._tables[table] = SpectatorTable(self, table)
        return recorder

    def wall_ms(self) -> int:
        """Now, Unix milliseconds on the wall clock."""
        return int(self._wall() * 1000)

    def put(self, item: dict[str, Any]) -> None:
        """Hold an item until it is ``delay_s`` old; never blocks (a full queue drops it)."""
        if self._closing or len(self._pending) >= self.max_pending:
            self.dropped += 1
            if self.dropped == 1 or self.dropped % 1000 == 0:
                log.warning(
                    "spectator_item_dropped",
                    reason="closed" if self._closing else "queue_full",
                    dropped=self.dropped,
                    max_pending=self.max_pending,
                    table=item.get("table"),
                )
            return
        self._pending.append((self.clock.now() + self.delay_s, item))
        self._wake.set()

    @property
    def pending(self) -> int:
        """Items held, not yet due or not yet handed on."""
        return len(self._pending)

    # --- items go out ---------------------------------------------------------------------

    async def pump(self) -> int:
        """Hand every due item to the outputs, oldest first; returns how many.

        Only items whose time has come (``now >= due``) leave: nothing is ever early.
        """
        pending = self._pending
        now = self.clock.now()
        count = 0
        while pending and pending[0][0] <= now:
            _, item = pending.popleft()
            item["released_at"] = self.wall_ms()
            for output in self.outputs:
                try:
                    await output.emit_spectator(item)
                except Exception as exc:
                    self.outputs = guard_after_failure(
                        self.outputs, output, exc, during="emit_spectator"
                    )
            count += 1
        self.released += count
        return count

    def start(self) -> None:
        """Release items as they fall due, in a task of the running loop, until close."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def close(self) -> None:
        """Wait out the delay of what is pending, release it, and stop.

        Takes at most ``delay_s`` plus the outputs' time; items put afterwards are
        dropped. Cancelled (the caller's bound), what is left is dropped and counted.
        """
        self._closing = True
        self._wake.set()
        try:
            if self._task is not None:
                await asyncio.shield(self._task)
            else:
                await self._run()
        except asyncio.CancelledError:
            self._abandon()
            raise
        if self.dropped:
            log.warning("spectator_feed_closed", released=self.released, dropped=self.dropped)

    async def _run(self) -> None:
        pending = self._pending
        while True:
            if not pending:
                if self._closing:
                    return
                self._wake.clear()
                await self._wake.wait()
                continue
            wait = pending[0][0] - self.clock.now()
            if wait > 0:
                await self.clock.sleep(wait)
            else:
                await self.pump()

    def _abandon(self) -> None:
        """A cancelled close: stop the task, count what never went out."""
        if self._task is not None:
            self._task.cancel()
        left = len(self._pending)
        if left:
            self.dropped += left
            self._pending.clear()
            log.warning("spectator_items_abandoned", left=left, dropped=self.dropped)


class SpectatorTable:
    """One table's recorder for the spectator feed: follows the hands, makes the items.

    Cheap when it is not interested: a message that is no DEAL costs one type check.
    """

    def __init__(self, feed: SpectatorFeed, table: str) -> None:
        self.feed = feed
        self.table = table
        self.round = 0
        self.seq = 0
        self.last_event_seq = 0
        self.players: list[str] = []
        self.hands: list[list[str] | None] = [None, None, None]
        self.bottom: list[str] | None = None
        self.landlord: int | None = None

    # --- the Recorder protocol ------------------------------------------------------------

    def round_started(self, header: dict[str, Any]) -> None:
        """A new round: forget the last one's hands (the seed stays out of the feed)."""
        self.round = int(header["round"])
        self.players = list(header.get("players", ()))
        self._new_deal()

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """A DEAL to a seat is its hand; the third completes the deal (and the bottom)."""
        if type(message) is not Deal or direction != "to_agent":
            return
        hands = self.hands
        hands[seat] = list(message.hand)
        if all(h is not None for h in hands):
            dealt = {c for h in hands if h is not None for c in h}
            self.bottom = [c for c in CANONICAL_CARDS if c not in dealt]
            self._hands_item("deal")

    def event(self, event: Event) -> None:
        """The public event into the feed, and the hands it changes after it."""
        self.last_event_seq = event.seq
        self._put("event", {"event": event.to_dict()}, round_no=event.round)
        kind = event.type
        if kind == "play" and event.seat is not None:
            hand = self.hands[event.seat]
            if hand is not None:
                played = set(event.data.get("cards", ()))
                self.hands[event.seat] = [c for c in hand if c not in played]
                self._hands_item("play", seat=event.seat)
        elif kind == "landlord_chosen" and event.seat is not None:
            self.landlord = event.seat
            bottom = list(event.data.get("bottom_cards", ()))
            self.bottom = bottom
            hand = self.hands[event.seat]
            if hand is not None:
                self.hands[event.seat] = sorted({*hand, *bottom}, key=_CARD_ORDER.__getitem__)
                self._hands_item("landlord")
        elif kind == "redeal":
            self._new_deal()

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Nothing to add: the ``round_result`` event already showed the hands left."""

    def effect(self, record: dict[str, Any]) -> None:
        """A viewer gift moved cards (it comes just before its public ``effect_applied``
        event): a swap exchanges one card of each seat, a transfer moves one from the
        first seat to the second. The hands after it are an item, ``reason`` ``gift``."""
        kind, seats, cards = record.get("effect"), record.get("seats", ()), record.get("cards", ())
        hands = self.hands
        if kind == "swap" and len(seats) == 2 and len(cards) == 2:
            moves = [(seats[0], seats[1], cards[0]), (seats[1], seats[0], cards[1])]
        elif kind == "transfer" and len(seats) == 2 and len(cards) == 1:
            moves = [(seats[0], seats[1], cards[0])]
        else:
            return  # a double moves no card
        if any(hands[seat] is None for seat in seats):
            return  # joined mid-round: no hands to follow
        for source, target, card in moves:
            hands[source] = [c for c in hands[source] or () if c != card]
            hands[target] = sorted([*(hands[target] or ()), card], key=_CARD_ORDER.__getitem__)
        self._hands_item("gift", seat=seats[0])

    # --- more hidden information ------------------------------------------------------------

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """Put any other hidden item in the feed, delayed like the rest (a gift's peek at
        a hand: ``note("peek", {"viewer": ..., "seat": ..., "cards": [...]})``)."""
        self._put(kind, dict(data))

    # --- helpers --------------------------------------------------------------------------

    def _new_deal(self) -> None:
        self.hands = [None, None, None]
        self.bottom = None
        self.landlord = None

    def _hands_item(self, reason: str, *, seat: int | None = None) -> None:
        data: dict[str, Any] = {
            "reason": reason,
            "players": list(self.players),
            "hands": [list(h) if h is not None else None for h in self.hands],
            "bottom": list(self.bottom) if self.bottom is not None else None,
            "landlord": self.landlord,
        }
        if seat is not None:
            data["seat"] = seat
        self._put("hands", data)

    def _put(self, kind: str, data: dict[str, Any], *, round_no: int | None = None) -> None:
        self.seq += 1
        item = {
            "kind": kind,
            "table": self.table,
            "round": self.round if round_no is None else round_no,
            "seq": self.seq,
            "after_seq": self.last_event_seq,
            "at": self.feed.wall_ms(),
            "released_at": None,
            **data,
        }
        self.feed.put(item)
