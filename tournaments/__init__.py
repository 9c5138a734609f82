"""Tournaments: many agents, tables of three, a live leaderboard, and nothing lost.

Built in steps (issue 12). Here: :mod:`tournaments.formats` (how long a table match
runs, and who places first), :mod:`tournaments.schedule` (round robin over triples,
Swiss by rating, stage by stage), :mod:`tournaments.config` (the tournament file),
:mod:`tournaments.ratings` (openskill, one landlord against two farmers),
:mod:`tournaments.leaderboard` (every agent's figures, ranked by points per round),
:mod:`tournaments.store` (SQLite: one transaction per round) and
:mod:`tournaments.publish` (the retained leaderboard over MQTT). The runner and the
``arena tournament`` commands follow. Verifiable seeds (issue 13):
:mod:`tournaments.seeds` (a seed's text, commitment and a daily's epoch seeds),
:mod:`tournaments.epochs` (committed and revealed in the store),
:mod:`tournaments.export` (the file a third party checks) and :mod:`tournaments.verify`
(``arena tournament verify``).
"""

__all__: list[str] = []
