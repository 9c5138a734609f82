"""No import cycles among the project's own modules (protocol, arena, gifts, tournaments).

Two modules that import each other cannot be read, tested or moved apart, and the
import order decides whether they load at all. The graph is built from the source with
``ast`` (nothing is imported), and each strongly connected component of more than one
module is a cycle to break: move what both need down into a module both can import.

The rule, edge by edge:

- **Every import counts, wherever it is**: at module level, under ``if TYPE_CHECKING:``,
  inside a function. A lazy import keeps a heavy package out of a command that does not
  use it, and a ``TYPE_CHECKING`` one keeps a type out of run time; both are fine for
  that, but neither is a way out of a cycle (every cycle this test first found hid in
  one of them: at module level there were none).
- **Importing a module runs its packages' ``__init__`` too**: importing
  ``arena.table.records`` from ``arena.sinks.base`` is an edge to ``arena.table`` as well,
  for the whole table package loads. From inside a package it is not: Python has begun
  the package's ``__init__`` before any module in it runs, so ``arena.table.table``
  importing ``arena.table.records`` by its full name depends on that module alone, and a
  package's ``__init__`` importing its own modules is normal.
- **A name taken from a package** (``from gifts.sources import Inbox``) is an edge to
  its ``__init__``, from inside the package too: the name must already be there, which
  holds only while the ``__init__`` happens to define it before it imports the module
  asking. ``from package import module`` is an edge to that module.
- Imports by a string (``importlib.import_module``, an agent's ``module:Class``) are
  not seen: they name users' code, chosen at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("protocol", "arena", "gifts", "tournaments")


@dataclass(frozen=True)
class Edge:
    """One import of a project module: where it is and what kind."""

    source: str
    target: str
    line: int
    kind: str  # "module level", "TYPE_CHECKING", "in a function"

    def __str__(self) -> str:
        return f"{self.source} -> {self.target} (line {self.line}, {self.kind})"


def module_files() -> dict[str, Path]:
    """Every module of the packages, by dotted name (a package by its ``__init__``)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(node: ast.AST, kind: str) -> Iterator[tuple[ast.Import | ast.ImportFrom, str]]:
    """Every import statement in ``node``, with the kind of place it is in."""
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node, kind
        return
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        kind = "in a function"
    if isinstance(node, ast.If) and _is_type_checking(node.test) and kind == "module level":
        for statement in node.body:
            yield from _imports(statement, "TYPE_CHECKING")
        for statement in node.orelse:
            yield from _imports(statement, kind)
        return
    for child in ast.iter_child_nodes(node):
        yield from _imports(child, kind)


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def edges_of(
    name: str, source: str, modules: Collection[str], *, is_package: bool = False
) -> list[Edge]:
    """The edges from module ``name`` (its ``source``; ``is_package``: an ``__init__``)
    to the ``modules`` it imports."""
    tree = ast.parse(source)
    found: list[Edge] = []

    def add(target: str, line: int, kind: str, *, named: bool) -> None:
        """``target`` and the packages above it that run first (see the module)."""
        parts = target.split(".")
        for depth in range(1, len(parts)):
            package = ".".join(parts[:depth])
            if package in modules and not _within(name, package):
                found.append(Edge(name, package, line, kind))
        if target != name and (named or not _within(name, target)):
            found.append(Edge(name, target, line, kind))

    for statement, kind in _imports(tree, "module level"):
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.name in modules:
                    add(alias.name, statement.lineno, kind, named=False)
            continue
        if statement.level:
            here = name.split(".") if is_package else name.split(".")[:-1]
            base = here[: len(here) - statement.level + 1]
            origin = ".".join([*base, *([statement.module] if statement.module else [])])
        else:
            origin = statement.module or ""
        for alias in statement.names:
            if f"{origin}.{alias.name}" in modules:
                add(f"{origin}.{alias.name}", statement.lineno, kind, named=False)
            elif origin in modules:
                add(origin, statement.lineno, kind, named=True)
    return list(dict.fromkeys(found))  # one edge per statement and target


def import_graph() -> dict[str, list[Edge]]:
    """Each module's edges to the project's modules."""
    files = module_files()
    graph = {}
    for name, path in files.items():
        source = path.read_text(encoding="utf-8")
        graph[name] = edges_of(name, source, files, is_package=path.name == "__init__.py")
    return graph


def cycles(graph: Mapping[str, list[Edge]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's), sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for edge in graph[module]:
            if edge.target not in index:
                visit(edge.target)
                low[module] = min(low[module], low[edge.target])
            elif edge.target in on_stack:
                low[module] = min(low[module], index[edge.target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def describe(graph: Mapping[str, list[Edge]], component: list[str]) -> str:
    """A cycle and every import inside it, for the failure message."""
    members = set(component)
    lines = [f"cycle of {len(component)}: {', '.join(component)}"]
    for module in component:
        lines += [f"    {edge}" for edge in graph[module] if edge.target in members]
    return "\n".join(lines)


def test_the_project_has_no_import_cycles() -> None:
    graph = import_graph()
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(describe(graph, c) for c in found)


def test_the_graph_sees_every_package_and_its_imports() -> None:
    graph = import_graph()
    assert {name.split(".")[0] for name in graph} == set(PACKAGES)
    targets = {edge.target for edge in graph["tournaments.runner"]}
    assert {"tournaments.store", "arena.table"} <= targets
    assert not any(edge.target.startswith(("arena", "gifts")) for edge in graph["protocol"])


def test_every_kind_of_import_is_an_edge() -> None:
    modules = {"a", "a.b", "a.b.c", "x", "x.y"}
    source = (
        "from typing import TYPE_CHECKING\n"
        "import x.y\n"
        "from . import d\n"
        "from .c import thing\n"
        "if TYPE_CHECKING:\n"
        "    from a import name\n"
        "def later():\n"
        "    from x import other\n"
    )
    edges = {(e.target, e.kind) for e in edges_of("a.b.e", source, modules)}
    assert edges == {
        ("x", "module level"),  # the package x runs before x.y
        ("x.y", "module level"),
        ("a.b", "module level"),  # the name d from a.b's __init__
        ("a.b.c", "module level"),  # a sibling by its name: not a.b's __init__
        ("a", "TYPE_CHECKING"),  # a name from a package: its __init__
        ("x", "in a function"),
    }
