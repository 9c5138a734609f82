"""A Dou Dizhu bot as a small HTTP server (standard library only), for the HTTP seat's tests.

Run: ``python http_bot.py --mode good [--log FILE] ...``. It listens on 127.0.0.1 on a
free port and prints that port on its first line of stdout. Every POST is one message;
a request is answered in the body, a notification with 204. ``--mode`` picks how it
misbehaves on requests (notifications are always taken well):

good       legal moves: bid 0 (or the lowest offered), never double, lead the lowest
           single card, pass when following; echoes player_id and request_id
garbage    answers text that is not JSON
hang       never answers
huge       answers a 10 MB body, then holds the connection open without ending it
late       answers its first request after --late-s seconds (marked "late", with no
           request_id), every later one at once
status500  answers HTTP 500 with a 5 kB error page
empty      answers 204, no body
crash      exits (no answer) on request number --crash-after
redirect   answers 307 to another path (an agent must not follow it)

Other switches: ``--tls CERT KEY`` serves HTTPS; ``--log FILE`` appends one JSON line per
message received (its type, match, table, round, request_id, whether it carried the
expected token, a REPLY_REJECTED's reason and detail, and the headers User-Agent,
Content-Type and X-Team); ``--record FILE`` appends every message received, whole;
``--notify-body`` answers notifications with 200 and a body that is not JSON (an agent
must ignore it); ``--illegal-first-play`` answers the first PLAY_REQUEST with a card not
in the hand; ``--fail-with TEXT`` answers the first request (the first ``--failures N``,
0 for every one) with HTTP 500 and TEXT as its body, then plays as its mode says;
``--comment TEXT`` puts TEXT in every reply's ``comment``. When the environment variable
EXPECTED_TOKEN is set, a message without ``Authorization: Bearer <it>`` gets 401.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"]
SUITS = "♠♥♦♣"
DECK = [s + r for r in RANKS[:13] for s in SUITS] + ["小王", "大王"]

lock = threading.Lock()
state = {"requests": 0, "plays": 0}


def rank(card: str) -> int:
    return RANKS.index(card[1:] if card[0] in SUITS else card)


def answer(
    message: dict[str, Any], *, illegal_play: bool, comment: str | None, says: str | None = None
) -> dict[str, Any]:
    """A legal reply (or a deliberately illegal play) to a request; one with a
    ``comment`` is marked late (it names no request), ``says`` is a plain comment."""
    kind = message["type"]
    reply: dict[str, Any] = {"player_id": message["player_id"]}
    if comment is None:
        reply["request_id"] = message.get("request_id")
    else:
        reply["comment"] = comment
    if says is not None:
        reply["comment"] = says
    if kind == "BID_REQUEST":
        offered = message["available_bids"]
        reply.update(type="BID_RESPONSE", bid=0 if 0 in offered else min(offered))
    elif kind == "DOUBLE_REQUEST":
        reply.update(type="DOUBLE_RESPONSE", double=False)
    elif illegal_play:
        missing = next(card for card in DECK if card not in message["hand"])
        reply.update(type="PLAY_RESPONSE", action="PLAY", cards=[missing])
    elif message["is_free_play"]:
        lowest = min(message["hand"], key=rank)
        reply.update(type="PLAY_RESPONSE", action="PLAY", cards=[lowest])
    else:
        reply.update(type="PLAY_RESPONSE", action="PASS")
    return reply


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: the agent's pool reuses connections
    disable_nagle_algorithm = True  # the body goes out at once, not 40 ms after the headers
    options: argparse.Namespace

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the --log file."""

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        message = json.loads(body)
        expected = os.environ.get("EXPECTED_TOKEN")
        authorized = self.headers.get("Authorization") == f"Bearer {expected}"
        self.record(message, authorized)
        if expected and not authorized:
            self.send(401, b"no valid bearer token")
            return
        if not message["type"].endswith("_REQUEST"):
            if self.options.notify_body:
                self.send(200, b"ignored {not json")
            else:
                self.send(204, b"")
            return
        with lock:
            state["requests"] += 1
            number = state["requests"]
            first_play = message["type"] == "PLAY_REQUEST" and state["plays"] == 0
            if message["type"] == "PLAY_REQUEST":
                state["plays"] += 1
        # the agent may give up on a request (its deadline, its size cap) and hang up
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.reply(message, number, first_play)

    def reply(self, message: dict[str, Any], number: int, first_play: bool) -> None:
        mode = self.options.mode
        if mode == "crash" and number >= self.options.crash_after:
            os._exit(3)
        failing = self.options.failures == 0 or number <= self.options.failures
        if self.options.fail_with is not None and failing:
            self.send(500, self.options.fail_with.encode())
        elif mode == "garbage":
            self.send(200, b"this is not json {")
        elif mode == "hang":
            time.sleep(3600)
        elif mode == "huge":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()  # no length: the body would end only when the connection does
            block = b" " * 65536
            for _ in range(160):  # 10 MB
                self.wfile.write(block)
            self.wfile.flush()
            time.sleep(60)
        elif mode == "empty":
            self.send(204, b"")
        elif mode == "redirect":
            self.send_response(307)
            self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif mode == "status500":
            self.send(500, b"internal trouble:\n the bot fell over" + b" " * 5000 + b"(end)")
        elif mode == "late" and number == 1:
            time.sleep(self.options.late_s)
            reply = answer(message, illegal_play=False, comment="late")
            self.send(200, json.dumps(reply).encode())
        else:
            illegal = self.options.illegal_first_play and first_play
            reply = answer(message, illegal_play=illegal, comment=None, says=self.options.comment)
            self.send(200, json.dumps(reply, ensure_ascii=False).encode())

    def send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        if status != 204:
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        self.wfile.flush()

    def record(self, message: dict[str, Any], authorized: bool) -> None:
        if self.options.record:
            with lock, open(self.options.record, "a", encoding="utf-8") as whole:
                whole.write(json.dumps(message, ensure_ascii=False) + "\n")
        if not self.options.log:
            return
        keys = ("type", "match_id", "table_id", "round_no", "request_id", "reason", "detail")
        entry = {key: message.get(key) for key in keys}
        entry["authorized"] = authorized
        for header in ("User-Agent", "Content-Type", "X-Team"):
            entry[header] = self.headers.get(header)
        with lock, open(self.options.log, "a", encoding="utf-8") as log:
            log.write(json.dumps(entry, ensure_ascii=False) + "\n")


class Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line, not a traceback: a client refusing the certificate hangs up."""
        print(f"connection failed: {sys.exc_info()[1]!r}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--mode",
        default="good",
        choices=[
            "good",
            "garbage",
            "hang",
            "huge",
            "late",
            "status500",
            "empty",
            "crash",
            "redirect",
        ],
    )
    parser.add_argument("--log")
    parser.add_argument("--record")
    parser.add_argument("--crash-after", type=int, default=3)
    parser.add_argument("--late-s", type=float, default=2.0)
    parser.add_argument("--notify-body", action="store_true")
    parser.add_argument("--illegal-first-play", action="store_true")
    parser.add_argument("--fail-with")
    parser.add_argument("--failures", type=int, default=1)
    parser.add_argument("--comment")
    parser.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"))
    Handler.options = options = parser.parse_args()
    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if options.tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(*options.tls)
        # the handshake happens in the connection's thread, not in the accepting one
        server.socket = context.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False
        )
    print(server.server_address[1], flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    sys.exit(0)


if __name__ == "__main__":
    main()
