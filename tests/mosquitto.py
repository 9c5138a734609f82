"""A real Mosquitto for the MQTT tests: the project's config/mosquitto.conf on free ports.

``Mosquitto`` copies the config with each ``listener`` line's port replaced by a free one
(the TCP listener's is ``port``, the websockets one's ``ws_port``), starts
``mosquitto -c`` on it, and waits until the TCP port accepts. It can be stopped and
started again on the same ports (the broker going away mid-match), and is always
stopped at the end of the test by the ``mosquitto`` fixture (import
``mosquitto_fixture`` into a test module to use it).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

__all__ = ["CONFIG", "Mosquitto", "free_port", "mosquitto_fixture"]

CONFIG = Path(__file__).resolve().parent.parent / "config" / "mosquitto.conf"
_LISTENER = re.compile(r"^listener\s+(\d+)(.*)$", re.MULTILINE)


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _binary() -> str | None:
    return shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").is_file() else None
    )


class Mosquitto:
    """One broker process on the project's config, its ports replaced by free ones."""

    def __init__(
        self,
        folder: Path,
        *,
        users: dict[str, str] | None = None,
        tls: tuple[Path, Path] | None = None,
        acl: Path | None = None,
    ) -> None:
        """``users`` (name: password): the TCP listener refuses anyone else, unless
        ``acl`` (a Mosquitto ACL file) says what anonymous clients and each user may
        read and write. ``tls`` (certificate, key): one more listener, MQTT over TLS on
        ``tls_port``."""
        binary = _binary()
        if binary is None:  # .ci/run installs it; a developer's machine may lack it
            pytest.fail(
                "mosquitto is not installed: the MQTT feed is tested against a real broker; "
                "install it (apt-get install mosquitto), as .ci/run does"
            )
        self.binary = binary
        self.port = free_port()
        self.ws_port = free_port()
        self.config = folder / "mosquitto.conf"
        self.log = folder / "mosquitto.log"
        ports = iter((self.port, self.ws_port))
        text = _LISTENER.sub(lambda m: f"listener {next(ports)}{m.group(2)}", CONFIG.read_text())
        if users:
            passwords = folder / "passwords"
            passwords.write_text("".join(f"{name}:{pw}\n" for name, pw in users.items()))
            passwords.chmod(0o600)
            subprocess.run(
                [
                    shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd",
                    "-U",
                    str(passwords),
                ],
                check=True,
            )
            anonymous = "true" if acl else "false"
            text = text.replace(  # the first listener's (TCP) anonymous access
                "allow_anonymous true",
                f"allow_anonymous {anonymous}\npassword_file {passwords}"
                + (f"\nacl_file {acl}" if acl else ""),
                1,
            )
        self.tls_port = free_port() if tls else 0
        if tls:
            cert, key = tls
            text += (
                f"\nlistener {self.tls_port} 127.0.0.1\nprotocol mqtt\n"
                f"certfile {cert}\nkeyfile {key}\nallow_anonymous true\n"
            )
        if (users or tls or acl) and os.geteuid() == 0:
            text += "\nuser root\n"  # else it reads the files as user mosquitto: no access
        self.config.write_text(text)
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """``mqtt://127.0.0.1:PORT``, as ``arena play --mqtt`` takes it."""
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self, *, within_s: float = 10.0) -> None:
        """Start the broker and wait until its TCP listener accepts a connection."""
        with self.log.open("ab") as log:
            self._process = subprocess.Popen(
                [self.binary, "-c", str(self.config)], stdout=log, stderr=subprocess.STDOUT
            )
        deadline = time.monotonic() + within_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"mosquitto exited at start: {self.log.read_text()}")
            with (
                contextlib.suppress(OSError),
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2),
            ):
                return
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"mosquitto did not accept within {within_s} s: {self.log.read_text()}")

    def stop(self) -> None:
        """Stop the broker (SIGTERM, then SIGKILL) and wait for it to be gone."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None


@pytest.fixture(name="mosquitto")
def mosquitto_fixture(tmp_path: Path) -> Iterator[Mosquitto]:
    """A running Mosquitto of the project's config on free ports, stopped afterwards."""
    broker = Mosquitto(tmp_path)
    broker.start()
    try:
        yield broker
    finally:
        broker.stop()
