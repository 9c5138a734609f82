"""Tables in worker processes (``arena tournament run|resume --workers N``), one writer.

A run with N ≥ 2 workers starts N processes once and hands each free
worker one *table unit* at a time: a stage's table match, played by the very coroutine
an in-process run uses (``tournaments.table_match.play_table_match``), so whatever that
coroutine does at a table runs in a worker unchanged. ``tables_at_once`` still caps how
many tables play at once. Until a worker is ready (about a third of a second), the main
process plays the units itself (:data:`PLAY_HERE_WHILE_STARTING`).

Workers are forked from multiprocessing's *fork server*, which loads the arena once
(``set_forkserver_preload``), so N workers pay one import instead of N (each spawned
worker used to import the arena itself, half a second of CPU on a machine whose cores
the tables want). They are never forked from the main process itself, whose event loop,
SQLite connection and threads are up. A forked worker takes the main process's
environment and working directory as they are when the pool starts (the fork server's
may be older), as a spawned one would.

What goes where, and why:

- **One writer.** A worker's store is a :class:`StoreProxy`: a read the table needs
  (``open_match``, ``match``, ``round_records`` ...) is a request the main process
  answers from the real store; a write (:class:`~tournaments.store.RoundRecorder`'s
  ``_write_round`` and ``_write_match_end``) is a one-way message the main process
  applies in the order sent. The recorder itself runs in the worker, so a round's lines
  are encoded there (:mod:`tournaments.round_lines`) and the main process only commits
  them: its work per round stays small, and overlaps the workers' play. What a round
  sends (its write, the round told, its events) goes as one message, and a worker's
  send buffer holds many rounds: it plays on while the writer catches up.
- **The same results.** A table's seeds derive from the tournament's seed and the
  table's id, never from where or when it plays, and ratings settle in canonical order
  at each stage's end: a run with workers stores the same rounds and standings as one
  without. The main process hears each round (``told``: the leaderboard, its MQTT
  message) after writing it, as it does in-process. Units start one at a time in the
  order asked, so the matches are stored (and listed) in an in-process run's order.
- **Model and human seats stay in the main process** (:func:`plays_in_main`): they
  wait on the network or a person, not the CPU, and a provider key's limit on calls in
  flight (``arena.agents.llm.clients``) lives in one event loop, so model seats share
  it whatever the worker count. Scripted, subprocess and remote (HTTP) seats
  play in the workers.
- **Live feeds.** The tables' events (``--mqtt``'s table feed) are forwarded from the
  workers to the main process's sinks, in order per table. Viewer gifts and the
  delayed spectator feed hook into a table's own objects and are refused with workers
  (:func:`refuse_with_workers`).
- **Stopping.** Workers ignore SIGINT: the first Ctrl-C asks the session to stop, and
  the pool tells every busy worker, whose table stops after its round (as in-process).
  A worker that dies fails the run with a :class:`WorkerError` naming it and its table; the
  tournament is left ``interrupted``, every stored round whole, and resumes. A worker
  whose main process is gone (its pipe closed) stops: workers never outlive the run.
- **Secrets.** A worker is handed the secrets the main process knows when the pool
  starts (``arena.secrets.known_secrets``: the run has built every agent by then), and
  masks them as the main process does: what its tables write holds none of them. It is
  handed the names of the variables that hold secrets too (``secret_variables``): the
  programs its subprocess seats start get none of them, as in the main process
  (``arena.agents.program_env``).
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import pickle
import signal
import socket
import time
import traceback
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import TYPE_CHECKING, Any, Final, cast

from arena.agents.process import kill_leftover_programs
from arena.agents.registry import agent_class
from arena.errors import ArenaError, ConfigError
from arena.events import Event
from arena.gc_policy import collecting_while_playing
from arena.logs import LogFormat, configure_logging, configured_logging, get_logger
from arena.secrets import (
    declare_secret_variables,
    known_secrets,
    register_secrets,
    secret_variables,
)
from arena.sinks.health import guard_after_failure
from arena.table import RoundRecord, build_moderator
from tournaments.config import TournamentConfig, parse_stored_config
from tournaments.playing import Playing
from tournaments.schedule import Table as Seating
from tournaments.session import Session
from tournaments.store import RoundRecorder, TournamentStore
from tournaments.table_match import play_table_match

if TYPE_CHECKING:
    from multiprocessing.context import ForkServerContext, SpawnContext  # no fork server on Windows

    from arena.sinks.base import Sink

__all__ = [
    "StoreProxy",
    "WorkerError",
    "WorkerPool",
    "any_table_for_workers",
    "check_workers",
    "plays_in_main",
    "refuse_with_workers",
    "worker_limit",
]

log = get_logger(__name__)

WRITES: Final = frozenset({"_write_round", "_write_match_end", "mark_match_finished"})
"""The store's writer seam: what a worker sends one way, for the main process to apply."""

