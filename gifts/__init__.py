"""Viewer gifts: the normalized gift event, its sources, the queue, cooldowns and effects.

:mod:`gifts.events` (the event every source produces), :mod:`gifts.text` (viewer text
made safe), :mod:`gifts.signatures` (webhook signatures: the arena's own, Twitch
EventSub's, Douyin's push), :mod:`gifts.platforms` (platforms' payloads as gift events),
:mod:`gifts.sources` (MQTT, a gift file, a simulated audience), :mod:`gifts.webhook`,
:mod:`gifts.router` (a run's inbox, one :mod:`desk <gifts.desk>` per table),
:mod:`gifts.queue` (one gift at a time under cooldowns), :mod:`gifts.director` (gifts
applied at a table's safe points), :mod:`gifts.settings` (``[gifts]``) and
:mod:`gifts.targeting` (a gift's seat). docs/gifts.md tells a streamer the whole of it.
"""

from gifts.events import RESULT_CHANGING, STRONG, GiftEffect, GiftEvent, GiftKind
from gifts.text import clean_viewer_text

__all__ = ["RESULT_CHANGING", "STRONG", "GiftEffect", "GiftEvent", "GiftKind", "clean_viewer_text"]
