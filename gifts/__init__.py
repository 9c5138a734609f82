"""Viewer gifts: the normalized gift event, its sources, the queue, cooldowns and effects.

Built in steps (issue 11). Here: :mod:`gifts.events` (the event every source produces),
:mod:`gifts.text` (viewer text made safe), :mod:`gifts.signatures` (webhook signatures:
the arena's own, Twitch EventSub's, Douyin's push), :mod:`gifts.platforms` (payloads
as gift events), :mod:`gifts.queue` (one gift at a time under cooldowns),
:mod:`gifts.settings` (``[gifts]``) and :mod:`gifts.targeting` (a gift's seat). The
sources and the effects applied at the table's safe points (arena.table) follow.
"""

from gifts.events import RESULT_CHANGING, STRONG, Effect, GiftEvent, GiftKind
from gifts.text import clean_viewer_text

__all__ = ["RESULT_CHANGING", "STRONG", "Effect", "GiftEvent", "GiftKind", "clean_viewer_text"]
