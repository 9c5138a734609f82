"""Viewers' gifts at a Tractor table (docs/gifts.md, "Tractor").

Each effect either means something in Tractor or is refused with a reason a viewer can
read: SWAP (换牌) exchanges one card between two opponents when the target is about to
lead a trick, keeping hand sizes and the 108 cards whole, never while trump is declared
or the banker buries, never mid-trick, never between partners; its public event names
the seats and how many cards, the replay the cards. RESHUFFLE deals the next round anew
from a seed derived from the gift's id. PEEK's cards go to the delayed spectator feed
only. ADD, DOUBLE and ROLE_SWAP are rejected ``not_offered: tractor: <why>``. Every gift
is accounted for: applied, rejected or expired.

The engine's swap is checked on a round alone; the rest at a real table of four
scripted seats, gifts fed through the gifts layer (``attach_gift_desks``), a real replay.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from arena.errors import IllegalActionError
from arena.events import Event
from arena.games.registry import get_game
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import (
    DECK,
    BuryAction,
    DeclareAction,
    Phase,
    PlayAction,
    Round,
    SwapAction,
    TractorRules,
    TrickWon,
    card_text,
    team_of,
)
from arena.games.tractor.gifts import (
    DECLINED,
    GIFTS,
    TractorSafePoint,
    swap_with_opponent,
)
from arena.games.tractor.messages import Deal
from arena.games.tractor.turns import TractorTurns
from arena.replay import ReplayWriter, load_replay
from arena.sinks.base import CollectingSink
from arena.table import SafePointHandle, Table, play_match
from arena.table.match import MatchSummary, derive_seed
from arena.table.safe_point import PHASE_PLAY
from gifts.desk import GiftDesk
from gifts.events import GiftEffect, GiftEvent
from gifts.router import GiftRouter
from gifts.settings import GiftSettings
from protocol import Message

SEED = 11
TABLE = "t1"
RULES = TractorRules()

# --- the engine's swap ------------------------------------------------------------------


def to_play(seed: int = SEED) -> Round:
    """A round at its first lead: nobody declares, the banker buries the fallback."""
    rnd = Round(RULES, seed=seed)
    while rnd.phase is Phase.DECLARING:
        rnd.declare({})
    rnd.bury(rnd.fallback())
    return rnd


def places(rnd: Round) -> Counter[int]:
    """Where every card is: hands, the kitty until taken, buried, played."""
    found: Counter[int] = Counter()
    for hand in rnd.hands:
        found.update(hand)
    if rnd.phase is Phase.DECLARING:
        found.update(rnd.kitty)
    found.update(rnd.buried)
    for _, played in rnd.played:
        found.update(played)
    return found


def replayed(rnd: Round) -> Round:
    """The round again from its seed and its actions, swaps included."""
    again = Round(rnd.rules, seed=rnd.seed, levels=rnd.levels)
    for action in rnd.actions:
        if isinstance(action, DeclareAction):
            again.declare(action.replies)
        elif isinstance(action, BuryAction):
            again.bury(action.cards)
        elif isinstance(action, PlayAction):
            again.play(action.seat, action.cards)
        else:
            again.swap_cards(action.seats[0], action.cards[0], action.seats[1], action.cards[1])
    return again


def test_a_swap_exchanges_one_card_between_opponents_and_the_round_replays() -> None:
    rnd = to_play()
    leader = rnd.to_act
    assert leader is not None
    other = (leader + 1) % 4
    mine, theirs = rnd.hands[leader][0], rnd.hands[other][-1]
    before = [list(hand) for hand in rnd.hands]
    action = rnd.swap_cards(leader, mine, other, theirs)
    assert action == SwapAction((leader, other), (mine, theirs))
    assert rnd.actions[-1] == action
    lost, won = Counter([mine]), Counter([theirs])
    assert Counter(rnd.hands[leader]) == Counter(before[leader]) - lost + won
    assert Counter(rnd.hands[other]) == Counter(before[other]) - won + lost
    assert [len(h) for h in rnd.hands] == [len(h) for h in before]
    assert places(rnd) == Counter(DECK)
    rng = random.Random(SEED)
    while rnd.phase is Phase.PLAYING:  # the round still plays to its end, a swap a trick
        seat = rnd.to_act
        assert seat is not None
        if rnd.lead is None and rnd.hands[seat]:
            opponent = rng.choice([(seat + 1) % 4, (seat + 3) % 4])
            rnd.swap_cards(
                seat, rng.choice(rnd.hands[seat]), opponent, rng.choice(rnd.hands[opponent])
            )
            assert len({len(hand) for hand in rnd.hands}) == 1
        rnd.play(seat, rnd.fallback())
        assert places(rnd) == Counter(DECK)
    tricks = sum(isinstance(e, TrickWon) for e in rnd.events)
    assert sum(isinstance(a, SwapAction) for a in rnd.actions) == 1 + tricks
    again = replayed(rnd)
    assert again.hands == rnd.hands
    assert again.events == rnd.events
    assert again.result == rnd.result


def test_a_swap_while_trump_is_declared_or_the_banker_buries_is_refused() -> None:
    rnd = Round(RULES, seed=SEED)
    with pytest.raises(IllegalActionError, match=r"only during play.*kitty never changes hands"):
        rnd.swap_cards(0, rnd.hands[0][0], 1, rnd.hands[1][0])
    while rnd.phase is Phase.DECLARING:
        rnd.declare({})
    banker = rnd.banker
    assert banker is not None
    kitty_card = rnd.kitty[0]  # in the banker's hand while it buries
    before = [list(hand) for hand in rnd.hands]
    other = (banker + 1) % 4
    with pytest.raises(IllegalActionError, match="only during play"):
        rnd.swap_cards(banker, kitty_card, other, rnd.hands[other][0])
    assert rnd.hands == before
    assert not any(isinstance(a, SwapAction) for a in rnd.actions)


def test_a_swap_mid_trick_between_partners_or_of_a_card_not_held_is_refused() -> None:
    rnd = to_play()
    leader = rnd.to_act
    assert leader is not None
    partner, opponent = (leader + 2) % 4, (leader + 1) % 4
    with pytest.raises(IllegalActionError, match="between opponents"):
        rnd.swap_cards(leader, rnd.hands[leader][0], partner, rnd.hands[partner][0])
    with pytest.raises(IllegalActionError, match="not in seat"):
        rnd.swap_cards(leader, rnd.hands[opponent][0], opponent, rnd.hands[opponent][1])
    with pytest.raises(IllegalActionError, match="two seats"):
        rnd.swap_cards(leader, rnd.hands[leader][0], 7, 0)
    rnd.play(leader, rnd.fallback())
    follower = rnd.to_act
    assert follower == opponent
    before = [list(hand) for hand in rnd.hands]
    actions = len(rnd.actions)
    with pytest.raises(IllegalActionError, match="before a trick's lead"):
        rnd.swap_cards(follower, rnd.hands[follower][0], partner, rnd.hands[partner][0])
    assert (rnd.hands, len(rnd.actions)) == (before, actions)


# --- the round as a safe point sees it --------------------------------------------------


def test_a_safe_point_shows_the_phase_the_leader_and_sizes_and_refuses_an_add() -> None:
    declaring = TractorSafePoint(Round(RULES, seed=SEED))
    assert (declaring.phase, declaring.is_leading) == ("declaring", False)
    rnd = to_play()
    point = TractorSafePoint(rnd)
    assert (point.phase, point.to_act, point.is_leading) == (PHASE_PLAY, rnd.to_act, True)
    assert point.hand_sizes == (25, 25, 25, 25)
    assert [c.text for c in point.hand(0)] == [card_text(c) for c in rnd.hands[0]]
    with pytest.raises(IllegalActionError, match="hands stay equal"):
        point.transfer_card(0, 1, rnd.hands[0][0])
    point.close()
    with pytest.raises(IllegalActionError, match="safe point is over"):
        point.hand(0)


def test_a_gift_swap_draws_an_opponent_and_the_same_gift_moves_the_same_cards() -> None:
    swaps = []
    for _ in range(2):
        rnd = to_play()
        point = TractorSafePoint(rnd)
        leader = rnd.to_act
        assert leader is not None
        swaps.append(swap_with_opponent(point, leader, "test:g1#0"))
        assert point.applied == [swaps[-1]]
    assert swaps[0] == swaps[1]
    (target, other) = swaps[0].seats
    assert team_of(target) != team_of(other)
    others = {swap_with_opponent(TractorSafePoint(to_play()), 0, f"g{i}").seats for i in range(8)}
    assert {seats[1] for seats in others} == {1, 3}  # either opponent, never the partner


def test_tractor_offers_or_declines_each_effect_with_a_reason() -> None:
    offered = get_game("tractor").gift_effects
    assert offered == {"CHEER", "EMOTE", "PEEK", "SWAP", "EFFECT", "RESHUFFLE"}
    assert set(DECLINED) == {"ADD", "DOUBLE", "ROLE_SWAP"}
    assert offered | set(DECLINED) == set(GiftEffect)
    assert GIFTS.effects <= offered
    operations = get_game("tractor").gifts
    assert operations is not None
    assert operations() is GIFTS
    docs = (Path(__file__).parents[1] / "docs" / "gifts.md").read_text(encoding="utf-8")
    for effect, why in DECLINED.items():  # the docs tell each reason as a viewer reads it
        assert f"| `{effect}` | `not_offered: tractor: {why}` |" in docs


# --- at a table ------------------------------------------------------------------------


class RecordingAgent(RandomAgent):
    """A random seat that keeps every DEAL it is told."""

    def __init__(self, name: str, seed: int) -> None:
        super().__init__(name, seed=seed, rules=RULES)
        self.deals: list[Deal] = []

    async def notify(self, message: Message) -> None:
        if isinstance(message, Deal):
            self.deals.append(message)
        await super().notify(message)


@dataclass
class Moment:
    """The hands around a safe point: before the gifts and after."""

    round_no: int
    before: list[list[str]]
    after: list[list[str]] = field(default_factory=list)
    cards: Counter[int] = field(default_factory=Counter)


@dataclass
class Played:
    events: list[Event]
    summary: MatchSummary
    path: Path
    agents: list[RecordingAgent]
    peeks: list[tuple[str, int, list[str]]]
    moments: list[Moment]

    def of(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.type == kind]

    def outcomes(self) -> dict[str, list[dict[str, Any]]]:
        """Each gift unit's events, queued or not, in order."""
        found: dict[str, list[dict[str, Any]]] = {}
        for event in self.of("gift"):
            found.setdefault(event.data["id"], []).append(dict(event.data))
        return found


