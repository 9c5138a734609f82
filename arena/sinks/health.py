"""A sink's health: a sink that fails is counted and logged, never dropped.

A sink shows or publishes the match (the terminal, the overlay, the MQTT feed): one event
it cannot handle must not cost it the rest of the match, and a sink that keeps failing
must say so where viewers' tools look. Every path that hands events to a sink (a table's
:meth:`~arena.table.Table.emit`, the drain of a :class:`~arena.sinks.queued.QueuedSink`,
the spectator feed's outputs, a tournament's held and forwarded events) counts a failure
into the sink's one :class:`SinkHealth` (:func:`health_of`) and goes on with the next
event. The policy, here and nowhere else:

- a failure is logged (``sink_failed``): the first with its traceback, then at most one
  line every :data:`LOG_EVERY_S` while failures go on, saying how many came since;
- a sink is **degraded** after :data:`DEGRADED_AFTER` failures in a row, or
  :data:`WINDOW_FAILURES` within :data:`WINDOW_S` seconds (``sink_degraded``). It is
  still given every event;
- it **recovers** after :data:`RECOVER_AFTER` successes in a row, once fewer than
  :data:`WINDOW_FAILURES` of its failures fall within the last :data:`WINDOW_S` seconds
  (``sink_recovered``): a sink that fails now and then stays degraded.
- a sink that hands its events on to something downstream (the MQTT sink: its worker
  process, the broker) may take every event and still deliver none. It says so itself,
  as a **condition** (:meth:`SinkHealth.set_condition`): degraded while one is set,
  recovered when it is cleared, whatever its failures say. A :class:`DeliveryWatch`
  words such a condition from what the feed sees: its connection away for longer than
  :data:`DELIVERY_GRACE_S` (a broker restarting for a second is no outage), or its
  messages refused (until :data:`RECOVER_AFTER` are taken again and none was refused
  for :data:`DELIVERY_GRACE_S`).

A :class:`SinkHealthBoard` follows the sinks of one run and tells those that report
health (the MQTT sink's retained status, the overlay's pages and ``/healthz``) which
sinks are degraded, each as ``{"sink", "failures", "last_error", "during"}`` (for a
condition, its words in ``last_error`` and ``during`` :data:`DELIVER`): at once when one
becomes degraded or recovers, and at most every :data:`LOG_EVERY_S` while a degraded one
keeps failing (its count).

Nothing of this costs a sink that does not fail: a table awaits each sink inside the
``try`` it already had, and only after a sink's failure (on any path: once a round it
looks, :func:`guard_unwell`) hands it events through a :class:`GuardedSink`, which
counts its successes towards recovery.
"""

from __future__ import annotations

import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import (
    Any,
    Final,
    Literal,
    Protocol,
    TypeVar,
    cast,
    runtime_checkable,
)

from arena.events import Event
from arena.logs import get_logger
from arena.masking import mask

__all__ = [
    "DEGRADED_AFTER",
    "DELIVER",
    "DELIVERY_GRACE_S",
    "LOG_EVERY_S",
    "RECOVER_AFTER",
    "WINDOW_FAILURES",
    "WINDOW_S",
    "DeliveryWatch",
    "GuardedSink",
    "HealthLog",
    "ReportsHealth",
    "SinkHealth",
    "SinkHealthBoard",
    "guard_after_failure",
    "guard_unwell",
    "health_of",
]

DEGRADED_AFTER: Final = 3
"""Failures in a row that make a sink degraded."""
WINDOW_FAILURES: Final = 10
"""Failures within :data:`WINDOW_S` that make a sink degraded, even with successes
between them (a sink that fails on every gift, say)."""
WINDOW_S: Final = 60.0
RECOVER_AFTER: Final = 20
"""Successes in a row a degraded sink needs to recover (with a quiet window)."""
LOG_EVERY_S: Final = 10.0
"""After a failure's line, at most one more this often while failures go on."""
DELIVERY_GRACE_S: Final = 5.0
"""How long a feed's connection may be away before the feed is degraded: a broker
that restarts in a second must not make a viewer's badge flicker."""
DELIVER: Final = "deliver"
"""What a condition interrupted (``during``): delivering downstream."""
_ERROR_CHARS: Final = 300
"""An error's text in a log line is cut to this length (an event can be large)."""

_default_log = get_logger(__name__)


