"""The ``heuristic`` Tractor agent (placeholder until written: plays as ``random``)."""

from arena.games.tractor.agents.scripted import RandomAgent

__all__ = ["HeuristicAgent"]


class HeuristicAgent(RandomAgent):
    """Placeholder."""
