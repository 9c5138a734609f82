#!/usr/bin/env python3
"""A Dou Dizhu Arena agent in plain Python: copy this file to start your own.

It plays both of the arena's games, Dou Dizhu (斗地主) and Tractor (升级 / 拖拉机): it
tells them apart by the requests it gets (docs/agents.md, "Playing Tractor").
It uses the standard library only (Python 3.8 or newer) and none of the arena's code.
It speaks the arena's JSON messages in one of two ways:

    python3 agent.py               JSON lines: one message a line on stdin, replies on stdout
    python3 agent.py --http 8765   an HTTP server on 127.0.0.1:8765: each message is POSTed,
                                   a request's reply is the response body

It plays simple, always-legal moves. Dou Dizhu: it beats a single, pair or triple with
the lowest higher rank it holds (never breaking a bomb), passes otherwise, and leads its
lowest rank. Tractor: it declares trump only with a long suit, buries its cheapest
cards, leads its lowest single and follows with what the request's `follow` asks for
(the lead's suit group, its tractors and pairs), cheapest first. Replace `decide_bid`,
`decide_double` and `decide_play` (Tractor: `decide_declare`, `decide_bury` and
`decide_tractor_play`) with your own ideas.

Each DEAL tells the rules in force and a seed of the seat's own: `on_deal` keeps both per
seat, and every random choice draws from a generator seeded with it, so the same match
played again (the same `[match] seed`) is played the same.

Logs go to stderr. Nothing but replies may ever be written to stdout.
"""

from __future__ import annotations  # type hints below read fine on Python 3.8

import argparse
import json
import os
import random
import sys
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Rank order, lowest first (docs/rules.md): a rank's strength is its index + 3,
# so "3" is 3, "J" is 11, "A" is 14, "2" is 15, 小王 is 16 and 大王 is 17.
RANKS = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "小王", "大王"]
RANK_VALUE = {rank: index + 3 for index, rank in enumerate(RANKS)}
JOKERS = ("小王", "大王")

# The number of cards of one rank, and the name of that combination.
SHAPE_NAMES = {1: "SINGLE", 2: "PAIR", 3: "TRIPLE", 4: "BOMB"}


def log(*parts: object) -> None:
    """Write a line for people to stderr (stdout is reserved for replies)."""
    print("[python-agent]", *parts, file=sys.stderr, flush=True)


def rank_value(card: str) -> int:
    """The strength of a canonical card such as "♠10", "♥A" or "大王"."""
    if card in JOKERS:
        return RANK_VALUE[card]
    return RANK_VALUE[card[1:]]  # the first character is the suit: ♠ ♥ ♦ ♣


def groups_by_rank(hand: list[str]) -> dict[int, list[str]]:
    """The hand as {rank value: [cards of that rank]}."""
    groups: dict[int, list[str]] = {}
    for card in hand:
        groups.setdefault(rank_value(card), []).append(card)
    return groups


def is_bomb_part(groups: dict[int, list[str]], value: int) -> bool:
    """True when the cards of this rank belong to a bomb or to the rocket (both jokers)."""
    if len(groups[value]) == 4:
        return True
    return value >= 16 and 16 in groups and 17 in groups


def strength(hand: list[str]) -> int:
    """A rough score of a hand: jokers, 2s and bombs are what win rounds."""
    groups = groups_by_rank(hand)
    score = 2 * sum(1 for card in hand if card in JOKERS)
    score += len(groups.get(15, []))  # the 2s
    score += 3 * sum(1 for cards in groups.values() if len(cards) == 4)
    return score


# ---- what each seat was told at its DEAL: the rules in force and its own seed ----


class Seat:
    """One seat's memory from its last DEAL. One HTTP server may play several seats and
    tables at once, so seats are kept by (match_id, table_id, player_id)."""

    def __init__(self, rules: dict[str, Any], seed: int | None) -> None:
        self.rules = rules  # every rule setting in force, e.g. rules["loose_wings"]
        self.rng = random.Random(seed)  # all randomness from the arena's seed: replayable


SEATS: dict[tuple[Any, Any, Any], Seat] = {}
SEATS_LOCK = threading.Lock()  # the HTTP server answers on several threads


def seat_key(message: dict[str, Any]) -> tuple[Any, Any, Any]:
    return (message.get("match_id"), message.get("table_id"), message.get("player_id"))


def on_deal(message: dict[str, Any]) -> None:
    """DEAL: remember the rules and start this seat's random choices from its seed."""
    with SEATS_LOCK:
        SEATS[seat_key(message)] = Seat(message.get("rules") or {}, message.get("seed"))


