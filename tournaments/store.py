"""A tournament's storage: one SQLite file, every round written whole or not at all.

The file holds every tournament, table match and round: a round's header (seed, deal,
rules, settings, what the game fixes before play, gift changes), its record
(:meth:`RoundRecord.to_dict`), everything a replay file would hold of it (messages,
events, decisions, effects: :mod:`tournaments.round_lines`, one compressed array a
round, read back as the replay's lines), its faults and its gift outcomes.

Why it is shaped so:

- **One transaction per round.** :class:`RoundRecorder` is the table's recorder: it
  keeps a round's lines in memory and writes the round at ``round_ended``, all of it in
  one transaction. A round that never ends (a crash, ``kill -9``) leaves nothing, so a
  resumed match plays it again from its start with the same seed and deal, and nothing
  is counted twice. Lines that come between rounds (``match_started``, a gift told
  between two rounds) go in with the next round's transaction, or at ``match_ended``.
- **Refused, not ignored.** A round written twice for the same match is a bug in whoever
  resumed (it would count twice): :class:`RoundExists` is raised and the transaction
  rolled back, so the file keeps the first copy only.
- **Fast.** A round's lines kept cheaply and encoded once (:mod:`tournaments.round_lines`),
  WAL, ``synchronous=NORMAL`` (a power cut may lose the last rounds, never corrupt the
  file or split a round), statements cached by :mod:`sqlite3`, faults and gift outcomes
  inserted in batches. ``benchmarks/bench_tournament.py`` measures what it costs.
- **No secrets.** A tournament's config names environment variables (``api_key_env``),
  never holds a key: :meth:`TournamentStore.new_tournament` refuses a config with a
  value under a key named like a secret. Every secret the arena knows is masked in what
  is written (:mod:`arena.masking`): a round's lines as they are encoded, each column's
  JSON, the gift outcomes.
- **Migrations-ready.** ``schema_version`` says which of :data:`MIGRATIONS` the file has;
  opening the file applies the rest, and refuses a file from a newer arena.
"""

from __future__ import annotations

import io
import re
import secrets
import sqlite3
import zlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Literal

import orjson
from pydantic import BaseModel

from arena.errors import ArenaError, ConfigError
from arena.events import Event
from arena.games.base import Game
from arena.games.registry import DEFAULT_GAME, get_game
from arena.masking import mask, masked
from arena.safe_json import dumps
from arena.table.records import RoundRecord
from tournaments.round_lines import FORMAT, RoundLines, expand
from tournaments.seeds import TournamentSeed, commitment_of, parse_seed

__all__ = [
    "MIGRATIONS",
    "DamagedSeed",
    "MatchRow",
    "RoundExists",
    "RoundRecorder",
    "StoreError",
    "TournamentRow",
    "TournamentStatus",
    "TournamentStore",
    "round_record",
    "stored_seed",
]

TournamentStatus = Literal["running", "finished", "interrupted"]
_STATUSES: Final = frozenset({"running", "finished", "interrupted"})

MIGRATIONS: Final[tuple[str, ...]] = (
    """
    CREATE TABLE tournaments (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        config TEXT NOT NULL,
        seed INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
        created_at TEXT NOT NULL,
        finished_at TEXT
    );
    CREATE TABLE table_matches (
        id INTEGER PRIMARY KEY,
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        stage TEXT NOT NULL,
        table_id TEXT NOT NULL,
        players TEXT NOT NULL,
        seed INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished')),
        summary TEXT,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        UNIQUE (tournament_id, stage, table_id)
    );
    CREATE TABLE rounds (
        id INTEGER PRIMARY KEY,
        table_match_id INTEGER NOT NULL REFERENCES table_matches (id),
        round_no INTEGER NOT NULL,
        seed INTEGER NOT NULL,
        header TEXT NOT NULL,
        result TEXT NOT NULL,
        lines BLOB NOT NULL,
        committed_at TEXT NOT NULL,
        UNIQUE (table_match_id, round_no)
    );
    CREATE TABLE match_lines (
        id INTEGER PRIMARY KEY,
        table_match_id INTEGER NOT NULL REFERENCES table_matches (id),
        after_round INTEGER NOT NULL,
        lines BLOB NOT NULL
    );
    CREATE INDEX match_lines_by_match ON match_lines (table_match_id, after_round);
    CREATE TABLE faults (
        round_id INTEGER NOT NULL REFERENCES rounds (id),
        seat INTEGER NOT NULL,
        player TEXT NOT NULL,
        kind TEXT NOT NULL,
        count INTEGER NOT NULL,
        PRIMARY KEY (round_id, seat, kind)
    ) WITHOUT ROWID;
    CREATE TABLE gift_outcomes (
        id INTEGER PRIMARY KEY,
        table_match_id INTEGER NOT NULL REFERENCES table_matches (id),
        round_id INTEGER REFERENCES rounds (id),
        gift_id TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT,
        effect TEXT,
        target INTEGER,
        units INTEGER NOT NULL
    );
    CREATE INDEX gift_outcomes_by_match ON gift_outcomes (table_match_id);
    """,
    # 2: lines kept as one compact array a round (tournaments.round_lines); 1 is the
    # replay's own JSON lines, zlib-compressed, which files from version 1 still hold.
    """
    ALTER TABLE rounds ADD COLUMN lines_format INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE match_lines ADD COLUMN lines_format INTEGER NOT NULL DEFAULT 1;
    """,
    # 3: committed seeds (tournaments.seeds, tournaments.epochs), kept as text since a
    # verifiable seed (128 bits or more) does not fit SQLite's INTEGER: one row per
    # tournament and epoch, and each round says its epoch. A tournament stored before
    # has one epoch, its seed (a number below 2^53: not verifiable), revealed if it is
    # finished. From now on tournaments.seed and table_matches.seed hold the seed when
    # it fits an INTEGER, else -1: the seeds table is the truth.
    """
    CREATE TABLE seeds (
        tournament_id TEXT NOT NULL REFERENCES tournaments (id),
        epoch INTEGER NOT NULL,
        seed TEXT NOT NULL,
        commitment TEXT NOT NULL,
        verifiable INTEGER NOT NULL,
        committed_at TEXT NOT NULL,
        revealed_at TEXT,
        PRIMARY KEY (tournament_id, epoch)
    );
    ALTER TABLE rounds ADD COLUMN epoch INTEGER NOT NULL DEFAULT 1;
    INSERT INTO seeds
        (tournament_id, epoch, seed, commitment, verifiable, committed_at, revealed_at)
        SELECT id, 1, CAST(seed AS TEXT), seed_commitment(CAST(seed AS TEXT)), 0,
            created_at, CASE WHEN status = 'finished' THEN finished_at END
        FROM tournaments;
    """,
)
"""The schema, one script per version: a file at version N has had the first N applied.
A later change appends a script (never edits one a file may have had)."""