class HealthLog(Protocol):
    """Where a record's lines go: a structlog logger, or the MQTT worker's pipe."""

    def warning(self, event: str, **fields: Any) -> Any: ...
    def error(self, event: str, **fields: Any) -> Any: ...


Degraded = list[dict[str, Any]]
"""The degraded sinks of a board, each ``{"sink", "failures", "last_error", "during"}``."""


@runtime_checkable
class ReportsHealth(Protocol):
    """A sink that says which sinks are degraded where viewers' tools look (the MQTT
    sink's status, the overlay hub): a board it is tracked on tells it."""

    def health_changed(self, degraded: Degraded) -> None:
        """The degraded sinks now (an empty list: none); must not raise or block."""
        ...


class SinkHealth:
    """One sink's failures and successes under the policy of the module."""

    __slots__ = (
        "_boards",
        "_clock",
        "_log",
        "_logged_at",
        "_logged_failures",
        "_recent",
        "condition",
        "degraded",
        "during",
        "failures",
        "in_row",
        "last_error",
        "name",
        "successes",
        "unwell",
    )

    def __init__(
        self,
        name: str,
        *,
        clock: Callable[[], float] = time.monotonic,
        log: HealthLog | None = None,
    ) -> None:
        self.name = name
        self.failures = 0
        """Every failure so far."""
        self.in_row = 0
        """Failures since the last success."""
        self.successes = 0
        """Successes since the last failure (counted while :attr:`unwell` only)."""
        self.unwell = False
        """A failure not yet followed by a recovery: the callers count successes only
        while this is set (one attribute read per event, and only then a call)."""
        self.degraded = False
        """Degraded by its failures (see :attr:`shown_degraded`)."""
        self.condition: str | None = None
        """What the sink says keeps it from delivering now, in words (None: nothing)."""
        self.last_error: str | None = None
        """The class of the last failure's exception."""
        self.during = "emit"
        """What the last failure interrupted: ``emit``, ``emit_spectator``, ``close``."""
        self._recent: deque[float] = deque(maxlen=WINDOW_FAILURES)
        self._clock = clock
        self._log: HealthLog = log if log is not None else _default_log
        self._logged_at: float | None = None
        self._logged_failures = 0
        self._boards: list[SinkHealthBoard] = []

    @property
    def shown_degraded(self) -> bool:
        """Degraded as the boards show it: by its failures, or by a condition it says."""
        return self.degraded or self.condition is not None

    def report(self) -> dict[str, Any]:
        """What a status says of a degraded sink: a condition before a failure's class."""
        condition = self.condition
        return {
            "sink": self.name,
            "failures": self.failures,
            "last_error": self.last_error if condition is None else condition,
            "during": self.during if condition is None else DELIVER,
        }

    def set_condition(self, condition: str | None) -> None:
        """What keeps the sink from delivering now, in words, as the sink itself sees it
        (its worker gone, its broker away or refusing); None once it delivers again.
        Degraded while one is set (``sink_degraded`` when it begins, ``sink_recovered``
        when it ends); the boards are told of every change (the sink says how often the
        words change: a count in them, say). Every known secret is masked in the words:
        they go to ``/healthz``, the pages and the status as they are."""
        if condition is not None:
            condition = mask(condition)
        before = self.condition
        if condition == before:
            return
        self.condition = condition
        if before is None:
            self._log.error(
                "sink_degraded",
                sink=self.name,
                during=DELIVER,
                error=condition,
                hint="the sink still gets every event, and the status says it is degraded "
                "until it delivers again",
            )
        elif condition is None:
            self._log.warning("sink_recovered", sink=self.name, during=DELIVER, was=before)
        self._tell_boards()

    def failed(self, exc: BaseException, *, during: str = "emit") -> None:
        """The sink raised ``exc``: count it, log it (rate-limited), maybe degrade."""
        now = self._clock()
        self.failures += 1
        self.in_row += 1
        self.successes = 0
        self.unwell = True
        new_error = type(exc).__name__ != self.last_error
        self.last_error = type(exc).__name__
        self.during = during
        self._recent.append(now)
        if not self.degraded and (self.in_row >= DEGRADED_AFTER or self._window_full(now)):
            self.degraded = True
            self._say(now, "sink_degraded", exc, with_traceback=new_error)
            self._tell_boards()
        elif self._logged_at is None or now - self._logged_at >= LOG_EVERY_S:
            self._say(now, "sink_failed", exc, with_traceback=new_error)
            if self.degraded:  # the boards' count, as often as the log's
                self._tell_boards()

    def succeeded(self) -> None:
        """The sink took an event; callers call it only while :attr:`unwell`."""
        self.in_row = 0
        self.successes += 1
        if self.successes < RECOVER_AFTER:
            return
        if self.degraded:
            now = self._clock()
            if self._window_full(now):
                return  # failing now and then: not recovered yet
            self.degraded = False
            self._log.warning(
                "sink_recovered",
                sink=self.name,
                failures=self.failures,
                successes_in_row=self.successes,
            )
            self._logged_at = None  # a new failure is said at once
            self._tell_boards()
        self.unwell = False

    def _window_full(self, now: float) -> bool:
        recent = self._recent
        return len(recent) == WINDOW_FAILURES and now - recent[0] <= WINDOW_S

    def _say(self, now: float, event: str, exc: BaseException, *, with_traceback: bool) -> None:
        fields: dict[str, Any] = {
            "sink": self.name,
            "during": self.during,
            "error": repr(exc)[:_ERROR_CHARS],
            "failures": self.failures,
            "failures_since_last_line": self.failures - self._logged_failures,
            "degraded": self.degraded,
            "hint": "the sink still gets every event; "
            f"at most one line every {LOG_EVERY_S:g} s while it keeps failing",
        }
        if with_traceback:
            fields["exc_info"] = exc
        self._log.error(event, **fields)
        self._logged_at = now
        self._logged_failures = self.failures

    def _tell_boards(self) -> None:
        for board in list(self._boards):
            board.changed()