def gift(name: str, effect: str, seat: int | None = None) -> GiftEvent:
    return GiftEvent(
        event_id=name,
        platform="test",
        viewer_id=f"viewer-{name}",
        effect=GiftEffect(effect),
        target_seat=seat,
    )


async def play(
    tmp_path: Path, gifts: Sequence[GiftEvent], *, rounds: int = 2, name: str = "match"
) -> Played:
    """A match of four random seats with ``gifts`` sent before it starts."""
    sink = CollectingSink()
    path = tmp_path / f"tractor-{name}.jsonl"
    writer = ReplayWriter(path)
    agents = [RecordingAgent(f"P{i}", seed=i) for i in range(4)]
    game = get_game("tractor")
    recorder = writer.for_table(TABLE)
    table = Table(agents, game=game, rules=RULES, table_id=TABLE, sinks=[sink], recorder=recorder)
    settings = GiftSettings(
        viewer_cooldown_s=0, strong_cooldown_s=0, cooldowns={GiftEffect.SWAP: 0, GiftEffect.PEEK: 0}
    )
    peeks: list[tuple[str, int, list[str]]] = []
    desk = GiftDesk(
        settings,
        players=table.names,
        match_seed=SEED,
        game=game,
        offered=game.gift_effects,
        on_peek=lambda pending, seat, cards: peeks.append((pending.id, seat, cards)),
        keep_outcomes=True,
    )
    desk.attach(table.emit, ready=lambda: table.match_id is not None)
    moments: list[Moment] = []
    turns = table.turns
    assert isinstance(turns, TractorTurns)

    async def before(handle: SafePointHandle) -> None:
        hands = [[c.text for c in handle.hand(s)] for s in range(handle.seats)]
        moments.append(Moment(table.round_no, hands))

    async def after(handle: SafePointHandle) -> None:
        moment = moments[-1]
        moment.after = [[c.text for c in handle.hand(s)] for s in range(handle.seats)]
        assert turns.round is not None
        moment.cards = places(turns.round)

    table.safe_points.extend([before, desk.at_safe_point, after])
    table.between_rounds.append(desk.between_rounds)
    table.match_end_hooks.append(desk.close)
    router = GiftRouter({TABLE: desk}, default_table=TABLE)
    for one in gifts:
        await router.accept(one)
    try:
        summary = await play_match(table, rounds=rounds, seed=SEED)
    finally:
        writer.close()
    await router.close()
    return Played(sink.events, summary, path, agents, peeks, moments)


