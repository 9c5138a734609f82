"""Viewer gifts' effects are round history: announced in order, replayed, checked.

Specification (issue 11, "Seams to finish first"): an effect a safe point applies (换牌
swap, 加牌 transfer, 翻倍 double: the engine's effect hooks) is announced as a public
``effect_applied`` event before the next turn starts and after the action before it; the
public event says which seats and how many cards, never which cards; the replay keeps the
cards, and ``arena replay``'s check applies each effect again, so a round with gifts
verifies and an edited effect fails with its reason. Cards are conserved, the public
table state keeps its card counts through a transfer, and a safe point gets a narrow
handle: the three hooks and a few facts, never the table or the round.

A real table of scripted bots plays; a fake gift script (a safe point) applies the effects.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.cli import main
from arena.errors import IllegalActionError
from arena.events import Event
from arena.games.ddz.agents.scripted import GreedyAgent
from arena.games.ddz.engine import Round
from arena.games.ddz.events import EffectAppliedData, parse_event
from arena.games.ddz.gifts import DdzSafePoint
from arena.games.ddz.public_state import PublicTableState
from arena.games.ddz.spectator import DdzSpectatorTable
from arena.replay import ReplayWriter, RoundMismatch, load_replay, verify_round
from arena.sinks.base import CollectingSink
from arena.sinks.spectator import SpectatorFeed
from arena.table import SafePointHandle, Table, TableSettings, play_match, tee_recorders
from arena.table.safe_point import PHASE_PLAY
from protocol.cards import CANONICAL_CARDS

ROUNDS = 2
PLAN = {1: "swap", 2: "transfer", 3: "double"}
"""Which effect the gift script applies at the n-th safe point of each round's play."""


@dataclass
class Applied:
    """One effect the script applied, and what the table had said until then."""

    round: int
    effect: str
    seats: tuple[int, ...]
    cards: tuple[str, ...]
    events_before: int
    to_act: int | None


class FoldingSink(CollectingSink):
    """Keeps the events and folds them into the public table state, as the MQTT feed does."""

    def __init__(self) -> None:
        super().__init__()
        self.state = PublicTableState("t1", run_id="test")

    async def emit(self, event: Event) -> None:
        await super().emit(event)
        self.state.apply(event)


@dataclass
class GiftScript:
    """A safe point that applies the planned effect at the n-th play-phase safe point of
    each round, and checks at every one that the public card counts are the real ones."""

    sink: FoldingSink
    applied: list[Applied] = field(default_factory=list)
    handles: list[SafePointHandle] = field(default_factory=list)
    public_count_errors: list[str] = field(default_factory=list)
    _round: int = 0
    _points: int = 0

    async def __call__(self, handle: SafePointHandle) -> None:
        self.handles.append(handle)
        if handle.phase != PHASE_PLAY:
            return
        round_no = self.sink.events[-1].round
        if round_no != self._round:
            self._round, self._points = round_no, 0
        self._points += 1
        shown = [s["cards_left"] for s in self.sink.state.snapshot()["seats"]]
        if shown != list(handle.hand_sizes):
            self.public_count_errors.append(f"round {round_no}: {shown} != {handle.hand_sizes}")
        kind = PLAN.get(self._points)
        if kind is None:
            return
        before = all_cards(handle)
        seats, cards = apply_effect(handle, kind)
        assert all_cards(handle) == before  # conservation: the same cards, each once
        self.applied.append(
            Applied(round_no, kind, seats, cards, len(self.sink.events), handle.to_act)
        )


def all_cards(handle: SafePointHandle) -> list[str]:
    cards = [c.text for seat in range(3) for c in handle.hand(seat)]
    assert len(cards) == len(set(cards)) == sum(handle.hand_sizes)
    return sorted(cards)