_SECRET_NAME: Final = re.compile(r"(?i)(api_?key|secret|token|password)$")
"""A key named like a secret (``api_key``, not ``api_key_env``, which names a variable)."""


_Gift = tuple[str, str, str | None, str | None, int | None, int]
"""A gift outcome row: id, status, reason, effect, target, units."""


class StoreError(ArenaError):
    """The store cannot do what was asked (a newer file, an unknown tournament ...)."""


class DamagedSeed(StoreError):
    """A stored seed that is no seed: the file was changed or damaged (verification
    reports it as a failure, other commands as a mistake)."""


def stored_seed(text: Any, tournament_id: str, epoch: int) -> TournamentSeed:
    """A seed as the seeds table holds it; :class:`DamagedSeed` naming the tournament and
    the epoch when it does not parse."""
    try:
        return parse_seed(text)
    except ValueError:
        raise DamagedSeed(
            f"tournament {tournament_id}: the stored seed of epoch {epoch} {text!r} is no "
            "seed: the tournament file was changed or damaged"
        ) from None


class DamagedStore(StoreError):
    """A stored round (or the lines between two) that no longer reads back: bytes changed
    on disk. Named (the file, the table, the round), so ``show`` says one line and
    ``verify`` reports a failure, never a traceback."""


def _damaged(
    path: Path, table: Any, round_no: Any, exc: BaseException, *, what: str = ""
) -> DamagedStore:
    where = f"the lines after round {round_no}" if what == "between" else f"round {round_no}"
    detail = str(exc).splitlines()[0][:160] if str(exc) else type(exc).__name__
    return DamagedStore(f"{path}: {where} of table {table} is damaged ({detail})")


def _loaded(stored: Any, path: Path, table: Any, round_no: Any, column: str = "result") -> Any:
    """A stored JSON column (read as bytes: a flipped byte may be no UTF-8), decoded;
    :class:`DamagedStore` naming the round and the column when it is not JSON any more."""
    try:
        return orjson.loads(stored)
    except orjson.JSONDecodeError as exc:
        problem = ValueError(f"its {column} does not read back: {exc}")
        raise _damaged(path, table, round_no, problem) from None


class RoundExists(StoreError):
    """This match's round is stored already: writing it again would count it twice."""


@dataclass(frozen=True, slots=True)
class TournamentRow:
    """A tournament as stored."""

    id: str
    name: str
    config: dict[str, Any]
    seed: int
    """Its first epoch's seed (``tournaments.epochs`` has them all): pairing and the
    agents' seeds derive from it."""
    status: TournamentStatus
    created_at: str
    finished_at: str | None

    @property
    def game(self) -> str:
        """The game it plays: its config's ``game``, Dou Dizhu (the default game) for a
        tournament stored before tournaments named their game."""
        return str(self.config.get("game", DEFAULT_GAME))


def stored_game(config: Mapping[str, Any]) -> Game:
    """The game a stored config plays (:attr:`TournamentRow.game`); a ConfigError for
    a game this arena does not have."""
    return get_game(str(config.get("game", DEFAULT_GAME)))


def stored_seat_count(config: Mapping[str, Any]) -> int:
    """The seats of a stored tournament's tables: its game's under its stored rules, or
    under the game's default rules when those do not read back (a damaged file: what
    checks the rules says so, the leaderboard is still shown)."""
    game = stored_game(config)
    try:
        rules = game.parse_rules(config.get("rules"))
    except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError
        rules = game.default_rules()
    return game.seat_count(rules)


