"""Checking a tournament's export: were its deals fixed before play, is every move
legal, and is every round there? (``arena tournament verify``)

The export (:mod:`tournaments.export`) is checked as a third party would:

1. each epoch's revealed seed is in canonical form and its SHA-256 is the commitment
   published when the epoch began; ``verifiable`` is what the seed's size says;
2. each round's seed is ``derive_seed(epoch seed, deal_table(table), round)``, and no
   viewer gift changed the round: a tournament is ranked, so a round whose header has
   ``gift_changes`` (a RESHUFFLE, a ROLE_SWAP) or whose record counts gift effects
   fails (an organiser could otherwise pick deals by trying gift ids);
3. the deal the round was played with is the one that seed deals (a deal written in
   the header too), and the stored record's deal, first bidder and seed are the
   engine's;
4. every line of the round re-checks through the rules engine
   (:func:`arena.replay.verify_round`, what ``arena replay`` runs);
5. each seat's decision figures in the stored record (what a forfeit is judged by,
   :mod:`tournaments.forfeits`) agree with the round's actions: one decision, its own
   agent's or a stand-in's, for each action the table did not make automatically, and
   no more decisions made for its own agent by a fallback than actions marked so;
6. no round is missing: each table's rounds are numbered 1..n, a finished table match
   has the rounds its format says (``tournaments.formats.MatchLength``: a best of five
   counting its round wins as the tournament's ``standin_rounds`` says), and in
   duplicate mode every group has all its seatings (``tournaments.deals.seatings``),
   their finished ones the same number of rounds. A file of some tables only
   (``partial``) or a fixed-length table match cut off when the tournament was
   finished early cannot show that nothing is missing: at best *not verifiable*.

A round whose epoch's seed is still secret (a tournament under way, a daily's current
session) has its moves checked but its deal is *not verifiable yet*; a seed under 128
bits is *not verifiable* (anyone could try every small seed to find one that deals
what they want). :attr:`Verification.exit_code` is 0 only when every round checked out
against a revealed, verifiable seed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar

from arena.errors import ArenaError
from arena.games.base import RoundAudit
from arena.games.registry import DEFAULT_GAME, get_game
from arena.replay import RecordedRound, ReplayError, RoundIncomplete, read_replay, verify_round
from arena.table.match import derive_seed
from tournaments.deals import (
    MOST_SEATINGS,
    Duplicate,
    deal_table,
    seating_count,
    seating_table_id,
    seatings,
)
from tournaments.forfeits import StandinRounds, scored_round
from tournaments.formats import (
    Format,
    LandlordPolicy,
    MatchLength,
    Outcome,
    RoundOutcome,
    round_wins,
)
from tournaments.seeds import commitment_of, parse_seed
from tournaments.store import round_record

__all__ = [
    "EXIT_FAILED",
    "EXIT_NOT_VERIFIABLE",
    "EpochVerdict",
    "Verification",
    "VerifyError",
    "verify_export",
]

EXIT_FAILED: Final = 1
"""Something differs: a seed, a deal, a move, a missing round."""
EXIT_NOT_VERIFIABLE: Final = 3
"""Nothing differs, but not every deal could be verified (a secret or a small seed)."""

RANKED: Final = "tournaments are ranked: no gift may change a round"


class VerifyError(ArenaError, ValueError):
    """The file is no tournament export (or not readable as one): nothing was checked."""


class _Malformed(Exception):
    """The tournament line lacks a key or holds a value of the wrong kind."""


@dataclass
class EpochVerdict:
    """What became of one epoch's seed and its rounds."""

    epoch: int
    commitment: str
    seed: str | None
    verifiable: bool
    problem: str | None = None
    """Why the seed does not hold (its commitment, its form), None when it does."""
    verified: int = 0
    """Rounds dealt from this seed, every move legal."""
    pending: int = 0
    """Rounds whose moves check but whose deal waits for the seed (secret still)."""
    failed: int = 0

    @property
    def status(self) -> str:
        """One word for the epoch: failed, secret, not verifiable, verified."""
        if self.problem is not None or self.failed:
            return "failed"
        if self.seed is None:
            return "not revealed yet"
        if not self.verifiable:
            return "not verifiable"
        return "verified"


