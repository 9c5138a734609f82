"""Checking a tournament's export: were its deals fixed before play, and is every move
legal? (``arena tournament verify``)

The export (:mod:`tournaments.export`) is checked as a third party would:

1. each epoch's revealed seed is in canonical form and its SHA-256 is the commitment
   published when the epoch began; ``verifiable`` is what the seed's size says;
2. each round's seed is ``derive_seed(epoch seed, deal_table(table), round)`` (a gift's
   RESHUFFLE: the derived seed is the one thrown away, and the one dealt is
   ``derive_seed(epoch seed, table, round, "reshuffle", gift)``);
3. the deal the round was played with is the one that seed deals (a deal written in
   the header too), and the stored record's deal, first bidder and seed are the
   engine's;
4. every line of the round re-checks through the rules engine
   (:func:`arena.replay_check.verify_round`, what ``arena replay`` runs).

A round whose epoch's seed is still secret (a tournament under way, a daily's current
session) has its moves checked but its deal is *not verifiable yet*; a seed under 128
bits is *not verifiable* (anyone could try every small seed to find one that deals
what they want). :attr:`Verification.exit_code` is 0 only when every round checked out
against a revealed, verifiable seed.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Final

from arena.engine import DealtCards
from arena.errors import ArenaError
from arena.replay import ReplayError, read_replay
from arena.replay_check import RecordedRound, RoundIncomplete, verify_round
from arena.table.match import derive_seed
from tournaments.deals import deal_table
from tournaments.seeds import commitment_of, parse_seed

__all__ = [
    "EXIT_FAILED",
    "EXIT_NOT_VERIFIABLE",
    "EpochVerdict",
    "Verification",
    "VerifyError",
    "verify_export",
]

EXIT_FAILED: Final = 1
"""Something differs: a seed, a deal, a move."""
EXIT_NOT_VERIFIABLE: Final = 3
"""Nothing differs, but not every deal could be verified (a secret or a small seed)."""


class VerifyError(ArenaError, ValueError):
    """The file is no tournament export (or not readable as one): nothing was checked."""


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

    @property
    def exit_code(self) -> int:
        """0: everything verified; :data:`EXIT_FAILED`; :data:`EXIT_NOT_VERIFIABLE`."""
        if self.failures:
            return EXIT_FAILED
        if not self.epochs or any(v.status != "verified" for v in self.epochs.values()):
            return EXIT_NOT_VERIFIABLE
        return 0

    def report(self) -> list[str]:
        """The summary a person reads: the epochs, each failure, the verdict."""
        lines = [f"tournament {self.tournament} ({self.name}), {self.status}: {self.rounds} rounds"]
        for verdict in self.epochs.values():
            lines.append(_epoch_line(verdict))
        lines.extend(f"✗ {failure}" for failure in self.failures)
        code = self.exit_code
        if code == 0:
            lines.append(
                f"verified: all {self.rounds} rounds were dealt from seeds committed before "
                "play, and every move is legal"
            )
        elif code == EXIT_FAILED:
            lines.append(f"NOT verified: {len(self.failures)} problem(s), listed above")
        else:
            lines.append(
                "not verifiable (yet): nothing differs, but not every deal could be checked "
                "against a revealed seed of 128 bits or more"
            )
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
        verification, tables = _read_header(header)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise VerifyError(f"{source}: a malformed tournament line ({exc!r})") from None
    seen: set[tuple[str, int]] = set()
    for recorded in replay.rounds:
        verification.rounds += 1
        seen.add((recorded.table, recorded.round))
        _check_round(verification, tables, recorded)
    for table, rounds in tables.items():
        for round_no in rounds:
            if (table, round_no) not in seen:
                verification.failures.append(
                    f"table {table} round {round_no}: listed in the tournament line, but the "
                    "file holds none of its lines"
                )
    if verification.status == "finished":  # else its matches are under way: no end yet
        verification.failures.extend(f"{source}: {note}" for note in replay.notes)
    return verification


def _read_header(header: dict[str, Any]) -> tuple[Verification, dict[str, dict[int, int]]]:
    """The verification to fill, its epochs checked; each table's round → epoch."""
    epochs: dict[int, EpochVerdict] = {}
    failures: list[str] = []
    for published in header["seeds"]["epochs"]:
        number = int(published["epoch"])
        seed = published["seed"]
        verdict = EpochVerdict(number, str(published["commitment"]), seed, False)
        epochs[number] = verdict
        if seed is None:
            verdict.verifiable = bool(published["verifiable"])  # as claimed, for the report
            continue
        verdict.problem = _seed_problem(seed, verdict.commitment, bool(published["verifiable"]))
        if verdict.problem is None:
            verdict.verifiable = parse_seed(seed).verifiable
        else:
            failures.append(f"epoch {number}: {verdict.problem}")
    tables: dict[str, dict[int, int]] = {}
    for entry in header["tables"]:
        table = str(entry["table"])
        if entry.get("deal_table", deal_table(table)) != deal_table(table):
            failures.append(
                f"table {table}: the tournament line says its deals derive from "
                f"{entry['deal_table']!r}, not {deal_table(table)!r}"
            )
        tables[table] = {int(number): int(epoch) for number, epoch in entry["rounds"]}
    verification = Verification(
        str(header["tournament"]), str(header["name"]), str(header["status"]), epochs, failures
    )
    return verification, tables


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
    verification: Verification, tables: dict[str, dict[int, int]], recorded: RecordedRound
) -> None:
    where = f"table {recorded.table} round {recorded.round}"
    number = tables.get(recorded.table, {}).get(recorded.round)
    verdict = None if number is None else verification.epochs.get(number)
    if verdict is None:
        what = "no epoch" if number is None else f"epoch {number}, which it does not list"
        verification.failures.append(f"{where}: the tournament line gives it {what}")
        return
    problem = _moves_problem(recorded)
    if problem is None and verdict.seed is not None and verdict.problem is None:
        problem = _deal_problem(recorded, parse_seed(verdict.seed).value)
    if problem is not None:
        verdict.failed += 1
        verification.failures.append(f"{where} (epoch {verdict.epoch}): {problem}")
    elif verdict.seed is None:
        verdict.pending += 1
    elif verdict.problem is None:
        verdict.verified += 1


