"""A tournament's committed seeds in its store: one per epoch, published as a
commitment when the epoch begins and revealed when it is over.

- A fixed-length tournament has one epoch: committed when it is created, revealed when
  it finishes (:meth:`TournamentStore.mark_tournament`); a resume plays on from the same
  seed, still secret.
- A ``daily`` tournament begins a new epoch at every session (:func:`session_seed`):
  the new epoch's seed is committed and every earlier one revealed, in one transaction;
  its rounds are dealt from their epoch's seed (the store files each round under its
  tournament's latest epoch).

:func:`seeds_document` is what ``show --json``, the retained MQTT leaderboard and an
export publish: every commitment, and a seed only once revealed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from tournaments.formats import Format
from tournaments.seeds import TournamentSeed, epoch_seed
from tournaments.store import stored_seed

if TYPE_CHECKING:
    from tournaments.config import TournamentConfig
    from tournaments.store import TournamentStore

__all__ = ["Epoch", "begin_epoch", "epochs", "round_epochs", "seeds_document", "session_seed"]


@dataclass(frozen=True, slots=True)
class Epoch:
    """One committed seed of a tournament, as stored."""

    epoch: int
    seed: TournamentSeed
    commitment: str
    """As stored: a changed seed no longer matches it (verification says so)."""
    verifiable: bool
    committed_at: str
    revealed_at: str | None

    def public(self) -> dict[str, Any]:
        """What may be published: the seed only once revealed."""
        return {
            "epoch": self.epoch,
            "commitment": self.commitment,
            "verifiable": self.verifiable,
            "committed_at": self.committed_at,
            "seed": self.seed.text if self.revealed_at is not None else None,
            "revealed_at": self.revealed_at,
        }


def epochs(store: TournamentStore, tournament_id: str) -> list[Epoch]:
    """The tournament's epochs, first to last (secret seeds included: for the runner
    and for verification, never to publish as they are). :class:`DamagedSeed` when a
    stored seed does not parse."""
    rows = store.connection.execute(
        "SELECT epoch, seed, commitment, verifiable, committed_at, revealed_at FROM seeds"
        " WHERE tournament_id = ? ORDER BY epoch",
        (tournament_id,),
    )
    return [
        Epoch(
            int(epoch),
            stored_seed(seed, tournament_id, int(epoch)),
            commitment,
            bool(verifiable),
            committed,
            revealed,
        )
        for epoch, seed, commitment, verifiable, committed, revealed in rows
    ]


def begin_epoch(store: TournamentStore, tournament_id: str, seed: TournamentSeed) -> int:
    """Commit ``seed`` as the tournament's next epoch and reveal every earlier one, in
    one transaction; the new epoch's number."""
    now = datetime.now(UTC).isoformat(timespec="milliseconds")
    with store.transaction() as db:
        (last,) = db.execute(
            "SELECT coalesce(max(epoch), 0) FROM seeds WHERE tournament_id = ?",
            (tournament_id,),
        ).fetchone()
        db.execute(
            "UPDATE seeds SET revealed_at = ? WHERE tournament_id = ? AND revealed_at IS NULL",
            (now, tournament_id),
        )
        db.execute(
            "INSERT INTO seeds (tournament_id, epoch, seed, commitment, verifiable,"
            " committed_at) VALUES (?, ?, ?, ?, ?, ?)",
            (tournament_id, last + 1, seed.text, seed.commitment, seed.verifiable, now),
        )
    return int(last) + 1


def session_seed(store: TournamentStore, tournament_id: str, config: TournamentConfig) -> int:
    """The seed a resumed tournament deals this session's rounds from: a ``daily``
    one's new epoch (:func:`begin_epoch`, its seed from
    :func:`~tournaments.seeds.epoch_seed`), else its one epoch's."""
    known = epochs(store, tournament_id)
    if config.tournament.format is not Format.DAILY:
        return known[-1].seed.value
    number = (known[-1].epoch if known else 0) + 1
    seed = epoch_seed(config.tournament.given_seed, number, daily=True)
    begin_epoch(store, tournament_id, seed)
    return seed.value


def round_epochs(store: TournamentStore, match_id: int) -> dict[int, int]:
    """Each stored round of a table match (by number) and the epoch it was dealt in."""
    rows = store.connection.execute(
        "SELECT round_no, epoch FROM rounds WHERE table_match_id = ? ORDER BY round_no",
        (match_id,),
    )
    return {int(round_no): int(epoch) for round_no, epoch in rows}


def seeds_document(store: TournamentStore, tournament_id: str) -> dict[str, Any]:
    """The published seeds: ``verifiable`` (every epoch's seed has 128 bits or more)
    and each epoch's commitment, its seed once revealed (None before)."""
    known = epochs(store, tournament_id)
    return {
        "verifiable": bool(known) and all(epoch.verifiable for epoch in known),
        "epochs": [epoch.public() for epoch in known],
    }
