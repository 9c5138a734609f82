"""The example agents of ``examples/`` at Tractor tables: real programs, real matches.

Specification (issue 29, "the examples gain a Tractor mode"): the Python and the Node.js
example each tell Tractor from Dou Dizhu by the requests they get, and play Tractor
legally with simple logic: in many random positions, each follow an example makes from
the request's ``follow`` is one the engine allows (its ``check_follow``, the oracle); each
plays a match at a table of four, as a subprocess seat and as an HTTP seat, with no
fault; and the Tractor config shipped beside it runs as the docs say. Node.js must be on
the PATH (as for tests/test_examples.py: missing, the tests fail rather than skip).
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_examples import REPO, SEAT_NAMES, example_command, example_server, node_program

from arena.cli import main
from arena.config import parse_config
from arena.games.tractor.engine import (
    DECK,
    TRUMP,
    card_ids,
    card_text,
    check_follow,
    classify,
    follow_rule,
    trump_context,
)
from arena.games.tractor.engine.cards import FACE, SUIT_LETTERS
from arena.games.tractor.views import group_letter, level_text
from arena.runner import run_arena
from arena.table import FAULT_CATEGORIES

NO_FAULTS = dict.fromkeys(FAULT_CATEGORIES, 0)
POSITIONS = 1500


@pytest.fixture(params=["python", "node"])
def language(request: pytest.FixtureRequest) -> str:
    if request.param == "node":
        node_program()
    return str(request.param)


def follow_positions(count: int, seed: int = 29) -> list[tuple[dict[str, Any], Any]]:
    """Random follows to make: a PLAY_REQUEST as the example reads it, and what the
    engine needs to judge the answer (hand, lead, trump). Leads are drawn rich in pairs
    and tractors (runs of pairs in a group), hands rich in pairs of the lead's group."""
    rng = random.Random(seed)
    found: list[tuple[dict[str, Any], Any]] = []
    while len(found) < count:
        level, suit = rng.randint(2, 14), rng.choice([0, 1, 2, 3, None])
        trump = trump_context(level, suit)
        group = rng.choice([TRUMP] + [s for s in range(4) if s != suit])
        by_power: dict[tuple[int, int], list[int]] = {}
        for card in DECK:
            if trump.group[card] == group:
                by_power.setdefault((trump.power[card], FACE[card]), []).append(card)
        faces = sorted(by_power)
        start = rng.randrange(len(faces))
        lead_cards = [
            c for f in faces[start : start + rng.choice([1, 2, 2, 3, 4])] for c in by_power[f]
        ]
        for _ in range(rng.randint(0, 2)):
            lead_cards += by_power[rng.choice(faces)][: rng.choice([1, 2])]
        lead = classify(sorted(set(lead_cards)), trump)
        rest = [c for c in DECK if c not in lead.cards]
        mine: dict[int, list[int]] = {}
        for card in rest:
            if trump.group[card] == group:
                mine.setdefault(FACE[card], []).append(card)
        wanted = rng.randint(0, 18)
        hand: list[int] = []
        for copies in rng.sample(list(mine.values()), len(mine)):
            if len(hand) < wanted:
                hand += copies if rng.random() < 0.6 else copies[:1]
        others = [c for c in rest if trump.group[c] != group]
        hand += rng.sample(others, rng.randint(len(lead.cards), 12))
        rule = follow_rule(hand, lead, trump)
        request = {
            "type": "PLAY_REQUEST",
            "player_id": "Me",
            "request_id": f"r{len(found)}",
            "match_id": "m",
            "table_id": "t1",
            "hand": [card_text(c) for c in rng.sample(hand, len(hand))],
            "leading": False,
            "lead": {"player": "B", "cards": [card_text(c) for c in lead.cards]},
            "follow": {
                "suit_group": group_letter(rule.group),
                "count": rule.count,
                "held": rule.held,
                "void": rule.void,
                "short": rule.short,
                "tractors": list(rule.tractors),
                "pairs": rule.pairs,
            },
            "level": level_text(level),
            "trump_suit": None if suit is None else SUIT_LETTERS[suit],
        }
        found.append((request, (hand, lead, trump)))
    return found


def test_an_example_follows_as_the_engine_requires_in_random_positions(language: str) -> None:
    positions = follow_positions(POSITIONS)
    asked = "".join(json.dumps(request) + "\n" for request, _ in positions)
    done = subprocess.run(
        example_command(language), input=asked.encode(), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    replies = [json.loads(line) for line in done.stdout.decode().splitlines()]
    assert len(replies) == len(positions)
    shapes = set()
    for (request, (hand, lead, trump)), reply in zip(positions, replies, strict=True):
        assert reply["request_id"] == request["request_id"]
        assert reply["type"] == "PLAY_RESPONSE"
        why = check_follow(hand, card_ids(reply["cards"]), lead, trump)
        assert why is None, (request["follow"], reply["cards"], why)
        shapes.add((request["follow"]["short"], len(request["follow"]["tractors"])))
    # the positions reached every kind of rule: short, plain, one tractor and two
    assert {(True, 0), (False, 0), (False, 1), (False, 2)} <= shapes


def tractor_config(seat_type: str, options: dict[str, Any]) -> dict[str, Any]:
    """The example in both teams (seats 0 and 1) beside two of the arena's bots."""
    return {
        "game": "tractor",
        "rules": {"players": 4, "round_limit": 1},
        "match": {"rounds": 1, "seed": 2024},
        "table": {"decision_timeout_s": 10.0, "pace_s": 0.0},
        "seats": [
            {"name": "Example", "type": seat_type, "options": options},
            {"name": "Example2", "type": seat_type, "options": options},
            {"name": "East", "type": "heuristic"},
            {"name": "West", "type": "random"},
        ],
    }


async def play_clean(data: dict[str, Any]) -> None:
    [summary] = await run_arena(parse_config(data), seed=2024)
    assert len(summary.rounds) == 1
    for name in ("Example", "Example2"):
        assert summary.faults[name] == NO_FAULTS, name
        stats = summary.stats[name]
        assert stats["legal_first_try"] == stats["decisions"] > 0, name


async def test_an_example_plays_a_clean_tractor_match_as_a_subprocess_seat(language: str) -> None:
    await play_clean(tractor_config("subprocess", {"command": example_command(language)}))


async def test_an_example_plays_a_clean_tractor_match_as_an_http_seat(
    language: str, tmp_path: Path
) -> None:
    with example_server(language, tmp_path) as port:  # both seats post to the one server
        await play_clean(tractor_config("http", {"url": f"http://127.0.0.1:{port}/"}))


def test_the_tractor_config_beside_an_example_plays_as_the_docs_say(
    language: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # `arena play --config examples/<language>/arena-tractor.toml --no-live`, from the root
    monkeypatch.chdir(REPO)
    config = f"examples/{language}/arena-tractor.toml"
    assert main(["play", "--config", config, "--no-live"]) == 0
    lines = capsys.readouterr().out.splitlines()
    seat = SEAT_NAMES[language]
    assert any(seat in line and "follows" in line for line in lines)
    assert any("game over" in line for line in lines)
    # a fault is a "✗ seat: ..." line, and the match ends with "seat: N faults (...)"
    assert [line for line in lines if seat in line and ("✗" in line or "fault" in line)] == []
