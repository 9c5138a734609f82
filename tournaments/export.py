"""A tournament's rounds as one file a third party can check: ``export ID --replay``.

The file is a replay (``arena replay FILE`` re-checks every move) whose first line,
``{"kind": "tournament", ...}``, says what the rounds are held to:

- ``tournament``, ``name``, ``status``;
- ``settings``: the ``format``, ``landlord_policy``, ``duplicate`` mode and
  ``standin_rounds`` of the config's ``tournament`` section (what says how many rounds
  and seatings there must be, and how a best of five counts its round wins; never its
  ``seed``, which a daily derives every epoch's seed from);
- ``partial``: true when the file holds only some of the tournament's table matches
  (``export --table``): it cannot show that none is missing;
- ``seeds``: ``verifiable`` and the ``epochs``, each with its ``commitment``, its
  ``seed`` once revealed (None while secret), ``verifiable``, ``committed_at`` and
  ``revealed_at`` (:func:`tournaments.epochs.seeds_document`);
- ``tables``: each table match exported, with its ``stage``, ``players``,
  ``deal_table`` (:func:`tournaments.deals.deal_table`: the id its rounds' seeds derive
  from), ``status`` (running, finished) and ``rounds``: ``[round number, epoch]`` for
  each stored round.

Then every stored round's lines, table after table, as ``arena replay`` reads them.
``arena tournament verify --from-file FILE`` checks such a file
(:mod:`tournaments.verify`); ``verify ID`` checks the same lines built from the store.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import orjson

from tournaments.deals import Duplicate, deal_table
from tournaments.epochs import round_epochs, seeds_document
from tournaments.forfeits import stored_standin_rounds
from tournaments.formats import Format, LandlordPolicy

if TYPE_CHECKING:
    from tournaments.store import MatchRow, TournamentRow, TournamentStore

__all__ = ["export_lines", "settings", "tournament_line"]


def tournament_line(
    store: TournamentStore, row: TournamentRow, status: str, matches: Sequence[MatchRow]
) -> dict[str, Any]:
    """The export's first line: the tournament, its published seeds, and the epoch of
    every round of ``matches``."""
    every = {match.id for match in store.table_matches(row.id)}
    return {
        "kind": "tournament",
        "tournament": row.id,
        "name": row.name,
        "status": status,
        "settings": settings(row.config),
        "partial": not every <= {match.id for match in matches},
        "seeds": seeds_document(store, row.id),
        "tables": [
            {
                "table": match.table_id,
                "deal_table": deal_table(match.table_id),
                "stage": match.stage,
                "players": list(match.players),
                "status": match.status,
                "rounds": [
                    [number, epoch] for number, epoch in round_epochs(store, match.id).items()
                ],
            }
            for match in matches
        ],
    }


def settings(config: dict[str, Any]) -> dict[str, str]:
    """What a stored config says the rounds are held to: its format, landlord policy,
    duplicate mode and stand-in rounds' rule (the defaults for a key it lacks; ``count``
    for a tournament stored before that rule existed); nothing else (not its seed)."""
    given = config.get("tournament", {})
    return {
        "format": str(given.get("format", Format.STANDARD.value)),
        "landlord_policy": str(given.get("landlord_policy", LandlordPolicy.BID.value)),
        "duplicate": str(given.get("duplicate", Duplicate.OFF.value)),
        "standin_rounds": str(stored_standin_rounds(config)),
    }


def export_lines(
    store: TournamentStore, row: TournamentRow, status: str, matches: Sequence[MatchRow]
) -> Iterator[bytes]:
    """The tournament line, then every stored line of ``matches``, in order."""
    yield orjson.dumps(tournament_line(store, row, status, matches)) + b"\n"
    for match in matches:
        yield from store.replay_lines(match.id)
