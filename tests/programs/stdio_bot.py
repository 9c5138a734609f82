"""A stdio agent for the subprocess tests: standard library only, run with sys.executable.

It reads one JSON message a line on stdin and answers each request with one line on
stdout. ``--mode`` picks a behaviour, good or one of the ways a program goes wrong:

- ``good``: legal moves (bid 0 if offered, else the lowest bid; never double; pass
  when following; the lowest single card when leading).
- ``crash``: exit with code 3 on its ``--crash-on``-th PLAY_REQUEST (with ``--once
  FILE``: only if FILE does not exist yet, and FILE is created).
- ``garbage``: answer every request with text that is not JSON.
- ``silent``: never answer, ignore SIGTERM and the end of stdin, and start a child
  that does the same (``--pid-file`` gets both process ids).
- ``flood``: answer the first request well, the next ``--count`` with a 10 MB line and
  then a stream of junk lines naming the first request (answered long ago), then good
  answers.
- ``late``: answer the first request ``--delay`` seconds late with a move that is bad
  for any request, then answer on time (each ``--pace`` seconds after its request).
- ``exit``: write a line to stderr and exit at once with code 3.
- ``chatty``: write ``--count`` lines to stderr at start (one of them very long), then
  play good moves.
- ``skip``: leave its ``--count``-th request unanswered, answer the others.
- ``wrong-id``: name a request that was never sent (``bogus-`` and the request's id).
- ``orphan``: on its ``--crash-on``-th PLAY_REQUEST start a child that holds stdout
  open (its id to ``--pid-file``), then exit with code 3 (``--once`` as for crash).
- ``exit-after-result``: play good moves, and exit with code 0 on each ROUND_RESULT.
- ``close-stdout``: on its ``--crash-on``-th PLAY_REQUEST close stdout and run on,
  reading stdin (``--once`` as for crash).

``--no-echo`` leaves ``request_id`` out of the replies; ``--record FILE`` appends every
message received, with this process's id, as a JSON line; ``--say TEXT`` puts TEXT in
every reply's ``comment`` and at the end of the line ``crash`` writes to stderr;
``--say-json TEXT`` puts TEXT between the quotes of every reply's ``comment`` as it is
(JSON escapes such as ``\\u0068`` left for the arena to read; ``--say-json-file FILE``:
the text FILE holds, which the arena's log of the command line does not show);
``--env-file FILE``
writes ``{"parent": <the process that started it>, "environ": {...}}`` to FILE when it
starts (``{pid}`` in FILE is its own process id).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from typing import Any

RANKS = {"J": 11, "Q": 12, "K": 13, "A": 14, "2": 15}


def rank(card: str) -> int:
    """A canonical card's rank, 3..17."""
    if card == "小王":
        return 16
    if card == "大王":
        return 17
    text = card[1:]
    return RANKS.get(text) or int(text)


def good_reply(message: dict[str, Any]) -> dict[str, Any]:
    """A legal answer to a request."""
    kind = message["type"]
    reply: dict[str, Any] = {"player_id": message["player_id"]}
    if kind == "BID_REQUEST":
        offered = message["available_bids"]
        reply.update(type="BID_RESPONSE", bid=0 if 0 in offered else min(offered))
    elif kind == "DOUBLE_REQUEST":
        reply.update(type="DOUBLE_RESPONSE", double=False)
    elif message["is_free_play"]:
        lowest = min(message["hand"], key=rank)
        reply.update(type="PLAY_RESPONSE", action="PLAY", cards=[lowest])
    else:
        reply.update(type="PLAY_RESPONSE", action="PASS", cards=[])
    return reply


def send(text: str) -> None:
    """One line on stdout (UTF-8, whatever the locale), flushed."""
    sys.stdout.buffer.write(text.encode() + b"\n")
    sys.stdout.buffer.flush()


