"""A Tractor stdio agent that answers every request badly (standard library only, run
with sys.executable), for the agent check's tests.

It reads one JSON message a line and answers each request with one line: it declares
with the first card of its hand that is no level card and no joker, buries one card (the
kitty needs more), and plays the first card of its hand (wrong whenever the lead has more
cards, or the card is of another suit). It says nothing to notifications.
"""

from __future__ import annotations

import json
import sys

REPLIES = {
    "DECLARE_REQUEST": "DECLARE_RESPONSE",
    "BURY_REQUEST": "BURY_RESPONSE",
    "PLAY_REQUEST": "PLAY_RESPONSE",
}

for line in sys.stdin:
    message = json.loads(line)
    kind = message.get("type")
    if kind not in REPLIES:
        continue  # a notification: no reply
    reply = {
        "type": REPLIES[kind],
        "player_id": message["player_id"],
        "request_id": message.get("request_id"),
        "cards": [message["hand"][0]],
    }
    if kind == "DECLARE_REQUEST":
        level = "_" + message["level"]
        plain = [c for c in message["hand"] if not c.endswith((level, "SJ", "BJ"))]
        reply.update(action="DECLARE", cards=plain[:1])
    print(json.dumps(reply, ensure_ascii=False), flush=True)
