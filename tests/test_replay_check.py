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
import time
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import FakeAgent

from arena.cli import main
from arena.games.ddz.messages import PlayResponse
from arena.replay import ReplayError, ReplayWriter, load_replay, verify_round
from arena.table import Table, TableSettings, play_match
from arena.table.match import match_id_of

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
    unwritable: list[Any] = [object()]
    forged = PlayResponse.model_construct(player_id="B", action="PLAY", cards=unwritable)
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


async def test_a_late_reply_is_recorded_as_late_and_the_replay_verifies(tmp_path: Path) -> None:
    """An agent that blocks past its deadline: its reply is recorded with ``late`` and
    refused; the replay check accepts the table's fallback and finds no reply used."""

    def sleepy(request: Any, n: int) -> None:
        if n == 1:
            time.sleep(0.3)  # blocks the event loop: only the table's clock sees it
        return None  # the inner (greedy) agent answers

    path = tmp_path / "late.jsonl"
    writer = ReplayWriter(path)
    agents = [FakeAgent("A"), FakeAgent("B", play=sleepy), FakeAgent("C")]
    table = Table(
        agents,
        recorder=writer.for_table("t1"),
        settings=TableSettings(stall_warning_s=5.0),
        timeouts=[None, 0.2, None],
    )
    try:
        await play_match(table, rounds=1, seed=11)
    finally:
        writer.close()
    lines = lines_of(path)
    late = [line for line in from_agent(lines, 1) if line.get("late")]
    assert len(late) == 1
    after = lines[lines.index(late[0]) + 1 :]
    to_b = next(line for line in after if line["kind"] == "message" and line["seat"] == 1)
    assert to_b["message"]["type"] == "REPLY_REJECTED"
    assert to_b["message"]["reason"] == "timeout"
    [recorded] = load_replay(path).rounds
    verify_round(recorded)


async def test_rejected_replies_and_their_retries_verify(tmp_path: Path) -> None:
    """A reply refused as illegal is followed by its REPLY_REJECTED and a retry that is
    used: the check pairs each reply with its request and accepts the one used."""

    def wrong_card_first(request: Any, n: int) -> Any:
        if n == 1:  # the same card twice: refused as illegal, then asked again
            cards = ["♠3", "♠3"]
            return PlayResponse(
                player_id=request.player_id,
                action="PLAY",
                cards=cards,
                request_id=request.request_id,
            )
        return None

    path = tmp_path / "retry.jsonl"
    writer = ReplayWriter(path)
    agents = [FakeAgent("A", play=wrong_card_first), FakeAgent("B"), FakeAgent("C")]
    table = Table(agents, recorder=writer.for_table("t1"))
    try:
        await play_match(table, rounds=1, seed=3)
    finally:
        writer.close()
    rejected = [
        line
        for line in lines_of(path)
        if line["kind"] == "message" and line["message"].get("type") == "REPLY_REJECTED"
    ]
    assert rejected
    assert rejected[0]["message"]["reason"] == "illegal"
    [recorded] = load_replay(path).rounds
    verify_round(recorded)


# ─── the check reads the messages too ───────────────────────────────────────────────────


def edited(source: Path, change: Any) -> Path:
    """A copy of ``source`` with ``change(lines)`` applied; returns its path."""
    lines = lines_of(source)
    change(lines)
    target = source.with_name("edited.jsonl")
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    target.write_text(text, encoding="utf-8")
    return target


def line_number(lines: list[dict[str, Any]], line: dict[str, Any]) -> int:
    return next(i for i, candidate in enumerate(lines, start=1) if candidate is line)


def messages(lines: list[dict[str, Any]], kind: str, *, direction: str) -> list[dict[str, Any]]:
    return [
        line
        for line in lines
        if line["kind"] == "message"
        and line["dir"] == direction
        and line["message"].get("type") == kind
        and line["round"] == 1
    ]