CARD_ID = "D[12]_(?:[SHDC]_(?:[2-9]|10|[JQKA])|SJ|BJ)"


def names_a_card(data: Any) -> bool:
    return re.search(CARD_ID, json.dumps(data, ensure_ascii=False)) is not None


def effect_lines(path: Path) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line["kind"] == "effect"]


async def test_a_swap_moves_one_card_each_way_between_opponents_as_its_target_leads(
    tmp_path: Path,
) -> None:
    played = await play(tmp_path, [gift(f"swap{seat}", "SWAP", seat) for seat in range(4)])
    applied = played.of("effect_applied")
    lines = effect_lines(played.path)
    assert applied, "no swap applied in two rounds"
    assert len(lines) == len(applied)
    changed = [m for m in played.moments if m.after != m.before]
    assert len(changed) == len(applied)
    for event, line, moment in zip(applied, lines, changed, strict=True):
        target, other = line["seats"]
        given, taken = line["cards"]
        # the public event: the seats and how many cards, never which
        assert event.data == {"effect": "swap", "seats": [target, other], "cards_moved": 2}
        assert line["effect"] == "swap"
        assert team_of(target) != team_of(other)
        # one card each way, hand sizes kept, the others untouched, the 108 cards whole
        lost, won = Counter([given]), Counter([taken])
        assert Counter(moment.after[target]) == Counter(moment.before[target]) - lost + won
        assert Counter(moment.after[other]) == Counter(moment.before[other]) - won + lost
        assert [len(h) for h in moment.after] == [len(h) for h in moment.before]
        for seat in set(range(4)) - {target, other}:
            assert moment.after[seat] == moment.before[seat]
        assert moment.cards == Counter(DECK)
        # applied only as the target is about to lead a trick, before its play
        index = played.events.index(event)
        lead = next(e for e in played.events[index:] if e.type == "play")
        assert (lead.seat, lead.data["leading"]) == (target, True)
        assert not [e for e in played.events[index:] if e.type == "bury" and e.round == event.round]
    for event in (*applied, *played.of("gift")):
        assert not names_a_card(event.data), event
    marks = [mark for record in played.summary.rounds for mark in record.gifts]
    assert marks == ["SWAP"] * len(applied)
    assert not played.of("fault")
    accounted(played, 4)