Kind = Literal["stopped", "unreachable", "refused"]
"""What keeps a feed from delivering: it stopped for good, its connection is away, or
its messages are refused."""


class DeliveryWatch:
    """Whether a feed delivers downstream, in the words of a condition
    (:meth:`SinkHealth.set_condition`).

    The feed says what happens to it: :meth:`away` (a connection attempt failed, or the
    connection it had was lost), :meth:`connected`, and its running totals of messages
    the other side took and refused (:meth:`counted`, as often as it likes). The
    condition (:meth:`condition`) is

    - ``unreachable`` once it has had no connection for :attr:`grace_s` (counted from
      its start, if it never had one): ``broker unreachable for 12 s, 300 events
      buffered (...)``. A connection ends it, unless it is lost before the broker took a
      message: then the outage goes on, from when it began;
    - ``refused`` from the first message refused until :data:`RECOVER_AFTER` were taken
      since and none was refused for :attr:`grace_s`: ``the broker refused 307 messages
      (not authorized)``;
    - ``stopped`` for good once the feed says it stopped (:meth:`stopped`);
    - None: it delivers.

    :meth:`news` says when to tell it: a new kind at once, new words for the same kind
    (its counts) at most every :data:`LOG_EVERY_S`. :attr:`last_outage` is the last one
    that ended (the broker away after the feed had delivered, or long enough to be told;
    refusals), for a status to say what happened meanwhile.
    """

    def __init__(
        self, *, grace_s: float = DELIVERY_GRACE_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.grace_s = grace_s
        self._clock = clock
        self._connected = False
        self._away_since: float | None = clock()
        """When the connection went (None: connected and proven by a message taken)."""
        self._away_error: str | None = None
        self._away_dropped = 0
        """The feed's dropped events when the outage began."""
        self._delivered = False
        self._accepted = self._refused = 0
        self._refusing_since: float | None = None
        self._refused_before = 0
        """The refused total before this run of refusals."""
        self._refused_at = 0.0
        self._refusal: str | None = None
        self._taken_since_refusal = 0
        self._told: tuple[Kind | None, str | None] = (None, None)
        self._told_at = 0.0
        self._stopped: str | None = None
        self.last_outage: dict[str, Any] | None = None
        """The last outage that ended: ``{"error": words, "lasted_s": seconds}``."""

    def stopped(self, why: str) -> None:
        """The feed stopped delivering for good (``why``, in words)."""
        self._stopped = why

    def away(self, error: str, *, dropped: int) -> None:
        """No connection: an attempt failed (``error`` says why), or the one it had was
        lost; ``dropped`` is the feed's count of events dropped so far."""
        self._connected = False
        self._away_error = error
        if self._away_since is None:
            self._away_since = self._clock()
            self._away_dropped = dropped

    def connected(self, *, waiting: int, dropped: int) -> None:
        """A connection is made; ``waiting`` events are buffered for it. An outage that
        is worth saying (after the feed had delivered, or one already told) is said in
        :attr:`last_outage` at once, so that the status published first says it."""
        self._connected = True
        since = self._away_since
        if since is not None and (self._delivered or self._told[0] == "unreachable"):
            words = self._unreachable(None, waiting, dropped - self._away_dropped)
            self._ended(words, self._clock() - since)

    def counted(self, accepted: int, refused: int, refusal: str | None) -> None:
        """The feed's totals so far: messages the other side took (``accepted``) and
        refused (``refused``; ``refusal`` is the last refusal's reason, in words)."""
        now = self._clock()
        taken, new_refusals = accepted - self._accepted, refused - self._refused
        self._accepted, self._refused = accepted, refused
        if new_refusals > 0:
            if self._refusing_since is None:
                self._refusing_since = now
                self._refused_before = refused - new_refusals
            self._refused_at = now
            self._refusal = refusal
            self._taken_since_refusal = 0
        elif self._refusing_since is not None:
            self._taken_since_refusal += taken
            quiet = now - self._refused_at >= self.grace_s
            if quiet and self._taken_since_refusal >= RECOVER_AFTER:
                self._ended(self._refused_words(), now - self._refusing_since)
                self._refusing_since = None
        if taken > 0 and self._connected:
            self._away_since = None
            self._delivered = True

    def kind(self) -> Kind | None:
        """What keeps the feed from delivering now (None: nothing)."""
        if self._stopped is not None:
            return "stopped"
        since = self._away_since
        if not self._connected and since is not None and self._clock() - since >= self.grace_s:
            return "unreachable"
        return "refused" if self._refusing_since is not None else None

    def condition(self, *, waiting: int, dropped: int) -> str | None:
        """The condition in words (None: it delivers); ``waiting`` and ``dropped`` are
        the feed's events buffered now and dropped so far."""
        kind = self.kind()
        if kind == "unreachable":
            assert self._away_since is not None
            away_s = self._clock() - self._away_since
            return self._unreachable(away_s, waiting, dropped - self._away_dropped)
        if kind == "stopped":
            return self._stopped
        return self._refused_words() if kind == "refused" else None

    def news(self, *, waiting: int, dropped: int) -> tuple[bool, str | None]:
        """(whether to tell it now, the condition): a new kind at once, new words for
        the same kind at most every :data:`LOG_EVERY_S`."""
        kind = self.kind()
        words = self.condition(waiting=waiting, dropped=dropped)
        told_kind, told_words = self._told
        now = self._clock()
        if kind == told_kind and (words == told_words or now - self._told_at < LOG_EVERY_S):
            return False, told_words
        self._told, self._told_at = (kind, words), now
        return True, words

    def _unreachable(self, away_s: float | None, waiting: int, dropped: int) -> str:
        words = "broker unreachable" + (f" for {away_s:.0f} s" if away_s is not None else "")
        words += f", {waiting} events buffered"
        if dropped:
            words += f", {dropped} dropped"
        return words + (f" ({self._away_error})" if self._away_error else "")

    def _refused_words(self) -> str:
        refused = self._refused - self._refused_before
        return f"the broker refused {refused} messages ({self._refusal or 'no reason given'})"

    def _ended(self, words: str, lasted_s: float) -> None:
        self.last_outage = {"error": words, "lasted_s": round(lasted_s, 1)}


_records: dict[int, tuple[weakref.ref[Any], SinkHealth]] = {}
"""Each sink object's one record, by identity, for as long as the sink lives."""


def health_of(
    sink: object,
    name: str | None = None,
    *,
    clock: Callable[[], float] | None = None,
    log: HealthLog | None = None,
) -> SinkHealth:
    """The health record of this sink object, the same whichever path hands it events
    (every table, a queue's drain, the spectator feed); made at the first ask, named
    ``name`` (the sink's class name by default), timed by ``clock`` and logging to
    ``log``. A sink that cannot be weakly referred to gets a record of its own at each
    ask."""
    key = id(sink)
    entry = _records.get(key)
    if entry is not None and entry[0]() is sink:
        return entry[1]
    record = SinkHealth(name or type(sink).__name__, clock=clock or time.monotonic, log=log)

    def forget(ref: weakref.ref[Any]) -> None:
        entry = _records.get(key)
        if entry is not None and entry[0] is ref:
            del _records[key]

    try:
        ref = weakref.ref(sink, forget)
    except TypeError:
        return record
    _records[key] = (ref, record)
    return record


class SinkHealthBoard:
    """The health of one run's sinks, told to those of them that report it.

    ``sinks`` (name: sink, a None skipped) are tracked at once, as by :meth:`track`. A
    board is closed at the run's end (:meth:`close`, or ``with``): it tells its watchers
    the final figures and stops following the sinks, which may outlive it (the overlay
    hub of ``arena serve``).
    """

    def __init__(
        self,
        sinks: Mapping[str, object | None] | None = None,
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self._clock = clock
        self._records: list[SinkHealth] = []
        self._watchers: list[ReportsHealth] = []
        for name, sink in (sinks or {}).items():
            if sink is not None:
                self.track(sink, name)

    def track(self, sink: object, name: str | None = None) -> SinkHealth:
        """Follow a sink's health (its record, made now if it has none yet, is named
        ``name``); a sink that reports health (:class:`ReportsHealth`) is told this
        board's degraded sinks from now on."""
        record = health_of(sink, name, clock=self._clock)
        if record not in self._records:
            self._records.append(record)
            record._boards.append(self)
        if isinstance(sink, ReportsHealth) and sink not in self._watchers:
            self._watchers.append(sink)
        if self.degraded():
            self.changed()
        return record

    def degraded(self) -> Degraded:
        """The degraded sinks now, in the order they were tracked."""
        return [record.report() for record in self._records if record.shown_degraded]

    def changed(self) -> None:
        """Tell every watcher the degraded sinks now (a record calls it)."""
        degraded = self.degraded()
        for watcher in list(self._watchers):
            try:
                watcher.health_changed(degraded)
            except Exception as exc:  # a report must never stop a table
                _default_log.error(
                    "sink_health_report_failed", watcher=type(watcher).__name__, error=repr(exc)
                )

    def close(self) -> None:
        """Tell the watchers the final figures, then stop following the sinks."""
        if any(record.shown_degraded for record in self._records):
            self.changed()
        for record in self._records:
            if self in record._boards:
                record._boards.remove(self)
        self._records.clear()
        self._watchers.clear()

    def __enter__(self) -> SinkHealthBoard:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class GuardedSink:
    """A sink (or spectator output) whose failures go to its health, never raised: what
    a table hands events through once a sink failed, and what a queue's drain uses."""

    __slots__ = ("health", "sink")

    def __init__(self, sink: Any, health: SinkHealth | None = None) -> None:
        self.sink = sink
        self.health = health if health is not None else health_of(sink)

    async def emit(self, event: Event) -> None:
        """Hand the event on; a failure is counted, a success counts towards recovery."""
        try:
            await self.sink.emit(event)
        except Exception as exc:
            self.health.failed(exc)
        else:
            if self.health.unwell:
                self.health.succeeded()

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """The same for a spectator item."""
        try:
            await self.sink.emit_spectator(item)
        except Exception as exc:
            self.health.failed(exc, during="emit_spectator")
        else:
            if self.health.unwell:
                self.health.succeeded()

    async def close(self) -> None:
        """Close the sink; a failure is counted and logged, not raised."""
        try:
            await self.sink.close()
        except Exception as exc:
            self.health.failed(exc, during="close")


S = TypeVar("S")


def _unwell(sink: object) -> bool:
    """Whether a sink not yet guarded failed on some path and has not recovered."""
    if type(sink) is GuardedSink:
        return False
    entry = _records.get(id(sink))
    return entry is not None and entry[0]() is sink and entry[1].unwell


def guard_unwell(sinks: list[S]) -> list[S]:
    """``sinks`` with each that failed on another path (another table, a match before)
    and has not recovered handed events through a :class:`GuardedSink`, so that its
    successes here count towards its recovery too; the same list when there is none (a
    table calls it once a round)."""
    if not any(map(_unwell, sinks)):
        return sinks
    return [cast(S, GuardedSink(sink)) if _unwell(sink) else sink for sink in sinks]


def guard_after_failure(
    sinks: Iterable[S], failed: S, exc: Exception, *, during: str = "emit"
) -> list[S]:
    """``sinks`` with ``failed``, which just raised ``exc``, counted and handed events
    through a :class:`GuardedSink` from now on (call it inside the ``except``)."""
    guarded = GuardedSink(failed)
    guarded.health.failed(exc, during=during)
    # a GuardedSink has the methods of whatever it guards (a sink, a spectator output)
    return [cast(S, guarded) if sink is failed else sink for sink in sinks]