_MAIN_ONLY: Final = (("arena.agents.llm.seat", "ModelSeat"), ("arena.agents.human", "HumanSeat"))
"""Agent classes (module, name) whose tables play in the main process, subclasses too."""

PLAY_HERE_WHILE_STARTING = True
"""Whether the main process plays table units itself until a worker is ready (the fork
server takes about a third of a second to import the arena): a short tournament may then be
over before any worker is; tests of the workers turn it off."""

_STOP_POLL_S: Final = 0.01
"""How often a table unit under way checks whether a stop was asked (first Ctrl-C)."""

_HOLD_AT_MOST: Final = 256
"""One-way messages a worker holds at most before sending them (a round's ~100 events)."""

_HOLD_S: Final = 0.02
"""How long a worker holds a one-way message at most (when its event loop is free)."""

_SEND_BUFFER: Final = 4 * 1024 * 1024
"""The bytes a worker may have sent that the main process has not read yet (capped by
the system's ``net.core.wmem_max``)."""

_FORK_SERVER: Final = "forkserver" in multiprocessing.get_all_start_methods()
"""Workers fork from the fork server; where there is none (Windows), each is spawned."""

_CLOSE_GRACE_S: Final = 5.0
"""How long a worker has to close its table's agents when the run stops at once."""


class WorkerError(ArenaError):
    """A worker process died, or failed outside its table: the run stops, resumable."""


def worker_limit() -> int:
    """The most workers a run may ask for: four a core (remote seats mostly wait)."""
    return (os.cpu_count() or 1) * 4


def check_workers(count: int) -> int:
    """``count`` when it is a worker count this machine allows; ConfigError otherwise."""
    limit = worker_limit()
    if not 1 <= count <= limit:
        raise ConfigError(
            f"--workers {count}: give 1 (every table in this process) up to {limit} "
            f"(4 for each of this machine's {os.cpu_count() or 1} cores)"
        )
    return count


def refuse_with_workers(workers: int, *, gifts: bool, spectator: bool) -> None:
    """ConfigError for what cannot cross into a worker: viewer gifts and the spectator
    feed attach to a table's own objects in this process."""
    if workers <= 1:
        return
    if gifts:
        raise ConfigError(
            f"--workers {workers}: viewer gifts reach tables in this process only: "
            "play with --workers 1, or turn gifts off"
        )
    if spectator:
        raise ConfigError(
            f"--workers {workers}: the spectator feed ([spectator] enabled) reads tables "
            "in this process only: play with --workers 1, or disable [spectator]"
        )


def plays_in_main(config: TournamentConfig, seating: Seating) -> bool:
    """Whether a table plays in the main process: any model (LLM) or human seat. Model
    seats share their provider's limit on calls in flight in the one event loop; a
    human answers at the terminal."""
    types = {entry.name: entry.type for entry in config.agents}
    return any(_main_only(types[name]) for name in seating.players)


def any_table_for_workers(config: TournamentConfig) -> bool:
    """Whether some table may play in a worker: a table's agents (the game's seats)
    with neither a model nor a human behind them (else a run starts no worker at all)."""
    return sum(not _main_only(entry.type) for entry in config.agents) >= config.seat_count


