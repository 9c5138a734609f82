"""A table's gift desk and the router in front of the desks (issue 11).

The desk maps a gift to an effect (its own, by name, by id, or for every platform with
``"*"``), picks a seat for the effects that need one, queues a count-N gift as N units
and tells every unit as a ``gift`` event: ``queued``, then exactly one of ``applied``,
``rejected`` (with a reason) or ``expired``. The router sends each gift to its table (or
the default one) and tells what it cannot place there. At a real table, a CHEER reaches
its target's next PLAY_REQUEST only, a PEEK's cards reach the delayed spectator feed only,
and a gift applied at a safe point is told before that safe point's effect and before the
next turn.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from arena.errors import ConfigError
from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.messages import BottomCards, Deal, PlayRequest
from arena.games.registry import get_game
from arena.sinks.base import CollectingSink
from arena.sinks.spectator import CollectingSpectatorOutput, SpectatorFeed
from arena.table import Table, play_match
from arena.table.match import derive_seed
from gifts.desk import TARGETED, GiftDesk
from gifts.events import GiftEffect, GiftEvent, GiftKind
from gifts.router import attach_gift_desks
from gifts.settings import GiftSettings
from gifts.targeting import seeded_seat
from protocol import Message

NAMES = ("Alpha", "Beta", "Gamma")
SEED = 21


class Told:
    """A desk's ``emit``: keeps every event it is told, as (kind, seat, data)."""

    def __init__(self) -> None:
        self.items: list[tuple[Any, int | None, dict[str, Any]]] = []

    async def __call__(self, kind: Any, seat: int | None, data: dict[str, Any]) -> None:
        self.items.append((kind, seat, data))

    @property
    def gifts(self) -> list[dict[str, Any]]:
        assert all(kind == "gift" for kind, _, _ in self.items)
        return [data for _, _, data in self.items]

    def status(self, unit: str) -> list[str]:
        return [d["status"] for d in self.gifts if d["id"] == unit]


def desk(settings: GiftSettings | None = None) -> tuple[GiftDesk, Told]:
    told = Told()
    made = GiftDesk(
        settings or GiftSettings(viewer_cooldown_s=0),
        players=NAMES,
        match_seed=SEED,
        clock=lambda: 0.0,
    )
    made.attach(told)
    return made, told


def gift(event_id: str = "e1", **fields: Any) -> GiftEvent:
    return GiftEvent(**{"event_id": event_id, "platform": "bilibili", **fields})


# --- mapping ------------------------------------------------------------------------------

MAPPED = GiftSettings(
    map={
        "bilibili": {
            "小花花": GiftEffect.CHEER,
            "31036": GiftEffect.PEEK,
            "Rocket": GiftEffect.SWAP,
        },
        "*": {"Rocket": GiftEffect.DOUBLE, "Heart": GiftEffect.EMOTE},
    }
)


@pytest.mark.parametrize(
    ("fields", "effect"),
    [
        ({"gift_name": "小花花"}, "CHEER"),  # the platform's map, by name
        ({"gift_id": "31036", "gift_name": "unknown"}, "PEEK"),  # by id
        ({"gift_name": "Rocket"}, "SWAP"),  # the platform's own map before "*"
        ({"platform": "douyin", "gift_name": "Rocket"}, "DOUBLE"),  # "*" for the others
        ({"platform": "twitch", "gift_name": "Heart"}, "EMOTE"),
        ({"gift_name": "小花花", "effect": GiftEffect.EFFECT}, "EFFECT"),  # its own effect wins
    ],
)
async def test_a_gift_maps_by_name_by_id_or_for_every_platform(
    fields: dict[str, Any], effect: str
) -> None:
    made, told = desk(MAPPED)
    await made.submit(gift(**fields))
    [queued] = told.gifts
    assert queued["status"] == "queued"
    assert queued["effect"] == effect
    assert made.queue.waiting == 1


async def test_a_gift_nothing_maps_is_rejected_unmapped_its_units_at_once() -> None:
    made, told = desk(MAPPED)
    await made.submit(gift(gift_name="Lollipop", gift_id="999", count=2))
    await made.submit(gift("e2", platform="douyin", gift_name="小花花"))  # bilibili's only
    assert [(d["id"], d["status"], d["reason"], d["effect"], d["units"]) for d in told.gifts] == [
        ("bilibili:e1#0-1", "rejected", "unmapped", None, 2),
        ("douyin:e2#0", "rejected", "unmapped", None, 1),
    ]
    assert made.queue.waiting == 0
    assert made.figures["rejected_by_reason"] == {"unmapped": 3}


