"""A round of Tractor as a state machine (docs/rules-tractor.md "A round"): the deal, the
kitty, plays and refusals, throws punished at the table, what each seat may see, and
properties of every round: the 108 cards each in one place in every state, 200 points,
an end, and the same round again from its seed and actions.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tractor_cards import cards, deal

from arena.errors import IllegalActionError
from arena.games.tractor.engine import (
    DECK,
    POINTS,
    BuryAction,
    DeclareAction,
    Kind,
    Phase,
    PlayAction,
    Round,
    RoundEnded,
    ThrowPunished,
    TractorRules,
    TrickWon,
    fill_follow,
    play_match,
    play_random_round,
    random_lead,
    seat_view,
    team_of,
)


def places(round_: Round) -> Counter[int]:
    """Where every card is now: hands, the kitty until taken, buried, played."""
    found: Counter[int] = Counter()
    for hand in round_.hands:
        found.update(hand)
    if round_.phase is Phase.DECLARING:
        found.update(round_.kitty)
    found.update(round_.buried)
    for _, played in round_.played:
        found.update(played)
    return found


def assert_each_card_once(round_: Round) -> None:
    assert places(round_) == Counter(DECK)


def assert_views_hide_what_seats_may_not_know(round_: Round) -> None:
    """Every card in a seat's view is its own (dealt to it so far), played, declared in
    public, or the kitty and buried cards for the banker (the buried for all at the end)."""
    played = {c for _, cs in round_.played for c in cs}
    declared = set(round_.declaring.best.cards) if round_.declaring.best else set()
    for seat in range(round_.players):
        view = seat_view(round_, seat)
        allowed = set(round_.revealed(seat)) | played | declared
        if seat == round_.banker and round_.phase is not Phase.DECLARING:
            allowed |= set(round_.kitty) | set(round_.buried)
        if round_.phase is Phase.FINISHED:
            allowed |= set(round_.buried)
        seen = {*view.hand, *(view.kitty or ()), *(view.buried or ())}
        seen |= {c for _, cs in (*view.trick, *view.played) for c in cs}
        seen |= set(view.candidate.cards) if view.candidate else set()
        assert seen <= allowed, (seat, seen - allowed)


def step(round_: Round, rng: random.Random) -> None:
    """One random legal action."""
    if round_.phase is Phase.DECLARING:
        replies = {}
        for asked in range(round_.players):
            options = round_.declaration_options(asked)
            if options and rng.random() < 0.4:
                replies[asked] = rng.choice(options).cards
        round_.declare(replies)
    elif round_.phase is Phase.BURYING:
        assert round_.banker is not None
        round_.bury(rng.sample(round_.hands[round_.banker], len(round_.kitty)))
    else:
        seat = round_.to_act
        assert seat is not None
        assert round_.trump is not None
        hand = round_.hands[seat]
        if round_.lead is None:
            round_.play(seat, random_lead(hand, round_.trump, rng))
        else:
            round_.play(seat, fill_follow(hand, round_.lead, round_.trump, rng))


def replay(round_: Round) -> Round:
    again = Round(round_.rules, seed=round_.seed, levels=round_.levels)
    for action in round_.actions:
        if isinstance(action, DeclareAction):
            again.declare(action.replies)
        elif isinstance(action, BuryAction):
            again.bury(action.cards)
        elif isinstance(action, PlayAction):
            again.play(action.seat, action.cards)
    return again


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([4, 6]),
    steps=st.sampled_from([1, 1, 4]),
)
def test_every_round_ends_keeps_each_card_in_one_place_hides_hands_counts_200_and_replays(
    seed: int, players: int, steps: int
) -> None:
    round_ = Round(
        TractorRules.model_validate({"players": players, "deal_steps": steps}), seed=seed
    )
    rng = random.Random(seed)
    assert_each_card_once(round_)
    for _ in range(1000):
        if round_.phase is Phase.FINISHED:
            break
        step(round_, rng)
        assert_each_card_once(round_)
        if rng.random() < 0.1:
            assert_views_hide_what_seats_may_not_know(round_)
    assert_views_hide_what_seats_may_not_know(round_)
    assert round_.phase is Phase.FINISHED
    assert round_.result is not None
    won = [e for e in round_.events if isinstance(e, TrickWon)]
    assert sum(e.points for e in won) + sum(POINTS[c] for c in round_.buried) == 200
    assert round_.trick_points == sum(e.points for e in won if e.counted)
    result = round_.result
    assert result.kitty_points == sum(POINTS[c] for c in round_.buried)
    assert result.defender_points == result.trick_points + result.kitty_points * result.multiplier
    again = replay(round_)
    assert again.events == round_.events
    assert again.result == round_.result


@settings(max_examples=4, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    players=st.sampled_from([4, 6]),
    play_through=st.booleans(),
)
def test_every_match_ends_with_a_team_at_a(seed: int, players: int, play_through: bool) -> None:
    rules = TractorRules.model_validate({"players": players, "play_through": play_through})
    match = play_match(rules, seed=seed)
    assert match.over
    assert match.winner is not None
    assert match.levels[match.winner] == 14
    assert play_match(rules, seed=seed).scores == match.scores


def test_a_round_limit_ends_a_match_early() -> None:
    match = play_match(TractorRules(round_limit=2), seed=5)
    assert match.over
    assert len(match.scores) <= 2


# --- the kitty ---------------------------------------------------------------------------


def locked(seed: int = 11, rules: TractorRules | None = None) -> Round:
    round_ = Round(rules or TractorRules(), seed=seed)
    round_.declare({})
    return round_


def test_the_banker_takes_the_kitty_and_buries_as_many_of_any_cards() -> None:
    round_ = locked()
    banker = round_.banker
    assert banker is not None
    assert len(round_.hands[banker]) == 33
    assert set(round_.kitty) <= set(round_.hands[banker])
    with pytest.raises(IllegalActionError, match="exactly 8"):
        round_.bury(round_.hands[banker][:7])
    other = round_.hands[(banker + 1) % 4][:8]
    with pytest.raises(IllegalActionError, match="of your hand"):
        round_.bury(other)
    points = sorted(round_.hands[banker], key=lambda c: -POINTS[c])[:8]
    round_.bury(points)  # points may be buried
    assert len(round_.hands[banker]) == 25
    assert round_.buried == tuple(points)
    assert round_.phase is Phase.PLAYING
    assert round_.to_act == banker


def test_each_seat_sees_its_hand_counts_and_plays_and_only_the_banker_the_kitty() -> None:
    round_ = locked()
    banker = round_.banker
    assert banker is not None
    round_.bury(round_.hands[banker][:8])
    rng = random.Random(2)
    for _ in range(30):
        step(round_, rng)
    for seat in range(4):
        view = seat_view(round_, seat)
        assert set(view.hand) == set(round_.hands[seat])
        assert view.counts == tuple(len(h) for h in round_.hands)
        assert (view.kitty is not None) == (seat == banker)
        assert (view.buried is not None) == (seat == banker)
        played = {c for _, cs in view.played for c in cs}
        known = set(view.hand) | played | set(view.kitty or ()) | set(view.buried or ())
        hidden = {c for s, h in enumerate(round_.hands) if s != seat for c in h}
        assert not known & hidden - (set(round_.kitty) if seat == banker else set())
    while round_.phase is not Phase.FINISHED:
        step(round_, rng)
    assert all(seat_view(round_, s).buried == round_.buried for s in range(4))


def test_while_declaring_a_seat_sees_only_the_cards_dealt_so_far() -> None:
    round_ = Round(TractorRules(deal_steps=5), seed=3)
    view = seat_view(round_, 2)
    assert view.hand == round_.revealed(2)
    assert len(view.hand) == 5
    assert view.kitty is None
    assert view.counts == (5, 5, 5, 5)


# --- playing -----------------------------------------------------------------------------


def test_a_refused_play_says_why_and_changes_nothing() -> None:
    round_ = locked()
    banker = round_.banker
    assert banker is not None
    assert round_.trump is not None
    round_.bury(round_.hands[banker][:8])
    other = (banker + 1) % 4
    with pytest.raises(IllegalActionError, match="turn"):
        round_.play(other, round_.hands[other][:1])
    hand = round_.hands[banker]
    groups = {round_.trump.group[c]: c for c in hand}
    with pytest.raises(IllegalActionError, match="one suit group"):
        round_.play(banker, list(groups.values())[:2])
    assert round_.actions[-1] == BuryAction(round_.buried)
    lead = random_lead(hand, round_.trump, random.Random(0))
    round_.play(banker, lead)
    rule = round_.follow_rule()
    assert rule is not None
    assert seat_view(round_, other).follow == rule
    assert seat_view(round_, banker).follow is None


def test_a_throw_that_does_not_stand_is_played_as_its_lowest_single() -> None:
    # level 2, nobody declares (no-trump); seat 0 throws ♥A ♥A ♥Q, seat 1 holds ♥K
    hands = deal({0: "♥A ♥A ♥Q ♣3", 1: "♥K ♥3", 2: "♥J", 3: "♥4"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury(round_.hands[0][-8:])
    throw = cards("♥A ♥A ♥Q")
    events = round_.play(0, throw)
    punished = [e for e in events if isinstance(e, ThrowPunished)]
    assert len(punished) == 1
    assert punished[0].original == throw
    assert punished[0].punished == (cards("♥Q")[0],)
    assert "single" in punished[0].reason
    assert round_.lead is not None
    assert round_.lead.kind is Kind.SINGLE
    assert set(cards("♥A ♥A")) <= set(round_.hands[0])  # the rest returns to the hand


def test_a_partners_higher_card_does_not_make_a_throw_fail() -> None:
    hands = deal({0: "♥A ♥A ♥Q ♣3", 2: "♥K ♥K ♥3", 1: "♥J", 3: "♥4"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury([c for c in round_.hands[0] if c not in cards("♥A ♥A ♥Q")][-8:])
    events = round_.play(0, cards("♥A ♥A ♥Q"))
    assert not any(isinstance(e, ThrowPunished) for e in events)


def test_six_players_judge_a_throw_against_all_three_opponents() -> None:
    rules = TractorRules(players=6)
    hands = deal({0: "♥A ♥A ♥Q", 2: "♥K", 4: "♥K", 5: "♥3"}, players=6, avoid_rank=2)
    round_ = Round(rules, seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury([c for c in round_.hands[0] if c not in cards("♥A ♥A ♥Q")][-12:])
    assert not any(isinstance(e, ThrowPunished) for e in round_.play(0, cards("♥A ♥A ♥Q")))
    hands = deal({0: "♥A ♥A ♥Q", 2: "♥3", 4: "♥4", 5: "♥K"}, players=6, avoid_rank=2)
    round_ = Round(rules, seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury([c for c in round_.hands[0] if c not in cards("♥A ♥A ♥Q")][-12:])
    assert any(isinstance(e, ThrowPunished) for e in round_.play(0, cards("♥A ♥A ♥Q")))


def test_a_throw_that_stands_is_played_whole() -> None:
    hands = deal({0: "♥A ♥A ♥K ♣3", 1: "♥Q ♥3", 2: "♥K ♥J", 3: "♥4"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury([c for c in round_.hands[0] if c not in cards("♥A ♥A ♥K")][-8:])
    events = round_.play(0, cards("♥A ♥A ♥K"))
    assert not any(isinstance(e, ThrowPunished) for e in events)
    assert round_.lead is not None
    assert round_.lead.kind is Kind.THROW


def keep_a_pair_for_last(round_: Round, rng: random.Random) -> None:
    """Play a round where leaders lead singles off their pairs, then the last pair."""
    round_.declare({})
    assert round_.banker is not None
    assert round_.trump is not None
    round_.bury(round_.hands[round_.banker][:8])
    while round_.phase is Phase.PLAYING:
        seat = round_.to_act
        assert seat is not None
        hand = round_.hands[seat]
        if round_.lead is not None:
            round_.play(seat, fill_follow(hand, round_.lead, round_.trump, rng))
            continue
        faces = Counter(c % 54 for c in hand)
        loose = [c for c in hand if faces[c % 54] == 1]
        if len(hand) == 2 and not loose:
            round_.play(seat, hand[:])
        else:
            round_.play(seat, [rng.choice(loose or hand)])


def test_a_kill_with_a_pair_quadruples_the_kitty_in_a_played_round() -> None:
    kills = 0
    for seed in range(300):
        round_ = Round(seed=seed)
        keep_a_pair_for_last(round_, random.Random(seed))
        result = round_.result
        assert result is not None
        last_lead = round_.played[-4][1]
        if result.multiplier == 4:
            assert len(last_lead) == 2
            assert last_lead[0] % 54 == last_lead[1] % 54
            assert result.defender_points == result.trick_points + 4 * result.kitty_points
            kills += 1
            if kills == 2:
                break
        elif result.multiplier == 2:
            assert len(last_lead) == 1 or last_lead[0] % 54 != last_lead[1] % 54
    assert kills >= 2


def test_six_players_deal_16_cards_and_12_to_the_kitty_teams_by_parity() -> None:
    round_ = Round(TractorRules(players=6), seed=4)
    assert [len(h) for h in round_.hands] == [16] * 6
    assert len(round_.kitty) == 12
    play_random_round(round_, random.Random(4))
    result = round_.result
    assert result is not None
    ended = round_.events[-1]
    assert isinstance(ended, RoundEnded)
    assert ended.kitty == round_.buried
    assert team_of(4) == team_of(0) != team_of(3)


def test_a_no_trump_round_plays_to_its_end() -> None:
    round_ = locked(seed=21)
    assert round_.trump is not None
    assert round_.trump.suit is None
    play_random_round(round_, random.Random(21))
    assert round_.phase is Phase.FINISHED


def test_the_fallback_is_always_legal_and_plays_a_round_to_its_end() -> None:
    round_ = Round(TractorRules(players=6), seed=9)
    assert round_.fallback() == ()
    round_.declare({})
    while round_.phase is Phase.BURYING or round_.phase is Phase.PLAYING:
        seat = round_.to_act
        assert seat is not None
        play = round_.fallback()
        if round_.phase is Phase.BURYING:
            round_.bury(play)
        else:
            assert round_.refusal(seat, play) is None
            round_.play(seat, play)
    assert round_.result is not None


def test_an_agent_may_name_faces_and_gets_copies_of_its_hand() -> None:
    hands = deal({0: "♥A ♥A ♥K"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    assert set(round_.resolve(0, ["♥A", "HA", "kh"])) == set(cards("♥A ♥A ♥K"))


def test_the_code_of_the_docs_runs() -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "rules-tractor.md").read_text(
        encoding="utf-8"
    )
    code = text.split("```python\n")[1].split("```")[0]
    exec(compile(code, "rules-tractor.md", "exec"), {"print": lambda *_: None})


def test_each_decision_is_stated_in_a_sentence_for_requests() -> None:
    round_ = Round(seed=12)
    assert round_.requirement(0).startswith("declare trump with a level card (2)")
    round_.declare({})
    banker = round_.banker
    assert banker is not None
    assert round_.requirement(banker) == "bury 8 cards of your hand"
    assert round_.requirement((banker + 1) % 4) == ""
    round_.bury(round_.fallback())
    assert round_.requirement(banker).startswith("lead any single, pair or tractor")
    round_.play(banker, round_.fallback())
    rule = round_.follow_rule()
    assert rule is not None
    assert round_.requirement((banker + 1) % 4) == rule.describe()
