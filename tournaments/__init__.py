"""Tournaments: many agents, tables of the game's seats, a live leaderboard, nothing lost.

:mod:`tournaments.config` (the tournament file, its game), :mod:`tournaments.formats`
(how long a table match runs, and who places first), :mod:`tournaments.schedule` (round
robin over the groups of a table's size, Swiss by rating, stage by stage),
:mod:`tournaments.runner` (playing it, with worker processes in
:mod:`tournaments.workers`), :mod:`tournaments.ratings` (openskill, a round's sides as
the game gives them), :mod:`tournaments.forfeits` (a round a seat did not
play itself), :mod:`tournaments.leaderboard` (every agent's figures, ranked by points per
round), :mod:`tournaments.store` (SQLite: one transaction per round),
:mod:`tournaments.publish` (the retained leaderboard over MQTT) and the ``arena
tournament`` commands (:mod:`tournaments.cli`). Verifiable seeds: :mod:`tournaments.seeds`
(a seed's text, commitment and a daily's epoch seeds), :mod:`tournaments.epochs`
(committed and revealed in the store), :mod:`tournaments.export` (the file a third party
checks) and :mod:`tournaments.verify` (``arena tournament verify``). docs/tournaments.md
tells an organiser the whole of it.
"""

__all__: list[str] = []
