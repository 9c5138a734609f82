"""``arena.testing`` and ``arena agent check``: hard positions, each reply judged.

Specification (issue 8, "For agent developers"): a fixed set of hard positions built
directly (bombs and rockets, airplanes with wings, four-with-two, forced passes, the last
cards, a lead after everyone passed, a bid with nothing offered but 0, a doubling
decision, one deliberate rejection and retry), each asked once; per position the report
says legal, illegal (why), malformed (why) or late (how late), and the command exits
non-zero on any failure. It works for Python agents and for remote seats alike.
"""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.agents.remote import RemoteAgent
from arena.cli import main
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.reading import hand_of, trick_of
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.games.ddz.engine import PASS, Combo, cards_of, legal_plays
from arena.games.ddz.judge import judge_reply
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    BottomCards,
    Deal,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from arena.games.ddz.positions import MATCH_ID, POSITIONS, position_named
from arena.table.clock import ManualClock
from arena.testing import PositionResult, check_agent
from protocol import Message, ReplyRejected, to_json

NAMES = [p.name for p in POSITIONS]
BY_ROUND = {p.round_no: p.name for p in POSITIONS}


def build(name: str, me: str = "Me") -> tuple[tuple[Message, ...], Any]:
    situation = position_named(name).build(me, 2000)
    return situation.notifications, situation.request


def legal(request: PlayRequest) -> list[Combo]:
    return legal_plays(hand_of(request), trick_of(request))


# --- the positions are real, consistent game states ---------------------------------------


def test_there_are_twelve_positions_asked_once_each_in_rounds_of_their_own() -> None:
    assert len(POSITIONS) == 12
    assert len(set(NAMES)) == 12
    assert sorted(p.round_no for p in POSITIONS) == list(range(1, 13))
    assert [p.name for p in POSITIONS if p.retry] == ["retry_after_rejection"]


@pytest.mark.parametrize("name", NAMES)
def test_each_position_is_valid_wire_json_naming_its_match_table_round_and_seat(
    name: str,
) -> None:
    notes, request = build(name, me="Zed")
    round_no = position_named(name).round_no
    for message in (*notes, request):
        assert parse_message(json.loads(to_json(message))) == message
        assert message.match_id == MATCH_ID
        assert message.round_no == round_no
    deal = notes[0]
    assert isinstance(deal, Deal)
    assert deal.player_id == request.player_id == "Zed"
    assert len(deal.hand) == 17
    assert request.request_id == f"check-{round_no}-1"
    assert request.time_limit_ms == 2000


@pytest.mark.parametrize("name", [p.name for p in POSITIONS if p.round_no >= 5])
def test_a_play_position_agrees_with_its_deal_its_history_and_its_counts(name: str) -> None:
    notes, request = build(name)
    assert isinstance(request, PlayRequest)
    deal, bottom = notes
    assert isinstance(deal, Deal)
    assert isinstance(bottom, BottomCards)
    assert request.landlord == bottom.landlord
    assert request.bottom_cards == bottom.bottom_cards
    seat_order = request.seat_order or []
    assert seat_order == deal.seat_order
    played: Counter[str] = Counter()
    mine: list[str] = []
    for record in request.play_history:
        played[record.player] += len(record.cards)
        if record.player == "Me":
            mine += record.cards
    for player in seat_order:
        start = 20 if player == request.landlord else 17
        assert request.remaining_cards[player] == start - played[player], player
    dealt = set(deal.hand) | (set(bottom.bottom_cards) if request.role == "landlord" else set())
    assert set(request.hand) == dealt - set(mine)
    assert (request.role == "landlord") == (request.landlord == "Me")
    assert sorted(request.teammates) == (
        []
        if request.role == "landlord"
        else [p for p in seat_order if p not in ("Me", bottom.landlord)]
    )


def test_the_bid_positions_offer_what_they_claim() -> None:
    _, only_pass = build("bid_only_pass")
    assert isinstance(only_pass, BidRequest)
    assert only_pass.available_bids == [0]
    assert only_pass.current_highest_bid == 3
    assert only_pass.hand is not None
    assert {"小王", "大王"} <= set(only_pass.hand)  # tempting: a rocket in hand
    _, opening = build("bid_opening")
    assert opening.available_bids == [3, 2, 1, 0]
    assert opening.bid_history == []
    _, fixed = build("bid_fixed_landlord")
    assert fixed.mode == "fixed_landlord"
    assert fixed.available_bids == [3, 2, 1]
    notes, double = build("double_farmer")
    assert isinstance(double, DoubleRequest)
    assert double.kind == "double"
    assert double.landlord != "Me"
    assert len(double.hand) == 17
    assert [type(n) for n in notes] == [Deal, BottomCards]