def apply_effect(handle: SafePointHandle, kind: str) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """Apply one effect through the handle: the seat to act is always involved."""
    seat = handle.to_act
    assert seat is not None
    other = (seat + 1) % 3
    if kind == "swap":
        mine, theirs = handle.hand(seat)[0], handle.hand(other)[-1]
        handle.swap_cards(seat, mine, other, theirs)
        assert mine in handle.hand(other)
        assert theirs in handle.hand(seat)
        return (seat, other), (mine.text, theirs.text)
    if kind == "transfer":
        moved = handle.hand(other)[0]
        sizes = handle.hand_sizes
        handle.transfer_card(other, seat, moved)
        assert handle.hand_sizes[other] == sizes[other] - 1
        assert handle.hand_sizes[seat] == sizes[seat] + 1
        return (other, seat), (moved.text,)
    doubles = handle.game_part.gift_doubles  # Dou Dizhu's own: its viewer doubles
    assert handle.game_part.add_gift_double() == doubles + 1
    return (), ()


@dataclass
class Played:
    path: Path
    events: list[Event]
    script: GiftScript


async def play_with_gifts(path: Path, *, seed: int = 7) -> Played:
    sink = FoldingSink()
    script = GiftScript(sink)
    writer = ReplayWriter(path)
    agents = [GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C")]
    table = Table(
        agents,
        sinks=[sink],
        recorder=writer.for_table("t1"),
        settings=TableSettings(auto_pass=False),  # every turn opens with turn_started
        safe_points=[script],
    )
    try:
        await play_match(table, rounds=ROUNDS, seed=seed)
    finally:
        writer.close()
    assert len(script.applied) == ROUNDS * len(PLAN)  # every planned effect was applied
    return Played(path, sink.events, script)


@pytest.fixture
async def played(tmp_path: Path) -> Played:
    return await play_with_gifts(tmp_path / "gifts.jsonl")


def effect_events(events: list[Event]) -> list[Event]:
    return [e for e in events if e.type == "effect_applied"]


# ─── announced in order ─────────────────────────────────────────────────────────────────


def test_each_effect_is_announced_between_the_last_action_and_the_next_turn(
    played: Played,
) -> None:
    events = played.events
    announced = effect_events(events)
    assert len(announced) == len(played.script.applied)
    for applied, event in zip(played.script.applied, announced, strict=True):
        at = applied.events_before
        assert events[at] is event  # nothing came between the safe point and its event
        assert events[at - 1].type in ("play", "pass", "trick_won", "double")
        following = events[at + 1]
        assert (following.type, following.seat) == ("turn_started", applied.to_act)
        assert (event.round, event.data["effect"]) == (applied.round, applied.effect)
        assert tuple(event.data["seats"]) == applied.seats
        assert event.data["cards_moved"] == len(applied.cards)


def test_the_effect_event_matches_its_documented_model(played: Played) -> None:
    for event in effect_events(played.events):
        _, data = parse_event(json.loads(json.dumps(event.to_dict(), ensure_ascii=False)))
        assert isinstance(data, EffectAppliedData)


def test_cards_are_conserved_and_the_stakes_count_the_gift_doubles(played: Played) -> None:
    """Every card of the deck is either played or left in a hand at the end, once."""
    for round_no in range(1, ROUNDS + 1):
        played_cards = [
            c
            for e in played.events
            if e.round == round_no and e.type == "play"
            for c in e.data["cards"]
        ]
        [result] = [e for e in played.events if e.round == round_no and e.type == "round_result"]
        settlement = result.data["result"]
        left = [c for hand in settlement["final_hands"] for c in hand]
        assert sorted(played_cards + left) == sorted(CANONICAL_CARDS)
        assert settlement["gift_doubles"] == 1
        assert settlement["effects_applied"] == len(PLAN)


# ─── hidden information ─────────────────────────────────────────────────────────────────


def test_public_events_never_name_the_cards_an_effect_moved(played: Played) -> None:
    """After its effect, a moved card appears in public only when played, or in the result."""
    events = played.events
    for applied, event in zip(played.script.applied, effect_events(events), strict=True):
        assert not any(
            card in json.dumps(event.to_dict(), ensure_ascii=False) for card in CANONICAL_CARDS
        )
        later = events[events.index(event) + 1 :]
        for card in applied.cards:
            for shown in later:
                if shown.round == applied.round and card in json.dumps(
                    shown.to_dict(), ensure_ascii=False
                ):
                    assert shown.type in ("play", "round_result"), (card, shown)


def test_the_replay_keeps_the_cards_each_effect_moved(played: Played) -> None:
    lines = [json.loads(line) for line in played.path.read_text(encoding="utf-8").splitlines()]
    kept = [line for line in lines if line["kind"] == "effect"]
    assert [(k["round"], k["effect"], tuple(k["seats"]), tuple(k["cards"])) for k in kept] == [
        (a.round, a.effect, a.seats, a.cards) for a in played.script.applied
    ]


def test_public_card_counts_follow_a_transfer(played: Played) -> None:
    """At every play-phase safe point the public state shows each hand's real size."""
    assert played.script.public_count_errors == []


# ─── the replay check applies the effects again ─────────────────────────────────────────


def test_a_match_with_gifts_verifies(played: Played, capsys: pytest.CaptureFixture[str]) -> None:
    rounds = load_replay(played.path).rounds
    assert len(rounds) == ROUNDS
    for recorded in rounds:
        rnd = verify_round(recorded)
        assert rnd.gift_doubles == 1
        assert rnd.effects_applied == len(PLAN)
    capsys.readouterr()
    assert main(["replay", "--quiet", str(played.path)]) == 0, capsys.readouterr().out


def edited(source: Path, change: Callable[[list[dict[str, Any]]], None]) -> Path:
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    change(lines)
    target = source.with_name("edited.jsonl")
    target.write_text(
        "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines), encoding="utf-8"
    )
    return target


def first_effect(lines: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    return next(line for line in lines if line["kind"] == "effect" and line["effect"] == kind)


def failure(path: Path) -> str:
    """The check's reason for the first round that fails (there must be one)."""
    for recorded in load_replay(path).rounds:
        try:
            verify_round(recorded)
        except RoundMismatch as exc:
            return str(exc)
    raise AssertionError("the edited replay verified")


def test_a_swap_edited_to_another_card_of_the_same_hand_fails(played: Played) -> None:
    """The engine then swaps another card: the next request to that seat shows a hand the
    engine's differs from."""
    applied = next(a for a in played.script.applied if a.effect == "swap")
    request = next(
        line["message"]
        for line in map(json.loads, played.path.read_text(encoding="utf-8").splitlines())
        if line["kind"] == "message"
        and line["message"].get("type") == "PLAY_REQUEST"
        and line["round"] == applied.round
        and line["seat"] == applied.seats[0]
    )  # the seat's first hand of the play, which holds the swapped card and others
    other = next(c for c in request["hand"] if c not in applied.cards)

    def change(lines: list[dict[str, Any]]) -> None:
        first_effect(lines, "swap")["cards"][0] = other

    reason = failure(edited(played.path, change))
    assert f"round {applied.round}" in reason
    assert "the cards differ from the engine's" in reason
    assert other in reason


def test_a_swap_edited_to_another_seat_fails_naming_the_effect(played: Played) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        swap = first_effect(lines, "swap")
        a, b = swap["seats"]
        swap["seats"] = [a, 3 - a - b]  # the third seat, which does not hold that card

    reason = failure(edited(played.path, change))
    assert "the swap effect of seats" in reason
    assert "is not in seat" in reason


def test_a_transfer_edited_to_a_card_the_source_never_held_fails(played: Played) -> None:
    applied = next(a for a in played.script.applied if a.effect == "transfer")
    given = next(a for a in played.script.applied if a.effect == "swap").cards[0]

    def change(lines: list[dict[str, Any]]) -> None:
        first_effect(lines, "transfer")["cards"] = [given]  # it went to the other seat

    reason = failure(edited(played.path, change))
    assert "the transfer effect of seats" in reason
    assert f"round {applied.round}" in reason


def test_an_effect_event_that_disagrees_with_its_effect_line_fails(played: Played) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        event = next(
            line["event"]
            for line in lines
            if line["kind"] == "event" and line["event"]["type"] == "effect_applied"
        )
        event["data"]["seats"] = list(reversed(event["data"]["seats"]))

    assert "(effect_applied) shows swap of seats" in failure(edited(played.path, change))


def test_an_effect_event_without_its_effect_line_fails(played: Played) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        lines.remove(first_effect(lines, "double"))

    assert "follows no effect line" in failure(edited(played.path, change))


def test_an_effect_line_without_its_event_fails(played: Played) -> None:
    def change(lines: list[dict[str, Any]]) -> None:
        event = next(
            line
            for line in lines
            if line["kind"] == "event" and line["event"]["type"] == "effect_applied"
        )
        lines.remove(event)

    assert "has no effect_applied event" in failure(edited(played.path, change))


class KeepsEffects:
    """A recorder that keeps only the effects (as the delayed spectator feed could)."""

    def __init__(self) -> None:
        self.effects: list[dict[str, Any]] = []

    def round_started(self, header: dict[str, Any]) -> None: ...
    def message(self, *args: Any, **kwargs: Any) -> None: ...
    def event(self, event: Event) -> None: ...
    def round_ended(self, summary: dict[str, Any]) -> None: ...

    def effect(self, record: dict[str, Any]) -> None:
        self.effects.append(record)


async def test_a_teed_recorder_gets_the_effects_the_replay_gets(tmp_path: Path) -> None:
    """Beside the replay, any recorder with ``effect`` sees the cards each effect moved."""
    kept = KeepsEffects()
    sink = FoldingSink()
    script = GiftScript(sink)
    writer = ReplayWriter(tmp_path / "teed.jsonl")
    table = Table(
        [GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C")],
        sinks=[sink],
        recorder=tee_recorders(writer.for_table("t1"), kept),
        safe_points=[script],
    )
    try:
        await play_match(table, rounds=1, seed=3)
    finally:
        writer.close()
    assert [(k["effect"], tuple(k["seats"]), tuple(k["cards"])) for k in kept.effects] == [
        (a.effect, a.seats, a.cards) for a in script.applied
    ]
    assert len(kept.effects) == len(PLAN)


# ─── the narrow handle ──────────────────────────────────────────────────────────────────


def test_the_handle_gives_no_way_to_the_table_or_the_round(played: Played) -> None:
    handle = played.script.handles[0]
    public = [name for name in dir(handle) if not name.startswith("_")]
    assert set(public) == {
        "phase",
        "to_act",
        "is_leading",
        "seats",
        "hand_sizes",
        "game_part",
        "hand",
        "swap_cards",
        "transfer_card",
        "cheer",
        "close",
    }
    part = DdzSafePoint(Round(seed=1))  # the game's own part: no way to the round either
    assert {name for name in dir(part) if not name.startswith("_")} == {
        "phase",
        "to_act",
        "is_leading",
        "hand_sizes",
        "hand",
        "swap_cards",
        "transfer_card",
        "landlord",
        "gift_doubles",
        "max_gift_doubles",
        "add_gift_double",
        "close",
    }
    assert not hasattr(part, "__dict__")
    with pytest.raises(AttributeError):
        handle.round = Round()  # type: ignore[attr-defined]
    assert not hasattr(handle, "__dict__")


def test_a_handle_kept_after_its_safe_point_can_do_nothing(played: Played) -> None:
    """The table closes each handle when its safe point ends: later, while an agent
    decides, a kept handle neither reads nor changes the round."""
    handle = played.script.handles[0]
    part = DdzSafePoint(Round(seed=1))
    kept = SafePointHandle(part)
    kept.close()  # what a hook kept of the game's own part closes with the handle
    for use in (
        lambda: handle.game_part,
        lambda: part.add_gift_double(),
        lambda: part.gift_doubles,
        lambda: handle.transfer_card(0, 1, "♠3"),
        lambda: handle.swap_cards(0, "♠3", 1, "♠4"),
        lambda: handle.hand(0),
        lambda: handle.hand_sizes,
    ):
        with pytest.raises(IllegalActionError, match="the safe point is over"):
            use()


def test_an_effect_moved_inside_a_turn_fails(played: Played) -> None:
    """Effects apply only between turns: moved after the next request, it is refused."""

    def change(lines: list[dict[str, Any]]) -> None:
        at = lines.index(first_effect(lines, "double"))
        moved = lines[at : at + 2]  # the effect and its event
        del lines[at : at + 2]
        request = next(
            i
            for i in range(at, len(lines))
            if lines[i]["kind"] == "message" and lines[i]["message"]["type"] == "PLAY_REQUEST"
        )
        lines[request + 1 : request + 1] = moved

    assert "effects apply only between turns" in failure(edited(played.path, change))


# ─── the delayed spectator feed and the live multiplier follow the gifts ───────────────


@dataclass
class WatchesTheSpectatorFeed:
    """A safe point that, before the gift script acts, compares the spectator feed's
    hands with the real ones: after a swap or a transfer they must still agree."""

    spectator: DdzSpectatorTable
    script: GiftScript
    disagreements: list[str] = field(default_factory=list)
    checked: int = 0

    async def __call__(self, handle: SafePointHandle) -> None:
        if handle.phase == PHASE_PLAY:
            real = [[c.text for c in handle.hand(seat)] for seat in range(3)]
            if self.spectator.hands != real:
                self.disagreements.append(f"{self.spectator.hands} != {real}")
            self.checked += 1
        await self.script(handle)


async def test_the_spectator_feed_follows_the_cards_a_gift_moved(tmp_path: Path) -> None:
    sink = FoldingSink()
    feed = SpectatorFeed([], delay_s=0)
    spectator = feed.for_table("t1")
    assert isinstance(spectator, DdzSpectatorTable)  # a Dou Dizhu table's, by its game
    watcher = WatchesTheSpectatorFeed(spectator, GiftScript(sink))
    writer = ReplayWriter(tmp_path / "spectated.jsonl")
    table = Table(
        [GreedyAgent("A"), GreedyAgent("B"), GreedyAgent("C")],
        sinks=[sink],
        recorder=tee_recorders(writer.for_table("t1"), spectator),
        safe_points=[watcher],
    )
    try:
        await play_match(table, rounds=ROUNDS, seed=7)
    finally:
        writer.close()
    assert len(watcher.script.applied) == ROUNDS * len(PLAN)
    assert watcher.checked > 20
    assert watcher.disagreements == []
    gift_items = [item for _, item in feed._pending if item.get("reason") == "gift"]
    assert len(gift_items) == ROUNDS * 2  # a swap and a transfer each round


def test_the_live_multiplier_counts_the_viewer_doubles(played: Played) -> None:
    state = PublicTableState("t1", run_id="test")
    for event in played.events:
        state.apply(event)
        if event.type == "effect_applied" and event.data["effect"] == "double":
            multiplier = state.snapshot()["multiplier"]
            assert multiplier["gift_doubles"] == 1
            assert multiplier["common"] == 2 ** multiplier["common_exponent"]
            assert multiplier["common_exponent"] >= 1


def test_an_audience_line_over_the_protocols_cap_is_cut_and_marked() -> None:
    """The protocol holds an audience line to 100 characters: a longer one is cut with
    an ellipsis, as viewer text is cut everywhere else, and ten lines at most wait."""
    waiting: list[list[str]] = [[], [], []]
    handle = SafePointHandle(DdzSafePoint(Round(seed=3)), waiting)
    handle.cheer(1, "加" * 150)
    assert waiting[1] == ["加" * 99 + "…"]
    for n in range(12):
        handle.cheer(1, f"line {n}")
    assert waiting[1] == [f"line {n}" for n in range(2, 12)]  # the newest ten
    handle.close()
    with pytest.raises(IllegalActionError):
        handle.cheer(1, "too late")
