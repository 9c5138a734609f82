"""Gifts between rounds (issue 11): 角色互换 ROLE_SWAP and 重新洗牌 RESHUFFLE.

A real table of scripted seats, a gift desk beside it (``attach_gift_desks``), a real
replay: a ROLE_SWAP makes its target the next round's landlord without bidding, at the
last round's call score; a RESHUFFLE deals the next round afresh from a seed derived
from the match seed, the table, the round and the gift's unit id. Once each per break;
never in round 1 or inside a round; the round's record, its ``round_result`` event and
its replay header say what changed, and the replay still verifies.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.errors import IllegalActionError
from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.gifts import make_landlord
from arena.games.ddz.messages import BidRequest, Deal, PlayRequest
from arena.replay import ReplayWriter, load_replay, verify_round
from arena.sinks.base import CollectingSink
from arena.table import SafePointHandle, Table, play_match
from arena.table.match import MatchSummary, derive_seed
from arena.table.safe_point import BetweenRoundsHandle
from gifts.events import GiftEffect, GiftEvent
from gifts.router import GiftRouter, attach_gift_desks
from gifts.settings import GiftSettings
from protocol import Message

SEED = 5
TABLE = "t1"
NAMES = ("Alpha", "Beta", "Gamma")


class RecordingAgent(GreedyAgent):
    """A greedy seat that keeps every request and notification it gets."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.requests: list[Message] = []
        self.heard: list[Message] = []

    async def notify(self, message: Message) -> None:
        self.heard.append(message)
        await super().notify(message)

    async def bid(self, request: BidRequest) -> Any:
        self.requests.append(request)
        return await super().bid(request)

    async def double(self, request: Any) -> Any:
        self.requests.append(request)
        return await super().double(request)

    async def play(self, request: PlayRequest) -> Any:
        self.requests.append(request)
        return await super().play(request)


@dataclass
class Played:
    events: list[Event]
    summary: MatchSummary
    router: GiftRouter
    agents: list[RecordingAgent]
    path: Path
    handles: list[BetweenRoundsHandle] = field(default_factory=list)

    def of(self, *types: str) -> list[Event]:
        return [e for e in self.events if e.type in types]

    def gift(self, unit: str) -> list[Event]:
        return [e for e in self.events if e.type == "gift" and e.data["id"] == unit]

    def final(self, unit: str) -> Event:
        """The unit's terminal gift event (there is exactly one)."""
        [last] = [e for e in self.gift(unit) if e.data["status"] != "queued"]
        return last

    def index(self, event: Event) -> int:
        return self.events.index(event)

    def round_event(self, kind: str, round_no: int) -> Event:
        [event] = [e for e in self.events if e.type == kind and e.round == round_no]
        return event


def gift(number: int, effect: GiftEffect, seat: int | None = None) -> GiftEvent:
    return GiftEvent(
        event_id=f"g{number}",
        platform="test",
        viewer_id=f"v{number}",
        effect=effect,
        target_seat=seat,
    )


def unit(number: int) -> str:
    return f"test:g{number}#0"


SafeHook = Callable[[GiftRouter, Table, SafePointHandle], Awaitable[None]]


async def play(
    tmp_path: Path,
    gifts: Sequence[GiftEvent],
    *,
    rounds: int = 2,
    seed: int = SEED,
    during: SafeHook | None = None,
    settings: GiftSettings | None = None,
) -> Played:
    """A match with ``gifts`` sent before it starts (and ``during`` at each safe point)."""
    sink = CollectingSink()
    path = tmp_path / f"between-{seed}-{rounds}-{len(gifts)}.jsonl"
    writer = ReplayWriter(path)
    agents = [RecordingAgent(name) for name in NAMES]
    handles: list[BetweenRoundsHandle] = []

    async def keep_handle(handle: BetweenRoundsHandle) -> None:
        assert handle.round_no == len(handles) + 2  # the round about to be played
        handles.append(handle)

    table = Table(agents, table_id=TABLE, sinks=[sink], recorder=writer.for_table(TABLE))
    router = attach_gift_desks(
        [table], settings or GiftSettings(viewer_cooldown_s=0), match_seed=seed
    )
    table.between_rounds.append(keep_handle)
    if during is not None:
        hook = during

        async def safe_point(handle: SafePointHandle) -> None:
            await hook(router, table, handle)

        table.safe_points.append(safe_point)
    for one in gifts:
        await router.accept(one)
    try:
        summary = await play_match(table, rounds=rounds, seed=seed)
    finally:
        writer.close()
    await router.close()
    return Played(sink.events, summary, router, agents, path, handles)