def _moves_problem(recorded: RecordedRound) -> str | None:
    """What the rules check finds wrong with the round's lines, None when they check."""
    try:
        rnd = verify_round(recorded)
    except RoundIncomplete as exc:
        return f"incomplete: {exc.detail}"
    except ReplayError as exc:
        return getattr(exc, "detail", str(exc))
    summary = recorded.summary or {}
    result = summary.get("result", {})
    header = recorded.header
    stored = result.get("deal", {})
    hands = stored.get("hands") or [None, None, None]
    dealt = rnd.deal.to_dict()
    for seat in range(3):
        if hands[seat] != dealt["hands"][seat]:
            return (
                f"the stored record's hand of seat {seat} {hands[seat]} is not the one "
                f"dealt {dealt['hands'][seat]}"
            )
    if stored.get("bottom") != dealt["bottom"]:
        return (
            f"the stored record's bottom {stored.get('bottom')} is not the one dealt "
            f"{dealt['bottom']}"
        )
    if result.get("first_bidder") != rnd.first_bidder:
        return (
            f"the stored record's first bidder is seat {result.get('first_bidder')}, the "
            f"seed's is seat {rnd.first_bidder}"
        )
    if header.get("first_bidder") not in (None, rnd.first_bidder):
        return f"the header's first bidder {header['first_bidder']} did not bid first"
    for label, value in (("record", summary.get("seed")), ("result", result.get("seed"))):
        if value != header["seed"]:
            return f"the stored {label}'s seed {value} is not the header's {header['seed']}"
    return None


def _deal_problem(recorded: RecordedRound, epoch_seed: int) -> str | None:
    """Whether the round was dealt from its epoch's seed (see the module)."""
    header = recorded.header
    table, round_no = recorded.table, recorded.round
    expected = derive_seed(epoch_seed, deal_table(table), round_no)
    reshuffle = next(
        (c for c in header.get("gift_changes", ()) if c.get("effect") == "RESHUFFLE"), None
    )
    if reshuffle is not None:
        if reshuffle["prepared_seed"] != expected:
            return (
                f"the RESHUFFLE threw away a deal of seed {reshuffle['prepared_seed']}, not "
                f"the round's seed {expected} from the epoch's seed"
            )
        expected = derive_seed(epoch_seed, table, round_no, "reshuffle", reshuffle["gift"])
    if header["seed"] != expected:
        return (
            f"its seed {header['seed']} is not derive_seed(epoch seed, "
            f"{deal_table(table)!r}, {round_no}) = {expected}: not dealt from the committed seed"
        )
    written = header.get("deal")
    if written:
        own = DealtCards.shuffled(random.Random(expected)).to_dict()
        if written != own:
            return "the header's deal is not the one its seed deals"
    return None


def _epoch_line(verdict: EpochVerdict) -> str:
    """One epoch as the report says it."""
    head = f"epoch {verdict.epoch}: commitment {verdict.commitment}"
    rounds = f"{verdict.verified} round(s) verified"
    if verdict.failed:
        rounds += f", {verdict.failed} failed"
    if verdict.problem is not None:
        return f"{head}: FAILED: {verdict.problem}"
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
