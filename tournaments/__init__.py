"""Tournaments: many agents, tables of three, a live leaderboard, and nothing lost.

Built in steps (issue 12). Here: :mod:`tournaments.formats` (how long a table match
runs, and who places first), :mod:`tournaments.schedule` (round robin over triples,
Swiss by rating, stage by stage), :mod:`tournaments.config` (the tournament file),
:mod:`tournaments.ratings` (openskill, one landlord against two farmers),
:mod:`tournaments.leaderboard` (every agent's figures, ranked by points per round),
:mod:`tournaments.store` (SQLite: one transaction per round) and
:mod:`tournaments.publish` (the retained leaderboard over MQTT). The runner and the
``arena tournament`` commands follow.
"""

__all__: list[str] = []