async def test_a_seat_the_table_does_not_have_is_refused_naming_its_seats() -> None:
    """A gift may name any seat a game can have (0-5); at a three-seat table, seat 3 is
    refused, told and counted, and a six-seat table takes seat 5."""
    made, told = desk(MAPPED)
    await made.submit(gift(gift_name="小花花", target_seat=3))
    [refused] = told.gifts
    assert refused["status"] == "rejected"
    assert refused["reason"] == "invalid: target_seat: the table has 3 seats (0-2), not 3"
    assert made.queue.waiting == 0
    six = GiftDesk(
        MAPPED,
        players=("A", "B", "C", "D", "E", "F"),
        match_seed=SEED,
        clock=lambda: 0.0,
    )
    six_told = Told()
    six.attach(six_told)
    await six.submit(gift(gift_name="小花花", target_seat=5))
    [queued] = six_told.gifts
    assert (queued["status"], queued["target"]) == ("queued", 5)


async def test_a_gift_for_an_effect_the_game_does_not_offer_is_rejected_saying_so() -> None:
    made = GiftDesk(
        MAPPED,
        players=NAMES,
        match_seed=SEED,
        clock=lambda: 0.0,
        game="cards",
        offered={"CHEER", "EMOTE"},
    )
    told = Told()
    made.attach(told)
    await made.submit(gift(gift_name="小花花", count=2))  # a CHEER: offered
    await made.submit(gift("e2", gift_name="Rocket"))  # a SWAP: this game has none
    outcomes = [(d["status"], d["reason"], d["effect"]) for d in told.gifts]
    assert outcomes == [  # a gift of count 2: two units queued, each its own
        ("queued", None, "CHEER"),
        ("queued", None, "CHEER"),
        ("rejected", "not_offered: cards", "SWAP"),
    ]
    assert made.figures["rejected_by_reason"] == {"not_offered: cards": 1}


def test_a_dou_dizhu_desk_offers_every_effect() -> None:
    made, _ = desk()
    assert made.offered == frozenset(GiftEffect) == get_game("ddz").gift_effects
    assert made.game == "ddz"


# --- targets ----------------------------------------------------------------------------


@pytest.mark.parametrize("effect", sorted(GiftEffect))
async def test_targeted_effects_always_get_a_seat_and_the_others_only_a_named_one(
    effect: GiftEffect,
) -> None:
    made, told = desk()
    plain = gift("plain", effect=effect, message="hello there")
    await made.submit(plain)
    await made.submit(gift("named", effect=effect, message="加油 ＢＥＴＡ!"))  # width folded
    await made.submit(gift("seat", effect=effect, message="for Beta", target_seat=2))
    await made.submit(gift("two", effect=effect, message="Alpha or Gamma?"))
    targets = {d["event_id"]: d["target"] for d in told.gifts}
    assert targets["named"] == 1
    assert targets["seat"] == 2  # the platform's seat beats the message
    if effect in TARGETED:
        assert targets["plain"] == seeded_seat(plain, SEED, 3)
        assert targets["plain"] == derive_seed(SEED, "target", "bilibili", "plain") % 3
        assert targets["two"] in (0, 1, 2)  # two names: nobody named, a seeded draw
    else:
        assert targets["plain"] is None
        assert targets["two"] is None


def test_the_targeted_effects_are_the_documented_ones() -> None:
    assert {
        GiftEffect.CHEER,
        GiftEffect.PEEK,
        GiftEffect.SWAP,
        GiftEffect.ADD,
        GiftEffect.ROLE_SWAP,
    } == TARGETED
    assert GiftEffect.DOUBLE not in TARGETED


async def test_the_seeded_seat_is_the_same_for_the_same_match_and_gift() -> None:
    seats = set()
    for _ in range(3):
        made, told = desk()
        await made.submit(gift("same", effect=GiftEffect.SWAP))
        seats.add(told.gifts[0]["target"])
    assert len(seats) == 1
    spread = {seeded_seat(gift(f"x{n}"), SEED, 3) for n in range(30)}
    assert spread == {0, 1, 2}  # a draw, not always one seat


