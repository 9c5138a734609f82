"""Gifts at a real table, as properties (issue 11): whatever viewers send, and whenever.

Random gift streams (every effect, mapped by name or not mapped at all, random targets
and messages naming players or not, counts 1-3, duplicate deliveries, tables that do
not exist) go through the router into a random match (seed, 1-3 rounds, random
``[gifts]`` settings: show or ranked, wait or reject on cooldown, small cooldowns, small
or large queues), some before it starts and some from a concurrent task while the seats
decide. A fake clock moves one second per safe point, so cooldowns and the time to live
matter, deterministically. After the match:

- every unit ends in exactly one terminal ``gift`` event (``queued`` only before it), a
  duplicate delivery in one ``duplicate`` rejection, and the desk's figures agree;
- the 54 cards are all in play after every effect (hands, the played pile, the bottom);
- no effect applies while a seat decides; between-round effects only in a break;
- applied gifts respect their cooldowns and their time to live;
- ranked mode applies nothing that changes a result;
- each round's record names the result-changing gifts applied to it, and the replay
  verifies round by round.

Junk payloads (wrong types, huge strings, unknown keys, bytes that are no JSON, JSON that
is no object) are refused with a reason and change nothing: the same match with the same
valid gifts goes exactly the same way with or without them.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import Phase as Stage
from hypothesis import event as note
from hypothesis import strategies as st

from arena.cli import main
from arena.events import Event
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.games.ddz.events import parse_event
from arena.games.ddz.messages import (
    BidRequest,
    BidResponse,
    DoubleRequest,
    DoubleResponse,
    PlayRequest,
)
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.sinks.base import CollectingSink
from arena.table import SafePointHandle, Table, play_match
from arena.table.match import MatchSummary
from arena.table.safe_point import PHASE_PLAY, BetweenRoundsHandle
from gifts.events import RESULT_CHANGING, STRONG, GiftEffect, GiftEvent, GiftKind
from gifts.router import GiftRouter, attach_gift_desks
from gifts.settings import DEFAULT_COOLDOWNS, GiftSettings
from gifts.sources.parse import claimed_identity, decode_object, parse_gift
from protocol.cards import CANONICAL_CARDS
from protocol.events import EVENT_SCHEMA_VERSION

TABLE = "t1"
NAMES = ("Alpha", "Beta", "Gamma")
ALL_CARDS = frozenset(CANONICAL_CARDS)
TERMINAL = ("applied", "rejected", "expired")
BETWEEN = {GiftEffect.ROLE_SWAP.value, GiftEffect.RESHUFFLE.value}
MOVES_CARDS = {"SWAP": "swap", "ADD": "transfer", "DOUBLE": "double"}
MAP: dict[str, dict[str, GiftEffect]] = {
    "*": {"Rose": GiftEffect.CHEER, "Bomb": GiftEffect.DOUBLE, "Confetti": GiftEffect.EFFECT},
    "test": {"Card": GiftEffect.SWAP, "Shuffle": GiftEffect.RESHUFFLE},
    "douyin": {"Crown": GiftEffect.ROLE_SWAP, "Eye": GiftEffect.PEEK},
}
GIFT_NAMES = ["Rose", "Bomb", "Confetti", "Card", "Shuffle", "Crown", "Eye", "Mystery"]
"""Names the map knows (on some platforms), and one nothing maps."""
AT_ONCE = {
    "ranked_mode",
    "queue_full",
    "unmapped",
    "unknown_table",
    "no_target",
    "match_over",
}
"""Reasons a gift is settled with as it arrives: told once, never queued first (and
``duplicate``, told under the first delivery's unit id)."""
SHOWN_REASONS = {"duplicate", "cooldown", "queue_full", "last_cards", "ranked_mode", "no_target"}
MESSAGES = ["", "加油 Alpha!", "swap BETA please", "Ｇａｍｍａ", "Alpha vs Gamma", "hi all"]


class FakeClock:
    """The gifts' clock: one second per safe point and per break."""

    def __init__(self) -> None:
        self.now = 0.0
        self.safe_points = 0

    def __call__(self) -> float:
        return self.now


class Yielding(BaseAgent):
    """A scripted seat that lets the event loop run once per decision, as a remote or a
    model seat would, so that gifts can arrive while it decides."""

    def __init__(self, inner: BaseAgent) -> None:
        super().__init__(inner.name)
        self.inner = inner

    async def bid(self, request: BidRequest) -> BidResponse:
        await asyncio.sleep(0)
        return await self.inner.bid(request)

    async def double(self, request: DoubleRequest) -> DoubleResponse:
        await asyncio.sleep(0)
        return await self.inner.double(request)

    async def play(self, request: PlayRequest) -> Any:
        await asyncio.sleep(0)
        return await self.inner.play(request)


class ClockedSink(CollectingSink):
    """Keeps every event with the gifts' clock reading when it came."""

    def __init__(self, clock: FakeClock) -> None:
        super().__init__()
        self.clock = clock
        self.at: list[float] = []

    async def emit(self, event: Event) -> None:
        await super().emit(event)
        self.at.append(self.clock.now)


@dataclass(frozen=True)
class Sent:
    """One delivery a viewer's platform makes."""

    number: int  # the event id: a repeat is a duplicate delivery
    platform: str
    effect: GiftEffect | None  # None: the map decides by the gift's name (or nothing maps it)
    name: str
    seat: int | None
    message: str
    count: int
    table: str | None
    viewer: str | None
    kind: GiftKind
    turn: int  # 0: before the match; n: once the n-th safe point has passed

    def event(self) -> GiftEvent:
        return GiftEvent(
            event_id=f"g{self.number}",
            platform=self.platform,
            effect=self.effect,
            gift_name=self.name,
            target_seat=self.seat,
            message=self.message,
            count=self.count,
            table=self.table,
            viewer_id=self.viewer,
            display_name="" if self.viewer is None else f"Fan {self.viewer}",
            kind=self.kind,
        )


sent_gifts = st.builds(
    Sent,
    number=st.integers(0, 24),
    platform=st.sampled_from(["test", "test", "douyin"]),
    effect=st.sampled_from(
        [
            None,
            *GiftEffect,
            GiftEffect.SWAP,
            GiftEffect.ADD,
            GiftEffect.DOUBLE,
            GiftEffect.ROLE_SWAP,
            GiftEffect.RESHUFFLE,
        ]
    ),
    name=st.sampled_from(GIFT_NAMES),
    seat=st.one_of(st.none(), st.none(), st.integers(0, 2)),
    message=st.sampled_from(MESSAGES),
    count=st.integers(1, 3),
    table=st.sampled_from([None, None, None, TABLE, TABLE, TABLE, "nowhere"]),
    viewer=st.sampled_from([None, "a", "b", "c"]),
    kind=st.sampled_from([GiftKind.GIFT, GiftKind.POINTS, GiftKind.COMMENT]),
    turn=st.sampled_from([0, 0, 1, 2, 5, 10, 20, 30, 45, 60, 80, 100, 130]),
)

gift_settings = st.builds(
    lambda mode, on_cooldown, cooldowns, viewer, strong, size, ttl, pick, last: GiftSettings(
        mode=mode,
        on_cooldown=on_cooldown,
        cooldowns=cooldowns,
        viewer_cooldown_s=viewer,
        strong_cooldown_s=strong,
        queue_size=size,
        ttl_s=ttl,
        pick_target=pick,
        last_cards=last,
        map=MAP,
    ),
    mode=st.sampled_from(["show", "show", "ranked"]),
    on_cooldown=st.sampled_from(["wait", "reject"]),
    cooldowns=st.fixed_dictionaries(
        {effect: st.sampled_from([0.0, 0.0, 2.0, 5.0]) for effect in GiftEffect}
    ),
    viewer=st.sampled_from([0.0, 3.0]),
    strong=st.sampled_from([0.0, 4.0, 10.0]),
    size=st.sampled_from([1, 4, 200, 200, 200]),
    ttl=st.sampled_from([4.0, 30.0, 1000.0, 1000.0, 1000.0]),
    pick=st.sampled_from(["message", "message", "draw", "reject"]),
    last=st.sampled_from([5, 5, 0, 9]),
)

AgentMaker = Callable[[str, int], BaseAgent]
agent_makers: list[AgentMaker] = [
    lambda name, seed: GreedyAgent(name),
    lambda name, seed: RandomAgent(name, seed=seed),
    lambda name, seed: HeuristicAgent(name),
]


@dataclass
class Match:
    events: list[Event]
    at: list[float]
    summary: MatchSummary
    router: GiftRouter
    path: Path
    problems: list[str] = field(default_factory=list)
    """What the card check at each safe point found wrong."""
    checked: int = 0
    strong: int = 0
    """Safe points where a SWAP or ADD applied."""

    def gifts(self) -> list[Event]:
        return [e for e in self.events if e.type == "gift"]


async def play(
    folder: Path,
    *,
    seed: int,
    rounds: int,
    gift_settings: GiftSettings,
    before: Sequence[GiftEvent],
    at_turn: Callable[[GiftRouter, int], Any] | None = None,
    feed: Sequence[tuple[int, GiftEvent]] = (),
    maker: AgentMaker = agent_makers[0],
    yielding: bool = False,
) -> Match:
    """A match of ``rounds`` with the desk beside its table: ``before`` sent before it,
    ``at_turn(router, n)`` awaited at each safe point after the desk's (deterministic),
    ``feed`` sent from a concurrent task once its turn has passed (while seats decide)."""
    clock = FakeClock()
    sink = ClockedSink(clock)
    path = folder / f"match-{seed}-{rounds}.jsonl"
    writer = ReplayWriter(path)

    turned = asyncio.Event()
    before_desk: list[Any] = [(), 0]  # the hands, and the events told, before the desk

    async def tick(handle: SafePointHandle) -> None:
        clock.now += 1.0
        clock.safe_points += 1
        before_desk[:] = [tuple(handle.hand(seat) for seat in range(3)), len(sink.events)]
        turned.set()

    async def tick_between(handle: BetweenRoundsHandle) -> None:
        clock.now += 1.0

    seats: list[BaseAgent] = [maker(name, seed + n) for n, name in enumerate(NAMES)]
    agents = [Yielding(a) for a in seats] if yielding else seats
    table = Table(
        agents,
        table_id=TABLE,
        sinks=[sink],
        recorder=writer.for_table(TABLE),
        safe_points=[tick],
        between_rounds=[tick_between],
    )
    router = attach_gift_desks([table], gift_settings, match_seed=seed, clock=clock)
    match = Match(sink.events, sink.at, MatchSummary(TABLE, NAMES), router, path)

    async def check_cards(handle: SafePointHandle) -> None:
        """After the desk's effects: the 54 cards each in one place, and a legal state."""
        match.checked += 1
        played: list[str] = []
        for event in reversed(sink.events):
            if event.type in ("round_started", "redeal"):
                break
            if event.type == "play":
                played.extend(event.data["cards"])
        hands = [card.text for seat in range(3) for card in handle.hand(seat)]
        in_play = hands + played
        landlord = handle.game_part.landlord  # Dou Dizhu's own part of the moment
        expected = 51 if landlord is None else 54
        if len(in_play) != expected or len(set(in_play)) != expected:
            match.problems.append(f"{len(in_play)} cards in play, not {expected}: {in_play}")
        if not set(in_play) <= ALL_CARDS:
            match.problems.append(f"unknown cards: {set(in_play) - ALL_CARDS}")
        sizes = handle.hand_sizes
        if min(sizes) < 1:
            match.problems.append(f"an empty hand mid-round: {sizes}")
        if handle.phase == PHASE_PLAY and landlord is None:
            match.problems.append("playing without a landlord")
        check_strong(handle, *before_desk)
        if at_turn is not None:
            await at_turn(router, clock.safe_points)

    def check_strong(handle: SafePointHandle, hands: Any, told: int) -> None:
        """Cards changed hands at this safe point only by the SWAP or ADD applied here:
        its target about to lead, each seat involved above the last-cards limit."""
        strong = [
            e.data
            for e in sink.events[told:]
            if e.type == "gift"
            and e.data["status"] == "applied"
            and e.data["effect"] in ("SWAP", "ADD")
        ]
        changed = [seat for seat in range(3) if handle.hand(seat) != hands[seat]]
        if not strong:
            if changed:
                match.problems.append(f"hands {changed} changed without a SWAP or ADD")
            return
        match.strong += 1
        if handle.phase != PHASE_PLAY or not handle.is_leading:
            match.problems.append(f"{strong} applied while nobody leads")
        if any(data["target"] != handle.to_act for data in strong):
            match.problems.append(f"{strong} applied, but seat {handle.to_act} is to act")
        if len(strong) == 1:
            target = strong[0]["target"]
            if len(changed) != 2 or target not in changed:
                match.problems.append(f"{strong} changed the hands of seats {changed}")
            small = [seat for seat in changed if len(hands[seat]) <= gift_settings.last_cards]
            if small:
                match.problems.append(f"{strong} took from or gave to seats {small} near the end")
            sizes = [len(handle.hand(seat)) - len(hands[seat]) for seat in changed]
            wanted = [0, 0] if strong[0]["effect"] == "SWAP" else sorted([-1, 1])
            if sorted(sizes) != wanted:
                match.problems.append(f"{strong} changed the hand sizes by {sizes}")

    table.safe_points.append(check_cards)
    for gift in before:
        await router.accept(gift)
    done: list[bool] = []

    async def run() -> MatchSummary:
        try:
            return await play_match(table, rounds=rounds, seed=seed)
        finally:
            done.append(True)
            turned.set()

    async def feeder() -> None:
        for turn, gift in sorted(feed, key=lambda item: item[0]):
            while clock.safe_points < turn and not done:
                turned.clear()
                await turned.wait()  # set at every safe point, and at the match's end
            await router.accept(gift)

    try:
        match.summary, _ = await asyncio.gather(run(), feeder())
    finally:
        writer.close()
    await router.close()
    return match


# --- the properties -----------------------------------------------------------------------


def units_of(data: Mapping[str, Any]) -> list[str]:
    """The unit ids a gift event settles: its id, or each of ``...#first-last``."""
    if data.get("units", 1) == 1:
        return [data["id"]]
    key, _, span = data["id"].rpartition("#")
    first, last = (int(n) for n in span.split("-"))
    return [f"{key}#{unit}" for unit in range(first, last + 1)]


def check_every_unit_ends_once(match: Match, sent: Sequence[Sent]) -> None:
    expected: Counter[str] = Counter()
    seen: set[tuple[str, int]] = set()
    duplicates = 0
    for one in sent:
        key = (one.platform, one.number)
        if key in seen:
            duplicates += 1
            continue
        seen.add(key)
        expected.update(f"{one.platform}:g{one.number}#{u}" for u in range(one.count))
    state: dict[str, str] = {}
    told_duplicates = 0
    waiting = 0
    for event in match.gifts():
        data = event.data
        status, reason, unit = data["status"], data["reason"], data["id"]
        # how many wait at the table as it is told: the queued ones not yet ended
        if status == "queued":
            waiting += 1
        elif reason != "duplicate" and state.get(unit) == "queued":
            waiting -= 1
        assert data["waiting"] == waiting, data
        assert event.table == TABLE
        assert status in ("queued", *TERMINAL), data
        assert (status == "rejected") == (reason is not None), data
        if reason is not None:
            assert isinstance(reason, str)
            assert reason
        if reason == "duplicate":
            told_duplicates += 1
            assert data["refund"] is False
            assert unit.rpartition("#")[2] == f"dup{told_duplicates}", data  # an id of its own
            assert data["units"] == 1
            continue
        units = units_of(data)
        assert len(units) == data["units"] == (1 if status == "queued" else data["units"])
        for settled in units:
            if reason in AT_ONCE:
                assert settled not in state, f"{settled} was queued, then rejected {reason}"
            assert settled in expected, data
            if status == "queued":
                assert settled not in state, f"{settled} queued twice or after its end"
                state[settled] = "queued"
            else:
                assert state.get(settled) in (None, "queued"), f"{settled} ended twice"
                state[settled] = "done"
        assert data["refund"] is (data["kind"] == "points" and status in ("rejected", "expired"))
    assert told_duplicates == duplicates
    assert state == dict.fromkeys(expected, "done")  # every unit ended, none was lost
    figures = match.router.figures()[TABLE]
    ended = sum(figures.get(status, 0) for status in TERMINAL)
    assert ended == sum(expected.values()) + duplicates
    assert sum(figures["rejected_by_reason"].values()) == figures.get("rejected", 0)
    assert figures["rejected_by_reason"].get("duplicate", 0) == duplicates
    assert figures["waiting"] == 0
    assert figures["invalid"] == 0


def check_no_effect_while_a_seat_decides(match: Match) -> None:
    deciding: int | None = None
    last_boundary = ""
    for event in match.events:
        if event.type == "turn_started":
            assert deciding is None, event
            deciding = event.seat
        elif event.type == "pass" and event.data["auto"]:
            assert deciding is None, event  # no turn: the table passed for the seat
        elif event.type in ("bid", "double", "play", "pass"):
            assert event.seat == deciding, event
            deciding = None
        elif event.type == "effect_applied":
            assert deciding is None, f"an effect while seat {deciding} decides: {event}"
        elif event.type == "gift" and event.data["status"] == "applied":
            assert deciding is None, f"a gift applied while seat {deciding} decides: {event}"
            if event.data["effect"] in BETWEEN:
                assert last_boundary == "round_result", event  # in a break only
            else:
                assert last_boundary == "round_started", event  # inside a round only
        if event.type in ("round_started", "round_result"):
            last_boundary = event.type


def came_while_deciding(match: Match) -> bool:
    deciding = False
    for event in match.events:
        if event.type == "turn_started":
            deciding = True
        elif event.type in ("bid", "double", "play", "pass"):
            deciding = False
        elif event.type == "gift" and deciding:
            return True
    return False


def check_rounds_name_their_gifts(match: Match, rounds: int) -> None:
    records = match.summary.rounds
    assert len(records) == rounds
    segment: list[Event] = []
    number = 0
    for event in match.events:
        segment.append(event)
        if event.type != "round_result":
            continue
        record = records[number]
        number += 1
        applied = [
            e.data["effect"]
            for e in segment
            if e.type == "gift"
            and e.data["status"] == "applied"
            and GiftEffect(e.data["effect"]) in RESULT_CHANGING
        ]
        assert record.gifts == tuple(applied)
        assert record.gift_touched == bool(applied)
        assert applied.count("DOUBLE") == record.result.gift_doubles <= 2  # the rules' cap
        assert event.data["gifts"] == list(record.gifts)
        moved = [e.data["effect"] for e in segment if e.type == "effect_applied"]
        assert moved == [MOVES_CARDS[e] for e in applied if e in MOVES_CARDS]
        [started] = [e for e in segment if e.type == "round_started"]
        between = [e for e in applied if e in BETWEEN]
        assert ("landlord" in started.data) == bool(between)
        if between:
            assert started.data["reshuffled"] == ("RESHUFFLE" in between)
        segment = []
    assert number == rounds


def check_cooldowns_and_time_to_live(match: Match, chosen: GiftSettings) -> None:
    cooldowns = {**DEFAULT_COOLDOWNS, **chosen.cooldowns}
    queued_at: dict[str, float] = {}
    last_effect: dict[str, float] = {}
    last_viewer: dict[str, float] = {}
    last_strong: float | None = None
    for event, at in zip(match.events, match.at, strict=True):
        if event.type != "gift":
            continue
        data = event.data
        if data["status"] == "queued":
            queued_at[data["id"]] = at
        if data["status"] != "applied":
            continue
        effect = GiftEffect(data["effect"])
        assert at - queued_at[data["id"]] <= chosen.ttl_s, data
        if effect.value in last_effect:
            assert at >= last_effect[effect.value] + cooldowns[effect], data
        last_effect[effect.value] = at
        viewer = data["viewer"]  # "Fan v" for a viewer with an id, else anonymous
        if viewer != "a viewer":
            if viewer in last_viewer:
                assert at >= last_viewer[viewer] + chosen.viewer_cooldown_s, data
            last_viewer[viewer] = at
        if effect in STRONG:
            if last_strong is not None:
                assert at >= last_strong + chosen.strong_cooldown_s, data
            last_strong = at


def check_ranked(match: Match) -> None:
    assert not [e for e in match.events if e.type == "effect_applied"]
    for event in match.gifts():
        effect = event.data["effect"]
        if effect is not None and GiftEffect(effect) in RESULT_CHANGING:
            assert event.data["status"] == "rejected", event.data
    for event in match.events:
        if event.type == "round_started":
            assert "landlord" not in event.data
    assert all(record.gifts == () for record in match.summary.rounds)


def check_replay(match: Match, rounds: int) -> None:
    replay = load_replay(match.path)
    assert len(replay.rounds) == rounds
    for recorded, record in zip(replay.rounds, match.summary.rounds, strict=True):
        rnd = verify_round(recorded)
        assert rnd.result is not None
        assert rnd.result.scores == record.result.scores
        assert recorded.header["seed"] == record.seed
        changes = [c["effect"] for c in recorded.header.get("gift_changes", [])]
        assert changes == [g for g in record.gifts if g in BETWEEN]
        assert recorded.summary is not None
        assert recorded.summary["gifts"] == list(record.gifts)


@settings(
    max_examples=40,
    deadline=None,
    phases=[Stage.explicit, Stage.reuse, Stage.generate, Stage.shrink],  # no slow explain
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    sent=st.lists(sent_gifts, min_size=6, max_size=24),
    seed=st.integers(0, 2**20),
    rounds=st.sampled_from([1, 2, 2, 3]),
    chosen=gift_settings,
    maker=st.sampled_from(agent_makers),
)
def test_every_gift_ends_once_and_the_match_stays_whole(
    sent: list[Sent], seed: int, rounds: int, chosen: GiftSettings, maker: AgentMaker
) -> None:
    before = [one.event() for one in sent if one.turn == 0]
    later = [(one.turn, one.event()) for one in sent if one.turn > 0]
    # the deliveries in the order the router gets them (the feeder sorts by turn, stably)
    order = [one for one in sent if one.turn == 0] + sorted(
        (one for one in sent if one.turn > 0), key=lambda one: one.turn
    )
    with tempfile.TemporaryDirectory() as folder:
        match = asyncio.run(
            play(
                Path(folder),
                seed=seed,
                rounds=rounds,
                gift_settings=chosen,
                before=before,
                feed=later,
                maker=maker,
                yielding=True,
            )
        )
        check_replay(match, rounds)
        assert main(["replay", "--quiet", str(match.path)]) == 0  # the command agrees
    assert match.checked > 0
    assert match.problems == []
    for event in match.events:  # every event as documented, the gifts' too
        parse_event(orjson.dumps({**event.to_dict(), "v": EVENT_SCHEMA_VERSION}))
    check_every_unit_ends_once(match, order)
    check_no_effect_while_a_seat_decides(match)
    check_rounds_name_their_gifts(match, rounds)
    check_cooldowns_and_time_to_live(match, chosen)
    if chosen.mode == "ranked":
        check_ranked(match)
    outcomes = Counter(
        (e.data["status"], e.data["reason"] if e.data["reason"] in SHOWN_REASONS else None)
        for e in match.gifts()
    )
    for outcome in outcomes:
        note(f"some {outcome}")  # what the examples exercised (--hypothesis-show-statistics)
    between = [e for e in match.gifts() if e.data["effect"] in BETWEEN]
    for e in between:
        note(f"between: {e.data['status']} {e.data['reason']}"[:60])
    note(f"a gift came while a seat decided: {came_while_deciding(match)}")
    note(f"a SWAP or ADD applied: {match.strong > 0}")
    note(f"effects applied: {min(3, len([e for e in match.events if e.type == 'effect_applied']))}")
    # what still waited at the end expired before the match ended; later ones are refused
    ended = match.events.index(next(e for e in match.events if e.type == "match_ended"))
    for index, event in enumerate(match.events):
        if event.type == "gift" and index > ended:
            assert event.data["status"] == "rejected", event.data


def test_a_busy_show_match_applies_every_kind_of_effect() -> None:
    """The property above is not vacuous: with room and no cooldowns, each in-round
    effect applies, and so do both between-round ones."""
    quiet = GiftSettings(
        cooldowns=dict.fromkeys(GiftEffect, 0.0),
        viewer_cooldown_s=0,
        strong_cooldown_s=0,
        ttl_s=1000,
        map=MAP,
    )
    effects = [*GiftEffect, GiftEffect.SWAP, GiftEffect.ADD, GiftEffect.SWAP, GiftEffect.ADD]
    sent = [
        Sent(n, "test", e, "", n % 3, "", 1, None, f"v{n}", GiftKind.GIFT, 0)
        for n, e in enumerate(effects)
    ]
    with tempfile.TemporaryDirectory() as folder:
        match = asyncio.run(
            play(
                Path(folder),
                seed=3,
                rounds=2,
                gift_settings=quiet,
                before=[s.event() for s in sent],
            )
        )
        check_replay(match, 2)
    applied = {e.data["effect"] for e in match.gifts() if e.data["status"] == "applied"}
    assert applied == {e.value for e in GiftEffect}
    assert match.problems == []
    check_every_unit_ends_once(match, sent)
    check_no_effect_while_a_seat_decides(match)
    check_rounds_name_their_gifts(match, 2)


# --- junk payloads ------------------------------------------------------------------------

VALID = {"event_id": "g3", "platform": "test", "effect": "SWAP", "target_seat": 0}
"""A junk object claims to be a gift that comes later: refusing it must not make that
gift a duplicate."""

wrong_fields = st.one_of(
    st.sampled_from(
        [
            ("count", "3"),
            ("count", 0),
            ("count", 2.5),
            ("count", 10**30),
            ("event_id", 12),
            ("event_id", ""),
            ("event_id", "x" * 129),
            ("platform", "Not A Platform"),
            ("platform", None),
            (
                "target_seat",
                6,
            ),  # no game has a seventh seat (a seat the table lacks is the desk's to refuse)
            ("target_seat", "1"),
            ("effect", "WIN_THE_ROUND"),
            ("effect", 7),
            ("anonymous", "yes"),
            ("kind", "bribe"),
            ("display_name", ["a", "list"]),
            ("table", "t1; drop"),
            ("raw", "not an object"),
            ("colour", "red"),
            ("sent_at", "yesterday"),
            ("value", -5),
        ]
    ),
    # huge strings, made when drawn (a strategy's repr stays short)
    st.integers(4_001, 40_000).map(lambda n: ("message", "m" * n)),
    st.integers(16_400, 30_000).map(lambda n: ("raw", {"blob": "x" * n})),
)


def junk_object(pair: tuple[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    return {**VALID, pair[0]: pair[1], **extra}


junk_payloads = st.one_of(
    st.builds(
        lambda pair, extra: json.dumps(junk_object(pair, extra)).encode(),
        wrong_fields,
        st.dictionaries(st.sampled_from(["zz", "__proto__", "hack"]), st.integers(), max_size=2),
    ),
    st.builds(lambda pair: junk_object(pair, {}), wrong_fields),  # an object, not bytes
    st.builds(lambda pair: json.dumps(junk_object(pair, {})), wrong_fields),
    st.binary(max_size=64).map(lambda b: b"\xff" + b),  # not UTF-8, not JSON
    st.text(max_size=30).map(lambda t: "{" + t),  # broken JSON
    st.one_of(
        st.lists(st.integers(), max_size=3),
        st.text(max_size=10),
        st.integers(),
        st.booleans(),
        st.none(),
        st.floats(allow_nan=False),
    ).map(lambda value: json.dumps(value).encode()),  # JSON, but no object
    st.integers(65_537, 70_000).map(lambda n: b'{"event_id": "' + b"x" * n + b'"}'),  # too large
    st.just({"event_id": {1, 2}, "platform": "test"}),  # a caller's object JSON cannot hold
)

VALID_GIFTS = [
    (0, GiftEvent(event_id="g0", platform="test", effect=GiftEffect.CHEER, target_seat=1)),
    (0, GiftEvent(event_id="g1", platform="test", effect=GiftEffect.ROLE_SWAP, target_seat=2)),
    (3, GiftEvent(event_id="g2", platform="test", effect=GiftEffect.DOUBLE, viewer_id="a")),
    (8, GiftEvent(event_id="g3", platform="test", effect=GiftEffect.SWAP, target_seat=0)),
    (15, GiftEvent(event_id="g4", platform="test", effect=GiftEffect.ADD, target_seat=1)),
    (20, GiftEvent(event_id="g5", platform="test", effect=GiftEffect.PEEK, viewer_id="a")),
    (40, GiftEvent(event_id="g1", platform="test", effect=GiftEffect.CHEER)),  # a duplicate
    (70, GiftEvent(event_id="g6", platform="test", effect=GiftEffect.RESHUFFLE)),
]


def comparable(events: Sequence[Event]) -> list[tuple[Any, ...]]:
    """Events as a run with the same gifts must repeat them: without junk refusals, the
    wall clock's deadlines, or the numbering the refusals shifted."""
    kept = []
    for event in events:
        data = dict(event.data)
        if event.type == "gift" and str(data.get("reason") or "").startswith("invalid: "):
            continue
        data.pop("deadline_at", None)
        if event.type in ("round_result", "match_ended"):
            data.pop("stats", None)
        kept.append((event.type, event.round, event.seat, orjson.dumps(data, default=str)))
    return kept


@settings(
    max_examples=25,
    deadline=None,
    phases=[Stage.explicit, Stage.reuse, Stage.generate, Stage.shrink],  # no slow explain
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    junk=st.lists(st.tuples(st.integers(0, 60), junk_payloads), min_size=1, max_size=8),
    seed=st.integers(0, 2**20),
    ranked=st.booleans(),
)
def test_junk_is_refused_with_a_reason_and_changes_nothing(
    junk: list[tuple[int, bytes | str | dict[str, Any]]], seed: int, ranked: bool
) -> None:
    chosen = GiftSettings(
        mode="ranked" if ranked else "show",
        cooldowns={GiftEffect.SWAP: 3.0, GiftEffect.DOUBLE: 2.0},
        viewer_cooldown_s=2.0,
        strong_cooldown_s=4.0,
        ttl_s=30.0,
    )
    reasons: list[str] = []

    def sender(with_junk: bool) -> Callable[[GiftRouter, int], Any]:
        async def at_turn(router: GiftRouter, turn: int) -> None:
            for when, gift in VALID_GIFTS:
                if when == turn and when > 0:
                    await router.accept(gift)
            if not with_junk:
                return
            for when, payload in junk:
                if when == turn:
                    parsed = parse_gift(payload)
                    assert isinstance(parsed, str), payload  # refused, with a reason
                    assert parsed
                    assert len(parsed) < 1000  # short: it never echoes a huge payload
                    reasons.append(parsed)
                    claimed = decode_object(payload) if not isinstance(payload, dict) else payload
                    event_id, platform = (
                        claimed_identity(claimed) if isinstance(claimed, Mapping) else (None, None)
                    )
                    await router.refuse(parsed, event_id=event_id, platform=platform)

        return at_turn

    before = [gift for when, gift in VALID_GIFTS if when == 0]
    with tempfile.TemporaryDirectory() as folder:
        plain = asyncio.run(
            play(
                Path(folder),
                seed=seed,
                rounds=2,
                gift_settings=chosen,
                before=before,
                at_turn=sender(False),
            )
        )
        plain_lines = strip_times(plain.path)
        (Path(folder) / "junk").mkdir()
        junked = asyncio.run(
            play(
                Path(folder) / "junk",
                seed=seed,
                rounds=2,
                gift_settings=chosen,
                before=before,
                at_turn=sender(True),
            )
        )
        check_replay(junked, 2)
        junk_lines = strip_times(junked.path)
    refused = [e for e in junked.gifts() if str(e.data["reason"] or "").startswith("invalid: ")]
    # every junk payload delivered before the match's end was told, with its reason
    assert [e.data["reason"] for e in refused] == [f"invalid: {r}" for r in reasons]
    assert all(e.data["refund"] is False and e.data["status"] == "rejected" for e in refused)
    assert junked.router.figures()[TABLE]["invalid"] == len(reasons)
    # and changed nothing: the same gifts went the same way, the same match was played
    assert comparable(junked.events) == comparable(plain.events)
    figures = {**junked.router.figures()[TABLE], "invalid": 0}
    assert figures == plain.router.figures()[TABLE]
    assert [r.result.scores for r in junked.summary.rounds] == [
        r.result.scores for r in plain.summary.rounds
    ]
    assert [r.gifts for r in junked.summary.rounds] == [r.gifts for r in plain.summary.rounds]
    assert junk_lines == plain_lines
    assert plain.problems == junked.problems == []
    # the valid gift a junk object claimed to be was not taken for a duplicate
    g3 = [e.data["status"] for e in junked.gifts() if e.data["id"] == "test:g3#0"]
    assert g3[0] in ("queued", "rejected")
    assert "duplicate" not in [
        e.data["reason"] for e in junked.gifts() if e.data["id"] == "test:g3#0"
    ]


def strip_times(path: Path) -> list[bytes]:
    """The replay's lines that do not depend on the wall clock or on the events' numbers:
    the messages to and from the seats, the effects, the round headers' seeds."""
    kept = []
    for raw in path.read_bytes().splitlines():
        line = orjson.loads(raw)
        if line.get("kind") == "message":
            message = dict(line["message"])
            message.pop("time_limit_ms", None)
            kept.append(orjson.dumps([line["dir"], line["seat"], message]))
        elif line.get("kind") == "effect":
            kept.append(orjson.dumps({k: v for k, v in line.items() if k != "at"}))
        elif "seed" in line:
            kept.append(orjson.dumps([line.get("seed"), line.get("gift_changes")]))
    return kept