@dataclass(frozen=True, slots=True)
class MatchRow:
    """A table match as stored; ``summary`` is the ``match_ended`` data once finished."""

    id: int
    tournament_id: str
    stage: str
    table_id: str
    players: tuple[str, ...]
    seed: int
    """The tournament's seed when it fits an INTEGER, else -1 (migration 3)."""
    status: Literal["running", "finished"]
    summary: dict[str, Any] | None
    started_at: str
    finished_at: str | None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _lines_of(
    stored: bytes, lines_format: int, table: str, round_no: int, *, path: Path, what: str = ""
) -> Iterator[bytes]:
    """Stored lines as the replay's lines: format 1 (a version 1 file) is those lines,
    zlib-compressed; 2 is :mod:`tournaments.round_lines`'s array. A file of a newer
    schema is refused when opened, so another format, or lines that do not decode, are
    damage: :class:`DamagedStore` naming the round."""
    if lines_format not in (1, FORMAT):
        unknown = ValueError(f"lines of format {lines_format}, which no arena writes")
        raise _damaged(path, table, round_no, unknown, what=what)
    try:
        if lines_format == 1:
            yield from io.BytesIO(zlib.decompress(stored))
        else:
            yield from expand(stored, table, round_no)
    except Exception as exc:  # zlib, zstandard, orjson, a wrong shape: whatever broke
        raise _damaged(path, table, round_no, exc, what=what) from None


def _json(value: Any) -> str:
    """A column's JSON, every known secret masked (:mod:`arena.masking`); what JSON
    cannot hold written as text (:mod:`arena.safe_json`)."""
    return mask(dumps(value, where="a tournament store row").decode())


def _cannot_write(error: sqlite3.OperationalError) -> bool:
    """Whether SQLite refused because the file or its folder cannot be written."""
    text = str(error).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text


def _read_only_connection(path: Path) -> sqlite3.Connection:
    """A connection that writes nothing: ``mode=ro`` reads a write-ahead log beside the
    file as well, but needs its shared-memory file, which a read-only folder cannot
    hold; then ``immutable=1`` (no one can be writing a file no one can write)."""
    uri = path.resolve().as_uri()
    connection = sqlite3.connect(f"{uri}?mode=ro", uri=True, isolation_level=None)
    try:
        connection.execute("SELECT name FROM sqlite_master").fetchall()
    except sqlite3.OperationalError as exc:
        connection.close()
        if not _cannot_write(exc):
            raise
        return sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)
    return connection


def _drawn_id(created: str) -> str:
    """A random tournament id of the day ``created`` (``t-YYYYMMDD-<6 hex>``)."""
    return f"t-{created[:10].replace('-', '')}-{secrets.token_hex(3)}"