@dataclass(frozen=True, slots=True)
class Settings:
    """What the rounds are held to besides the seeds (the export's ``settings``)."""

    format: Format
    landlord_policy: LandlordPolicy
    duplicate: Duplicate
    standin_rounds: StandinRounds = StandinRounds.COUNT
    """``count`` for an export made before the setting existed (played so)."""


@dataclass
class _Table:
    """A table match as the tournament line lists it."""

    table: str
    players: tuple[str, ...]
    status: str
    rounds: dict[int, int]
    """Round number → epoch."""


@dataclass
class Verification:
    """The outcome of checking an export: per epoch, and every failure by table and round."""

    tournament: str
    name: str
    status: str
    epochs: dict[int, EpochVerdict]
    failures: list[str] = field(default_factory=list)
    """``table s1t1 round 3: what differs`` (or an epoch's problem), in file order."""
    rounds: int = 0
    partial: bool = False
    """The file holds only some of the tournament's table matches (``export --table``)."""
    cut_off: list[str] = field(default_factory=list)
    """Table matches of a fixed length that never ended in a tournament marked finished
    (``arena tournament finish`` ended it early): whether they played more rounds than
    the file holds cannot be told."""

    @property
    def exit_code(self) -> int:
        """0: everything verified; :data:`EXIT_FAILED`; :data:`EXIT_NOT_VERIFIABLE`."""
        if self.failures:
            return EXIT_FAILED
        if self._unverifiable():
            return EXIT_NOT_VERIFIABLE
        return 0

    def _unverifiable(self) -> list[str]:
        """Why nothing differs yet not everything is verified (empty: all is)."""
        finished = self.status == "finished"
        reasons = [] if self.epochs else ["no seed was committed"]
        for verdict in self.epochs.values():
            if verdict.seed is None:
                reasons.append(
                    f"the seed of epoch {verdict.epoch} is not in this file (not revealed)"
                    if finished
                    else f"the seed of epoch {verdict.epoch} is not revealed yet"
                )
            elif not verdict.verifiable:
                reasons.append(
                    f"a small seed ({parse_seed(verdict.seed).bits} bits, epoch "
                    f"{verdict.epoch}) could have been chosen"
                )
        if self.partial:
            reasons.append("the file holds only some of the tournament's table matches")
        reasons.extend(self.cut_off)
        return reasons

    def report(self) -> list[str]:
        """The summary a person reads: the epochs, each failure, the verdict."""
        lines = [f"tournament {self.tournament} ({self.name}), {self.status}: {self.rounds} rounds"]
        for verdict in self.epochs.values():
            lines.append(_epoch_line(verdict, finished=self.status == "finished"))
        lines.extend(f"✗ {failure}" for failure in self.failures)
        code = self.exit_code
        if code == 0:
            lines.append(
                f"verified: all {self.rounds} rounds were dealt from seeds committed before "
                "play, every move is legal, and no round is missing"
            )
        elif code == EXIT_FAILED:
            lines.append(f"NOT verified: {len(self.failures)} problem(s), listed above")
        else:
            reasons = self._unverifiable()
            pending_only = self.status != "finished" and all(
                "not revealed yet" in reason for reason in reasons
            )
            said = "not verifiable yet" if pending_only else "not verifiable"
            lines.append(f"{said}: {'; '.join(reasons)} (nothing differs)")
        return lines


