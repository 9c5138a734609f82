"""Replays: every round as JSON lines, and re-checking a recorded round with the engine.

A replay holds hidden information (the deal, every hand in every request), so it is a
file for the organiser, never published. Lines are JSON objects with a ``kind``:

- ``round_start``: table, round, seed, players, rules, settings, prepared deal if any;
- ``message``: a message to (``to_agent``) or from (``from_agent``) a seat, with
  ``t_ms`` since the round started and, for replies, ``elapsed_ms``. A PLAY_REQUEST's
  ``play_history`` is stored as ``play_history_len``: the first that-many plays of the
  round, which the ``event`` lines hold, so the file grows linearly with the round. A
  reply that is not a protocol message (an agent returned a dict, a string, None ...)
  is stored as ``{"invalid_reply": repr, "python_type": name}``; a reply that came after
  its deadline carries ``"late": true`` (it was never applied);
- ``event``: a public event, as sinks saw it;
- ``round_end``: the round's record (result, scores, faults, stand-ins).

The timing fields ``t_ms`` and ``elapsed_ms`` are the only ones that differ between two
runs of the same seed with the same scripted agents.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson
from pydantic import BaseModel

from arena.engine import DealtCards, Phase, Round, Rules, card
from arena.errors import ArenaError, IllegalActionError
from arena.table.events import Event
from protocol import Message

__all__ = [
    "TIMING_FIELDS",
    "RecordedRound",
    "ReplayError",
    "ReplayWriter",
    "load_replay",
    "read_replay",
    "strip_timing",
    "verify_round",
]

TIMING_FIELDS = frozenset({"t_ms", "elapsed_ms"})


class ReplayError(ArenaError, ValueError):
    """A replay file that cannot be read, or a recorded round the engine rejects."""


class ReplayWriter:
    """The replay file; each table records into it through :meth:`for_table`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._file: IO[bytes] = self.path.open("wb", buffering=1 << 16)
        self.write_bytes = self._file.write
        """Write ready-made JSON lines (the recorders' hot path)."""

    def for_table(self, table: str) -> TableRecorder:
        """A recorder bound to one table, writing into this file."""
        return TableRecorder(self, table)

    def write(self, line: dict[str, Any]) -> None:
        """One JSON line."""
        self.write_bytes(_dumps(line, default=_plain, option=_NEWLINE))

    def close(self) -> None:
        """Flush and close the file."""
        self._file.close()


# The replay is written on the hot path of every turn (about 220 lines a round), so the
# recorder builds each line with little Python: orjson, bound methods, and millisecond
# rounding by integer arithmetic (round(x, 3) formats and parses a string).
_dumps = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE


class TableRecorder:
    """The replay of one table, a :class:`~arena.table.Recorder` (tables share a file)."""

    def __init__(self, writer: ReplayWriter, table: str) -> None:
        self._writer = writer
        self._write = writer.write_bytes
        self._table = table
        self._round = 0
        self._started = time.perf_counter()

    def round_started(self, header: dict[str, Any]) -> None:
        """Write the round's header and restart the clock."""
        self._round = int(header["round"])
        self._started = time.perf_counter()
        self._writer.write({"kind": "round_start", **header})

    def message(
        self,
        direction: str,
        seat: int,
        message: object,
        elapsed_ms: float | None,
        *,
        late: bool = False,
    ) -> None:
        """Write a message, a PLAY_REQUEST's history as its length.

        A reply may be anything an agent returned (a dict, a string, None): what is not a
        protocol message is written as its repr and type, so no agent can stop the record.
        """
        if isinstance(message, Message):
            body = message.__dict__
            if "play_history" in body:
                body = body.copy()
                body["play_history_len"] = len(body.pop("play_history"))
        else:
            body = _invalid_reply(message)
        line: dict[str, Any] = {
            "kind": "message",
            "table": self._table,
            "round": self._round,
            "dir": direction,
            "seat": seat,
            "t_ms": round((time.perf_counter() - self._started) * 1e6) / 1000,
            "message": body,
        }
        if elapsed_ms is not None:
            line["elapsed_ms"] = round(elapsed_ms * 1000) / 1000
        if late:
            line["late"] = True
        try:
            data = _dumps(line, default=_plain, option=_NEWLINE)
        except TypeError:  # a message built past pydantic's checks, holding what JSON cannot
            line["message"] = _invalid_reply(message)
            data = _dumps(line, default=_plain, option=_NEWLINE)
        self._write(data)

    def event(self, event: Event) -> None:
        """Write a public event."""
        line = {"kind": "event", "table": self._table, "event": event.to_dict()}
        self._write(_dumps(line, default=_plain, option=_NEWLINE))

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Write the round's record."""
        self._writer.write(
            {"kind": "round_end", "table": self._table, "round": self._round, "summary": summary}
        )


@dataclass
class RecordedRound:
    """One round as read back from a replay file."""

    table: str
    round: int
    header: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    messages: list[dict[str, Any]] = field(default_factory=list)
    summary: dict[str, Any] | None = None


