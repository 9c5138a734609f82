"""Each shared vocabulary is defined once; the other names are derived from it and agree."""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path
from typing import get_args

import pytest

from arena.errors import AgentReplyError, ReplyFault
from arena.games.ddz.engine import DECK
from arena.games.ddz.messages import MESSAGE_TYPES
from arena.table import FAULT_CATEGORIES, FaultCategory, Faults
from protocol import (
    ACE,
    BIG_JOKER,
    RANK_NAMES,
    REJECT_REASONS,
    SMALL_JOKER,
    TWO,
    RejectReason,
    ReplyRejected,
    json_schemas,
)


def test_the_reject_reasons_are_the_literal_and_the_schema_enum() -> None:
    assert get_args(RejectReason) == REJECT_REASONS
    assert len(set(REJECT_REASONS)) == len(REJECT_REASONS) == 6
    schema = json_schemas(MESSAGE_TYPES)["REPLY_REJECTED"]
    assert tuple(schema["properties"]["reason"]["enum"]) == REJECT_REASONS


@pytest.mark.parametrize("reason", REJECT_REASONS)
def test_each_reject_reason_is_a_reply_fault_and_a_wire_reason(reason: RejectReason) -> None:
    assert AgentReplyError(reason, "detail").category == reason
    rejected = ReplyRejected(
        player_id="Alpha", request_type="PLAY_REQUEST", reason=reason, detail="", retries_left=0
    )
    assert rejected.reason == reason


def test_reply_faults_are_the_reject_reasons() -> None:
    assert get_args(ReplyFault) == REJECT_REASONS


def test_fault_categories_are_the_reject_reasons_and_fallback() -> None:
    assert get_args(FaultCategory) == FAULT_CATEGORIES == (*REJECT_REASONS, "fallback")


def test_the_faults_tally_has_one_field_per_category_in_order() -> None:
    assert tuple(f.name for f in fields(Faults)) == FAULT_CATEGORIES
    assert tuple(Faults().to_dict()) == FAULT_CATEGORIES


@pytest.mark.parametrize("category", FAULT_CATEGORIES)
def test_each_fault_category_is_counted_under_its_own_name(category: FaultCategory) -> None:
    faults = Faults()
    faults.add(category)
    assert faults.to_dict() == {c: int(c == category) for c in FAULT_CATEGORIES}


def test_the_rank_constants_name_the_ranks_the_protocol_writes() -> None:
    names = {ACE: "A", TWO: "2", SMALL_JOKER: "小王", BIG_JOKER: "大王"}
    assert {rank: RANK_NAMES[rank] for rank in names} == names
    assert (DECK[52].rank, DECK[53].rank) == (SMALL_JOKER, BIG_JOKER)


RANK_CONSTANTS = {"ACE", "TWO", "SMALL_JOKER", "BIG_JOKER", "RANK_NAMES"}


def _assigned_names(path: Path) -> set[str]:
    """Names a module binds at its top level by assignment."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def test_only_the_protocol_defines_the_rank_constants() -> None:
    """The engine, the agents and the benchmarks import them instead of keeping a copy."""
    root = Path(__file__).resolve().parents[1]
    copies = [
        f"{path.relative_to(root)}: {sorted(_assigned_names(path) & RANK_CONSTANTS)}"
        for folder in ("arena", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if _assigned_names(path) & RANK_CONSTANTS
    ]
    assert copies == []