# --- units, duplicates, refunds --------------------------------------------------------


async def test_a_gift_of_count_n_is_n_units_each_told() -> None:
    made, told = desk()
    await made.submit(gift(effect=GiftEffect.CHEER, target_seat=0, count=3, viewer_id="v"))
    assert [(d["id"], d["status"], d["waiting"]) for d in told.gifts] == [
        ("bilibili:e1#0", "queued", 1),
        ("bilibili:e1#1", "queued", 2),
        ("bilibili:e1#2", "queued", 3),
    ]
    assert made.queue.waiting == 3


async def test_a_duplicate_delivery_is_one_rejection_and_queues_nothing() -> None:
    made, told = desk()
    first = gift(effect=GiftEffect.CHEER, count=2)
    await made.submit(first)
    await made.submit(first)
    await made.submit(gift(effect=GiftEffect.SWAP, count=3))  # same platform and id, other gift
    await made.submit(gift(gift_name="nothing maps me"))  # unmapped, yet a duplicate first
    duplicates = [d for d in told.gifts if d["reason"] == "duplicate"]
    assert len(duplicates) == 3
    # each under an id of its own: the first delivery's units keep theirs, one ending each
    assert [d["id"] for d in duplicates] == [f"bilibili:e1#dup{n}" for n in (1, 2, 3)]
    assert all(d["status"] == "rejected" and d["units"] == 1 for d in duplicates)
    assert made.queue.waiting == 2
    assert made.figures["rejected_by_reason"] == {"duplicate": 3}
    await made.submit(gift(platform="douyin", effect=GiftEffect.CHEER))  # another platform's e1
    assert told.gifts[-1]["status"] == "queued"


@pytest.mark.parametrize(
    ("kind", "how", "refund"),
    [
        (GiftKind.POINTS, "unmapped", True),
        (GiftKind.POINTS, "expired", True),
        (GiftKind.POINTS, "duplicate", False),
        (GiftKind.POINTS, "queued", False),
        (GiftKind.GIFT, "unmapped", False),
        (GiftKind.GIFT, "expired", False),
        (GiftKind.CHEER, "expired", False),
    ],
)
async def test_only_channel_points_that_did_not_apply_are_refunded(
    kind: GiftKind, how: str, refund: bool
) -> None:
    made, told = desk()
    effect = None if how == "unmapped" else GiftEffect.ROLE_SWAP
    one = gift(kind=kind, effect=effect, gift_name="Hydrate")
    await made.submit(one)
    if how == "duplicate":
        await made.submit(one)
    elif how == "expired":
        await made.close()
    last = told.gifts[-1]
    assert last["status"] == {"unmapped": "rejected", "duplicate": "rejected"}.get(how, how)
    assert last["refund"] is refund


async def test_a_points_gift_applied_is_not_refunded() -> None:
    table, sink = greedy_table()
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(
        GiftEvent(event_id="p1", platform="twitch", kind=GiftKind.POINTS, effect=GiftEffect.EMOTE)
    )
    await play_match(table, rounds=1, seed=SEED)
    await router.close()
    [applied] = [e for e in sink.of_type("gift") if e.data["status"] == "applied"]
    assert applied.data["refund"] is False


# --- payloads that are no gift ------------------------------------------------------------


async def test_a_payload_that_is_no_gift_is_told_invalid_and_counted() -> None:
    made, told = desk()
    await made.refuse_payload("count: Input should be a valid integer", event_id="x9")
    await made.refuse_payload("not JSON: unexpected character", platform="douyin")
    first, second = told.gifts
    assert first["status"] == second["status"] == "rejected"
    assert first["reason"] == "invalid: count: Input should be a valid integer"
    assert first["id"] == "?:x9#0"
    assert second["id"] == "douyin:?#0"
    assert second["reason"].startswith("invalid: not JSON")
    assert first["refund"] is second["refund"] is False
    assert made.invalid == 2
    assert made.figures["invalid"] == 2
    assert made.queue.counts == {}  # no gift: nothing queued, nothing settled
    assert made.queue.waiting == 0


# --- the router -----------------------------------------------------------------------------


