"""The MQTT worker: the live feed published from a process of its own.

Why a process: publishing costs CPU for every event (encoding, framing, reading the
broker's acknowledgements, folding the snapshots), and a scripted table makes an event
every 27 µs. In the tables' process that work would slow every match; here it runs on
another core. :class:`arena.sinks.mqtt.MqttSink` starts it with
``python -m arena.sinks.mqtt_worker OPTIONS`` and talks to it through pipes:

- **stdin**, JSON lines, exactly as they are published: an event's, or a spectator
  item's after an ``S``; or, after an ``H``, the sinks the arena's process says are
  degraded (a JSON list, for the retained status: :mod:`arena.sinks.health`). (orjson
  never writes a raw newline inside a value.) The end of
  stdin means "deliver what is left, say offline, and exit", whether the arena closed
  it or died (a killed arena still leaves its status offline and its retained
  snapshots current).
- **stdout**, JSON lines: ``{"stats": {...}}`` (what the feed did so far, as
  :class:`~arena.sinks.mqtt_feed.MqttStats`, plus ``received`` and
  ``spectator_received``, the frames read, and ``cpu_s``, its CPU time so far),
  ``{"log": LEVEL, "event": NAME, "fields": {...}}`` (the feed's log lines, logged
  again by the arena with its own settings), ``{"condition": WORDS}`` (what keeps the
  feed from delivering: its broker away past a grace, or refusing it; ``null`` once it
  delivers again: :class:`~arena.sinks.health.DeliveryWatch`, told when it changes and
  its counts at most every 10 s, never skipped) and, last, ``{"final": {...}}``.

OPTIONS is JSON: the ``[mqtt]`` settings, the run id and the feed's time bounds (its
close, its backoff, the grace a broker may be away before the feed is degraded). The
credentials come in the environment (:data:`USERNAME_VARIABLE`, :data:`PASSWORD_VARIABLE`),
never on the command line, where any user of the machine could read them.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import os
import ssl
import sys
import time
import traceback
from typing import Any, Final

import orjson

from arena.config import MqttSettings
from arena.errors import ConfigError
from arena.games.registry import get_game
from arena.sinks.mqtt_feed import MqttFeed, status_payload

__all__ = [
    "EVENT",
    "HEALTH",
    "HEALTH_MARK",
    "PASSWORD_VARIABLE",
    "SPECTATOR",
    "SPECTATOR_MARK",
    "USERNAME_VARIABLE",
    "line",
    "main",
    "read_lines",
]

EVENT: Final = 0
SPECTATOR: Final = 1
HEALTH: Final = 2
SPECTATOR_MARK: Final = b"S"
"""What starts a spectator item's line (an event's starts with ``{``)."""
HEALTH_MARK: Final = b"H"
"""What starts a line of the degraded sinks."""
HURRY: Final = b"!"
"""A line that says: the arena was interrupted, close within 0.5 s."""
USERNAME_VARIABLE: Final = "DDZ_ARENA_MQTT_USERNAME"
PASSWORD_VARIABLE: Final = "DDZ_ARENA_MQTT_PASSWORD"
_NICENESS: Final = 5
"""How much lower the worker's scheduling priority is than the arena's."""
_STATS_EVERY_S: Final = 0.02
"""How often the worker says what it did, if anything changed."""


_MARKS: Final = {EVENT: b"", SPECTATOR: SPECTATOR_MARK, HEALTH: HEALTH_MARK}
_KIND_OF_MARK: Final = {SPECTATOR_MARK: SPECTATOR, HEALTH_MARK: HEALTH}


def line(kind: int, payload: bytes) -> bytes:
    """One line for the worker's stdin (the arena's sink writes them itself)."""
    return _MARKS[kind] + payload + b"\n"


def read_lines(buffer: bytearray) -> list[tuple[int, bytes]]:
    """Take every whole line off the front of ``buffer``, as (kind, payload); a
    partial one stays."""
    end = buffer.rfind(b"\n")
    if end < 0:
        return []
    whole = bytes(buffer[:end])
    del buffer[: end + 1]
    taken = []
    for text in whole.split(b"\n"):
        kind = _KIND_OF_MARK.get(text[:1], EVENT)  # an event's line starts with {
        taken.append((kind, text if kind == EVENT else text[1:]))
    return taken


class _Stdout:
    """JSON lines to the arena, never blocking the feed: a figures line is skipped
    while earlier lines are still unread (the next one carries newer figures)."""

    def __init__(self, transport: asyncio.WriteTransport) -> None:
        self._transport = transport

    def say(self, line: dict[str, Any], *, skippable: bool = False) -> None:
        if skippable and self._transport.get_write_buffer_size():
            return
        if not self._transport.is_closing():
            self._transport.write(orjson.dumps(line, default=str) + b"\n")

    # the feed's log lines

    def info(self, event: str, **fields: Any) -> None:
        self.say({"log": "info", "event": event, "fields": fields})

    def warning(self, event: str, **fields: Any) -> None:
        self.say({"log": "warning", "event": event, "fields": fields})

    def error(self, event: str, **fields: Any) -> None:
        exc = fields.pop("exc_info", None)
        if isinstance(exc, BaseException):
            fields["traceback"] = "".join(traceback.format_exception(exc))
        self.say({"log": "error", "event": event, "fields": fields})

    def exception(self, event: str, **fields: Any) -> None:
        fields["error"] = traceback.format_exc()
        self.say({"log": "error", "event": event, "fields": fields})

    async def drained(self) -> None:
        """Until every line is written (or the arena stopped reading)."""
        for _ in range(200):
            if not self._transport.get_write_buffer_size() or self._transport.is_closing():
                return
            await asyncio.sleep(0.01)


async def serve(options: dict[str, Any], credentials: dict[str, str]) -> None:
    """Feed every frame from stdin to a :class:`MqttFeed` until stdin ends, then close
    it and report the final figures."""
    settings = MqttSettings.model_validate_json(orjson.dumps(options["settings"]))
    loop = asyncio.get_running_loop()
    transport, _ = await loop.connect_write_pipe(asyncio.Protocol, sys.stdout.buffer)
    stdout = _Stdout(transport)
    run_id, game = options["run_id"], options["game"]
    feed = MqttFeed(
        settings,
        run_id=run_id,
        game=game,
        connect={
            "host": settings.host,
            "port": settings.port,
            # never derived from the run id, which every payload shows: a client that
            # connected with the arena's id would take its session over
            "client_id": settings.client_id or f"ddz-arena-{os.urandom(8).hex()}",
            "version": 5 if settings.protocol == "5" else 4,
            "will": (
                f"{settings.topic_prefix}/status",
                status_payload("offline", run_id, game=game),
            ),
            "tls": ssl.create_default_context() if settings.tls else None,
            "timeout_s": 5.0,
            **credentials,
        },
        log=stdout,
        close_within_s=options["close_within_s"],
        backoff_cap_s=options["backoff_cap_s"],
        unreachable_grace_s=options["unreachable_grace_s"],
    )
    received = {EVENT: 0, SPECTATOR: 0}

    def figures() -> dict[str, Any]:
        stats = dataclasses.asdict(feed.stats)
        stats["received"], stats["spectator_received"] = received[EVENT], received[SPECTATOR]
        return stats

    async def report() -> None:
        last: dict[str, Any] = {}
        while True:
            now = figures()
            if now != last:
                stdout.say({"stats": {**now, "cpu_s": time.process_time()}}, skippable=True)
                last = now
            news, condition = feed.delivery()
            if news:
                stdout.say({"condition": condition})
            await asyncio.sleep(_STATS_EVERY_S)

    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    # the game's snapshot code (its engine's models: tens of ms) loaded now, not when the
    # first event comes, which would hold the first events of a match up behind it
    with contextlib.suppress(ConfigError):  # else told when its first event comes
        get_game(game).public_state("start-up", run_id=run_id)
    feed.start()
    gc.freeze()  # start-up's objects (pydantic's, the modules') out of every collection
    reporter = asyncio.create_task(report())
    buffer = bytearray()
    put_event, put_spectator = feed.put_event, feed.put_spectator
    while data := await reader.read(1 << 16):
        buffer += data
        for kind, payload in read_lines(buffer):
            if kind == EVENT and payload == HURRY:
                feed.close_within_s = min(feed.close_within_s, 0.5)
                continue
            if kind == EVENT:
                put_event(payload)
            elif kind == SPECTATOR:
                put_spectator(payload)
            else:
                feed.set_health(payload)
                continue
            received[kind] += 1
    await feed.close()
    reporter.cancel()
    stdout.say({"final": {**figures(), "cpu_s": time.process_time()}})
    await stdout.drained()
    transport.close()


def main(argv: list[str] | None = None) -> None:
    """``python -m arena.sinks.mqtt_worker OPTIONS`` (see the module)."""

    with contextlib.suppress(OSError):
        # the tables come first when both want the same core: the feed catches up
        # whenever they wait, and its buffer holds what it has not published yet
        os.nice(_NICENESS)
    args = sys.argv[1:] if argv is None else argv
    options = orjson.loads(args[0])
    credentials = {
        key: os.environ[variable]
        for key, variable in (("username", USERNAME_VARIABLE), ("password", PASSWORD_VARIABLE))
        if os.environ.get(variable)
    }
    asyncio.run(serve(options, credentials))
    # Everything is delivered and said: skip the interpreter's tear-down (tens of ms
    # of freeing objects), which the arena's close would otherwise wait for.
    os._exit(0)


if __name__ == "__main__":
    main()