async def test_a_reshuffle_deals_the_next_round_from_a_seed_of_the_gift(tmp_path: Path) -> None:
    baseline = await play(tmp_path, [], name="baseline")
    played = await play(tmp_path, [gift("shuffle", "RESHUFFLE")])
    unit = "test:shuffle#0"
    prepared = derive_seed(SEED, TABLE, 2)
    reshuffled = derive_seed(SEED, TABLE, 2, "reshuffle", unit)
    assert baseline.summary.rounds[1].seed == prepared
    assert [r.seed for r in played.summary.rounds] == [baseline.summary.rounds[0].seed, reshuffled]
    header = load_replay(played.path).rounds[1].header
    assert header["seed"] == reshuffled
    assert header["gift_changes"] == [
        {"effect": "RESHUFFLE", "gift": unit, "prepared_seed": prepared, "seed": reshuffled}
    ]
    [started] = [e for e in played.of("round_started") if e.round == 2]
    assert started.data["reshuffled"] is True
    assert played.summary.rounds[1].gifts == ("RESHUFFLE",)
    dealt = [[d.hand for d in agent.deals if d.round_no == 2] for agent in played.agents]
    before = [[d.hand for d in agent.deals if d.round_no == 2] for agent in baseline.agents]
    assert dealt != before  # another deal, not the prepared one
    expected = Round(RULES, seed=reshuffled)
    assert [hand for [hand] in dealt] == [[card_text(c) for c in h] for h in expected.hands]
    accounted(played, 1)


