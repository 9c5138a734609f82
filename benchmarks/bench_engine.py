"""Legal-move generation and random full rounds: our engine vs RLCard vs OpenSpiel.

Run ``python -m benchmarks.bench_engine`` (or ``python benchmarks/bench_engine.py``) after
``pip install -e '.[bench]'``. See benchmarks/README.md for what is measured and why.

All three engines get the same random 20-card hands (a fixed seed) and, when following, the
same trick per hand. Timings are µs per call: the median over several repeats of the mean
over all hands; engines are timed interleaved within each repeat so that their ratios come
from the same moments of a noisy machine. Nothing is cached across calls beyond what each
library does by itself: our ``legal_moves`` gets the plain card tuple and builds its per-rank
index on every call.
"""

from __future__ import annotations

import argparse
import gc
import math
import platform
import random
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from typing import Any, Final

from arena.games.ddz.engine import DECK, Card, Combo, ComboType, Phase, Round, classify, legal_moves
from arena.games.ddz.engine.moves import HandIndex
from protocol.cards import ACE, BIG_JOKER, SMALL_JOKER, TWO

# --- card notations -------------------------------------------------------------------

#: Our rank (3..17) to the one-letter rank RLCard uses in its strings ('B'/'R' are jokers).
RANK_CHAR: Final = dict(zip(range(3, 18), "3456789TJQKA2BR", strict=True))
#: Our suits to RLCard's and to OpenSpiel's suit index (C, D, H, S).
RL_SUIT: Final = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
OS_SUIT: Final = {"♣": 0, "♦": 1, "♥": 2, "♠": 3}
OS_DEAL_BASE: Final = 51  # OpenSpiel: chance 0..50 picks the face-up card, 51 + id deals


def rank_string(cards: Iterable[Card]) -> str:
    """Cards as a sorted RLCard rank string, e.g. '33344456'."""
    return "".join(RANK_CHAR[c.rank] for c in sorted(cards, key=lambda c: c.id))


def os_card_id(c: Card) -> int:
    """OpenSpiel's id of a card: suit-major (C, D, H, S) by rank, then the two jokers."""
    if c.rank == SMALL_JOKER:
        return 52
    if c.rank == BIG_JOKER:
        return 53
    assert c.suit is not None
    return OS_SUIT[c.suit] * 13 + (c.rank - 3)


def os_hand_string(cards: Iterable[Card]) -> str:
    """A hand as OpenSpiel formats it ('4556...A22(BWJ)(CJ)')."""
    joker = {SMALL_JOKER: "(BWJ)", BIG_JOKER: "(CJ)"}
    return "".join(joker.get(c.rank, RANK_CHAR[c.rank]) for c in sorted(cards, key=lambda c: c.id))


def os_multiset(action_text: str) -> Counter[str]:
    """The rank multiset of an OpenSpiel play ('333444-56', '(BWJ)(CJ)')."""
    flat = action_text.replace("(BWJ)", "B").replace("(CJ)", "R").replace("-", "")
    return Counter(flat)


def require(ok: bool, what: str) -> None:
    """A sanity check that survives ``python -O``."""
    if not ok:
        raise RuntimeError(f"benchmark sanity check failed: {what}")


# --- the hands and the tricks ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scenario:
    label: str
    goal: float  # required speed-up over RLCard
    trick_type: ComboType | None  # None: leading


SCENARIOS: Final = (
    Scenario("lead (20 cards)", 3.0, None),
    Scenario("follow a single", 5.0, ComboType.SINGLE),
    Scenario("follow a pair", 5.0, ComboType.PAIR),
    Scenario("follow airplane+singles", 5.0, ComboType.AIRPLANE_WITH_SINGLES),
    Scenario("follow airplane+pairs", 5.0, ComboType.AIRPLANE_WITH_PAIRS),
)


