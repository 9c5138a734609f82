"""A round's replay lines as the store keeps them: cheap to record, rebuilt on reading.

A replay file (:class:`arena.replay.TableRecorder`) writes every message and event as a
JSON line of its own as it happens. The store keeps the same content, but a tournament
records every round of every table, and writing a line at a time cost a third of a
scripted tournament's speed. So :class:`RoundLines` keeps each item in the cheapest form
that is still safe to hold until the round ends, then encodes the round as one JSON array
compressed with zstd (about 8 times smaller; several times faster than zlib):

- an **event**: its seven fields in order, ``[type, table, round, seq, seat, player,
  data]`` (events are immutable, so holding one costs a slice);
- a **message**: ``[direction, seat, t_us, elapsed_ms, late, body]``, the body encoded
  at once (an in-process agent may change the lists of the message it was handed) and
  as the replay writes it: a PLAY_REQUEST's history as its length, a reply that is no
  protocol message as its repr and type;
- any **other line** (a model's decision, a gift's effect): the whole line, an object.

:func:`expand` turns a stored round back into the replay's own lines, so a stored match
reads and checks like a replay file (``arena replay``, :func:`arena.replay.read_replay`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, Final

import orjson
import zstandard

from arena.events import Event
from arena.masking import mask_bytes
from arena.replay import encoded_decision, encoded_message, plain
from arena.safe_json import dumps

__all__ = ["FORMAT", "RoundLines", "expand"]

FORMAT: Final = 2
"""The ``lines_format`` of what :class:`RoundLines` encodes (1: zlib'd JSON lines)."""

_dumps = orjson.dumps
_Fragment = orjson.Fragment
_NEWLINE = orjson.OPT_APPEND_NEWLINE
_compressor = zstandard.ZstdCompressor(level=1)
_decompressor = zstandard.ZstdDecompressor()
_EVENT_FIELDS: Final = Event._fields[:7]
"""An event's fields as a replay's event line has them: all but ``game``, which the
round's header names (stored rounds from before it have these seven)."""
_clock = time.perf_counter


class RoundLines:
    """The items of one round (or of the time between two rounds), in the order told."""

    __slots__ = ("_items", "_started")

    def __init__(self) -> None:
        self._items: list[Any] = []
        self._started = time.perf_counter()

    def restart_clock(self) -> None:
        """A round begins: messages' ``t_ms`` count from now."""
        self._started = time.perf_counter()

    def __bool__(self) -> bool:
        return bool(self._items)

    def event(self, event: Event) -> None:
        """Keep a public event (a tuple: immutable, held as its fields)."""
        self._items.append(event[:7])  # as the replay writes it: its header names the game

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """Keep a message, its body encoded now (the signature of a recorder's)."""
        t_us = round((_clock() - self._started) * 1e6)
        self._items.append(
            (direction, seat, t_us, elapsed_ms, late, _Fragment(encoded_message(message)))
        )

    def line(self, line: dict[str, Any]) -> None:
        """Keep a whole line (a gift's effect), encoded now."""
        self._items.append(_Fragment(dumps(line, default=plain, where="a stored round's line")))

    def decision(self, line: dict[str, Any]) -> None:
        """Keep a model seat's ``decision`` line, encoded now (its report as the replay
        keeps it)."""
        self._items.append(_Fragment(encoded_decision(line)))

    def take(self) -> bytes:
        """The items kept so far, encoded, every known secret masked (:mod:`arena.masking`)
        and compressed; none are kept after."""
        items, self._items = self._items, []
        return _compressor.compress(mask_bytes(dumps(items, default=plain, where="a stored round")))


def expand(stored: bytes, table: str, round_no: int) -> Iterator[bytes]:
    """The replay lines of what :meth:`RoundLines.take` returned; ``round_no`` is the
    round the messages belong to (the last one, between rounds)."""
    for item in orjson.loads(_decompressor.decompress(stored)):
        if type(item) is dict:
            line = item
        elif len(item) == len(_EVENT_FIELDS):
            line = {
                "kind": "event",
                "table": table,
                "event": dict(zip(_EVENT_FIELDS, item, strict=True)),
            }
        else:
            direction, seat, t_us, elapsed_ms, late, body = item
            line = {
                "kind": "message",
                "table": table,
                "round": round_no,
                "dir": direction,
                "seat": seat,
                "t_ms": t_us / 1000,
                "message": body,
            }
            if elapsed_ms is not None:
                line["elapsed_ms"] = round(elapsed_ms * 1000) / 1000
            if late:
                line["late"] = True
        yield _dumps(line, option=_NEWLINE)
