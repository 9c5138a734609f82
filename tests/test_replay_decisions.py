"""A model seat's decisions in the replay, and `arena replay --decisions`.

Specification (issue 9): "`arena replay --decisions FILE` shows, for each model
decision, the prompt, the raw reply, what was parsed and why it was rejected", and
"Reasoning text (where a provider returns it) goes to the replay only". The table
writes one ``decision`` line per attempt of a seat whose agent reports its calls
(``{"kind": "decision", "table", "round", "seat", "request_id", "attempt", "outcome",
"detail", "report"}``), after the attempt's reply and before its REPLY_REJECTED. The
engine check passes over these lines; a broken one is still a clear error, and replays
without them read as before.

The model replays here are real scripted recordings with a model's attempts written
into them where the table would write them, so they still verify.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest
from agents_for_tests import FakeAgent

from arena.agents.reports import CallReport, Usage
from arena.cli import main
from arena.games.ddz.messages import PlayRequest, PlayResponse
from arena.replay import ReplayWriter, load_replay, strip_timing, verify_round
from arena.sinks.console import PlainConsoleSink
from arena.table import Table, play_match

SYSTEM = "You play Dou Dizhu (斗地主). Reply with one JSON object.\nRules: ..."


def record(path: Path, *, seed: int = 7, rounds: int = 1) -> Path:
    argv = ["play", "--no-live", "--rounds", str(rounds), "--seed", str(seed)]
    assert main([*argv, "--record", str(path)]) == 0
    return path


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    text = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return path


def report(user: str, raw: str | None, **extra: Any) -> dict[str, Any]:
    """A CallReport.to_dict() as a model seat files it."""
    return {
        "provider": "openai",
        "model": "gpt-test",
        "input_tokens": 1200,
        "output_tokens": 30,
        "reasoning_tokens": 0,
        "estimated": False,
        "cost": 0.00125,
        "latency_ms": 840.0,
        "provider_retries": 0,
        "prompt": [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}],
        "raw_text": raw,
        "reasoning": None,
        "error": None,
        "notice": None,
        **extra,
    }


def decision_line(
    base: dict[str, Any], attempt: int, outcome: str, detail: str | None, rep: dict[str, Any]
) -> dict[str, Any]:
    request_id = base["message"]["request_id"]
    return {
        "kind": "decision",
        "table": base["table"],
        "round": base["round"],
        "seat": base["seat"],
        "request_id": request_id,
        "attempt": attempt,
        "outcome": outcome,
        "detail": detail,
        "report": rep,
    }


def as_model_seat(source: Path, target: Path, *, seat: int = 1) -> Path:
    """The recording with seat ``seat`` played by a model: a decision line after each of
    its replies; its first request was first answered with unreadable text (rejected,
    asked again), and its first PLAY with a pair it does not hold (rejected, with
    reasoning shown), both written as the table writes them."""
    out: list[dict[str, Any]] = []
    lines = lines_of(source)
    request: dict[str, Any] | None = None
    garbled = played_wrong = False
    for line in lines:
        mine = line["kind"] == "message" and line["seat"] == seat
        if mine and line["dir"] == "to_agent" and line["message"]["type"].endswith("_REQUEST"):
            request = line
            out.append(line)
            user = f"Request: {json.dumps(line['message'], ensure_ascii=False)}"
            if not garbled:
                garbled = True
                out.append(
                    decision_line(
                        line, 0, "unparsable", "no JSON object", report(user, "I bid, I think!")
                    )
                )
                out.extend(rejected(line, "unparsable", "no JSON object"))
            elif line["message"]["type"] == "PLAY_REQUEST" and not played_wrong:
                played_wrong = True
                wrong = {
                    "type": "PLAY_RESPONSE",
                    "player_id": line["message"]["player_id"],
                    "action": "PLAY",
                    "cards": ["♠3", "♠3"],
                    "request_id": line["message"]["request_id"],
                }
                out.append({**line, "dir": "from_agent", "message": wrong, "elapsed_ms": 900.0})
                out.append(
                    decision_line(
                        line,
                        0,
                        "illegal",
                        "♠3 ♠3: you hold one ♠3",
                        report(
                            user,
                            '{"action": "PLAY", "cards": ["♠3", "♠3"]}',
                            reasoning="A pair of threes is cheap.",
                            reasoning_tokens=12,
                        ),
                    )
                )
                out.extend(rejected(line, "illegal", "♠3 ♠3: you hold one ♠3"))
            continue
        out.append(line)
        if mine and line["dir"] == "from_agent" and request is not None:
            attempt = sum(
                1 for o in out if o["kind"] == "decision" and o["request_id"] == line_id(request)
            )
            user = f"Request: {json.dumps(request['message'], ensure_ascii=False)}"
            if attempt:
                user = "Rejected. Try again."
            rep = report(user, json.dumps({"action": "whatever"}))
            if attempt:
                first = report(f"Request: {json.dumps(request['message'], ensure_ascii=False)}", "")
                rep["prompt"] = [
                    *first["prompt"],
                    {"role": "assistant", "content": "earlier"},
                    {"role": "user", "content": user},
                ]
            out.append(decision_line(request, attempt, "accepted", None, rep))
            request = None
    return write_lines(target, out)


def line_id(line: dict[str, Any]) -> str:
    return str(line["message"]["request_id"])


def rejected(request: dict[str, Any], reason: str, detail: str) -> list[dict[str, Any]]:
    """The REPLY_REJECTED to the seat, then the same request again."""
    message = request["message"]
    rejection = {
        "type": "REPLY_REJECTED",
        "player_id": message["player_id"],
        "request_type": message["type"],
        "request_id": message["request_id"],
        "reason": reason,
        "detail": detail,
        "retries_left": 2,
    }
    return [{**request, "message": rejection}, copy.deepcopy(request)]


@pytest.fixture
def model_replay(tmp_path: Path) -> Path:
    return as_model_seat(record(tmp_path / "scripted.jsonl"), tmp_path / "model.jsonl")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ─── the replay file ────────────────────────────────────────────────────────────────────


def test_the_recorder_writes_a_decision_line_that_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    writer = ReplayWriter(path)
    recorder = writer.for_table("t9")
    recorder.round_started({"table": "t9", "round": 4, "seed": 1, "players": ["A", "B", "C"]})
    record_ = {
        "request_id": "t9-4-2",
        "attempt": 1,
        "outcome": "accepted",
        "detail": None,
        "report": report("play", '{"action": "PASS"}', reasoning="留着炸弹"),
    }
    recorder.decision(2, record_)
    writer.close()
    [line] = lines_of(path)[1:]
    assert line == {"kind": "decision", "table": "t9", "round": 4, "seat": 2, **record_}
    [recorded] = load_replay(path).rounds
    assert recorded.decisions == [line]
    assert recorded.messages == []  # a decision is no message the engine check reads


def test_a_replay_with_decision_lines_still_verifies(
    model_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    [recorded] = load_replay(model_replay).rounds
    assert len(recorded.decisions) > 3
    verify_round(recorded)
    code, out, _ = run(["replay", "--quiet", str(model_replay)], capsys)
    assert (code, out.count("✓")) == (0, 1)


def test_latency_is_timing_when_two_replays_are_compared(model_replay: Path) -> None:
    lines = lines_of(model_replay)
    for line in lines:
        if line["kind"] == "decision":
            line["report"]["latency_ms"] += 1.5
    changed = write_lines(model_replay.with_name("slower.jsonl"), lines)
    assert main(["replay", str(model_replay), "--compare", str(changed)]) == 0
    texts = [json.dumps(line) for line in lines]
    assert all("latency_ms" not in json.dumps(line) for line in strip_timing(texts))


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.pop("report"), "this decision line lacks 'report'"),
        (lambda d: d.update(attempt="1"), "this decision line is malformed (attempt is '1')"),
        (lambda d: d.update(seat=3), "this decision line is malformed (seat 3 attempt"),
        (
            lambda d: d["report"].update(input_tokens=True),
            "is malformed (report.input_tokens is True)",
        ),
        (
            lambda d: d["report"].update(prompt="hello"),
            "is malformed (report.prompt is 'hello')",
        ),
        (
            lambda d: d["report"].update(raw_text=42),
            "is malformed (report.raw_text is 42)",
        ),
        (lambda d: d.update(round=2), "a decision line of table t1 round 2 before its round_start"),
    ],
)
def test_a_malformed_decision_line_is_a_clear_error(
    model_replay: Path, capsys: pytest.CaptureFixture[str], change: Any, says: str
) -> None:
    lines = lines_of(model_replay)
    number, broken = next((i, d) for i, d in enumerate(lines, 1) if d["kind"] == "decision")
    change(broken)
    path = write_lines(model_replay.with_name("broken.jsonl"), lines)
    for argv in (["replay", str(path)], ["replay", "--decisions", str(path)]):
        code, out, err = run(argv, capsys)
        assert code == 2
        assert err.startswith(f"arena: error: {path}:{number}: ")
        assert says in err
        assert out == ""


# ─── arena replay --decisions ───────────────────────────────────────────────────────────


def test_decisions_show_each_attempt_with_prompt_reply_parse_and_reason(
    model_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(["replay", "--decisions", str(model_replay)], capsys)
    assert (code, err) == (0, "")
    blocks = out.split("\n\n")
    first = blocks[0].splitlines()
    assert first[0].startswith("=== table t1 · round 1 · seat 1 (Beta) · BID_REQUEST t1-1-")
    assert first[0].endswith(" · openai gpt-test")
    assert first[1] == "  --- attempt 1: rejected (unparsable): no JSON object"
    assert first[2] == "      840 ms · 1,200 tokens in, 30 out · cost 0.00125"
    assert "    ▸ system" in first
    assert "      You play Dou Dizhu (斗地主). Reply with one JSON object." in first
    assert "    ▸ raw reply" in first
    assert "      I bid, I think!" in first
    assert "    ▸ parsed: nothing (the table read no reply from this text)" in first
    assert "  --- attempt 2: accepted" in first
    assert "    ▸ prompt: the 2 messages of attempt 1, then:" in first
    assert first[-1] == (
        "  → accepted at attempt 2 (2 attempts, 1.7 s · 2,400 tokens in, 60 out · cost 0.0025)"
    )
    # the system prompt is shown once per seat, the user message every time
    assert out.count("Reply with one JSON object.") == 1
    assert "    ▸ system: as before for this seat (" in blocks[1]
    illegal = next(b for b in blocks if "rejected (illegal)" in b)
    assert "  --- attempt 1: rejected (illegal): ♠3 ♠3: you hold one ♠3" in illegal
    assert "    ▸ reasoning (the replay's only: never shown to viewers or agents)" in illegal
    assert "      A pair of threes is cheap." in illegal
    assert '    ▸ parsed: PLAY_RESPONSE {"action": "PLAY", "cards": ["♠3", "♠3"]}' in illegal
    assert "(12 reasoning)" in illegal
    decisions = sum(1 for line in lines_of(model_replay) if line["kind"] == "decision")
    assert out.rstrip().splitlines()[-1] == (
        f"{model_replay}: {len(blocks) - 1} model decisions ({decisions} attempts) by 1 seat: "
        f"{len(blocks) - 3} legal at the first try, 2 after a retry, 0 fell back"
    )


def test_full_repeats_the_system_prompt_and_the_conversation(
    model_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["replay", "--decisions", "--full", str(model_replay)], capsys)
    assert code == 0
    prompts = sum(
        len(line["report"]["prompt"])
        for line in lines_of(model_replay)
        if line["kind"] == "decision"
    )
    assert out.count("Reply with one JSON object.") == out.count("    ▸ system") > 3
    assert out.count("    ▸ ") >= prompts
    assert "as before" not in out
    assert "messages of attempt" not in out


def test_decisions_as_json(model_replay: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["replay", "--decisions", "--json", str(model_replay)], capsys)
    assert code == 0
    document = json.loads(out)
    assert document["replay"] == str(model_replay)
    first = document["decisions"][0]
    assert first["request"]["type"] == "BID_REQUEST"
    assert (first["table"], first["round"], first["seat"], first["player"]) == ("t1", 1, 1, "Beta")
    assert first["accepted"] is True
    assert [a["outcome"] for a in first["attempts"]] == ["unparsable", "accepted"]
    assert first["attempts"][0]["raw_text"] == "I bid, I think!"
    assert first["attempts"][0]["parsed"] is None
    assert first["attempts"][1]["parsed"]["type"] == "BID_RESPONSE"
    assert first["attempts"][1]["prompt"][-1] == {"role": "user", "content": "Rejected. Try again."}


def test_a_replay_without_model_decisions_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = record(tmp_path / "scripted.jsonl")
    code, out, err = run(["replay", "--decisions", str(path)], capsys)
    assert (code, out) == (1, "")
    assert err == (
        f"arena: no model decisions in {path}: its one round was played by seats that do "
        "not report their calls (only model seats do)\n"
    )
    code, out, _ = run(["replay", "--decisions", "--json", str(path)], capsys)
    assert code == 1
    assert json.loads(out)["decisions"] == []


@pytest.mark.parametrize("flag", ["--full", "--json"])
def test_the_decision_flags_need_decisions(
    model_replay: Path, capsys: pytest.CaptureFixture[str], flag: str
) -> None:
    code, _, err = run(["replay", flag, str(model_replay)], capsys)
    assert code == 2
    assert err == f"arena: error: {flag} goes with --decisions (see arena replay --help)\n"


def test_decisions_and_compare_do_not_go_together(
    model_replay: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(
        ["replay", "--decisions", str(model_replay), "--compare", str(model_replay)], capsys
    )
    assert code == 2
    assert "not allowed with argument" in err


# ─── end to end: a real table, its replay, the command ──────────────────────────────────


class ReportingAgent(FakeAgent):
    """Plays as a greedy bot, and files a report for each call as a model seat does."""

    def __init__(self, name: str, **hooks: Any) -> None:
        super().__init__(name, **hooks)
        self.pending: CallReport | None = None

    async def _answer(self, kind: str, request: Any) -> Any:
        reply = await super()._answer(kind, request)
        shown = reply.model_dump_json(exclude_none=True) if reply is not None else ""
        self.pending = CallReport(
            provider="fakeprov",
            model="fake-1",
            usage=Usage(300, 20, 7, cost=0.0005),
            latency_ms=25.0,
            prompt=[
                {"role": "system", "content": SYSTEM},
                {"role": "user", "content": request.model_dump_json()},
            ],
            raw_text=shown,
            reasoning=f"thinking about {kind}",
        )
        return reply

    def take_report(self) -> CallReport | None:
        report, self.pending = self.pending, None
        return report


def same_card_twice(request: PlayRequest, n: int) -> Any:
    """The first play is the same card twice (refused as illegal), then play on."""
    if n != 1:
        return None
    return PlayResponse(
        player_id=request.player_id,
        action="PLAY",
        cards=[request.hand[0], request.hand[0]],
        request_id=request.request_id,
    )


async def test_a_real_tables_model_decisions_read_back_check_and_show(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "model.jsonl"
    writer = ReplayWriter(path)
    model = ReportingAgent("Model", play=same_card_twice)
    lines = io.StringIO()
    table = Table(
        [FakeAgent("A"), model, FakeAgent("C")],
        recorder=writer.for_table("t1"),
        sinks=[PlainConsoleSink(lines)],
    )
    try:
        await play_match(table, rounds=1, seed=3)
    finally:
        writer.close()
    [recorded] = load_replay(path).rounds
    verify_round(recorded)
    assert recorded.decisions
    assert {d["seat"] for d in recorded.decisions} == {1}
    events = [e for e in recorded.events if e["type"] == "decision"]
    attempts = sum(e["data"]["attempts"] for e in events)
    assert len(recorded.decisions) == attempts

    code, out, _ = run(["replay", "--decisions", str(path)], capsys)
    assert code == 0
    illegal = next(block for block in out.split("\n\n") if "rejected (illegal)" in block)
    assert "seat 1 (Model) · PLAY_REQUEST t1-1-" in illegal
    assert "    ▸ reasoning (the replay's only" in illegal
    assert "      thinking about play" in illegal
    assert "  --- attempt 2: accepted" in illegal
    assert (
        out.rstrip()
        .splitlines()[-1]
        .startswith(
            f"{path}: {len(events)} model decisions ({attempts} attempts) by 1 seat: "
            f"{len(events) - 1} legal at the first try, 1 after a retry, 0 fell back"
        )
    )
    plain = lines.getvalue().splitlines()
    assert any(
        line.startswith("[t1 r1] Model plays") and "  [fake-1 · " in line and " ms · " in line
        for line in plain
    )
    assert plain[-1].startswith(
        f"[t1 r1] Model (fake-1): {len(events) - 1} of {len(events)} decisions legal at the "
        "first try, 1 after a retry, 0 fell back; "
    )


def test_a_retry_after_a_timeout_says_the_request_was_sent_again(
    model_replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A timed-out call leaves no answer to continue from: the seat asks the same prompt
    afresh, and the text says so rather than "then:" followed by nothing."""
    lines = lines_of(model_replay)
    first, second = [line for line in lines if line["kind"] == "decision"][:2]
    first.update(outcome="timeout", detail="no reply within 30 s")
    first["report"].update(raw_text=None, estimated=True)
    second["report"]["prompt"] = copy.deepcopy(first["report"]["prompt"])
    timed_out = write_lines(tmp_path / "timeout.jsonl", lines)
    code, out, _ = run(["replay", "--decisions", str(timed_out)], capsys)
    assert code == 0
    block = out.split("\n\n")[0].splitlines()
    assert "  --- attempt 1: rejected (timeout): no reply within 30 s" in block
    assert "    ▸ raw reply: none (the call gave no text)" in block
    retry = block.index("  --- attempt 2: accepted")
    assert block[retry + 2] == (
        "    ▸ prompt: the same 2 messages as attempt 1, sent again: that attempt got no "
        "answer to continue from (timeout)"
    )
    assert block[retry + 3] == "    ▸ raw reply"
    assert not any(line.endswith("then:") for line in block)


def test_costs_are_fixed_point_and_attempts_keep_their_numbering(
    model_replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Text counts attempts from 1 for people; --json keeps the replay's 0-based
    "attempt", as the decision lines have it (the help says so)."""
    lines = lines_of(model_replay)
    for line in lines:
        if line["kind"] == "decision":
            line["report"]["cost"] = 3.62e-05
    cheap = write_lines(tmp_path / "cheap.jsonl", lines)
    _, out, _ = run(["replay", "--decisions", str(cheap)], capsys)
    assert "cost 0.0000362" in out
    assert "e-05" not in out
    _, document, _ = run(["replay", "--decisions", "--json", str(cheap)], capsys)
    first = json.loads(document)["decisions"][0]
    assert [a["attempt"] for a in first["attempts"]] == [0, 1]
    _, helped, _ = run_help(capsys)
    assert "counts attempts from 1" in helped
    assert '0-based "attempt"' in helped


def run_help(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    with pytest.raises(SystemExit) as exited:
        main(["replay", "--help"])
    captured = capsys.readouterr()
    return int(exited.value.code or 0), " ".join(captured.out.split()), captured.err
