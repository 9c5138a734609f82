"""Replays: every round as JSON lines, read back (whole or cut off) and compared.

A replay holds hidden information (the deal, every hand in every request), so it is a
file for the organiser, never published; no secret the arena knows is in it
(:mod:`arena.masking` masks them as it is written). Lines are JSON objects with a ``kind``:

- ``round_start``: table, round, seed, players, rules, settings, prepared deal if any;
- ``message``: a message to (``to_agent``) or from (``from_agent``) a seat, with
  ``t_ms`` since the round started and, for replies, ``elapsed_ms``. A PLAY_REQUEST's
  ``play_history`` (Tractor's: ``played``) is stored as ``play_history_len``
  (``played_len``): the first that-many plays of the round, which the ``event`` lines
  hold, so the file grows linearly with the round. A
  reply that is not a protocol message (an agent returned a dict, a string, None ...)
  is stored as ``{"invalid_reply": repr, "python_type": name}``; a reply that came after
  its deadline carries ``"late": true`` (it was never applied);
- ``event``: a public event, as sinks saw it;
- ``decision``: one attempt of a model seat (seats whose agent reports its calls):
  ``request_id``, ``attempt`` (from 0), ``outcome`` (``accepted`` or the rejection's
  category), ``detail`` and ``report`` (the call: provider, model, tokens, cost,
  ``latency_ms``, and the prompt, raw text and reasoning that only the replay keeps).
  It follows the attempt's reply (if any) and precedes its REPLY_REJECTED; the engine
  check passes over it (``arena replay --decisions`` shows it);
- ``effect``: a viewer gift's effect applied at a safe point (``effect``, ``seats``,
  ``cards``: the cards moved, hidden information), just before its public
  ``effect_applied`` event, which says only the seats and how many cards; the check
  applies it to its engine like an action;
- ``round_end``: the round's record (result, scores, faults, stand-ins, per-seat stats);
- ``tournament``: in a tournament's export (``arena tournament export ID --replay``),
  its first line: the tournament, its committed seeds and each round's epoch, what
  ``arena tournament verify --from-file`` checks the rounds against
  (:attr:`Replay.tournament`; the round check passes over it).

The timing fields ``t_ms``, ``elapsed_ms`` and (at any depth) ``latency_ms`` are the only
ones that differ between two runs of the same seed with the same scripted agents;
:func:`compare_replays` (``arena replay A --compare B``) ignores them. Checking a round
against the engine is :func:`verify_round`: the check of the game the round's header
names (``Game.replay_check``; Dou Dizhu's, :mod:`arena.games.ddz.replay_check`, for a
header without ``game``, recorded before the arena played a second game).
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

import orjson
from pydantic import BaseModel

from arena.errors import ConfigError
from arena.events import Event
from arena.games.registry import DEFAULT_GAME, get_game
from arena.masking import MaskedLines
from arena.replay_round import RecordedRound, ReplayError, RoundIncomplete, RoundMismatch
from arena.safe_json import dumps, replaced_dumps
from protocol import Message
from protocol.events import MAX_SEATS

__all__ = [
    "TIMING_FIELDS",
    "Difference",
    "RecordedRound",
    "Replay",
    "ReplayError",
    "ReplayWriter",
    "RoundIncomplete",
    "RoundMismatch",
    "TableRecorder",
    "compare_replays",
    "encoded_decision",
    "encoded_message",
    "load_replay",
    "message_body",
    "plain",
    "read_replay",
    "strip_timing",
    "verify_round",
]

TIMING_FIELDS = frozenset({"t_ms", "elapsed_ms", "latency_ms", "deadline_at"})
"""Keys that measure time, not the match: ``t_ms`` and ``elapsed_ms`` of a message line,
``latency_ms`` wherever it is (a decision's report, a ``decision`` event, the per-seat
stats of a round's end), and a ``turn_started`` event's ``deadline_at`` (wall clock)."""


def verify_round(recorded: RecordedRound) -> Any:
    """Replay a recorded round through a fresh engine of its game (the header's ``game``;
    Dou Dizhu when it names none) and return the finished engine round.

    Raises :class:`RoundMismatch` naming the line and what differs,
    :class:`RoundIncomplete` for a round the replay ends inside whose lines all check,
    and :class:`ReplayError` for a game the arena does not know or cannot check.
    """
    name = recorded.header.get("game", DEFAULT_GAME)
    where = f"table {recorded.table} round {recorded.round}"
    if not isinstance(name, str):
        raise RoundMismatch(recorded.table, recorded.round, f"the header's game is {name!r}")
    try:
        game = get_game(name)
    except ConfigError as exc:
        raise ReplayError(f"{where}: {exc}") from None
    if game.replay_check is None:
        raise ReplayError(f"{where}: {game.title} (game = {name!r}) has no replay check")
    return game.replay_check(recorded)


class ReplayWriter:
    """The replay file; each table records into it through :meth:`for_table`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        # lines written out a batch at a time, known secrets masked (arena.masking)
        self._lines = MaskedLines(self.path)
        self.write_bytes = self._lines.append
        """Write ready-made JSON lines (the recorders' hot path)."""

    def for_table(self, table: str) -> TableRecorder:
        """A recorder bound to one table, writing into this file."""
        return TableRecorder(self, table)

    def write(self, line: dict[str, Any]) -> None:
        """One JSON line (a round's start or end, an effect; what JSON cannot hold in it
        written as text: arena.safe_json): the lines written so far go to the file when
        they make a batch."""
        self.write_bytes(dumps(line, default=plain, option=_NEWLINE, where="a replay line"))
        self._lines.flush_if_full()

    def close(self) -> None:
        """Flush and close the file."""
        self._lines.close()


# The replay is written on the hot path of every turn (about 220 lines a round), so the
# recorder builds each line with little Python: orjson, bound methods, and millisecond
# rounding by integer arithmetic (round(x, 3) formats and parses a string).
_dumps = orjson.dumps
_NEWLINE = orjson.OPT_APPEND_NEWLINE
# isinstance on a pydantic model is a Python-level check: a message class (any game's,
# and any subclass, such as a game's in-process request that lists its moves) is
# recognised by a set lookup once it has been seen (_learned).
_MESSAGE_CLASSES: set[type] = set()


def _learned(cls: type) -> bool:
    """Whether ``cls`` is a protocol message (a subclass of one): remembered, so that its
    next instance takes the set lookup."""
    if issubclass(cls, Message):
        _MESSAGE_CLASSES.add(cls)
        return True
    return False


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
        # message_body, inlined: this is the replay's busiest line (bench_instructions)
        if type(message) in _MESSAGE_CLASSES or _learned(type(message)):
            body = message.__dict__
            if "play_history" in body:
                body = body.copy()
                body["play_history_len"] = len(body.pop("play_history"))
            elif "played" in body:
                body = body.copy()
                body["played_len"] = len(body.pop("played"))
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
            data = _dumps(line, default=plain, option=_NEWLINE)
        except TypeError:  # a message built past pydantic's checks, holding what JSON cannot
            line["message"] = _invalid_reply(message)
            data = _dumps(line, default=plain, option=_NEWLINE)
        self._write(data)

    def event(self, event: Event) -> None:
        """Write a public event."""
        # Event.to_dict, inlined and unpacked at once (about 125 events a round): the same
        # keys in the same order, so the same line
        kind, table, round_no, seq, seat, player, data, _ = event  # the header names the game
        body = {
            "type": kind,
            "table": table,
            "round": round_no,
            "seq": seq,
            "seat": seat,
            "player": player,
            "data": data if type(data) is dict else dict(data),
        }
        line = {"kind": "event", "table": self._table, "event": body}
        try:
            encoded = _dumps(line, default=plain, option=_NEWLINE)
        except TypeError:  # a value no JSON holds: written as text, never the table's end
            encoded = replaced_dumps(line, default=plain, option=_NEWLINE, where="a replay event")
        self._write(encoded)

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        """Write one attempt of a model seat: outcome, detail and the call's full report.

        Only seats whose agent reports its calls have these, so scripted tables never
        come here.
        """
        line = {"kind": "decision", "table": self._table, "round": self._round, "seat": seat}
        line.update(record)
        self._write(encoded_decision(line) + b"\n")

    def effect(self, record: dict[str, Any]) -> None:
        """Write a gift's effect with the cards it moved (tables without gifts never come
        here)."""
        self._writer.write({"kind": "effect", "table": self._table, "round": self._round, **record})

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Write the round's record."""
        self._writer.write(
            {"kind": "round_end", "table": self._table, "round": self._round, "summary": summary}
        )


class Replay:
    """A replay file as read: its rounds in the order they started, and how the file ends."""

    def __init__(
        self,
        source: str,
        rounds: list[RecordedRound],
        notes: list[str],
        tournament: dict[str, Any] | None = None,
    ) -> None:
        self.source = source
        self.rounds = rounds
        self.notes = notes
        """What the file lacks at its end beyond the rounds it stops inside (a match that
        does not end, a last line cut off mid-write); empty for a complete replay."""
        self.tournament = tournament
        """A tournament export's ``tournament`` line (None in any other replay)."""


def read_replay(lines: Iterable[str | bytes], *, source: str = "<replay>") -> Replay:
    """Group a replay's lines into rounds, in the order they started.

    A last line cut off mid-write (no newline, not JSON or not UTF-8 text) ends the
    reading: the rounds it leaves open are marked :attr:`RecordedRound.cut_off`. Any
    other line that is no replay line raises :class:`ReplayError` naming it.
    """
    reader = _Reader(source)
    for number, raw in enumerate(lines, start=1):
        if not reader.feed(number, raw):
            break
    return reader.result()


def load_replay(path: str | Path) -> Replay:
    """Read a replay file; :class:`ReplayError` (one line) when it is none."""
    file = Path(path)
    with _opened(file) as handle:
        return read_replay(handle, source=str(file))


@contextmanager
def _opened(path: Path) -> Iterator[IO[bytes]]:
    """A replay file open for reading; whatever goes wrong reading it is one ReplayError."""
    if path.is_dir():
        raise ReplayError(f"{path}: is a folder, not a replay file")
    try:
        with path.open("rb") as handle:
            yield handle
    except FileNotFoundError as exc:
        raise ReplayError(f"{path}: no such file") from exc
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read: {exc.strerror or exc}") from exc


class _Unreadable(Exception):
    """A line that is no JSON object with a ``kind``; says why."""


def _parse(raw: str | bytes) -> dict[str, Any] | None:
    """One line as a dict, None for a blank line; _Unreadable otherwise."""
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError as exc:
        raise _Unreadable("it is not UTF-8 text") from exc
    if not text.strip():
        return None
    try:
        line = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _Unreadable(f"it is not JSON: {exc.msg} at column {exc.colno}") from exc
    if type(line) is not dict or not isinstance(line.get("kind"), str):
        raise _Unreadable('it is JSON, but not an object with a "kind"')
    return line


class _Reader:
    """Sorts lines into rounds; remembers what the file's end leaves open."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.rounds: dict[tuple[str, int], RecordedRound] = {}
        self.order: list[RecordedRound] = []
        self.current: dict[str, RecordedRound] = {}
        self.last_seq: dict[str, int] = {}
        self.match_ended: dict[str, bool] = {}
        self.seen = 0
        """Replay lines read so far."""
        self.last_line = 0
        self.cut_line: int | None = None
        self.tournament: dict[str, Any] | None = None

    def feed(self, number: int, raw: str | bytes) -> bool:
        """Take one line; False when it was the last line, cut off mid-write."""
        self.last_line = number
        try:
            line = _parse(raw)
        except _Unreadable as exc:
            complete = raw.endswith(b"\n") if isinstance(raw, bytes) else raw.endswith("\n")
            if self.seen and not complete:
                self.cut_line = number
                return False
            if not self.seen:
                raise ReplayError(
                    f"{self.source}: not a replay file (line {number}: {exc})"
                ) from exc
            raise ReplayError(f"{self.source}:{number}: not a replay line: {exc}") from exc
        if line is None:
            return True
        try:
            self._add(number, line)
        except (KeyError, TypeError, AttributeError) as exc:
            what = f"lacks {exc}" if isinstance(exc, KeyError) else f"is malformed ({exc})"
            raise ReplayError(f"{self.source}:{number}: this {line['kind']} line {what}") from exc
        self.seen += 1
        return True

    def _add(self, number: int, line: dict[str, Any]) -> None:
        kind = line["kind"]
        if kind == "tournament":
            if self.seen or self.tournament is not None:
                raise ReplayError(
                    f"{self.source}:{number}: a tournament line comes first, and once"
                )
            self.tournament = line
            return
        if kind == "round_start":
            table, round_no = _table_round(line["table"], line["round"])
            recorded = RecordedRound(table, round_no, line, seq_before=self.last_seq.get(table, 0))
            self.rounds[(table, round_no)] = recorded
            self.current[table] = recorded
            self.order.append(recorded)
            return
        if kind == "event":
            event = line["event"]
            table, round_no = _table_round(event["table"], event["round"])
            if type(event["seq"]) is int:
                self.last_seq[table] = event["seq"]
            if event["type"] in ("match_started", "match_ended"):
                self.match_ended[table] = event["type"] == "match_ended"
            if round_no == 0:
                return  # match-level events (match_started) belong to no round
        elif kind in ("message", "round_end", "effect"):
            table, round_no = _table_round(line["table"], line["round"])
        elif kind == "decision":
            table, round_no = _table_round(line["table"], line["round"])
            started = self.rounds.get((table, round_no))
            _check_decision(line, seats=len(started.header["players"]) if started else None)
        else:
            raise ReplayError(f"{self.source}:{number}: unknown line kind {kind!r}")
        target = self.rounds.get((table, round_no))
        if target is None:
            raise ReplayError(
                f"{self.source}:{number}: a {kind} line of table {table} round {round_no} "
                "before its round_start"
            )
        target.lines.append((number, line))
        if kind == "event":
            target.events.append(line["event"])
        elif kind == "message":
            target.messages.append(line)
        elif kind == "decision":
            target.decisions.append(line)
        elif kind == "round_end":
            target.summary = line["summary"]

    def result(self) -> Replay:
        """The rounds, with what the end of the file leaves open."""
        if self.cut_line is not None:
            end = f"at line {self.cut_line} (truncated line)"
        else:
            end = f"at line {self.last_line}"
        notes: list[str] = []
        for table, recorded in self.current.items():
            if self.match_ended.get(table):
                continue  # a round_end missing inside a finished match is a flaw, not an end
            if recorded.summary is None:
                recorded.cut_off = end
            elif table in self.match_ended:
                notes.append(f"table {table}: the match does not end; the replay ends {end}")
        if (
            self.cut_line is not None
            and not notes
            and all(r.cut_off is None for r in self.current.values())
        ):
            notes.append(f"the replay ends with a line cut off mid-write, {end}")
        return Replay(self.source, self.order, notes, self.tournament)


_DECISION_FIELDS: Final = (
    ("seat", (int,)),
    ("attempt", (int,)),
    ("outcome", (str,)),
    ("detail", (str, type(None))),
    ("report", (dict,)),
)
_REPORT_FIELDS: Final = (
    ("provider", (str,)),
    ("model", (str,)),
    ("latency_ms", (int, float)),
    ("input_tokens", (int,)),
    ("output_tokens", (int,)),
    ("reasoning_tokens", (int,)),
    ("cost", (int, float, type(None))),
    ("prompt", (list,)),
)
_REPORT_TEXTS: Final = ("raw_text", "reasoning", "error")
"""Report fields that may be missing or None, and are text when given."""


def _check_decision(line: dict[str, Any], *, seats: int | None) -> None:
    """A decision line has the fields ``arena replay --decisions`` shows, of their types:
    a checker passes over these lines, so a broken one is caught here or nowhere.
    ``seats``: the round's seats (its header's players), None before its header."""
    for fields, where in ((_DECISION_FIELDS, line), (_REPORT_FIELDS, line["report"])):
        if type(where) is not dict:
            raise TypeError(f"report is {type(where).__name__}, not an object")
        for key, types in fields:
            value = where[key]
            if type(value) not in types:  # exact types: True is no token count
                prefix = "" if where is line else "report."
                raise TypeError(f"{prefix}{key} is {value!r}")
    if not 0 <= line["seat"] < (seats or MAX_SEATS) or line["attempt"] < 0:
        raise TypeError(f"seat {line['seat']} attempt {line['attempt']}")
    report = line["report"]
    for key in _REPORT_TEXTS:
        if not isinstance(report.get(key), str | None):
            raise TypeError(f"report.{key} is {report[key]!r}")
    if not all(type(m) is dict for m in report["prompt"]):
        raise TypeError("report.prompt holds something that is no message object")
    request_id = line.get("request_id")
    if not isinstance(request_id, str | None):
        raise TypeError(f"request_id is {request_id!r}")


def _table_round(table: object, round_no: object) -> tuple[str, int]:
    if not isinstance(table, str) or type(round_no) is not int:
        raise TypeError(f"table {table!r} round {round_no!r}")
    return table, round_no


# ─── comparing two replays ──────────────────────────────────────────────────────────────


@dataclass(frozen=True)
class Difference:
    """Where two replays first differ beyond timing, and how."""

    first: str
    second: str
    first_line: int | None
    """None: the first file has no more lines of this table."""
    second_line: int | None
    table: str
    round: int | None
    key: str
    """The first differing key of the line, dotted (``message.hand[3]``)."""
    first_value: Any = None
    second_value: Any = None

    def __str__(self) -> str:
        place = f"table {self.table}" + (f" round {self.round}" if self.round else "")
        if self.first_line is None or self.second_line is None:
            short, long = (
                (self.first, self.second) if self.first_line is None else (self.second, self.first)
            )
            line = self.second_line if self.first_line is None else self.first_line
            return (
                f"{short} has no more lines of table {self.table}; "
                f"{long} goes on at line {line} ({place})"
            )
        return (
            f"{self.first} line {self.first_line} and {self.second} line {self.second_line} "
            f"({place}) differ at {self.key or 'the whole line'}: "
            f"{_brief(self.first_value)} vs {_brief(self.second_value)}"
        )


def compare_replays(first: str | Path, second: str | Path) -> Difference | None:
    """The first difference between two replays apart from timing fields, or None.

    Tables play at once, so their lines may interleave differently from run to run: each
    table's lines are compared in order, and the difference reported is the one that
    comes first in ``first``. Lines are compared by a digest, so big files cost little
    memory; only the two differing lines are read again, to say what differs.
    """
    index_a, index_b = _digests(Path(first)), _digests(Path(second))
    found: list[tuple[float, float, str]] = []
    for table in sorted(index_a.keys() | index_b.keys()):
        lines_a, lines_b = index_a.get(table, []), index_b.get(table, [])
        for i in range(max(len(lines_a), len(lines_b))):
            a = lines_a[i] if i < len(lines_a) else None
            b = lines_b[i] if i < len(lines_b) else None
            if a is None or b is None or a[1] != b[1]:
                found.append((a[0] if a else math.inf, b[0] if b else math.inf, table))
                break
    if not found:
        return None
    line_a, line_b, table = min(found)
    a_line = None if line_a == math.inf else int(line_a)
    b_line = None if line_b == math.inf else int(line_b)
    shown_a = _timeless(_line_at(Path(first), a_line)) if a_line else None
    shown_b = _timeless(_line_at(Path(second), b_line)) if b_line else None
    shown = shown_a if shown_a is not None else shown_b
    assert shown is not None
    round_no = shown.get("round", shown.get("event", {}).get("round"))
    key, value_a, value_b = ("", None, None)
    if shown_a is not None and shown_b is not None:
        key, value_a, value_b = _first_difference(shown_a, shown_b) or ("", shown_a, shown_b)
    return Difference(
        str(first), str(second), a_line, b_line, table, round_no, key, value_a, value_b
    )


def _digests(path: Path) -> dict[str, list[tuple[int, bytes]]]:
    """Each table's lines in order, as line number and a digest of the line without timing."""
    tables: dict[str, list[tuple[int, bytes]]] = {}
    for number, line in _strict_lines(path):
        text = json.dumps(_timeless(line), sort_keys=True, ensure_ascii=False)
        digest = hashlib.blake2b(text.encode(), digest_size=16).digest()
        tables.setdefault(_table_of(line), []).append((number, digest))
    return tables