def _main_only(type_name: str) -> bool:
    return any(
        (base.__module__, base.__name__) in _MAIN_ONLY for base in agent_class(type_name).__mro__
    )


# --- the worker's side ------------------------------------------------------------------


class _Link:
    """The worker's end of its pipe: requests answered in order, one-way sends, and
    the main process's ``stop`` heard whenever it comes."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.session: Session | None = None
        """The unit's session: a ``stop`` sets its ``stop_asked``."""
        self.inbox: asyncio.Queue[tuple[Any, ...] | None] = asyncio.Queue()
        self.gone = asyncio.Event()
        """Set when the main process is gone (the pipe closed)."""

        self._held: list[tuple[Any, ...]] = []
        self._timer: asyncio.TimerHandle | None = None

    def post(self, message: tuple[Any, ...]) -> None:
        """A one-way message (a write, a round told, an event), held until the round is
        told, or :data:`_HOLD_S` at most (a paced table's events stay live): one message
        a round through the pipe for a table that plays at full speed."""
        self._held.append(message)
        if len(self._held) >= _HOLD_AT_MOST:
            self.flush()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(_HOLD_S, self._flush_later)

    def flush(self) -> None:
        """Send what is held, in order."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._held:
            held, self._held = self._held, []
            self.connection.send(("batch", held))

    def _flush_later(self) -> None:
        self._timer = None
        try:
            self.flush()
        except OSError:  # the main process is gone: the table's next send says so
            self.gone.set()

    def send(self, message: tuple[Any, ...]) -> None:
        """Send at once, after what is held."""
        self.flush()
        self.connection.send(message)

    def call(self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Ask the main process's store; a ``stop`` that comes meanwhile is kept."""
        self.send(("call", name, args, kwargs))
        while True:
            message = self._receive()
            if message[0] == "reply":
                return message[1]
            if message[0] == "raise":
                raise message[1]
            self._heard(message)

    def readable(self) -> None:
        """The event loop's reader: whatever came while no request waited."""
        try:
            while self.connection.poll():
                self._heard(self._receive())
        except WorkerError:
            self.gone.set()
            self.inbox.put_nowait(None)

    def _receive(self) -> tuple[Any, ...]:
        try:
            message: tuple[Any, ...] = self.connection.recv()
        except (EOFError, OSError) as exc:  # the main process is gone
            raise WorkerError("the main process is gone") from exc
        return message

    def _heard(self, message: tuple[Any, ...]) -> None:
        kind = message[0]
        if kind == "stop":
            if self.session is not None:
                self.session.stop_asked = True
        elif kind == "play":
            self.inbox.put_nowait(message)
        elif kind == "quit":
            self.inbox.put_nowait(None)


class StoreProxy:
    """A worker's store: reads asked of the main process, writes sent to it one way.

    Any public method of :class:`~tournaments.store.TournamentStore` is a request (so
    whatever a table unit reads works unchanged); :data:`WRITES` are messages the main
    process applies in order, the only writer. The recorder runs here, in the worker.
    """

    def __init__(self, link: _Link) -> None:
        self._link = link

    def recorder(self, match_id: int) -> RoundRecorder:
        """The table's recorder, encoding each round here and sending it whole."""
        return RoundRecorder(cast(TournamentStore, self), match_id)

    def __getattr__(self, name: str) -> Callable[..., Any]:
        link = self._link
        if name in WRITES:

            def write(*args: Any, **kwargs: Any) -> None:
                link.post(("write", name, args, kwargs))

            return write
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            return link.call(name, args, kwargs)

        return call


class _ForwardSink:
    """A worker table's sink: each event to the main process's sinks, in order."""

    def __init__(self, link: _Link) -> None:
        self._link = link

    async def emit(self, event: Event) -> None:
        self._link.post(("event", event))

    async def close(self) -> None:
        """The main process's sinks belong to their owner."""


