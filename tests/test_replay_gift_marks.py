"""The replay check finds edits to what gifts did to a round (issue 11).

A round's header keeps what viewers' gifts changed between rounds (``gift_changes``:
ROLE_SWAP, RESHUFFLE), its ``round_started`` event says the landlord chosen and whether
the deal was reshuffled, and its record (the round_end summary and the ``round_result``
event) marks the result-changing gifts that touched it (``gifts``). ``arena replay``
checks them against each other and against the header and the effect lines it applies:
an untouched replay verifies, each edit below is caught with a message naming it, and a
replay recorded before the marks still verifies.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.replay import RoundMismatch, load_replay, verify_round

OLD_REPLAY = Path(__file__).resolve().parent / "data" / "replay-before-issue-7.jsonl"

CONFIG = """
[gifts]
viewer_cooldown_s = 0
strong_cooldown_s = 0

[gifts.cooldowns]
CHEER = 0.0
EMOTE = 0.0
EFFECT = 0.0
PEEK = 0.0
SWAP = 0.0
ADD = 0.0
DOUBLE = 0.0
ROLE_SWAP = 0.0
RESHUFFLE = 0.0
"""

GIFTS = [
    {"event_id": "r1", "platform": "test", "effect": "RESHUFFLE", "at": 0},
    {"event_id": "s1", "platform": "test", "effect": "ROLE_SWAP", "target_seat": 2, "at": 0},
    {"event_id": "d1", "platform": "test", "effect": "DOUBLE", "at": 0},
    {"event_id": "d2", "platform": "test", "effect": "DOUBLE", "at": 0},
    {"event_id": "d3", "platform": "test", "effect": "DOUBLE", "at": 0},
    {"event_id": "w1", "platform": "test", "effect": "SWAP", "at": 0},
    {"event_id": "a1", "platform": "test", "effect": "ADD", "at": 0},
]

Lines = list[dict[str, Any]]


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real three-round match with gifts between rounds and during them, recorded."""
    folder = tmp_path_factory.mktemp("gift-marks")
    config, gift_file, out = folder / "arena.toml", folder / "gifts.jsonl", folder / "m.jsonl"
    config.write_text(CONFIG, encoding="utf-8")
    gift_file.write_text("".join(json.dumps(g) + "\n" for g in GIFTS), encoding="utf-8")
    argv = ["play", "--no-live", "--rounds", "3", "--seed", "11", "--pace", "0.02"]
    extra = ["--gift-file", str(gift_file), "--record", str(out), "--config", str(config)]
    assert main([*argv, *extra]) == 0
    return out


def lines_of(path: Path) -> Lines:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write(path: Path, lines: Lines) -> Path:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def header_with(lines: Lines, effect: str) -> dict[str, Any]:
    """The round_start line whose gift_changes hold ``effect``."""
    return next(
        line
        for line in lines
        if line["kind"] == "round_start"
        and any(c["effect"] == effect for c in line.get("gift_changes", []))
    )


def change(header: dict[str, Any], effect: str) -> dict[str, Any]:
    return next(c for c in header["gift_changes"] if c["effect"] == effect)


def round_end(lines: Lines, round_no: int) -> dict[str, Any]:
    return next(line for line in lines if line["kind"] == "round_end" and line["round"] == round_no)


def event(lines: Lines, kind: str, round_no: int) -> dict[str, Any]:
    return next(
        line["event"]
        for line in lines
        if line["kind"] == "event"
        and line["event"]["type"] == kind
        and line["event"]["round"] == round_no
    )


def effect_round(lines: Lines) -> int:
    """The first round with effect lines (gifts applied during it)."""
    return int(next(line["round"] for line in lines if line["kind"] == "effect"))


def unordered_round(lines: Lines) -> int:
    """A round whose marks change when reversed, one with effect lines if any is."""
    ends = [line for line in lines if line["kind"] == "round_end"]
    mixed = [e["round"] for e in ends if e["summary"]["gifts"] != e["summary"]["gifts"][::-1]]
    during = {line["round"] for line in lines if line["kind"] == "effect"}
    return int(next((r for r in mixed if r in during), mixed[0]))


