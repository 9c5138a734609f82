"""斗地主 (Dou Dizhu) as an arena game: three seats, one landlord against two farmers.

``engine`` holds the pure rules; ``game`` describes the game to the arena (the
:class:`~arena.games.base.Game` the table, agents, replays, gifts and tournaments read).
"""
