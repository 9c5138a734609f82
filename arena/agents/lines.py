"""Cutting a byte stream into lines, each at most so long: the framing of stdio agents.

A program's stdout is read in chunks and cut at ``\\n`` (a ``\\r\\n`` ending is accepted,
blank lines are skipped). A line longer than the cap is never held whole: once it passes
the cap, one :class:`LineTooLong` marker stands for it and the rest of it is dropped up
to the next newline. So a program that writes 10 MB without a newline costs the arena at
most the cap in memory, and the lines after it still arrive. Pure and synchronous: the
caller reads the stream and feeds the chunks.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LineSplitter", "LineTooLong"]


@dataclass(frozen=True, slots=True)
class LineTooLong:
    """Stands for a line longer than ``limit`` bytes, which was dropped."""

    limit: int


class LineSplitter:
    """Turns chunks of bytes into complete lines (without their line ending) and
    :class:`LineTooLong` markers, in the order they came."""

    def __init__(self, max_line_bytes: int) -> None:
        self.max_line_bytes = max_line_bytes
        """At least 1 (the agent's option check makes sure)."""
        self._partial = bytearray()
        self._dropping = False
        """Inside a line already reported as too long: drop bytes up to its newline."""

    @property
    def buffered(self) -> int:
        """Bytes held of a line not yet complete (never more than the cap and one)."""
        return len(self._partial)

    def feed(self, data: bytes) -> list[bytes | LineTooLong]:
        """The lines (and markers) that ``data`` completes."""
        out: list[bytes | LineTooLong] = []
        start = 0
        while (newline := data.find(b"\n", start)) >= 0:
            if self._dropping:
                self._dropping = False  # the overlong line ends here
            else:
                self._partial += data[start:newline]
                self._complete(out)
            start = newline + 1
        if not self._dropping and start < len(data):
            # one byte more than the cap may be a "\r" that the newline will strip
            if len(self._partial) + len(data) - start > self.max_line_bytes + 1:
                out.append(LineTooLong(self.max_line_bytes))
                self._partial = bytearray()
                self._dropping = True
            else:
                self._partial += data[start:]
        return out

    def end(self) -> list[bytes | LineTooLong]:
        """At the end of the stream: a last line that had no newline, if any."""
        out: list[bytes | LineTooLong] = []
        if not self._dropping:
            self._complete(out)
        self._dropping = False
        return out

    def _complete(self, out: list[bytes | LineTooLong]) -> None:
        line = bytes(self._partial)
        self._partial = bytearray()
        if line.endswith(b"\r"):
            line = line[:-1]
        if len(line) > self.max_line_bytes:
            out.append(LineTooLong(self.max_line_bytes))
        elif line.strip():
            out.append(line)
