"""docs/protocol-tractor.md stays true to the arena: the guide for Tractor agent authors.

Specification (issue 29, "agent authors learn the protocol from our docs alone"): every
Tractor message has its section naming each of its fields; every JSON block of the page
reads as a Tractor message; the example round is real: its transcript
(docs/protocol-tractor-round.jsonl, written by tests/tractor_transcript.py from a real
table) holds every message type, every reply answers the request before it, and each
block of the page's example round is one of its messages, in order, verbatim; the card
faces the page offers are read as it says; ``arena schema --game tractor`` writes a
schema per message, which every message of the transcript meets; the other guides link
the page.
"""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from schema_check import schema_errors
from tractor_transcript import TRANSCRIPT, layout

from arena.cli import main
from arena.config import parse_config
from arena.errors import CardResolutionError
from arena.games.tractor.engine import resolve_cards
from arena.games.tractor.engine.cards import card_id
from arena.games.tractor.messages import MESSAGE_TYPES, parse_message

DOCS = Path(__file__).resolve().parent.parent / "docs"
GUIDE = DOCS / "protocol-tractor.md"
ENVELOPE = {
    "type",
    "match_id",
    "table_id",
    "round_no",
    "request_id",
    "time_limit_ms",
    "comment",
    "emotion",
    "strategy_hint",
}
"""Fields the page's envelope section tells once for every message."""
AGAIN = (
    "after a change to the messages or the example agent, write the transcript again "
    "(PYTHONPATH=. .venv/bin/python tests/tractor_transcript.py) and take the page's "
    "blocks from it (--show)"
)


def guide() -> str:
    return GUIDE.read_text(encoding="utf-8")


def json_blocks(text: str) -> list[str]:
    return re.findall(r"```json\n(.*?)```", text, re.DOTALL)


def section(text: str, heading: str) -> str:
    """The text from ``heading`` to the next heading of its level or higher."""
    start = text.index(heading)
    level = heading.split(" ", 1)[0]
    rest = text[start + len(heading) :]
    ends = [m.start() for m in re.finditer(rf"^#{{1,{len(level)}}} ", rest, re.MULTILINE)]
    return heading + (rest[: ends[0]] if ends else rest)


def transcript() -> list[dict[str, Any]]:
    return [json.loads(line) for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines()]


def test_every_json_block_of_the_page_is_a_tractor_message() -> None:
    types = [parse_message(block).type for block in json_blocks(guide())]
    assert set(types) == set(MESSAGE_TYPES)


@pytest.mark.parametrize("name", list(MESSAGE_TYPES))
def test_every_message_has_a_section_naming_each_of_its_fields(name: str) -> None:
    text = guide()
    heading = next(
        line
        for line in text.splitlines()
        if line == f"### {name}" or line.startswith(f"### {name} ")
    )
    told = section(text, heading)
    fields = set(MESSAGE_TYPES[name].model_fields) - ENVELOPE
    missing = [field for field in sorted(fields) if f"`{field}`" not in told]
    assert missing == [], f"{name}: {missing}"


def test_the_nested_records_fields_are_named_too() -> None:
    text = guide()
    follow = section(text, "## The follow shape")
    for field in ("suit_group", "count", "held", "void", "short", "tractors", "pairs"):
        assert f"`{field}`" in follow, field
    for field in ("players", "kitty", "deal_steps", "play_through", "round_limit"):
        assert f"`{field}`" in text, field
    for field in ("kind", "suit_group", "shape"):  # a lead's
        assert f"`{field}`" in section(text, "### PLAY_REQUEST —"), field


def test_the_config_on_the_page_is_a_tractor_config() -> None:
    [block] = re.findall(r"```toml\n(.*?)```", guide(), re.DOTALL)
    config = parse_config(tomllib.loads(block))
    assert config.game == "tractor"
    types = [seat.type for seat in config.seats]
    assert types == ["subprocess", "heuristic", "heuristic", "random"]


