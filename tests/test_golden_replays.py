"""Dou Dizhu plays as it did before the game seam: each golden match (``golden_replays``),
recorded again from its seed and config, is the same match as the one kept, message for
message and event for event, timing aside (``arena replay --compare``), and the kept one
still verifies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from golden_replays import GOLDEN, Golden, record, unpacked

from arena.cli import main


@pytest.mark.parametrize("golden", GOLDEN, ids=[g.name for g in GOLDEN])
def test_a_golden_match_records_the_same_replay_again(
    golden: Golden, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kept = unpacked(golden, tmp_path)
    again = tmp_path / f"{golden.name}.jsonl"
    record(golden, again)
    capsys.readouterr()
    assert main(["replay", str(kept), "--compare", str(again)]) == 0, capsys.readouterr().out
    assert main(["replay", "--quiet", str(kept)]) == 0, capsys.readouterr().out
    lines = [json.loads(line) for line in kept.read_text(encoding="utf-8").splitlines()]
    rounds = {(line["table"], line["round"]) for line in lines if line["kind"] == "round_end"}
    assert len(rounds) == golden.rounds * golden.tables  # every round is in it


def test_a_changed_replay_is_not_the_same_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The comparison the golden matches rest on does see a change of play."""
    golden = GOLDEN[1]
    kept = unpacked(golden, tmp_path)
    lines = kept.read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(lines) if '"PLAY_RESPONSE"' in line)
    changed = tmp_path / "changed.jsonl"
    edited = json.loads(lines[at])
    edited["message"]["comment"] = "a different word"
    lines[at] = json.dumps(edited, ensure_ascii=False)
    changed.write_text("\n".join(lines) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(kept), "--compare", str(changed)]) == 1
    assert "comment" in capsys.readouterr().out
