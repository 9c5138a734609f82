"""Viewer gifts: queue, cooldowns and effects (arrives with its issue; see arena.engine hooks)."""

__all__: list[str] = []
