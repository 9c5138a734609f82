"""The overlay's hub: the tables' public events in, every page's WebSocket feed out.

The hub is a sink (public events only) and a spectator output (the delayed feed's
items), so the tables need no change to be shown. It keeps what a page that joins late
needs at once (each table's public snapshot, a model seat's figures, the last gifts, the
leaderboard) and hands each connected page its own bounded queue of JSON messages, in
the contract of docs/overlay.md:

- ``server``: what the server shows (mode, tables, the featured table, pause, the
  language, the avatars, the sinks degraded: :mod:`arena.sinks.health`); first, and
  again when any of it changes;
- ``snapshot``: a table's public picture (its game's ``TableState``), coalesced: at most one
  per table every :data:`SNAPSHOT_INTERVAL_S` while events keep coming; it names the
  table's game and its overlay renderer (:mod:`arena.server.game_assets`);
- the public events themselves, exactly as on the MQTT feed (``v`` and ``run`` added);
- ``leaderboard``: a tournament's standings;
- on ``/ws/spectator`` only: ``spectator`` items (every hand, each seat's thoughts), and
  snapshots folded from the delayed events alone (with the last ``hands`` item and each
  seat's last ``thought``), so that the delayed view never runs ahead of its delay.

Nothing here waits: :meth:`OverlayHub.emit` folds the event and appends to queues. A
page that cannot keep up (its queue full) loses its queue and is sent the whole picture
again instead (``server`` and ``snapshot``): a slow browser never slows a table, and is
right again at once. A page follows the featured table unless it asked for one
(``?table=t2``); the featured table is the streamer's pick (``/control``), else the
first table that is live.

Between two featured tables (a tournament's, ``between_tables_s`` > 0) the hub keeps
showing the table that ended for that long, with ``next_at`` and ``next`` (the table
that will be featured, its players) in the ``server`` message, so that the pages show
the between screen before they follow the next table. Only the pages wait: the tables
play on as fast as they play.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from arena.errors import ConfigError
from arena.events import Event
from arena.games.registry import DEFAULT_GAME, get_game
from arena.masking import mask
from arena.safe_json import dumps
from arena.server.game_assets import game_overlay
from arena.sinks.health import Degraded
from arena.sinks.public_state import PublicState, new_table_state
from protocol.events import EVENT_SCHEMA_VERSION

__all__ = [
    "MAX_QUEUED",
    "SNAPSHOT_INTERVAL_S",
    "Feed",
    "Mode",
    "OverlayHub",
    "Subscription",
]

SNAPSHOT_INTERVAL_S: Final = 0.05
"""A table's snapshot goes out at most this often while its events keep coming."""
MAX_QUEUED: Final = 2_000
"""Messages waiting for one page at most; beyond it the page is sent the picture anew."""
_RECENT_GIFTS: Final = 5

Mode = Literal["play", "serve", "tournament"]
Feed = Literal["public", "spectator"]
MatchStatus = Literal["waiting", "live", "ended"]


def _json(message: Mapping[str, Any]) -> str:
    """A page's message as text, every known secret masked (:mod:`arena.masking`); a
    value no JSON holds is sent as text, the page kept."""
    return mask(dumps(message, where="an overlay message").decode())


@dataclass
class _Figures:
    """A model seat's figures at one table, from its ``decision`` events."""

    model: str | None = None
    provider: str | None = None
    decisions: int = 0
    legal_first_try: int = 0
    cost: float | None = None

    def add(self, data: Mapping[str, Any]) -> None:
        self.model = data.get("model") or self.model
        self.provider = data.get("provider") or self.provider
        self.decisions += 1
        self.legal_first_try += bool(data.get("legal_first_try"))
        cost = data.get("cost")
        if cost is not None:
            self.cost = (self.cost or 0.0) + float(cost)

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "provider": self.provider,
            "decisions": self.decisions,
            "legal_first_try": self.legal_first_try,
            "legal_rate": round(self.legal_first_try / self.decisions, 4)
            if self.decisions
            else None,
            "cost": None if self.cost is None else round(self.cost, 6),
        }


