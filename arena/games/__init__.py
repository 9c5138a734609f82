"""The games the arena plays: one package per game (``arena/games/<name>/``).

Each package brings a pure rules engine and a ``game`` module describing it to the arena
(:class:`arena.games.base.Game`). Packages load on demand, so importing one game's engine
never loads another (nor this package's registry of them).
"""