def test_the_untouched_replay_has_gifts_of_every_kind_and_verifies(
    replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = lines_of(replay)
    swapped, reshuffled = header_with(lines, "ROLE_SWAP"), header_with(lines, "RESHUFFLE")
    assert swapped is reshuffled  # round 2: both gifts waited for the break after round 1
    round_no = swapped["round"]
    assert swapped["landlord"] == change(swapped, "ROLE_SWAP")["seat"] == 2
    assert swapped["seed"] == change(swapped, "RESHUFFLE")["seed"]
    effects = [line for line in lines if line["kind"] == "effect"]
    assert effects
    changed = [c["effect"] for c in swapped["gift_changes"]]
    assert round_end(lines, round_no)["summary"]["gifts"][: len(changed)] == changed
    started = event(lines, "round_started", round_no)["data"]
    assert started["landlord"] == 2
    assert started["reshuffled"] is True
    marked = [g for line in lines if line["kind"] == "round_end" for g in line["summary"]["gifts"]]
    assert {"DOUBLE", "ADD"} & set(marked)  # the effect lines' marks
    assert any(not line["summary"]["gifts"] for line in lines if line["kind"] == "round_end")

    rounds = load_replay(replay).rounds
    assert len(rounds) == 3
    for recorded in rounds:
        verify_round(recorded)
    capsys.readouterr()
    assert main(["replay", str(replay)]) == 0
    assert capsys.readouterr().out.count("✓ table t1 round") == 3


def _reshuffle_seed(lines: Lines) -> None:
    change(header_with(lines, "RESHUFFLE"), "RESHUFFLE")["seed"] += 1


def _role_swap_removed(lines: Lines) -> None:
    header = header_with(lines, "ROLE_SWAP")
    header["gift_changes"] = [c for c in header["gift_changes"] if c["effect"] != "ROLE_SWAP"]


def _gift_changes_removed(lines: Lines) -> None:
    del header_with(lines, "ROLE_SWAP")["gift_changes"]


def _role_swap_seat(lines: Lines) -> None:
    change(header_with(lines, "ROLE_SWAP"), "ROLE_SWAP")["seat"] = 0


def _role_swap_call_score(lines: Lines) -> None:
    change(header_with(lines, "ROLE_SWAP"), "ROLE_SWAP")["call_score"] += 1


def _second_role_swap(lines: Lines) -> None:
    header = header_with(lines, "ROLE_SWAP")
    header["gift_changes"].append(dict(change(header, "ROLE_SWAP"), gift="test:x#0"))


def _prepared_seed_is_the_seed(lines: Lines) -> None:
    reshuffle = change(header_with(lines, "RESHUFFLE"), "RESHUFFLE")
    reshuffle["prepared_seed"] = reshuffle["seed"]


def _prepared_seed_no_seed(lines: Lines) -> None:
    change(header_with(lines, "RESHUFFLE"), "RESHUFFLE")["prepared_seed"] = "12"


def _unknown_change(lines: Lines) -> None:
    header_with(lines, "RESHUFFLE")["gift_changes"].append({"effect": "SWAP", "gift": "g"})


def _summary_gifts_cleared(lines: Lines) -> None:
    round_end(lines, header_with(lines, "ROLE_SWAP")["round"])["summary"]["gifts"] = []


def _summary_gifts_removed(lines: Lines) -> None:
    del round_end(lines, header_with(lines, "ROLE_SWAP")["round"])["summary"]["gifts"]


def _event_gifts_cleared(lines: Lines) -> None:
    event(lines, "round_result", header_with(lines, "ROLE_SWAP")["round"])["data"]["gifts"] = []


def _both_gifts_removed(lines: Lines) -> None:
    round_no = effect_round(lines)
    del round_end(lines, round_no)["summary"]["gifts"]
    del event(lines, "round_result", round_no)["data"]["gifts"]


def _event_gifts_reordered(lines: Lines) -> None:
    data = event(lines, "round_result", unordered_round(lines))["data"]
    data["gifts"] = data["gifts"][::-1]


def _summary_extra_double(lines: Lines) -> None:
    round_end(lines, effect_round(lines))["summary"]["gifts"].append("DOUBLE")


def _reshuffled_flipped(lines: Lines) -> None:
    data = event(lines, "round_started", header_with(lines, "RESHUFFLE")["round"])["data"]
    data["reshuffled"] = not data["reshuffled"]


def _started_landlord(lines: Lines) -> None:
    event(lines, "round_started", header_with(lines, "ROLE_SWAP")["round"])["data"]["landlord"] = 1


def _reshuffled_without_changes(lines: Lines) -> None:
    data = event(lines, "round_started", 1)["data"]
    data["reshuffled"] = False


EDITS: list[tuple[Callable[[Lines], None], str]] = [
    (_reshuffle_seed, "RESHUFFLE deals seed"),
    (_role_swap_removed, "landlord without bidding, but the round_start line's gift_changes"),
    (_gift_changes_removed, "says landlord 2, but the round_start line has no gift_changes"),
    (_role_swap_seat, "ROLE_SWAP makes seat 0 landlord"),
    (_role_swap_call_score, "but the round_start line has landlord 2 at call score"),
    (_second_role_swap, "is a second ROLE_SWAP"),
    (_prepared_seed_is_the_seed, "again instead of a fresh deal"),
    (_prepared_seed_no_seed, "(RESHUFFLE) has prepared_seed '12'"),
    (_unknown_change, "has effect 'SWAP', neither ROLE_SWAP nor RESHUFFLE"),
    (_summary_gifts_cleared, "(round_end) marks gifts []"),
    (
        _summary_gifts_removed,
        "(round_end) has no gifts key; expected gifts ['RESHUFFLE', 'ROLE_SWAP'",
    ),
    (_event_gifts_cleared, "(round_result) marks gifts []"),
    (_both_gifts_removed, "neither the round_end line nor the round_result event marks"),
    (_event_gifts_reordered, "(round_result) marks gifts ["),
    (_summary_extra_double, "(round_end) marks gifts ["),
    (_reshuffled_flipped, "(round_started) says reshuffled False"),
    (_started_landlord, "(round_started) says landlord 1"),
    (_reshuffled_without_changes, "but the round_start line has no gift_changes"),
]


@pytest.mark.parametrize(("edit", "said"), EDITS, ids=[e.__name__.strip("_") for e, _ in EDITS])
def test_each_edit_of_the_gift_record_is_caught(
    replay: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    edit: Callable[[Lines], None],
    said: str,
) -> None:
    original = lines_of(replay)
    lines = copy.deepcopy(original)
    edit(lines)
    assert lines != original
    path = write(tmp_path / "edited.jsonl", lines)
    found = []
    for recorded in load_replay(path).rounds:
        try:
            verify_round(recorded)
        except RoundMismatch as exc:
            found.append(str(exc))
    assert len(found) == 1, found
    assert said in found[0]
    capsys.readouterr()
    assert main(["replay", str(path), "--quiet"]) == 1
    assert f"✗ {found[0]}" in capsys.readouterr().out


def test_the_marks_say_what_was_expected_and_what_was_found(replay: Path, tmp_path: Path) -> None:
    lines = lines_of(replay)
    round_no = effect_round(lines)
    summary = round_end(lines, round_no)["summary"]
    expected = list(summary["gifts"])
    summary["gifts"] = [*expected, "DOUBLE"]
    recorded = load_replay(write(tmp_path / "edited.jsonl", lines)).rounds[round_no - 1]
    with pytest.raises(RoundMismatch) as caught:
        verify_round(recorded)
    assert f"marks gifts {[*expected, 'DOUBLE']!r}" in str(caught.value)
    assert f"effect lines make them {expected!r}" in str(caught.value)


def test_a_round_without_gifts_may_lack_the_marks_like_an_old_replay(
    replay: Path, tmp_path: Path
) -> None:
    lines = lines_of(replay)
    plain = next(
        line["round"]
        for line in lines
        if line["kind"] == "round_end" and not line["summary"]["gifts"]
    )
    del round_end(lines, plain)["summary"]["gifts"]
    del event(lines, "round_result", plain)["data"]["gifts"]
    for recorded in load_replay(write(tmp_path / "old-style.jsonl", lines)).rounds:
        verify_round(recorded)


def test_a_replay_from_before_the_gifts_still_verifies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    lines = lines_of(OLD_REPLAY)
    assert not any("gift_changes" in line for line in lines)
    assert not any("gifts" in line["summary"] for line in lines if line["kind"] == "round_end")
    rounds = load_replay(OLD_REPLAY).rounds
    assert rounds
    for recorded in rounds:
        verify_round(recorded)
    assert main(["replay", str(OLD_REPLAY), "--quiet"]) == 0
