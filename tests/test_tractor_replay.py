"""A recorded Tractor match is evidence: ``arena replay`` re-checks every round through a
fresh engine, and a single card changed anywhere fails it, naming the line and the card.

Specification (issue 29, Tractor at the arena; docs/rules-tractor.md): ``arena play
--record`` writes a Tractor match as it writes any (arena/replay.py); ``arena replay
FILE`` walks each round beside a fresh engine of the header's seed, levels, banker and
tie-breaking seat and checks the DEAL and every request against the engine, each
declaration window, the burial (the kitty the round's end shows), every play and
punished throw, every trick's winner and points, the kill, the level change and the
result; ``--compare`` says whether two recordings are the same match. Real tables of 4
and 6 scripted seats play the matches, some of them erring (rejected replies, fallbacks,
a stand-in).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tractor_matches import ClumsyAgent, names, play_tractor, tractor_rules

from arena.cli import main
from arena.replay import load_replay, verify_round
from arena.table import SafePointHandle
from arena.table.safe_point import PHASE_PLAY


async def recorded(
    path: Path, players: int, seed: int, *, clumsy: bool = False, swaps: bool = False
) -> Path:
    """A match of two rounds recorded into ``path``: of random seats, or ``clumsy`` ones;
    with ``swaps``, a viewer's 换牌 before every lead but a hand's last few."""
    rules = tractor_rules(players, 2)
    agents = None
    if clumsy:
        agents = [
            ClumsyAgent(name, seed=i, rules=rules, hopeless=i == 1)
            for i, name in enumerate(names(players))
        ]
    await play_tractor(
        rules, seed=seed, record=path, agents=agents, safe_points=[swap] if swaps else []
    )
    return path


async def swap(handle: SafePointHandle) -> None:
    """换牌 between the seat about to lead and the next (an opponent): their first cards."""
    leader = handle.to_act
    if handle.phase != PHASE_PLAY or not handle.is_leading or leader is None:
        return
    if handle.hand_sizes[leader] > 3:
        other = (leader + 1) % handle.seats
        handle.swap_cards(leader, handle.hand(leader)[0], other, handle.hand(other)[0])


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def events(path: Path, kind: str) -> list[dict[str, Any]]:
    return [line["event"] for line in lines_of(path) if line.get("event", {}).get("type") == kind]


def replay(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(["replay", *args])
    return code, capsys.readouterr().out


# ─── real matches verify ────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("players", [4, 6])
async def test_a_recorded_match_verifies_round_by_round(
    tmp_path: Path, players: int, capsys: pytest.CaptureFixture[str]
) -> None:
    path = await recorded(tmp_path / "match.jsonl", players, seed=3)

    code, out = replay(capsys, str(path), "--quiet")

    assert code == 0, out
    assert out.splitlines() == [
        f"✓ table t1 round {r}: every move legal, messages agree, scores match" for r in (1, 2)
    ]
    header = lines_of(path)[1]
    assert (header["kind"], header["game"], len(header["players"])) == (
        "round_start",
        "tractor",
        players,
    )
    # what the check walked: windows, a burial, plays, tricks, a punished throw, the result
    for kind in ("declare", "bury", "play", "trick_won", "throw_punished", "round_result"):
        assert events(path, kind), kind
    rounds = load_replay(path).rounds
    finished = [verify_round(r) for r in rounds]
    assert [r.result is not None for r in finished] == [True, True]
    assert finished[0].result.levels_after == tuple(rounds[1].header["levels"])


def test_arena_play_records_a_match_that_arena_replay_shows_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "six.jsonl"
    play = ["play", "--no-live", "--seed", "5", "--rounds", "1", "--game", "tractor"]
    assert main([*play, "--players", "6", "--record", str(record)]) == 0
    capsys.readouterr()

    code, out = replay(capsys, str(record))

    lines = out.splitlines()
    assert code == 0, out
    assert lines[0].startswith("== table t1, round 1, seed ")
    assert any("trump locked: level 2" in line for line in lines)  # Tractor's lines
    assert any("buries 12 cards" in line for line in lines)
    assert lines[-1] == "✓ table t1 round 1: every move legal, messages agree, scores match"


@pytest.mark.parametrize("players", [4, 6])
async def test_rejected_replies_fallbacks_and_a_stand_in_verify_too(
    tmp_path: Path, players: int
) -> None:
    path = await recorded(tmp_path / "clumsy.jsonl", players, seed=players, clumsy=True)

    for one in load_replay(path).rounds:
        verify_round(one)
    shown = lines_of(path)
    rejected = [m for m in shown if m.get("message", {}).get("type") == "REPLY_REJECTED"]
    assert rejected
    for kind in ("declare", "bury", "play"):
        assert any(e["data"]["fallback"] for e in events(path, kind)), kind
    assert events(path, "seat_replaced")


async def test_a_round_with_viewers_swaps_verifies_and_its_record_marks_each(
    tmp_path: Path,
) -> None:
    path = await recorded(tmp_path / "swaps.jsonl", 4, seed=3, swaps=True)

    rounds = load_replay(path).rounds
    for one in rounds:
        verify_round(one)
        swaps = [line for _, line in one.lines if line["kind"] == "effect"]
        assert len(swaps) > 5
        assert all(line["effect"] == "swap" and len(line["cards"]) == 2 for line in swaps)
        assert one.summary is not None
        assert one.summary["gifts"] == ["SWAP"] * len(swaps)


# ─── one card changed fails, naming it ──────────────────────────────────────────────────

Edit = Callable[[list[dict[str, Any]]], tuple[int, str, str]]
"""Changes one card of one line: returns that line's number, the card put in, and what
the verdict must also say."""


def _other_card(lines: list[dict[str, Any]], avoid: list[str]) -> str:
    """A card dealt to some seat that ``avoid`` does not hold."""
    for line in lines:
        if line.get("message", {}).get("type") == "DEAL":
            for card in line["message"]["hand"]:
                if card not in avoid:
                    return str(card)
    raise AssertionError("no DEAL in the replay")


def _first(lines: list[dict[str, Any]], test: Callable[[dict[str, Any]], bool]) -> int:
    return next(i for i, line in enumerate(lines) if test(line))


def _event(kind: str, round_no: int = 1) -> Callable[[dict[str, Any]], bool]:
    def test(line: dict[str, Any]) -> bool:
        event = line.get("event", {})
        return bool(event.get("type") == kind and event.get("round") == round_no)

    return test


def _message(kind: str, seat: int | None = None) -> Callable[[dict[str, Any]], bool]:
    def test(line: dict[str, Any]) -> bool:
        message = line.get("message", {})
        return message.get("type") == kind and seat in (None, line["seat"])

    return test


def _swap(
    lines: list[dict[str, Any]], index: int, cards: list[str], said: str
) -> tuple[int, str, str]:
    card = _other_card(lines, cards)
    cards[0] = card
    return index + 1, card, said


def edit_play(lines: list[dict[str, Any]]) -> tuple[int, str, str]:
    index = _first(lines, _event("play", round_no=2))
    return _swap(lines, index, lines[index]["event"]["data"]["cards"], "(play by seat")


def edit_deal(lines: list[dict[str, Any]]) -> tuple[int, str, str]:
    index = _first(lines, _message("DEAL", seat=1))
    return _swap(lines, index, lines[index]["message"]["hand"], "DEAL to seat 1: hand")


def edit_declaration(lines: list[dict[str, Any]]) -> tuple[int, str, str]:
    index = _first(
        lines, lambda line: _event("declare")(line) and line["event"]["data"]["declared"]
    )
    return _swap(lines, index, lines[index]["event"]["data"]["cards"], "(declare by seat")


def edit_throw(lines: list[dict[str, Any]]) -> tuple[int, str, str]:
    index = next(
        i for i, line in enumerate(lines) if line.get("event", {}).get("type") == "throw_punished"
    )
    return _swap(lines, index, lines[index]["event"]["data"]["original"], "original")


def edit_kitty(lines: list[dict[str, Any]]) -> tuple[int, str, str]:
    index = _first(lines, lambda line: line["kind"] == "round_end")
    _, card, _ = _swap(lines, index, lines[index]["summary"]["result"]["kitty"], "")
    bury = _first(lines, _event("bury"))
    return bury + 1, card, f"the kitty the round_end line (line {index + 1}) shows"


def edit_swap(lines: list[dict[str, Any]]) -> tuple[int, str, str]:
    index = _first(lines, lambda line: line["kind"] == "effect")
    return _swap(lines, index, lines[index]["cards"], "the swap of seats")


@pytest.mark.parametrize(
    "edit",
    [edit_play, edit_deal, edit_declaration, edit_throw, edit_kitty, edit_swap],
    ids=lambda e: e.__name__,
)
async def test_one_card_changed_fails_naming_the_line_and_the_card(
    tmp_path: Path, edit: Edit, capsys: pytest.CaptureFixture[str]
) -> None:
    path = await recorded(tmp_path / "match.jsonl", 4, seed=3, swaps=edit is edit_swap)
    lines = lines_of(path)
    number, card, said = edit(lines)
    forged = tmp_path / "forged.jsonl"
    forged.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")

    code, out = replay(capsys, str(forged), "--quiet")

    assert code == 1
    failed = [line for line in out.splitlines() if line.startswith("✗")]
    assert len(failed) == 1, out
    assert f": line {number}: " in failed[0]
    assert card in failed[0], failed[0]
    assert said in failed[0], failed[0]
    if edit is edit_play:  # round 2 is the forged one: round 1 still verifies
        assert out.startswith("✓ table t1 round 1:")


# ─── --compare ──────────────────────────────────────────────────────────────────────────


async def test_compare_says_two_runs_of_a_seed_are_one_match_and_another_seed_is_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = await recorded(tmp_path / "first.jsonl", 6, seed=8)
    again = await recorded(tmp_path / "again.jsonl", 6, seed=8)
    other = await recorded(tmp_path / "other.jsonl", 6, seed=9)

    same, said = replay(capsys, str(first), "--compare", str(again))
    differ, told = replay(capsys, str(first), "--compare", str(other))

    assert (same, said.strip()) == (
        0,
        f"same match: {first} and {again} differ only in timing fields",
    )
    assert differ == 1
    assert told.startswith(f"different: {first} line 1 and {other} line 1 (table t1)")


def test_a_round_must_carry_on_from_the_round_before_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each round of two matches checks alone; round 2 of one match after round 1 of
    another does not carry on from it (its levels or banker), and the replay says so."""
    files = []
    for seed in (3, 4):
        record = tmp_path / f"seed{seed}.jsonl"
        argv = ["play", "--game", "tractor", "--no-live", "--rounds", "2", "--seed", str(seed)]
        assert main([*argv, "--record", str(record)]) == 0
        files.append(record.read_text(encoding="utf-8").splitlines())
    capsys.readouterr()

    def second_round_at(lines: list[str]) -> int:
        return next(
            i
            for i, line in enumerate(lines)
            if json.loads(line)["kind"] == "round_start" and json.loads(line)["round"] == 2
        )

    first, other = files
    head, tail = first[: second_round_at(first)], other[second_round_at(other) :]
    seqs = [json.loads(line)["event"]["seq"] for line in head if '"kind":"event"' in line]
    next_seq = next(json.loads(line)["event"]["seq"] for line in tail if '"kind":"event"' in line)
    shifted = []
    for line in tail:  # the events numbered on from the first match's, as one table's are
        data = json.loads(line)
        if data["kind"] == "event":
            data["event"]["seq"] += seqs[-1] + 1 - next_seq
        shifted.append(json.dumps(data, ensure_ascii=False))
    mixed = [*head, *shifted]
    composed = tmp_path / "mixed.jsonl"
    composed.write_text("\n".join(mixed) + "\n", encoding="utf-8")
    assert main(["replay", str(tmp_path / "seed3.jsonl"), "--quiet"]) == 0
    assert "✗" not in capsys.readouterr().out  # the real match carries on
    assert main(["replay", str(composed), "--quiet"]) == 1
    out = capsys.readouterr().out
    assert "✓ table t1 round 1" in out
    assert "✗ table t1 round 2: its header's" in out
    assert "'s score carries" in out
