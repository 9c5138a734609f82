"""Tournaments: formats, ratings, duplicate deals, storage (arrives with its issue)."""

__all__: list[str] = []
