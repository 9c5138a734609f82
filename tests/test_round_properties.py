"""Properties of whole rounds played with random legal actions under random rule variants.

Whatever the seed, the variant (bidding, scoring preset, loose wings, four-with-pair, …) and
the choices made: the round ends, the 54 cards stay each in exactly one place (the gifts'
card conservation), every move the engine offers is one it accepts, and the settlement is
zero-sum, follows the scoring formula and serialises to JSON.
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import get_args

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import IllegalActionError
from arena.games.ddz.engine import (
    DECK,
    ComboType,
    Dealt,
    DealtCards,
    EffectApplied,
    Phase,
    Round,
    Rules,
    beats,
    settle,
)
from arena.games.ddz.messages import Role

# Bidding: at most 4 deals (default cap) of at most ~10 bids each. Play: every non-pass play
# takes at least one card out of the 54 (gift hooks only move cards between hands), and at
# most two passes follow a play. So a round needs well under 400 actions.
MAX_STEPS = 400

rules_variants = st.builds(
    Rules,
    scoring=st.sampled_from(["competition", "casual"]),
    bidding=st.sampled_from(["single_round", "until_settled", "grab"]),
    max_redeals=st.integers(0, 3),
    per_defender_doubling=st.sampled_from([None, True, False]),
    loose_wings=st.booleans(),
    four_with_pair=st.booleans(),
    quadplex_as_bomb=st.booleans(),
    max_gift_doubles=st.integers(0, 3),
)


@dataclass(frozen=True)
class Setup:
    """A round's construction plus the seed of the random choices made in it."""

    rules: Rules
    seed: int
    choices: int
    landlord: int | None
    call_score: int | None

    def round(self) -> Round:
        return Round(self.rules, seed=self.seed, landlord=self.landlord, call_score=self.call_score)


@st.composite
def setups(draw: st.DrawFn) -> Setup:
    rules = draw(rules_variants)
    landlord = draw(st.one_of(st.none(), st.integers(0, 2)))
    call_score = draw(st.one_of(st.none(), st.integers(1, 3))) if landlord is not None else None
    return Setup(
        rules=rules,
        seed=draw(st.integers(0, 2**32 - 1)),
        choices=draw(st.integers(0, 2**32 - 1)),
        landlord=landlord,
        call_score=call_score,
    )


def random_action(r: Round, rng: random.Random) -> None:
    """One legal action for the seat to act, chosen at random (passes favoured in bidding)."""
    seat = r.to_act
    assert seat is not None
    if r.phase is Phase.BIDDING:
        bids = r.legal_bids()
        value = 0 if 0 in bids and rng.random() < 0.5 else rng.choice(bids)
        r.bid(seat, value)
    elif r.phase is Phase.DOUBLING:
        r.double(seat, rng.random() < 0.4)
    else:
        move = rng.choice(r.legal_plays())
        if move.is_pass:
            r.pass_turn(seat)
        else:
            r.play(seat, move)


def play_out(
    r: Round, rng: random.Random, after_each: Callable[[Round], None] = lambda r: None
) -> int:
    """Random legal actions until the round ends; returns how many it took."""
    for step in range(MAX_STEPS):
        if r.phase is Phase.FINISHED:
            return step
        random_action(r, rng)
        after_each(r)
    raise AssertionError(f"the round did not end within {MAX_STEPS} actions")


def assert_conserved(r: Round) -> None:
    """Hands, the played pile and (before the landlord takes it) the bottom hold the 54 once."""
    places = [c for hand in r.hands for c in hand] + list(r.played)
    if r.landlord is None:
        places += r.bottom
    assert Counter(places) == Counter(DECK)


# --- the round ends -----------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(setup=setups())
def test_a_round_of_random_legal_actions_always_ends(setup: Setup) -> None:
    r = setup.round()
    play_out(r, random.Random(setup.choices))
    result = r.result
    assert r.phase is Phase.FINISHED
    assert result is not None
    assert r.to_act is None
    assert r.legal_plays() == []
    assert r.legal_bids() == []
    assert r.hand(result.winner_seat) == ()
    assert all(r.hand(s) for s in range(3) if s != result.winner_seat)
    assert result.landlord_won == (result.winner_seat == result.landlord)
    farmers = tuple(s for s in range(3) if s != result.landlord)
    assert result.winners == ((result.landlord,) if result.landlord_won else farmers)
    assert 1 <= result.deals <= setup.rules.max_redeals + 1
    assert len([a for a in r.history if isinstance(a, Dealt)]) == result.deals
    if setup.landlord is not None:
        assert result.landlord == setup.landlord
        assert result.deals == 1
    if setup.call_score is not None:
        assert result.call_score == setup.call_score
    assert result.call_score in (1, 2, 3)
    if setup.rules.bidding == "grab" and setup.landlord is None:
        assert result.call_score == 1
    if result.forced_landlord:
        assert result.deals == setup.rules.max_redeals + 1
        assert result.landlord == result.first_bidder
        assert result.call_score == 1