def greedy_table(
    table_id: str = "t1", agents: Sequence[GreedyAgent] | None = None
) -> tuple[Table, CollectingSink]:
    sink = CollectingSink()
    seats = list(agents) if agents is not None else [GreedyAgent(n) for n in NAMES]
    return Table(seats, table_id=table_id, sinks=[sink]), sink


def told_ids(sink: CollectingSink) -> list[tuple[str, str, str | None]]:
    return [(e.data["id"], e.data["status"], e.data["reason"]) for e in sink.of_type("gift")]


async def test_the_router_sends_each_gift_to_its_table_or_the_default() -> None:
    (one, sink1), (two, sink2) = greedy_table("t1"), greedy_table("t2")
    router = attach_gift_desks([one, two], GiftSettings(default_table="t2"), match_seed=SEED)
    one.start_match("m1")  # a desk tells its gifts once its table's match has begun
    two.start_match("m2")
    assert router.default_table == "t2"
    await router.accept(gift("a", effect=GiftEffect.CHEER, table="t1"))
    await router.accept(gift("b", effect=GiftEffect.CHEER))  # no table: the default
    await router.accept(gift("c", effect=GiftEffect.CHEER, table="t7", count=2))
    assert told_ids(sink1) == [("bilibili:a#0", "queued", None)]
    assert told_ids(sink2) == [
        ("bilibili:b#0", "queued", None),
        ("bilibili:c#0-1", "rejected", "unknown_table: t7"),  # its 2 units, and the table
    ]
    assert all(e.table == "t2" for e in sink2.of_type("gift"))
    assert router.desks["t1"].queue.waiting == 1
    assert router.desks["t2"].queue.waiting == 1
    assert router.figures()["t2"]["rejected_by_reason"] == {"unknown_table: t7": 2}
    await router.refuse("not JSON: nope")
    assert sink2.of_type("gift")[-1].data["reason"] == "invalid: not JSON: nope"
    assert router.figures()["t2"]["invalid"] == 1


async def test_without_a_default_table_the_first_table_is_it() -> None:
    (one, sink1), (two, _) = greedy_table("t1"), greedy_table("t2")
    router = attach_gift_desks([one, two], GiftSettings(), match_seed=SEED)
    one.start_match("m1")
    await router.accept(gift("a", effect=GiftEffect.EMOTE))
    assert router.default_table == "t1"
    assert told_ids(sink1) == [("bilibili:a#0", "queued", None)]


def test_a_default_table_that_does_not_exist_is_a_config_error() -> None:
    table, _ = greedy_table("t1")
    with pytest.raises(ConfigError, match="default_table"):
        attach_gift_desks([table], GiftSettings(default_table="main"), match_seed=SEED)


async def test_after_the_match_every_waiting_gift_expires_and_new_ones_are_match_over() -> None:
    table, sink = greedy_table()
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(gift("wait", effect=GiftEffect.ROLE_SWAP, target_seat=1))
    await play_match(table, rounds=1, seed=SEED)  # its match_end hook closes the desk
    assert told_ids(sink)[-1] == ("bilibili:wait#0", "expired", None)
    assert router.desks["t1"].closed
    await router.accept(gift("late", effect=GiftEffect.CHEER, count=2))
    await router.close()  # closing again changes nothing
    assert told_ids(sink)[-1] == ("bilibili:late#0-1", "rejected", "match_over")
    await router.accept(gift("late", effect=GiftEffect.CHEER))  # still a duplicate first
    assert told_ids(sink)[-1] == ("bilibili:late#dup1", "rejected", "duplicate")
    figures = router.figures()["t1"]
    assert figures["expired"] == 1
    assert figures["rejected"] == 3
    assert figures["waiting"] == 0


# --- at a real table --------------------------------------------------------------------


class RecordingAgent(GreedyAgent):
    """A greedy seat that keeps every message it gets."""

    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.heard: list[Message] = []
        self.play_requests: list[PlayRequest] = []

    async def notify(self, message: Message) -> None:
        self.heard.append(message)
        await super().notify(message)

    async def play(self, request: PlayRequest) -> Any:
        self.play_requests.append(request)
        return await super().play(request)