def verify_export(lines: Iterable[bytes | str], *, source: str) -> Verification:
    """Check an export's lines (see the module); :class:`VerifyError` when they are no
    tournament export."""
    try:
        replay = read_replay(lines, source=source)
    except ReplayError as exc:
        raise VerifyError(str(exc)) from None
    header = replay.tournament
    if header is None:
        raise VerifyError(
            f"{source}: not a tournament export (its first line is no tournament line): "
            "make one with arena tournament export ID --replay"
        )
    try:
        verification, settings, tables = _read_header(header)
    except _Malformed as exc:
        raise VerifyError(f"{source}: a malformed tournament line: {exc}") from None
    except KeyError as exc:
        raise VerifyError(
            f"{source}: a malformed tournament line: no key {exc.args[0]!r}"
        ) from None
    except (TypeError, ValueError, AttributeError) as exc:
        raise VerifyError(f"{source}: a malformed tournament line ({exc})") from None
    seen: set[tuple[str, int]] = set()
    outcomes: dict[tuple[str, int], Outcome] = {}
    for recorded in replay.rounds:
        verification.rounds += 1
        seen.add((recorded.table, recorded.round))
        outcome = _outcome(recorded, settings.standin_rounds)
        if outcome is not None:
            outcomes[(recorded.table, recorded.round)] = outcome
        _check_round(verification, tables, recorded)
    for table in tables.values():
        for round_no in table.rounds:
            if (table.table, round_no) not in seen:
                verification.failures.append(
                    f"table {table.table} round {round_no}: listed in the tournament line, but "
                    "the file holds none of its lines"
                )
    verification.failures.extend(_missing(verification, settings, tables, outcomes))
    if verification.status == "finished":  # else its matches are under way: no end yet
        verification.failures.extend(
            f"{source}: {note}" for note in replay.notes if not _cut_off(note, tables)
        )
    return verification


def _cut_off(note: str, tables: dict[str, _Table]) -> bool:
    """Whether a replay's note (``table s1t1: the match does not end ...``) is about a
    table match the tournament line says never ended (a daily's, or one cut off)."""
    head, colon, _ = note.partition(": ")
    table = tables.get(head.removeprefix("table ")) if colon and head.startswith("table ") else None
    return table is not None and table.status != "finished"


def _field(data: Any, key: str, where: str) -> Any:
    """``data[key]``; :class:`_Malformed` naming where when it is not there."""
    if not isinstance(data, dict):
        raise _Malformed(f"{where} is {data!r}, not an object")
    if key not in data:
        raise _Malformed(f"{where} has no key {key!r}")
    return data[key]


_E = TypeVar("_E", Format, LandlordPolicy, Duplicate, StandinRounds)


def _enum(kind: type[_E], value: Any, where: str) -> _E:
    try:
        return kind(value)
    except ValueError:
        known = ", ".join(member.value for member in kind)
        raise _Malformed(f"{where} is {value!r}, not one of {known}") from None


def _read_header(
    header: dict[str, Any],
) -> tuple[Verification, Settings, dict[str, _Table]]:
    """The verification to fill, its epochs checked; what the rounds are held to; each
    table as listed."""
    line = "the tournament line"
    epochs: dict[int, EpochVerdict] = {}
    failures: list[str] = []
    listed = _field(_field(header, "seeds", line), "epochs", f"{line}'s seeds")
    for index, published in enumerate(listed):
        where = f"{line}'s seeds.epochs[{index}]"
        number = int(_field(published, "epoch", where))
        seed = _field(published, "seed", where)
        claimed = bool(_field(published, "verifiable", where))
        verdict = EpochVerdict(number, str(_field(published, "commitment", where)), seed, False)
        epochs[number] = verdict
        if seed is None:
            verdict.verifiable = claimed  # as claimed, for the report
            continue
        verdict.problem = _seed_problem(seed, verdict.commitment, claimed)
        if verdict.problem is None:
            verdict.verifiable = parse_seed(seed).verifiable
        else:
            failures.append(f"epoch {number}: {verdict.problem}")
    given = _field(header, "settings", line)
    where = f"{line}'s settings"
    settings = Settings(
        _enum(Format, _field(given, "format", where), f"{where}.format"),
        _enum(LandlordPolicy, _field(given, "landlord_policy", where), f"{where}.landlord_policy"),
        _enum(Duplicate, _field(given, "duplicate", where), f"{where}.duplicate"),
        _enum(
            StandinRounds,
            given.get("standin_rounds", StandinRounds.COUNT.value),
            f"{where}.standin_rounds",
        ),
    )
    tables: dict[str, _Table] = {}
    for index, entry in enumerate(_field(header, "tables", line)):
        where = f"{line}'s tables[{index}]"
        table = str(_field(entry, "table", where))
        if entry.get("deal_table", deal_table(table)) != deal_table(table):
            failures.append(
                f"table {table}: the tournament line says its deals derive from "
                f"{entry['deal_table']!r}, not {deal_table(table)!r}"
            )
        if table in tables:
            failures.append(f"table {table}: listed twice in the tournament line")
        tables[table] = _Table(
            table,
            tuple(str(p) for p in _field(entry, "players", where)),
            str(_field(entry, "status", where)),
            {int(number): int(epoch) for number, epoch in _field(entry, "rounds", where)},
        )
    verification = Verification(
        str(_field(header, "tournament", line)),
        str(_field(header, "name", line)),
        str(_field(header, "status", line)),
        epochs,
        failures,
        partial=bool(header.get("partial", False)),
    )
    return verification, settings, tables


