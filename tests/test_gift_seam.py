"""Gifts at a table of another game (issue 26): the queue, the targeting, the safe-point
handle and the round's plan serve a game of four seats (the fake ``four``), and a
game's own effect is applied by the game's gift operations, not by the gifts layer.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from fake_games import FOUR, team_record

from arena.config import migrate_config
from arena.errors import ConfigError, IllegalActionError
from arena.games.base import Game
from arena.games.ddz.engine import Round, Rules
from arena.games.ddz.gifts import DdzGifts, DdzSafePoint
from arena.games.registry import get_game
from arena.table.match import derive_seed, plan_round
from arena.table.safe_point import (
    PHASE_PLAY,
    BetweenRoundsHandle,
    NextRound,
    SafePointHandle,
)
from gifts.desk import GiftDesk
from gifts.director import GiftDirector, moment_of
from gifts.events import GiftEffect, GiftEvent
from gifts.queue import GiftQueue, Moment, QueueSettings, others_involved
from gifts.settings import GiftSettings
from gifts.sources.simulated import simulated_gifts
from gifts.targeting import pick_target, seeded_seat

PLAYERS = ("North", "East", "South", "West")


@dataclass(frozen=True)
class Card:
    text: str


@dataclass
class FourSeatRound:
    """A round of a four-seat game as a safe point sees it (what the game's turns build)."""

    hands: list[list[Card]]
    phase_name: str = PHASE_PLAY
    seat: int | None = 3
    leading: bool = True
    stakes: int = 1
    closed: bool = False

    def _open(self) -> FourSeatRound:
        if self.closed:
            raise IllegalActionError("the safe point is over")
        return self

    @property
    def phase(self) -> str:
        return self._open().phase_name

    @property
    def to_act(self) -> int | None:
        return self._open().seat

    @property
    def is_leading(self) -> bool:
        return self._open().leading

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(len(hand) for hand in self._open().hands)

    def hand(self, seat: int) -> tuple[Card, ...]:
        return tuple(self._open().hands[seat])

    def swap_cards(self, seat_a: int, card_a: Card, seat_b: int, card_b: Card) -> None:
        hands = self._open().hands
        hands[seat_a].remove(card_a)
        hands[seat_b].remove(card_b)
        hands[seat_a].append(card_b)
        hands[seat_b].append(card_a)

    def transfer_card(self, source: int, target: int, moved: Card) -> None:
        hands = self._open().hands
        hands[source].remove(moved)
        hands[target].append(moved)

    def raise_stakes(self) -> int:
        """The game's own effect: what its DOUBLE means (here: the stakes, up to 4)."""
        self._open().stakes *= 2
        return self.stakes

    def close(self) -> None:
        self.closed = True


@dataclass
class FourGifts:
    """The fake game's own gift operations: DOUBLE raises its stakes (refused ``stakes_cap``
    at 4), ROLE_SWAP makes a seat the next round's dealer."""

    effects: frozenset[str] = frozenset({"DOUBLE", "ROLE_SWAP"})
    declined: Mapping[str, str] = field(default_factory=dict)
    applied: list[tuple[str, int | None, str]] = field(default_factory=list)

    def refusals(self, handle: SafePointHandle) -> Mapping[str, str]:
        part = handle.game_part
        assert isinstance(part, FourSeatRound)
        return {"DOUBLE": "stakes_cap"} if part.stakes >= 4 else {}

    def apply(
        self, effect: str, handle: SafePointHandle, *, target: int | None, gift_id: str
    ) -> None:
        self.applied.append((effect, target, gift_id))
        handle.game_part.raise_stakes()

    def apply_between_rounds(
        self, effect: str, handle: BetweenRoundsHandle, *, target: int | None, gift_id: str
    ) -> None:
        self.applied.append((effect, target, gift_id))
        if target is None:
            raise IllegalActionError("the gift has no target seat")
        handle.fix({"effect": effect, "gift": gift_id, "seat": target}, dealer=target)


def dealt(sizes: tuple[int, ...] = (10, 10, 10, 10)) -> FourSeatRound:
    return FourSeatRound(
        [[Card(f"{seat}-{n}") for n in range(size)] for seat, size in enumerate(sizes)]
    )


def gift(event_id: str, **fields: Any) -> GiftEvent:
    return GiftEvent(event_id=event_id, platform="test", viewer_id=event_id, **fields)


def quiet() -> QueueSettings:
    return QueueSettings(
        effect_cooldown_s=dict.fromkeys(GiftEffect, 0.0), viewer_cooldown_s=0, strong_cooldown_s=0
    )


def four_with_gifts(gifts: FourGifts) -> Game:
    """The fake four-seat game with gift effects and gift operations of its own."""
    return dataclasses.replace(
        FOUR,
        gift_effects=frozenset(
            {"CHEER", "PEEK", "SWAP", "ADD", "DOUBLE", "ROLE_SWAP", "RESHUFFLE"}
        ),
        gifts=lambda: gifts,
        round_plan=lambda round_no, rules, options: {"dealer": (round_no - 1) % 4},
        migrate_config=None,
    )


# --- the queue and the targeting, at four seats ------------------------------------------


def test_a_strong_effect_at_four_seats_draws_its_other_player_among_all_three_others() -> None:
    moment = Moment(phase=PHASE_PLAY, to_act=3, leading=True, hand_sizes=(4, 5, 9, 9))
    assert others_involved(3, moment) == [2]  # seats 0 and 1 are at the last cards
    assert others_involved(0, moment) == [2, 3]
    queue = GiftQueue(quiet())
    queue.submit(gift("s3"), GiftEffect.SWAP, target=3, now=0)
    queue.submit(gift("a0"), GiftEffect.ADD, target=0, now=0)
    pending = queue.next(moment, now=0)
    assert pending is not None
    assert pending.target == 3  # seat 3 exists and leads
    queue.settle(pending, 0)
    others_short = Moment(phase=PHASE_PLAY, to_act=0, leading=True, hand_sizes=(9, 5, 5, 2))
    assert queue.next(others_short, now=0) is None
    assert queue.outcomes[-1].reason == "last_cards"  # all three others at the last cards


def test_a_phase_of_the_games_own_opens_only_the_any_time_effects() -> None:
    queue = GiftQueue(quiet())
    queue.submit(gift("c"), GiftEffect.CHEER, target=3, now=0)
    queue.submit(gift("d"), GiftEffect.DOUBLE, now=0)
    declaring = Moment(phase="declaring", to_act=2, leading=False, hand_sizes=(8, 8, 8, 8))
    pending = queue.next(declaring, now=0)
    assert pending is not None
    assert pending.effect is GiftEffect.DOUBLE
    queue.settle(pending, 0)
    assert queue.next(declaring, now=0) is None  # the CHEER waits for the play
    assert queue.waiting == 1


def test_the_seeded_draw_spreads_over_the_tables_seats() -> None:
    seats = Counter(seeded_seat(gift(f"g{n}"), 7, 4) for n in range(800))
    assert set(seats) == {0, 1, 2, 3}
    assert min(seats.values()) > 150  # about 200 each
    assert seeded_seat(gift("x"), 7, 4) == derive_seed(7, "target", "test", "x") % 4
    assert pick_target(gift("w", message="go West!"), PLAYERS, match_seed=1) == 3
    assert pick_target(gift("n", message="anyone"), PLAYERS, match_seed=1) == seeded_seat(
        gift("n"), 1, 4
    )


async def test_a_desk_of_four_players_picks_any_of_the_four_seats() -> None:
    desk = GiftDesk(
        GiftSettings(pick_target="draw"),
        players=PLAYERS,
        match_seed=3,
        game=four_with_gifts(FourGifts()),
        keep_outcomes=True,
    )
    for n in range(40):
        await desk.submit(gift(f"p{n}", effect=GiftEffect.CHEER))
    assert {p.target for p in desk.queue._waiting} == {0, 1, 2, 3}


def test_the_simulated_audience_sends_only_what_the_game_offers() -> None:
    next_gift = simulated_gifts(5, PLAYERS, offered={"CHEER", "EMOTE"})
    assert {next_gift().effect for _ in range(60)} == {GiftEffect.CHEER, GiftEffect.EMOTE}
    every = simulated_gifts(5, PLAYERS)
    offered = simulated_gifts(5, PLAYERS, offered=get_game("ddz").gift_effects)
    assert [every() for _ in range(30)] == [offered() for _ in range(30)]  # Dou Dizhu's


# --- the safe-point handle at four seats ---------------------------------------------------


def test_the_handle_reads_four_seats_and_cheers_the_fourth() -> None:
    waiting: list[list[str]] = [[] for _ in PLAYERS]
    rnd = dealt((10, 11, 12, 13))
    handle = SafePointHandle(rnd, waiting)
    assert (handle.seats, handle.hand_sizes, handle.phase) == (4, (10, 11, 12, 13), PHASE_PLAY)
    handle.cheer(3, "go West")
    assert waiting[3] == ["go West"]
    with pytest.raises(IllegalActionError, match="no seat 4"):
        handle.cheer(4, "nobody")
    handle.close()
    assert rnd.closed  # the game's part closes with the handle
    with pytest.raises(IllegalActionError):
        _ = handle.hand_sizes


# --- a game's own effect goes through the game ---------------------------------------------


async def test_a_games_own_effect_is_applied_by_the_game_and_refused_by_its_rule() -> None:
    own = FourGifts()
    queue = GiftQueue(quiet())
    director = GiftDirector(queue, match_seed=9, clock=lambda: 0.0, game_gifts=own)
    for n in range(3):
        queue.submit(gift(f"d{n}"), GiftEffect.DOUBLE, now=0)
    queue.submit(gift("s"), GiftEffect.SWAP, target=3, now=0)
    rnd = dealt()
    handle = SafePointHandle(rnd)
    await director(handle)
    assert [(effect, gift_id) for effect, _, gift_id in own.applied] == [
        ("DOUBLE", "test:d0#0"),
        ("DOUBLE", "test:d1#0"),
    ]
    assert rnd.stakes == 4
    reasons = {o.id: (o.status, o.reason) for o in queue.outcomes}
    assert reasons["test:d2#0"] == ("rejected", "stakes_cap")  # the game's own reason
    assert reasons["test:s#0"] == ("applied", None)  # a SWAP is the gifts layer's own
    assert sorted(rnd.hand_sizes) == [10, 10, 10, 10]
    assert moment_of(handle, own).refused == {"DOUBLE": "stakes_cap"}


async def test_a_game_without_an_effect_of_its_own_refuses_it() -> None:
    queue = GiftQueue(quiet())
    director = GiftDirector(queue, match_seed=9, clock=lambda: 0.0)  # no gift operations
    queue.submit(gift("d"), GiftEffect.DOUBLE, now=0)
    await director(SafePointHandle(dealt()))
    (outcome,) = queue.outcomes
    assert (outcome.status, outcome.reason) == ("rejected", "DOUBLE means nothing in this game")


async def test_between_rounds_the_games_change_and_the_reshuffle_shape_the_plan() -> None:
    own = FourGifts()
    game = four_with_gifts(own)
    queue = GiftQueue(quiet())
    director = GiftDirector(queue, match_seed=9, clock=lambda: 0.0, game_gifts=own)
    queue.submit(gift("r"), GiftEffect.ROLE_SWAP, target=3, now=0)
    queue.submit(gift("x"), GiftEffect.RESHUFFLE, now=0)
    plan = plan_round(1, "t", 2, game=game, rules=game.rules(), options={})
    assert plan.fixed == {"dealer": 1}  # the game's plan: its dealer rotates over four
    prepared = plan.seed
    handle = BetweenRoundsHandle(plan, reseed=lambda gift_id: 77, seats=4)
    await director.between_rounds(handle)
    handle.close()
    assert plan.fixed == {"dealer": 3}
    assert plan.seed == 77
    assert plan.changes == [
        {"effect": "ROLE_SWAP", "gift": "test:r#0", "seat": 3},
        {"effect": "RESHUFFLE", "gift": "test:x#0", "prepared_seed": prepared, "seed": 77},
    ]
    assert plan.effects == ("ROLE_SWAP", "RESHUFFLE")
    with pytest.raises(IllegalActionError, match="over"):
        handle.fix({"effect": "ROLE_SWAP"}, dealer=0)


# --- Dou Dizhu's own gift operations --------------------------------------------------------


def test_dou_dizhus_double_is_refused_double_cap_at_its_rules_cap() -> None:
    rnd = Round(Rules(max_gift_doubles=1), seed=4)
    handle = SafePointHandle(DdzSafePoint(rnd))
    ddz = DdzGifts()
    assert ddz.refusals(handle) == {}
    ddz.apply("DOUBLE", handle, target=None, gift_id="g")
    assert rnd.gift_doubles == 1
    assert ddz.refusals(handle) == {"DOUBLE": "double_cap"}  # the published reason
    own = get_game("ddz").gifts
    assert own is not None
    assert own().effects == ddz.effects


def test_dou_dizhus_role_swap_fixes_the_landlord_at_the_last_call_score() -> None:
    plan = NextRound(2, seed=5, fixed={"first_bidder": None, "landlord": None})
    handle = BetweenRoundsHandle(
        plan, reseed=lambda gift_id: 0, seats=3, last={"landlord": 0, "call_score": 3}
    )
    DdzGifts().apply_between_rounds("ROLE_SWAP", handle, target=2, gift_id="g#0")
    assert plan.fixed == {"first_bidder": None, "landlord": 2, "call_score": 3}
    assert plan.changes == [{"effect": "ROLE_SWAP", "gift": "g#0", "seat": 2, "call_score": 3}]
    with pytest.raises(IllegalActionError, match="already chosen"):
        DdzGifts().apply_between_rounds("ROLE_SWAP", handle, target=1, gift_id="h#0")
    with pytest.raises(IllegalActionError, match="no seat 3"):
        DdzGifts().apply_between_rounds(
            "ROLE_SWAP",
            BetweenRoundsHandle(NextRound(2, seed=5), reseed=lambda gift_id: 0, seats=3),
            target=3,
            gift_id="i#0",
        )


# --- the round's plan, the config's old keys, the record ------------------------------------


@pytest.mark.parametrize("round_no", [1, 2, 3, 4])
def test_dou_dizhus_rotations_are_its_plan_and_the_old_keywords_still_say_them(
    round_no: int,
) -> None:
    ddz = get_game("ddz")
    rotating = Rules(first_bidder="rotate")
    new = plan_round(
        9, "t", round_no, game=ddz, rules=rotating, options={"landlord_policy": "rotate"}
    )
    old = plan_round(9, "t", round_no, rotate_bidder=True, rotate_landlord=True)
    seat = (round_no - 1) % 3
    assert new == old
    assert new.fixed == {"first_bidder": seat, "landlord": seat}
    assert new.seed == derive_seed(9, "t", round_no)
    plain = plan_round(9, "t", round_no, game=ddz, rules=Rules(), options={})
    assert plain.fixed == {"first_bidder": None, "landlord": None}


def test_a_game_without_a_plan_fixes_nothing() -> None:
    bare = Game(
        name="bare",
        title="bare",
        rules=FOUR.rules,
        seats=FOUR.seats,
        default_seats=FOUR.default_seats,
        requests={},
        gift_effects=frozenset(),
        sides=FOUR.sides,
        turns=FOUR.turns,
        public_state=FOUR.public_state,
        spectator_table=FOUR.spectator_table,
        console=FOUR.console,
    )
    assert plan_round(1, "t", 2, game=bare, options={"landlord_policy": "rotate"}).fixed == {}
    assert bare.gifts is None
    assert bare.migrate_config is None


def test_the_config_migration_is_the_games() -> None:
    data = {"gifts": {"max_doubles_per_round": 1}}
    moved = migrate_config(data, source="a.toml", game=get_game("ddz"))
    assert moved == {"gifts": {}, "rules": {"max_gift_doubles": 1}}
    untouched = dataclasses.replace(FOUR, migrate_config=None)
    assert migrate_config(data, source="a.toml", game=untouched) == data
    with pytest.raises(ConfigError, match=r"a\.toml: gifts\.max_doubles_per_round"):
        migrate_config({"gifts": {"max_doubles_per_round": 99}}, source="a.toml")


def test_a_record_without_figures_has_none_for_each_of_its_seats() -> None:
    record = team_record("t", 1, PLAYERS, won_by_even=True)
    bare = dataclasses.replace(record, stats=())
    assert bare.stats == ({}, {}, {}, {})
    assert [bare.stats[bare.players.index(p)] for p in PLAYERS] == [{}] * 4
    assert bare.score_of("West") == -2