@dataclass
class _Table:
    """What the hub keeps of one table beyond its snapshot."""

    game: str = DEFAULT_GAME
    """The game the table plays, as its events say."""
    figures: dict[int, _Figures] = field(default_factory=dict)
    """A model seat's figures, by seat (a seat no model plays has none)."""
    gifts: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=_RECENT_GIFTS))
    hands: dict[str, Any] | None = None
    """The last delayed ``hands`` item (spectator side only)."""
    thoughts: dict[int, dict[str, Any]] = field(default_factory=dict)
    """Each seat's last delayed ``thought`` item (spectator side only), this match."""
    last_round: dict[str, Any] | None = None
    """The round just ended: its ``round_result`` event, until the next round starts."""
    rounds: list[dict[str, Any]] = field(default_factory=list)
    """Each ended round's ``round_no``, ``scores`` and ``totals``: the match's story."""
    ended: dict[str, Any] | None = None
    """The match's ``match_ended`` event, once it ended."""

    def fold(self, event: Event) -> None:
        """Keep the table's game, a model seat's figures and the last gifts, from the
        table's events."""
        self.game = event.game
        if event.type == "match_started":
            self.figures = {}
            self.thoughts = {}
            self.gifts.clear()
            self.last_round = self.ended = None
            self.rounds = []
        elif event.type == "round_started":
            self.last_round = None
        elif event.type == "round_result":
            self.last_round = event.to_dict()
            data = event.data
            self.rounds.append(
                {
                    "round_no": data.get("round_no"),
                    "scores": dict(data.get("scores") or {}),
                    "totals": dict(data.get("totals") or {}),
                }
            )
        elif event.type == "match_ended":
            self.ended = event.to_dict()
        elif event.type == "decision" and event.seat is not None and event.seat >= 0:
            figures = self.figures.setdefault(event.seat, _Figures())
            figures.add(event.data)
        elif event.type == "gift":
            self.gifts.append(event.to_dict())

    def figures_json(self, seats: int) -> list[dict[str, Any] | None]:
        """Every seat's figures (None for a seat without), for a table of ``seats``."""
        count = max(seats, *(seat + 1 for seat in self.figures), 0)
        return [
            None if (f := self.figures.get(seat)) is None else f.to_dict() for seat in range(count)
        ]

    def story_json(self) -> dict[str, Any]:
        """The round's and the match's story, for the overlay's result and match cards
        (a page that joins late draws them from this alone)."""
        return {"round": self.last_round, "rounds": list(self.rounds), "match": self.ended}


class Subscription:
    """One page's feed: a bounded queue of JSON texts, and the table it shows."""

    def __init__(self, hub: OverlayHub, feed: Feed, table: str | None) -> None:
        self.hub = hub
        self.feed = feed
        self.asked = table
        """The table the page asked for (``?table=``), or None: the featured one."""
        self.shown: str | None = None
        self._queue: deque[str] = deque()
        self._wake = asyncio.Event()
        self.resyncs = 0
        """How many times the page fell behind and was sent the picture anew."""

    def push(self, text: str) -> None:
        if len(self._queue) >= MAX_QUEUED:
            self._queue.clear()
            self.resyncs += 1
            self._queue.extend(self.hub.picture(self))
        else:
            self._queue.append(text)
        self._wake.set()

    async def next(self) -> str:
        """The next message for the page (waits for one)."""
        while not self._queue:
            self._wake.clear()
            await self._wake.wait()
        return self._queue.popleft()

    def pending(self) -> int:
        return len(self._queue)

    def close(self) -> None:
        self.hub.unsubscribe(self)