def actions(lines: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [
        line
        for line in lines
        if line["kind"] == "event" and line["event"]["type"] == kind and line["event"]["round"] == 1
    ]


def verdict(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["replay", "--quiet", str(path)])
    return code, capsys.readouterr().out


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    """A real two-round recording (seed 7), played with auto-pass off so that passes
    are asked for and answered too."""
    config = tmp_path / "asked.toml"
    config.write_text("[table]\nauto_pass = false\n", encoding="utf-8")
    return record(tmp_path / "match.jsonl", extra=("--config", str(config)))


def test_the_untouched_recording_verifies(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = verdict(recorded, capsys)
    assert code == 0, out
    assert out.count("✓") == 2


def test_a_reply_playing_cards_the_player_never_had_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The event stays as it was; only the PLAY_RESPONSE names a card not in the hand."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        reply = next(
            m
            for m in messages(lines, "PLAY_RESPONSE", direction="from_agent")
            if m["message"]["action"] == "PLAY"
        )
        request = [
            m
            for m in messages(lines, "PLAY_REQUEST", direction="to_agent")
            if m["seat"] == reply["seat"] and line_number(lines, m) < line_number(lines, reply)
        ][-1]
        held = set(request["message"]["hand"])
        stranger = next(c for c in ("♠3", "♥3", "♣3", "♦3", "♠4", "♥4") if c not in held)
        reply["message"]["cards"][0] = stranger
        found.update(line=line_number(lines, reply), card=stranger, seat=reply["seat"])

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    [failure] = [line for line in out.splitlines() if line.startswith("✗")]
    assert failure.startswith("✗ table t1 round 1: ")
    assert f"the reply at line {found['line']} plays cards seat {found['seat']}" in failure
    assert found["card"] in failure
    assert "✓ table t1 round 2" in out


def test_a_changed_deal_fails(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seat 0's DEAL shows one of seat 1's cards instead of its own."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        deals = messages(lines, "DEAL", direction="to_agent")
        mine, theirs = deals[0], deals[1]
        found.update(
            line=line_number(lines, mine),
            lost=mine["message"]["hand"][0],
            shown=theirs["message"]["hand"][0],
        )
        mine["message"]["hand"][0] = theirs["message"]["hand"][0]

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    expected = (
        f"✗ table t1 round 1: line {found['line']}: DEAL to seat 0: the cards differ from the "
        f"engine's: shows {found['shown']} that the engine's does not, lacks {found['lost']}"
    )
    assert expected in out.splitlines()


@pytest.mark.parametrize(
    ("key", "value", "wanted"),
    [
        ("rules", {"loose_wings": True}, "rules differ from the header's in loose_wings"),
        ("seed", 12345, "seed 12345 is not the seat's seed of deal 1 of the round's seed"),
    ],
)
def test_a_deal_telling_other_rules_or_another_seed_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str], key: str, value: Any, wanted: str
) -> None:
    """What DEAL tells a seat of its own, the rules in force and its seed, is checked
    against the header: an edit that told an agent other variants, or a seed that does
    not follow from the round's, is found."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        deal = messages(lines, "DEAL", direction="to_agent")[1]
        told = deal["message"]
        told[key] = {**told[key], **value} if isinstance(value, dict) else value
        found["line"] = line_number(lines, deal)

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    [failure] = [line for line in out.splitlines() if line.startswith("✗")]
    assert failure.startswith(f"✗ table t1 round 1: line {found['line']}: DEAL to seat 1: {wanted}")


def test_a_redeal_tells_each_seat_a_seed_of_its_own_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seats that never bid: every deal of the round is dealt again, each DEAL with
    seeds of that deal, and the replay, checked deal by deal, verifies."""
    config = tmp_path / "passers.toml"
    config.write_text(
        "[rules]\nmax_redeals = 2\n"
        + "".join(
            f'[[seats]]\nname = "{n}"\ntype = "agents_for_tests:MinimalAgent"\n' for n in "ABC"
        ),
        encoding="utf-8",
    )
    path = record(tmp_path / "redeals.jsonl", rounds=1, extra=("--config", str(config)))
    lines = lines_of(path)
    seeds = [m["message"]["seed"] for m in messages(lines, "DEAL", direction="to_agent")]
    assert len(seeds) == 9  # three deals: the first and two redeals
    assert len(set(seeds)) == 9
    code, out = verdict(path, capsys)
    assert code == 0, out


