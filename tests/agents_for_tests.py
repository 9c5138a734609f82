"""Fakes and helpers shared by the agent, table and CLI tests.

Not a test module (pytest collects only ``test_*.py``): it holds small agent classes that
config files name as ``agents_for_tests:Class``, a function-backed :class:`FakeAgent` for
fault injection, request and deal builders, and :func:`check_conformance`, the one
reusable conformance run that any agent can be put through.
"""

from __future__ import annotations

import asyncio
import inspect
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from arena.errors import IllegalActionError
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.reading import hand_of, legal_for, trick_of
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.engine import (
    DECK,
    DEFAULT_RULES,
    DealtCards,
    Rules,
    beats,
    classify,
    readings,
    resolve_cards,
)
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    LastPlay,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from arena.games.ddz.turns import DdzTurns
from arena.sinks.base import CollectingSink
from arena.table import Table, TableSettings, play_match
from protocol import Message, ProtocolError, ReplyRejected, to_json

CARD_PATTERN = re.compile(r"[♠♥♦♣](?:10|[2-9JQKA])|小王|大王")

# ─── deals and requests ─────────────────────────────────────────────────────────────────


def make_deal(seat0: str = "", seat1: str = "", seat2: str = "", bottom: str = "") -> DealtCards:
    """A deal with the named cards where asked; the rest dealt round-robin in deck order.

    Round-robin over the three hands spreads each rank's four cards, so unnamed cards
    rarely form a bomb (tests that depend on it assert it).
    """
    wanted = [seat0.split(), seat1.split(), seat2.split(), bottom.split()]
    used = [c for part in wanted for c in part]
    assert len(set(used)) == len(used), "a card is named twice"
    sizes = (17, 17, 17, 3)
    parts = [list(part) for part in wanted]
    rest = [c.text for c in DECK if c.text not in set(used)]
    free_bottom = sizes[3] - len(parts[3])
    parts[3] += rest[len(rest) - free_bottom :] if free_bottom else []
    rest = rest[: len(rest) - free_bottom]
    slot = 0
    for text in rest:
        while len(parts[slot]) >= sizes[slot]:
            slot = (slot + 1) % 3
        parts[slot].append(text)
        slot = (slot + 1) % 3
    return DealtCards.from_order([c for part in parts for c in part])


def play_request(
    hand: str,
    *,
    last: str | None = None,
    by: str = "L",
    me: str = "F1",
    remaining: dict[str, int] | None = None,
) -> PlayRequest:
    """A validated PLAY_REQUEST at a table of L (landlord), F1 and F2 (farmers)."""
    names = ["L", "F1", "F2"]
    last_play = None
    if last is not None:
        combo = classify(last.split())
        assert combo is not None, f"{last} is not a combination"
        last_play = LastPlay(
            player=by, type=combo.type.value, cards=last.split(), main_rank=combo.main_rank
        )
    counts = {"L": 15, "F1": 15, "F2": 15, me: len(hand.split())}
    counts.update(remaining or {})
    return PlayRequest(
        player_id=me,
        hand=hand.split(),
        is_free_play=last_play is None,
        last_play=last_play,
        remaining_cards=counts,
        role="landlord" if me == "L" else "farmer",
        teammates=[] if me == "L" else [n for n in names if n not in ("L", me)],
        landlord="L",
        seat_order=names,
        call_score=1,
        request_id="req-1",
    )


def cards_in(value: Any) -> set[str]:
    """Every canonical card string anywhere in a message or event payload (text included)."""
    if isinstance(value, Message):
        value = value.model_dump(mode="json")
    found: set[str] = set()
    if isinstance(value, str):
        found.update(CARD_PATTERN.findall(value))
    elif isinstance(value, dict):
        for key, item in value.items():
            found |= cards_in(key) | cards_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            found |= cards_in(item)
    return found


Move = tuple[tuple[str, ...], str]
"""A play as the tests compare them: its canonical cards in order, and its hand type."""


def listed_moves_of(request: dict[str, Any]) -> set[Move]:
    """The moves a PLAY_REQUEST as sent lists in ``legal_moves`` (none listed twice)."""
    moves = [(tuple(m["cards"]), m["hand_type"]) for m in request["legal_moves"]]
    assert len(moves) == len(set(moves)), "a move is listed twice"
    return set(moves)


