"""The replay file of ``arena play --record``: opened before the match (a bad path costs
nothing), removed when the match never wrote to it, and said kept after an interruption."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from arena.commands.usage import UsageError
from arena.logs import say

if TYPE_CHECKING:  # imported when used: the parser is built for every command
    from arena.replay import ReplayWriter

__all__ = ["drop_if_empty", "open_replay", "say_replay_kept"]


def open_replay(path: Path) -> ReplayWriter:
    """The replay file, opened before the match starts so that a bad path costs nothing."""
    from arena.replay import ReplayWriter

    if path.is_dir():
        raise UsageError(f"--record {path}: is a folder; give a file name such as match.jsonl")
    folder = path.parent
    if not folder.is_dir():
        missing = "is a file, not a folder" if folder.exists() else "does not exist"
        raise UsageError(f"--record {path}: {folder} {missing}")
    try:
        return ReplayWriter(path)
    except OSError as exc:
        raise UsageError(f"--record {path}: cannot write: {exc.strerror or exc}") from exc


def drop_if_empty(path: Path | None) -> None:
    """Remove a replay file the match never wrote to, so a failed start leaves no litter."""
    if path is not None and path.is_file() and path.stat().st_size == 0:
        path.unlink()


def say_replay_kept(log_format: str, path: Path, tables: int) -> None:
    """After Ctrl-C or SIGTERM: the replay written so far is kept (``arena replay``
    reads it, and calls a round cut off incomplete), and whether a round was cut off."""
    if tables > 1:
        cut = "the rounds under way when it stopped are incomplete"
    elif _last_kind(path) == "round_end":
        cut = "every round in it is complete"
    else:
        cut = "its last round is incomplete"
    say(
        log_format,
        "replay_kept",
        f"the replay so far is in {path} ({cut})",
        path=str(path),
    )


def _last_kind(path: Path) -> str | None:
    """The ``kind`` of a replay's last whole line (read from its end: it may be large)."""
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - 65536))
            tail = file.read().rstrip(b"\n").rsplit(b"\n", 1)[-1]
        line = json.loads(tail)
    except (OSError, ValueError):
        return None
    return str(line.get("kind")) if isinstance(line, dict) else None