def _seed_problem(text: str, commitment: str, claimed_verifiable: bool) -> str | None:
    """Why a revealed seed does not hold, None when it does."""
    try:
        seed = parse_seed(text)
    except ValueError as exc:
        return f"the revealed seed is no seed: {exc}"
    if seed.text != text:
        return f"the revealed seed {text!r} is not in canonical form ({seed.text!r})"
    if commitment_of(text) != commitment:
        return (
            f"the revealed seed's SHA-256 is {commitment_of(text)}, not the commitment "
            f"{commitment} published before play: the seed was changed"
        )
    if claimed_verifiable and not seed.verifiable:
        return f"said verifiable, but the seed has {seed.bits} bits (128 needed)"
    return None


def _check_round(
    verification: Verification, tables: dict[str, _Table], recorded: RecordedRound
) -> None:
    where = f"table {recorded.table} round {recorded.round}"
    listed = tables.get(recorded.table)
    number = None if listed is None else listed.rounds.get(recorded.round)
    verdict = None if number is None else verification.epochs.get(number)
    if verdict is None:
        what = "no epoch" if number is None else f"epoch {number}, which it does not list"
        verification.failures.append(f"{where}: the tournament line gives it {what}")
        return
    problem = _gift_problem(recorded) or _moves_problem(recorded) or _figures_problem(recorded)
    if problem is None and verdict.seed is not None and verdict.problem is None:
        problem = _deal_problem(recorded, parse_seed(verdict.seed).value)
    if problem is not None:
        verdict.failed += 1
        verification.failures.append(f"{where} (epoch {verdict.epoch}): {problem}")
    elif verdict.seed is None:
        verdict.pending += 1
    elif verdict.problem is None:
        verdict.verified += 1


def _gift_problem(recorded: RecordedRound) -> str | None:
    """What a viewer gift changed in the round, None when nothing: a tournament is
    ranked, so a gift that changed its deal, roles or score is a failure."""
    changes = recorded.header.get("gift_changes")
    if changes is not None:
        kinds = (
            ", ".join(str(c.get("effect")) for c in changes if isinstance(c, dict))
            if isinstance(changes, list)
            else repr(changes)
        )
        return f"{RANKED}, but its header has gift_changes ({kinds or 'none listed'})"
    effects = [line for _, line in recorded.lines if line.get("kind") == "effect"]
    summary = recorded.summary or {}
    audit = _audit(recorded)
    marks = audit.gift_marks(summary.get("result", {})) if audit is not None else ()
    if effects or any(count for count, _ in marks):
        counted = "".join(f", {count} {what}" for count, what in marks)
        return (
            f"{RANKED}, but gifts changed it while it was played ({len(effects)} effect "
            f"line(s){counted})"
        )
    if summary.get("gifts"):
        return f"{RANKED}, but its record is marked with gifts {summary['gifts']}"
    return None