async def test_a_cheer_is_quoted_in_its_targets_next_play_request_only() -> None:
    agents = [RecordingAgent(n) for n in NAMES]
    table, sink = greedy_table(agents=agents)
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(
        gift("c1", effect=GiftEffect.CHEER, target_seat=1, display_name="Fan", message="go go go")
    )
    await router.accept(
        gift("c2", effect=GiftEffect.CHEER, target_seat=2, anonymous=True, viewer_id="w")
    )
    await play_match(table, rounds=2, seed=SEED)
    await router.close()
    quoted = [
        (seat, n, request.audience)
        for seat, agent in enumerate(agents)
        for n, request in enumerate(agent.play_requests)
        if request.audience
    ]
    assert quoted == [(1, 0, ["Fan: go go go"]), (2, 0, ["a viewer: 加油!"])]
    applied = [e for e in sink.of_type("gift") if e.data["status"] == "applied"]
    assert [e.data["id"] for e in applied] == ["bilibili:c1#0", "bilibili:c2#0"]
    assert all(e.round == 1 for e in applied)
    assert sink.of_type("effect_applied") == []  # a cheer changes no card


async def test_a_peek_goes_to_the_spectator_feed_only() -> None:
    agents = [RecordingAgent(n) for n in NAMES]
    table, sink = greedy_table(agents=agents)
    output = CollectingSpectatorOutput()
    feed = SpectatorFeed([output], delay_s=0)
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED, spectator=feed)
    await router.accept(gift("p1", effect=GiftEffect.PEEK, target_seat=0, display_name="Eve"))
    await play_match(table, rounds=1, seed=SEED)
    await router.close()
    await feed.close()
    [peek] = output.of_kind("peek")
    assert peek["gift"] == "bilibili:p1#0"
    assert peek["viewer"] == "Eve"
    assert peek["seat"] == 0
    cards = peek["cards"]
    [deal] = [m for m in agents[0].heard if isinstance(m, Deal)]
    [bottom] = {tuple(m.bottom_cards) for m in agents[0].heard if isinstance(m, BottomCards)}
    assert len(cards) == len(set(cards)) in (17, 20)  # before its first play
    assert set(cards) <= set(deal.hand) | set(bottom)
    assert set(deal.hand) <= set(cards)
    [applied] = [e for e in sink.of_type("gift") if e.data["status"] == "applied"]
    assert "cards" not in applied.data
    hidden = set(cards) - set(bottom)
    for event in sink.events:
        if event.type in ("play", "round_result", "match_ended"):
            continue  # the game shows its own cards
        assert not any(card in str(event.data) for card in hidden), event


async def test_a_peek_without_a_feed_applies_and_shows_no_cards() -> None:
    table, sink = greedy_table()
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(gift("p1", effect=GiftEffect.PEEK, target_seat=2))
    await play_match(table, rounds=1, seed=SEED)
    await router.close()
    assert told_ids(sink) == [("bilibili:p1#0", "queued", None), ("bilibili:p1#0", "applied", None)]


def after(events: list[Event], first: Event) -> list[Event]:
    return events[events.index(first) + 1 :]


async def test_a_gift_applied_is_told_before_its_effect_and_before_the_next_turn() -> None:
    table, sink = greedy_table()
    router = attach_gift_desks(
        [table], GiftSettings(viewer_cooldown_s=0, strong_cooldown_s=0), match_seed=SEED
    )
    await router.accept(gift("d1", effect=GiftEffect.DOUBLE))
    await router.accept(gift("s1", effect=GiftEffect.SWAP, target_seat=0))
    await play_match(table, rounds=1, seed=SEED)
    await router.close()
    events = sink.events
    applied = [e for e in sink.of_type("gift") if e.data["status"] == "applied"]
    assert sorted(e.data["effect"] for e in applied) == ["DOUBLE", "SWAP"]
    assert len(sink.of_type("effect_applied")) == 2
    kinds = {"DOUBLE": "double", "SWAP": "swap", "ADD": "transfer"}
    for gift_event in applied:
        # the next few events: the safe point's gift events, its effects, then a turn
        rest = after(events, gift_event)
        nxt = next(e for e in rest if e.type in ("effect_applied", "turn_started"))
        assert nxt.type == "effect_applied", gift_event
        effect = next(e for e in rest if e.type == "effect_applied")
        assert effect.data["effect"] == kinds[gift_event.data["effect"]]
        assert [e.type for e in events[events.index(gift_event) : events.index(effect)]] == [
            "gift"
        ] * (events.index(effect) - events.index(gift_event))
        later = after(events, effect)
        assert later[0].type in ("effect_applied", "turn_started")
    # the double applied at once (any time), in bidding; the swap when seat 0 leads
    double = next(e for e in applied if e.data["effect"] == "DOUBLE")
    assert events.index(double) < events.index(sink.of_type("landlord_chosen")[0])
    swap = next(e for e in applied if e.data["effect"] == "SWAP")
    turn = next(e for e in after(events, swap) if e.type == "turn_started")
    assert turn.seat == 0