def silent_forever(pid_file: str | None) -> None:
    """Read everything, answer nothing, outlive EOF and SIGTERM, with a child alike."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    child = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); time.sleep(600)",
        ]
    )
    if pid_file:  # written whole, then moved into place: a reader never sees half
        with open(pid_file + ".part", "w") as f:
            f.write(f"{os.getpid()} {child.pid}\n")
        os.replace(pid_file + ".part", pid_file)
    for _ in sys.stdin.buffer:
        pass
    time.sleep(600)


def hold_stdout(pid_file: str | None) -> None:
    """Start a child that inherits stdout and sleeps (as a worker a program forks)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    if pid_file:
        with open(pid_file + ".part", "w") as f:
            f.write(f"{child.pid}\n")
        os.replace(pid_file + ".part", pid_file)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", default="good")
    parser.add_argument("--crash-on", type=int, default=1)
    parser.add_argument("--once")
    parser.add_argument("--count", type=int, default=1)
    parser.add_argument("--delay", type=float, default=0.0)
    parser.add_argument("--pace", type=float, default=0.0)
    parser.add_argument("--no-echo", action="store_true")
    parser.add_argument("--record")
    parser.add_argument("--pid-file")
    parser.add_argument("--say")
    parser.add_argument("--say-json")
    parser.add_argument("--say-json-file")
    parser.add_argument("--env-file")
    args = parser.parse_args()
    if args.say_json_file:
        with open(args.say_json_file) as f:
            args.say_json = f.read().strip()
    if args.env_file:  # written whole, then moved into place: a reader never sees half
        path = args.env_file.replace("{pid}", str(os.getpid()))
        with open(path + ".part", "w") as f:
            json.dump({"parent": os.getppid(), "environ": dict(os.environ)}, f)
        os.replace(path + ".part", path)
    mode = args.mode
    if mode == "exit":
        print("bot: cannot load the model weights", file=sys.stderr)
        return 3
    if mode == "silent":
        silent_forever(args.pid_file)
        return 0
    if mode == "chatty":
        for n in range(args.count):
            print(f"bot: thinking out loud {n}", file=sys.stderr)
        print("x" * 5000, file=sys.stderr)
        sys.stderr.flush()
    requests = plays = 0
    first_id = None
    for raw in sys.stdin.buffer:
        message = json.loads(raw)
        if args.record:
            with open(args.record, "a") as f:
                f.write(json.dumps({"pid": os.getpid(), "message": message}) + "\n")
        if mode == "exit-after-result" and message["type"] == "ROUND_RESULT":
            return 0  # a clean exit between rounds, owing nothing
        if not message["type"].endswith("_REQUEST"):
            continue
        requests += 1
        first_id = first_id or message["request_id"]
        reply = good_reply(message)
        if args.say is not None:
            reply["comment"] = args.say
        if not args.no_echo:
            reply["request_id"] = message["request_id"]
        if mode == "wrong-id":
            reply["request_id"] = f"bogus-{message['request_id']}"
        if message["type"] == "PLAY_REQUEST":
            plays += 1
            crash = mode in ("crash", "orphan", "close-stdout") and plays == args.crash_on
            if crash and (args.once is None or not os.path.exists(args.once)):
                if args.once is not None:
                    open(args.once, "w").close()
                if mode == "close-stdout":
                    os.close(1)
                    for _ in sys.stdin.buffer:
                        pass
                    time.sleep(600)
                if mode == "orphan":
                    hold_stdout(args.pid_file)
                said = "" if args.say is None else f": {args.say}"
                print(f"bot: crashing on purpose{said}", file=sys.stderr, flush=True)
                return 3
        if mode == "skip" and requests == args.count:
            continue
        if mode == "garbage":
            send("I think I will play the three of hearts")
            continue
        if mode == "flood" and 1 < requests <= args.count + 1:
            sys.stdout.buffer.write(b"x" * (10 * 1024 * 1024 + 7) + b"\n")
            junk = json.dumps({"type": "PLAY_RESPONSE", "request_id": first_id})
            for _ in range(500):
                send(junk)
            continue
        if mode == "late" and requests == 1:
            time.sleep(args.delay)
            # bad for any request: a play of a card twice (and a bid request wants a bid)
            reply = {
                "type": "PLAY_RESPONSE",
                "player_id": message["player_id"],
                "action": "PLAY",
                "cards": ["大王", "大王"],
            }
            if not args.no_echo:
                reply["request_id"] = message["request_id"]
        elif mode == "late":
            time.sleep(args.pace)
        if args.say_json is not None:  # the comment as written, escapes and all
            reply["comment"] = "\0"
            text = json.dumps(reply, ensure_ascii=False)
            send(text.replace('"\\u0000"', f'"{args.say_json}"'))
            continue
        send(json.dumps(reply, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
