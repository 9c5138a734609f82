"""The roster the tournament tests share, as a tournament file's ``[[agents]]`` text."""

from __future__ import annotations

from typing import Final

AGENTS: Final = (("Ann", "greedy"), ("Bob", "heuristic"), ("Cid", "random"), ("Dee", "greedy"))
"""Ann, Bob, Cid and Dee: three kinds of scripted agent, one of them twice."""


def roster(count: int = 4) -> str:
    """The ``[[agents]]`` tables of the first ``count`` agents of :data:`AGENTS`."""
    return "".join(
        f'\n[[agents]]\nname = "{name}"\ntype = "{kind}"\n' for name, kind in AGENTS[:count]
    )
