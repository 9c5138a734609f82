"""The heuristic agent is the baseline for language models: it must beat the simple bots.

Deterministic (fixed seeds), so a change that weakens the heuristic fails here.
"""

import pytest

from arena.agents import create_agent
from arena.table import Table, TableSettings, play_match


async def average_score(hero: str, opponents: str, rounds_per_seat: int) -> float:
    """The hero's average score per round, playing once from each seat."""
    total = 0
    for seat in range(3):
        kinds = [opponents] * 3
        kinds[seat] = hero
        agents = [create_agent(k, f"{k}{i}", seed=seat * 10 + i) for i, k in enumerate(kinds)]
        table = Table(agents, settings=TableSettings(pace_s=0))
        summary = await play_match(table, rounds=rounds_per_seat, seed=seat)
        total += summary.totals[f"{hero}{seat}"]
    return total / (3 * rounds_per_seat)


@pytest.mark.parametrize(
    ("hero", "opponents"), [("heuristic", "random"), ("heuristic", "greedy"), ("greedy", "random")]
)
async def test_the_stronger_agent_wins_on_average(hero: str, opponents: str) -> None:
    assert await average_score(hero, opponents, rounds_per_seat=60) > 0