def seat_of(request: dict[str, Any]) -> Seat:
    """The seat's memory; a request with no DEAL before it (a program started mid-round
    gets the DEAL again first, so only a hand-typed test) gets defaults and no seed."""
    with SEATS_LOCK:
        return SEATS.setdefault(seat_key(request), Seat({}, None))


def on_match_end(message: dict[str, Any]) -> None:
    """MATCH_END: forget the match's seats (MATCH_END names no player: all of them)."""
    with SEATS_LOCK:
        for key in [k for k in SEATS if k[:2] == seat_key(message)[:2]]:
            del SEATS[key]


# ---- decisions: each takes the request (a dict) and returns the reply (a dict) ----


def decide_bid(request: dict[str, Any]) -> dict[str, Any]:
    """BID_REQUEST: bid the lowest bid offered with a strong hand, else pass (0); a hand
    just short of strong bids on a coin toss (from the seat's seeded generator).

    When 0 is not offered (the "fixed_landlord" mode: you are the landlord), the
    lowest bid offered is the only safe answer anyway.
    """
    offered = request["available_bids"]
    positive = [bid for bid in offered if bid > 0]
    score = strength(request.get("hand") or [])
    bold = score >= 6 or (score == 5 and seat_of(request).rng.random() < 0.5)
    if positive and bold:
        bid = min(positive)
    elif 0 in offered:
        bid = 0
    else:
        bid = min(offered)
    return {"type": "BID_RESPONSE", "bid": bid}


def decide_double(request: dict[str, Any]) -> dict[str, Any]:
    """DOUBLE_REQUEST: double (or redouble) only with a strong hand, a stronger one
    when the rules make a farmer's double count for both farmers."""
    alone = seat_of(request).rules.get("per_defender_doubling", True)
    return {"type": "DOUBLE_RESPONSE", "double": strength(request["hand"]) >= (8 if alone else 9)}


def decide_play(request: dict[str, Any]) -> dict[str, Any]:
    """PLAY_REQUEST: lead the lowest rank, or beat a single/pair/triple, or pass.

    It plays singles, pairs, triples, bombs and the rocket only: legal under every rule
    variant. A move generator that makes airplanes with wings or fours with two reads
    `seat_of(request).rules` ("loose_wings", "four_with_pair"; docs/rules.md, Variants),
    or lets the arena list the moves (`options.legal_moves = true` in the config puts
    them in `request["legal_moves"]`).
    """
    groups = groups_by_rank(request["hand"])
    if request["is_free_play"]:
        return lead(groups)
    last = request["last_play"]
    size = {"SINGLE": 1, "PAIR": 2, "TRIPLE": 3}.get(last["type"])
    if size is not None:
        for value in sorted(groups):
            cards = groups[value]
            # never break a bomb or the rocket to beat a small play
            if value > last["main_rank"] and len(cards) >= size and not is_bomb_part(groups, value):
                return play(cards[:size], SHAPE_NAMES[size])
    return {"type": "PLAY_RESPONSE", "action": "PASS", "cards": []}


def lead(groups: dict[int, list[str]]) -> dict[str, Any]:
    """Lead all the cards of the lowest rank that is not part of a bomb.

    With only bombs (or the rocket) left, play the lowest of them: a bomb is always a
    legal lead.
    """
    for value in sorted(groups):
        if not is_bomb_part(groups, value):
            cards = groups[value]
            return play(cards, SHAPE_NAMES[len(cards)])
    lowest = min(groups)
    if lowest >= 16:  # both jokers: the rocket
        return play(groups[16] + groups[17], "ROCKET")
    return play(groups[lowest], "BOMB")


def play(cards: list[str], hand_type: str) -> dict[str, Any]:
    """A PLAY_RESPONSE; hand_type is optional, and helps the reader of a replay."""
    return {"type": "PLAY_RESPONSE", "action": "PLAY", "cards": cards, "hand_type": hand_type}


# ---- Tractor (升级 / 拖拉机): docs/protocol-tractor.md ----
#
# A Tractor card is an id: deck, suit letter, rank ("D1_H_10": deck 1, ♥10) or a joker
# ("D2_SJ" small, "D1_BJ" big). The two copies of a card (D1_ and D2_) are the same
# face: two of them are a pair. The level cards (the round's `level` rank, every suit),
# the jokers and the `trump_suit`'s cards are all trumps: one suit group, "TRUMP".

TRACTOR_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
TRUMP = "TRUMP"


def split_card(card: str) -> tuple[str | None, str]:
    """("H", "10") for "D1_H_10"; (None, "SJ") or (None, "BJ") for a joker."""
    parts = card.split("_")
    if len(parts) == 2:
        return None, parts[1]
    return parts[1], parts[2]


