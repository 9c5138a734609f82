"""What an agent in another program is told: the rules in force, a seed of its own, and,
when it asks, its legal moves.

Specification (issue 25, "Agents in other languages deserve what RLCard and OpenSpiel
give"; docs/protocol.md, DEAL and PLAY_REQUEST; docs/agents.md): every DEAL tells each
seat every rule setting in force and a seed of its own, derived from the match's seed,
the round, the deal and the seat, so the same match played again gives the same seeds;
a ``subprocess`` or ``http`` seat with ``options.legal_moves = true`` finds its legal
moves (canonical cards and hand type, PASS aside) in every PLAY_REQUEST, and a seat that
did not ask finds ``null``. Real programs (``tests/programs/stdio_bot.py``) receive the
messages; ``arena schema``'s files accept what they received.
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import engine_moves_of, listed_moves_of
from schema_check import schema_errors

from arena.agents.process import SubprocessAgent
from arena.cli import main
from arena.errors import ConfigError
from arena.games.ddz.engine import DEFAULT_RULES, Rules
from arena.games.ddz.messages import Deal, PlayRequest, TableRules, parse_message
from arena.games.ddz.views import deal_seeds, table_rules
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.table import MatchSummary, RoundRecord, Table, play_match
from arena.table.match import derive_seed, match_id_of
from arena.testing import check_agent
from protocol import ProtocolError

BOT = Path(__file__).resolve().parent / "programs" / "stdio_bot.py"
NAMES = ("Alpha", "Beta", "Gamma")
AGENTS_GUIDE = Path(__file__).resolve().parents[1] / "docs" / "agents.md"
_MATCHES = itertools.count(1)  # each match's records in a folder of its own


def recording_bot(name: str, record: Path, **options: Any) -> SubprocessAgent:
    """The test program as a seat, writing down every message it receives."""
    return SubprocessAgent(
        name, command=[sys.executable, str(BOT), "--record", str(record)], **options
    )


def received(record: Path) -> list[dict[str, Any]]:
    """The messages the program wrote down, in order."""
    return [json.loads(line)["message"] for line in record.read_text().splitlines()]


@dataclass
class Played:
    """What each seat's program received, and the match's summary."""

    seats: list[list[dict[str, Any]]]
    summary: MatchSummary


async def play_recorded(
    tmp_path: Path,
    *,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    rounds: int = 1,
    asked: Sequence[bool] = (False, False, False),
    done: Sequence[RoundRecord] = (),
) -> Played:
    """A match of three recording programs (the seats in ``asked`` with
    ``options.legal_moves``), resumed after the rounds ``done`` if any. Every round of
    the replay verifies and no seat made a fault."""
    folder = tmp_path / f"match-{next(_MATCHES)}"
    folder.mkdir()
    records = [folder / f"{name}.jsonl" for name in NAMES]
    agents = [  # a seat that does not ask leaves the option out, as a config would
        recording_bot(name, record, rules=rules, **({"legal_moves": True} if wants else {}))
        for name, record, wants in zip(NAMES, records, asked, strict=True)
    ]
    writer = ReplayWriter(folder / "replay.jsonl")
    table = Table(agents, rules=rules, recorder=writer.for_table("t1"), timeouts=[5.0] * 3)
    try:
        await table.open()
        summary = await play_match(table, rounds=rounds, seed=seed, done=done)
    finally:
        await table.close()
        writer.close()
    for one in load_replay(folder / "replay.jsonl").rounds:
        verify_round(one)
    for name in NAMES:
        assert not any(summary.faults[name].values()), summary.faults[name]
    return Played([received(record) for record in records], summary)


def of_type(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == kind]


def told_seeds(played: Played) -> list[list[int]]:
    """Per seat, the seed of each DEAL it received."""
    return [[deal["seed"] for deal in of_type(messages, "DEAL")] for messages in played.seats]


# --- the rules and the seed in every DEAL -------------------------------------------------


async def test_every_deal_tells_the_rules_and_a_seed_of_the_seats_own(tmp_path: Path) -> None:
    # The program passes every bid, so each round is dealt 4 times (3 redeals, then the
    # first bidder takes it): each of those DEALs has a seed of its own too.
    played = await play_recorded(tmp_path, seed=11, rounds=2)

    for messages in played.seats:
        deals = of_type(messages, "DEAL")
        assert [d["round_no"] for d in deals] == [1] * 4 + [2] * 4
        for deal in deals:
            assert deal["rules"] == {
                "scoring": "competition",
                "bidding": "single_round",
                "first_bidder": "random",
                "max_redeals": 3,
                "doubling": True,
                "per_defender_doubling": True,
                "loose_wings": False,
                "four_with_pair": False,
                "quadplex_as_bomb": False,
                "max_gift_doubles": 2,
            }
            assert isinstance(deal["seed"], int)
            assert 0 <= deal["seed"] < 2**53  # exact as a JSON number in every language
    every = [seed for per_seat in told_seeds(played) for seed in per_seat]
    assert len(set(every)) == len(every), "each seat, each deal, a seed of its own"


async def test_the_same_match_seed_gives_the_same_seeds_and_another_gives_others(
    tmp_path: Path,
) -> None:
    first = told_seeds(await play_recorded(tmp_path, seed=11))
    again = told_seeds(await play_recorded(tmp_path, seed=11))
    other = told_seeds(await play_recorded(tmp_path, seed=12))

    assert again == first
    assert not {s for seat in first for s in seat} & {s for seat in other for s in seat}


async def test_a_resumed_match_tells_the_seeds_it_would_have_told(tmp_path: Path) -> None:
    # A match cut off after round 1 (a tournament resumed after a crash) plays round 2
    # with fresh programs: the seeds come from the match's seed alone, not from history.
    whole = await play_recorded(tmp_path, seed=31, rounds=2)
    resumed = await play_recorded(tmp_path, seed=31, rounds=2, done=whole.summary.rounds[:1])

    def round_two(played: Played) -> list[list[int]]:
        return [
            [d["seed"] for d in of_type(messages, "DEAL") if d["round_no"] == 2]
            for messages in played.seats
        ]

    assert round_two(resumed) == round_two(whole)
    assert all(seeds for seeds in round_two(whole))


async def test_a_variant_shows_in_the_rules_every_seat_receives(tmp_path: Path) -> None:
    rules = Rules.preset(
        "casual",
        bidding="grab",
        first_bidder="rotate",
        max_redeals=5,
        loose_wings=True,
        four_with_pair=True,
        quadplex_as_bomb=True,
        max_gift_doubles=0,
    )
    played = await play_recorded(tmp_path, seed=3, rules=rules)

    for messages in played.seats:
        assert of_type(messages, "DEAL")
        for deal in of_type(messages, "DEAL"):
            assert deal["rules"] == {
                "scoring": "casual",
                "bidding": "grab",
                "first_bidder": "rotate",
                "max_redeals": 5,
                "doubling": False,  # the casual preset's, resolved: never null
                "per_defender_doubling": False,
                "loose_wings": True,
                "four_with_pair": True,
                "quadplex_as_bomb": True,
                "max_gift_doubles": 0,
            }


def test_the_rules_a_deal_tells_name_every_rule_setting() -> None:
    # A setting added to the engine's Rules must be told to the agents too.
    assert set(TableRules.model_fields) == set(Rules.model_fields)


async def test_arena_schema_accepts_the_deal_and_play_request_as_sent(tmp_path: Path) -> None:
    rules = Rules(loose_wings=True)
    played = await play_recorded(tmp_path, seed=5, rules=rules, asked=(True, False, False))
    asked = played.seats[0]
    assert main(["schema", str(tmp_path / "schemas")]) == 0

    for kind in ("DEAL", "PLAY_REQUEST"):
        schema = json.loads((tmp_path / "schemas" / f"{kind}.schema.json").read_text())
        sent = of_type(asked, kind)
        assert sent
        for message in sent:
            assert schema_errors(message, schema, schema.get("$defs", {}), kind) == []
            assert list(message) == list(schema["properties"])  # every field, in order
    deal_schema = json.loads((tmp_path / "schemas" / "DEAL.schema.json").read_text())
    told = deal_schema["$defs"]["TableRules"]
    assert set(told["required"]) == set(of_type(asked, "DEAL")[0]["rules"])
    assert told["additionalProperties"] is False


def test_a_deal_and_a_listed_move_are_checked_as_documented() -> None:
    # docs/protocol.md: the seed is 0..2^53-1, the rules name every setting, and a
    # listed move is never a PASS
    rules = table_rules(DEFAULT_RULES).model_dump()
    deal = {
        "type": "DEAL",
        "player_id": "A",
        "hand": ["♠3"],
        "hand_count": 1,
        "seat_order": ["A", "B", "C"],
        "rules": rules,
    }
    assert parse_message({**deal, "seed": 2**53 - 1}, expect=Deal).seed == 2**53 - 1
    for bad in (-1, 2**53, 1.5, "7"):
        with pytest.raises(ProtocolError, match=r"^DEAL\.seed: "):
            parse_message({**deal, "seed": bad})
    missing = {name: value for name, value in rules.items() if name != "loose_wings"}
    with pytest.raises(ProtocolError, match=r"^DEAL\.rules\.loose_wings: Field required"):
        parse_message({**deal, "rules": missing})
    request = {
        "type": "PLAY_REQUEST",
        "player_id": "A",
        "hand": ["♠3", "♥3"],
        "is_free_play": True,
        "last_play": None,
        "remaining_cards": {"A": 2, "B": 17, "C": 17},
        "role": "farmer",
    }
    listed = {**request, "legal_moves": [{"cards": ["♠3"], "hand_type": "SINGLE"}]}
    moves = parse_message(listed, expect=PlayRequest).legal_moves
    assert moves is not None
    assert moves[0].cards == ["♠3"]
    passing = {**request, "legal_moves": [{"cards": ["♠3"], "hand_type": "PASS"}]}
    with pytest.raises(ProtocolError, match=r"legal_moves\[0\]\.hand_type: a PASS is never"):
        parse_message(passing)


# --- the legal moves, for a seat that asks --------------------------------------------------


async def test_a_subprocess_seat_that_asks_gets_its_legal_moves_in_every_play_request(
    tmp_path: Path,
) -> None:
    rules = Rules(loose_wings=True, four_with_pair=True)
    played = await play_recorded(
        tmp_path, seed=21, rules=rules, rounds=2, asked=(True, False, False)
    )
    asked, beta, gamma = played.seats

    requests = of_type(asked, "PLAY_REQUEST")
    assert len(requests) >= 4
    for request in requests:
        assert listed_moves_of(request) == engine_moves_of(request, rules)
        for move in request["legal_moves"]:
            assert move["hand_type"] != "PASS"
    assert any(len(request["legal_moves"]) > 10 for request in requests)
    for others in (beta, gamma):
        plays = of_type(others, "PLAY_REQUEST")
        assert plays
        assert all(request["legal_moves"] is None for request in plays)


async def test_arena_agent_check_lists_the_moves_for_a_seat_that_asks(tmp_path: Path) -> None:
    record = tmp_path / "check.jsonl"
    rules = Rules(loose_wings=True)
    agent = recording_bot("MyBot", record, rules=rules, legal_moves=True)
    await agent.open()
    try:
        report = await check_agent(agent, timeout_s=5.0, rules=rules)
    finally:
        await agent.close()

    assert report.passed, report.as_text()
    requests = of_type(received(record), "PLAY_REQUEST")
    assert len(requests) == 9  # eight play positions, one asked twice
    for request in requests:
        assert listed_moves_of(request) == engine_moves_of(request, rules)
    for deal in of_type(received(record), "DEAL"):
        assert deal["rules"]["loose_wings"] is True
        assert isinstance(deal["seed"], int)


@pytest.mark.parametrize("value", ["yes", 1, None])
def test_legal_moves_must_be_true_or_false(value: object) -> None:
    with pytest.raises(ConfigError, match=r"options\.legal_moves must be true or false"):
        SubprocessAgent("A", command=[sys.executable, str(BOT)], legal_moves=value)


# --- the guide's examples -----------------------------------------------------------------


def test_the_guides_example_messages_carry_the_ids_of_the_matches_it_names() -> None:
    text = AGENTS_GUIDE.read_text(encoding="utf-8")
    section = text[text.index("## 4. The messages") : text.index("## 5. How the messages")]
    [main_match] = re.findall(r"\(match `(\d+)`, table `t1`\)", section)
    [other_match] = re.findall(r"another match\s+\(match `(\d+)`\)", section)
    assert main_match != other_match
    blocks = [json.loads(b) for b in re.findall(r"```json\n(.*?)```", text, re.DOTALL)]
    named = [b for b in blocks if "match_id" in b]
    assert len(named) >= 10
    for block in named:
        # the one DOUBLE_REQUEST shown comes from the other match; the rest from the main one
        match = other_match if block["type"] == "DOUBLE_REQUEST" else main_match
        assert block["match_id"] == match_id_of(int(match)), block["type"]
    # and the DEAL's seed is the one that match's seat was told
    [dealt] = [b for b in named if b["type"] == "DEAL"]
    seat = dealt["seat_order"].index(dealt["player_id"])
    round_seed = derive_seed(int(main_match), "t1", dealt["round_no"])
    assert dealt["seed"] == deal_seeds(round_seed, 1)[seat]
    assert dealt["rules"] == table_rules(DEFAULT_RULES).model_dump()
