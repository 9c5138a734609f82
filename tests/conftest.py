"""Shared test setup: the helper module is importable, and logging is reset per test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from arena.logs import reset_logging

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # config files name test agents as "agents_for_tests:Class"
    sys.path.insert(0, str(TESTS))


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    """``arena.cli.main`` configures logging for the process (a root handler and level,
    structlog routed into it): undo that, and any bound context, after every test."""
    yield
    reset_logging()
    structlog.contextvars.clear_contextvars()