def requests_in(agent: RecordingAgent, round_no: int) -> list[Message]:
    return [r for r in agent.requests if getattr(r, "round_no", None) == round_no]


def deals_in(agent: RecordingAgent, round_no: int) -> list[Deal]:
    return [m for m in agent.heard if isinstance(m, Deal) and m.round_no == round_no]


# --- ROLE_SWAP ------------------------------------------------------------------------------


async def test_a_role_swap_makes_its_target_landlord_without_bidding(tmp_path: Path) -> None:
    baseline = await play(tmp_path, [])
    first = baseline.round_event("landlord_chosen", 1)
    target = (first.seat or 0) + 1  # not the seat that won round 1's bidding
    target %= 3
    played = await play(tmp_path, [gift(0, GiftEffect.ROLE_SWAP, target)])

    # round 1 is untouched: the gift waits for the break
    assert played.round_event("landlord_chosen", 1) == first._replace(
        seq=played.round_event("landlord_chosen", 1).seq
    )
    assert "landlord" not in played.round_event("round_started", 1).data
    chosen = played.round_event("landlord_chosen", 2)
    assert chosen.seat == target
    assert chosen.data["call_score"] == first.data["call_score"]  # the last round's score
    started = played.round_event("round_started", 2)
    assert started.data["landlord"] == target
    assert started.data["reshuffled"] is False
    assert played.of("bid")
    assert all(e.round == 1 for e in played.of("bid"))
    for agent in played.agents:
        assert requests_in(agent, 1)
        assert not [r for r in requests_in(agent, 2) if isinstance(r, BidRequest)]
    record = played.summary.rounds[1]
    assert record.result.landlord == target
    assert record.result.call_score == first.data["call_score"]
    assert record.gifts == ("ROLE_SWAP",)
    assert played.summary.rounds[0].gifts == ()
    assert played.final(unit(0)).data["status"] == "applied"


async def test_a_second_role_swap_before_the_same_round_is_rejected(tmp_path: Path) -> None:
    played = await play(
        tmp_path, [gift(0, GiftEffect.ROLE_SWAP, 2), gift(1, GiftEffect.ROLE_SWAP, 1)]
    )
    assert played.final(unit(0)).data["status"] == "applied"
    second = played.final(unit(1)).data
    assert second["status"] == "rejected"
    assert second["reason"]
    assert "already" in second["reason"]
    assert played.round_event("landlord_chosen", 2).seat == 2  # the first viewer's choice
    assert played.summary.rounds[1].gifts == ("ROLE_SWAP",)
    header = load_replay(played.path).rounds[1].header
    assert header["gift_changes"] == [
        {
            "effect": "ROLE_SWAP",
            "gift": unit(0),
            "seat": 2,
            "call_score": played.summary.rounds[0].result.call_score,
        }
    ]


async def test_a_role_swap_in_each_break_applies_once_per_round(tmp_path: Path) -> None:
    async def later(router: GiftRouter, table: Table, handle: SafePointHandle) -> None:
        if table.round_no == 2 and not sent:
            sent.append(True)
            await router.accept(gift(1, GiftEffect.ROLE_SWAP, 0))

    sent: list[bool] = []
    played = await play(tmp_path, [gift(0, GiftEffect.ROLE_SWAP, 1)], rounds=3, during=later)
    assert [played.round_event("landlord_chosen", n).seat for n in (2, 3)] == [1, 0]
    assert [r.gifts for r in played.summary.rounds] == [(), ("ROLE_SWAP",), ("ROLE_SWAP",)]
    # the one sent during round 2 waited for the break after it
    applied = played.final(unit(1))
    assert played.index(played.round_event("round_result", 2)) < played.index(applied)
    assert played.index(applied) < played.index(played.round_event("round_started", 3))


# --- RESHUFFLE ------------------------------------------------------------------------------


