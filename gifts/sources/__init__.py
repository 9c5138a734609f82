"""Where viewer gifts come from, and the one seam they are delivered through.

Every source (the MQTT topic ``<prefix>/gifts/in``, a JSON-lines file replayed, a
simulated audience) turns what it receives into :class:`~gifts.events.GiftEvent` and
hands it to an :class:`Inbox`: ``accept`` for a valid gift, ``refuse`` with a short
reason for a payload that is no gift. What happens next (the queue, the table) is the
inbox's business; a source never waits on a table and never stops for a bad payload.
"""

from gifts.sources.inbox import CollectingInbox, Inbox, Refusal
from gifts.sources.jsonl import replay_gift_file
from gifts.sources.mqtt_in import gifts_topic, listen_for_gifts
from gifts.sources.parse import MAX_PAYLOAD_BYTES, decode_object, gift_from_object, parse_gift
from gifts.sources.simulated import simulate_audience

__all__ = [
    "MAX_PAYLOAD_BYTES",
    "CollectingInbox",
    "Inbox",
    "Refusal",
    "decode_object",
    "gift_from_object",
    "gifts_topic",
    "listen_for_gifts",
    "parse_gift",
    "replay_gift_file",
    "simulate_audience",
]
