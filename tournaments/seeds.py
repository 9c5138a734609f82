"""A tournament's seed as something to commit to: its text, its SHA-256, whether it is
worth verifying, and the seeds of a ``daily`` tournament's epochs.

A seed is written either as a whole number (``seed = 42``: the small seeds tests use, as
before) or as hex text (``seed = "0x" + 32 hex digits``). Its *canonical text* is what
the commitment hashes: the decimal digits of a number, ``0x`` and the lower-case hex
digits of a hex seed (leading zeros kept: they are part of what was written). The
commitment is ``sha256(canonical text)`` in hex.

A seed is *verifiable* when it holds at least 128 bits (32 hex digits): nobody can then
find it from its commitment by trying seeds. A small seed's commitment can be inverted
in seconds (try every number), so a tournament played from one says "not verifiable".

Every seed deals from its *value* (the number): a round is dealt from
``derive_seed(value, deal_table, round_no)``, so a small seed deals exactly as it did
before commitments existed.

Epochs: a tournament commits one seed per epoch. A fixed-length tournament has one
epoch, for its whole life. A ``daily`` tournament begins a new epoch at each session
(each ``run`` or ``resume``), see :func:`epoch_seed`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from typing import Final

__all__ = [
    "VERIFIABLE_BITS",
    "TournamentSeed",
    "commitment_of",
    "epoch_seed",
    "fresh_seed",
    "parse_seed",
]

VERIFIABLE_BITS: Final = 128
"""The fewest bits a seed holds to be verifiable (its commitment not invertible)."""
MAX_SMALL_SEED: Final = 2**53 - 1
"""The largest seed written as a number (JSON-safe in any language)."""
MAX_HEX_DIGITS: Final = 128
"""A hex seed's most digits (512 bits): more is a mistake, not more safety."""

_HEX: Final = re.compile(r"0[xX]([0-9a-fA-F]+)")


@dataclass(frozen=True, slots=True)
class TournamentSeed:
    """One committed seed: its canonical text (see the module)."""

    text: str

    @property
    def value(self) -> int:
        """The number the rounds are dealt from."""
        return int(self.text, 16) if self.text.startswith("0x") else int(self.text)

    @property
    def bits(self) -> int:
        """How many bits it was written with: 4 a hex digit; a number's own length."""
        if self.text.startswith("0x"):
            return 4 * (len(self.text) - 2)
        return self.value.bit_length()

    @property
    def verifiable(self) -> bool:
        """At least :data:`VERIFIABLE_BITS` bits: its commitment cannot be inverted."""
        return self.bits >= VERIFIABLE_BITS

    @property
    def commitment(self) -> str:
        """``sha256(text)`` in hex: published before play, checked against the text after."""
        return commitment_of(self.text)


def commitment_of(text: str) -> str:
    """The SHA-256 of a seed's canonical text, in lower-case hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_seed(given: int | str) -> TournamentSeed:
    """A seed from a file or a store: a number from 0 to 2^53-1, or ``0x`` and 1 to 128
    hex digits. ValueError says what is wrong with it (the caller names the key)."""
    if isinstance(given, bool) or not isinstance(given, int | str):
        raise ValueError(  # noqa: TRY004 (a config validator's mistake is a ValueError)
            f"{given!r} is not a seed: write a whole number or a hex text such as "
            '"0x" followed by 32 hex digits'
        )
    if isinstance(given, int):
        if not 0 <= given <= MAX_SMALL_SEED:
            raise ValueError(
                f"{given} is out of range: a seed written as a number is from 0 to 2^53-1; "
                'a seed of 128 bits or more is written as hex text ("0x" and 32 hex digits)'
            )
        return TournamentSeed(str(given))
    text = given.strip()
    if text.isdigit():  # a number stored as text (a store's seeds table)
        return parse_seed(int(text))
    found = _HEX.fullmatch(text)
    if found is None:
        raise ValueError(
            f'{given!r} is not a seed: write hex text, "0x" followed by hex digits 0-9 a-f '
            "(32 of them for a verifiable seed), or a whole number"
        )
    digits = found.group(1)
    if len(digits) > MAX_HEX_DIGITS:
        raise ValueError(f"{given!r} has {len(digits)} hex digits: at most {MAX_HEX_DIGITS}")
    return TournamentSeed("0x" + digits.lower())


def fresh_seed() -> TournamentSeed:
    """A new seed of :data:`VERIFIABLE_BITS` random bits from the operating system."""
    return TournamentSeed(f"0x{secrets.randbits(VERIFIABLE_BITS):032x}")


def epoch_seed(given: TournamentSeed | None, epoch: int, *, daily: bool) -> TournamentSeed:
    """The seed epoch ``epoch`` (from 1) commits to.

    - No seed in the file: a fresh one (:func:`fresh_seed`) for every epoch.
    - A fixed-length tournament: the file's seed (it has one epoch).
    - A ``daily`` with a verifiable seed in the file: epoch ``n`` commits to
      ``"0x" + HMAC-SHA256(key=the seed's text, "ddz-arena epoch <n>")`` (64 hex digits).
      Deterministic (the same file deals the same days), and revealing one epoch's seed
      tells nothing of the next one's nor of the file's seed.
    - A ``daily`` with a small seed (tests): that seed in every epoch, so its sessions
      deal as one long session would, as before epochs existed. It is not verifiable
      anyway.
    """
    if epoch < 1:
        raise ValueError(f"epochs count from 1, not {epoch}")
    if given is None:
        return fresh_seed()
    if not daily or not given.verifiable:
        return given
    digest = hmac.new(
        given.text.encode("utf-8"), f"ddz-arena epoch {epoch}".encode(), hashlib.sha256
    )
    return TournamentSeed("0x" + digest.hexdigest())