@dataclass(slots=True)
class Case:
    """One hand in one scenario: the trick to beat is made of cards outside the hand."""

    hand: tuple[Card, ...]  # 20 cards, sorted
    trick: tuple[Card, ...] | None  # None when leading
    combo: Combo | None
    # OpenSpiel cannot reach "landlord follows with all 20 cards" (the landlord always
    # leads first), so it follows with the hand minus its lowest card: see the README.
    os_hand: tuple[Card, ...] = field(default=())


def random_hands(count: int, seed: int) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(sorted(rng.sample(DECK, 20), key=lambda c: c.id)) for _ in range(count)]


def outside_by_rank(hand: Sequence[Card]) -> dict[int, list[Card]]:
    held = set(hand)
    by_rank: dict[int, list[Card]] = {r: [] for r in range(3, 18)}
    for c in DECK:
        if c not in held:
            by_rank[c.rank].append(c)
    return by_rank


def pick_trick(hand: Sequence[Card], kind: ComboType) -> tuple[Card, ...] | None:
    """The lowest trick of this shape that the other two players could hold.

    Lowest, so that the hand can often beat it (the most moves to list). Airplanes are two
    triples with two single or two pair wings, e.g. 333444+5+6 or 333444+55+66.
    """
    out = outside_by_rank(hand)
    if kind is ComboType.SINGLE:
        return next(((out[r][0],) for r in range(3, 18) if out[r]), None)
    if kind is ComboType.PAIR:
        return next((tuple(out[r][:2]) for r in range(3, TWO + 1) if len(out[r]) >= 2), None)
    wing_size = 1 if kind is ComboType.AIRPLANE_WITH_SINGLES else 2
    for low in range(3, ACE):
        if len(out[low]) < 3 or len(out[low + 1]) < 3:
            continue
        wing_ranks = [
            r
            for r in range(3, 18 if wing_size == 1 else TWO + 1)
            if r not in (low, low + 1) and len(out[r]) >= wing_size
        ][:2]
        if len(wing_ranks) < 2 or wing_ranks == [SMALL_JOKER, BIG_JOKER]:
            continue
        cards = [*out[low][:3], *out[low + 1][:3]]
        for r in wing_ranks:
            cards.extend(out[r][:wing_size])
        return tuple(sorted(cards, key=lambda c: c.id))
    return None


def build_cases(hands: Sequence[tuple[Card, ...]], scenario: Scenario) -> list[Case]:
    cases: list[Case] = []
    for hand in hands:
        if scenario.trick_type is None:
            cases.append(Case(hand, None, None, hand))
            continue
        trick = pick_trick(hand, scenario.trick_type)
        if trick is None:
            continue  # no such trick outside the hand (rare): skipped for every engine alike
        combo = classify(trick)
        require(combo is not None and combo.type is scenario.trick_type, f"trick {trick}")
        assert combo is not None
        cases.append(Case(hand, trick, combo, hand[1:]))
    return cases


# --- our engine -----------------------------------------------------------------------


def ours_inputs(cases: Sequence[Case], *, os_hand: bool = False) -> list[Any]:
    return [(c.os_hand if os_hand else c.hand, c.combo) for c in cases]


def ours_indexed_inputs(cases: Sequence[Case]) -> list[Any]:
    return [(HandIndex(c.hand), c.combo) for c in cases]


def ours_loop(items: Sequence[Any]) -> None:
    moves = legal_moves
    for hand, last in items:
        moves(hand, last)


def ours_count(items: Sequence[Any]) -> float:
    return statistics.fmean(len(legal_moves(hand, last)) for hand, last in items)


def ours_round(seed: int) -> int:
    """One random round through the public Round API; returns the number of decisions."""
    r = Round(seed=seed)
    rng = random.Random(seed)
    decisions = 0
    while r.phase is not Phase.FINISHED:
        seat = r.to_act
        assert seat is not None
        if r.phase is Phase.BIDDING:
            r.bid(seat, rng.choice(r.legal_bids()))
        elif r.phase is Phase.DOUBLING:
            r.double(seat, rng.random() < 0.5)
        else:
            r.play(seat, rng.choice(r.legal_plays()))
        decisions += 1
    require(r.result is not None and sum(r.result.scores) == 0, f"round {seed} settles to 0")
    return decisions


