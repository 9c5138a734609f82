"""Dependencies flow one way, ``protocol`` ← ``arena`` ← ``gifts``, ``tournaments``; the
one way up is the command line's, and only lazily.

``arena gift`` and ``arena tournament`` are commands of ``arena``, and ``arena play
--gifts`` takes gifts, so the command line (``arena/cli.py`` and the command modules
under ``arena/commands/``) may import ``gifts`` and ``tournaments``: inside the function
that runs the command (every other command starts without them), or under ``if
TYPE_CHECKING:`` for a type. No other module of ``arena`` imports them at all.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ABOVE_THE_ARENA = ("gifts", "tournaments")


def is_command_line(relative: str) -> bool:
    """Whether a file of ``arena/`` is the command line's."""
    return relative == "arena/cli.py" or relative.startswith("arena/commands/")


def imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    """The modules an import statement names (a relative import names none of ours)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    return [node.module] if node.level == 0 and node.module else []


def imports_above_the_arena(tree: ast.Module) -> Iterator[tuple[int, str, str]]:
    """Each import of ``gifts`` or ``tournaments`` in a module: its line, the module
    imported, and where ("module level", "TYPE_CHECKING" or "in a function")."""

    def visit(node: ast.AST, where: str) -> Iterator[tuple[int, str, str]]:
        for child in ast.iter_child_nodes(node):
            inner = where
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
                inner = "in a function"
            elif isinstance(child, ast.If) and where == "module level":
                test = child.test
                name = test.id if isinstance(test, ast.Name) else getattr(test, "attr", "")
                if name == "TYPE_CHECKING":
                    yield from visit_body(child.body, "TYPE_CHECKING")
                    yield from visit_body(child.orelse, where)
                    continue
            if isinstance(child, ast.Import | ast.ImportFrom):
                for name in imported(child):
                    if name.split(".")[0] in ABOVE_THE_ARENA:
                        yield child.lineno, name, where
            yield from visit(child, inner)

    def visit_body(body: list[ast.stmt], where: str) -> Iterator[tuple[int, str, str]]:
        holder = ast.Module(body=body, type_ignores=[])
        yield from visit(holder, where)

    yield from visit(tree, "module level")


def test_only_the_command_line_imports_gifts_and_tournaments_and_only_lazily() -> None:
    offenders = []
    seen_lazily = set()
    for path in sorted((ROOT / "arena").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        for line, module, where in imports_above_the_arena(tree):
            if is_command_line(relative) and where != "module level":
                seen_lazily.add(relative)
                continue
            offenders.append(f"{relative}:{line}: {module} ({where})")
    assert offenders == []
    # the walk sees the command line's lazy imports, wherever they moved to
    assert {"arena/commands/parser.py", "arena/commands/play_gifts.py"} <= seen_lazily


def test_the_command_line_loads_gifts_and_tournaments_only_for_their_commands() -> None:
    """Importing the entry point and every command module loads neither package."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import arena.cli, arena.commands\n"
        "for found in pkgutil.iter_modules(arena.commands.__path__):\n"
        "    importlib.import_module('arena.commands.' + found.name)\n"
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {ABOVE_THE_ARENA!r}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"


GIFT_SEAM: tuple[str, ...] = (
    "arena/table/safe_point.py",
    "arena/table/match.py",
    "arena/table/records.py",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "gifts").rglob("*.py")),
)
"""Modules that serve every game's gifts, rounds and records (issue 26)."""
GAME_WORDS = ("landlord", "farmer", "bidder", "call_score", "spring", "rocket", "bomb")
OLD_NAMES = frozenset({"landlord_policy", "rotate_landlord", "rotate_bidder"})
"""Dou Dizhu's options by the names callers used before the seam: accepted, passed on."""


def names_in(tree: ast.Module) -> Iterator[tuple[int, str]]:
    """Each name the code gives or reads (not its docs): variables, attributes,
    arguments, functions and classes."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, ast.arg):
            yield node.lineno, node.arg
        elif isinstance(node, ast.keyword) and node.arg is not None:
            yield node.value.lineno, node.arg
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.lineno, node.name


def test_the_gift_seam_names_no_game_and_counts_no_seats() -> None:
    """Gifts, safe points, match plans and records serve any game: they import no game
    by name, assume no three seats and name no Dou Dizhu term in their code."""
    offenders = []
    for relative in GIFT_SEAM:
        text = (ROOT / relative).read_text(encoding="utf-8")
        tree = ast.parse(text, filename=relative)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for module in imported(node):
                    if module.startswith("arena.games.") and module.split(".")[2] not in (
                        "base",
                        "registry",
                    ):
                        offenders.append(f"{relative}:{node.lineno}: imports {module}")
        for number, line in enumerate(text.splitlines(), 1):
            if "range(3)" in line or "% 3" in line or "(0, 0, 0)" in line:
                offenders.append(f"{relative}:{number}: three seats: {line.strip()}")
        for number, name in names_in(tree):
            lowered = name.lower()
            if name not in OLD_NAMES and any(word in lowered for word in GAME_WORDS):
                offenders.append(f"{relative}:{number}: a Dou Dizhu name: {name}")
    assert offenders == []