def _strict_lines(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Every line of a replay file with its number; ReplayError for any unreadable one."""
    with _opened(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                line = _parse(raw)
            except _Unreadable as exc:
                raise ReplayError(f"{path}:{number}: not a replay line: {exc}") from exc
            if line is not None:
                yield number, line


def _line_at(path: Path, wanted: int) -> dict[str, Any]:
    for number, line in _strict_lines(path):
        if number == wanted:
            return line
    raise ReplayError(f"{path}: line {wanted} is gone (was the file changed meanwhile?)")


def _table_of(line: dict[str, Any]) -> str:
    table = line.get("table")
    if table is None and isinstance(line.get("event"), dict):
        table = line["event"].get("table")
    return str(table)


def _timeless(line: dict[str, Any]) -> dict[str, Any]:
    """The line without timing keys, at any depth (a report's and the stats' latency).
    A round header without ``game`` (recorded before the arena played a second game)
    is Dou Dizhu's, and compares as such."""
    if line.get("kind") == "round_start" and "game" not in line:
        line = {"game": DEFAULT_GAME, **line}
    return {k: _timeless_value(v) for k, v in line.items() if k not in TIMING_FIELDS}


def _timeless_value(value: Any) -> Any:
    if type(value) is dict:
        return _timeless(value)
    if type(value) is list:
        return [_timeless_value(v) for v in value]
    return value


def _first_difference(a: Any, b: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first key path where two JSON values differ, with both values there."""
    if type(a) is dict and type(b) is dict:
        for key in [*a, *(k for k in b if k not in a)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in a or key not in b:
                return where, a.get(key, "(no such key)"), b.get(key, "(no such key)")
            found = _first_difference(a[key], b[key], where)
            if found is not None:
                return found
        return None
    if type(a) is list and type(b) is list and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            found = _first_difference(x, y, f"{path}[{i}]")
            if found is not None:
                return found
        return None
    if type(a) is type(b) and a == b:
        return None
    return path, a, b


def _brief(value: Any, limit: int = 80) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _invalid_reply(reply: object) -> dict[str, str]:
    """How a replay holds a reply that is not a protocol message: its repr and its type."""
    try:
        shown = repr(reply)[:500]
    except Exception as exc:  # an agent's object whose own repr fails
        shown = f"<{type(reply).__name__} whose repr raised {type(exc).__name__}>"
    return {"invalid_reply": shown, "python_type": type(reply).__name__}


def message_body(message: object) -> dict[str, Any]:
    """A message as a replay holds it: a protocol message's fields, a PLAY_REQUEST's
    history (``play_history``, ``played``) as its length; anything else an agent
    returned as its repr and type."""
    if type(message) in _MESSAGE_CLASSES or _learned(type(message)):
        body: dict[str, Any] = message.__dict__
        if "play_history" in body:
            body = body.copy()
            body["play_history_len"] = len(body.pop("play_history"))
        elif "played" in body:
            body = body.copy()
            body["played_len"] = len(body.pop("played"))
        return body
    return _invalid_reply(message)


def encoded_message(message: object) -> bytes:
    """:func:`message_body` as JSON; a message built past pydantic's checks, holding
    what JSON cannot, as its repr and type (no agent can stop the record)."""
    try:
        return _dumps(message_body(message), default=plain)
    except TypeError:
        return _dumps(_invalid_reply(message))


def encoded_decision(line: dict[str, Any]) -> bytes:
    """A ``decision`` line as JSON; a report holding what JSON cannot (an object, a lone
    surrogate in a model's text) keeps the rest, that written as text."""
    return dumps(line, default=plain, where="a replay decision")


def plain(value: object) -> Any:
    """orjson's fallback: nested protocol records as their fields."""
    if isinstance(value, BaseModel):
        return value.__dict__
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"cannot write {type(value).__name__} to a replay")


def strip_timing(lines: Iterable[str]) -> Iterator[dict[str, Any]]:
    """Replay lines without their timing fields, for comparing two runs."""
    for raw in lines:
        if raw.strip():
            yield _timeless(json.loads(raw))