# --- RLCard ---------------------------------------------------------------------------


class RLCard:
    """RLCard's Dou Dizhu: the judger (leads), get_gt_cards (follows), the game loop."""

    def __init__(self) -> None:
        import numpy as np
        from rlcard.games.base import Card as RLCardCard
        from rlcard.games.doudizhu.game import DoudizhuGame
        from rlcard.games.doudizhu.judger import DoudizhuJudger
        from rlcard.games.doudizhu.player import DoudizhuPlayer
        from rlcard.games.doudizhu.utils import get_gt_cards

        self.np = np
        self.card_cls = RLCardCard
        self.game_cls = DoudizhuGame
        self.player_cls = DoudizhuPlayer
        self.lead_fn = DoudizhuJudger.playable_cards_from_hand
        self.follow_fn = get_gt_cards

    def card(self, c: Card) -> Any:
        if c.rank == SMALL_JOKER:
            return self.card_cls("BJ", "")
        if c.rank == BIG_JOKER:
            return self.card_cls("RJ", "")
        assert c.suit is not None
        return self.card_cls(RL_SUIT[c.suit], RANK_CHAR[c.rank])

    def inputs(self, cases: Sequence[Case]) -> list[Any]:
        if cases[0].trick is None:
            return [rank_string(c.hand) for c in cases]
        items = []
        rng = self.np.random.RandomState(0)
        for c in cases:
            player = self.player_cls(0, rng)
            player.set_current_hand([self.card(x) for x in c.hand])  # sorted like RLCard's
            greater = self.player_cls(1, rng)
            assert c.trick is not None
            greater.played_cards = rank_string(c.trick)  # what the trick's winner played
            items.append((player, greater))
        return items

    def loop_for(self, cases: Sequence[Case]) -> Callable[[Sequence[Any]], None]:
        if cases[0].trick is None:
            lead = self.lead_fn

            def lead_loop(items: Sequence[Any]) -> None:
                for hand in items:
                    lead(hand)

            return lead_loop
        follow = self.follow_fn

        def follow_loop(items: Sequence[Any]) -> None:
            for player, greater in items:
                follow(player, greater)

        return follow_loop

    def count(self, cases: Sequence[Case], items: Sequence[Any]) -> float:
        if cases[0].trick is None:
            return statistics.fmean(len(self.lead_fn(h)) for h in items)
        return statistics.fmean(len(self.follow_fn(p, g)) - 1 for p, g in items)  # - 'pass'

    def make_round(self) -> Callable[[int], int]:
        game = self.game_cls()

        def play(seed: int) -> int:
            game.np_random = self.np.random.RandomState(seed)
            rng = random.Random(seed)
            state, _ = game.init_game()
            decisions = 0
            while not game.is_over():
                actions = state["actions"]
                state, _ = game.step(actions[rng.randrange(len(actions))])
                decisions += 1
            require(game.winner_id is not None, f"RLCard game {seed} has a winner")
            return decisions

        return play


# --- OpenSpiel ------------------------------------------------------------------------


