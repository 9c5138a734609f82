"""Shared test setup: the helper module is importable, and logging is reset per test."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # config files name test agents as "agents_for_tests:Class"
    sys.path.insert(0, str(TESTS))


@pytest.fixture(autouse=True)
def _reset_structlog() -> Iterator[None]:
    """``arena.cli.main`` configures structlog for the process, bound to the stderr of
    the moment (a capture stream that closes after the test): undo that every time."""
    yield
    structlog.reset_defaults()
    structlog.contextvars.clear_contextvars()