def test_following_a_bomb_the_only_plays_are_the_rocket_and_pass() -> None:
    _, request = build("follow_bomb_with_rocket")
    assert request.last_play.type == "BOMB"
    assert request.multiplier == 2  # the bomb just played
    assert [(m.type.value, m.main_rank) for m in legal(request)] == [("ROCKET", 17), ("PASS", 0)]
    hand = cards_of(request.hand)
    assert sum(c.rank == 5 for c in hand) == 4  # a bomb that is too low


def test_the_follows_hold_a_higher_combination_of_the_same_kind() -> None:
    for name, kind in (
        ("follow_airplane_with_wings", "AIRPLANE_WITH_SINGLES"),
        ("follow_four_with_two", "FOUR_WITH_TWO_SINGLES"),
    ):
        _, request = build(name)
        assert request.last_play.type == kind
        kinds = {m.type.value for m in legal(request)}
        assert kind in kinds
        assert "PASS" in kinds


def test_the_forced_pass_allows_nothing_but_pass() -> None:
    _, request = build("forced_pass")
    assert not request.is_free_play
    assert legal(request) == [PASS]


def test_the_leads_after_passes_are_free_and_their_history_ends_in_two_passes() -> None:
    for name in ("lead_after_passes", "last_cards"):
        _, request = build(name)
        assert request.is_free_play
        assert [r.action for r in request.play_history[-2:]] == ["PASS", "PASS"]
        assert PASS not in legal(request)
    _, last = build("last_cards")
    assert sorted(c.rank for c in cards_of(last.hand)) == [9, 9]
    _, long = build("long_hand_lead")
    assert len(long.hand) == 20
    assert long.play_history == []
    assert len(legal(long)) > 100


# --- agents that pass -------------------------------------------------------------------


@pytest.mark.parametrize("cls", [HeuristicAgent, GreedyAgent, RandomAgent])
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_builtin_agents_pass_every_position(cls: type[BaseAgent], seed: int) -> None:
    report = await check_agent(cls("Alpha", seed=seed), timeout_s=2.0)
    assert [r.position for r in report.results] == NAMES
    assert report.passed, report.as_text()
    assert report.failures == ()
    assert report.summary() == "Alpha: passed: 12 of 12 positions legal and on time"


class WireAgent(RemoteAgent):
    """A remote agent whose "program" reads each line as JSON and answers as text, as a
    subprocess or HTTP seat does: the check must not care which kind an agent is."""

    def __init__(self, name: str, **options: Any) -> None:
        super().__init__(name, **options)
        self.inner = HeuristicAgent(name, seed=4)
        self.lines: list[Message] = []

    async def deliver(self, line: bytes) -> None:
        self.lines.append(parse_message(json.loads(line)))

    async def exchange(self, line: bytes, request_id: str | None) -> bytes:
        request = parse_message(json.loads(line))
        self.lines.append(request)
        await asyncio.sleep(0)  # it awaits, as a pipe or a socket would
        method = {"BID_REQUEST": "bid", "DOUBLE_REQUEST": "double", "PLAY_REQUEST": "play"}
        reply = await getattr(self.inner, method[request.type])(request)
        return to_json(reply).encode()


async def test_an_agent_answering_in_json_text_passes_and_gets_every_message_on_the_wire() -> None:
    agent = WireAgent("Bot")
    report = await check_agent(agent, timeout_s=2.0)
    assert report.passed, report.as_text()
    kinds = Counter(m.type for m in agent.lines)
    assert kinds["DEAL"] == 12
    assert kinds["BOTTOM_CARDS"] == 9  # the doubling and the eight play positions
    assert kinds["REPLY_REJECTED"] == 1
    assert kinds["PLAY_REQUEST"] == 9  # eight positions, and the retry asked twice
    assert all(r.reply is not None and r.reply.startswith("{") for r in report.results)


# --- agents that fail, and why ------------------------------------------------------------


class BrokenAgent(BaseAgent):
    """Wrong in a different way in each position (found by its round number)."""

    async def bid(self, request: BidRequest) -> Any:
        if BY_ROUND[request.round_no or 0] == "bid_fixed_landlord":
            return BidResponse(player_id=self.name, bid=0)  # a pass, not offered here
        return BidResponse(player_id=self.name, bid=3, request_id=request.request_id)

    async def double(self, request: DoubleRequest) -> Any:
        return "yes please, double it"

    async def play(self, request: PlayRequest) -> Any:
        name = BY_ROUND[request.round_no or 0]
        reply = {"type": "PLAY_RESPONSE", "player_id": self.name, "action": "PLAY"}
        if name == "follow_bomb_with_rocket":
            return {**reply, "cards": ["5", "5", "5", "5"]}
        if name == "follow_airplane_with_wings":
            return {**reply, "cards": ["J", "J", "J", "Q", "Q", "Q", "3", "4"]}
        if name == "follow_four_with_two":
            await asyncio.sleep(30)  # cancelled at the deadline
        if name == "forced_pass":
            return PlayResponse(player_id="Somebody", action="PASS")
        if name == "last_cards":
            raise RuntimeError("lost my cards")
        if name == "long_hand_lead":
            return PlayResponse(player_id=self.name, action="PASS", request_id="t1-1-1")
        if name == "retry_after_rejection":
            return {**reply, "cards": ["6"], "hand_type": "PAIR"}
        return PlayResponse(player_id=self.name, action="PASS", request_id=request.request_id)


