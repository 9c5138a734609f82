"""A mistake on the command line, and the parser that raises it instead of exiting.

Shared by every command: ``arena.cli.main`` says a :class:`UsageError` in one line
(exit status 2), in the ``--log-format`` asked for, rather than argparse's usage text.
"""

from __future__ import annotations

import argparse
from typing import NoReturn

from arena.errors import ArenaError

__all__ = ["CommandParser", "UsageError"]


class UsageError(ArenaError):
    """A mistake on the command line (a flag, its value, a path); main prints one line."""


class CommandParser(argparse.ArgumentParser):
    """Reports a usage mistake as one line through ``arena.cli.main``, not usage text first."""

    def error(self, message: str) -> NoReturn:
        """Raise instead of printing the usage and exiting (argparse lets us override it)."""
        raise UsageError(f"{message} (see {self.prog} --help)")