class TournamentStore:
    """The SQLite file of a tournament (or several): see the module.

    One connection, used from one thread (the event loop's); a command reading the file
    while a tournament writes it opens a store of its own (WAL lets it read meanwhile).
    """

    def __init__(self, path: str | Path, *, create: bool = True, read_only: bool = False) -> None:
        """Open the file, creating the store in it when ``create`` and the file is new or
        empty; another program's database, or with ``create=False`` any file that holds
        no store, is refused untouched (``show`` pointed at the wrong file must not write
        into it). ``read_only`` opens it without writing anything, not even SQLite's own
        files beside it (see :meth:`for_reading`)."""
        self.path = Path(path)
        self.read_only = read_only
        try:
            if read_only:
                self.connection = _read_only_connection(self.path)
            else:
                self.connection = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path}: cannot open: {exc}") from exc
        # autocommit mode: the store begins and commits each transaction itself
        try:
            self._open(create)
        except BaseException:
            self.connection.close()
            raise

    @classmethod
    def for_reading(cls, path: str | Path) -> TournamentStore:
        """The store in an existing file, for the commands that only read (``list``,
        ``show``, ``export``, ``verify``): opened as usual (an older file is brought up to
        date), or, where it cannot be written (a read-only folder or medium, a published
        copy), read-only."""
        try:
            return cls(path, create=False)
        except StoreError as exc:
            cause = exc.__cause__
            if not isinstance(cause, sqlite3.OperationalError) or not _cannot_write(cause):
                raise
        return cls(path, create=False, read_only=True)

    # --- opening ------------------------------------------------------------------------

    def _open(self, create: bool) -> None:
        """Check the file holds a store and set the connection up: a writable one in WAL
        mode and brought up to date, a read-only one as it is (of this arena's schema)."""
        connection, read_only = self.connection, self.read_only
        try:
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}
            if "schema_version" not in tables and (tables or not create or read_only):
                raise StoreError(f"{self.path}: not a tournament database (no store in it)")
            if not read_only:
                connection.execute("PRAGMA journal_mode = WAL")
                connection.execute("PRAGMA synchronous = NORMAL")
            connection.execute("PRAGMA foreign_keys = ON")
            connection.execute("PRAGMA busy_timeout = 5000")
            connection.create_function("seed_commitment", 1, commitment_of, deterministic=True)
            version = self.schema_version if read_only else self._migrate()
        except sqlite3.OperationalError as exc:  # locked, read-only, a full disk ...
            how = " read-only" if read_only else ""
            raise StoreError(f"{self.path}: cannot open{how}: {exc}") from exc
        except sqlite3.DatabaseError as exc:  # another kind of file, or a damaged one
            raise StoreError(f"{self.path}: not a tournament database ({exc})") from exc
        if version != len(MIGRATIONS):  # read-only: it cannot be brought up to date
            age = "older" if version < len(MIGRATIONS) else "newer"
            raise StoreError(
                f"{self.path}: it cannot be written here, and its schema (version {version}) "
                f"is {age} than this arena's ({len(MIGRATIONS)}): "
                + (
                    "copy it somewhere writable and read it there (it is brought up to date)"
                    if age == "older"
                    else "upgrade the arena to read it"
                )
            )

    def _migrate(self) -> int:
        """Apply the migrations the file lacks, each with its version, in one transaction;
        the version it has then (this arena's)."""
        with self.transaction() as db:
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
            row = db.execute("SELECT version FROM schema_version").fetchone()
            version = 0 if row is None else int(row[0])
            if row is None:
                db.execute("INSERT INTO schema_version (version) VALUES (0)")
            if version > len(MIGRATIONS):
                raise StoreError(
                    f"{self.path}: schema version {version} is newer than this arena's "
                    f"({len(MIGRATIONS)}): upgrade the arena to read it"
                )
            for number in range(version, len(MIGRATIONS)):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute("UPDATE schema_version SET version = ?", (number + 1,))
        return len(MIGRATIONS)

    @property
    def schema_version(self) -> int:
        """Which of :data:`MIGRATIONS` the file has."""
        return int(self.connection.execute("SELECT version FROM schema_version").fetchone()[0])

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction: committed at the end, rolled back on any exception."""
        connection = self.connection
        connection.execute("BEGIN IMMEDIATE")
        try:
            yield connection
        except BaseException:
            connection.execute("ROLLBACK")
            raise
        connection.execute("COMMIT")

    def close(self) -> None:
        """Close the file (a round being recorded is lost, as in a crash)."""
        self.connection.close()

    def __enter__(self) -> TournamentStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- tournaments --------------------------------------------------------------------

    def new_tournament(
        self,
        name: str,
        config: Mapping[str, Any] | BaseModel,
        *,
        seed: int | TournamentSeed,
        tournament_id: str | None = None,
    ) -> str:
        """Store a new running tournament; its id (``t-YYYYMMDD-<6 hex>`` unless given).

        ``seed`` is committed as its epoch 1 (``tournaments.epochs``), kept secret until
        the tournament ends. ``config`` is the whole validated config; :class:`StoreError`
        when a key named like a secret (``api_key``, ``token`` ...) holds a value: name
        the variable.
        """
        committed = seed if isinstance(seed, TournamentSeed) else parse_seed(seed)
        data = config.model_dump(mode="json") if isinstance(config, BaseModel) else dict(config)
        _refuse_secrets(data, "")
        text = _json(data)
        created = _now()
        for _ in range(8):
            tid = tournament_id or _drawn_id(created)
            try:
                with self.transaction() as db:
                    db.execute(
                        "INSERT INTO tournaments (id, name, config, seed, status, created_at)"
                        " VALUES (?, ?, ?, ?, 'running', ?)",
                        (tid, name, text, _integer(committed.value), created),
                    )
                    db.execute(
                        "INSERT INTO seeds (tournament_id, epoch, seed, commitment,"
                        " verifiable, committed_at) VALUES (?, 1, ?, ?, ?, ?)",
                        (tid, committed.text, committed.commitment, committed.verifiable, created),
                    )
            except sqlite3.IntegrityError as exc:
                if tournament_id is not None:
                    raise StoreError(f"tournament {tid} exists already") from exc
                continue  # a random id taken: draw another
            return tid
        raise StoreError("no free tournament id after 8 draws")  # pragma: no cover

    def free_tournament_id(self) -> str:
        """An id no stored tournament has, for :meth:`new_tournament`: a run takes the
        id's lease (``tournaments.lease``) before anything is stored under it."""
        for _ in range(8):
            tid = _drawn_id(_now())
            if not self.has_tournament(tid):
                return tid
        raise StoreError("no free tournament id after 8 draws")  # pragma: no cover

    def discard_tournament(self, tournament_id: str) -> None:
        """Remove a tournament that never stored a round (its agents could not start)
        and everything stored with it, in one transaction; :class:`StoreError`, nothing
        removed, when it has a round: a played round is never thrown away."""
        matches = "SELECT id FROM table_matches WHERE tournament_id = ?"
        with self.transaction() as db:
            (played,) = db.execute(
                f"SELECT count(*) FROM rounds WHERE table_match_id IN ({matches})",
                (tournament_id,),
            ).fetchone()
            if played:
                raise StoreError(
                    f"tournament {tournament_id} has {played} round(s) stored: not discarded"
                )
            for table in ("gift_outcomes", "match_lines"):
                db.execute(
                    f"DELETE FROM {table} WHERE table_match_id IN ({matches})", (tournament_id,)
                )
            db.execute("DELETE FROM table_matches WHERE tournament_id = ?", (tournament_id,))
            db.execute("DELETE FROM seeds WHERE tournament_id = ?", (tournament_id,))
            db.execute("DELETE FROM tournaments WHERE id = ?", (tournament_id,))

    def has_tournament(self, tournament_id: str) -> bool:
        """Whether a tournament of that id is stored."""
        found = self.connection.execute("SELECT 1 FROM tournaments WHERE id = ?", (tournament_id,))
        return found.fetchone() is not None

    def tournament(self, tournament_id: str) -> TournamentRow:
        """One tournament; :class:`StoreError` when there is none of that id."""
        row = self.connection.execute(
            f"{_TOURNAMENT_COLUMNS} WHERE t.id = ?",
            (tournament_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no tournament {tournament_id!r} in {self.path}")
        return _tournament_row(row)

    def tournaments(self) -> list[TournamentRow]:
        """Every tournament, oldest first."""
        rows = self.connection.execute(f"{_TOURNAMENT_COLUMNS} ORDER BY t.created_at, t.id")
        return [_tournament_row(row) for row in rows]

    def mark_tournament(self, tournament_id: str, status: TournamentStatus) -> None:
        """Set a tournament's status (``finished`` also sets when, and reveals its
        seeds; ``running`` clears it)."""
        if status not in _STATUSES:
            raise StoreError(f"unknown tournament status {status!r}")
        finished = _now() if status == "finished" else None
        with self.transaction() as db:
            changed = db.execute(
                "UPDATE tournaments SET status = ?, finished_at = ? WHERE id = ?",
                (status, finished, tournament_id),
            ).rowcount
            if finished is not None:  # over: every seed it committed to is published
                db.execute(
                    "UPDATE seeds SET revealed_at = ? WHERE tournament_id = ?"
                    " AND revealed_at IS NULL",
                    (finished, tournament_id),
                )
        if not changed:
            raise StoreError(f"no tournament {tournament_id!r} in {self.path}")

    # --- table matches ------------------------------------------------------------------

    def open_match(
        self,
        tournament_id: str,
        *,
        stage: str,
        table_id: str,
        players: Sequence[str],
        seed: int,
    ) -> int:
        """The id of the tournament's match at ``table_id`` in ``stage``, stored now if new.

        Resuming opens the same match again and gets the same id; :class:`StoreError`
        when the stored match has other players or another seed (not the same match).
        """
        found = self.connection.execute(
            "SELECT id, players, seed FROM table_matches"
            " WHERE tournament_id = ? AND stage = ? AND table_id = ?",
            (tournament_id, stage, table_id),
        ).fetchone()
        if found is not None:
            if orjson.loads(found[1]) != list(players) or found[2] != _integer(seed):
                raise StoreError(
                    f"tournament {tournament_id} stage {stage} table {table_id} is stored "
                    f"with players {orjson.loads(found[1])} and seed {found[2]}, "
                    f"not {list(players)} and {seed}"
                )
            return int(found[0])
        seats = self._seat_count(tournament_id)
        if len(players) != seats:
            raise StoreError(f"a table match needs {seats} players, got {list(players)}")
        with self.transaction() as db:
            cursor = db.execute(
                "INSERT INTO table_matches"
                " (tournament_id, stage, table_id, players, seed, status, started_at)"
                " VALUES (?, ?, ?, ?, ?, 'running', ?)",
                (tournament_id, stage, table_id, _json(list(players)), _integer(seed), _now()),
            )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _seat_count(self, tournament_id: str) -> int:
        """The seats of the tournament's tables (:func:`stored_seat_count`)."""
        try:
            return stored_seat_count(self.tournament(tournament_id).config)
        except ConfigError as exc:
            raise StoreError(f"tournament {tournament_id}: {exc}") from None

    def table_matches(self, tournament_id: str) -> list[MatchRow]:
        """The tournament's matches in the order they were opened."""
        rows = self.connection.execute(
            "SELECT id, tournament_id, stage, table_id, players, seed, status, summary,"
            " started_at, finished_at FROM table_matches WHERE tournament_id = ? ORDER BY id",
            (tournament_id,),
        )
        return [_match_row(row) for row in rows]

    def match(self, match_id: int) -> MatchRow:
        """One table match; :class:`StoreError` when there is none of that id."""
        row = self.connection.execute(
            "SELECT id, tournament_id, stage, table_id, players, seed, status, summary,"
            " started_at, finished_at FROM table_matches WHERE id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            raise StoreError(f"no table match {match_id} in {self.path}")
        return _match_row(row)

    def mark_match_finished(self, match_id: int, summary: Mapping[str, Any] | None = None) -> None:
        """A match is over (its recorder does this itself at ``match_ended``)."""
        with self.transaction() as db:
            self._finish_match(db, match_id, summary)

    def _finish_match(
        self, db: sqlite3.Connection, match_id: int, summary: Mapping[str, Any] | None
    ) -> None:
        db.execute(
            "UPDATE table_matches SET status = 'finished', finished_at = ?,"
            " summary = coalesce(?, summary) WHERE id = ?",
            (_now(), None if summary is None else _json(dict(summary)), match_id),
        )

    def recorder(self, match_id: int) -> RoundRecorder:
        """The table's recorder for this match: each round stored as it ends."""
        return RoundRecorder(self, match_id)

    # --- rounds -------------------------------------------------------------------------

    def last_round(self, match_id: int) -> int:
        """The match's last stored round number, 0 before its first: resume plays on
        from the next one."""
        row = self.connection.execute(
            "SELECT max(round_no) FROM rounds WHERE table_match_id = ?", (match_id,)
        ).fetchone()
        return int(row[0] or 0)

    def rounds_of(self, match_id: int) -> list[dict[str, Any]]:
        """The match's stored round records (:meth:`RoundRecord.to_dict`), by round."""
        rows = self.connection.execute(
            "SELECT m.table_id, r.round_no, CAST(r.result AS BLOB) FROM rounds r"
            " JOIN table_matches m ON m.id = r.table_match_id"
            " WHERE r.table_match_id = ? ORDER BY r.round_no",
            (match_id,),
        )
        return [_loaded(result, self.path, table, round_no) for table, round_no, result in rows]

    def rounds(self, tournament_id: str) -> list[dict[str, Any]]:
        """Every stored round record of the tournament, in the order they were written."""
        rows = self.connection.execute(
            "SELECT m.table_id, r.round_no, CAST(r.result AS BLOB) FROM rounds r"
            " JOIN table_matches m ON m.id = r.table_match_id"
            " WHERE m.tournament_id = ? ORDER BY r.id",
            (tournament_id,),
        )
        return [_loaded(result, self.path, table, round_no) for table, round_no, result in rows]

    def round_count(self, tournament_id: str) -> int:
        """How many rounds of the tournament are stored."""
        row = self.connection.execute(
            "SELECT count(*) FROM rounds r JOIN table_matches m ON m.id = r.table_match_id"
            " WHERE m.tournament_id = ?",
            (tournament_id,),
        ).fetchone()
        return int(row[0])

    def round_records(self, match_id: int) -> list[RoundRecord]:
        """The match's rounds as :class:`RoundRecord` again: what ``play_match(done=...)``
        needs to resume the match with its totals and its stop rule intact."""
        game = stored_game(self.tournament(self.match(match_id).tournament_id).config)
        return [stored_round_record(data, self.path, game) for data in self.rounds_of(match_id)]

    def header(self, match_id: int, round_no: int) -> dict[str, Any]:
        """A stored round's header: seed, deal, rules, settings, who bid first ..."""
        row = self.connection.execute(
            "SELECT CAST(header AS BLOB) FROM rounds WHERE table_match_id = ? AND round_no = ?",
            (match_id, round_no),
        ).fetchone()
        if row is None:
            raise StoreError(f"table match {match_id} has no round {round_no} stored")
        header: dict[str, Any] = _loaded(
            row[0], self.path, self.match(match_id).table_id, round_no, "header"
        )
        return header

    def faults(self, tournament_id: str) -> dict[str, dict[str, int]]:
        """Each player's faults over the tournament's stored rounds, by category."""
        rows = self.connection.execute(
            "SELECT f.player, f.kind, sum(f.count) FROM faults f"
            " JOIN rounds r ON r.id = f.round_id JOIN table_matches m ON m.id = r.table_match_id"
            " WHERE m.tournament_id = ? GROUP BY f.player, f.kind ORDER BY f.player, f.kind",
            (tournament_id,),
        )
        totals: dict[str, dict[str, int]] = {}
        for player, kind, count in rows:
            totals.setdefault(player, {})[kind] = int(count)
        return totals

    def gift_outcomes(self, match_id: int) -> list[dict[str, Any]]:
        """The match's gift outcomes (applied, rejected, expired) in the order told;
        ``round`` is the round they were told in, None between rounds."""
        rows = self.connection.execute(
            "SELECT g.gift_id, g.status, g.reason, g.effect, g.target, g.units, r.round_no"
            " FROM gift_outcomes g LEFT JOIN rounds r ON r.id = g.round_id"
            " WHERE g.table_match_id = ? ORDER BY g.id",
            (match_id,),
        )
        keys = ("id", "status", "reason", "effect", "target", "units", "round")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def replay_lines(self, match_id: int) -> Iterator[bytes]:
        """The match as a replay file's lines, one by one (``read_replay`` reads them):
        each stored round with its ``round_start`` and ``round_end``, and the lines
        between rounds where they came."""
        table = self.match(match_id).table_id
        between: dict[int, list[bytes]] = {}  # whole lines, one by one
        for after, lines, lines_format in self.connection.execute(
            "SELECT after_round, lines, lines_format FROM match_lines"
            " WHERE table_match_id = ? ORDER BY id",
            (match_id,),
        ):
            between.setdefault(int(after), []).extend(
                _lines_of(lines, lines_format, table, after, path=self.path, what="between")
            )
        yield from between.pop(0, ())
        for round_no, header, result, lines, lines_format in self.connection.execute(
            "SELECT round_no, CAST(header AS BLOB), CAST(result AS BLOB), lines, lines_format"
            " FROM rounds WHERE table_match_id = ? ORDER BY round_no",
            (match_id,),
        ):
            start = _loaded(header, self.path, table, round_no, "header")
            if not isinstance(start, dict):
                raise _damaged(self.path, table, round_no, ValueError("its header is no object"))
            yield orjson.dumps({"kind": "round_start", **start}) + b"\n"
            yield from _lines_of(lines, lines_format, table, round_no, path=self.path)
            end = {"kind": "round_end", "table": table, "round": round_no}
            end["summary"] = _loaded(result, self.path, table, round_no)
            yield orjson.dumps(end) + b"\n"
            yield from between.pop(int(round_no), ())
        for rest in between.values():  # after a round no longer stored: kept, at the end
            yield from rest

    # --- writing (the recorder's) -------------------------------------------------------

    def _write_round(
        self,
        match_id: int,
        header: dict[str, Any],
        summary: dict[str, Any],
        lines: bytes,
        gifts: list[_Gift],
        before: list[_Between],
    ) -> None:
        """One round, with the lines and gifts told since the last one, in one transaction."""
        round_no = int(header["round"])
        players = summary["players"]
        faults = summary["faults"]
        try:
            with self.transaction() as db:
                self._write_between(db, match_id, before)
                cursor = db.execute(
                    "INSERT INTO rounds (table_match_id, round_no, seed, header, result,"
                    " lines, lines_format, committed_at, epoch) VALUES (?, ?, ?, ?, ?, ?, ?, ?,"
                    f" {_EPOCH_NOW})",
                    (
                        match_id,
                        round_no,
                        int(header["seed"]),
                        _json(header),
                        _json(summary),
                        lines,
                        FORMAT,
                        _now(),
                        match_id,
                    ),
                )
                round_id = cursor.lastrowid
                rows = [
                    (round_id, seat, player, kind, count)
                    for seat, player in enumerate(players)
                    for kind, count in faults[player].items()
                    if count
                ]
                if rows:
                    db.executemany(
                        "INSERT INTO faults (round_id, seat, player, kind, count)"
                        " VALUES (?, ?, ?, ?, ?)",
                        rows,
                    )
                if gifts:
                    self._write_gifts(db, match_id, round_id, gifts)
        except sqlite3.IntegrityError as exc:
            if "rounds.table_match_id, rounds.round_no" in str(exc):
                raise RoundExists(
                    f"table match {match_id} round {round_no} is stored already: "
                    "not written again (it would count twice)"
                ) from exc
            raise

    def _write_between(self, db: sqlite3.Connection, match_id: int, chunks: list[_Between]) -> None:
        for chunk in chunks:
            if chunk.lines:
                db.execute(
                    "INSERT INTO match_lines (table_match_id, after_round, lines, lines_format)"
                    " VALUES (?, ?, ?, ?)",
                    (match_id, chunk.after_round, chunk.lines, FORMAT),
                )
            if chunk.gifts:
                self._write_gifts(db, match_id, None, chunk.gifts)

    def _write_gifts(
        self,
        db: sqlite3.Connection,
        match_id: int,
        round_id: int | None,
        gifts: list[_Gift],
    ) -> None:
        db.executemany(
            "INSERT INTO gift_outcomes (table_match_id, round_id, gift_id, status, reason,"
            " effect, target, units) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [(match_id, round_id, *masked(gift)) for gift in gifts],
        )

    def _write_match_end(
        self, match_id: int, chunks: list[_Between], summary: Mapping[str, Any] | None
    ) -> None:
        with self.transaction() as db:
            self._write_between(db, match_id, chunks)
            if summary is not None:
                self._finish_match(db, match_id, summary)


@dataclass(slots=True)
class _Between:
    """Lines (encoded, or none) and gift outcomes told outside a round, after round
    ``after_round``."""

    after_round: int
    lines: bytes | None
    gifts: list[_Gift]


class RoundRecorder:
    """A table's recorder (:class:`arena.table.Recorder`) writing each round into the
    store, whole, when it ends.

    It keeps what a replay file would hold (:class:`~tournaments.round_lines.RoundLines`):
    messages, events, decisions and effects. ``round_ended`` writes the header, those
    lines, the record, its faults and the round's gift outcomes (``gift`` events that
    ended: applied, rejected or expired) in one transaction. Lines told outside a round go
    in with the next round, or at the ``match_ended`` event, which also marks the match
    finished with its summary; :meth:`flush` writes any told after that.
    """

    def __init__(self, store: TournamentStore, match_id: int) -> None:
        self.store = store
        self.match_id = match_id
        self.table = store.match(match_id).table_id
        self._lines = RoundLines()
        self.message = self._lines.message
        """Keep a message to or from a seat (a reply may be anything an agent returned):
        the recorder's busiest call, so no step in between."""
        self._header: dict[str, Any] | None = None
        self._gifts: list[_Gift] = []
        self._before: list[_Between] = []
        self._last = store.last_round(match_id)
        """The last round stored: lines between rounds are filed after it."""

    @property
    def current_round(self) -> int | None:
        """The round under way (started, not ended), None between rounds."""
        return None if self._header is None else int(self._header["round"])

    def round_started(self, header: dict[str, Any]) -> None:
        """Set aside what came before the round; keep the header (its own column)."""
        self._set_aside()
        self._lines.restart_clock()
        self._header = header

    def event(self, event: Event) -> None:
        """Keep the event; a gift's outcome also as a row."""
        self._lines.event(event)
        kind = event.type
        if kind == "gift":
            data = event.data
            if data.get("status") != "queued":
                self._gifts.append(
                    (
                        str(data.get("id")),
                        str(data.get("status")),
                        data.get("reason"),
                        data.get("effect"),
                        data.get("target"),
                        int(data.get("units", 1)),
                    )
                )
        elif kind == "match_ended" and self._header is None:
            self._set_aside()
            before, self._before = self._before, []
            self.store._write_match_end(self.match_id, before, dict(event.data))

    def decision(self, seat: int, record: dict[str, Any]) -> None:
        """Keep one attempt of a model seat, its full report included."""
        self._lines.decision(
            {"kind": "decision", "table": self.table, "round": self._round, "seat": seat, **record}
        )

    def effect(self, record: dict[str, Any]) -> None:
        """Keep a gift's effect with the cards it moved."""
        self._lines.line({"kind": "effect", "table": self.table, "round": self._round, **record})

    def round_ended(self, summary: dict[str, Any]) -> None:
        """Write the whole round in one transaction (:class:`RoundExists` if stored)."""
        header, self._header = self._header, None
        lines = self._lines.take()
        gifts, self._gifts = self._gifts, []
        before, self._before = self._before, []
        if header is None:
            raise StoreError("round_ended without round_started")
        self.store._write_round(self.match_id, header, summary, lines, gifts, before)
        self._last = int(header["round"])

    def flush(self) -> None:
        """Write what was told outside a round and not written yet (a gift refused after
        the match ended); a round under way is not touched."""
        if self._header is not None:
            return
        self._set_aside()
        before, self._before = self._before, []
        if before:
            self.store._write_match_end(self.match_id, before, None)

    @property
    def _round(self) -> int:
        """The round a line belongs to: the one under way, else the last one."""
        current = self.current_round
        return self._last if current is None else current

    def _set_aside(self) -> None:
        lines = self._lines.take() if self._lines else None
        if lines or self._gifts:
            self._before.append(_Between(self._last, lines, self._gifts))
            self._gifts = []


# --- reading back ---------------------------------------------------------------------


_TOURNAMENT_COLUMNS: Final = (
    "SELECT t.id, t.name, t.config, coalesce(s.seed, t.seed), t.status, t.created_at,"
    " t.finished_at FROM tournaments t"
    " LEFT JOIN seeds s ON s.tournament_id = t.id AND s.epoch = 1"
)
"""A tournament's row, its seed the first epoch's (which may not fit an INTEGER)."""

_EPOCH_NOW: Final = (
    "coalesce((SELECT max(s.epoch) FROM seeds s JOIN table_matches m"
    " ON m.tournament_id = s.tournament_id WHERE m.id = ?), 1)"
)
"""The epoch a round written now belongs to: its tournament's latest."""


def _integer(seed: int) -> int:
    """A seed as the INTEGER columns keep it: itself when it fits, else -1 (see
    migration 3)."""
    return seed if 0 <= seed < 2**63 else -1


def _tournament_row(row: tuple[Any, ...]) -> TournamentRow:
    tid, name, config, seed, status, created, finished = row
    value = stored_seed(seed, tid, 1).value
    return TournamentRow(tid, name, orjson.loads(config), value, status, created, finished)


def _match_row(row: tuple[Any, ...]) -> MatchRow:
    mid, tid, stage, table_id, players, seed, status, summary, started, finished = row
    return MatchRow(
        mid,
        tid,
        stage,
        table_id,
        tuple(orjson.loads(players)),
        seed,
        status,
        None if summary is None else orjson.loads(summary),
        started,
        finished,
    )


def stored_round_record(data: Any, path: Path, game: Game | None = None) -> RoundRecord:
    """:func:`round_record` of a record read from the file at ``path``: one that decodes
    but is no record (a changed byte in a key) is :class:`DamagedStore`, named."""
    try:
        return round_record(data, game)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        where = data if isinstance(data, dict) else {}
        problem = ValueError(f"its result is no round record: {type(exc).__name__} {exc}")
        raise _damaged(path, where.get("table", "?"), where.get("round_no", "?"), problem) from None


def round_record(data: Mapping[str, Any], game: Game | None = None) -> RoundRecord:
    """A :class:`RoundRecord` from its :meth:`~RoundRecord.to_dict` (a stored round of
    ``game``, the default game when None, which reads its result back:
    :attr:`arena.games.base.Game.stored_result`)."""
    game = game or get_game(DEFAULT_GAME)
    if game.stored_result is None:
        raise ValueError(f"{game.title} does not read back stored results")
    names = tuple(data["players"])
    faults, stats = data["faults"], data["stats"]
    return RoundRecord(
        table=data["table"],
        round_no=data["round_no"],
        seed=data["seed"],
        players=names,
        result=game.stored_result(data["result"]),
        faults=tuple(faults[name] for name in names),
        standins=tuple(names.index(p) for p in data["standins"]),
        stats=tuple(stats[name] for name in names),
        gifts=tuple(data["gifts"]),
    )


def _refuse_secrets(data: Any, where: str) -> None:
    """StoreError naming the first key named like a secret that holds a value."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            path = f"{where}.{key}" if where else str(key)
            if _SECRET_NAME.search(str(key)) and value not in (None, ""):
                raise StoreError(
                    f"config key {path} holds a value: a tournament stores no secrets; "
                    f"name the environment variable instead ({key}_env)"
                )
            _refuse_secrets(value, path)
    elif isinstance(data, list | tuple):
        for index, value in enumerate(data):
            _refuse_secrets(value, f"{where}[{index}]")