class OverlayHub:
    """See the module. One per server; :meth:`reset` starts it afresh for a new match."""

    never_waits = True
    """The runner puts no queue in front of it: :meth:`emit` only folds and appends."""

    def __init__(
        self,
        *,
        run_id: str,
        mode: Mode = "play",
        lang: str = "zh",
        sound: bool = False,
        spectator_delay_s: float | None = None,
        avatars: Mapping[str, str] | None = None,
        between_tables_s: float = 0.0,
        seats: int | None = None,
    ) -> None:
        self.mode: Mode = mode
        self.seats = seats
        """The seats of the tables the server plays (its config's), if it knows them: a
        page shows that many empty seats before the first snapshot (a Tractor table of
        six, not its game's default four)."""
        self.between_tables_s = between_tables_s
        """How long the pages keep showing a featured table that ended, counting down to
        the next one (0: they follow the next at once)."""
        self.describe_table: Callable[[str], Mapping[str, Any]] | None = None
        """What the pages are told of the next table besides its id and players (a
        tournament's: its stage and number), or None."""
        self.lang = lang
        self.sound = sound
        self.spectator_delay_s = spectator_delay_s
        self.avatars = dict(avatars or {})
        self.paused: frozenset[str] = frozenset()
        """The tables held at the pause gate now."""
        self.pausing = False
        """A pause was asked for: the tables stop after the round they play."""
        self._subscriptions: list[Subscription] = []
        self.next_at: int | None = None
        """When the next match is dealt (Unix ms), between two matches of ``arena serve
        --next-in``, or the end of a hold between two featured tables; None otherwise.
        Pages count down to it."""
        self.upcoming: dict[str, Any] | None = None
        """What is known of what comes at ``next_at`` (``next`` in the ``server``
        message): the table and its players, or None."""
        self._hold: asyncio.TimerHandle | None = None
        """The hold between two featured tables, while it lasts."""
        self._held: str | None = None
        """The table whose end started the hold."""
        self.on_page: Callable[[], object] | None = None
        """Called when a page (not a preview) opens its feed: ``--wait-for-start`` deals
        once an overlay is there to show it."""
        self._flush_handle: asyncio.TimerHandle | None = None
        self.degraded: Degraded = []
        """The run's degraded sinks (this hub among them, if its events fail), as the
        board it is tracked on last said: in ``/healthz`` and every ``server`` message."""
        self.reset(run_id)

    # --- the run ------------------------------------------------------------------------

    def reset(self, run_id: str) -> None:
        """Forget every table: a new match starts (``arena serve``'s next match)."""
        self.run_id = run_id
        self._public = PublicState(run_id)
        self._delayed = PublicState(run_id)
        self._tables: dict[str, _Table] = {}
        self._delayed_tables: dict[str, _Table] = {}
        """The same, folded from the delayed feed's events: the spectator view's."""
        self._dirty: set[tuple[Feed, str]] = set()
        self._auto: str | None = None
        """The first table live: featured unless the streamer picked one."""
        self._chosen: str | None = None
        """The streamer's pick (``/control``)."""
        self._leaderboard: dict[str, Any] | None = None
        self._end_hold()
        self.events = 0
        self.degraded = []  # the new run's board says its own
        for subscription in self._subscriptions:
            subscription.shown = subscription.asked  # a pinned page keeps its table
        self._tell_server()

    @property
    def tables(self) -> list[str]:
        """Every table seen in this run, in the order its first event came."""
        return list(self._tables)

    @property
    def featured(self) -> str | None:
        """The streamer's pick while that table exists, else the first table live."""
        if self._chosen is not None and self._chosen in self._tables:
            return self._chosen
        return self._auto

    @property
    def match_status(self) -> MatchStatus:
        """``waiting`` before any table started, ``live`` while one plays, then ``ended``."""
        states = list(self._public)
        if not states:
            return "waiting"
        if any(state.status != "ended" for state in states):
            return "live"
        return "ended"

    def feature(self, table: str) -> None:
        """The streamer's featured table (a ConfigError, a ValueError, naming the tables
        if it is none of them)."""
        if table not in self._tables:
            known = ", ".join(self._tables) or "none yet"
            raise ConfigError(f"no table {table!r} (tables: {known})")
        self._chosen = table
        if self._end_hold():  # the streamer's pick now: no countdown to another table
            self._tell_server()
        self._follow_featured()

    def set_paused(self, tables: frozenset[str], *, pausing: bool) -> None:
        """Which tables wait at the pause gate, and whether a pause was asked for: each
        page says "paused" only for a table of its that waits."""
        if tables != self.paused or pausing != self.pausing:
            self.paused, self.pausing = tables, pausing
            self._tell_server()

    def set_next(self, at_ms: int | None, *, players: list[str | None] | None = None) -> None:
        """When the next match is dealt (Unix ms; None: no match is due) and who plays
        it, if known: every page is told, and counts down."""
        upcoming = None if at_ms is None or players is None else {"players": list(players)}
        if at_ms != self.next_at or upcoming != self.upcoming:
            self.next_at, self.upcoming = at_ms, upcoming
            self._tell_server()

    def health_changed(self, degraded: Degraded) -> None:
        """The degraded sinks now (a :class:`~arena.sinks.health.SinkHealthBoard` it
        is tracked on tells it): every page is told, and ``/healthz`` says them."""
        if degraded != self.degraded:
            self.degraded = list(degraded)
            self._tell_server()

    def set_leaderboard(self, board: Mapping[str, Any]) -> None:
        """A tournament's standings, for every page (and every page that joins later)."""
        self._leaderboard = dict(board)
        text = _json({"type": "leaderboard", "board": self._leaderboard})
        for subscription in self._subscriptions:
            if subscription.feed == "public":
                subscription.push(text)

    # --- the sink side ------------------------------------------------------------------

    async def emit(self, event: Event) -> None:
        """Fold a public event in and hand it to the pages showing its table."""
        self.on_event(event)

    async def close(self) -> None:
        """Nothing to release: the server outlives a match (and says it ended)."""
        self.flush()

    def on_event(self, event: Event) -> None:
        """:meth:`emit`, synchronously."""
        self.events += 1
        table = event.table
        new_table = table not in self._tables
        self._table(table).fold(event)
        # only a table's first event, its match's start and its end change the run's
        # status: the other events (most of them) need not count the tables
        edge = new_table or event.type in ("match_started", "match_ended")
        before = self.match_status if edge else None
        self._public.apply(event)
        message = event.to_dict()
        message["v"] = EVENT_SCHEMA_VERSION
        message["run"] = self.run_id
        text = _json(message)
        for subscription in self._subscriptions:
            if subscription.feed == "public" and subscription.shown == table:
                subscription.push(text)
        self._mark("public", table)
        if self._auto is None:
            self._auto = table
            self._follow_featured()
        elif event.type in ("match_started", "match_ended"):
            self._choose_auto(event)
        if new_table or (edge and before != self.match_status):
            self._tell_server()

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """A delayed spectator item: folded into the delayed picture, then to the
        spectator pages of its table."""
        table = str(item.get("table"))
        extra = self._delayed_tables.setdefault(table, _Table())
        kind = item.get("kind")
        if kind == "event":
            event = Event(**item["event"])
            extra.fold(event)
            self._delayed.apply(event)
            self._mark("spectator", table)
        elif kind == "hands":
            extra.hands = item
        elif kind == "thought" and isinstance(item.get("seat"), int):
            extra.thoughts[item["seat"]] = item
        text = _json({"type": "spectator", "item": item})
        for subscription in self._subscriptions:
            if subscription.feed == "spectator" and subscription.shown == table:
                subscription.push(text)

    # --- pages --------------------------------------------------------------------------

    def subscribe(
        self, feed: Feed, table: str | None = None, *, preview: bool = False
    ) -> Subscription:
        """A new page's feed, starting with the whole picture. A ``preview`` (the control
        page's picture of the overlay) is a page like another but starts nothing."""
        subscription = Subscription(self, feed, table)
        self._subscriptions.append(subscription)
        for text in self.picture(subscription):
            subscription.push(text)
        if not preview and self.on_page is not None:
            self.on_page()
        return subscription

    def unsubscribe(self, subscription: Subscription) -> None:
        if subscription in self._subscriptions:
            self._subscriptions.remove(subscription)

    @property
    def pages(self) -> int:
        """Pages connected now."""
        return len(self._subscriptions)

    def picture(self, subscription: Subscription) -> list[str]:
        """Everything a page needs to be current: ``server``, its table's snapshot, the
        leaderboard. Sets the table the page shows."""
        subscription.shown = subscription.asked or self.featured
        texts = [_json(self._server_message(subscription))]
        if subscription.shown is not None and subscription.shown in self._tables:
            texts.append(self._snapshot_text(subscription.feed, subscription.shown))
        if self._leaderboard is not None and subscription.feed == "public":
            texts.append(_json({"type": "leaderboard", "board": self._leaderboard}))
        return texts

    def game_of(self, table: str | None) -> str | None:
        """The game a table plays, as its events say (None: no such table yet)."""
        extra = self._tables.get(table) if table is not None else None
        return extra.game if extra is not None else None

    def _seats(self, table: str | None) -> list[Any] | None:
        """A table's seats as its public snapshot has them (None: no such table yet)."""
        state = self._public.get(table) if table is not None else None
        seats = state.snapshot().get("seats") if state is not None else None
        return seats if isinstance(seats, list) else None

    def seats_of(self, table: str | None) -> int | None:
        """How many seats a table's public snapshot has (None: no such table yet)."""
        seats = self._seats(table)
        return None if seats is None else len(seats)

    def players_of(self, table: str | None) -> list[str | None]:
        """The players' names at a table's seats, by seat (empty: no such table yet)."""
        seats = self._seats(table) or []
        return [
            seat.get("player")
            if isinstance(seat, dict) and isinstance(seat.get("player"), str)
            else None
            for seat in seats
        ]

    def server_state(self) -> dict[str, Any]:
        """What ``/healthz`` and the control page say about the run."""
        return {
            "mode": self.mode,
            "run": self.run_id,
            "match": self.match_status,
            "next_at": self.next_at,
            "paused": sorted(self.paused),
            "featured": self.featured,
            "tables": self.tables,
            "pages": self.pages,
            "events": self.events,
            "degraded": self.degraded,
        }

    def _server_message(self, subscription: Subscription) -> dict[str, Any]:
        return {
            "type": "server",
            "mode": self.mode,
            "lang": self.lang,
            "sound": self.sound,
            "spectator": self.spectator_delay_s is not None,
            "delay_s": self.spectator_delay_s,
            "table": subscription.shown,
            "featured": self.featured,
            "tables": self.tables,
            "avatars": self.avatars,
            "paused": subscription.shown in self.paused,
            "pausing": self.pausing,
            "match": self.match_status,
            "run": self.run_id,
            "degraded": self.degraded,
            "seats": self._idle_seats(subscription.shown),
            "next_at": self.next_at,
            "next": self.upcoming,
        }

    def _idle_seats(self, table: str | None) -> int:
        """The seats a page shows, empty, before its table's first snapshot: those of
        the server's tables when it knows them, else those of the table's game (the
        default game's before any table is known)."""
        if self.seats is not None:
            return self.seats
        known = self._tables.get(table) if table is not None else None
        return get_game(known.game if known is not None else DEFAULT_GAME).seat_count()

    def _snapshot_text(self, feed: Feed, table: str) -> str:
        states = self._public if feed == "public" else self._delayed
        extras = self._tables if feed == "public" else self._delayed_tables
        public = self._tables.get(table)
        extra = extras.get(table) or _Table(game=public.game if public else DEFAULT_GAME)
        state = states.get(table)
        snapshot = (state or new_table_state(table, run_id=self.run_id, game=extra.game)).snapshot()
        seats = snapshot.get("seats")
        message: dict[str, Any] = {
            "type": "snapshot",
            "table": table,
            "state": snapshot,
            "figures": extra.figures_json(len(seats) if isinstance(seats, list) else 0),
            "gifts": list(extra.gifts),
            "game": game_overlay(extra.game),
            "story": extra.story_json(),
        }
        if feed == "spectator":
            message["hands"] = extra.hands
            message["thoughts"] = [extra.thoughts[seat] for seat in sorted(extra.thoughts)]
        return _json(message)

    # --- inside -------------------------------------------------------------------------

    def _table(self, table: str) -> _Table:
        extra = self._tables.get(table)
        if extra is None:
            extra = self._tables[table] = _Table()
        return extra

    def _choose_auto(self, event: Event) -> None:
        """Keep the featured table while it plays; when it ends, a table still live
        (the streamer's pick too: it lapses when its match ends and another plays),
        after the hold between two tables if there is one."""
        if self._hold is not None:  # the pages wait on the ended table: the next may change
            self._tell_upcoming()
            return
        ended = event.table if event.type == "match_ended" else None
        if ended is not None and ended == self.featured and self._start_hold(ended):
            return
        self._follow_next(ended)

    def _choice(self, ended: str | None) -> tuple[str | None, str | None]:
        """The streamer's pick and the automatic choice once ``ended`` (a table whose
        match just ended, or None) is let go: the pick lapses when its match ends and
        another table plays; the automatic one moves to a live table when its ended."""
        live = [s.table for s in self._public if s.status == "live"]
        chosen = None if ended is not None and ended == self._chosen and live else self._chosen
        auto = self._public.get(self._auto) if self._auto is not None else None
        if (auto is None or auto.status == "ended") and live:
            return chosen, live[0]
        return chosen, self._auto

    def _follow_next(self, ended: str | None) -> None:
        """Feature a live table in place of one that ended; the pages following move."""
        before = self.featured
        self._chosen, self._auto = self._choice(ended)
        if self.featured != before:
            self._follow_featured()

    def _start_hold(self, ended: str) -> bool:
        """The featured table ended: the pages keep it for ``between_tables_s``,
        counting down to the next (False: no hold, or no loop to end it)."""
        if self.between_tables_s <= 0:
            return False
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return False
        self._held = ended
        self._hold = loop.call_later(self.between_tables_s, self._release_hold)
        self.next_at = int((time.time() + self.between_tables_s) * 1000)
        self.upcoming = self._upcoming_json()
        self._tell_server()
        return True

    def _release_hold(self) -> None:
        """The countdown is over: the pages follow the next table (if one plays yet;
        else the next to start, at once)."""
        self._end_hold()
        self._tell_server()
        self._follow_next(self._held)

    def _end_hold(self) -> bool:
        """Cancel a hold (a new run, the streamer's pick); whether there was one."""
        if self._hold is None:
            return False
        self._hold.cancel()
        self._hold = None
        self.next_at = self.upcoming = None
        return True

    def _upcoming_json(self) -> dict[str, Any] | None:
        """The table the pages will follow once the hold ends, its players and what
        :attr:`describe_table` says of it; None while none plays."""
        chosen, auto = self._choice(self._held)
        table = chosen if chosen in self._tables else auto
        if table is None or table == self.featured:
            return None
        upcoming: dict[str, Any] = {"table": table, "players": self.players_of(table)}
        if self.describe_table is not None:
            upcoming.update(self.describe_table(table))
        return upcoming

    def _tell_upcoming(self) -> None:
        upcoming = self._upcoming_json()
        if upcoming != self.upcoming:
            self.upcoming = upcoming
            self._tell_server()

    def _follow_featured(self) -> None:
        """Pages following the featured table move to it: its whole picture."""
        featured = self.featured
        for subscription in self._subscriptions:
            if subscription.asked is None and subscription.shown != featured:
                for text in self.picture(subscription):
                    subscription.push(text)

    def _tell_server(self) -> None:
        for subscription in self._subscriptions:
            subscription.push(_json(self._server_message(subscription)))

    def _mark(self, feed: Feed, table: str) -> None:
        self._dirty.add((feed, table))
        if self._flush_handle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:  # folded outside a loop (a test): flushed when asked
                return
            self._flush_handle = loop.call_later(SNAPSHOT_INTERVAL_S, self._flush)

    def _flush(self) -> None:
        """Send each changed table's snapshot to the pages showing it."""
        self._flush_handle = None
        dirty, self._dirty = self._dirty, set()
        for feed, table in dirty:
            viewers = [s for s in self._subscriptions if s.feed == feed and s.shown == table]
            if viewers:
                text = self._snapshot_text(feed, table)
                for subscription in viewers:
                    subscription.push(text)

    def flush(self) -> None:
        """Send pending snapshots now (tests; the end of a match)."""
        if self._flush_handle is not None:
            self._flush_handle.cancel()
        self._flush()
