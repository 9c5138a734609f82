"""Viewer gifts: the normalized gift event, its sources, the queue, cooldowns and effects.

Built in steps (issue 11): :mod:`gifts.events` (the event every source produces),
:mod:`gifts.text` (viewer text made safe) and :mod:`gifts.signatures` (webhook
signatures: the arena's own, Twitch EventSub's, Douyin's push) are here; the
platform normalizers have begun (:mod:`gifts.platforms`); the sources, the queue and
the effects follow. The table's safe points are where effects apply (arena.table).
"""

from gifts.events import RESULT_CHANGING, STRONG, Effect, GiftEvent, GiftKind
from gifts.text import clean_viewer_text

__all__ = ["RESULT_CHANGING", "STRONG", "Effect", "GiftEvent", "GiftKind", "clean_viewer_text"]
