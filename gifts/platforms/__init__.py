"""Platform payloads turned into :class:`gifts.events.GiftEvent`, one module a platform.

Each normalizer takes a payload as the platform documents it (already parsed from
JSON, and for webhooks already verified by :mod:`gifts.signatures`) and returns the
gift events in it, or raises :class:`PayloadError` saying what is missing or of the
wrong type. Every event keeps the payload it came from (``raw``). The field names are
the platforms' documented ones; a platform that renames a field fails loudly here,
never quietly into a gift with no viewer.
"""

from gifts.platforms.common import PayloadError

__all__ = ["PayloadError"]
