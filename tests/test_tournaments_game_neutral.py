"""``tournaments/`` serves any game (issue 26): its code names no Dou Dizhu term and
imports nothing of Dou Dizhu's package. What differs between games it asks the game
(``arena.games.base.Game``: sides, leaderboard figures, forfeit stakes, stored results
and their checks). Docstrings and comments may say "for example Dou Dizhu's landlord";
identifiers (names, attributes, arguments, imports) may not.

The exceptions below are named one by one, each with why it stays; a new one fails."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Final

from code_words import code_words

ROOT = Path(__file__).resolve().parent.parent
DDZ_TERMS: Final = re.compile(
    r"landlord|farmer|call_?score|spring|bottom|doubl|bomb|rocket|bidder|ddz|dou_?dizhu",
    re.IGNORECASE,
)

ALLOWED: Final = {
    # ``[tournament] landlord_policy``: a key of every tournament file and of stored
    # configs and exports; its values are handed to the table's play_match, which
    # still names it so (arena/table is not tournaments').
    ("tournaments/formats.py", "LandlordPolicy"),
    ("tournaments/config.py", "LandlordPolicy"),
    ("tournaments/config.py", "landlord_policy"),
    ("tournaments/export.py", "LandlordPolicy"),
    ("tournaments/verify.py", "LandlordPolicy"),
    ("tournaments/verify.py", "landlord_policy"),
}
"""(file, identifier) pairs still named in Dou Dizhu's words, and why."""


def named_terms() -> set[tuple[str, str]]:
    """Each (file, identifier) of ``tournaments/`` that names a Dou Dizhu term."""
    found: set[tuple[str, str]] = set()
    for path in sorted((ROOT / "tournaments").rglob("*.py")):
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        found.update((relative, name) for _, name in code_words(tree) if DDZ_TERMS.search(name))
    return found


def test_tournaments_code_names_no_dou_dizhu_term_but_the_listed() -> None:
    new = sorted(named_terms() - ALLOWED)
    assert not new, (
        "tournaments/ names Dou Dizhu's terms in code; ask the game instead "
        f"(arena.games.base.Game): {new}"
    )


def test_the_listed_exceptions_are_still_there() -> None:
    """An exception gone from the code leaves the list too (it would hide a new one)."""
    assert sorted(ALLOWED - named_terms()) == []


def test_the_check_sees_an_identifier_and_not_a_docstring() -> None:
    code = 'def stake(landlord: int) -> int:\n    """The landlord\'s bomb."""\n    return 1\n'
    names = {name for _, name in code_words(ast.parse(code)) if DDZ_TERMS.search(name)}
    assert names == {"landlord"}