def test_the_envelope_is_told_once_for_every_message() -> None:
    told = section(guide(), "## The envelope")
    for field in ENVELOPE:
        assert f"`{field}`" in told, field


def test_the_transcript_is_one_real_round_seen_from_one_seat() -> None:
    lines = transcript()
    messages = [parse_message(line["message"]) for line in lines]  # each reads strictly
    assert {m.type for m in messages} == set(MESSAGE_TYPES)
    assert messages[0].type == "DEAL"
    assert [m.type for m in messages[-3:]] == ["ROUND_RESULT", "GAME_OVER", "MATCH_END"]
    # every reply answers the request written just before it, for the seat asked
    for before, line in itertools.pairwise(lines):
        if line["from"] == "agent":
            request = before["message"]
            assert before["from"] == "arena"
            assert request["type"].endswith("_REQUEST")
            assert line["message"]["request_id"] == request["request_id"]
            assert line["message"]["player_id"] == request["player_id"] == "South"
    # one reply was made wrong on purpose, and only that one was refused
    injected = [i for i, line in enumerate(lines) if line.get("injected")]
    rejected = [i for i, m in enumerate(messages) if m.type == "REPLY_REJECTED"]
    assert len(injected) == 1
    assert rejected == [injected[0] + 1]


def test_each_block_of_the_example_round_is_a_transcript_message_verbatim_in_order() -> None:
    example = section(guide(), "## An example round, as the arena sent it")
    blocks = json_blocks(example)
    sent = [line["message"] for line in transcript()]
    at = -1
    for block in blocks:
        message = json.loads(block)
        later = [i for i in range(at + 1, len(sent)) if sent[i] == message]
        assert later, f"not in the transcript after message {at}: {block[:80]} ({AGAIN})"
        at = later[0]
        assert block.rstrip("\n") == layout(message)  # shown as it came, lines broken only
    assert len(blocks) >= 20


def test_the_faces_the_page_offers_name_cards_as_it_says() -> None:
    text = section(guide(), "## Cards")
    hand = [card_id(c) for c in ("D2_H_10", "D1_S_A", "D2_D_Q", "D1_SJ", "D2_BJ", "D1_S_J")]
    for token, card in [
        ("D2_H_10", "D2_H_10"),
        ("♥10", "D2_H_10"),
        ("H10", "D2_H_10"),
        ("10h", "D2_H_10"),
        ("sA", "D1_S_A"),
        ("Qd", "D2_D_Q"),
        ("小王", "D1_SJ"),
        ("SJ", "D1_SJ"),
        ("small joker", "D1_SJ"),
        ("大王", "D2_BJ"),
        ("BJ", "D2_BJ"),
        ("big joker", "D2_BJ"),
        ("JS", "D1_S_J"),
    ]:
        assert f"`{token}`" in text, token
        assert resolve_cards([token], hand) == (card_id(card),), token
    with pytest.raises(CardResolutionError, match="name the suit"):
        resolve_cards(["10"], hand)
    with pytest.raises(CardResolutionError, match="not in the hand"):
        resolve_cards(["D1_H_10"], hand)


def test_arena_schema_writes_every_tractor_message_and_the_transcript_meets_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema", str(tmp_path), "--game", "tractor"]) == 0
    capsys.readouterr()
    schemas = {
        name: json.loads((tmp_path / f"{name}.schema.json").read_text(encoding="utf-8"))
        for name in MESSAGE_TYPES
    }
    for line in transcript():
        message = line["message"]
        schema = schemas[message["type"]]
        assert schema_errors(message, schema, schema.get("$defs", {}), message["type"]) == []
    union = json.loads((tmp_path / "messages.schema.json").read_text(encoding="utf-8"))
    assert "TractorArena" in union["title"]


@pytest.mark.parametrize("page", ["protocol.md", "agents.md"])
def test_the_other_guides_link_the_page(page: str) -> None:
    assert "(protocol-tractor.md)" in (DOCS / page).read_text(encoding="utf-8")
