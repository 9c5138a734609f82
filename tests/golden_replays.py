"""Dou Dizhu's golden replays: matches recorded before the game seam (issue 26).

Moving Dou Dizhu behind the game seam must not change how it plays: for the same seed and
config it must record the same replay, message for message and event for event (timing
aside). These configs were recorded on main before the move and are kept, compressed, in
``tests/data/golden/``; ``test_golden_replays.py`` records each again and compares.

Re-record them only for a change to Dou Dizhu's play that is meant (and say so in the
commit): ``python tests/golden_replays.py`` from the repository's root.
"""

from __future__ import annotations

import gzip
import sys
import tempfile
from pathlib import Path
from typing import NamedTuple

FOLDER = Path(__file__).resolve().parent / "data" / "golden"


class Golden(NamedTuple):
    """One recorded match: its config file's text and the command line's settings."""

    name: str
    config: str
    rounds: int
    tables: int
    seed: int


_FAULTY_SEATS = """
[[seats]]
name = "A"
type = "heuristic"
[[seats]]
name = "B"
type = "agents_for_tests:FaultyAgent"
[[seats]]
name = "C"
type = "greedy"
"""

_VARIED_SEATS = """
[[seats]]
name = "Rand"
type = "random"
[[seats]]
name = "Greedy"
type = "greedy"
[[seats]]
name = "Heur"
type = "heuristic"
"""

GOLDEN: tuple[Golden, ...] = (
    Golden("competition-single-round-2-tables", "", rounds=3, tables=2, seed=101),
    Golden(
        "casual-until-settled",
        '[rules]\nscoring = "casual"\nbidding = "until_settled"\n',
        rounds=3,
        tables=1,
        seed=202,
    ),
    Golden(
        "competition-grab-rotate",
        '[rules]\nbidding = "grab"\nfirst_bidder = "rotate"\n',
        rounds=3,
        tables=1,
        seed=303,
    ),
    Golden(
        "variants-passes-asked",
        "[rules]\nloose_wings = true\nfour_with_pair = true\nquadplex_as_bomb = true\n"
        "[table]\nauto_pass = false\n" + _VARIED_SEATS,
        rounds=3,
        tables=2,
        seed=404,
    ),
    Golden("faults-and-stand-ins", _FAULTY_SEATS, rounds=2, tables=1, seed=505),
)


def fixture(golden: Golden) -> Path:
    """Where the golden replay is kept (gzip: a round is about 70 kB of JSON lines)."""
    return FOLDER / f"{golden.name}.jsonl.gz"


def record(golden: Golden, target: Path) -> None:
    """Play the golden match with ``arena play`` and write its replay to ``target``."""
    from arena.cli import main

    config = target.with_suffix(".toml")
    config.write_text(golden.config, encoding="utf-8")
    code = main(
        [
            *("play", "--no-live", "--config", str(config)),
            *("--rounds", str(golden.rounds), "--tables", str(golden.tables)),
            *("--seed", str(golden.seed), "--record", str(target)),
        ]
    )
    if code != 0:
        raise RuntimeError(f"{golden.name}: arena play exited {code}")


def unpacked(golden: Golden, folder: Path) -> Path:
    """The golden replay as a plain file in ``folder`` (what ``arena replay`` reads)."""
    plain = folder / f"{golden.name}.golden.jsonl"
    plain.write_bytes(gzip.decompress(fixture(golden).read_bytes()))
    return plain


def write_all() -> None:
    """Record every golden match again and keep it (see the module)."""
    FOLDER.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        for golden in GOLDEN:
            target = Path(folder) / f"{golden.name}.jsonl"
            record(golden, target)
            fixture(golden).write_bytes(gzip.compress(target.read_bytes(), mtime=0))
            print(f"{fixture(golden)}: {target.stat().st_size:,} bytes of replay")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # agents_for_tests
    write_all()
