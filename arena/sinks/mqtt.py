"""The live feed over MQTT: a sink that publishes every public event to a broker.

Topics (``<prefix>`` is ``[mqtt] topic_prefix``, ``ddz-arena`` by default; docs/mqtt.md)::

    <prefix>/status                  {"status": "online"/"offline", "run", "game", "degraded"},
                                     retained; offline is also the last will, sent by
                                     the broker if we vanish
    <prefix>/tables/<table>/events   every event as JSON, QoS 1, with its seq, the run's
                                     id ``run`` and the schema version ``v``
    <prefix>/tables/<table>/gifts    the ``gift`` events alone (also on ``events``): every
                                     gift queued, applied, rejected or expired
    <prefix>/tables/<table>/state    the table's public snapshot, retained
    <prefix>/tables/<table>/spectator  the delayed spectator feed's items (every hand),
                                     QoS 1, never retained; only when the feed is on

The table never waits for the broker, and does almost none of the work: ``emit``
encodes the event as it will be published and hands it, with others, to the MQTT
worker, a process of its own (:mod:`arena.sinks.mqtt_worker`) that folds the snapshots,
buffers (bounded: the oldest dropped, counted and logged), publishes, and reconnects
with backoff when the broker goes away (:mod:`arena.sinks.mqtt_feed`). So the tables
keep their core, and the feed runs on another. The worker's log lines and figures come
back to this process: :attr:`MqttSink.stats`, and one summary line at ``close``.

Whether the feed delivers is this sink's health too (:mod:`arena.sinks.health`): the
worker says when its broker has been away past a grace or refuses what it is sent, and
this process sees the worker exit. Either is set as the sink's condition, so that the
run's :class:`~arena.sinks.health.SinkHealthBoard` names the feed degraded where viewers'
tools look (``/healthz``, the overlay, the control page, and the retained status
whenever it can still be published), and clears it when the feed delivers again. A
worker that exits is not started again: the feed is degraded for the rest of the run
(docs/mqtt.md says why).

``close`` lets the worker deliver what is left, the final snapshots and ``offline``,
within a bound; what it could not deliver is counted and logged. If this process dies,
the worker still does the same and exits. Every known secret is masked in what goes
to the worker (:mod:`arena.masking`), a batch at a time: the worker publishes nothing
else, so it needs none of them. Events carry no hidden information, and
nothing but them, the snapshots and the status is published, unless a
:class:`~arena.sinks.spectator.SpectatorFeed` is given this sink as its output: its
items (hidden information, released only after the feed's delay) come through
:meth:`MqttSink.emit_spectator` and go to the ``spectator`` topic alone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.events import Event
from arena.games.registry import DEFAULT_GAME
from arena.logs import get_logger
from arena.masking import mask_bytes
from arena.safe_json import dumps, replaced_dumps
from arena.sinks.health import DELIVERY_GRACE_S, Degraded, health_of
from arena.sinks.mqtt_client import mqtt_credentials
from arena.sinks.mqtt_feed import MqttStats
from arena.sinks.mqtt_publisher import broker_url
from arena.sinks.mqtt_worker import (
    EVENT,
    HEALTH_MARK,
    HURRY,
    PASSWORD_VARIABLE,
    SPECTATOR,
    SPECTATOR_MARK,
    USERNAME_VARIABLE,
)
from arena.sinks.queued import INTERRUPTED_CLOSE_WITHIN_S
from protocol.events import EVENT_SCHEMA_VERSION

__all__ = ["MqttSink", "MqttStats", "broker_from_url", "event_line", "new_run_id", "status_topic"]

log = get_logger(__name__)

_FLUSH_EVERY: Final = 128
"""Events queued before they are written to the worker at once (fewer wait for the
next turn of the event loop)."""
_WORKER_EXTRA_S: Final = 3.0
"""How much longer than its own bound ``close`` waits for the worker to exit."""
_SOURCE_ROOT: Final = str(Path(__file__).resolve().parents[2])
"""Where ``arena`` is imported from: the worker imports the same code."""


def broker_from_url(url: str) -> dict[str, Any]:
    """``mqtt://host[:port]`` (or ``mqtts://`` for TLS) as ``[mqtt]`` settings:
    ``{"host": ..., "port": ..., "tls": ...}``. A ConfigError says what is wrong; a URL
    holding credentials is not shown (they come from the environment)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ConfigError(
            f"{url!r} is no broker URL ({exc}); such as mqtt://127.0.0.1:1883"
        ) from None
    if parts.username is not None or parts.password is not None:
        raise ConfigError(
            "the broker URL holds a user name or password, so it is not shown: credentials "
            "come from the environment ([mqtt] username_env / password_env name the "
            "variables); give the URL as mqtt://host:port"
        )
    if parts.scheme not in ("mqtt", "mqtts"):
        raise ConfigError(
            f"{url!r}: the URL must start with mqtt:// (or mqtts:// for TLS), such as "
            "mqtt://127.0.0.1:1883"
        )
    if not parts.hostname:
        raise ConfigError(f"{url!r} names no host, such as mqtt://127.0.0.1:1883")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ConfigError(
            f"{url!r}: a broker URL is mqtt://host:port, without a path or query "
            "(the topics' prefix is [mqtt] topic_prefix)"
        )
    tls = parts.scheme == "mqtts"
    return {"host": parts.hostname, "port": port or (8883 if tls else 1883), "tls": tls}