async def test_a_reshuffle_deals_the_next_round_from_a_derived_seed(tmp_path: Path) -> None:
    baseline = await play(tmp_path, [])
    played = await play(tmp_path, [gift(0, GiftEffect.RESHUFFLE)])
    prepared = derive_seed(SEED, TABLE, 2)
    reshuffled = derive_seed(SEED, TABLE, 2, "reshuffle", unit(0))
    assert prepared != reshuffled
    assert baseline.summary.rounds[1].seed == prepared
    assert played.summary.rounds[1].seed == reshuffled
    assert played.summary.rounds[0].seed == baseline.summary.rounds[0].seed
    header = load_replay(played.path).rounds[1].header
    assert header["seed"] == reshuffled
    assert header["gift_changes"] == [
        {"effect": "RESHUFFLE", "gift": unit(0), "prepared_seed": prepared, "seed": reshuffled}
    ]
    assert "gift_changes" not in load_replay(played.path).rounds[0].header
    started = played.round_event("round_started", 2)
    assert started.data["reshuffled"] is True
    assert started.data["landlord"] is None  # bidding as usual
    assert any(isinstance(r, BidRequest) for r in requests_in(played.agents[0], 2))
    # the deal really is another one
    new_hands = [deals_in(agent, 2)[0].hand for agent in played.agents]
    old_hands = [deals_in(agent, 2)[0].hand for agent in baseline.agents]
    assert new_hands != old_hands
    assert played.summary.rounds[1].gifts == ("RESHUFFLE",)


async def test_a_second_reshuffle_before_the_same_round_is_rejected(tmp_path: Path) -> None:
    played = await play(tmp_path, [gift(0, GiftEffect.RESHUFFLE), gift(1, GiftEffect.RESHUFFLE)])
    assert played.final(unit(0)).data["status"] == "applied"
    second = played.final(unit(1)).data
    assert second["status"] == "rejected"
    assert second["reason"]
    assert "reshuffled" in second["reason"]
    # the first gift's seed stands
    assert played.summary.rounds[1].seed == derive_seed(SEED, TABLE, 2, "reshuffle", unit(0))
    assert played.summary.rounds[1].gifts == ("RESHUFFLE",)


# --- the window --------------------------------------------------------------------------


async def test_in_a_one_round_match_between_round_gifts_expire_at_the_end(
    tmp_path: Path,
) -> None:
    async def mid_round(router: GiftRouter, table: Table, handle: SafePointHandle) -> None:
        if not sent:
            sent.append(True)
            await router.accept(gift(2, GiftEffect.ROLE_SWAP, 0))
            await router.accept(gift(3, GiftEffect.RESHUFFLE))

    sent: list[bool] = []
    played = await play(
        tmp_path,
        [gift(0, GiftEffect.ROLE_SWAP, 1), gift(1, GiftEffect.RESHUFFLE)],
        rounds=1,
        during=mid_round,
    )
    result = played.round_event("round_result", 1)
    ended = played.of("match_ended")[0]
    for number in range(4):
        final = played.final(unit(number))
        assert final.data["status"] == "expired"
        assert played.index(result) < played.index(final) < played.index(ended)
    assert "landlord" not in played.round_event("round_started", 1).data
    assert played.summary.rounds[0].gifts == ()
    assert result.data["gifts"] == []
    assert played.handles == []  # no break before round 1
    assert played.router.figures()[TABLE]["expired"] == 4


async def test_between_round_gifts_apply_only_in_the_break(tmp_path: Path) -> None:
    async def mid_round(router: GiftRouter, table: Table, handle: SafePointHandle) -> None:
        if table.round_no == 1 and len(sent) < 3:
            sent.append(True)
            number = 10 + len(sent)
            effect = GiftEffect.RESHUFFLE if len(sent) == 1 else GiftEffect.ROLE_SWAP
            await router.accept(gift(number, effect, 2))

    sent: list[bool] = []
    played = await play(tmp_path, [], rounds=2, during=mid_round)
    # not one applied inside round 1: each applied after its round_result
    result = played.index(played.round_event("round_result", 1))
    started = played.index(played.round_event("round_started", 2))
    for number in (11, 12, 13):
        final = played.final(unit(number))
        assert result < played.index(final) < started
    assert played.final(unit(11)).data["status"] == "applied"  # RESHUFFLE
    assert played.final(unit(12)).data["status"] == "applied"  # ROLE_SWAP
    assert played.final(unit(13)).data["status"] == "rejected"  # a second ROLE_SWAP
    assert played.summary.rounds[1].gifts == ("RESHUFFLE", "ROLE_SWAP")
    assert played.summary.rounds[0].gifts == ()


