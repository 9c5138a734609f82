"""Committed seeds (issue 13): the seed's text and commitment, a daily's epoch seeds, the
store's seeds table, and a version-2 file migrated to it."""

from __future__ import annotations

import hashlib
import sqlite3
import tomllib
from pathlib import Path

import pytest

from arena.table.match import derive_seed
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.epochs import begin_epoch, epochs, seeds_document
from tournaments.seeds import TournamentSeed, epoch_seed, fresh_seed, parse_seed
from tournaments.store import MIGRATIONS, TournamentStore

HEX = "0x" + "0123456789ABCDEF" * 2


def config(seed: int | str | None = None, fmt: str = "quick") -> TournamentConfig:
    tournament: dict[str, object] = {"name": "Cup", "format": fmt}
    if seed is not None:
        tournament["seed"] = seed
    return parse_tournament_config(
        {"tournament": tournament, "agents": [{"name": n, "type": "greedy"} for n in "ABC"]}
    )


def test_a_seed_has_a_canonical_text_and_its_sha256_is_the_commitment() -> None:
    small = parse_seed(42)
    assert (small.text, small.value, small.verifiable) == ("42", 42, False)
    assert small.commitment == hashlib.sha256(b"42").hexdigest()
    big = parse_seed(HEX)
    assert big.text == HEX.lower()  # lower case, leading zero kept
    assert big.value == int(HEX, 16)
    assert (big.bits, big.verifiable) == (128, True)
    assert parse_seed("0x" + "ab" * 15).verifiable is False  # 120 bits
    assert parse_seed(big.text) == big  # read back from a store, the same seed
    fresh = fresh_seed()
    assert fresh.verifiable
    assert len(fresh.text) == 34
    assert fresh != fresh_seed()


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("0xZZ", "is not a seed"),
        ("0x", "is not a seed"),
        (-1, "out of range"),
        (2**53, "out of range"),
        (True, "is not a seed"),
        ("0x" + "1" * 129, "at most 128"),
    ],
)
def test_a_bad_seed_says_what_is_wrong(given: int | str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        parse_seed(given)


def test_a_small_seed_deals_as_it_always_did() -> None:
    """A round's seed derives from the seed's value: 42 as before commitments."""
    seed = parse_seed(42)
    assert derive_seed(seed.value, "s1t1", 3) == derive_seed(42, "s1t1", 3)


def test_a_dailys_epochs_derive_from_its_file_seed() -> None:
    given = parse_seed(HEX)
    first, second = (epoch_seed(given, n, daily=True) for n in (1, 2))
    assert first != second
    assert given not in (first, second)
    assert first.verifiable
    assert second.verifiable
    assert len(second.text) == 66
    assert epoch_seed(given, 2, daily=True) == second  # the same file, the same days
    assert epoch_seed(given, 1, daily=False) == given  # one epoch: the file's seed itself
    small = parse_seed(5)
    assert epoch_seed(small, 7, daily=True) == small  # a test seed: sessions deal as one
    assert epoch_seed(None, 2, daily=True).verifiable  # none given: fresh every epoch
    with pytest.raises(ValueError, match="from 1"):
        epoch_seed(given, 0, daily=True)


def test_the_store_commits_epochs_and_reveals_them_when_over(tmp_path: Path) -> None:
    with TournamentStore(tmp_path / "t.db") as store:
        seed = parse_seed(HEX)
        tid = store.new_tournament("Cup", config(HEX), seed=seed)
        assert store.tournament(tid).seed == seed.value  # 128 bits: more than an INTEGER holds
        (published,) = seeds_document(store, tid)["epochs"]
        assert published["commitment"] == seed.commitment
        assert published["seed"] is None  # secret while it plays
        second = epoch_seed(seed, 2, daily=True)
        assert begin_epoch(store, tid, second) == 2
        first, now = seeds_document(store, tid)["epochs"]
        assert first["seed"] == seed.text
        assert first["revealed_at"] is not None
        assert now["seed"] is None
        assert now["commitment"] == second.commitment
        store.mark_tournament(tid, "finished")
        assert [e.revealed_at is not None for e in epochs(store, tid)] == [True, True]
        assert seeds_document(store, tid)["verifiable"] is True


def _as_version_2(path: Path) -> None:
    """Undo migration 3 on a file, leaving what an arena of schema version 2 wrote."""
    with sqlite3.connect(path) as db:
        db.executescript(
            "DROP TABLE seeds; ALTER TABLE rounds DROP COLUMN epoch;"
            " UPDATE schema_version SET version = 2;"
        )


def _schema(db: sqlite3.Connection) -> set[str]:
    return {row[0] for row in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL")}


def test_a_version_2_file_migrates_its_seed_to_epoch_1_not_verifiable(tmp_path: Path) -> None:
    import asyncio

    from tournaments.runner import run_tournament

    path = tmp_path / "old.db"
    with TournamentStore(path) as store:
        run = asyncio.run(run_tournament(store, config(23)))
        tid = run.tournament_id
    _as_version_2(path)
    reference = sqlite3.connect(":memory:")
    for script in MIGRATIONS[:2]:
        reference.executescript(script)
    with sqlite3.connect(path) as db:  # the file is exactly a version-2 store
        assert _schema(db) - {"CREATE TABLE schema_version (version INTEGER NOT NULL)"} == (
            _schema(reference)
        )

    with TournamentStore(path, create=False) as store:
        assert store.schema_version == 3
        (epoch,) = epochs(store, tid)
        assert epoch.seed == TournamentSeed("23")
        assert epoch.commitment == hashlib.sha256(b"23").hexdigest()
        assert epoch.verifiable is False
        assert epoch.revealed_at == store.tournament(tid).finished_at  # it had finished
        rounds = store.connection.execute("SELECT DISTINCT epoch FROM rounds").fetchall()
        assert rounds == [(1,)]
        assert store.tournament(tid).seed == 23


def test_a_daily_with_a_hex_seed_commits_its_derived_epoch_seeds(tmp_path: Path) -> None:
    import asyncio

    from tournaments.runner import run_tournament
    from tournaments.session import Session

    given = parse_seed(HEX)
    with TournamentStore(tmp_path / "daily.db") as store:
        first = asyncio.run(run_tournament(store, config(HEX, "daily"), session=Session(2)))
        tid = first.tournament_id
        asyncio.run(run_tournament(store, tournament_id=tid, session=Session(2)))
        stored = epochs(store, tid)
        assert [e.seed for e in stored] == [epoch_seed(given, n, daily=True) for n in (1, 2)]
        assert [e.revealed_at is not None for e in stored] == [True, False]
        dealt = store.connection.execute("SELECT round_no, seed, epoch FROM rounds ORDER BY 1")
        assert [(n, s, e) for n, s, e in dealt] == [
            (n, derive_seed(stored[e - 1].seed.value, "s1t1", n), e)
            for n, e in ((1, 1), (2, 1), (3, 2), (4, 2))
        ]


def test_the_example_configs_seed_is_a_placeholder_no_tournament_can_deal_from() -> None:
    """Whoever uncomments the example's seed must get an error, not a "verifiable" seed
    that everyone who read the example knows."""
    example = Path(__file__).resolve().parents[1] / "config" / "tournament.toml"
    (line,) = [
        text
        for text in example.read_text(encoding="utf-8").splitlines()
        if text.startswith("# seed =")
    ]
    uncommented = tomllib.loads(line.removeprefix("# "))["seed"]
    with pytest.raises(ValueError, match="is not a seed"):
        parse_seed(uncommented)
    with pytest.raises(ValueError, match="is not a seed"):
        config(uncommented)
    assert "secrets.randbits(128)" in line