def engine_moves_of(request: dict[str, Any], rules: Rules = DEFAULT_RULES) -> set[Move]:
    """The engine's own legal moves (PASS aside) for a PLAY_REQUEST's hand and trick."""
    parsed = parse_message(request, expect=PlayRequest)
    return {
        (tuple(c.text for c in move.cards), str(move.type)) for move in legal_for(parsed, rules)
    }


def pass_reply(request: PlayRequest) -> PlayResponse:
    """A PASS to ``request``."""
    return PlayResponse(player_id=request.player_id, action="PASS", request_id=request.request_id)


def play_cards(request: PlayRequest, *cards: str) -> PlayResponse:
    """A PLAY of exactly these card tokens (legal or not)."""
    return PlayResponse(
        player_id=request.player_id, action="PLAY", cards=list(cards), request_id=request.request_id
    )


# ─── fake agents ────────────────────────────────────────────────────────────────────────

Hook = Callable[[Any, int], Any]
"""``hook(request, n)`` for the n-th request of its kind (1-based): returns a reply, or
None to let the inner agent answer; it may raise, sleep (if async) or return garbage."""


class FakeAgent:
    """An agent for table tests: answers like ``inner`` unless a hook says otherwise.

    It records everything it hears, notifications and requests alike, in order, and
    counts the requests of each kind, so tests can assert who was asked what.
    """

    def __init__(
        self,
        name: str,
        *,
        inner: Any = None,
        bid: Hook | None = None,
        double: Hook | None = None,
        play: Hook | None = None,
        notify: Callable[[Message], Any] | None = None,
        close: Callable[[], Any] | None = None,
    ) -> None:
        self.name = name
        self.inner = inner if inner is not None else GreedyAgent(name)
        self._hooks: dict[str, Hook | None] = {"bid": bid, "double": double, "play": play}
        self._notify_hook = notify
        self._close_hook = close
        self.received: list[Message] = []
        self.calls: Counter[str] = Counter()
        self.observe: Callable[[Message], None] | None = None
        self.closed = False

    def _hear(self, message: Message) -> None:
        self.received.append(message)
        if self.observe is not None:
            self.observe(message)

    async def notify(self, message: Message) -> None:
        """Record; then run the notify hook, which may raise."""
        self._hear(message)
        await self.inner.notify(message)
        if self._notify_hook is not None:
            await _maybe_await(self._notify_hook(message))

    async def bid(self, request: BidRequest) -> Any:
        """Hook or inner agent."""
        return await self._answer("bid", request)

    async def double(self, request: DoubleRequest) -> Any:
        """Hook or inner agent."""
        return await self._answer("double", request)

    async def play(self, request: PlayRequest) -> Any:
        """Hook or inner agent."""
        return await self._answer("play", request)

    async def close(self) -> None:
        """Remember the close; the close hook may raise."""
        self.closed = True
        if self._close_hook is not None:
            await _maybe_await(self._close_hook())

    async def _answer(self, kind: str, request: Any) -> Any:
        self._hear(request)
        self.calls[kind] += 1
        hook = self._hooks[kind]
        if hook is not None:
            reply = await _maybe_await(hook(request, self.calls[kind]))
            if reply is not None:
                return reply
        return await getattr(self.inner, kind)(request)

    def of_type(self, cls: type[Message]) -> list[Any]:
        """The received messages of one class, in order."""
        return [m for m in self.received if isinstance(m, cls)]

    @property
    def rejections(self) -> list[ReplyRejected]:
        """Every REPLY_REJECTED this agent was sent."""
        return self.of_type(ReplyRejected)


async def _maybe_await(value: Any) -> Any:
    return await value if inspect.isawaitable(value) else value


