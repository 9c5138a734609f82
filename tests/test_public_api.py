"""Every package's public API is what its ``__all__`` says, sorted, and importable."""

import importlib

import pytest

PACKAGES = [
    "protocol",
    "arena",
    "arena.games.ddz.engine",
    "arena.games.tractor.engine",
    "arena.agents",
    "arena.table",
    "gifts",
    "tournaments",
]


@pytest.mark.parametrize("name", PACKAGES)
def test_all_names_exist(name: str) -> None:
    module = importlib.import_module(name)
    missing = [n for n in getattr(module, "__all__", []) if not hasattr(module, n)]
    assert missing == []


@pytest.mark.parametrize("name", PACKAGES)
def test_all_is_sorted_without_duplicates(name: str) -> None:
    exported = list(importlib.import_module(name).__all__)
    assert len(set(exported)) == len(exported)
    assert exported == sorted(exported, key=lambda n: (not n.isupper(), not n[:1].isupper(), n))


def test_the_engine_exports_the_names_others_depend_on() -> None:
    engine = importlib.import_module("arena.games.ddz.engine")
    for name in ("classify", "readings", "beats", "legal_moves", "Round", "Combo", "ComboType"):
        assert name in engine.__all__


def test_the_protocols_speed_internals_are_not_public() -> None:
    """trusted/trusted_fields skip validation through pydantic's slots: arena-only tools."""
    protocol = importlib.import_module("protocol")
    assert {"adopt_fields", "trusted", "trusted_fields"} & {
        *protocol.__all__,
        *vars(protocol),
    } == set()
    private = importlib.import_module("protocol._trusted")
    assert private.__all__ == ["adopt_fields", "trusted", "trusted_fields"]


def test_protocol_never_imports_arena() -> None:
    """Dependencies flow one way: protocol <- arena."""
    import subprocess
    import sys

    code = "import sys, protocol; print(any(m.startswith('arena') for m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
