"""A Tractor agent written from docs/protocol-tractor.md alone, as an agent author would.

Standard library only, no code of the arena's. It reads one JSON message a line on stdin
and writes one reply line on stdout per request (``DECLARE_REQUEST``, ``BURY_REQUEST``,
``PLAY_REQUEST``), flushed; notifications get no answer; logs go to stderr.

What it plays, all from the page: it declares with an offered option naming a suit it
holds at least six cards of (never no trump), buries the lowest plain cards, leads its
lowest single, and follows by the page's recipe for ``follow`` ("The follow shape"):
short of the lead's group, all of it and then the lowest others; otherwise tractors from
its longest runs of pairs, then pairs, then the lowest singles of the group.

``decide(message)`` is the whole of its play; tests/programs/tractor_bot.py reuses it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

ORDER = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def parts(card: str) -> tuple[str | None, str]:
    """(suit letter, rank) of an id such as "D1_H_10"; (None, "SJ"/"BJ") for a joker."""
    pieces = card.split("_")
    return (None, pieces[1]) if len(pieces) == 2 else (pieces[1], pieces[2])


def face_of(card: str) -> str:
    """What follows the first "_": both copies of a card share it."""
    return card.split("_", 1)[1]


def group_of(card: str, level: str, trump: str | None) -> str:
    """ "TRUMP" for a joker, a level card or a trump-suit card; else the suit letter."""
    suit, rank = parts(card)
    if suit is None or rank == level or suit == trump:
        return "TRUMP"
    return suit


def strength_of(card: str, level: str, trump: str | None) -> int:
    """High to low within a group: big joker, small joker, trump-suit level card, other
    level cards, then A down to 2."""
    suit, rank = parts(card)
    if suit is None:
        return 100 if rank == "BJ" else 99
    if rank == level:
        return 98 if suit == trump else 97
    return ORDER.index(rank)


def step_of(card: str, level: str) -> int | None:
    """The card's place in the 2..A order with the level rank left out, or None for a
    card never in a tractor (a joker or a level card)."""
    suit, rank = parts(card)
    if suit is None or rank == level:
        return None
    return [r for r in ORDER if r != level].index(rank)


def lowest_first(cards: list[str], level: str, trump: str | None) -> list[str]:
    """Plain cards before trumps, weaker before stronger."""
    return sorted(
        cards,
        key=lambda c: (group_of(c, level, trump) == "TRUMP", strength_of(c, level, trump)),
    )


def declare(request: dict[str, Any]) -> dict[str, Any]:
    for option in request["options"]:
        suit = option["suit"]
        if suit is not None and sum(parts(c)[0] == suit for c in request["hand"]) >= 6:
            return {"type": "DECLARE_RESPONSE", "action": "DECLARE", "cards": option["cards"]}
    return {"type": "DECLARE_RESPONSE", "action": "PASS", "cards": []}


def bury(request: dict[str, Any]) -> dict[str, Any]:
    ordered = lowest_first(request["hand"], request["level"], request["trump_suit"])
    return {"type": "BURY_RESPONSE", "cards": ordered[: request["count"]]}


def play(request: dict[str, Any]) -> dict[str, Any]:
    level, trump = request["level"], request["trump_suit"]
    hand = lowest_first(request["hand"], level, trump)
    if request["leading"]:
        return {"type": "PLAY_RESPONSE", "cards": hand[:1]}
    return {"type": "PLAY_RESPONSE", "cards": follow(hand, request["follow"], level, trump)}


def follow(hand: list[str], shape: dict[str, Any], level: str, trump: str | None) -> list[str]:
    """The page's recipe, step by step; ``hand`` lowest first."""
    count = shape["count"]
    mine = [c for c in hand if group_of(c, level, trump) == shape["suit_group"]]
    if shape["short"]:
        others = [c for c in hand if c not in mine]
        return mine + others[: count - len(mine)]
    pairs: dict[str, list[str]] = {}
    for card in mine:
        pairs.setdefault(face_of(card), []).append(card)
    pairs = {face: cards for face, cards in pairs.items() if len(cards) == 2}
    chosen: list[str] = []
    for length in shape["tractors"]:
        run = longest_run(pairs, level)
        for face in run[:length]:
            chosen += pairs.pop(face)
    for face in list(pairs):
        if len(chosen) // 2 >= shape["pairs"]:
            break
        chosen += pairs.pop(face)
    singles = [c for c in mine if c not in chosen]
    return chosen + singles[: count - len(chosen)]


def longest_run(pairs: dict[str, list[str]], level: str) -> list[str]:
    """The faces of the longest run of pairs at consecutive steps, lowest first."""
    by_step: dict[int, str] = {}
    for face, cards in pairs.items():
        step = step_of(cards[0], level)
        if step is not None:
            by_step[step] = face
    best: list[str] = []
    for step in sorted(by_step):
        run: list[str] = []
        while step + len(run) in by_step:
            run.append(by_step[step + len(run)])
        if len(run) > len(best):
            best = run
    return best


ANSWERS = {"DECLARE_REQUEST": declare, "BURY_REQUEST": bury, "PLAY_REQUEST": play}


def decide(message: dict[str, Any]) -> dict[str, Any] | None:
    """The reply to a request, addressed as the page says; None for a notification."""
    answer = ANSWERS.get(message["type"])
    if answer is None:
        if message["type"] == "REPLY_REJECTED":
            print(f"rejected: {message['reason']}: {message['detail']}", file=sys.stderr)
        return None
    reply = answer(message)
    reply["player_id"] = message["player_id"]
    reply["request_id"] = message["request_id"]
    return reply


def main() -> None:
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        reply = decide(json.loads(line))
        if reply is not None:
            sys.stdout.buffer.write(json.dumps(reply, ensure_ascii=False).encode() + b"\n")
            sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