class MinimalAgent:
    """A whole agent in one class, without BaseAgent: the smallest legal move, never bids."""

    def __init__(self, name: str, *, seed: int | None = None, rules: Rules = DEFAULT_RULES):
        self.name = name
        self.rules = rules
        self.heard: list[str] = []

    async def notify(self, message: Message) -> None:
        """Remember what kind of news arrived."""
        self.heard.append(message.type)

    async def bid(self, request: BidRequest) -> BidResponse:
        """The lowest allowed bid (a pass when allowed)."""
        return BidResponse(
            player_id=request.player_id,
            bid=min(request.available_bids),
            request_id=request.request_id,
        )

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        """Never double."""
        return DoubleResponse(
            player_id=request.player_id, double=False, request_id=request.request_id
        )

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Pass when allowed, else the first legal lead."""
        if not request.is_free_play:
            return pass_reply(request)
        move = legal_for(request, self.rules)[0]
        return play_cards(request, *(c.text for c in move.cards))

    async def close(self) -> None:
        """Nothing to release."""


class PluginBot(MinimalAgent):
    """What a third-party package would register under ``ddz_arena.agents``."""


class FaultyAgent(MinimalAgent):
    """Bids and doubles fine, but crashes on every play request (an API that is down)."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        """Always fails."""
        raise ConnectionError("model API unreachable")


class JunkReplyAgent(MinimalAgent):
    """Bids and doubles fine, but answers every play request with ``reply`` (an option).

    ``dict``, ``str``, ``none``, ``int``: something that is no PLAY_RESPONSE; ``wire_dict``:
    a valid PLAY_RESPONSE as a plain dict, the shape a remote agent's JSON has.
    """

    def __init__(self, name: str, *, reply: str = "dict", **rest: Any) -> None:
        super().__init__(name, **rest)
        self.reply = reply

    async def play(self, request: PlayRequest) -> Any:
        """Junk, or a good move as a dict."""
        if self.reply == "wire_dict":
            return (await super().play(request)).model_dump(mode="json")
        return {
            "dict": {"action": "PLAY", "cards": "all of them"},
            "str": "PASS please",
            "none": None,
            "int": 42,
        }[self.reply]


class NotAnAgent:
    """Has a name but none of the agent methods."""

    def __init__(self, name: str, **_: Any) -> None:
        self.name = name


# ─── the conformance run ────────────────────────────────────────────────────────────────


class ConformanceChecker:
    """Wraps an agent and checks each reply on its own, before the table sees it.

    The table judges replies too (faults); this checks more: the reply is a valid wire
    message (strict parsing, not ``model_construct``), it echoes ``player_id`` and
    ``request_id``, and it is legal by the engine's rules, checked independently.
    """

    def __init__(self, agent: Any, rules: Rules = DEFAULT_RULES) -> None:
        self.agent = agent
        self.name = agent.name
        self.rules = rules
        self.problems: list[str] = []
        self.decisions: list[dict[str, Any]] = []

    async def notify(self, message: Message) -> None:
        """Forward."""
        await self.agent.notify(message)

    async def close(self) -> None:
        """Forward."""
        await self.agent.close()

    async def bid(self, request: BidRequest) -> Any:
        """Forward and check the bid is one of the allowed ones."""
        reply = await self.agent.bid(request)
        self._check_common(request, reply, BidResponse)
        if isinstance(reply, BidResponse) and reply.bid not in request.available_bids:
            self._problem(request, f"bid {reply.bid} not in {request.available_bids}")
        return reply

    async def double(self, request: DoubleRequest) -> Any:
        """Forward and check the reply's shape."""
        reply = await self.agent.double(request)
        self._check_common(request, reply, DoubleResponse)
        return reply

    async def play(self, request: PlayRequest) -> Any:
        """Forward and check the play against the engine."""
        reply = await self.agent.play(request)
        self._check_common(request, reply, PlayResponse)
        if isinstance(reply, PlayResponse):
            self._check_play(request, reply)
        return reply

    def _check_common(self, request: Any, reply: Any, expected: type[Message]) -> None:
        self.decisions.append(
            {"request": request.type, "reply": getattr(reply, "model_dump", lambda: reply)()}
        )
        if not isinstance(reply, expected):
            self._problem(request, f"replied {type(reply).__name__}, not {expected.__name__}")
            return
        try:
            parse_message(to_json(reply), expect=expected)
        except ProtocolError as exc:
            self._problem(request, f"not a valid wire message: {exc}")
        answer: Any = reply
        if answer.player_id != request.player_id:
            self._problem(request, f"player_id {answer.player_id!r} != {request.player_id!r}")
        if answer.request_id != request.request_id:
            self._problem(request, f"request_id {answer.request_id!r} not echoed")

    def _check_play(self, request: PlayRequest, reply: PlayResponse) -> None:
        if reply.action == "PASS":
            if request.is_free_play:
                self._problem(request, "passed when leading")
            return
        try:
            cards = resolve_cards(reply.cards, hand_of(request))
        except IllegalActionError as exc:
            self._problem(request, f"cards not in hand: {exc}")
            return
        options = readings(cards, self.rules)
        if reply.hand_type is not None:
            options = [o for o in options if o.type.value == reply.hand_type.value]
        trick = trick_of(request)
        if not any(beats(o, trick, self.rules) for o in options):
            self._problem(request, f"{reply.cards} ({reply.hand_type}) is not a legal move")

    def _problem(self, request: Any, text: str) -> None:
        self.problems.append(f"{self.name} on {request.type} {request.request_id}: {text}")


