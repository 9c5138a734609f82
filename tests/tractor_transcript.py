"""The example round of docs/protocol-tractor.md: a real Tractor table, one seat's wire.

Run from the repository's root to write the transcript again (after a change to the
messages, the engine or the example agent)::

    PYTHONPATH=. .venv/bin/python tests/tractor_transcript.py

It plays one round (``round_limit = 1``) at a table of four: the Python example agent
(``examples/python/agent.py``) as a subprocess seat in South and North, two of the arena's
random bots in East and West. Every line South's program was sent and every line it
wrote back is kept, as it went over the pipe, in ``docs/protocol-tractor-round.jsonl``:
one ``{"from": "arena" | "agent", "message": {...}}`` a line. South asked for its legal
plays (``options.legal_moves``). Once, on its first follow that must keep to the lead's
suit group, South's reply is replaced by a wrong one (marked ``"injected": true``): the
transcript so shows a REPLY_REJECTED and the retry. ``--show`` prints each message laid
out as the doc's blocks are (:func:`layout`), numbered, to pick the doc's excerpts from.

``tests/test_tractor_protocol_doc.py`` checks that every message block of the doc's
example round is one of the transcript's messages, laid out by :func:`layout`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Final

from arena.agents.process import SubprocessAgent
from arena.games.registry import get_game
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import TractorRules
from arena.table import Table, TableSettings, play_match

REPO: Final = Path(__file__).resolve().parent.parent
TRANSCRIPT: Final = REPO / "docs" / "protocol-tractor-round.jsonl"
EXAMPLE: Final = REPO / "examples" / "python" / "agent.py"
SEED: Final = 85
WIDTH: Final = 92
"""The widest line of a laid-out block (the doc's other blocks keep to about this)."""


class RecordedProgram(SubprocessAgent):
    """A subprocess seat whose every line, both ways, is kept in ``lines``; its first
    follow that must keep to the lead's suit group is answered wrongly, once."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(name, **options)
        self.lines: list[dict[str, Any]] = []
        self._mistake_made = False

    async def deliver(self, line: bytes) -> None:
        self.lines.append({"from": "arena", "message": json.loads(line)})
        await super().deliver(line)

    async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        request = json.loads(line)
        self.lines.append({"from": "arena", "message": request})
        wrong = None if self._mistake_made else wrong_follow(request)
        if wrong is not None:
            self._mistake_made = True
            self.lines.append({"from": "agent", "message": wrong, "injected": True})
            return json.dumps(wrong, ensure_ascii=False)
        reply = await super().exchange(line, request_id)
        self.lines.append({"from": "agent", "message": json.loads(reply)})
        return reply


def wrong_follow(request: dict[str, Any]) -> dict[str, Any] | None:
    """A follow that breaks the suit-group rule (a card of another group where the seat
    holds enough of the lead's), or None when this request cannot be answered so."""
    follow = request.get("follow")
    if request["type"] != "PLAY_REQUEST" or follow is None or follow["short"]:
        return None
    group = follow["suit_group"]
    level, trump = request["level"], request["trump_suit"]
    outside = [c for c in request["hand"] if suit_group(c, level, trump) != group]
    inside = [c for c in request["hand"] if suit_group(c, level, trump) == group]
    if not outside:
        return None
    cards = [outside[0], *inside[: follow["count"] - 1]]
    return {
        "type": "PLAY_RESPONSE",
        "player_id": request["player_id"],
        "cards": cards,
        "request_id": request["request_id"],
    }


def suit_group(card: str, level: str, trump: str | None) -> str:
    """A card id's suit group (docs/protocol-tractor.md, "Suit groups")."""
    parts = card.split("_")
    if len(parts) == 2 or parts[2] == level or parts[1] == trump:
        return "TRUMP"
    return parts[1]


async def record(seed: int = SEED) -> list[dict[str, Any]]:
    """South's wire in one round at a real table (see the module)."""
    game = get_game("tractor")
    rules = TractorRules(players=4, round_limit=1)
    command = [sys.executable, str(EXAMPLE)]
    south = RecordedProgram("South", command=command, rules=rules, legal_moves=True)
    agents = [
        SubprocessAgent("North", command=command, rules=rules),
        RandomAgent("East", seed=seed, rules=rules),
        south,
        RandomAgent("West", seed=seed + 1, rules=rules),
    ]
    table = Table(agents, game=game, rules=rules, settings=TableSettings(decision_timeout_s=30.0))
    try:
        await table.open()
        await play_match(table, rounds=None, seed=seed)
    finally:
        await table.close()
    return south.lines


def layout(message: dict[str, Any]) -> str:
    """A message as the doc shows it: the compact JSON the arena sends, broken between
    fields (and between a long list's items) to lines of at most about :data:`WIDTH`."""
    parts = [_field(key, value) for key, value in message.items()]
    lines: list[str] = []
    current = "{"
    for index, part in enumerate(parts):
        text = part + ("}" if index == len(parts) - 1 else ",")
        if len(current) + len(text) <= WIDTH or current == "{":
            current += text
        else:
            lines.append(current)
            current = " " + text
    lines.append(current)
    return "\n".join(_wrap_long(line) for line in lines)


def _field(key: str, value: Any) -> str:
    return json.dumps(key) + ":" + _compact(value)


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _wrap_long(line: str) -> str:
    """A line over the width broken after commas, continuation lines indented two."""
    if len(line) <= WIDTH:
        return line
    pieces: list[str] = []
    current = ""
    for chunk in _split_after_commas(line):
        if not chunk:
            continue
        if current and len(current) + len(chunk) > WIDTH:
            pieces.append(current)
            current = "  " + chunk
        else:
            current += chunk
    pieces.append(current)
    return "\n".join(pieces)


def _split_after_commas(text: str) -> list[str]:
    """Text cut after each comma that is outside a string."""
    chunks: list[str] = []
    start = 0
    inside = False
    escaped = False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == '"':
            inside = not inside
        elif char == "," and not inside:
            chunks.append(text[start : index + 1])
            start = index + 1
    chunks.append(text[start:])
    return chunks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print the messages laid out")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args()
    lines = asyncio.run(record(args.seed))
    if args.show:
        for number, line in enumerate(lines):
            marker = " (injected)" if line.get("injected") else ""
            print(f"--- {number} from {line['from']}{marker}")
            print(layout(line["message"]))
        return
    with TRANSCRIPT.open("w", encoding="utf-8") as out:
        for line in lines:
            out.write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
    print(f"{TRANSCRIPT}: {len(lines)} lines")


if __name__ == "__main__":
    main()
