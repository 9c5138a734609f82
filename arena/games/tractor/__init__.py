"""Tractor (升级/拖拉机), the arena's second game. Only its rules engine so far
(:mod:`arena.games.tractor.engine`); the game is not yet registered with the arena."""