@settings(max_examples=25, deadline=None)
@given(setup=setups())
def test_the_same_seeds_replay_the_same_round(setup: Setup) -> None:
    first, second = setup.round(), setup.round()
    play_out(first, random.Random(setup.choices))
    play_out(second, random.Random(setup.choices))
    assert first.history == second.history
    assert first.result == second.result


# --- card conservation --------------------------------------------------------------------


@settings(max_examples=120, deadline=None)
@given(setup=setups())
def test_every_card_is_in_exactly_one_place_after_every_action(setup: Setup) -> None:
    r = setup.round()
    assert_conserved(r)
    play_out(r, random.Random(setup.choices), after_each=assert_conserved)
    assert r.result is not None
    assert [len(h) for h in r.result.final_hands] == [len(h) for h in r.hands]


def test_conservation_counts_the_bottom_only_before_the_landlord_takes_it() -> None:
    """Guards the property's own bookkeeping: a bottom counted twice would fail it."""
    r = Round(seed=0, first_bidder=0)
    assert_conserved(r)
    r.bid(0, 3)
    assert len(r.hand(0)) == 20
    assert_conserved(r)


# --- legal moves and play() agree -----------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(setup=setups())
def test_every_legal_move_is_accepted_by_play(setup: Setup) -> None:
    """At a few random points of a round, every offered move (up to 200) is played on a copy."""
    r = setup.round()
    rng = random.Random(setup.choices)
    checked_states = 0
    for _ in range(MAX_STEPS):
        if r.phase is Phase.FINISHED:
            break
        if r.phase is Phase.PLAYING and checked_states < 3 and rng.random() < 0.15:
            checked_states += 1
            seat = r.to_act
            assert seat is not None
            moves = r.legal_moves()
            assert moves or not r.is_leading
            for move in rng.sample(moves, min(len(moves), 200)):
                trial = copy.deepcopy(r)
                played = trial.play(seat, move)
                assert played == move
                assert beats(played, r.last_play, setup.rules)
                assert len(trial.hand(seat)) == len(r.hand(seat)) - len(move.cards)
                assert trial.last_play == move
        random_action(r, rng)


@st.composite
def deals_with_quads(draw: st.DrawFn) -> DealtCards:
    """A shuffled deal in which seats 0 and 1 each hold four of a kind (two different ranks)."""
    first, second = draw(st.lists(st.integers(3, 15), min_size=2, max_size=2, unique=True))
    quads = [[c for c in DECK if c.rank == rank] for rank in (first, second)]
    rest = draw(st.permutations([c for c in DECK if c.rank not in (first, second)]))
    return DealtCards.from_order(quads[0] + rest[:13] + quads[1] + rest[13:])


@settings(max_examples=30, deadline=None)
@given(rules=rules_variants, deal=deals_with_quads(), picks=st.randoms(use_true_random=False))
def test_every_follow_offered_against_a_lead_is_accepted(
    rules: Rules, deal: DealtCards, picks: random.Random
) -> None:
    """Seat 0 leads (every bomb, some four-with-twos, a few others); seat 1's offered replies play.

    Aimed at the follow generator, bomb-like tricks included, where random rounds rarely go.
    """
    base = Round(rules, seed=0, deal=deal, landlord=0, call_score=1)
    while base.phase is Phase.DOUBLING:
        assert base.to_act is not None
        base.double(base.to_act, False)
    leads = base.legal_moves()
    bombs = [m for m in leads if m.type in (ComboType.BOMB, ComboType.ROCKET)]
    quadplexes = [m for m in leads if m.type in QUADPLEX_TYPES]
    others = [m for m in leads if m not in bombs and m not in quadplexes]
    chosen = bombs + picks.sample(quadplexes, min(len(quadplexes), 2))
    chosen += picks.sample(others, min(len(others), 2))
    for lead in chosen:
        trick = copy.deepcopy(base)
        trick.play(0, lead)
        follows = trick.legal_moves()
        for follow in picks.sample(follows, min(len(follows), 25)):
            reply = copy.deepcopy(trick)
            assert reply.play(1, follow) == follow
            assert beats(follow, lead, rules)


QUADPLEX_TYPES = (ComboType.FOUR_WITH_TWO_SINGLES, ComboType.FOUR_WITH_TWO_PAIRS)


# --- settlement ---------------------------------------------------------------------------


@settings(max_examples=150, deadline=None)
@given(setup=setups())
def test_scores_are_zero_sum_and_follow_the_formula(setup: Setup) -> None:
    r = setup.round()
    play_out(r, random.Random(setup.choices))
    result = r.result
    assert result is not None
    assert sum(result.scores) == 0
    spring = result.spring is not None
    assert result.common_exponent == (
        result.bombs + result.rockets + int(spring) + result.grabs + result.gift_doubles
    )
    sign = -1 if result.landlord_won else 1
    farmers = [s for s in range(3) if s != result.landlord]
    assert set(result.exponents) == set(farmers)
    for farmer in farmers:
        extra = result.exponents[farmer] - result.common_exponent
        assert 0 <= extra <= 3
        if not setup.rules.has_doubling_phase:
            assert extra == 0
        assert result.scores[farmer] == sign * result.call_score * 2 ** result.exponents[farmer]
    if not setup.rules.has_doubling_phase:
        stake = result.call_score * 2**result.common_exponent
        assert result.scores[result.landlord] == -2 * sign * stake