def face(card: str) -> str:
    """What the two copies of a card share: "H_10" for "D1_H_10" and "D2_H_10"."""
    return card.split("_", 1)[1]


def points(card: str) -> int:
    """Every 5 is worth 5 points, every 10 and K 10."""
    rank = split_card(card)[1]
    return 5 if rank == "5" else 10 if rank in ("10", "K") else 0


class Trump:
    """The round's level and trump suit (None: no trump), as every request tells them."""

    def __init__(self, request: dict[str, Any]) -> None:
        self.level = request["level"]
        self.suit = request["trump_suit"]
        # a tractor's pairs are consecutive in 2..A with the level rank left out
        self.chain = [rank for rank in TRACTOR_RANKS if rank != self.level]

    def group(self, card: str) -> str:
        """The card's suit group: "TRUMP", or its suit letter."""
        suit, rank = split_card(card)
        if suit is None or rank == self.level or suit == self.suit:
            return TRUMP
        return suit

    def power(self, card: str) -> int:
        """Higher beats lower within a suit group (equal level cards are equal)."""
        suit, rank = split_card(card)
        if suit is None:
            return 30 if rank == "BJ" else 29
        if rank == self.level:
            return 28 if suit == self.suit else 27
        return TRACTOR_RANKS.index(rank)

    def chain_place(self, card: str) -> int | None:
        """Where a pair of this card sits in a tractor's run, None if it never does
        (jokers and level cards are never part of a tractor)."""
        suit, rank = split_card(card)
        if suit is None or rank == self.level:
            return None
        return self.chain.index(rank)

    def cheap(self, card: str) -> tuple[bool, int, int]:
        """The order to give cards away in: plain suits first, low first, points last."""
        return (self.group(card) == TRUMP, self.power(card), points(card))


def decide_declare(request: dict[str, Any]) -> dict[str, Any]:
    """DECLARE_REQUEST: declare with an option offered when its suit is a quarter of the
    hand or more (the suit becomes trump: long trumps win tricks); never no trump."""
    hand = request["hand"]
    best, longest = None, 0
    for option in request["options"]:
        suit = option["suit"]
        held = sum(1 for card in hand if split_card(card)[0] == suit)
        if suit is not None and held > longest:
            best, longest = option, held
    if best is not None and 4 * longest >= len(hand):
        return {"type": "DECLARE_RESPONSE", "action": "DECLARE", "cards": best["cards"]}
    return {"type": "DECLARE_RESPONSE", "action": "PASS", "cards": []}


def decide_bury(request: dict[str, Any]) -> dict[str, Any]:
    """BURY_REQUEST: bury `count` cards, the cheapest: plain suits, low cards."""
    trump = Trump(request)
    cards = sorted(request["hand"], key=trump.cheap)[: request["count"]]
    return {"type": "BURY_RESPONSE", "cards": cards}


def decide_tractor_play(request: dict[str, Any]) -> dict[str, Any]:
    """PLAY_REQUEST: lead the cheapest single, or follow as `follow` says."""
    trump = Trump(request)
    hand = sorted(request["hand"], key=trump.cheap)
    if request["leading"]:
        return {"type": "PLAY_RESPONSE", "cards": hand[:1]}  # any single is a legal lead
    return {"type": "PLAY_RESPONSE", "cards": follow_cards(hand, request["follow"], trump)}


