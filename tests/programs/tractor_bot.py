"""A Tractor program for the transport tests: stdin/stdout, or an HTTP server (stdlib only).

Its moves are those of ``tractor_reader.py`` (the agent written from the protocol page);
this file adds the transports and the ways a program goes wrong:

- ``--mode good``: legal replies.
- ``--mode wrong-follow``: on its first follow that must keep to the lead's suit group
  while it holds other cards, answer with a card of another group (illegal: a
  REPLY_REJECTED comes, then the same request, answered legally).
- ``--mode crash``: exit with code 3 on its ``--crash-on``-th PLAY_REQUEST (with
  ``--once FILE``: only if FILE does not exist yet, and FILE is created).
- ``--mode slow-declare``: answer its first DECLARE_REQUEST ``--delay`` seconds late
  (after its window), with a declaration if it has one; answer on time afterwards.

``--record FILE`` appends one JSON line per message received and per reply written:
``{"pid": ..., "from": "arena" | "agent", "message": {...}}``. ``--http`` serves HTTP on a
free loopback port instead of stdin/stdout, and prints that port on its first line of
stdout; a notification is answered 204.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tractor_reader import decide, group_of  # found beside this file

LOCK = threading.Lock()
STATE = {"plays": 0, "declares": 0, "wrong_done": False}


def wrong_follow(request: dict[str, Any]) -> dict[str, Any] | None:
    """A follow with a card of another group where the lead's must be kept to, or None."""
    shape = request.get("follow")
    if shape is None or shape["short"]:
        return None
    level, trump = request["level"], request["trump_suit"]
    inside = [c for c in request["hand"] if group_of(c, level, trump) == shape["suit_group"]]
    outside = [c for c in request["hand"] if c not in inside]
    if not outside:
        return None
    return {
        "type": "PLAY_RESPONSE",
        "player_id": request["player_id"],
        "cards": [outside[0], *inside[: shape["count"] - 1]],
        "request_id": request["request_id"],
    }


def answer(message: dict[str, Any], options: argparse.Namespace) -> dict[str, Any] | None:
    """The reply this program gives (None for a notification); may exit or sleep."""
    kind = message["type"]
    with LOCK:
        if kind == "PLAY_REQUEST":
            STATE["plays"] += 1
            plays = STATE["plays"]
            first_time = options.once is None or not os.path.exists(options.once)
            if options.mode == "crash" and plays == options.crash_on and first_time:
                if options.once is not None:
                    Path(options.once).touch()
                print("tractor bot: crashing on purpose", file=sys.stderr, flush=True)
                os._exit(3)
            if options.mode == "wrong-follow" and not STATE["wrong_done"]:
                wrong = wrong_follow(message)
                if wrong is not None:
                    STATE["wrong_done"] = True
                    return wrong
        if kind == "DECLARE_REQUEST":
            STATE["declares"] += 1
            if options.mode == "slow-declare" and STATE["declares"] == 1:
                time.sleep(options.delay)
                if message["options"]:
                    reply = {
                        "type": "DECLARE_RESPONSE",
                        "action": "DECLARE",
                        "cards": message["options"][-1]["cards"],
                        "player_id": message["player_id"],
                        "request_id": message["request_id"],
                    }
                    return reply
    return decide(message)


def record(options: argparse.Namespace, source: str, message: dict[str, Any]) -> None:
    if options.record:
        line = json.dumps({"pid": os.getpid(), "from": source, "message": message})
        with LOCK, open(options.record, "a", encoding="utf-8") as out:
            out.write(line + "\n")


def serve_stdio(options: argparse.Namespace) -> None:
    for raw in sys.stdin.buffer:
        if not raw.strip():
            continue
        message = json.loads(raw)
        record(options, "arena", message)
        reply = answer(message, options)
        if reply is not None:
            record(options, "agent", reply)
            sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
            sys.stdout.buffer.flush()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the agent's pool reuses connections
    disable_nagle_algorithm = True
    options: argparse.Namespace

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def do_POST(self) -> None:
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        record(self.options, "arena", message)
        reply = answer(message, self.options)
        if reply is None:
            self.send_response(204)
            self.end_headers()
            return
        record(self.options, "agent", reply)
        body = json.dumps(reply, ensure_ascii=False).encode()
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode", default="good", choices=["good", "wrong-follow", "crash", "slow-declare"]
    )
    parser.add_argument("--crash-on", type=int, default=1)
    parser.add_argument("--once")
    parser.add_argument("--delay", type=float, default=1.0)
    parser.add_argument("--record")
    parser.add_argument("--http", action="store_true")
    options = parser.parse_args()
    if not options.http:
        serve_stdio(options)
        return
    Handler.options = options
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()


if __name__ == "__main__":
    main()