@pytest.mark.parametrize(
    ("kind", "key", "value"), [("PLAY_REQUEST", "round_no", 2), ("BOTTOM_CARDS", "table_id", "t2")]
)
def test_a_message_naming_another_round_or_table_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str], kind: str, key: str, value: object
) -> None:
    """Messages name their table and round (issue 8): a message moved from another
    round or table is found."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        line = messages(lines, kind, direction="to_agent")[0]
        assert line["message"][key] == {"round_no": 1, "table_id": "t1"}[key]
        line["message"][key] = value
        found.update(line=line_number(lines, line), seat=line["seat"])

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    expected = (
        f"✗ table t1 round 1: line {found['line']}: {kind} to seat {found['seat']} "
        f"says {key} {value!r}"
    )
    assert expected in out.splitlines()


def test_a_bid_changed_in_the_reply_but_not_in_the_event_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        reply = messages(lines, "BID_RESPONSE", direction="from_agent")[0]
        [event] = [e for e in actions(lines, "bid") if e["event"]["seat"] == reply["seat"]][:1]
        was = reply["message"]["bid"]
        reply["message"]["bid"] = 3 if was != 3 else 0
        found.update(
            line=line_number(lines, reply),
            seq=event["event"]["seq"],
            seat=reply["seat"],
            was=was,
            now=reply["message"]["bid"],
        )

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    assert (
        f"✗ table t1 round 1: line {found['line'] + 1}: event {found['seq']} (bid by seat "
        f"{found['seat']}): the reply at line {found['line']} says bid {found['now']}, "
        f"the event {found['was']}"
    ) in out.splitlines()


def test_an_event_changed_but_not_its_reply_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pass event turned into a play of the seat's lowest card: the reply said PASS."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        event = actions(lines, "pass")[0]
        seat = event["event"]["seat"]
        reply = [
            m
            for m in messages(lines, "PLAY_RESPONSE", direction="from_agent")
            if m["seat"] == seat and line_number(lines, m) < line_number(lines, event)
        ][-1]
        assert reply["message"]["action"] == "PASS"
        event["event"]["type"] = "play"
        event["event"]["data"] = {"cards": ["♠3"], "hand_type": "SINGLE", "main_rank": 3}
        found.update(line=line_number(lines, reply), seq=event["event"]["seq"], seat=seat)

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    failure = next(line for line in out.splitlines() if line.startswith("✗"))
    assert failure.startswith("✗ table t1 round 1: line ")
    assert f"event {found['seq']} (play by seat {found['seat']})" in failure
    assert f"the reply at line {found['line']} passes, the event plays ♠3" in failure


def test_a_rejected_reply_shown_as_used_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A REPLY_REJECTED slipped in after a reply that the event then shows as used."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        reply = messages(lines, "BID_RESPONSE", direction="from_agent")[0]
        at = lines.index(reply)
        rejection = {
            **reply,
            "dir": "to_agent",
            "message": {
                "type": "REPLY_REJECTED",
                "player_id": reply["message"]["player_id"],
                "request_type": "BID_REQUEST",
                "request_id": reply["message"]["request_id"],
                "reason": "illegal",
                "detail": "edited in",
                "retries_left": 2,
            },
        }
        lines.insert(at + 1, rejection)
        found.update(line=at + 1)

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    assert f"it says no fallback, yet the reply at line {found['line']} was rejected" in out


def test_a_fallback_claimed_for_a_used_reply_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        actions(lines, "bid")[0]["event"]["data"]["fallback"] = True

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    assert "it says fallback, but the attempt at line" in out
    assert "was not rejected" in out


def test_a_late_reply_shown_as_used_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        reply = messages(lines, "DOUBLE_RESPONSE", direction="from_agent")[0]
        reply["late"] = True
        found.update(line=line_number(lines, reply))

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    assert f"it says no fallback, yet the reply at line {found['line']} came late" in out


def test_a_request_showing_another_hand_fails(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A PLAY_REQUEST late in the round shows a card its seat has already played."""
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        requests = messages(lines, "PLAY_REQUEST", direction="to_agent")
        request = requests[-1]
        seat = request["seat"]
        played = next(
            c
            for e in actions(lines, "play")
            if e["event"]["seat"] == seat
            for c in e["event"]["data"]["cards"]
        )
        request["message"]["hand"].append(played)
        found.update(line=line_number(lines, request), seat=seat, card=played)

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    assert (
        f"line {found['line']}: PLAY_REQUEST to seat {found['seat']}: the cards differ from "
        f"the engine's: shows {found['card']} that the engine's does not"
    ) in out