@settings(max_examples=150, deadline=None)
@given(setup=setups())
def test_spring_is_reported_exactly_when_its_condition_holds(setup: Setup) -> None:
    r = setup.round()
    play_out(r, random.Random(setup.choices))
    result = r.result
    assert result is not None
    farmers = [s for s in range(3) if s != result.landlord]
    farmers_silent = all(result.plays_by_seat[f] == 0 for f in farmers)
    landlord_once = result.plays_by_seat[result.landlord] == 1
    expected = None
    if result.landlord_won and farmers_silent:
        expected = "spring"
    elif not result.landlord_won and landlord_once:
        expected = "reverse_spring"  # the landlord always makes the first play
    assert result.spring == expected


@settings(max_examples=80, deadline=None)
@given(setup=setups())
def test_the_result_is_json_serialisable(setup: Setup) -> None:
    r = setup.round()
    play_out(r, random.Random(setup.choices))
    assert r.result is not None
    data = r.result.to_dict()
    assert json.loads(json.dumps(data, ensure_ascii=False)) == data
    assert data["scores"] == list(r.result.scores)
    assert data["seed"] == setup.seed
    assert data["winner_side"] == ("landlord" if r.result.landlord_won else "farmer")
    assert data["winner_side"] in get_args(Role)
    assert sorted(data["final_hands"][data["winner_seat"]]) == []


@settings(max_examples=200, deadline=None)
@given(
    rules=rules_variants,
    landlord=st.integers(0, 2),
    call_score=st.integers(1, 3),
    landlord_won=st.booleans(),
    bombs=st.integers(0, 6),
    rockets=st.integers(0, 1),
    spring=st.booleans(),
    grabs=st.integers(0, 3),
    gift_doubles=st.integers(0, 3),
    doubles=st.tuples(st.booleans(), st.booleans()),
    redoubled=st.booleans(),
)
def test_settle_is_always_zero_sum(
    rules: Rules,
    landlord: int,
    call_score: int,
    landlord_won: bool,
    bombs: int,
    rockets: int,
    spring: bool,
    grabs: int,
    gift_doubles: int,
    doubles: tuple[bool, bool],
    redoubled: bool,
) -> None:
    farmers = [s for s in range(3) if s != landlord]
    settlement = settle(
        rules,
        landlord=landlord,
        call_score=call_score,
        landlord_won=landlord_won,
        bombs=bombs,
        rockets=rockets,
        spring=spring,
        grabs=grabs,
        gift_doubles=gift_doubles,
        doubled=dict(zip(farmers, doubles, strict=True)),
        redoubled=redoubled,
    )
    assert sum(settlement.scores) == 0
    landlord_sign = 1 if landlord_won else -1
    assert landlord_sign * settlement.scores[landlord] >= 2 * call_score
    for farmer in farmers:
        assert -landlord_sign * settlement.scores[farmer] >= call_score


# --- gift hooks between actions -----------------------------------------------------------


def random_gift(r: Round, rng: random.Random) -> bool:
    """Try one random gift effect; returns whether it was applied. Refusals change nothing."""
    seats = rng.sample(range(3), 2)
    kind = rng.choice(["swap", "transfer", "double", "bad"])
    before = (r.hands, tuple(r.played), r.gift_doubles, r.effects_applied, len(r.history))
    try:
        if kind == "swap":
            a, b = seats
            r.swap_cards(a, rng.choice(r.hand(a)), b, rng.choice(r.hand(b)))
        elif kind == "transfer":
            source, target = seats
            r.transfer_card(source, target, rng.choice(r.hand(source)))
        elif kind == "double":
            r.add_gift_double()
        else:  # a card that is not in the source hand
            source, target = seats
            r.transfer_card(source, target, rng.choice(r.hand(target)))
    except IllegalActionError:
        assert (r.hands, tuple(r.played), r.gift_doubles, r.effects_applied, len(r.history)) == (
            before
        )
        if kind == "transfer":
            assert len(r.hand(seats[0])) == 1
        elif kind == "double":
            assert r.gift_doubles == r.rules.max_gift_doubles
        else:
            assert kind == "bad"
        return False
    assert kind != "bad"
    assert isinstance(r.history[-1], EffectApplied)
    return True


@settings(max_examples=120, deadline=None)
@given(setup=setups())
def test_random_gift_hooks_between_actions_keep_every_card_once(setup: Setup) -> None:
    r = setup.round()
    rng = random.Random(setup.choices)
    applied = 0

    def maybe_gift(r: Round) -> None:
        nonlocal applied
        assert_conserved(r)
        if r.phase is Phase.PLAYING and rng.random() < 0.3:
            applied += random_gift(r, rng)
            assert_conserved(r)

    play_out(r, rng, after_each=maybe_gift)
    result = r.result
    assert result is not None
    assert result.effects_applied == applied
    assert len([a for a in r.history if isinstance(a, EffectApplied)]) == applied
    assert result.gift_doubles <= setup.rules.max_gift_doubles
    assert sum(result.scores) == 0