def _worker_main(
    connection: Connection,
    tid: str,
    seeds: tuple[int, int],
    config_data: dict[str, Any],
    forward: bool,
    environment: dict[str, str],
    logs: tuple[LogFormat, str] | None = None,
    secrets: dict[str, str] | None = None,
    variables: tuple[str, ...] = (),
) -> None:
    """A worker process: plays the table units it is handed until told to quit.
    ``seeds``: the tournament's and this session's deals' (``Playing``);
    ``environment``: the main process's, for the fork server's may be older; ``logs``:
    the main process's log format and level (``configured_logging``), for a process
    forked from the fork server inherits no handler, and its lines would come out as
    bare ``event key=value`` (None: the main process configured none either);
    ``secrets``: those the main process knows (``known_secrets``: the model seats' keys,
    the server's token ...), masked here too in the lines, logs and events;
    ``variables``: the names of those that hold secrets (``secret_variables``), which no
    program a seat starts here gets."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides about Ctrl-C
    os.environ.clear()
    os.environ.update(environment)
    register_secrets(secrets or {})
    declare_secret_variables(variables)
    if logs is not None:
        configure_logging(*logs)
    try:
        with contextlib.suppress(WorkerError, BrokenPipeError, ConnectionError):
            asyncio.run(_serve(connection, tid, seeds, config_data, forward))
    finally:  # a forked process ends with os._exit: atexit's handlers do not run
        kill_leftover_programs()


async def _serve(
    connection: Connection,
    tid: str,
    seeds: tuple[int, int],
    config_data: dict[str, Any],
    forward: bool,
) -> None:
    _widen(connection)
    link = _Link(connection)
    loop = asyncio.get_running_loop()
    loop.add_reader(connection.fileno(), link.readable)
    config = parse_stored_config(config_data, source=f"tournament {tid}")
    store = cast(TournamentStore, StoreProxy(link))
    moderator = build_moderator(config.moderation)
    sinks: Sequence[Sink] = (_ForwardSink(link),) if forward else ()

    def told(record: RoundRecord) -> None:
        link.post(("told", record))
        link.flush()
        link.readable()  # a stop asked meanwhile ends the table after this round

    link.send(("ready",))
    # the arena's garbage-collection policy (arena.gc_policy), a full collection between
    # two table units: the worker's safe moment
    async with collecting_while_playing() as collector:
        while (message := await link.inbox.get()) is not None:
            _, seating, session = message
            link.session = session
            playing = Playing(
                store=store,
                config=config,
                tid=tid,
                seed=seeds[0],
                deal_seed=seeds[1],
                session=session,
                gifts=None,
                moderator=moderator,
                sinks=sinks,
                spectator=None,
            )
            unit = asyncio.ensure_future(play_table_match(playing, seating, told))
            watch = asyncio.ensure_future(link.gone.wait())
            await asyncio.wait((unit, watch), return_when=asyncio.FIRST_COMPLETED)
            if not unit.done():  # the main process is gone: close the table's agents
                unit.cancel()
                with contextlib.suppress(BaseException):
                    await unit
                return
            watch.cancel()
            link.session = None
            failure = unit.exception()
            if failure is None:
                link.send(("done", session.ended))
            else:
                link.send(("failed", _portable(failure)))
            collector.collect()


def _widen(connection: Connection) -> None:
    """A send buffer of several rounds' messages (the default holds about six): a worker
    runs on while the main process, busy writing another's rounds, catches up."""
    with contextlib.suppress(OSError), socket.socket(fileno=os.dup(connection.fileno())) as end:
        end.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, _SEND_BUFFER)


def _portable(failure: BaseException) -> BaseException:
    """The failure itself when it pickles, else a WorkerError with its traceback."""
    try:
        pickle.loads(pickle.dumps(failure))
    except Exception:
        text = "".join(traceback.format_exception(failure)).rstrip()
        return WorkerError(f"{type(failure).__name__}: {failure}\n{text}")
    return failure


# --- the main process's side ------------------------------------------------------------