def _moves_problem(recorded: RecordedRound) -> str | None:
    """What the rules check finds wrong with the round's lines, None when they check."""
    try:
        rnd = verify_round(recorded)
    except RoundIncomplete as exc:
        return f"incomplete: {exc.detail}"
    except ReplayError as exc:
        return getattr(exc, "detail", str(exc))
    audit = _audit(recorded)
    problem = audit.record_problem(recorded, rnd) if audit is not None else None
    if problem is not None:
        return problem
    summary = recorded.summary or {}
    result = summary.get("result", {})
    header = recorded.header
    for label, value in (("record", summary.get("seed")), ("result", result.get("seed"))):
        if value != header["seed"]:
            return f"the stored {label}'s seed {value} is not the header's {header['seed']}"
    return None


def _deal_problem(recorded: RecordedRound, epoch_seed: int) -> str | None:
    """Whether the round was dealt from its epoch's seed (see the module)."""
    header = recorded.header
    table, round_no = recorded.table, recorded.round
    expected = derive_seed(epoch_seed, deal_table(table), round_no)
    if header["seed"] != expected:
        return (
            f"its seed {header['seed']} is not derive_seed(epoch seed, "
            f"{deal_table(table)!r}, {round_no}) = {expected}: not dealt from the committed seed"
        )
    written = header.get("deal")
    audit = _audit(recorded)
    if written and audit is not None and written != audit.dealt(expected):
        return "the header's deal is not the one its seed deals"
    return None


def _outcome(recorded: RecordedRound, standin_rounds: StandinRounds) -> Outcome | None:
    """The round's winners and scores as its record says, counted as the tournament
    counts them (``standin_rounds``: a forfeit is no win); None: no usable record."""
    summary = recorded.summary or {}
    try:
        game = get_game(str(recorded.header.get("game", DEFAULT_GAME)))
        return scored_round(round_record(summary, game), standin_rounds, game)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, ArenaError):
        if standin_rounds != StandinRounds.COUNT:
            return None  # a forfeit cannot be told without the whole record
    try:  # an older record lacking keys: its winners and scores as it says them
        result = summary["result"]
        scores = result["scores"]
        winners = tuple(int(seat) for seat in result["winners"])
        return RoundOutcome(winners, tuple(int(score) for score in scores))
    except (KeyError, TypeError, ValueError, IndexError):
        return None


def _audit(recorded: RecordedRound) -> RoundAudit | None:
    """The round's game's checks beside its moves (its header's ``game``), None for a
    game without (or one the arena does not know: the moves' check says so)."""
    try:
        game = get_game(str(recorded.header.get("game", DEFAULT_GAME)))
    except ArenaError:
        return None
    return game.round_audit() if game.round_audit is not None else None


def _figures_problem(recorded: RecordedRound) -> str | None:
    """Whether each seat's stored decision figures agree with the round's actions (see
    the module, step 5), None when they do (or the record has none, as before figures
    were kept). Which decisions a stand-in made is not in the lines when it held the
    seat from an earlier round: that split is the record's word."""
    summary = recorded.summary or {}
    players, stats = summary.get("players"), summary.get("stats")
    audit = _audit(recorded)
    if not isinstance(players, list) or not isinstance(stats, dict) or not players:
        return None
    if audit is None:
        return None  # which events are a seat's actions is the game's
    actions, fallbacks = [0] * len(players), [0] * len(players)
    for event in recorded.events:
        data = event.get("data") or {}
        seat = event.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < len(players):
            continue  # not a seat's action
        if event.get("type") in audit.actions and not data.get("auto"):
            actions[seat] += 1
            fallbacks[seat] += bool(data.get("fallback"))
    for seat, player in enumerate(players):
        figures = stats.get(player)
        if not isinstance(figures, dict) or "decisions" not in figures:
            continue
        own, standin = figures["decisions"], figures.get("standin_decisions", 0)
        first, retried = figures.get("legal_first_try", 0), figures.get("legal_after_retry", 0)
        fell_back = figures.get("fell_back", 0)
        said = f"the record's decision figures of seat {seat} ({player})"
        if own != first + retried + fell_back:
            return (
                f"{said} do not add up: {own} decisions, but {first} legal at once, "
                f"{retried} after retries and {fell_back} fallbacks"
            )
        if own + standin != actions[seat]:
            return (
                f"{said} count {own + standin} decisions ({own} its own agent's, {standin} a "
                f"stand-in's), but the seat took {actions[seat]} actions not made automatically"
            )
        if fell_back > fallbacks[seat]:
            return (
                f"{said} say the table decided {fell_back} times for its agent, but only "
                f"{fallbacks[seat]} of the seat's actions were fallbacks"
            )
    return None