class OpenSpiel:
    """OpenSpiel's C++ ``dou_dizhu`` through pyspiel: ``state.legal_actions()``."""

    def __init__(self) -> None:
        import pyspiel

        self.game = pyspiel.load_game("dou_dizhu")

    def deal(self, seats: Sequence[Sequence[Card]]) -> Any:
        """Deal 17 cards to each seat (the 3 cards left over are the bottom); seat 0 bids 3.

        Face-up position 0 makes seat 0 the first bidder; card k goes to seat k % 3.
        """
        require(all(len(s) == 17 for s in seats), "17 cards a seat")
        state = self.game.new_initial_state()
        state.apply_action(0)  # the face-up card is the first one dealt: seat 0 bids first
        for k in range(51):
            state.apply_action(OS_DEAL_BASE + os_card_id(seats[k % 3][k // 3]))
        self.apply(state, "Bid 3")
        require(state.current_player() == 0, "seat 0 is landlord and leads")
        return state

    @staticmethod
    def apply(state: Any, wanted: str | Sequence[Card]) -> None:
        """Apply the legal action named ``wanted``, or the play of exactly these cards."""
        legal = state.legal_actions()
        if isinstance(wanted, str):
            found = [a for a in legal if state.action_to_string(a) == wanted]
        else:
            target = Counter(rank_string(wanted))
            found = [a for a in legal if os_multiset(state.action_to_string(a)) == target]
        require(len(found) == 1, f"exactly one OpenSpiel action for {wanted}")
        state.apply_action(found[0])

    def state_for(self, case: Case) -> Any:
        hand = case.hand
        out = [c for c in DECK if c not in set(hand)]
        if case.trick is None:
            # Seat 0 is landlord with exactly the 20-card hand and leads.
            state = self.deal([hand[:17], out[:17], out[17:]])
        else:
            # Seat 0 leads its lowest card c; seat 1 beats it with a single d, seat 2 and
            # seat 0 pass; seat 1 leads the trick, seat 2 passes: seat 0 follows with 19.
            low = hand[0]
            trick = case.trick
            d = next(c for c in out if c.rank > low.rank and c not in trick)
            rest = [c for c in out if c not in trick and c is not d]
            seat1 = [*trick, d, *rest[: 16 - len(trick)]]
            seat2 = rest[16 - len(trick) :]
            state = self.deal([hand[:17], seat1, seat2])
            self.apply(state, [low])
            self.apply(state, [d])
            self.apply(state, "Pass")
            self.apply(state, "Pass")
            self.apply(state, trick)
            self.apply(state, "Pass")
        require(state.current_player() == 0, "seat 0 to act")
        shown = state.observation_string(0).splitlines()[0]
        require(shown == f"My hand {os_hand_string(case.os_hand)}", f"OpenSpiel hand: {shown}")
        return state

    def inputs(self, cases: Sequence[Case]) -> list[Any]:
        return [self.state_for(c) for c in cases]

    @staticmethod
    def loop_for(cases: Sequence[Case]) -> Callable[[Sequence[Any]], None]:
        def loop(states: Sequence[Any]) -> None:
            for state in states:
                state.legal_actions()

        return loop

    @staticmethod
    def count(cases: Sequence[Case], states: Sequence[Any]) -> float:
        following = cases[0].trick is not None
        return statistics.fmean(len(s.legal_actions()) - following for s in states)

    def make_round(self) -> Callable[[int], int]:
        game = self.game

        def play(seed: int) -> int:
            rng = random.Random(seed)
            state = game.new_initial_state()
            decisions = 0
            while not state.is_terminal():
                legal = state.legal_actions()  # chance outcomes are uniform here
                if not state.is_chance_node():
                    decisions += 1
                state.apply_action(legal[rng.randrange(len(legal))])
            require(sum(state.returns()) == 0, f"OpenSpiel game {seed} is zero-sum")
            return decisions

        return play


# --- timing ---------------------------------------------------------------------------

#: CPU time of this process (ns resolution on Linux): everything timed is single-threaded
#: and CPU-bound, and on a shared VM wall time also counts the moments we were descheduled.
clock: Final = time.process_time


@dataclass(slots=True)
class Timer:
    """A loop over prepared inputs, timed in passes long enough to read the clock well."""

    loop: Callable[[Sequence[Any]], None]
    items: Sequence[Any]
    passes: int = 1
    samples: list[float] = field(default_factory=list)

    def calibrate(self, min_time: float) -> None:
        self.loop(self.items)  # warm-up
        start = clock()
        self.loop(self.items)
        once = max(clock() - start, 1e-9)
        self.passes = max(1, math.ceil(min_time / once))

    def sample(self) -> None:
        gc.collect()
        start = clock()
        for _ in range(self.passes):
            self.loop(self.items)
        elapsed = clock() - start
        self.samples.append(elapsed / (self.passes * len(self.items)) * 1e6)


def run_interleaved(timers: Sequence[Timer], repeats: int, min_time: float) -> None:
    for timer in timers:
        timer.calibrate(min_time)
    for _ in range(repeats):
        for timer in timers:
            timer.sample()


@dataclass(slots=True)
class RoundTimer:
    play: Callable[[int], int]
    rates: list[float] = field(default_factory=list)
    decisions: list[int] = field(default_factory=list)

    def batch(self, seeds: range) -> None:
        gc.collect()
        start = clock()
        for seed in seeds:
            self.decisions.append(self.play(seed))
        self.rates.append(len(seeds) / (clock() - start))


# --- the report -----------------------------------------------------------------------


def paired_ratio(top: Sequence[float], bottom: Sequence[float]) -> float:
    """The median of per-repeat ratios: each pair was measured moments apart."""
    return statistics.median(a / b for a, b in zip(top, bottom, strict=True))


@dataclass(slots=True)
class Row:
    """One line of the table: per-repeat samples of each engine (None: not installed)."""

    label: str
    ours: list[float]
    rlcard: list[float] | None
    openspiel: list[float] | None
    ours_same_as_os: list[float]  # ours on OpenSpiel's exact input (19 cards when following)
    goal: float
    higher_is_better: bool = False  # rounds per second, not µs
    os_input_differs: bool = False  # OpenSpiel got the 19-card hand (marked †)

    @staticmethod
    def value(samples: Sequence[float] | None) -> float | None:
        return None if samples is None else statistics.median(samples)

    def speedup(self) -> float | None:
        """How many times faster than RLCard we are (the goal)."""
        if self.rlcard is None:
            return None
        if self.higher_is_better:
            return paired_ratio(self.ours, self.rlcard)
        return paired_ratio(self.rlcard, self.ours)

    def distance(self) -> float | None:
        """How many times slower than OpenSpiel we are, on identical input."""
        if self.openspiel is None:
            return None
        if self.higher_is_better:
            return paired_ratio(self.openspiel, self.ours_same_as_os)
        return paired_ratio(self.ours_same_as_os, self.openspiel)


def fmt_value(value: float | None, missing: str) -> str:
    if value is None:
        return missing
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.1f}×"


def render(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def package_version(name: str) -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


# --- main -----------------------------------------------------------------------------


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.bench_engine",
        description="Legal moves and random rounds: ours vs RLCard vs OpenSpiel.",
    )
    parser.add_argument("--hands", type=int, default=200, help="random 20-card hands")
    parser.add_argument("--rounds", type=int, default=1500, help="random rounds per engine")
    parser.add_argument("--repeats", type=int, default=9, help="timed repeats (median)")
    parser.add_argument("--seed", type=int, default=2026, help="seed of the hands")
    parser.add_argument("--quick", action="store_true", help="small, fast run (smoke test)")
    parser.add_argument(
        "--skip",
        action="append",
        default=[],
        choices=["rlcard", "openspiel"],
        help="leave a library out (its columns then read 'skipped')",
    )
    args = parser.parse_args(argv)
    args.min_time = 0.1
    if args.quick:
        args.hands, args.rounds, args.repeats, args.min_time = 40, 150, 3, 0.02
    return args


def load_engines(skip: Sequence[str]) -> tuple[RLCard | None, OpenSpiel | None]:
    rl: RLCard | None = None
    os_: OpenSpiel | None = None
    if "rlcard" not in skip:
        try:
            rl = RLCard()
        except ImportError:
            rl = None
    if "openspiel" not in skip:
        try:
            os_ = OpenSpiel()
        except ImportError:
            os_ = None
    return rl, os_


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    rl, os_ = load_engines(args.skip)
    absent = {
        key: "skipped" if key in args.skip else "not installed" for key in ("rlcard", "openspiel")
    }
    started = time.perf_counter()
    print(
        f"Dou Dizhu engine benchmark — {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, "
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"rlcard {package_version('rlcard') if rl else absent['rlcard']}, "
        f"open_spiel {package_version('open_spiel') if os_ else absent['openspiel']}"
    )
    print(
        f"{args.hands} random 20-card hands (seed {args.seed}), {args.repeats} repeats; "
        f"{args.rounds} random rounds per engine\n"
    )

    hands = random_hands(args.hands, args.seed)
    rows: list[Row] = []
    index_rows: list[list[str]] = []
    count_rows: list[list[str]] = []
    for scenario in SCENARIOS:
        rows.append(bench_scenario(scenario, hands, rl, os_, args, absent, index_rows, count_rows))
    rounds = bench_rounds(rl, os_, args)
    rows.append(rounds.row)
    print_report(rows, index_rows, count_rows, rounds.decisions, absent)
    print(f"\nTotal run time {time.perf_counter() - started:.0f} s.")
    return 0


def bench_scenario(
    scenario: Scenario,
    hands: Sequence[tuple[Card, ...]],
    rl: RLCard | None,
    os_: OpenSpiel | None,
    args: argparse.Namespace,
    absent: dict[str, str],
    index_rows: list[list[str]],
    count_rows: list[list[str]],
) -> Row:
    """Time one scenario on every engine, interleaved; add its count and index lines."""
    cases = build_cases(hands, scenario)
    following = scenario.trick_type is not None
    ours_items = ours_inputs(cases)
    timers = {
        "ours": Timer(ours_loop, ours_items),
        "indexed": Timer(ours_loop, ours_indexed_inputs(cases)),
    }
    if following:
        timers["ours19"] = Timer(ours_loop, ours_inputs(cases, os_hand=True))
    counts = [scenario.label, str(len(cases)), f"{ours_count(ours_items):.1f}"]
    engines: tuple[tuple[RLCard | OpenSpiel | None, str], ...] = (
        (rl, "rlcard"),
        (os_, "openspiel"),
    )
    for engine, key in engines:
        if engine is None:
            counts.append(absent[key])
            continue
        items = engine.inputs(cases)
        timers[key] = Timer(engine.loop_for(cases), items)
        counts.append(f"{engine.count(cases, items):.1f}")
    counts.insert(4, f"{ours_count(timers['ours19'].items):.1f}" if following else "(same)")
    count_rows.append(counts)
    # Each ratio's two timers run back to back: (indexed, ours), (ours, RLCard), (ours19, OS).
    order = ("indexed", "ours", "rlcard", "ours19", "openspiel")
    run_interleaved([timers[k] for k in order if k in timers], args.repeats, args.min_time)

    def samples(key: str) -> list[float] | None:
        timer = timers.get(key)
        return timer.samples if timer else None

    ours = timers["ours"].samples
    indexed = timers["indexed"].samples
    share = statistics.median(a - b for a, b in zip(ours, indexed, strict=True))
    index_rows.append(
        [
            scenario.label,
            fmt_value(statistics.median(ours), ""),
            fmt_value(statistics.median(indexed), ""),
            f"{share:.1f}",
            f"{share / statistics.median(ours):.0%}",
        ]
    )
    return Row(
        scenario.label,
        ours,
        samples("rlcard"),
        samples("openspiel"),
        timers["ours19"].samples if following else ours,
        scenario.goal,
        os_input_differs=following,
    )


@dataclass(slots=True)
class RoundsOutcome:
    row: Row
    decisions: dict[str, float]


def bench_rounds(
    rl: RLCard | None, os_: OpenSpiel | None, args: argparse.Namespace
) -> RoundsOutcome:
    """Random full rounds per second, engines interleaved batch by batch (same seeds)."""
    timers: dict[str, RoundTimer] = {"ours": RoundTimer(ours_round)}
    if rl is not None:
        timers["rlcard"] = RoundTimer(rl.make_round())
    if os_ is not None:
        timers["openspiel"] = RoundTimer(os_.make_round())
    batches = max(1, min(20, args.rounds // 50))
    per_batch = max(1, args.rounds // batches)
    for timer in timers.values():
        timer.play(10**6)  # warm-up
    for b in range(batches):
        seeds = range(b * per_batch, (b + 1) * per_batch)
        for timer in timers.values():
            timer.batch(seeds)

    def rates(key: str) -> list[float] | None:
        timer = timers.get(key)
        return timer.rates if timer else None

    ours = timers["ours"].rates
    row = Row(
        "random rounds / s",
        ours,
        rates("rlcard"),
        rates("openspiel"),
        ours,
        3.0,
        higher_is_better=True,
    )
    decisions = {key: statistics.fmean(t.decisions) for key, t in timers.items()}
    return RoundsOutcome(row, decisions)


def print_report(
    rows: Sequence[Row],
    index_rows: Sequence[Sequence[str]],
    count_rows: Sequence[Sequence[str]],
    decisions: dict[str, float],
    absent: dict[str, str],
) -> None:
    headers = [
        "scenario (µs per call)",
        "ours",
        "RLCard",
        "OpenSpiel",
        "vs RLCard",
        "goal",
        "",
        "ours ÷ OpenSpiel",
    ]
    table: list[list[str]] = []
    for row in rows:
        speedup = row.speedup()
        status = "n/a" if speedup is None else ("PASS" if speedup >= row.goal else "MISS")
        os_cell = fmt_value(row.value(row.openspiel), absent["openspiel"])
        if row.openspiel is not None and row.os_input_differs:
            os_cell += " †"
        table.append(
            [
                row.label,
                fmt_value(row.value(row.ours), ""),
                fmt_value(row.value(row.rlcard), absent["rlcard"]),
                os_cell,
                fmt_ratio(speedup),
                f"≥{row.goal:.0f}×",
                status,
                fmt_ratio(row.distance()),
            ]
        )
    print(render(headers, table))
    print(
        "\nvs RLCard: how many times faster than RLCard we are (the goal); ours ÷ OpenSpiel: "
        "how many\ntimes slower than OpenSpiel's C++ core we are on identical input (the "
        "distance to the\nlimit). Ratios are medians of per-repeat ratios (pairs timed "
        "moments apart)."
    )
    if rows[0].openspiel is not None:
        same = ", ".join(
            f"{r.label.removeprefix('follow ')} {fmt_value(r.value(r.ours_same_as_os), '')}"
            for r in rows
            if r.os_input_differs
        )
        print(
            "† OpenSpiel's landlord must lead before it can follow, so it follows with the "
            "hand minus\n  its lowest card (19 cards); its ratio uses ours timed on the same "
            f"19-card hands (µs):\n  {same}."
        )

    print("\nMoves listed per hand, average (not timed; PASS not counted):")
    print(render(["scenario", "hands", "ours", "RLCard", "ours (19) †", "OpenSpiel †"], count_rows))

    print("\nWhere our time goes: legal_moves on the plain hand vs on a prebuilt HandIndex:")
    print(
        render(
            ["scenario", "plain hand µs", "index reused µs", "index build µs", "share"],
            index_rows,
        )
    )

    print(
        "\nRandom rounds, decisions per round (bids, doubles, plays, passes), average: "
        + ", ".join(f"{key} {value:.1f}" for key, value in decisions.items())
    )


if __name__ == "__main__":
    sys.exit(main())
