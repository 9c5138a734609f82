"""Issue 26, whole: outside a game's package (``arena/games/<name>/``), the arena's code
(``arena``, ``protocol``, ``gifts``, ``tournaments``) names no Dou Dizhu term and assumes
no three seats. Prose (docstrings, comments) may give Dou Dizhu as an example; code may
not. The few names kept are listed below, each with its reason.

Narrower checks, with their own words, live beside their areas (``test_layering.py``,
``test_tournaments_game_neutral.py``); this one is the net under all of them.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from code_words import code_words, standalone_strings

ROOT = Path(__file__).resolve().parent.parent
PACKAGES: Final = ("arena", "protocol", "gifts", "tournaments")

DOU_DIZHU: Final = re.compile(
    r"landlord|farmer|call_?score|spring|bottom_?cards?|\bbids?\b|bidder|doubl|rocket"
    r"|dou_?dizhu|\bddz\b|range\(3\)",
    re.IGNORECASE,
)
PRODUCT: Final = re.compile(r"ddz-arena")
"""The arena's own name (its MQTT prefix, client ids, user agent): Dou Dizhu's by
history, not a term of the game."""

KEPT: Final = {
    # The default game's name, where a default must be named: the registry, an event
    # or envelope without ``game`` (recorded before there were games), the schema help.
    ("arena/games/registry.py", "ddz"),
    ("arena/events.py", "ddz"),
    ("protocol/events.py", "ddz"),
    ("arena/commands/schema.py", "ddz"),
    # A gift effect's name: the catalogue of effects is every game's; a game offers its
    # own (Game.gift_effects). A platform's gift called "Rocket" maps to one.
    ("protocol/events.py", "DOUBLE"),
    ("gifts/events.py", "DOUBLE"),
    ("gifts/queue.py", "DOUBLE"),
    ("gifts/sources/simulated.py", "DOUBLE"),
    ("gifts/sources/simulated.py", "Rocket"),
    # The old config key, moved by the game's migration; the alias callers imported.
    ("arena/config.py", "gift_doubles_in_rules"),
    # Dou Dizhu's round-plan options by the names callers used before the seam:
    # accepted, and handed to the game's plan as opaque options.
    ("arena/table/match.py", "landlord_policy"),
    ("arena/table/match.py", "rotate_bidder"),
    ("arena/table/match.py", "rotate_landlord"),
    ("arena/table/match.py", "bid"),
    # A tournament file's [tournament] landlord_policy (a published, stored key) and its
    # values, handed to the game's round plan as a match option.
    ("tournaments/formats.py", "LandlordPolicy"),
    ("tournaments/formats.py", "BID"),
    ("tournaments/formats.py", "bid"),
    ("tournaments/config.py", "LandlordPolicy"),
    ("tournaments/config.py", "BID"),
    ("tournaments/config.py", "landlord_policy"),
    ("tournaments/export.py", "LandlordPolicy"),
    ("tournaments/export.py", "BID"),
    ("tournaments/export.py", "landlord_policy"),
    ("tournaments/verify.py", "LandlordPolicy"),
    ("tournaments/verify.py", "landlord_policy"),
    ("tournaments/verify.py", ".landlord_policy"),
    # The side seat's stored and published key (ratings of every tournament stored).
    ("tournaments/ratings.py", "landlord_seat"),
}
"""(file, word) pairs kept in Dou Dizhu's words, and why."""


def neutral_files() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if not path.relative_to(ROOT).as_posix().startswith("arena/games/") or (
                path.parent == ROOT / "arena" / "games"
            ):
                yield path


def test_code_outside_a_games_package_names_no_dou_dizhu_term() -> None:
    found = []
    for path in neutral_files():
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        for line, word in code_words(tree, strings=True, prose=standalone_strings(tree)):
            match = DOU_DIZHU.search(PRODUCT.sub("", word))
            if match is None:
                continue
            kept = {(relative, word), (relative, match.group())}
            if not kept & KEPT:
                found.append(f"{relative}:{line}: {word[:70]!r}")
    assert found == []


def test_the_net_catches_what_it_is_for() -> None:
    """The check itself: a Dou Dizhu name in code is found, the same word in a
    docstring is not, and the arena's own name is no term of the game."""
    tree = ast.parse(
        '"""The landlord (Dou Dizhu) as an example."""\n'
        "def pick(seat):\n"
        '    """Bottom cards, in prose."""\n'
        "    landlord = seat % 3\n"
        '    return "ddz-arena/" + str(landlord)\n'
    )
    words = [
        word
        for _, word in code_words(tree, strings=True, prose=standalone_strings(tree))
        if DOU_DIZHU.search(PRODUCT.sub("", word))
    ]
    assert words == ["landlord", "landlord"]


def test_every_kept_name_is_still_there() -> None:
    """A kept name that is gone is taken off the list, so the list stays the truth."""
    used = set()
    for path in neutral_files():
        relative = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=relative)
        for _, word in code_words(tree, strings=True, prose=standalone_strings(tree)):
            used.add((relative, word))
            match = DOU_DIZHU.search(PRODUCT.sub("", word))
            if match is not None:
                used.add((relative, match.group()))
    assert sorted(KEPT - used) == []