async def test_a_broken_agent_fails_and_each_position_says_why() -> None:
    report = await check_agent(BrokenAgent("Bad"), timeout_s=1.5)
    assert not report.passed
    got = {r.position: (r.verdict, r.detail) for r in report.results}
    expected = {
        "bid_only_pass": ("illegal", "bid 3 is not offered; available_bids: [0]"),
        "bid_opening": ("legal", "bid 3"),
        "bid_fixed_landlord": ("illegal", "bid 0 is not offered; available_bids: [3, 2, 1]"),
        "double_farmer": ("malformed", "unparsable: expected a DOUBLE_RESPONSE as JSON"),
        "follow_bomb_with_rocket": ("illegal", "BOMB(♠5 ♥5 ♦5 ♣5) does not beat BOMB("),
        "follow_airplane_with_wings": (
            "illegal",
            "card 'J': no card of that rank left in the hand",
        ),
        "follow_four_with_two": ("late", "no reply within 3 s (the deadline is 1.5 s)"),
        "forced_pass": ("malformed", "unparsable: player_id 'Somebody' is not this seat's 'Bad'"),
        "lead_after_passes": ("illegal", "PASS: cannot pass when leading a new trick"),
        "last_cards": ("error", "agent_error: RuntimeError: lost my cards"),
        "long_hand_lead": ("malformed", "request_id 't1-1-1' answers another request"),
        "retry_after_rejection": ("illegal", "these cards are not a PAIR"),
    }
    assert set(got) == set(expected)
    for name, (verdict, words) in expected.items():
        assert got[name][0] == verdict, (name, got[name])
        assert words in got[name][1], (name, got[name])
    late = report.result("follow_four_with_two")
    assert 2.9 < late.elapsed_s < 10  # waited the deadline twice, not the 30 s sleep
    assert late.reply is None
    assert report.summary() == (
        "Bad: FAILED: 11 of 12 positions (error 1, illegal 6, late 1, malformed 3)"
    )


def blocking_call(seconds: float) -> None:
    """What a blocking HTTP client does to the event loop."""
    time.sleep(seconds)


class BlockingAgent(BaseAgent):
    """Holds the event loop past the deadline, then answers legally."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        blocking_call(0.5)
        return PlayResponse(player_id=self.name, action="PASS", request_id=request.request_id)


async def test_a_reply_after_the_deadline_is_late_by_how_much_even_if_legal() -> None:
    report = await check_agent(
        BlockingAgent("Slow"), timeout_s=0.2, positions=[position_named("forced_pass")]
    )
    (result,) = report.results
    assert result.verdict == "late"
    assert "past the 0.2 s deadline" in result.detail
    assert result.elapsed_s >= 0.5
    assert result.reply is not None  # the reply came, but too late to count
    assert not report.passed


class SleepyWire(RemoteAgent):
    """A remote agent (it awaits, as a pipe or a socket does) that answers PASS after
    ``delay`` seconds: real ones, or of ``clock`` (it awaits a turn of the loop, then
    moves the clock by ``delay``) when one is given."""

    def __init__(self, name: str, delay: float, clock: ManualClock | None = None) -> None:
        super().__init__(name)
        self.delay = delay
        self.clock = clock

    async def deliver(self, line: bytes) -> None:
        pass

    async def exchange(self, line: bytes, request_id: str | None) -> bytes:
        if self.clock is None:
            await asyncio.sleep(self.delay)
        else:
            await asyncio.sleep(0)
            self.clock.advance(self.delay)
        reply = PlayResponse(player_id=self.name, action="PASS", request_id=request_id)
        return to_json(reply).encode()


async def test_an_awaiting_agent_that_answers_late_is_told_how_late() -> None:
    clock = ManualClock()  # the check's own clock: 1.6 s exactly, however loaded the machine
    report = await check_agent(
        SleepyWire("Slow", delay=1.6, clock=clock),
        timeout_s=1.0,
        positions=[position_named("forced_pass")],
        clock=clock,
    )
    (result,) = report.results
    assert result.verdict == "late"  # a legal PASS, but after the deadline
    assert result.detail == "the reply came after 1.60 s, 0.60 s past the 1 s deadline"
    assert result.elapsed_s == pytest.approx(1.6)
    assert result.reply is not None
    assert '"PASS"' in result.reply
    assert report.summary() == "Slow: FAILED: 1 of 1 positions (late 1)"


async def test_an_awaiting_agent_is_given_up_after_twice_its_deadline() -> None:
    report = await check_agent(
        SleepyWire("Hung", delay=30), timeout_s=1.0, positions=[position_named("forced_pass")]
    )
    (result,) = report.results
    assert (result.verdict, result.detail) == ("late", "no reply within 2 s (the deadline is 1 s)")
    assert 1.9 < result.elapsed_s < 10
    assert result.reply is None


class RetryAgent(HeuristicAgent):
    """Answers the retry position's first ask with ``first``, its second with ``second``."""

    def __init__(self, name: str, first: Any, second: Any) -> None:
        super().__init__(name, seed=1)
        self.answers = [first, second]
        self.heard: list[Message] = []

    async def notify(self, message: Message) -> None:
        self.heard.append(message)

    async def play(self, request: PlayRequest) -> Any:
        if BY_ROUND[request.round_no or 0] == "retry_after_rejection":
            return self.answers.pop(0)
        return await super().play(request)