def follow_cards(hand: list[str], follow: dict[str, Any], trump: Trump) -> list[str]:
    """A follow of the shape asked (docs/protocol-tractor.md, "The follow shape"):
    `count` cards; all of the suit group first when `short`; otherwise only cards of the
    group, with tractors of the lengths `tractors` names and at least `pairs` pairs
    (those in the tractors counted). `hand` is sorted cheapest first."""
    count = follow["count"]
    mine = [card for card in hand if trump.group(card) == follow["suit_group"]]
    others = [card for card in hand if card not in mine]
    if follow["short"]:  # `void` too: then `mine` is empty
        return mine + others[: count - len(mine)]
    pairs = pairs_of(mine)
    chosen: list[str] = []
    for length in follow["tractors"]:
        run = longest_run(pairs, trump)[:length]  # from its low end
        for pair in run:
            pairs.remove(pair)
            chosen += pair
    for pair in pairs[: follow["pairs"] - len(chosen) // 2]:
        chosen += pair
    rest = [card for card in mine if card not in chosen]
    return chosen + rest[: count - len(chosen)]


def pairs_of(cards: list[str]) -> list[list[str]]:
    """The pairs among some cards (both copies of one face), in the cards' order."""
    seen: dict[str, str] = {}
    pairs = []
    for card in cards:
        if face(card) in seen:
            pairs.append([seen[face(card)], card])
        else:
            seen[face(card)] = card
    return pairs


def longest_run(pairs: list[list[str]], trump: Trump) -> list[list[str]]:
    """The longest run of pairs at consecutive chain places (lowest first), [] if none."""
    placed: dict[int, list[str]] = {}
    for pair in pairs:
        place = trump.chain_place(pair[0])
        if place is not None:
            placed[place] = pair
    best: list[list[str]] = []
    for place in sorted(placed):
        if place - 1 in placed:
            continue  # not the low end of a run
        run: list[list[str]] = []
        while place + len(run) in placed:
            run.append(placed[place + len(run)])
        if len(run) > len(best):
            best = run
    return best


DECIDERS = {
    "BID_REQUEST": decide_bid,
    "DOUBLE_REQUEST": decide_double,
    "PLAY_REQUEST": decide_play,
    # Tractor's requests (its PLAY_REQUEST is told apart in `handle`)
    "DECLARE_REQUEST": decide_declare,
    "BURY_REQUEST": decide_bury,
}


def handle(message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to one message from the arena, or None for a notification."""
    kind = str(message.get("type"))
    decide = DECIDERS.get(kind)
    if kind == "PLAY_REQUEST" and "leading" in message:
        decide = decide_tractor_play  # Tractor's: it has `leading`, Dou Dizhu's `is_free_play`
    if decide is None:
        # DEAL, BOTTOM_CARDS, REPLY_REJECTED, ROUND_RESULT, MATCH_END, and Tractor's
        # TRUMP_CANDIDATE, TRUMP_LOCKED, THROW_PUNISHED, TRICK_WON, GAME_OVER: nothing to answer.
        if kind == "DEAL":
            on_deal(message)
        elif kind == "MATCH_END":
            on_match_end(message)
        elif kind == "REPLY_REJECTED":
            log("rejected:", message["reason"], "-", message["detail"])
        return None
    reply = decide(message)
    reply["player_id"] = message["player_id"]  # always: the seat the request was sent to
    reply["request_id"] = message.get("request_id")  # echo it, so a late reply is known
    return reply


def encode(reply: dict[str, Any]) -> bytes:
    """A reply as compact UTF-8 JSON, cards such as "♠10" written as they are."""
    return json.dumps(reply, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


# ---- transport 1: JSON lines on stdin/stdout ----


def serve_stdio() -> None:
    """Read one message a line until stdin closes; answer each request on one line."""
    out = sys.stdout.buffer  # bytes, so the text is UTF-8 on every system
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8").strip()
        if not line:
            continue
        try:
            reply = handle(json.loads(line))
        except Exception:  # a bug here must not kill the agent: log it and go on
            log("could not answer:", line[:200], "\n" + traceback.format_exc())
            continue
        if reply is not None:
            out.write(encode(reply) + b"\n")
            out.flush()  # without this the reply may sit in a buffer until the deadline


# ---- transport 2: HTTP ----


class Handler(BaseHTTPRequestHandler):
    """Each POST carries one message; a request's reply is the body, else 204."""

    protocol_version = "HTTP/1.1"  # keep the connection open between messages
    # Send each reply at once: with Nagle's algorithm the body, written after the
    # headers, waits for an acknowledgement the arena delays, 40 ms a decision.
    disable_nagle_algorithm = True

    def do_POST(self) -> None:
        # Read the body first, whatever the answer: on a kept-open connection, a body
        # left unread would be taken for the start of the next request.
        length = int(self.headers.get("Content-Length") or 0)
        data = self.rfile.read(length)
        token = os.environ.get("AGENT_TOKEN")  # optional: require the arena's bearer token
        if token and self.headers.get("Authorization") != "Bearer " + token:
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        try:
            reply = handle(json.loads(data.decode("utf-8")))
        except Exception:
            log("could not answer:\n" + traceback.format_exc())
            self.send_response(500)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        if reply is None:
            self.send_response(204)  # a notification: no body
            self.end_headers()
            return
        body = encode(reply)
        self.send_response(200)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the default logs every request to stderr."""


def serve_http(port: int) -> None:
    """Serve on 127.0.0.1 until stopped (Ctrl-C)."""
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    log(f"listening on http://127.0.0.1:{server.server_address[1]}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description="A simple Dou Dizhu Arena agent (斗地主 and Tractor)."
    )
    parser.add_argument("--http", type=int, metavar="PORT", help="serve HTTP on this port")
    args = parser.parse_args()
    if args.http is not None:
        serve_http(args.http)
    else:
        serve_stdio()


if __name__ == "__main__":
    main()
