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
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from code_words import code_words, docstrings

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


# ─── the agents serve any game (issue 26) ──────────────────────────────────────────────

NEUTRAL_AGENT_CODE = (
    "arena/agents",
    "arena/testing",
    "arena/replay_decisions.py",
    "arena/commands/agent.py",
    "arena/gc_policy.py",
)
"""Code that serves every game's agents: it reaches a game through the registry only."""

GAME_WORDS = re.compile(
    r"landlord|farmer|call_?score|spring|bottom|\bbids?\b|doubl|ddz|dou ?dizhu", re.IGNORECASE
)
"""Dou Dizhu's terms, which code serving every game must not name."""

PACKAGE_NAMES = frozenset({"ddz_arena.agents", "ddz-arena", "ddz-arena/"})
"""The arena's own distribution and entry-point group, named for Dou Dizhu but not of it."""


def neutral_agent_files() -> list[Path]:
    found: list[Path] = []
    for name in NEUTRAL_AGENT_CODE:
        path = ROOT / name
        found += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    return found


def test_the_agents_code_imports_no_game_and_names_no_dou_dizhu_term() -> None:
    """The agents' interface, transports, model seats, registry and check serve any game:
    they import a game only through the registry, and their code (not their prose)
    names none of Dou Dizhu's terms; a game's own agents live in its package."""
    offenders = []
    for path in neutral_agent_files():
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name in imported(node):
                    if name.startswith("arena.games.") and name not in (
                        "arena.games.base",
                        "arena.games.registry",
                    ):
                        offenders.append(f"{relative}:{node.lineno}: imports {name}")
        words = code_words(tree, strings=True, prose=docstrings(tree))
        for line, word in words:
            if word not in PACKAGE_NAMES and GAME_WORDS.search(word):
                offenders.append(f"{relative}:{line}: {word[:60]!r}")
    assert offenders == []


# ─── gifts, safe points, match plans and records serve any game (issue 26) ───────────────

GIFT_SEAM: tuple[str, ...] = (
    "arena/table/safe_point.py",
    "arena/table/match.py",
    "arena/table/records.py",
    *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "gifts").rglob("*.py")),
)
"""Modules that serve every game's gifts, rounds and records (issue 26)."""
GIFT_SEAM_WORDS = ("landlord", "farmer", "bidder", "call_score", "spring", "rocket", "bomb")
OLD_NAMES = frozenset({"landlord_policy", "rotate_landlord", "rotate_bidder"})
"""Dou Dizhu's options by the names callers used before the seam: accepted, passed on."""


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
        for number, name in code_words(tree):
            lowered = name.lower()
            if name not in OLD_NAMES and any(word in lowered for word in GIFT_SEAM_WORDS):
                offenders.append(f"{relative}:{number}: a Dou Dizhu name: {name}")
    assert offenders == []


DOU_DIZHU_WORDS = re.compile(
    r"landlord|farmer|call_score|call-score|spring|bottom_cards|bottom-cards|bottom cards"
    r"|doubl|bomb|rocket|range\(3\)|% 3|(?<!Generator)\[None, None, None\]"
    r"|叫分|(?<!斗)地主|农民|底牌|加倍|翻倍",
    re.IGNORECASE,
)
"""Dou Dizhu's terms and three-seat assumptions, which every game's code must not have
(斗地主 in the arena's own name aside)."""
EXAMPLE = re.compile(r"\(Dou Dizhu[^)]*\)")
"""A comment's or docstring's example of what a game does, in parentheses, may name them."""


def test_the_overlay_and_its_server_know_no_game() -> None:
    """Issue 26: the arena server, its pages (the overlay's shell, the controls) and the
    gift lines of the terminal name none of Dou Dizhu's terms and assume no three seats;
    Dou Dizhu's overlay is its package's (arena/games/ddz/overlay/). Their Python never
    imports a game but through the registry."""
    files = [
        *sorted((ROOT / "arena" / "server").rglob("*.py")),
        *sorted((ROOT / "arena" / "server" / "static").iterdir()),
        ROOT / "arena" / "sinks" / "console_gifts.py",
        ROOT / "arena" / "sinks" / "spectator.py",
        ROOT / "arena" / "sinks" / "public_state.py",
    ]
    found = []
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        text = path.read_text(encoding="utf-8")
        # an example blanked out, its lines kept, so that what is left is found by line
        plain = EXAMPLE.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
        for number, line in enumerate(plain.splitlines(), 1):
            if DOU_DIZHU_WORDS.search(line):
                found.append(f"{relative}:{number}: {line.strip()}")
        if path.suffix == ".py":
            for node in ast.walk(ast.parse(text, filename=relative)):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    found += [f"{relative}: imports {m}" for m in imported(node) if ".ddz" in m]
    assert found == []


# ─── Tractor's engine is pure (issue 28) ─────────────────────────────────────────────────

TRACTOR_ENGINE_MAY_IMPORT = (
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "random",
    "typing",
    "pydantic",
    "protocol.cards",
    "arena.errors",
    "arena.games.base",
    "arena.games.tractor",
)
"""What Tractor's engine may import: the standard library's data tools, pydantic for its
rule settings, the card notation, the arena's errors and the game base; never the
table, the server, asyncio, logging or I/O."""


def test_the_tractor_engine_imports_nothing_that_knows_the_table() -> None:
    offenders = []
    for path in sorted((ROOT / "arena" / "games" / "tractor" / "engine").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name in imported(node):
                    if not any(
                        name == allowed or name.startswith(allowed + ".")
                        for allowed in TRACTOR_ENGINE_MAY_IMPORT
                    ):
                        offenders.append(f"{relative}:{node.lineno}: imports {name}")
    assert offenders == []


def test_importing_the_tractor_engine_loads_no_table_server_or_asyncio() -> None:
    code = (
        "import sys, arena.games.tractor.engine\n"
        "print(sorted(m for m in sys.modules if m == 'asyncio' or m.startswith("
        "('arena.table', 'arena.server', 'arena.sinks', 'asyncio.'))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]"