def _missing(
    verification: Verification,
    settings: Settings,
    tables: dict[str, _Table],
    outcomes: dict[tuple[str, int], Outcome],
) -> list[str]:
    """Every round or seating the tournament line should list and does not (see the
    module, step 5)."""
    problems: list[str] = []
    finished = verification.status == "finished"
    for table in tables.values():
        if finished and table.status != "finished" and settings.format is not Format.DAILY:
            verification.cut_off.append(  # a daily's match never ends by itself
                f"table {table.table} was cut off after {len(table.rounds)} round(s), "
                f"before its {settings.format} match ended (the tournament was finished early)"
            )
        numbers = sorted(table.rounds)
        last = numbers[-1] if numbers else 0
        gaps = sorted(set(range(1, last + 1)) - set(numbers))
        if gaps:
            problems.append(
                f"table {table.table}: round(s) {_listed(gaps)} missing (its rounds go to {last})"
            )
        if numbers and numbers[0] < 1:
            problems.append(
                f"table {table.table}: a round numbered {numbers[0]} (they count from 1)"
            )
        played = [outcomes.get((table.table, number)) for number in range(1, last + 1)]
        known = None if None in played else [o for o in played if o is not None]
        problem = _length_problem(settings.format, table, last, known)
        if problem is not None:
            problems.append(f"table {table.table}: {problem}")
    problems.extend(_seating_problems(settings.duplicate, tables, verification.partial))
    return problems


def _length_problem(
    fmt: Format, table: _Table, count: int, outcomes: list[Outcome] | None
) -> str | None:
    """Whether the table match has the rounds its format says: never more, and all of
    them once finished (``outcomes``: each round's, None when some are not in the file)."""
    if fmt is Format.DAILY:
        return None  # open-ended: any number of rounds
    length = MatchLength.of(fmt)
    most = length.rounds or 0
    if count > most:
        return f"{count} rounds, more than a {fmt} match's {most}"
    if outcomes is not None:
        for played in range(1, count):
            if not length.goes_on(outcomes[:played]):
                return (
                    f"a {fmt} match ends once a player has {length.wins_needed} round wins, "
                    f"as one had after round {played}, yet it has {count} rounds"
                )
    if table.status != "finished":
        return None
    if length.wins_needed is not None and outcomes is None:  # some round's result unknown
        if count < length.wins_needed:
            return (
                f"a finished {fmt} match has at least {length.wins_needed} rounds; this one "
                f"has {count}"
            )
        return None
    if length.wins_needed is None or outcomes is None:
        if count < most:
            return (
                f"a finished {fmt} match has {most} rounds; this one has {count}: round(s) "
                f"{_listed(list(range(count + 1, most + 1)))} missing"
            )
        return None
    if length.goes_on(outcomes):
        return (
            f"a finished {fmt} match ends when a player has {length.wins_needed} round wins "
            f"or after {most} rounds, but after its {count} round(s) the most round wins is "
            f"{max(round_wins(outcomes), default=0)}: round {count + 1} is missing"
        )
    return None


