"""What a module's code names, for the tests that keep Dou Dizhu's words out of the code
that serves every game: one walk of the syntax tree; which strings are prose (and left
out) each test says."""

from __future__ import annotations

import ast
from collections.abc import Collection, Iterator

__all__ = ["code_words", "docstrings", "standalone_strings"]


def docstrings(tree: ast.AST) -> set[int]:
    """The ids of the module's, classes' and functions' docstrings."""
    return {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }


def standalone_strings(tree: ast.AST) -> set[int]:
    """The ids of every string standing alone as a statement: docstrings, and the docs
    written under an attribute or a constant."""
    return {
        id(statement.value)
        for node in ast.walk(tree)
        for field in ("body", "orelse", "finalbody")
        if isinstance(statements := getattr(node, field, None), list)
        for statement in statements
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
    }


def code_words(
    tree: ast.AST, *, strings: bool = False, prose: Collection[int] = ()
) -> Iterator[tuple[int, str]]:
    """(line, word) for every name the code gives or reads: variables, attributes,
    functions and classes, arguments and keywords, imported names and modules; with
    ``strings``, also every string literal but those whose id is in ``prose``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            yield node.lineno, node.id
        elif isinstance(node, ast.Attribute):
            yield node.lineno, node.attr
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield node.lineno, node.name
        elif isinstance(node, ast.arg):
            yield node.lineno, node.arg
        elif isinstance(node, ast.keyword) and node.arg is not None:
            yield node.value.lineno, node.arg
        elif isinstance(node, ast.alias):
            yield node.lineno, node.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.lineno, node.module
        elif (
            strings
            and isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and id(node) not in prose
        ):
            yield node.lineno, node.value