async def test_gifts_sent_before_the_match_are_told_once_it_has_started() -> None:
    table, sink = greedy_table()
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(gift("early", effect=GiftEffect.CHEER, target_seat=0))
    await router.accept(gift("odd", gift_name="nothing maps me"))
    await router.refuse("not JSON: early junk")
    assert sink.of_type("gift") == []  # nobody watches a match that has not begun
    await play_match(table, rounds=1, seed=SEED)
    await router.close()
    started = sink.events.index(sink.of_type("match_started")[0])
    told = sink.of_type("gift")
    assert all(sink.events.index(e) > started for e in told)
    assert [(e.data["id"], e.data["status"], e.data["reason"]) for e in told] == [
        ("bilibili:early#0", "queued", None),
        ("bilibili:odd#0", "rejected", "unmapped"),
        ("?:?#0", "rejected", "invalid: not JSON: early junk"),
        ("bilibili:early#0", "applied", None),
    ]


async def test_two_tables_playing_at_once_each_apply_their_own_gifts() -> None:
    (one, sink1), (two, sink2) = greedy_table("t1"), greedy_table("t2")
    quiet = GiftSettings(
        viewer_cooldown_s=0, strong_cooldown_s=0, cooldowns=dict.fromkeys(GiftEffect, 0.0)
    )
    router = attach_gift_desks([one, two], quiet, match_seed=SEED)
    for table in ("t1", "t2"):
        await router.accept(gift(f"d-{table}", effect=GiftEffect.DOUBLE, table=table))
        await router.accept(
            gift(f"r-{table}", effect=GiftEffect.ROLE_SWAP, table=table, target_seat=1)
        )
    await router.accept(
        gift("d-t1", effect=GiftEffect.DOUBLE, table="t2")
    )  # t1's id: t2 is another desk
    summaries = await asyncio.gather(
        play_match(one, rounds=2, seed=SEED), play_match(two, rounds=2, seed=SEED)
    )
    await router.close()
    for table, sink, summary in (("t1", sink1, summaries[0]), ("t2", sink2, summaries[1])):
        applied = [e.data["id"] for e in sink.of_type("gift") if e.data["status"] == "applied"]
        assert f"bilibili:d-{table}#0" in applied
        assert f"bilibili:r-{table}#0" in applied
        assert all(e.table == table for e in sink.events)
        assert [r.gifts[:1] for r in summary.rounds] == [("DOUBLE",), ("ROLE_SWAP",)]
        assert summary.rounds[1].result.landlord == 1
    assert router.figures()["t1"]["applied"] == 2
    assert router.figures()["t2"]["applied"] == 3
    assert len(sink1.of_type("effect_applied")) == 1
    assert len(sink2.of_type("effect_applied")) == 2


async def test_a_table_playing_a_round_without_a_match_still_tells_its_gifts() -> None:
    table, sink = greedy_table()
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(gift("d1", effect=GiftEffect.DOUBLE))
    record = await table.play_round(1, seed=4)
    await router.close()
    assert record.gifts == ("DOUBLE",)  # the gift applied
    assert len(sink.of_type("effect_applied")) == 1
    assert told_ids(sink) == [("bilibili:d1#0", "queued", None), ("bilibili:d1#0", "applied", None)]


async def test_gifts_of_a_match_that_never_began_are_told_when_the_run_closes() -> None:
    """Agents that fail to start end the run before match_started: the gifts that
    came meanwhile still end, and are told, when the router closes."""
    table, sink = greedy_table()
    router = attach_gift_desks([table], GiftSettings(), match_seed=SEED)
    await router.accept(gift("early", effect=GiftEffect.CHEER, target_seat=0))
    assert told_ids(sink) == []  # waiting for the match to begin
    await router.close()
    assert told_ids(sink) == [
        ("bilibili:early#0", "queued", None),
        ("bilibili:early#0", "expired", None),
    ]