class MqttSink:
    """Publishes the public events of every table it is attached to (see the module).

    ``run_id`` tells this process's tables from another's on the same broker; the
    client id defaults to ``ddz-arena-`` and 16 random hex digits (never the run id,
    which every payload shows). ``environ`` is where the credentials'
    variables are read (the process environment by default); a variable unset is a
    ConfigError here, before any match.
    """

    never_waits: Final = True
    """``emit`` returns at once, so :mod:`arena.runner` puts no queue in front of it."""
    close_within_s: float = 5.0
    """How long ``close`` may take to deliver what is left and say offline."""
    backoff_cap_s: float = 5.0
    """The longest wait between two connection attempts."""
    unreachable_grace_s: float = DELIVERY_GRACE_S
    """How long the broker may be away before the feed is degraded."""

    def __init__(
        self,
        settings: MqttSettings,
        *,
        run_id: str,
        environ: Mapping[str, str] | None = None,
        game: str = DEFAULT_GAME,
    ) -> None:
        self.settings = settings
        self.run_id = run_id
        self.game = game
        """The game the arena plays: the retained status names it."""
        self.status_topic = status_topic(settings)
        self._stats = MqttStats()
        environ = os.environ if environ is None else environ
        self._credentials = self._options(settings, environ)
        self._lines: list[bytes] = []
        """Events and spectator items not yet written to the worker, one line each."""
        self._health_line: bytes | None = None
        """The degraded sinks, not yet written to the worker (the latest only)."""
        self._held = {EVENT: 0, SPECTATOR: 0}
        """How many of each kind ``_lines`` holds while the worker starts; afterwards
        only the spectator items are counted (the rest are events)."""
        self._sent = {EVENT: 0, SPECTATOR: 0}
        self._gift_events = 0
        """``gift`` events handed over: each is published twice (events and gifts)."""
        """Written to the worker."""
        self._lost = {EVENT: 0, SPECTATOR: 0}
        """Dropped on this side: before the worker was up, or after it was gone."""
        self._worker_stats: dict[str, Any] = {}
        self._up = asyncio.Event()
        """Set once the worker said something (it runs), or failed to start."""
        self._final = False
        self._process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._flush_handle: asyncio.Handle | None = None
        self._closing = self._closed = False
        self._backlog = self._dropping = False
        self._pipe_limit = settings.queue_size * 1024
        """Bytes written to the worker but not yet read by it, at most: as many events
        as its own buffer holds, at a generous size each."""

    @property
    def stats(self) -> MqttStats:
        """What the worker reported so far, with what was dropped on this side of the
        pipe (final once closed: ``undelivered`` is set then)."""
        self._update(final=self._closed and self._task is None)
        return self._stats

    @property
    def url(self) -> str:
        """Where it publishes: ``mqtt://host:port`` (``mqtts://`` with TLS)."""
        return broker_url(self.settings.host, self.settings.port, tls=self.settings.tls)

    def _options(self, settings: MqttSettings, environ: Mapping[str, str]) -> dict[str, str]:
        """The Publisher.connect keywords; a credential's variable unset is a ConfigError."""
        return mqtt_credentials(settings, environ)

    def start(self) -> None:
        """Start the worker now (``emit`` does it otherwise), so that the status goes
        online before the first event. Call it inside the running event loop."""
        if self._task is None and not self._closing:
            self._task = asyncio.create_task(self._run(), name="mqtt-worker")

    async def started(self, within_s: float = 10.0) -> bool:
        """Start the worker and wait until it runs (not until it reaches the broker,
        which may be away): events of an unpaced table then flow at once instead of
        piling up while it starts. False if it did not come up in time."""
        self.start()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(within_s):
                await self._up.wait()
        return self._up.is_set() and self._process is not None

    async def emit(self, event: Event) -> None:
        """Encode the event as published and queue it for the worker; never waits."""
        line = event_line(event, self.run_id)
        if event.type == "gift":
            self._gift_events += 1
        if self._process is None or self._closing:
            self._hold(EVENT, line)
            return
        lines = self._lines
        lines.append(line)
        if len(lines) >= _FLUSH_EVERY:
            self._flush()
            if self._backlog:  # the worker is behind: let the loop write to it
                await asyncio.sleep(0)
        elif self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)

    async def emit_spectator(self, item: dict[str, Any]) -> None:
        """Queue one released spectator item for ``<prefix>/tables/<table>/spectator``
        (QoS 1, never retained), with the run id; never waits. Only the spectator feed
        calls it: its items hold every hand, so they go to that topic and nowhere else."""
        line = SPECTATOR_MARK + dumps({**item, "run": self.run_id}, where="a spectator item")
        if self._process is None or self._closing:
            self._hold(SPECTATOR, line)
            return
        self._lines.append(line)
        self._held[SPECTATOR] += 1
        if self._flush_handle is None:
            self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)

    def health_changed(self, degraded: Degraded) -> None:
        """The degraded sinks now (a :class:`~arena.sinks.health.SinkHealthBoard` it is
        tracked on tells it): the retained status says them from the next moment on."""
        if self._closing:
            return
        self._health_line = HEALTH_MARK + orjson.dumps(degraded) + b"\n"
        if self._process is not None and self._flush_handle is None:
            with contextlib.suppress(RuntimeError):  # no loop: the next flush writes it
                self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)

    def _hold(self, kind: int, line: bytes) -> None:
        """A line while the worker starts (held, a bounded number of each kind), or
        after ``close`` (lost, counted)."""
        if self._closing:
            self._lost[kind] += 1
            return
        if self._task is None:
            self.start()
        lines, held = self._lines, self._held
        lines.append(line)
        held[kind] += 1
        if held[kind] > self.settings.queue_size:  # the oldest of its kind goes
            spectator = kind == SPECTATOR
            oldest = next(
                i for i, old in enumerate(lines) if old.startswith(SPECTATOR_MARK) == spectator
            )
            del lines[oldest]
            held[kind] -= 1
            self._lost[kind] += 1

    def _flush(self) -> None:
        """Write every queued line to the worker at once (the degraded sinks first)."""
        self._flush_handle = None
        lines, held, process = self._lines, self._held, self._process
        if process is None:
            return
        stdin = process.stdin
        if stdin is not None and (stdin.is_closing() or process.returncode is not None):
            stdin = None  # the worker is gone
        if self._health_line is not None and stdin is not None:
            stdin.write(mask_bytes(self._health_line))  # last errors may quote anything
            self._health_line = None
        if not lines:
            return
        counts = {EVENT: len(lines) - held[SPECTATOR], SPECTATOR: held[SPECTATOR]}
        if stdin is None:
            for kind, count in counts.items():
                self._lost[kind] += count
        elif stdin.transport.get_write_buffer_size() > self._pipe_limit:
            # the worker is far behind (its own buffer bounds what it holds): these
            # are dropped here rather than held in memory without end
            for kind, count in counts.items():
                self._lost[kind] += count
            if not self._dropping:
                self._dropping = True
                log.warning(
                    "mqtt_worker_behind",
                    broker=self.url,
                    detail="the MQTT worker does not keep up: events are dropped",
                )
        else:
            self._dropping = False
            lines.append(b"")  # each line ends with a newline
            stdin.write(mask_bytes(b"\n".join(lines)))  # the worker publishes only these
            for kind, count in counts.items():
                self._sent[kind] += count
            self._backlog = stdin.transport.get_write_buffer_size() > 0
        lines.clear()
        held[EVENT] = held[SPECTATOR] = 0

    async def close(self, *, interrupted: bool | None = None) -> None:
        """Let the worker deliver what is left, the final snapshots and ``offline``
        (within :attr:`close_within_s`; ``INTERRUPTED_CLOSE_WITHIN_S`` when
        ``interrupted``, by default when the calling task is being cancelled, as by
        Ctrl-C or SIGTERM), then report: what was not delivered is counted in
        :attr:`stats` and logged."""
        if self._closed:  # a second close (a wrapper's, then the owner's) does nothing
            return
        self._closed = True
        if interrupted is None:
            task_now = asyncio.current_task()
            interrupted = task_now is not None and task_now.cancelling() > 0
        within_s = (
            min(self.close_within_s, INTERRUPTED_CLOSE_WITHIN_S)
            if interrupted
            else (self.close_within_s)
        )
        task = self._task
        if task is not None and self._process is None:  # still starting: let it
            await asyncio.wait({task}, timeout=_WORKER_EXTRA_S)
        self._closing = True
        self._flush()
        if self._process is not None and self._process.stdin is not None:
            if interrupted and not self._process.stdin.is_closing():
                self._process.stdin.write(HURRY + b"\n")  # deliver within the short bound
            self._process.stdin.close()  # the worker's cue to finish
        if task is not None:
            done, _ = await asyncio.wait({task}, timeout=within_s + _WORKER_EXTRA_S)
            if not done:
                log.error("mqtt_worker_stuck", broker=self.url, within_s=self.close_within_s)
                if self._process is not None and self._process.returncode is None:
                    self._process.kill()
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        for kind in (EVENT, SPECTATOR):  # never written: the worker never came up
            self._lost[kind] += self._held[kind]
            self._held[kind] = 0
        self._lines.clear()
        self._task = None
        stats = self.stats
        fields = {"broker": self.url, "published": stats.published, "run_id": self.run_id}
        if stats.spectator_published or stats.spectator_undelivered:
            fields["spectator_published"] = stats.spectator_published
        if stats.spectator_undelivered:
            fields["spectator_undelivered"] = stats.spectator_undelivered
        # one line with the figures; `arena play` then says the count in words
        level = "warning" if stats.undelivered or stats.spectator_undelivered else "info"
        getattr(log, level)("mqtt_closed", undelivered=stats.undelivered, **fields)

    async def _run(self) -> None:
        """Start the worker, then read what it says until it exits."""
        options = {
            "settings": self.settings.model_dump(mode="json"),
            "run_id": self.run_id,
            "game": self.game,
            "close_within_s": self.close_within_s,
            "backoff_cap_s": self.backoff_cap_s,
            "unreachable_grace_s": self.unreachable_grace_s,
        }
        environment = dict(os.environ)
        environment.pop(USERNAME_VARIABLE, None)
        environment.pop(PASSWORD_VARIABLE, None)
        for key, variable in (("username", USERNAME_VARIABLE), ("password", PASSWORD_VARIABLE)):
            if self._credentials.get(key):
                environment[variable] = str(self._credentials[key])
        path = environment.get("PYTHONPATH")
        environment["PYTHONPATH"] = _SOURCE_ROOT + (os.pathsep + path if path else "")
        try:
            process = await asyncio.create_subprocess_exec(
                *(sys.executable, "-m", "arena.sinks.mqtt_worker", orjson.dumps(options)),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env=environment,
                start_new_session=True,  # Ctrl-C in the terminal is for the arena: it closes us
            )
        except OSError as exc:
            log.error("mqtt_worker_failed", broker=self.url, error=str(exc))  # noqa: TRY400
            health_of(self).set_condition(f"the MQTT worker could not start: {exc}")
            self._up.set()
            return
        self._process = process
        if self._closing and process.stdin is not None:
            process.stdin.close()
        self._flush()
        assert process.stdout is not None
        try:
            async for line in process.stdout:
                self._heard(line)
            code = await process.wait()
        except asyncio.CancelledError:
            if process.stdin is not None:  # the worker finishes on its own, unwaited
                process.stdin.close()
            raise
        finally:
            self._up.set()
        if code != 0 or not self._final:
            log.error(
                "mqtt_worker_exited",
                broker=self.url,
                code=code,
                hint="the live feed stopped; what it had not published is counted undelivered",
            )
            # not started again (docs/mqtt.md): degraded for the rest of the run
            health_of(self).set_condition(
                f"MQTT worker exited (code {code}): the live feed stopped for the rest of the run"
            )

    def _heard(self, line: bytes) -> None:
        """One line from the worker: its figures, or a log line to log here."""
        try:
            said = orjson.loads(line)
        except orjson.JSONDecodeError:
            log.warning("mqtt_worker_said", line=line[:200].decode(errors="replace"))
            return
        if "log" in said:
            level = said["log"] if said["log"] in ("info", "warning", "error") else "info"
            getattr(log, level)(said["event"], **said.get("fields", {}))
            return
        if "condition" in said:  # what keeps the feed from delivering (None: nothing)
            condition = said["condition"]
            health_of(self).set_condition(condition if isinstance(condition, str) else None)
            return
        figures = said.get("stats") or said.get("final")
        if figures is None:
            return
        self._final = "final" in said
        self._worker_stats = figures
        self._up.set()

    def _update(self, *, final: bool) -> None:
        """The worker's figures, with what was lost on this side of the pipe."""
        worker, stats = self._worker_stats, self._stats
        stats.connections = worker.get("connections", 0)
        stats.connected = bool(worker.get("connected")) and not final
        stats.worker_cpu_s = float(worker.get("cpu_s", 0.0))
        for prefix, kind in (("", EVENT), ("spectator_", SPECTATOR)):
            published = worker.get(f"{prefix}published", 0)
            refused = worker.get(f"{prefix}refused", 0)
            setattr(stats, f"{prefix}published", published)
            setattr(stats, f"{prefix}refused", refused)
            setattr(stats, f"{prefix}dropped", worker.get(f"{prefix}dropped", 0) + self._lost[kind])
            if final:
                # everything handed over and not published: dropped on either side,
                # refused, left in a buffer, or lost with the worker
                handed = self._sent[kind] + self._lost[kind]
                if kind == EVENT:  # messages, not lines: a gift event is two messages
                    handed += self._gift_events
                setattr(stats, f"{prefix}undelivered", handed - published)


def event_line(event: Event, run_id: str) -> bytes:
    """An event as published: ``Event.to_dict()`` with ``v`` and ``run``, built as one
    dict (this runs for every event of every table)."""
    data = event.data
    line = {
        "type": event.type,
        "table": event.table,
        "round": event.round,
        "seq": event.seq,
        "seat": event.seat,
        "player": event.player,
        "data": data if type(data) is dict else dict(data),
        "game": event.game,
        "v": EVENT_SCHEMA_VERSION,
        "run": run_id,
    }
    try:
        return orjson.dumps(line)
    except TypeError:  # a value no JSON holds: published as text, the sink kept
        return replaced_dumps(line, where="an MQTT event")


def status_topic(settings: MqttSettings) -> str:
    """``<prefix>/status``: the arena's ``online`` / ``offline``, retained (see the
    module); ``arena gift send`` reads it before sending."""
    return f"{settings.topic_prefix}/status"


def new_run_id() -> str:
    """A short id for this run: in every payload, and the default client id's end."""
    return f"{int(time.time()):x}{os.urandom(3).hex()}"
