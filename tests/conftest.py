"""Shared test setup: the helper module is importable, logging and the secrets to mask
are reset per test, and a self-signed certificate for the TLS tests (HTTP seats, MQTT)."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog

from arena.logs import reset_logging
from arena.secrets import forget_secrets

TESTS = Path(__file__).resolve().parent
if str(TESTS) not in sys.path:  # config files name test agents as "agents_for_tests:Class"
    sys.path.insert(0, str(TESTS))


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    """``arena.cli.main`` configures logging for the process (a root handler and level,
    structlog routed into it): undo that, any bound context and the secrets registered
    (arena.secrets), after every test."""
    yield
    reset_logging()
    structlog.contextvars.clear_contextvars()
    forget_secrets()  # a key one test's seat registered is no secret of the next test


@pytest.fixture
def user_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh current folder for a user's own modules (``mybots.py``), as ``arena``
    sees it from the installed script: not on ``sys.path``. The modules imported from it
    are forgotten afterwards, and ``sys.path`` is restored."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", ".")])
    yield tmp_path
    for name, module in list(sys.modules.items()):
        places = [getattr(module, "__file__", None) or "", *getattr(module, "__path__", ())]
        if any(str(place).startswith(str(tmp_path)) for place in places):
            del sys.modules[name]


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 (made with the openssl command)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    command = (
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1"
        " -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1"
    )
    subprocess.run(
        [*command.split(), "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key