def first_of(lines: list[dict[str, Any]], kind: str, direction: str = "to_agent") -> Any:
    return messages(lines, kind, direction=direction)[0]["message"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        pytest.param(
            lambda lines: first_of(lines, "BID_REQUEST").update(available_bids=[3]),
            "BID_REQUEST to seat {seat}: available_bids [3] differs from the engine's",
            id="bids-open",
        ),
        pytest.param(
            lambda lines: first_of(lines, "DOUBLE_REQUEST").update(kind="redouble"),
            "DOUBLE_REQUEST to seat {seat}: kind 'redouble' differs from the engine's 'double'",
            id="double-kind",
        ),
        pytest.param(
            lambda lines: first_of(lines, "PLAY_REQUEST")["remaining_cards"].update(Beta=1),
            "PLAY_REQUEST to seat {seat}: remaining_cards",
            id="card-counts",
        ),
        pytest.param(
            lambda lines: first_of(lines, "BOTTOM_CARDS").update(bottom_cards=["♠3", "♥3", "♣3"]),
            "BOTTOM_CARDS to seat {seat}: the cards differ from the engine's",
            id="bottom-cards",
        ),
        pytest.param(
            lambda lines: first_of(lines, "PLAY_RESPONSE", "from_agent").update(request_id="x-9"),
            "answers request 'x-9', not the one asked",
            id="reply-request-id",
        ),
        pytest.param(
            lambda lines: first_of(lines, "BID_RESPONSE", "from_agent").update(player_id="Zed"),
            "comes from 'Zed'",
            id="reply-player-id",
        ),
    ],
)
def test_each_shown_field_is_checked(
    recorded: Path, capsys: pytest.CaptureFixture[str], change: Any, words: str
) -> None:
    """The fields a request or notice shows, and what a used reply names, must agree."""
    seats: list[int] = []

    def apply(lines: list[dict[str, Any]]) -> None:
        before = json.dumps(lines)
        change(lines)
        [changed] = [
            line
            for line, old in zip(lines, json.loads(before), strict=True)
            if line != old and line["kind"] == "message"
        ]
        seats.append(changed["seat"])

    code, out = verdict(edited(recorded, apply), capsys)
    assert code == 1
    [failure] = [line for line in out.splitlines() if line.startswith("✗")]
    assert failure.startswith("✗ table t1 round 1: line ")
    assert words.format(seat=seats[0]) in failure, failure