async def test_a_match_with_gifts_replays(tmp_path: Path) -> None:
    pytest.importorskip(
        "arena.games.tractor.replay_check", reason="Tractor's replay check is not written yet"
    )
    from arena.replay import verify_round

    played = await play(
        tmp_path, [gift("shuffle", "RESHUFFLE"), *(gift(f"s{s}", "SWAP", s) for s in range(4))]
    )
    assert played.of("effect_applied")
    for recorded in load_replay(played.path).rounds:
        verify_round(recorded)


async def test_a_peek_hands_the_targets_cards_to_the_delayed_feed_and_no_event_names_one(
    tmp_path: Path,
) -> None:
    played = await play(tmp_path, [gift("peek", "PEEK", 2)], rounds=1)
    [(unit, seat, cards)] = played.peeks
    assert (unit, seat) == ("test:peek#0", 2)
    first = played.moments[0]  # the round's first safe point: its first lead
    assert cards == first.after[2]  # seat 2's whole hand then, as ids
    assert len(cards) == 25
    assert [d["status"] for d in played.outcomes()[unit]] == ["queued", "applied"]
    for event in played.of("gift"):
        assert not names_a_card(event.data)


@pytest.mark.parametrize("effect", ["ADD", "DOUBLE", "ROLE_SWAP"])
async def test_an_effect_tractor_does_not_offer_is_rejected_saying_why(
    tmp_path: Path, effect: str
) -> None:
    played = await play(tmp_path, [gift("no", effect, 1)], rounds=1)
    [told] = played.outcomes()["test:no#0"]
    assert (told["status"], told["effect"]) == ("rejected", effect)
    assert told["reason"] == f"not_offered: tractor: {DECLINED[effect]}"
    assert told["reason"].startswith("not_offered: tractor: ")
    assert not played.of("effect_applied")
    assert played.summary.rounds[0].gifts == ()
    accounted(played, 1)


def accounted(played: Played, sent: int) -> None:
    """Every gift unit ends exactly once: applied, rejected or expired."""
    outcomes = played.outcomes()
    assert len(outcomes) == sent
    for unit, told in outcomes.items():
        ends = [d["status"] for d in told if d["status"] != "queued"]
        assert len(ends) == 1, (unit, told)
        assert ends[0] in ("applied", "rejected", "expired")
