"""One error tree: every error the arena and its packages raise on purpose derives from
``ArenaError`` (so a command says it in one line), and ``arena/errors.py`` lists each."""

from __future__ import annotations

import importlib
import inspect
from pathlib import Path

import arena
import gifts
import tournaments
from arena.errors import ArenaError

ERRORS_DOC = inspect.getdoc(importlib.import_module("arena.errors")) or ""


def raised_on_purpose() -> dict[str, type[BaseException]]:
    """Every public exception class defined in arena/, gifts/ and tournaments/ (every
    module file, namespace packages such as ``arena.sinks`` included)."""
    found: dict[str, type[BaseException]] = {}
    for package in (arena, gifts, tournaments):
        root = Path(package.__file__ or "").parent
        for file in sorted(root.rglob("*.py")):
            parts = file.relative_to(root.parent).with_suffix("").parts
            if parts[-1] in ("__main__", "__init__"):
                parts = parts[:-1] if parts[-1] == "__init__" else ()
            if not parts:
                continue
            module = importlib.import_module(".".join(parts))
            for name, value in vars(module).items():
                if (
                    inspect.isclass(value)
                    and issubclass(value, BaseException)
                    and value.__module__ == module.__name__
                    and not name.startswith("_")
                ):
                    found[f"{module.__name__}.{name}"] = value
    return found


# Exceptions used as signals inside one module's flow, never raised to a caller.
INTERNAL = {
    "arena.agents.llm.faults.ProviderFault",
    "arena.agents.llm.faults.GaveUp",
    "arena.agents.llm.seat.NotAnAnswer",
    "tournaments.session.SessionEnd",
    "arena.replay_round.Mismatch",
}


def test_every_error_raised_on_purpose_is_an_arena_error() -> None:
    errors = raised_on_purpose()
    assert "tournaments.store.StoreError" in errors  # the walk sees the packages
    outside = sorted(
        name
        for name, cls in errors.items()
        if name not in INTERNAL and not issubclass(cls, ArenaError)
    )
    assert outside == []


def test_the_errors_module_lists_every_arena_error() -> None:
    errors = raised_on_purpose()
    missing = sorted(
        name
        for name, cls in errors.items()
        if issubclass(cls, ArenaError) and cls.__name__ not in ERRORS_DOC
    )
    assert missing == []