GOOD = {"type": "PLAY_RESPONSE", "player_id": "R", "action": "PLAY", "cards": ["K"]}
GARBAGE = "I would play a king"


async def test_the_retry_is_what_is_judged_and_the_rejection_says_why() -> None:
    fixed = RetryAgent("R", GARBAGE, GOOD)
    report = await check_agent(fixed, timeout_s=2.0)
    result = report.result("retry_after_rejection")
    assert result.verdict == "legal"
    assert "SINGLE(♠K)" in result.detail
    assert "first answer malformed" in result.detail
    assert report.passed
    rejection = next(m for m in fixed.heard if isinstance(m, ReplyRejected))
    assert rejection.reason == "unparsable"
    assert rejection.retries_left == 1
    assert rejection.request_id == "check-12-1"
    assert rejection.round_no == 12

    broken = RetryAgent("R", GOOD, GARBAGE)
    report = await check_agent(broken, timeout_s=2.0)
    result = report.result("retry_after_rejection")
    assert result.verdict == "malformed"
    assert "first answer legal" in result.detail
    assert not report.passed
    rejection = next(m for m in broken.heard if isinstance(m, ReplyRejected))
    assert rejection.reason == "illegal"
    assert "on purpose" in rejection.detail


def test_the_judge_reads_lenient_tokens_and_json_text_as_the_table_does() -> None:
    _, request = build("last_cards")
    reply = {"type": "PLAY_RESPONSE", "player_id": "Me", "action": "PLAY", "cards": ["9", "9h"]}
    for shape in (reply, json.dumps(reply), json.dumps(reply).encode()):
        judged = judge_reply(request, shape)
        assert (judged.verdict, judged.detail) == ("legal", "PAIR(♥9 ♦9)")
    judged = judge_reply(request, {**reply, "cards": ["9", "9s"]})  # the ♠9 went in a straight
    assert (judged.verdict, judged.detail) == ("illegal", "card '9s': ♠9 is not in the hand")
    judged = judge_reply(request, None)
    assert (judged.verdict, judged.detail.split(":")[0]) == ("malformed", "empty")
    judged = judge_reply(request, {**reply, "cards": ["9", "9", "9"]})
    assert judged.verdict == "illegal"
    assert "9" in judged.detail
    _, double = build("double_farmer")
    assert judge_reply(double, DoubleResponse(player_id="Me", double=True)).verdict == "legal"


# --- the command ---------------------------------------------------------------------------

BROKEN_MODULE = '''
from arena.agents import BaseAgent
from arena.games.ddz.messages import PlayResponse

CLOSED = []


class AlwaysPass(BaseAgent):
    """Passes even when leading: illegal in every free lead."""

    async def play(self, request):
        return PlayResponse(player_id=self.name, action="PASS", request_id=request.request_id)

    async def close(self):
        CLOSED.append(self.name)


class CannotStart(AlwaysPass):
    async def open(self):
        from arena.errors import AgentStartError

        raise AgentStartError("the model server is down")
'''


def write_config(folder: Path, seats: list[tuple[str, str]], extra: str = "") -> Path:
    text = "[table]\ndecision_timeout_s = 2\n" + extra
    for name, kind in seats:
        text += f'[[seats]]\nname = "{name}"\ntype = "{kind}"\n'
    path = folder / "arena.toml"
    path.write_text(text, encoding="utf-8")
    return path


BUILTINS = [("Alpha", "heuristic"), ("Beta", "greedy"), ("Gamma", "random")]


def test_the_command_exits_0_when_every_seat_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, BUILTINS)
    assert main(["agent", "check", str(config)]) == 0
    out = capsys.readouterr().out
    assert "== seat 0: Alpha (heuristic), deadline 2 s" in out
    for name in ("Alpha", "Beta", "Gamma"):
        assert f"{name}: passed: 12 of 12 positions legal and on time" in out
    for position in NAMES:
        assert position in out
    assert out.rstrip().endswith("passed: all 3 seats")


