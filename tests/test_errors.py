"""Every error the arena raises on purpose is an ArenaError (and the builtin it means)."""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from pathlib import Path

import pytest

from arena.errors import (
    AgentReplyError,
    ArenaError,
    IllegalActionError,
    InvalidCardError,
    SetupError,
)
from arena.games.ddz.engine import DECK, DealtCards, Round, Rules, card, cards_of
from protocol import CardNotationError

ARENA = Path(__file__).resolve().parents[1] / "arena"


def _playing_round() -> Round:
    """Seat 0 is landlord and leads (casual scoring has no doubling phase)."""
    return Round(Rules(scoring="casual"), seed=1, landlord=0, call_score=1)


@pytest.mark.parametrize(
    ("call", "error"),
    [
        (lambda: card("♠1"), InvalidCardError),
        (lambda: card(3), InvalidCardError),  # type: ignore[arg-type]
        (lambda: cards_of(["♠3", "♠3"]), InvalidCardError),
        (lambda: DealtCards.from_order(DECK[:53]), SetupError),
        (lambda: DealtCards.from_order([*DECK[:53], DECK[0]]), SetupError),
        (lambda: DealtCards.from_order(["♠1", *DECK[1:]]), InvalidCardError),
        (lambda: Round(seed=1, landlord=3), SetupError),
        (lambda: Round(seed=1, first_bidder=-1), SetupError),
        (lambda: Round(seed=1, call_score=2), SetupError),
        (lambda: _playing_round().swap_cards(0, "♠1", 1, "♠3"), InvalidCardError),
        (lambda: _playing_round().play(0, ["♠1"]), IllegalActionError),
    ],
    ids=[
        "card-not-canonical",
        "card-not-text",
        "cards-twice",
        "deal-53-cards",
        "deal-a-card-twice",
        "deal-bad-text",
        "round-landlord-no-seat",
        "round-first-bidder-no-seat",
        "round-call-score-without-landlord",
        "gift-hook-bad-card",
        "play-bad-card",
    ],
)
def test_each_deliberate_error_is_an_arena_error_and_a_value_error(
    call: Callable[[], object], error: type[ArenaError]
) -> None:
    with pytest.raises(error) as info:
        call()
    assert isinstance(info.value, ArenaError)
    assert isinstance(info.value, ValueError)


def test_a_card_error_is_still_the_protocols_notation_error() -> None:
    """Code that caught protocol.CardNotationError from card() keeps working."""
    with pytest.raises(CardNotationError, match="not a canonical card"):
        card("♠1")


def test_a_reply_fault_outside_the_categories_is_a_programming_error() -> None:
    with pytest.raises(TypeError, match="bogus"):
        AgentReplyError("bogus", "x")  # type: ignore[arg-type]


# Builtins the arena may raise itself: misuse by calling code, as Python would report it
# (a wrong type, an abstract method, a broken invariant), and control flow.
MISUSE = {"TypeError", "NotImplementedError", "AssertionError", "SystemExit", "ExceptionGroup"}
# Single sites that raise the builtin Python itself raises for the same misuse.
MISUSE_SITES = {
    ("arena/table/clock.py", "ManualClock.advance", "ValueError"),  # as time.sleep(-1) does
    # a module's __getattr__ (old import paths) must raise AttributeError for a name it
    # has not: hasattr, getattr's default and `from x import y` rely on it
    ("arena/agents/base.py", "default_game_export", "AttributeError"),
}


def _builtin_raises(tree: ast.AST) -> list[tuple[int, str, str]]:
    """(line, enclosing function, name) of each ``raise Builtin(...)`` outside a validator.

    A pydantic validator raises ValueError by design: pydantic turns it into a
    ValidationError, which the config loader reports as a ConfigError.
    """
    found: list[tuple[int, str, str]] = []

    def visit(node: ast.AST, where: str, in_validator: bool) -> None:
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            where = f"{where}.{node.name}" if where else node.name
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names = [ast.unparse(d) for d in node.decorator_list]
            in_validator = in_validator or any("validator" in n for n in names)
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            name = target.id if isinstance(target, ast.Name) else None
            builtin = getattr(builtins, name, None) if name else None
            is_error = isinstance(builtin, type) and issubclass(builtin, BaseException)
            if is_error and name not in MISUSE and not in_validator:
                found.append((node.lineno, where, str(name)))
        for child in ast.iter_child_nodes(node):
            visit(child, where, in_validator)

    visit(tree, "", False)
    return found


def test_the_arena_raises_no_bare_builtin_error_on_purpose() -> None:
    """A deliberate error is an ArenaError subclass, so a caller can catch them all."""
    offenders = [
        f"{path.relative_to(ARENA.parent).as_posix()}:{line}: {where}: raise {name}"
        for path in sorted(ARENA.rglob("*.py"))
        for line, where, name in _builtin_raises(ast.parse(path.read_text(encoding="utf-8")))
        if (path.relative_to(ARENA.parent).as_posix(), where, name) not in MISUSE_SITES
    ]
    assert offenders == []


def test_the_raise_scan_finds_a_bare_value_error() -> None:
    code = "class C:\n    def f(self):\n        raise ValueError('x')\n"
    assert _builtin_raises(ast.parse(code)) == [(3, "C.f", "ValueError")]
    validator = "@field_validator('a')\ndef f():\n    raise ValueError('x')\n"
    assert _builtin_raises(ast.parse(validator)) == []