@dataclass
class _Unit:
    """A table unit handed to a worker, and how it ends."""

    seating: Seating
    told: Callable[[RoundRecord], None]
    done: asyncio.Future[bool]
    """The worker's ``session.ended`` for the table, or the failure."""
    opened: asyncio.Event
    """Set at the unit's first read (its match opened): the next unit may start."""


async def _first(waits: tuple[asyncio.Future[Any], ...]) -> None:
    """Until the first of ``waits`` is done; the others cancelled (a failure in one
    that ended is the caller's to see)."""
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits[1:]:
            wait.cancel()


@dataclass(eq=False)
class _Worker:
    number: int
    process: BaseProcess
    connection: Connection
    unit: _Unit | None = None
    dead: bool = False
    ready: bool = False
    """Started: it has loaded the arena (and may have agents to close)."""


class WorkerPool:
    """N worker processes for one run, and the main process's end of their pipes: the
    store's only writer. Enter it (``async with``) to start the workers; leaving it
    stops them (at once when the run failed or was cancelled). ``play_here``: see
    :data:`PLAY_HERE_WHILE_STARTING` (its default)."""

    def __init__(
        self,
        count: int,
        *,
        store: TournamentStore,
        tid: str,
        seed: int,
        deal_seed: int | None = None,
        sinks: Sequence[Sink] = (),
        play_here: bool | None = None,
    ) -> None:
        self.count = check_workers(count)
        self.store = store
        self.tid = tid
        self.seed = seed
        self.deal_seed = seed if deal_seed is None else deal_seed
        """This session's epoch's seed, the rounds' (a daily's changes each session)."""
        self.sinks = list(sinks)
        self._workers: list[_Worker] = []
        self._far_ends: list[Connection] = []
        """The workers' ends of their pipes, until each holds its own."""
        self._starting_up: asyncio.Future[None] | None = None
        """The processes' start, off the event loop (the first waits for the fork server
        to load the arena): this process plays meanwhile."""
        self._idle: asyncio.Queue[_Worker | None] = asyncio.Queue()
        """Who may take the next unit: a worker that is ready and free, or None (this
        process, when ``play_here``)."""
        if PLAY_HERE_WHILE_STARTING if play_here is None else play_here:
            self._idle.put_nowait(None)
        self._ready = 0
        self._starting = asyncio.Lock()
        self._events: asyncio.Queue[Event | None] = asyncio.Queue()
        self._forwarding: asyncio.Task[None] | None = None
        self._failure: WorkerError | None = None

    @property
    def pids(self) -> list[int | None]:
        """The workers' process ids (for a test, or an operator)."""
        return [worker.process.pid for worker in self._workers]

    async def __aenter__(self) -> WorkerPool:
        context: ForkServerContext | SpawnContext
        if _FORK_SERVER:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload([__name__])  # once per fork server: the first's
        else:
            context = multiprocessing.get_context("spawn")
        config = self.store.tournament(self.tid).config  # what a resumed run parses too
        loop = asyncio.get_running_loop()
        for number in range(1, self.count + 1):
            ours, theirs = context.Pipe(duplex=True)
            process = context.Process(
                target=_worker_main,
                args=(
                    theirs,
                    self.tid,
                    (self.seed, self.deal_seed),
                    config,
                    bool(self.sinks),
                    dict(os.environ),
                    configured_logging(),
                    known_secrets(),
                    tuple(sorted(secret_variables())),
                ),
                name=f"arena-worker-{number}",
                daemon=True,  # ended with the main process at its exit
            )
            self._far_ends.append(theirs)
            self._workers.append(_Worker(number, process, ours))
        self._starting_up = asyncio.ensure_future(asyncio.to_thread(self._start))
        self._starting_up.add_done_callback(self._started)
        for worker in self._workers:
            loop.add_reader(worker.connection.fileno(), self._readable, worker)  # idle once ready
        if self.sinks:
            self._forwarding = asyncio.create_task(self._forward())
        return self

    def _start(self) -> None:
        """Starts the processes: blocking, so run in a thread. Each pipe's far end is
        closed here once its worker holds it, the others by :meth:`_started`."""
        for worker in self._workers:  # in step with _far_ends: the first end is its own
            worker.process.start()
            self._far_ends.pop(0).close()
        log.info("workers_started", workers=self.count, pids=self.pids)

    def _started(self, starting: asyncio.Future[None]) -> None:
        """A worker that could not start fails the run, as one that dies does."""
        if starting.cancelled() or (exc := starting.exception()) is None:
            return
        number = next(w.number for w in self._workers if w.process.pid is None)
        self._failure = self._failure or WorkerError(f"worker {number} could not start: {exc}")
        for worker in self._workers:
            self._retire(worker)
        for end in self._far_ends:
            end.close()

    async def __aexit__(self, exc_type: type[BaseException] | None, *_: object) -> None:
        if self._starting_up is not None:
            with contextlib.suppress(Exception):  # a failed start is the run's failure
                await asyncio.shield(self._starting_up)  # a thread cannot be cancelled
        for worker in self._workers:
            self._retire(worker)
            if exc_type is None:  # every unit done: each worker finishes and exits
                with contextlib.suppress(OSError):
                    worker.connection.send(("quit",))
        # else each pipe closed: a worker cancels its table, which closes its agents
        # (a subprocess seat's program ends with it), and exits; killed past the grace
        await asyncio.to_thread(self._stop, grace_s=_CLOSE_GRACE_S)
        if self._forwarding is not None:
            self._events.put_nowait(None)  # the events already sent, then done
            with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                async with asyncio.timeout(None if exc_type is None else 0.5):
                    await asyncio.shield(self._forwarding)
            self._forwarding.cancel()

    async def play(
        self,
        seating: Seating,
        session: Session,
        told: Callable[[RoundRecord], None],
        here: Callable[[], Awaitable[None]],
    ) -> None:
        """Play one table unit in the next free worker, as ``play_table_match`` would
        here: ``told`` hears each round after it is written; a stop asked of
        ``session`` reaches the worker, and its table's early end comes back. While no
        worker is ready yet (they take half a second to start), this process plays
        the unit itself (``here``) when ``play_here``: not after, for a table here
        keeps its event loop (the workers' only writer) busy a whole match.

        Units start one at a time, in the order asked, each once its first read (its
        ``open_match``) is answered: the matches are stored in the order an in-process
        run stores them (``show --json`` lists them alike)."""
        if self._failure is not None:
            raise self._failure
        done: asyncio.Future[bool] = asyncio.get_running_loop().create_future()
        opened = asyncio.Event()
        async with self._starting:
            worker = await self._idle.get()
            if worker is not None:
                if worker.dead:  # died while idle
                    raise self._failure or WorkerError(f"worker {worker.number} is gone")
                worker.unit = _Unit(seating, told, done, opened)
                try:
                    worker.connection.send(("play", seating, session))
                    await _first((done, asyncio.ensure_future(opened.wait())))
                except BaseException:
                    self._close(worker)
                    raise
        if worker is None:  # this process, while the workers start
            try:
                await here()  # opens its match before it first waits: in order too
            finally:
                if not self._ready:  # after that the workers play, and this process writes
                    self._idle.put_nowait(None)
            return
        stop_sent = session.stop_asked
        try:
            while not done.done():
                await asyncio.wait((done,), timeout=_STOP_POLL_S)
                if session.stop_asked and not stop_sent and not done.done():
                    stop_sent = True
                    worker.connection.send(("stop",))
            if done.result():
                session.ended = True
        except BaseException:
            self._close(worker)  # cancelled or failed: its round under way is not stored
            if done.done() and not done.cancelled():
                done.exception()  # said by the run's first failure, not as "never retrieved"
            raise
        worker.unit = None
        self._idle.put_nowait(worker)

    # --- the pipes ----------------------------------------------------------------------

    def _readable(self, worker: _Worker) -> None:
        """Everything a worker sent, in order: answers, writes, rounds told, the end."""
        connection = worker.connection
        try:
            while not worker.dead and connection.poll():
                self._handle(worker, connection.recv())
        except (EOFError, OSError):
            self._lost(worker)
        except Exception as exc:  # a write refused (RoundExists), a told that failed
            self._fail(worker, exc)

    def _handle(self, worker: _Worker, message: tuple[Any, ...]) -> None:
        kind = message[0]
        unit = worker.unit
        if kind == "batch":
            for held in message[1]:
                self._handle(worker, held)
        elif kind == "write":
            _, name, args, kwargs = message
            getattr(self.store, name)(*args, **kwargs)
        elif kind == "call":
            _, name, args, kwargs = message
            if unit is not None:
                unit.opened.set()
            try:
                answer = getattr(self.store, name)(*args, **kwargs)
            except Exception as exc:
                worker.connection.send(("raise", exc))
            else:
                worker.connection.send(("reply", answer))
        elif kind == "ready":
            worker.ready = True
            self._ready += 1
            self._idle.put_nowait(worker)
        elif kind == "told" and unit is not None:
            unit.told(message[1])
        elif kind == "event":
            self._events.put_nowait(message[1])
        elif kind == "done" and unit is not None and not unit.done.done():
            unit.done.set_result(bool(message[1]))
        elif kind == "failed" and unit is not None and not unit.done.done():
            unit.done.set_exception(message[1])

    def _lost(self, worker: _Worker) -> None:
        """A worker's pipe closed: it died (killed, crashed) or its interpreter failed."""
        self._retire(worker)
        worker.process.join(1.0)
        code = worker.process.exitcode
        how = (
            "still running"
            if code is None
            else f"killed by signal {-code}"
            if code < 0
            else f"exit status {code}"
        )
        unit = worker.unit
        where = f"while playing table {unit.seating.table_id}" if unit else "while idle"
        failure = WorkerError(
            f"worker {worker.number} (pid {worker.process.pid}) ended {where} ({how}): "
            "the tournament stops, resumable"
        )
        self._failure = self._failure or failure
        if unit is not None and not unit.done.done():
            unit.done.set_exception(failure)

    def _fail(self, worker: _Worker, exc: Exception) -> None:
        """A message could not be applied: nothing more of this worker's is."""
        self._retire(worker)
        unit = worker.unit
        if unit is not None and not unit.done.done():
            unit.done.set_exception(exc)
        else:
            log.error("worker_message_failed", worker=worker.number, error=str(exc))

    async def _forward(self) -> None:
        """The workers' table events to this process's sinks, in the order they came."""
        while (event := await self._events.get()) is not None:
            for sink in self.sinks:
                try:
                    await sink.emit(event)
                except Exception as exc:  # counted, as a table counts it
                    self.sinks = guard_after_failure(self.sinks, sink, exc)

    # --- ending -------------------------------------------------------------------------

    def _retire(self, worker: _Worker) -> None:
        if not worker.dead:
            worker.dead = True
            with contextlib.suppress(Exception):
                asyncio.get_running_loop().remove_reader(worker.connection.fileno())
            self._idle.put_nowait(worker)  # wakes a waiter, which sees it dead

    def _close(self, worker: _Worker) -> None:
        """Its pipe closed: the worker stops its table (closing the agents) and exits."""
        self._retire(worker)
        worker.connection.close()

    def _stop(self, grace_s: float) -> None:
        """Every worker ended, within ``grace_s`` or killed; none outlives the pool.
        Blocking: the event loop runs it in a thread, its readers removed before."""
        deadline = time.monotonic() + grace_s
        for worker in self._workers:
            worker.connection.close()
        for worker in self._workers:
            if worker.ready:  # one still loading the arena holds nothing: not waited for
                worker.process.join(max(deadline - time.monotonic(), 0.0))
            if worker.process.is_alive():
                if worker.ready:
                    log.warning("worker_killed", worker=worker.number, pid=worker.process.pid)
                worker.process.kill()
                worker.process.join(2.0)
