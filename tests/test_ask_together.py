"""The decision runner asks several seats at once within one window (issue 26): each
reply is judged on its own, a seat's fault delays nobody, and the replay keeps the
order in which replies were taken. The questions here are Dou Dizhu bids only because
they are at hand: the runner reads nothing of the game."""

from __future__ import annotations

import asyncio
from typing import Any

from arena.errors import IllegalActionError
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.messages import BidRequest, BidResponse
from arena.sinks.base import CollectingSink
from arena.table import Table
from arena.table.table import Question

WINDOW_S = 1.0
ALL_ASKED = asyncio.Event()


class Log:
    """A recorder that keeps only the messages, in the order the table recorded them."""

    def __init__(self) -> None:
        self.messages: list[tuple[str, int, Any, bool]] = []
        self.replied: dict[int, asyncio.Event] = {seat: asyncio.Event() for seat in range(3)}

    def message(
        self, direction: str, seat: int, message: Any, elapsed_ms: float | None, late: bool = False
    ) -> None:
        self.messages.append((direction, seat, message, late))
        if direction == "from_agent":
            self.replied[seat].set()

    def event(self, event: Any) -> None:
        pass

    def round_started(self, header: dict[str, Any]) -> None:
        pass

    def round_ended(self, summary: dict[str, Any]) -> None:
        pass


class Scripted(BaseAgent):
    """Answers a bid when its ``go`` event is set (or never, without one)."""

    def __init__(self, name: str, go: asyncio.Event | None, bids: list[int], asked: list[str]):
        super().__init__(name)
        self.go, self.bids, self.asked = go, bids, asked

    async def bid(self, request: BidRequest) -> BidResponse:
        self.asked.append(self.name)
        if len(self.asked) == 3:
            ALL_ASKED.set()
        if self.go is None:
            await asyncio.Event().wait()  # never answers
        else:
            await self.go.wait()
        return BidResponse(player_id=self.name, bid=self.bids.pop(0), request_id=request.request_id)


def questions(table: Table, taken: dict[int, int]) -> list[Question[BidResponse]]:
    def judge(seat: int) -> Any:
        def apply(reply: BidResponse) -> None:
            if reply.bid == 3:
                raise IllegalActionError("3 is not on offer here")
            taken[seat] = reply.bid

        return apply

    return [
        Question(
            seat,
            BidRequest(
                player_id=table.names[seat],
                current_highest_bid=0,
                available_bids=[0, 1, 2],
                time_limit_ms=int(WINDOW_S * 1000),
                request_id=f"q{seat}",
            ),
            BidResponse,
            "bid",
            judge(seat),
        )
        for seat in range(3)
    ]


async def test_seats_asked_together_are_judged_each_on_its_own_in_one_window() -> None:
    asked: list[str] = []
    ALL_ASKED.clear()
    everyone_asked, second = ALL_ASKED, asyncio.Event()
    # C answers as soon as all three are asked (so all were asked at once), A after C;
    # B never answers: its window runs out without holding up A or C.
    a = Scripted("A", second, [3, 2], asked)  # an illegal first reply: refused, asked again
    b = Scripted("B", None, [], asked)
    c = Scripted("C", everyone_asked, [1], asked)
    log, sink = Log(), CollectingSink()
    table = Table([a, b, c], recorder=log, sinks=[sink])
    table.settings = table.settings.model_copy(update={"max_retries": 1})

    async def conductor() -> None:
        await log.replied[2].wait()
        second.set()

    taken: dict[int, int] = {}
    replies, _ = await asyncio.gather(
        table.ask_together(questions(table, taken), window_s=WINDOW_S), conductor()
    )

    assert sorted(asked[:3]) == ["A", "B", "C"]
    assert [r.bid if r is not None else None for r in replies] == [2, None, 1]
    assert taken == {0: 2, 2: 1}
    from_agents = [(s, m.bid) for d, s, m, _ in log.messages if d == "from_agent"]
    assert from_agents == [(2, 1), (0, 3), (0, 2)]  # the order replies were taken
    faults = [(e.seat, e.data["category"]) for e in sink.events if e.type == "fault"]
    assert faults == [(0, "illegal"), (1, "timeout")]  # no retry once the window closed
    assert table.faults(1).fallback == 1
    assert table.faults(0).fallback == 0


async def test_one_question_is_asked_under_the_seats_own_deadline() -> None:
    go = asyncio.Event()
    go.set()
    table = Table([Scripted(n, go, [1], []) for n in "XYZ"])
    taken: dict[int, int] = {}
    asked = questions(table, taken)[1]
    reply = await table.decide(asked.seat, asked.request, asked.expected, asked.method, asked.apply)
    assert reply is not None
    assert reply.bid == 1
    assert taken == {1: 1}


async def test_a_seat_that_times_out_in_a_window_is_told_why() -> None:
    table = Table([Scripted(n, None, [], []) for n in "XYZ"])
    log = Log()
    table.recorder = log
    replies = await table.ask_together(questions(table, {})[:1], window_s=0.05)
    assert replies == [None]
    told = [m for d, _, m, _ in log.messages if d == "to_agent" and m.type == "REPLY_REJECTED"]
    assert [m.detail for m in told] == ["no reply before the window closed"]
