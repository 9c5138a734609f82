"""The delayed spectator feed: every hand for a stream, released only after a delay.

A stream usually shows every player's cards, but an agent must never see them live: a
viewer (or an agent's author) watching the stream would otherwise read the other
hands during the match. So the hidden information goes to a separate feed, held here in
the server process and handed to the feed's outputs only when it is ``delay_s`` old.
It is never delayed in a browser: that would put live hands on the wire.

The feed is a recorder (:class:`~arena.table.Recorder`), one per table from
:meth:`SpectatorFeed.for_table`, so the table needs no change: tee it with the replay's
(:func:`~arena.table.tee_recorders`). What a seat holds it learns the game's way (the
game's :attr:`~arena.games.base.Game.spectator_table`; Dou Dizhu's is
``arena/games/ddz/spectator.py``). It gives nothing to agents or to the public sinks;
it is off unless someone builds one.

Items are JSON-ready dicts, in order per table, each with a ``kind``:

- ``"event"``: a public event (``event``: :meth:`Event.to_dict`), so that the feed alone
  tells the whole story in the right order;
- ``"hands"``: every seat's hand after a change (``reason``: ``"deal"``, ``"play"`` or
  the game's own), ``players``, ``hands`` (a list of canonical cards per seat),
  ``seat`` (who played, for ``"play"``), and what else the game's recorder says of its
  round (its module lists them);
- ``"thought"``: what a seat had in mind for a decision (see below);
- any kind a caller adds with :meth:`SpectatorTable.note` (a gift's ``"peek"``).

A ``"thought"`` item follows the event of the action it explains: ``seat``, ``player``,
``request`` (the request's type, from the seat's ``turn_started``), ``action`` (the
action event's type: ``play``, ``bid`` ...), ``hint`` (the agent's strategy hint as the
event carries it, moderated by the table; None without one) and ``reasoning`` (None, or
a summary of a model seat's reasoning where its provider returns one: its last
sentences, :func:`~arena.sinks.thoughts.reasoning_summary`, with secrets and anything
shaped like a key redacted, then passed through the feed's moderator). A model seat's
report reaches the recorder (``decision``) before its action's event: the reasoning of
the accepted attempt waits for the seat's next event other than the table's own
``decision`` and ``budget_spent``, which is its action. A seat with neither a hint nor
reasoning (a scripted bot) gets no thought item. The reasoning is hidden information
(it may name the seat's cards): it is never in a public event, only here, delayed.

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
from typing import Any, Final, Protocol, runtime_checkable

from arena.errors import ConfigError
from arena.events import Event
from arena.games.registry import DEFAULT_GAME, get_game
from arena.logs import get_logger
from arena.sinks.health import guard_after_failure
from arena.sinks.thoughts import reasoning_summary, redacted
from arena.table.clock import Clock, MonotonicClock
from arena.table.moderation import Moderator, default_moderator

__all__ = [
    "CollectingSpectatorOutput",
    "SpectatorFeed",
    "SpectatorOutput",
    "SpectatorTable",
]

log = get_logger(__name__)

_TABLE_OWN: Final = frozenset({"decision", "budget_spent"})
"""A seat's events the table emits between a model seat's report and its action."""

DEFAULT_MAX_PENDING = 20_000
"""About 100 rounds of one table (~180 items a round): far more than a paced show
holds in a delay of minutes, small enough to bound the memory of a runaway one."""


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
        moderator: Moderator | None = None,
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
        self.moderator = moderator if moderator is not None else default_moderator()
        """What viewers may read of a model's reasoning: the tables' moderator (the
        ``[moderation]`` section), as for comments and hints."""
        self._moderating: set[asyncio.Task[None]] = set()

    # --- tables put items in --------------------------------------------------------------

    def for_table(self, table: str, game: str = DEFAULT_GAME) -> SpectatorTable:
        """The recorder of one table of ``game``, feeding this feed (the same one each time
        asked, so a table's ``seq`` never starts again): the game's own
        (:attr:`~arena.games.base.Game.spectator_table`), which follows its hands."""
        recorder = self._tables.get(table)
        if recorder is None:
            made: SpectatorTable = get_game(game).spectator_table(self, table)
            recorder = self._tables[table] = made
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

    def moderate_then_put(
        self, recorder: SpectatorTable, kind: str, data: dict[str, Any], text: str
    ) -> None:
        """Put an item whose ``data["reasoning"]`` is ``text`` once the moderator's hook
        has read it (a task: a recorder cannot await); :meth:`close` waits for these
        first (each takes at most the hook's timeout)."""

        async def moderate() -> None:
            seat = int(data.get("seat") or 0)
            player = str(data.get("player") or "")
            shown = await self.moderator.moderate(text, seat=seat, player=player)
            recorder.note(kind, {**data, "reasoning": redacted(shown)})

        task = asyncio.get_running_loop().create_task(moderate())
        self._moderating.add(task)
        task.add_done_callback(self._moderating.discard)

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
        if self._moderating:  # thoughts still with the moderator's hook go in first
            await asyncio.gather(*self._moderating, return_exceptions=True)
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
    """One table's recorder for the spectator feed: the game's subclass follows what its
    seats hold and makes the items (Dou Dizhu's: ``arena.games.ddz.spectator``); this
    base keeps the table's count and puts every public event in the feed.

    Cheap when it is not interested: a message the game does not follow costs one type
    check.
    """

    def __init__(self, feed: SpectatorFeed, table: str) -> None:
        self.feed = feed
        self.table = table
        self.round = 0
        self.seq = 0
        self.last_event_seq = 0
        self.players: list[str] = []
        self._asked: dict[int, str] = {}
        """Each seat's last request type (its ``turn_started``), for its thought."""
        self._thinking: dict[int, str | None] = {}
        """A model seat's accepted decision whose action event has not come yet: the
        summary of its reasoning (None: the provider returned none)."""

    # --- the Recorder protocol ------------------------------------------------------------

    def round_started(self, header: dict[str, Any]) -> None:
        """A new round: its players (the seed stays out of the feed)."""
        self.round = int(header["round"])
        self.players = list(header.get("players", ()))
        self._thinking.clear()

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """A message to or from a seat: the game's subclass reads the hidden ones."""

    def event(self, event: Event) -> None:
        """The public event into the feed (the game's subclass then follows the hands)."""
        self.last_event_seq = event.seq
        self._put("event", {"event": event.to_dict()}, round_no=event.round)
        if event.seat is not None:
            self._follow_thought(event)

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        """A model seat's attempt (see :class:`~arena.table.DecisionRecorder`): the
        accepted one's reasoning waits for the seat's action event."""
        if record.get("outcome") != "accepted":
            return
        report = record.get("report")
        reasoning = report.get("reasoning") if isinstance(report, Mapping) else None
        self._thinking[seat] = reasoning_summary(reasoning)

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Nothing to add: the round's result event already showed what it shows."""

    def effect(self, record: dict[str, Any]) -> None:
        """A viewer gift's hidden details (the cards it moved): the game's to follow."""

    # --- what the seats had in mind -------------------------------------------------------

    def _follow_thought(self, event: Event) -> None:
        """After a seat's event: remember what it was asked, or put the thought behind its
        action (a model seat's reasoning, the hint an event carries)."""
        seat = event.seat
        assert seat is not None
        kind = event.type
        if kind == "turn_started":
            asked = event.data.get("request")
            if isinstance(asked, str):
                self._asked[seat] = asked
            return
        if kind in _TABLE_OWN:
            return
        hint = event.data.get("hint")
        thinking = self._thinking
        if seat not in thinking and not hint:
            return
        reasoning = thinking.pop(seat, None)
        data: dict[str, Any] = {
            "seat": seat,
            "player": event.player,
            "request": self._asked.get(seat),
            "action": kind,
            "hint": redacted(hint) if isinstance(hint, str) and hint else None,
            "reasoning": None,
        }
        if reasoning is None:
            if data["hint"] is not None:
                self._put("thought", data)
            return
        moderator = self.feed.moderator
        if moderator.synchronous:
            data["reasoning"] = moderator.filter(reasoning)
            self._put("thought", data)
        else:
            self.feed.moderate_then_put(self, "thought", data, reasoning)

    # --- more hidden information ------------------------------------------------------------

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """Put any other hidden item in the feed, delayed like the rest (a gift's peek at
        a hand: ``note("peek", {"viewer": ..., "seat": ..., "cards": [...]})``)."""
        self._put(kind, dict(data))

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