def test_event_numbers_must_increase(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        event = actions(lines, "play")[1]
        event["event"]["seq"] = 2
        found.update(line=line_number(lines, event))

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    assert f"✗ table t1 round 1: line {found['line']}: event number 2 follows" in out
    assert "the numbers must increase" in out


def test_a_failure_names_its_table_and_round_once(
    recorded: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        end = next(line for line in lines if line["kind"] == "round_end" and line["round"] == 1)
        end["summary"]["result"]["scores"][0] += 10

    code, out = verdict(edited(recorded, change), capsys)
    assert code == 1
    [failure] = [line for line in out.splitlines() if line.startswith("✗")]
    assert failure.count("table t1") == 1, failure
    assert failure.count("round 1") == 1, failure


def test_each_round_is_checked_by_the_game_its_header_names(recorded: Path) -> None:
    """The check is the game's (``Game.replay_check``), picked by the header's ``game``;
    a header without one (recorded before the arena played a second game) is Dou
    Dizhu's; a game the arena does not know is one error naming the table and round."""
    first, second = load_replay(recorded).rounds
    assert first.header["game"] == "ddz"
    assert verify_round(first).result is not None
    del first.header["game"]
    assert verify_round(first).result is not None
    second.header["game"] = "chess"
    with pytest.raises(ReplayError, match=r"^table t1 round 2: no game called 'chess'"):
        verify_round(second)


# ─── a replay cut off, and files that are no replay ─────────────────────────────────────


@pytest.fixture
def two_tables(tmp_path: Path) -> Path:
    """A real recording of two tables playing two rounds each at once."""
    return record(tmp_path / "tables.jsonl", extra=("--tables", "2"))


def cut_inside(source: Path, fraction: float, *, mid_character: bool) -> tuple[Path, int]:
    """The first ``fraction`` of ``source``, cut in the middle of a line (and, if asked,
    of a three-byte card symbol); returns the copy and its number of lines."""
    data = source.read_bytes()
    at = int(len(data) * fraction)
    symbol = "♠".encode()
    if mid_character:
        at = data.index(symbol, at) + 1
    while b"\n" in data[at - 1 : at + 1]:  # not at a line's end: a whole line is no cut
        at += 5
    cut = data[:at]
    target = source.with_name("cut.jsonl")
    target.write_bytes(cut)
    return target, cut.count(b"\n") + 1


@pytest.mark.parametrize("mid_character", [False, True], ids=["mid-line", "mid-character"])
def test_a_replay_cut_off_mid_line_verifies_its_complete_rounds(
    two_tables: Path, capsys: pytest.CaptureFixture[str], mid_character: bool
) -> None:
    path, last = cut_inside(two_tables, 0.7, mid_character=mid_character)
    code, out = verdict(path, capsys)
    assert code == 1
    lines = out.splitlines()
    verified = [line for line in lines if line.startswith("✓")]
    incomplete = [line for line in lines if line.startswith("…")]
    assert verified, out  # the rounds that ended before the cut still verify
    assert incomplete, out
    assert not [line for line in lines if line.startswith("✗")]
    assert len(verified) + len(incomplete) == path.read_bytes().count(b'"kind":"round_start"')
    for line in incomplete:
        assert line.endswith(f"the replay ends inside this round at line {last} (truncated line)")


def test_a_replay_cut_at_a_line_end_says_where_each_open_round_stops(
    two_tables: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The process died after writing whole lines: no line is broken, rounds are open."""
    kept = two_tables.read_text(encoding="utf-8").splitlines(keepends=True)[:300]
    path = two_tables.with_name("whole-lines.jsonl")
    path.write_text("".join(kept), encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", "--quiet", str(path)]) == 1
    captured = capsys.readouterr()
    incomplete = [line for line in captured.out.splitlines() if line.startswith("…")]
    assert incomplete
    assert all(
        line.endswith("the replay ends inside this round at line 300") for line in incomplete
    )
    counts = f"{captured.out.count('✓')} round(s) verified, 0 failed, {len(incomplete)} incomplete"
    assert captured.err == f"arena: {path}: {counts}\n"


def test_a_replay_that_stops_between_rounds_is_incomplete(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = record(tmp_path / "three.jsonl", rounds=3)
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    ends = [i for i, line in enumerate(lines) if '"kind":"round_end"' in line]
    path = tmp_path / "two-of-three.jsonl"
    path.write_text("".join(lines[: ends[1] + 1]), encoding="utf-8")
    code, out = verdict(path, capsys)
    assert code == 1
    assert out.count("✓") == 2
    assert f"… table t1: the match does not end; the replay ends at line {ends[1] + 1}" in out


@pytest.mark.parametrize(
    ("content", "words"),
    [
        pytest.param(bytes(range(256)) * 4, "not a replay file", id="binary"),
        pytest.param("naïve\n".encode("latin-1"), "not UTF-8 text", id="latin-1"),
        pytest.param(b"", "no rounds", id="empty"),
        pytest.param(b'{"name": "arena", "version": 1}\n', '"kind"', id="json-object"),
        pytest.param(b'{\n  "kind": "round_start"\n}\n', "not JSON", id="pretty-json"),
        pytest.param(b"[1, 2, 3]\n", "not a replay file", id="json-array"),
        pytest.param(b'{"kind": "round_start", "table": "t1"}\n', "lacks 'round'", id="shape"),
        pytest.param(b'{"kind": "chat"}\n', "unknown line kind", id="unknown-kind"),
    ],
)
def test_a_file_that_is_no_replay_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: bytes, words: str
) -> None:
    path = tmp_path / "not-a-replay.jsonl"
    path.write_bytes(content)
    capsys.readouterr()
    assert main(["replay", str(path)]) == 2
    captured = capsys.readouterr()
    [line] = captured.err.splitlines()
    assert line.startswith(f"arena: error: {path}")
    assert words in line
    assert captured.out == ""


def test_a_folder_is_no_replay(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["replay", str(tmp_path)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert line == f"arena: error: {tmp_path}: is a folder, not a replay file"


def test_replay_help_documents_the_verdicts_and_exit_status(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["replay", "--help"])
    assert exited.value.code == 0
    text = capsys.readouterr().out
    for words in ("Exit status: 0", "incomplete", "2 when the file", "--compare", "same match"):
        assert words in text, words


# ─── comparing two recordings ───────────────────────────────────────────────────────────


def compare(a: Path, b: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["replay", str(a), "--compare", str(b)])
    return code, capsys.readouterr().out


def test_two_recordings_of_one_seed_are_the_same_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = record(tmp_path / "a.jsonl", seed=13)
    second = record(tmp_path / "b.jsonl", seed=13)
    code, out = compare(first, second, capsys)
    assert code == 0
    assert out.startswith("same match")


def test_timing_fields_never_count_as_a_difference(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = record(tmp_path / "a.jsonl", seed=13)

    def slow_down(lines: list[dict[str, Any]]) -> None:
        for line in lines:
            if "t_ms" in line:
                line["t_ms"] += 1000
            if "elapsed_ms" in line:
                line["elapsed_ms"] = 29_999.5

    code, out = compare(first, edited(first, slow_down), capsys)
    assert code == 0, out


def test_recordings_of_two_seeds_differ_first_at_the_match_id(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each seed names its match (match_started's match_id), before any round."""
    first = record(tmp_path / "a.jsonl", seed=13)
    second = record(tmp_path / "b.jsonl", seed=14)
    code, out = compare(first, second, capsys)
    assert code == 1
    assert out.startswith(f"different: {first} line 1 and {second} line 1 (table t1)")
    assert f'differ at event.data.match_id: "{match_id_of(13)}" vs "{match_id_of(14)}"' in out


def test_a_difference_names_both_lines_and_the_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = record(tmp_path / "a.jsonl", seed=13)
    found: dict[str, Any] = {}

    def change(lines: list[dict[str, Any]]) -> None:
        request = messages(lines, "PLAY_REQUEST", direction="to_agent")[2]
        request["message"]["hand"][1] = "大王"
        found.update(line=line_number(lines, request))

    code, out = compare(first, edited(first, change), capsys)
    assert code == 1
    n = found["line"]
    assert f"line {n} and " in out
    assert f"edited.jsonl line {n} (table t1 round 1) differ at message.hand[1]:" in out
    assert out.rstrip().endswith('vs "大王"')


def test_a_shorter_recording_differs_where_it_stops(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = record(tmp_path / "a.jsonl", seed=13)
    lines = first.read_text(encoding="utf-8").splitlines(keepends=True)
    shorter = tmp_path / "short.jsonl"
    shorter.write_text("".join(lines[:100]), encoding="utf-8")
    code, out = compare(first, shorter, capsys)
    assert code == 1
    assert f"{shorter} has no more lines of table t1; {first} goes on at line 101" in out


def test_tables_may_interleave_differently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Tables play at once: the same match may write their lines in another order."""
    first = record(tmp_path / "a.jsonl", extra=("--tables", "2"))

    def table_by_table(lines: list[dict[str, Any]]) -> None:
        lines.sort(key=lambda line: line.get("table") or line["event"]["table"])

    reordered = edited(first, table_by_table)
    assert reordered.read_text(encoding="utf-8") != first.read_text(encoding="utf-8")
    code, out = compare(first, reordered, capsys)
    assert code == 0, out


def test_compare_refuses_a_file_that_is_no_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first = record(tmp_path / "a.jsonl", seed=13)
    other = tmp_path / "notes.txt"
    other.write_text("not a replay\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(first), "--compare", str(other)]) == 2
    [line] = capsys.readouterr().err.splitlines()
    assert f"{other}:1: not a replay line" in line


# ─── replays recorded before issue 7 ────────────────────────────────────────────────────


def test_a_replay_recorded_before_issue_7_still_verifies(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """It spells the farmers' win "farmers" in its round ends, as the engine did then."""
    text = OLD_REPLAY.read_text(encoding="utf-8")
    assert '"winner_side":"farmers"' in text
    code, out = verdict(OLD_REPLAY, capsys)
    assert code == 0, out
    assert out.count("✓") == 4


def test_an_old_replay_verifies_with_the_new_spelling_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """After the engine's rename its results say "farmer", as the wire always did."""
    text = OLD_REPLAY.read_text(encoding="utf-8").replace('"farmers"', '"farmer"')
    path = tmp_path / "renamed.jsonl"
    path.write_text(text, encoding="utf-8")
    code, out = verdict(path, capsys)
    assert code == 0, out


def test_an_old_replay_with_the_wrong_winner_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The winning side is checked, so accepting "farmers" is a decision, not blindness."""
    text = OLD_REPLAY.read_text(encoding="utf-8").replace(
        '"winner_side":"farmers"', '"winner_side":"landlord"'
    )
    path = tmp_path / "wrong-winner.jsonl"
    path.write_text(text, encoding="utf-8")
    code, out = verdict(path, capsys)
    assert code == 1
    assert "round_end winner_side 'landlord' is not the engine's 'farmer'" in out