async def check_conformance(
    make_agent: Callable[[str, int], Any],
    *,
    seed: int,
    rounds: int = 3,
    rules: Rules = DEFAULT_RULES,
    auto_pass: bool = False,
) -> tuple[Table, list[ConformanceChecker], CollectingSink]:
    """Seat three agents from ``make_agent(name, seed)`` and play a whole match.

    ``auto_pass`` is off by default so the agent is also asked when it cannot beat
    (and must pass). Returns the table (for its fault counts), the checkers (for
    their problems and decisions) and the sink (for the public events).
    """
    names = ("Ann", "Bob", "Cid")
    checkers = [
        ConformanceChecker(make_agent(name, seed * 10 + i), rules) for i, name in enumerate(names)
    ]
    sink = CollectingSink()
    table = Table(
        checkers,
        table_id=f"conformance-{seed}",
        rules=rules,
        settings=TableSettings(decision_timeout_s=5.0, auto_pass=auto_pass),
        sinks=[sink],
    )
    await play_match(table, rounds=rounds, seed=seed)
    await table.close()
    return table, checkers, sink


def public_actions(events: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """The decisions visible in a list of events, without sequence numbers, and without
    the decision times in a round's stats (the one figure no seed repeats)."""
    for event in events:
        if event.type in ("bid", "double", "play", "pass", "landlord_chosen", "round_result"):
            data = dict(event.data)
            if "stats" in data:
                data["stats"] = {
                    player: {k: v for k, v in figures.items() if k != "latency_ms"}
                    for player, figures in data["stats"].items()
                }
            yield (event.type, event.round, event.seat, data)


# ─── duplicate mode ─────────────────────────────────────────────────────────────────────

DUPLICATE_LOG: list[tuple[str, str | None, int | None, str]] = []
"""What :class:`RememberingAgent`s heard and did, in order: (kind, table, round, agent);
a test's sink may add the events it is handed (tests clear it)."""

REPEATED_HANDS: list[tuple[str, str | None, int | None]] = []
"""(agent, table, round) of every DEAL of a hand the agent remembered (tests clear it)."""

_SHARED_MEMORY: dict[str, set[frozenset[str]]] = {}


class RememberingAgent(GreedyAgent):
    """Greedy, but remembers every hand dealt to it and every final hand a ROUND_RESULT
    showed it, as a cheating agent would, and notes a DEAL of a hand it remembers.

    ``share = true`` keeps the memory per name across instances (what a leaky agent, or
    one agent played at every seating, would know): a control that shows the check bites.
    """

    def __init__(self, name: str, *, share: bool = False, **options: Any) -> None:
        super().__init__(name, **options)
        self.memory = _SHARED_MEMORY.setdefault(name, set()) if share else set()

    async def notify(self, message: Message) -> None:
        table, round_no = getattr(message, "table_id", None), getattr(message, "round_no", None)
        DUPLICATE_LOG.append((message.type, table, round_no, self.name))
        if message.type == "DEAL":
            hand = frozenset(message.hand)  # type: ignore[attr-defined]
            if hand in self.memory:
                REPEATED_HANDS.append((self.name, table, round_no))
            self.memory.add(hand)

    async def bid(self, request: BidRequest) -> BidResponse:
        await asyncio.sleep(0)  # let the other seatings' tables run meanwhile
        DUPLICATE_LOG.append(("BID", request.table_id, request.round_no, self.name))
        return await super().bid(request)

    async def play(self, request: PlayRequest) -> PlayResponse:
        await asyncio.sleep(0)
        DUPLICATE_LOG.append(("PLAY", request.table_id, request.round_no, self.name))
        return await super().play(request)


def forget_duplicate_runs() -> None:
    """Empty the logs and shared memories of :class:`RememberingAgent`."""
    DUPLICATE_LOG.clear()
    REPEATED_HANDS.clear()
    _SHARED_MEMORY.clear()


class OtherGameBot(BaseAgent):
    """A scripted agent of another game only: a Dou Dizhu seat of it is a config error."""

    games = ("tractor",)


def ddz_turns(table: Table) -> DdzTurns:
    """A Dou Dizhu table's turns, typed as such (a test looks at the engine's round)."""
    turns = table.turns
    assert isinstance(turns, DdzTurns)
    return turns