def _seating_problems(mode: Duplicate, tables: dict[str, _Table], partial: bool) -> list[str]:
    """Duplicate mode: each group (base table) has every seating, in the orders
    :func:`~tournaments.deals.seatings` gives, its finished ones the same rounds."""
    groups: dict[str, dict[int, _Table]] = {}
    problems: list[str] = []
    for table in tables.values():
        count = seating_count(mode, len(table.players))
        base, mark, suffix = table.table.partition(".")
        if mode is Duplicate.OFF:
            if mark:
                problems.append(
                    f"table {table.table}: a duplicate seating, but the tournament's duplicate "
                    "mode is off"
                )
            continue
        seating = int(suffix) if suffix.isdigit() else 0
        if not 1 <= seating <= count:
            problems.append(
                f"table {table.table}: not a seating of duplicate {mode} (seatings "
                f"{seating_table_id(base, 1)} to {seating_table_id(base, count)})"
            )
            continue
        groups.setdefault(base, {})[seating] = table
    for base, group in groups.items():
        seats = len(group.get(1, next(iter(group.values()))).players)
        count = seating_count(mode, seats)
        absent = [seating_table_id(base, n) for n in range(1, count + 1) if n not in group]
        if absent and not partial:
            problems.append(
                f"group {base}: seating(s) {', '.join(absent)} missing (duplicate {mode} "
                f"plays every deal in {count} seatings)"
            )
        first = group.get(1)
        odd = [t for t in group.values() if len(t.players) != seats]
        if first is not None and (seats < 2 or len(set(first.players)) != seats):
            problems.append(
                f"table {first.table} seats {list(first.players)}: not two distinct players or more"
            )
        elif count > MOST_SEATINGS:  # no tournament plays it (its config refuses it)
            problems.append(f"group {base}: duplicate {mode} of {seats} seats is {count} seatings")
        elif odd:
            problems.extend(
                f"table {t.table} seats {list(t.players)}, not {seats} players" for t in odd
            )
        elif first is not None:
            orders = seatings(first.players, mode)
            for number, table in sorted(group.items()):
                if table.players != orders[number - 1]:
                    problems.append(
                        f"table {table.table} seats {list(table.players)}, not "
                        f"{list(orders[number - 1])}: seating {number} of "
                        f"{list(first.players)} in duplicate {mode}"
                    )
        ended = {t.table: len(t.rounds) for t in group.values() if t.status == "finished"}
        if len(set(ended.values())) > 1:
            shown = ", ".join(f"{table} {rounds}" for table, rounds in sorted(ended.items()))
            problems.append(
                f"group {base}: its finished seatings have different numbers of rounds "
                f"({shown}): every seating plays every deal"
            )
    return problems


def _listed(numbers: list[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def _epoch_line(verdict: EpochVerdict, *, finished: bool) -> str:
    """One epoch as the report says it."""
    head = f"epoch {verdict.epoch}: commitment {verdict.commitment}"
    rounds = f"{verdict.verified} round(s) verified"
    if verdict.failed:
        rounds += f", {verdict.failed} failed"
    if verdict.problem is not None:
        return f"{head}: FAILED: {verdict.problem}"
    if verdict.seed is None and finished:
        return (
            f"{head}: seed not in this file (not revealed, though the tournament is "
            f"finished): {verdict.pending} round(s) not verifiable (their moves check; their "
            "deals cannot be checked without the seed)"
        )
    if verdict.seed is None:
        return (
            f"{head}: seed not revealed yet (the tournament is under way, or this is a daily's "
            f"current session): {verdict.pending} round(s) not verifiable yet (their moves "
            "check; their deals wait for the seed)"
        )
    if not verdict.verifiable:
        bits = parse_seed(verdict.seed).bits
        return (
            f"{head}: seed {verdict.seed} matches, but it is NOT VERIFIABLE: {bits} bits, "
            f"under 128, so it could have been chosen by trying seeds; {rounds} against it"
        )
    return f"{head}: seed {verdict.seed} matches it; {rounds}"