async def test_the_break_handle_refuses_every_change_after_it_closed(tmp_path: Path) -> None:
    played = await play(tmp_path, [gift(0, GiftEffect.ROLE_SWAP, 1)], rounds=3)
    assert len(played.handles) == 2  # before rounds 2 and 3
    for handle in played.handles:
        with pytest.raises(IllegalActionError, match="over"):
            make_landlord(handle, 0, "late")  # Dou Dizhu's own change, through the handle
        with pytest.raises(IllegalActionError, match="over"):
            handle.reshuffle("late")
        with pytest.raises(IllegalActionError, match="over"):
            handle.fix({"effect": "ROLE_SWAP", "gift": "late"}, landlord=0)
        with pytest.raises(IllegalActionError):
            _ = handle.fixed
        with pytest.raises(IllegalActionError):
            _ = handle.reshuffled
        with pytest.raises(IllegalActionError):
            _ = handle.last
    # a late change on a kept handle changed nothing: round 3 bid as usual
    assert [r.gifts for r in played.summary.rounds] == [(), ("ROLE_SWAP",), ()]
    assert any(isinstance(r, BidRequest) for r in requests_in(played.agents[0], 3))


async def test_even_the_round_number_is_unreadable_after_the_break(tmp_path: Path) -> None:
    played = await play(tmp_path, [], rounds=2)
    [handle] = played.handles
    with pytest.raises(IllegalActionError):
        _ = handle.round_no


# --- what the round says, and the replay --------------------------------------------------


async def test_the_record_the_result_event_and_the_replay_say_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    played = await play(
        tmp_path, [gift(0, GiftEffect.ROLE_SWAP, 2), gift(1, GiftEffect.RESHUFFLE)], rounds=3
    )
    assert [r.gifts for r in played.summary.rounds] == [(), ("ROLE_SWAP", "RESHUFFLE"), ()]
    for number, record in enumerate(played.summary.rounds, start=1):
        assert played.round_event("round_result", number).data["gifts"] == list(record.gifts)
    assert [r.gift_touched for r in played.summary.rounds] == [False, True, False]
    assert played.round_event("landlord_chosen", 2).seat == 2
    replay = load_replay(played.path)
    headers = [r.header for r in replay.rounds]
    assert [c["effect"] for c in headers[1]["gift_changes"]] == ["ROLE_SWAP", "RESHUFFLE"]
    assert headers[1]["landlord"] == 2
    assert headers[1]["call_score"] == played.summary.rounds[0].result.call_score
    assert headers[1]["seed"] == derive_seed(SEED, TABLE, 2, "reshuffle", unit(1))
    assert headers[1]["gift_changes"][1]["prepared_seed"] == derive_seed(SEED, TABLE, 2)
    assert "gift_changes" not in headers[2]
    assert headers[2]["seed"] == derive_seed(SEED, TABLE, 3)
    assert [r.summary["gifts"] if r.summary else None for r in replay.rounds] == [
        [],
        ["ROLE_SWAP", "RESHUFFLE"],
        [],
    ]
    for recorded in replay.rounds:
        rnd = verify_round(recorded)
        assert rnd.result is not None
    assert verify_round(replay.rounds[1]).landlord == 2
    assert main(["replay", "--quiet", str(played.path)]) == 0, capsys.readouterr().out
    assert main(["replay", str(played.path)]) == 0, capsys.readouterr().out


async def test_an_effect_that_fails_between_rounds_is_settled_and_the_match_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug in a between-rounds effect must not stop the match: the gift ends
    ``error: ...`` and the next round is played as prepared."""

    def broken(self: BetweenRoundsHandle, gift_id: str) -> int:
        raise ValueError("a bug")

    monkeypatch.setattr(BetweenRoundsHandle, "reshuffle", broken)
    played = await play(tmp_path, [gift(1, GiftEffect.RESHUFFLE)], rounds=2)
    assert len(played.summary.rounds) == 2
    ended = [e.data for e in played.events if e.type == "gift" and e.data["status"] != "queued"]
    assert [(d["id"], d["status"], d["reason"]) for d in ended] == [
        (unit(1), "rejected", "error: ValueError")
    ]
    assert played.summary.rounds[1].gifts == ()
    assert played.summary.rounds[1].seed == derive_seed(SEED, TABLE, 2)
