"""Masking: every secret the process knows, replaced with ``***`` in what it writes.

Which values are secrets, and where they come from, is :mod:`arena.secrets`' business; it
hands them here (:func:`mask_values`). This module only hides them, and is below
everything that writes (the logging too, which :mod:`arena.secrets` uses to warn).

Masking happens twice, so that a secret cannot leak by a path nobody thought of:

- **where outsiders' text comes in**: an agent's reply and its error bodies or stderr,
  a model's text and reasoning, a viewer's name and message. There it is masked before
  anything quotes or cuts it: a quote that cut a key in half (``'sk-proj-4f2a…'``) could
  not be recognised afterwards;
- **where the arena writes or sends**: every log line (both formats), the replay file
  (:class:`MaskedLines`), the MQTT feed, the overlay's feeds, the tournament store.
  There whole occurrences are masked, whatever path brought them.

An outsider's JSON may write a secret with escapes (``"\\u0073k-..."`` is ``"sk-..."``
once parsed), where no written form is found: what comes in is masked with
:func:`mask_incoming`, which also looks behind the escapes (:func:`unescaped`) and, when
a secret hides there, keeps the text with those escapes written out (the same JSON).

With no secret registered (scripted matches) masking is one test of an empty tuple; with
some, one substring search per secret (``str.__contains__``, fast) before any replace.
The few boundaries on a hot path (the replay writer, the MQTT sink, the store) mask a
batch of lines at once, never a line at a time.

A secret shorter than :data:`MIN_MASKED_LENGTH` characters is not masked: masking
``dev`` or ``1234`` would wreck every text that holds those letters, and so would show
what the secret is.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Any, Final
from urllib.parse import quote

__all__ = [
    "MASK",
    "MIN_MASKED_LENGTH",
    "MaskedLines",
    "mask",
    "mask_bytes",
    "mask_incoming",
    "mask_incoming_bytes",
    "mask_keys",
    "mask_values",
    "masked",
    "secrets_registered",
    "unescaped",
]

MASK: Final = "***"
"""What a secret becomes."""
_MASK_BYTES: Final = MASK.encode()
MIN_MASKED_LENGTH: Final = 8
"""Secrets shorter than this are not masked (see the module)."""

_KEY_SHAPED: Final = re.compile(r"\b(sk|key)-[A-Za-z0-9_*.\-]{4,}", re.IGNORECASE)

_forms: tuple[str, ...] = ()
"""Every way a registered secret may be written out (as it is, JSON-escaped, in a
Python repr, URL-quoted), longest first: what :func:`mask` looks for."""
_byte_forms: tuple[bytes, ...] = ()


def mask_values(secrets: Iterable[str]) -> None:
    """Mask exactly these values from now on, in any of their written forms (those
    shorter than :data:`MIN_MASKED_LENGTH` are not masked): :mod:`arena.secrets` hands
    every secret it knows after each change."""
    global _forms, _byte_forms
    forms: set[str] = set()
    for secret in secrets:
        forms |= _written_forms(secret)
    ordered = sorted((f for f in forms if len(f) >= MIN_MASKED_LENGTH), key=len, reverse=True)
    _forms = tuple(ordered)
    _byte_forms = tuple(f.encode("utf-8", "surrogatepass") for f in ordered)


def secrets_registered() -> bool:
    """Whether any secret is masked: a sink can skip its own masking when none is."""
    return bool(_forms)


def mask(text: str) -> str:
    """``text`` with every registered secret (in any of its written forms) as ``***``."""
    for form in _forms:
        if form in text:
            text = text.replace(form, MASK)
    return text


def mask_bytes(data: bytes) -> bytes:
    """:func:`mask` for UTF-8 bytes (a line as written or published)."""
    for form in _byte_forms:
        if form in data:
            data = data.replace(form, _MASK_BYTES)
    return data


def mask_incoming(text: str) -> str:
    """:func:`mask` for an outsider's text as it comes in (a reply, an error body, a
    model's answer, stderr): a secret written with JSON escapes is found too, and then
    the text is kept with its escapes written out (:func:`unescaped`, the same JSON), so
    that no reader of it can decode the secret back. Text without a backslash, or with
    no secret behind its escapes, is masked as it is."""
    if not _forms:
        return text
    if "\\" in text:
        plain = unescaped(text)
        if plain is not text and any(form in plain for form in _forms):
            return mask(plain)
    return mask(text)


def mask_incoming_bytes(data: bytes) -> bytes:
    """:func:`mask_incoming` for UTF-8 bytes (a program's line, a response's body)."""
    if not _forms:
        return data
    if b"\\" in data:
        plain = _unescaped_bytes(data)
        if plain is not data and any(form in plain for form in _byte_forms):
            return mask_bytes(plain)
    return mask_bytes(data)


def unescaped(text: str) -> str:
    """JSON text with every escape that may be written as its character so written:
    ``\\uXXXX`` (either case of hex, surrogate pairs joined) and ``\\/``. What only an
    escape can say stays one, written the short way (``\\"``, ``\\\\``, ``\\n``,
    ``\\u001f``), and so does a lone surrogate. A string parsed from it is the same;
    ``text`` itself (the same object) when it holds no such escape."""
    if "\\u" not in text and "\\/" not in text:
        return text
    return _ESCAPE.sub(_written_out, text)


def mask_keys(text: str) -> str:
    """:func:`mask`, and anything shaped like a key (``sk-...``, ``key-...``) too: for a
    provider's error message, which may quote a key the arena never read (another
    account's, or the one it has, cut short)."""
    return _KEY_SHAPED.sub(r"\1-***", mask(text))


