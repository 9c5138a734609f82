"""Replays hold up against bad agents, edits and accidents, and `arena replay` says what it found.

Specification (issue 7): whatever an agent returns or raises, the table goes on and the
replay stays complete and verifiable; the replay check replays the protocol messages as
well as the events, through a fresh engine, and finds any edit that makes them disagree;
a replay cut off mid-file has its complete rounds verified and says where it ends; files
that are no replay give one clear line; two recordings of one seed compare equal apart
from timing fields (``arena replay A --compare B``); replays recorded before issue 7 still
read and verify.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.replay import ReplayWriter
from protocol import PlayResponse

OLD_REPLAY = Path(__file__).resolve().parent / "data" / "replay-before-issue-7.jsonl"

SEATS = """
[[seats]]
name = "A"
[[seats]]
name = "B"
{b}
[[seats]]
name = "C"
"""


def record(path: Path, *, seed: int = 7, rounds: int = 2, extra: tuple[str, ...] = ()) -> Path:
    argv = ["play", "--no-live", "--rounds", str(rounds), "--seed", str(seed)]
    assert main([*argv, "--record", str(path), *extra]) == 0
    return path


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def from_agent(lines: list[dict[str, Any]], seat: int) -> list[dict[str, Any]]:
    return [
        line
        for line in lines
        if line["kind"] == "message" and line["dir"] == "from_agent" and line["seat"] == seat
    ]


# ─── bad replies never stop the recording ───────────────────────────────────────────────


@pytest.mark.parametrize("reply", ["dict", "str", "none", "int", "wire_dict"])
def test_a_match_with_bad_replies_records_a_replay_that_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reply: str
) -> None:
    """Seat B answers every play request with something that is no PLAY_RESPONSE (or with
    a good one as a plain dict): four tables still finish, and the replay verifies."""
    config = tmp_path / "seats.toml"
    b_seat = f'type = "agents_for_tests:JunkReplyAgent"\noptions = {{ reply = "{reply}" }}'
    config.write_text(SEATS.format(b=b_seat), encoding="utf-8")
    path = record(tmp_path / "junk.jsonl", extra=("--tables", "4", "--config", str(config)))
    lines = lines_of(path)
    assert {line["table"] for line in lines if line["kind"] == "round_end"} == {
        "t1",
        "t2",
        "t3",
        "t4",
    }
    replies = [line["message"] for line in from_agent(lines, 1)]
    junk = [m for m in replies if "invalid_reply" in m]
    if reply == "wire_dict":
        assert not junk
        assert any(m["type"] == "PLAY_RESPONSE" for m in replies)
    else:
        python_type = {"dict": "dict", "str": "str", "none": "NoneType", "int": "int"}[reply]
        assert junk, "seat B was never asked to play"
        assert all(m["python_type"] == python_type for m in junk)
    capsys.readouterr()
    assert main(["replay", "--quiet", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 8
    assert all(line.startswith("✓") for line in out), out


def test_the_recorder_writes_any_reply_and_marks_a_late_one(tmp_path: Path) -> None:
    """A reply built past pydantic's checks with values JSON cannot hold is written as its
    repr, like any other object; ``late`` becomes ``"late": true``."""
    writer = ReplayWriter(tmp_path / "r.jsonl")
    recorder = writer.for_table("t1")
    recorder.round_started({"round": 1, "table": "t1"})
    forged = PlayResponse.model_construct(player_id="B", action="PLAY", cards=[object()])
    recorder.message("from_agent", 1, forged, 2.0)
    recorder.message("from_agent", 1, {"bid": {1, 2}}, 3.0, late=True)
    good = PlayResponse(player_id="B", action="PASS")
    recorder.message("from_agent", 1, good, 1.0)
    writer.close()
    first, second, third = (line for line in lines_of(writer.path) if line["kind"] == "message")
    assert first["message"]["python_type"] == "PlayResponse"
    assert "object object" in first["message"]["invalid_reply"]
    assert "late" not in first
    assert second["message"] == {"invalid_reply": "{'bid': {1, 2}}", "python_type": "dict"}
    assert second["late"] is True
    assert third["message"]["action"] == "PASS"
    assert "late" not in third