def read_replay(lines: Iterable[str], *, source: str = "<replay>") -> list[RecordedRound]:
    """Group a replay's lines into rounds, in the order they started."""
    rounds: dict[tuple[str, int], RecordedRound] = {}
    order: list[RecordedRound] = []
    current: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
            kind = line["kind"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise ReplayError(f"{source}:{number}: not a replay line ({exc})") from exc
        if kind == "round_start":
            recorded = RecordedRound(line["table"], int(line["round"]), line)
            rounds[(recorded.table, recorded.round)] = recorded
            current[recorded.table] = recorded.round
            order.append(recorded)
            continue
        table = line.get("table", "")
        round_no = line.get("round")
        if round_no is None:
            round_no = line.get("event", {}).get("round", current.get(table))
        if round_no == 0:
            continue  # match-level events (match_started) belong to no round
        target = rounds.get((table, round_no))
        if target is None:
            raise ReplayError(f"{source}:{number}: a {kind} line before its round_start")
        if kind == "event":
            target.events.append(line["event"])
        elif kind == "message":
            target.messages.append(line)
        elif kind == "round_end":
            target.summary = line["summary"]
        else:
            raise ReplayError(f"{source}:{number}: unknown line kind {kind!r}")
    return order


def load_replay(path: str | Path) -> list[RecordedRound]:
    """Read a replay file."""
    file = Path(path)
    try:
        with file.open(encoding="utf-8") as handle:
            return read_replay(handle, source=str(file))
    except OSError as exc:
        raise ReplayError(f"{file}: cannot read: {exc.strerror}") from exc


def verify_round(recorded: RecordedRound) -> Round:
    """Replay every recorded action through a fresh engine; raise ReplayError on a mismatch.

    The deal comes from the seed (or the recorded prepared deal), each bid, double, play
    and pass from the events; the final scores must equal the recorded ones.
    """
    header = recorded.header
    where = f"table {recorded.table} round {recorded.round}"
    deal = header.get("deal")
    rnd = Round(
        Rules.model_validate(header["rules"]),
        seed=header["seed"],
        deal=_deal_from(deal) if deal else None,
        first_bidder=header.get("first_bidder"),
        landlord=header.get("landlord"),
        call_score=header.get("call_score"),
    )
    for event in recorded.events:
        kind, seat, data = event["type"], event["seat"], event.get("data", {})
        try:
            if kind == "bid":
                rnd.bid(seat, data["bid"])
            elif kind == "double":
                rnd.double(seat, data["double"])
            elif kind == "play":
                played = rnd.play(seat, data["cards"], data["hand_type"])
                if played.main_rank != data["main_rank"]:
                    raise ReplayError(f"{where}: seq {event['seq']}: reading differs from record")
            elif kind == "pass":
                rnd.pass_turn(seat)
        except (IllegalActionError, KeyError, TypeError) as exc:
            raise ReplayError(
                f"{where}: event {event.get('seq')} ({kind} by seat {seat}): {exc!s}"
            ) from exc
    if rnd.phase is not Phase.FINISHED or rnd.result is None:
        raise ReplayError(f"{where}: the recorded actions do not finish the round")
    _check_scores(recorded, list(rnd.result.scores), where)
    return rnd


def _check_scores(recorded: RecordedRound, scores: list[int], where: str) -> None:
    """Every score the replay shows must be the engine's: summary and round_result event."""
    players = recorded.header["players"]
    by_player = dict(zip(players, scores, strict=True))
    if recorded.summary is None:
        raise ReplayError(f"{where}: the round has no round_end line")
    shown: list[tuple[str, Any]] = [
        ("round_end result.scores", recorded.summary["result"]["scores"]),
        ("round_end scores", recorded.summary["scores"]),
    ]
    results = [e for e in recorded.events if e["type"] == "round_result"]
    if len(results) != 1:
        raise ReplayError(f"{where}: expected one round_result event, found {len(results)}")
    data = results[0]["data"]
    shown.append(("round_result event scores", data["scores"]))
    shown.append(("round_result event result.scores", data["result"]["scores"]))
    for label, value in shown:
        expected = by_player if isinstance(value, dict) else scores
        if value != expected:
            raise ReplayError(f"{where}: {label} {value} differ from the engine's {expected}")


def _invalid_reply(reply: object) -> dict[str, str]:
    """How a replay holds a reply that is not a protocol message: its repr and its type."""
    try:
        shown = repr(reply)[:500]
    except Exception as exc:  # an agent's object whose own repr fails
        shown = f"<{type(reply).__name__} whose repr raised {type(exc).__name__}>"
    return {"invalid_reply": shown, "python_type": type(reply).__name__}


def _plain(value: object) -> Any:
    """orjson's fallback: nested protocol records as their fields."""
    if isinstance(value, BaseModel):
        return value.__dict__
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot write {type(value).__name__} to a replay")


def _deal_from(data: dict[str, Any]) -> DealtCards:
    order = [*data["hands"][0], *data["hands"][1], *data["hands"][2], *data["bottom"]]
    return DealtCards.from_order([card(c) for c in order])


def strip_timing(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Replay lines without their timing fields, for comparing two runs."""
    for raw in lines:
        if raw.strip():
            line = json.loads(raw)
            for key in TIMING_FIELDS:
                line.pop(key, None)
            yield line