def masked(value: Any, *, incoming: bool = False) -> Any:
    """``value`` with every string in it masked: a string, or the strings inside lists,
    tuples and dicts (keys too), as a copy; anything else as it is. ``incoming``: with
    :func:`mask_incoming` (an outsider's data as it comes in)."""
    if not _forms:
        return value
    if isinstance(value, str):
        return mask_incoming(value) if incoming else mask(value)
    if isinstance(value, dict):
        return {
            masked(k, incoming=incoming): masked(v, incoming=incoming) for k, v in value.items()
        }
    if type(value) is list:
        return [masked(v, incoming=incoming) for v in value]
    if type(value) is tuple:
        return tuple(masked(v, incoming=incoming) for v in value)
    return value


class MaskedLines:
    """A file of lines, kept in memory until :meth:`flush`, which writes them out with
    every known secret masked: whole lines at a time, so no secret is split between two
    writes. :attr:`append` takes complete lines and is a list's own ``append``: the
    replay's busiest path pays nothing for the masking, which costs one search per
    secret of each batch (:meth:`flush_if_full`: some hundred lines)."""

    def __init__(self, path: str | Path, *, batch: int = 256) -> None:
        self._file: IO[bytes] = Path(path).open("wb", buffering=0)  # noqa: SIM115 (see close)
        self._lines: list[bytes] = []
        self._batch = batch
        self.append = self._lines.append
        """Add one or more complete lines (each ending with a newline)."""

    def flush_if_full(self) -> None:
        """Write the lines kept, if they make a batch."""
        if len(self._lines) >= self._batch:
            self.flush()

    def flush(self) -> None:
        """Write every line kept, masked."""
        if self._lines:
            data = mask_bytes(b"".join(self._lines))
            self._lines.clear()
            view = memoryview(data)
            while view:
                view = view[self._file.write(view) or 0 :]

    def close(self) -> None:
        """Write what is kept and close the file."""
        try:
            self.flush()
        finally:
            self._file.close()


_ESCAPE: Final = re.compile(
    r"\\(?:u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})|u([0-9a-f]{4})|(.))",
    re.IGNORECASE | re.DOTALL,
)
"""An escape, from its backslash: a surrogate pair, one ``\\uXXXX``, or a backslash and
the character it escapes (``\\\\`` among them, so an escaped backslash is never read as
the start of another escape)."""
_ESCAPE_BYTES: Final = re.compile(_ESCAPE.pattern.encode(), re.IGNORECASE | re.DOTALL)


def _written_out(match: re.Match[str]) -> str:
    """One escape as :func:`unescaped` writes it."""
    pair_high, pair_low, single, other = match.groups()
    if other is not None:
        return "/" if other == "/" else match.group()
    char = _escaped_character(pair_high, pair_low, single)
    return match.group() if char is None else char


def _written_out_bytes(match: re.Match[bytes]) -> bytes:
    """:func:`_written_out` for bytes (a byte after a backslash is kept as it is)."""
    pair_high, pair_low, single, other = match.groups()
    if other is not None:
        return b"/" if other == b"/" else match.group()
    high, low, single = (None if g is None else g.decode() for g in (pair_high, pair_low, single))
    char = _escaped_character(high, low, single)
    return match.group() if char is None else char.encode()


def _escaped_character(
    pair_high: str | None, pair_low: str | None, single: str | None
) -> str | None:
    """What a ``\\uXXXX`` escape (or a surrogate pair of them) is best written as: the
    character, or the short escape JSON needs for it; None for a lone surrogate."""
    if single is not None:
        code = int(single, 16)
        if 0xD800 <= code <= 0xDFFF:
            return None
    else:
        assert pair_high is not None
        assert pair_low is not None
        code = 0x10000 + ((int(pair_high, 16) - 0xD800) << 10) + int(pair_low, 16) - 0xDC00
    char = chr(code)
    return _MUST_ESCAPE.get(char, char)


_MUST_ESCAPE: Final = {c: json.dumps(c)[1:-1] for c in ['"', "\\", *map(chr, range(0x20))]}
"""What JSON cannot hold as itself inside a string, written the way ``json`` writes it."""


def _unescaped_bytes(data: bytes) -> bytes:
    """:func:`unescaped` for UTF-8 bytes."""
    if b"\\u" not in data and b"\\/" not in data:
        return data
    return _ESCAPE_BYTES.sub(_written_out_bytes, data)


def _written_forms(secret: str) -> set[str]:
    """How ``secret`` may appear in what the arena writes: as it is, inside a JSON
    string (escaped, non-ASCII kept or ``\\u``-escaped), inside a Python repr (the
    console log's ``key='value'``), URL-quoted."""
    return {
        secret,
        json.dumps(secret, ensure_ascii=False)[1:-1],
        json.dumps(secret)[1:-1],
        repr(secret)[1:-1],
        quote(secret, safe=""),
    }