def test_the_command_exits_1_naming_what_a_failing_module_agent_did(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (user_folder / "t8checkbots.py").write_text(BROKEN_MODULE, encoding="utf-8")
    config = write_config(
        user_folder,
        [("Alpha", "heuristic"), ("Pat", "t8checkbots:AlwaysPass"), ("Gamma", "greedy")],
    )
    assert main(["agent", "check", str(config), "--seat", "Pat"]) == 1
    out = capsys.readouterr().out
    assert "Alpha" not in out  # only the seat asked for
    lines = {
        line.split()[0]: line for line in out.splitlines() if line and line.split()[0] in NAMES
    }
    for lead in ("lead_after_passes", "last_cards", "long_hand_lead"):
        assert "illegal" in lines[lead]
        assert "cannot pass when leading a new trick" in lines[lead]
    assert "legal" in lines["forced_pass"].split()[1]
    assert "Pat: FAILED: 3 of 12 positions (illegal 3)" in out
    assert sys.modules["t8checkbots"].CLOSED == ["Pat"]  # closed after the check


def test_json_output_lists_every_position_of_every_seat(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (user_folder / "t8checkbots.py").write_text(BROKEN_MODULE, encoding="utf-8")
    config = write_config(
        user_folder,
        [("Alpha", "heuristic"), ("Pat", "t8checkbots:AlwaysPass"), ("Gamma", "greedy")],
    )
    assert main(["agent", "check", str(config), "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["passed"] is False
    assert [s["agent"] for s in document["seats"]] == ["Alpha", "Pat", "Gamma"]
    assert [s["seat"] for s in document["seats"]] == [0, 1, 2]
    assert [s["passed"] for s in document["seats"]] == [True, False, True]
    assert document["seats"][1]["type"] == "t8checkbots:AlwaysPass"
    for seat in document["seats"]:
        assert [r["position"] for r in seat["results"]] == NAMES
        assert seat["timeout_s"] == 2.0
        for result in seat["results"]:
            assert set(result) == {"position", "request", "verdict", "detail", "elapsed_s", "reply"}
    verdicts = {r["position"]: r["verdict"] for r in document["seats"][1]["results"]}
    assert verdicts["lead_after_passes"] == "illegal"
    assert verdicts["forced_pass"] == "legal"


def test_an_unknown_seat_is_a_usage_error_listing_the_seats(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = write_config(tmp_path, BUILTINS)
    assert main(["agent", "check", str(config), "--seat", "Delta"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--seat 'Delta': no such seat" in captured.err
    assert "seats: Alpha, Beta, Gamma" in captured.err
    assert main(["agent", "check", str(config), "--seat", "alpha"]) == 2
    assert "(did you mean 'Alpha'?)" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("[[seats]]\nname = ", "not valid TOML", id="toml"),
        pytest.param("[table]\nbogus = 1\n", "table.bogus", id="key"),
        pytest.param(
            '[[seats]]\nname="A"\ntype="nosuch"\n[[seats]]\nname="B"\n[[seats]]\nname="C"\n',
            "unknown agent type 'nosuch'",
            id="type",
        ),
    ],
)
def test_a_broken_config_exits_2_naming_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    config = tmp_path / "broken.toml"
    config.write_text(text, encoding="utf-8")
    assert main(["agent", "check", str(config)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert str(config) in captured.err
    assert words in captured.err


def test_an_agent_that_cannot_start_is_one_clear_error_and_is_closed(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (user_folder / "t8checkbots.py").write_text(BROKEN_MODULE, encoding="utf-8")
    config = write_config(
        user_folder,
        [("Alpha", "heuristic"), ("Kit", "t8checkbots:CannotStart"), ("Gamma", "greedy")],
    )
    assert main(["agent", "check", str(config), "--seat", "Kit"]) == 2
    captured = capsys.readouterr()
    assert "seat 1 ('Kit') could not start: the model server is down" in captured.err
    assert sys.modules["t8checkbots"].CLOSED == ["Kit"]


def test_agent_check_is_listed_with_the_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "agent check" in capsys.readouterr().err


# --- a program in another process: a subprocess seat ------------------------------------

STDIO_PROGRAM = """
import json
import sys

for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    reply = {"player_id": message.get("player_id"), "request_id": message.get("request_id")}
    if kind == "BID_REQUEST":
        offered = message["available_bids"]
        reply.update(type="BID_RESPONSE", bid=0 if 0 in offered else min(offered))
    elif kind == "DOUBLE_REQUEST":
        reply.update(type="DOUBLE_RESPONSE", double=False)
    elif kind == "PLAY_REQUEST":
        if message["is_free_play"]:  # the hand comes sorted, lowest first
            reply.update(type="PLAY_RESPONSE", action="PLAY", cards=[message["hand"][0]])
        else:
            reply.update(type="PLAY_RESPONSE", action="PASS")
    else:
        continue  # a notification: no reply
    print(json.dumps(reply, ensure_ascii=False), flush=True)
"""


def stdio_config(folder: Path, mode: str, deadline: float = 2.0) -> Path:
    """A config whose seat "Prog" runs STDIO_BOT in ``mode``."""
    program = folder / "bot.py"
    program.write_text(STDIO_BOT, encoding="utf-8")
    command = json.dumps([sys.executable, str(program), mode], ensure_ascii=False)
    config = folder / "arena.toml"
    config.write_text(
        f"[table]\ndecision_timeout_s = {deadline}\n"
        f'[[seats]]\nname = "Prog"\ntype = "subprocess"\noptions = {{ command = {command} }}\n'
        '[[seats]]\nname = "Beta"\n[[seats]]\nname = "Gamma"\n',
        encoding="utf-8",
    )
    return config


def test_a_subprocess_seat_is_checked_like_any_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "lowest.py"
    program.write_text(STDIO_PROGRAM, encoding="utf-8")
    command = json.dumps([sys.executable, str(program)], ensure_ascii=False)
    config = write_config(tmp_path, [])
    config.write_text(
        config.read_text(encoding="utf-8")
        + f'[[seats]]\nname = "Prog"\ntype = "subprocess"\noptions = {{ command = {command} }}\n'
        + '[[seats]]\nname = "Beta"\n[[seats]]\nname = "Gamma"\n',
        encoding="utf-8",
    )
    assert main(["agent", "check", str(config), "--seat", "Prog", "--json"]) == 0, (
        capsys.readouterr()
    )
    (seat,) = json.loads(capsys.readouterr().out)["seats"]
    assert seat["type"] == "subprocess"
    verdicts = {r["position"]: (r["verdict"], r["detail"]) for r in seat["results"]}
    assert verdicts["long_hand_lead"] == ("legal", "SINGLE(♠3)")
    assert verdicts["bid_fixed_landlord"] == ("legal", "bid 1")
    assert all(r["reply"].startswith('{"player_id": "Prog"') for r in seat["results"])


STDIO_BOT = (
    STDIO_PROGRAM.replace(
        "for line in sys.stdin:",
        """import os
import time

mode = sys.argv[1]
if mode == "hello":
    print("hello, I am ready", flush=True)
for line in sys.stdin:""",
    ).replace(
        "    else:\n        continue  # a notification: no reply\n",
        """    else:
        if mode == "ack":
            print('{"ack": true}', flush=True)
        continue
    if mode.startswith("late:") and message["round_no"] == int(mode.split(":")[2]):
        time.sleep(float(mode.split(":")[1]))
    if mode == "double":
        print(json.dumps(reply), flush=True)
""",
    )
    + """
if mode.startswith("exit_slowly:"):  # asked to exit (stdin closed): take a moment
    time.sleep(float(mode.split(":")[1]))
    with open(mode.split(":", 2)[2], "w") as done:
        done.write("exited cleanly")
"""
)


def test_a_program_that_takes_a_moment_to_exit_is_let_exit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "exited"
    config = stdio_config(tmp_path, f"exit_slowly:1.5:{marker}", deadline=1.0)
    assert main(["agent", "check", str(config), "--seat", "Prog"]) == 0
    captured = capsys.readouterr()
    assert "Prog: passed: 12 of 12 positions legal and on time" in captured.out
    assert marker.read_text(encoding="utf-8") == "exited cleanly"  # not killed at 1 s
    assert "agent_close" not in captured.err


CLOSE_FAILS = """
from arena.games.ddz.agents.scripted import HeuristicAgent


class ClosesBadly(HeuristicAgent):
    async def close(self):
        raise RuntimeError("disk full")
"""


def test_a_failed_close_is_logged_with_its_message(
    user_folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (user_folder / "t8closebots.py").write_text(CLOSE_FAILS, encoding="utf-8")
    config = write_config(
        user_folder, [("Alpha", "t8closebots:ClosesBadly"), ("Beta", "greedy"), ("C", "random")]
    )
    assert main(["agent", "check", str(config), "--seat", "Alpha"]) == 0
    err = capsys.readouterr().err
    assert "agent_close_failed" in err
    assert "RuntimeError: disk full" in err
    assert "RuntimeError(" not in err


@pytest.mark.parametrize(
    ("mode", "extra"),
    [
        pytest.param("double", 13, id="two-replies-to-each-request"),
        pytest.param("ack", 22, id="a-reply-to-each-notification"),
        pytest.param("hello", 1, id="a-line-before-any-request"),
    ],
)
def test_a_program_writing_lines_that_answer_no_request_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], mode: str, extra: int
) -> None:
    config = stdio_config(tmp_path, mode)
    assert main(["agent", "check", str(config), "--seat", "Prog", "--json"]) == 1
    (seat,) = json.loads(capsys.readouterr().out)["seats"]
    if mode != "ack":  # an ack may come after the request and be taken as its answer
        assert all(r["verdict"] == "legal" for r in seat["results"])
    assert seat["passed"] is False
    assert seat["extra_lines"] == extra
    (problem,) = seat["problems"]
    assert problem.startswith(f"the program wrote {extra} line")
    assert "answered no request: a reply to a notification, two replies to one request" in problem

    assert main(["agent", "check", str(config), "--seat", "Prog"]) == 1
    out = capsys.readouterr().out
    assert f"extra lines: the program wrote {extra} line" in out
    summary = out.rstrip().splitlines()[-1]
    assert summary.startswith("Prog: FAILED: ")
    assert summary.endswith(f"{extra} extra line{'s' if extra > 1 else ''}")


def test_a_good_program_has_no_extra_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = stdio_config(tmp_path, "plain")
    assert main(["agent", "check", str(config), "--seat", "Prog", "--json"]) == 0
    (seat,) = json.loads(capsys.readouterr().out)["seats"]
    assert (seat["passed"], seat["extra_lines"], seat["problems"]) == (True, 0, [])


async def test_a_late_reply_of_a_program_is_measured_and_is_no_extra_line(tmp_path: Path) -> None:
    from arena.agents.process import SubprocessAgent

    round_no = position_named("forced_pass").round_no
    program = tmp_path / "bot.py"
    program.write_text(STDIO_BOT, encoding="utf-8")
    agent = SubprocessAgent(
        name="Prog", command=[sys.executable, str(program), f"late:2.4:{round_no}"]
    )
    await agent.open()
    try:
        report = await check_agent(agent, timeout_s=1.5)
    finally:
        await agent.close()
    late = report.result("forced_pass")
    assert late.verdict == "late"
    assert late.detail.startswith("the reply came after 2.")
    assert "past the 1.5 s deadline" in late.detail
    assert report.extra_lines == 0  # the late reply was the answer, not a stray line
    assert [r.position for r in report.failures] == ["forced_pass"]


async def test_a_reply_after_the_check_gave_up_is_no_extra_line(tmp_path: Path) -> None:
    from arena.agents.process import SubprocessAgent

    first, then = position_named("forced_pass"), position_named("lead_after_passes")
    program = tmp_path / "bot.py"
    program.write_text(STDIO_BOT, encoding="utf-8")
    agent = SubprocessAgent(
        name="Prog", command=[sys.executable, str(program), f"late:3.75:{first.round_no}"]
    )
    await agent.open()
    try:
        report = await check_agent(agent, timeout_s=1.5, positions=[first, then])
    finally:
        await agent.close()
    given_up = report.result("forced_pass")
    assert (given_up.verdict, given_up.detail) == (
        "late",
        "no reply within 3 s (the deadline is 1.5 s)",
    )
    assert report.result("lead_after_passes").verdict == "legal"
    assert agent.stale_replies == 1  # that reply came, and was thrown away ...
    assert report.extra_lines == 0  # ... as a late one, not an extra line


def test_a_model_seat_is_checked_under_its_providers_deadline(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A model seat without its own timeout_s gets its preset's deadline, at the table and
    here alike, not the [table] default: the check judges lateness as the match will."""
    from fake_providers import FakeOpenAI, legal_model

    from arena.agents.llm.providers import preset

    monkeypatch.setenv("CHECK_KEY", "check-key")
    with FakeOpenAI(api_key="check-key", respond=legal_model) as server:
        config = tmp_path / "model.toml"
        config.write_text(
            "[table]\ndecision_timeout_s = 2.0\n"
            + "".join(f'[[seats]]\nname = "{name}"\ntype = "heuristic"\n' for name in ("A", "B"))
            + '[[seats]]\nname = "Model"\ntype = "openai"\n[seats.options]\n'
            + f'model = "m"\nprovider = "vllm"\nbase_url = "{server.base_url}"\n'
            + 'api_key_env = "CHECK_KEY"\n',
            encoding="utf-8",
        )
        assert main(["agent", "check", str(config), "--seat", "Model"]) == 0
    out = capsys.readouterr().out
    assert f"== seat 2: Model (openai), deadline {preset('vllm').timeout_s:g} s" in out
    assert "Model: passed: 12 of 12 positions legal and on time" in out


async def test_a_model_seats_unreadable_answer_is_malformed_like_a_programs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same fault category gets the same verdict whoever reads the text: a model
    seat reads its model's answer itself (and raises), a program's line the check reads."""
    from fake_providers import FakeOpenAI, Fault, Reply, legal_model

    from arena.agents.llm.openai_seat import OpenAIAgent, close_clients

    monkeypatch.setenv("CHECK_KEY", "check-key")
    with FakeOpenAI(api_key="check-key", respond=legal_model) as server:
        server.script(
            Reply(text="I think I will bid, my hand looks good."),  # bid_only_pass
            Reply(text='{"bid": 2', finish="length"),  # bid_opening
            Fault(400, "this call's prompt is too long"),  # bid_fixed_landlord
        )
        agent = OpenAIAgent(
            "Model", model="m", base_url=server.base_url, api_key_env="CHECK_KEY", structured="none"
        )
        await agent.open()
        try:
            report = await check_agent(agent, timeout_s=5)
        finally:
            await agent.close()
            await close_clients()
    got = {r.position: (r.verdict, r.detail.partition(":")[0]) for r in report.results}
    assert got["bid_only_pass"] == ("malformed", "unparsable")
    assert got["bid_opening"] == ("malformed", "truncated")
    assert "raise the seat's options.max_tokens" in report.result("bid_opening").detail
    assert "max_tokens" not in report.result("bid_only_pass").detail
    assert got["bid_fixed_landlord"] == ("error", "agent_error")  # the provider failed
    program = judge_reply(build("bid_only_pass", "Model")[1], "I think I will bid")
    assert (program.verdict, program.detail.partition(":")[0]) == ("malformed", "unparsable")


# --- verdicts as they come, and kept when stopped (a model takes seconds a position) ----------

SLOW_PROGRAM = STDIO_PROGRAM.replace("import sys\n", "import sys\nimport time\n", 1).replace(
    "    print(json.dumps(reply, ensure_ascii=False), flush=True)",
    "    time.sleep(0.3)\n    print(json.dumps(reply, ensure_ascii=False), flush=True)\n"
    '    with open(__file__ + ".answers", "a") as answers:\n'
    '        answers.write("answered\\n")',
)
"""Answers as STDIO_PROGRAM does, 0.3 s a request, and adds a line to the file named
after itself with ``.answers`` for each reply: a test can see how far the check got."""


async def test_each_verdict_is_handed_over_as_soon_as_it_is_judged() -> None:
    seen: list[PositionResult] = []
    report = await check_agent(HeuristicAgent("Me", seed=1), timeout_s=2, on_result=seen.append)
    assert seen == list(report.results)
    assert [result.position for result in seen] == NAMES


def slow_check(tmp_path: Path, *extra: str) -> subprocess.Popen[str]:
    program = tmp_path / "slow.py"
    program.write_text(SLOW_PROGRAM, encoding="utf-8")
    command = json.dumps([sys.executable, str(program)], ensure_ascii=False)
    config = write_config(tmp_path, [])
    config.write_text(
        config.read_text(encoding="utf-8")
        + f'[[seats]]\nname = "Slow"\ntype = "subprocess"\noptions = {{ command = {command} }}\n'
        + '[[seats]]\nname = "Beta"\n[[seats]]\nname = "Gamma"\n',
        encoding="utf-8",
    )
    run_main = "from arena.cli import main; raise SystemExit(main())"
    return subprocess.Popen(
        [sys.executable, "-c", run_main, "agent", "check", str(config), "--seat", "Slow", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize(
    ("sent", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["Ctrl-C", "SIGTERM"]
)
def test_verdicts_show_as_they_come_and_a_stop_keeps_them(
    tmp_path: Path, sent: signal.Signals, status: int
) -> None:
    check = slow_check(tmp_path)
    try:
        assert check.stdout is not None
        header = check.stdout.readline()
        assert header.startswith("== seat 0: Slow (subprocess), deadline 2 s"), header
        assert check.stdout.readline().split()[:2] == ["position", "verdict"]
        first = check.stdout.readline()  # ~0.3 s: one position judged, eleven to go
        second = check.stdout.readline()
        assert check.poll() is None  # shown while the check goes on
        check.send_signal(sent)
        rest, _ = check.communicate(timeout=20)
    finally:
        if check.poll() is None:
            check.kill()
            check.wait()
    assert first.split()[:2] == [NAMES[0], "legal"]
    assert second.split()[0] == NAMES[1]
    said = [line for line in rest.splitlines() if "interrupted after" in line]
    assert len(said) == 1, rest
    judged = 2 + sum(1 for line in rest.splitlines() if line.split()[:1] in ([n] for n in NAMES))
    assert said[0] == f"Slow: interrupted after {judged} of 12 positions"
    assert check.returncode == status


def test_a_stopped_json_check_prints_what_was_judged(tmp_path: Path) -> None:
    check = slow_check(tmp_path, "--json")
    answers = tmp_path / "slow.py.answers"
    try:
        # Two replies: the second request comes only once the first reply is judged.
        # The 30 s is a hang guard; the check takes 12 x 0.3 s at the least.
        deadline = time.monotonic() + 30
        while not (answers.exists() and len(answers.read_text().splitlines()) >= 2):
            assert check.poll() is None, "the check ended before two replies"
            assert time.monotonic() < deadline, "no two replies within 30 s"
            time.sleep(0.02)
        check.send_signal(signal.SIGINT)
    except BaseException:
        check.kill()
        check.wait()
        raise
    out, _ = check.communicate(timeout=20)
    assert check.returncode == 130
    document = json.loads(out)
    (seat,) = document["seats"]
    done = len(seat["results"])
    assert 1 <= done < 12
    assert document["passed"] is False
    assert document["interrupted"] == f"seat 0 (Slow): interrupted after {done} of 12 positions"
