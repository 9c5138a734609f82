"""Tournament ratings (issue 12): one landlord against two farmers, fair to both sides
(equal agents stay equal however often each was landlord), deterministic, and the same
whether reloaded from their dict or recomputed from the stored rounds."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.table import RoundRecord, Table, play_match
from tournaments.ratings import (
    DEFAULT_MU,
    DEFAULT_SIGMA,
    MODEL_NAME,
    Rating,
    Ratings,
    TournamentRatings,
    round_order,
)


def rate_ddz(
    ratings: Ratings,
    landlord: str,
    farmers: tuple[str, str],
    *,
    landlord_won: bool,
    forfeited: tuple[str, ...] = (),
) -> None:
    """A Dou Dizhu round in its own words: the landlord (with the side seat) against the
    two farmers, as :meth:`Ratings.rate_sides` rates it."""
    sides = ((landlord,), farmers) if landlord_won else (farmers, (landlord,))
    ratings.rate_sides(sides, forfeited=forfeited)


def real_rounds() -> list[RoundRecord]:
    """Ten real rounds at one table of scripted agents."""
    agents = [GreedyAgent("Alpha"), HeuristicAgent("Beta"), RandomAgent("Gamma", seed=3)]
    summary = asyncio.run(play_match(Table(agents), rounds=10, seed=12))
    return summary.rounds


def test_an_unrated_agent_has_the_starting_rating() -> None:
    ratings = Ratings()
    assert ratings.rating("Nobody") == Rating(DEFAULT_MU, DEFAULT_SIGMA, 0)
    assert "Nobody" not in ratings
    assert ratings.rating("Nobody").ordinal == pytest.approx(0.0)


def test_a_landlord_who_keeps_winning_rises_above_farmers_who_keep_losing() -> None:
    ratings = Ratings()
    for _ in range(8):
        rate_ddz(ratings, "Lord", ("Farm1", "Farm2"), landlord_won=True)
    lord, farm1, farm2 = (ratings.rating(n) for n in ("Lord", "Farm1", "Farm2"))
    assert lord.mu > DEFAULT_MU > farm1.mu
    assert lord.ordinal > farm1.ordinal
    assert farm1 == farm2  # farmers win and lose together
    assert (lord.rounds, farm1.rounds) == (8, 8)


def test_farmers_who_win_gain_and_their_landlord_loses() -> None:
    ratings = Ratings()
    rate_ddz(ratings, "Lord", ("Farm1", "Farm2"), landlord_won=False)
    assert ratings.rating("Farm1").mu > DEFAULT_MU > ratings.rating("Lord").mu


def test_uncertainty_falls_with_rounds() -> None:
    ratings = Ratings()
    sigmas = []
    for i in range(10):
        rate_ddz(ratings, "A", ("B", "C"), landlord_won=i % 2 == 0)
        sigmas.append(ratings.rating("A").sigma)
    assert sigmas[0] < DEFAULT_SIGMA
    assert all(later < earlier for earlier, later in itertools.pairwise(sigmas))


def test_the_same_rounds_in_the_same_order_give_the_same_numbers() -> None:
    def rate(order: list[bool]) -> dict[str, Rating]:
        ratings = Ratings()
        for won in order:
            rate_ddz(ratings, "A", ("B", "C"), landlord_won=won)
        return {n: ratings.rating(n) for n in ratings}

    order = [True, False, False, True, False]
    assert rate(order) == rate(order)  # deterministic, exactly
    reordered = rate(list(reversed(order)))
    assert reordered != rate(order)  # order matters
    assert {n: r.rounds for n, r in reordered.items()} == {"A": 5, "B": 5, "C": 5}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ABCD"), st.booleans()), min_size=1, max_size=30))
def test_every_round_is_rated_as_openskills_ranked_update_bit_for_bit(
    rounds: list[tuple[str, bool]],
) -> None:
    """Issue 25: rating a round without ranks (openskill's rank sorting left reference
    cycles) changes no number, so stored tournaments rate as they always did."""
    ratings = Ratings()
    params = ratings.params
    model = PlackettLuce(
        mu=params["mu"], sigma=params["sigma"], beta=params["beta"], tau=params["tau"]
    )
    for landlord, won in rounds:
        farmers = tuple(n for n in "ABCD" if n != landlord)[:2]
        names = (landlord, *farmers)
        before = [ratings.rating(n) for n in names]
        seat = ratings.side_seat
        teams = [
            [model.rating(before[0].mu, before[0].sigma), model.rating(seat.mu, seat.sigma)],
            [model.rating(r.mu, r.sigma) for r in before[1:]],
        ]
        (landlord_after, seat_after), farmers_after = model.rate(
            teams, ranks=[1.0, 2.0] if won else [2.0, 1.0]
        )
        rate_ddz(ratings, landlord, (farmers[0], farmers[1]), landlord_won=won)
        expected = [landlord_after, *farmers_after]
        for name, rating in zip(names, expected, strict=True):
            assert (ratings.rating(name).mu, ratings.rating(name).sigma) == (
                rating.mu,
                rating.sigma,
            )
        assert (ratings.side_seat.mu, ratings.side_seat.sigma) == (
            seat_after.mu,
            seat_after.sigma,
        )


def test_a_round_needs_three_distinct_agents() -> None:
    with pytest.raises(ValueError, match="distinct"):
        rate_ddz(Ratings(), "A", ("A", "B"), landlord_won=True)


def test_ratings_survive_json_and_rate_on_as_if_never_stored() -> None:
    records = real_rounds()
    assert {r.result.landlord_won for r in records} == {True, False}  # both sides won
    whole = Ratings.from_rounds(records)

    first = Ratings.from_rounds(records[:4])
    stored = json.loads(json.dumps(first.to_dict()))
    resumed = Ratings.from_dict(stored)
    assert resumed.to_dict() == first.to_dict()
    for record in records[4:]:
        resumed.add_round(record)
    assert resumed.to_dict() == whole.to_dict()  # bit for bit, not approximately
    assert {n: whole.rating(n).rounds for n in whole} == dict.fromkeys(records[0].players, 10)


def test_add_round_rates_the_landlord_against_the_two_farmers() -> None:
    record = real_rounds()[0]
    by_record = Ratings()
    by_record.add_round(record)
    landlord = record.result.landlord
    farmers = [p for s, p in enumerate(record.players) if s != landlord]
    by_hand = Ratings()
    rate_ddz(
        by_hand,
        record.players[landlord],
        (farmers[0], farmers[1]),
        landlord_won=record.result.landlord_won,
    )
    assert by_record.to_dict() == by_hand.to_dict()
    winners = {record.players[s] for s in record.result.winners}
    for name in record.players:
        moved_up = by_record.rating(name).mu > DEFAULT_MU
        assert moved_up == (name in winners)


def test_model_parameters_are_kept_with_the_ratings() -> None:
    ratings = Ratings(mu=30.0, sigma=5.0, beta=2.5, tau=0.1)
    rate_ddz(ratings, "A", ("B", "C"), landlord_won=True)
    data = json.loads(json.dumps(ratings.to_dict()))
    params = {"mu": 30.0, "sigma": 5.0, "beta": 2.5, "tau": 0.1}
    assert data["model"] == {"name": MODEL_NAME, **params}
    assert data["landlord_seat"] == ratings.side_seat.to_dict()
    again = Ratings.from_dict(data)
    assert again.side_seat == ratings.side_seat
    assert again.rating("Newcomer") == Rating(30.0, 5.0, 0)
    rate_ddz(again, "A", ("B", "C"), landlord_won=False)
    rate_ddz(ratings, "A", ("B", "C"), landlord_won=False)
    assert again.to_dict() == ratings.to_dict()
    with pytest.raises(ValueError, match="unknown model"):
        Ratings.from_dict({"model": {"name": "Elo"}, "agents": {}})
    older = {"model": {"name": "PlackettLuce", **params}, "agents": {}}  # no landlord seat
    with pytest.raises(ValueError, match="unknown model"):
        Ratings.from_dict(older)


# ─── fairness: one landlord against two farmers ─────────────────────────────────────────

LANDLORDS = "AAABAACABB"
"""Who is landlord, round after round: A six times in ten, B three times, C once."""

WIN_PATTERNS = {
    "landlords win 2 in 7": "WLLWLLL",
    "landlords win 5 in 11": "WLWLLWLWLWL",
    "landlords win 5 in 9": "WLWWLWLWL",
}
"""Whether the landlord won, round after round: periods prime to LANDLORDS', so over
their common multiple every agent wins as landlord as often as the others do."""

ROUNDS = 330


def equal_agents_rounds(wins: str) -> list[tuple[str, tuple[str, str], bool]]:
    """Three equal agents: the outcome never depends on who sits where."""
    played = []
    for n in range(ROUNDS):
        lord = LANDLORDS[n % len(LANDLORDS)]
        farmers = [a for a in "ABC" if a != lord]
        played.append((lord, (farmers[0], farmers[1]), wins[n % len(wins)] == "W"))
    return played


def summed_one_against_two(rounds: list[tuple[str, tuple[str, str], bool]]) -> dict[str, float]:
    """The plain model, ``[landlord]`` against ``[farmer, farmer]``: the mus it ends with."""
    model = PlackettLuce()
    ratings = {a: model.rating() for a in "ABC"}
    for lord, farmers, landlord_won in rounds:
        teams = [[ratings[lord]], [ratings[f] for f in farmers]]
        (ratings[lord],), (ratings[farmers[0]], ratings[farmers[1]]) = model.rate(
            teams, ranks=[1, 2] if landlord_won else [2, 1]
        )
    return {a: r.mu for a, r in ratings.items()}


@pytest.mark.parametrize("wins", WIN_PATTERNS.values(), ids=WIN_PATTERNS.keys())
def test_equal_agents_stay_close_however_often_each_was_landlord(wins: str) -> None:
    rounds = equal_agents_rounds(wins)
    ratings = Ratings()
    for lord, farmers, landlord_won in rounds:
        rate_ddz(ratings, lord, farmers, landlord_won=landlord_won)
    mus = [ratings.rating(a).mu for a in "ABC"]
    assert max(mus) - min(mus) < 2.0
    assert abs(sum(mus) / 3 - DEFAULT_MU) < 3.0  # the scale stays where it started
    # the bound bites: summing two farmers against one landlord drifts apart, and sinks
    plain = summed_one_against_two(rounds)
    assert max(plain.values()) - min(plain.values()) > 5.0
    assert sum(plain.values()) / 3 < DEFAULT_MU - 5.0


def test_the_landlord_seat_learns_how_often_the_landlords_side_wins() -> None:
    seats = {}
    for name, wins in WIN_PATTERNS.items():
        ratings = Ratings()
        for lord, farmers, landlord_won in equal_agents_rounds(wins):
            rate_ddz(ratings, lord, farmers, landlord_won=landlord_won)
        seats[name] = ratings.side_seat
        assert seats[name].rounds == ROUNDS
        assert seats[name].sigma < DEFAULT_SIGMA / 3
    low, mid, high = (seats[name].mu for name in WIN_PATTERNS)
    assert low < mid < DEFAULT_MU < high  # 29 %, 45 %, 56 % of rounds won by landlords


def test_a_stronger_agent_rises_above_weaker_ones_as_landlord_or_farmer() -> None:
    rng = random.Random(7)
    agents = ["Strong", "Weak1", "Weak2", "Weak3"]
    ratings = Ratings()
    sigmas: list[float] = []
    for n in range(400):
        trio = list(itertools.combinations(agents, 3))[n % 4]
        lord = trio[(n // 4) % 3]
        farmers = [a for a in trio if a != lord]
        if lord == "Strong":
            chance = 0.7
        elif "Strong" in farmers:
            chance = 0.2
        else:
            chance = 0.45
        rate_ddz(ratings, lord, (farmers[0], farmers[1]), landlord_won=rng.random() < chance)
        sigmas.append(ratings.rating("Strong").sigma)
    strong = ratings.rating("Strong")
    weak = [ratings.rating(a) for a in agents[1:]]
    assert strong.mu > max(w.mu for w in weak) + 3.0
    assert strong.ordinal > max(w.ordinal for w in weak)
    # uncertainty falls with rounds (tau keeps it from reaching 0)
    assert DEFAULT_SIGMA > sigmas[10] > sigmas[100] > sigmas[-1] > 0.5
    assert all(w.sigma < DEFAULT_SIGMA / 3 for w in weak)


@settings(max_examples=60, deadline=None)
@given(
    rounds=st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 2), st.booleans()), min_size=1, max_size=40
    )
)
def test_every_round_raises_its_winners_and_lowers_its_losers(
    rounds: list[tuple[int, int, bool]],
) -> None:
    """Whatever came before: the winning side's agents gain, the losing side's lose, and the
    landlord seat moves with the landlord, once per round."""
    agents = ["A", "B", "C", "D"]
    ratings = Ratings()
    for number, (left_out, lord_at, landlord_won) in enumerate(rounds, start=1):
        trio = [a for i, a in enumerate(agents) if i != left_out]
        lord = trio.pop(lord_at)
        before = {a: ratings.rating(a).mu for a in agents}
        seat = ratings.side_seat.mu
        rate_ddz(ratings, lord, (trio[0], trio[1]), landlord_won=landlord_won)
        after = {a: ratings.rating(a).mu for a in agents}
        sign = 1 if landlord_won else -1
        assert sign * (after[lord] - before[lord]) > 0
        assert sign * (ratings.side_seat.mu - seat) > 0
        assert all(-sign * (after[f] - before[f]) > 0 for f in trio)
        assert after[agents[left_out]] == before[agents[left_out]]
        assert ratings.side_seat.rounds == number


# --- the canonical order: ratings a function of the set of rounds (tables play at once)

ROSTER = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")


@pytest.fixture(scope="module")
def templates() -> list[RoundRecord]:
    records = real_rounds()
    assert {r.result.landlord_won for r in records} == {True, False}
    return records


def staged(templates: list[RoundRecord], stages: int = 3, rounds: int = 4) -> list[RoundRecord]:
    """Two tables a stage (no agent in common), ``rounds`` each, in canonical order: real
    rounds' results recast with the stage's seating."""
    records = []
    for stage in range(1, stages + 1):
        turned = ROSTER[stage:] + ROSTER[:stage]
        for index, seats in enumerate((turned[:3], turned[3:]), start=1):
            for round_no in range(1, rounds + 1):
                template = templates[(stage * 7 + index * 3 + round_no) % len(templates)]
                players = (seats[0], seats[1], seats[2])
                records.append(
                    dataclasses.replace(
                        template, table=f"s{stage}t{index}", round_no=round_no, players=players
                    )
                )
    return records


def interleaved(records: list[RoundRecord], rng: random.Random) -> list[RoundRecord]:
    """The rounds as concurrent tables commit them: stage after stage, each table's
    rounds in order, the tables of a stage interleaved at random."""
    arrival: list[RoundRecord] = []
    for _, stage_rounds in itertools.groupby(records, key=lambda r: r.table.split("t")[0]):
        queues = [list(g) for _, g in itertools.groupby(stage_rounds, key=lambda r: r.table)]
        while queues:
            queue = rng.choice(queues)
            arrival.append(queue.pop(0))
            if not queue:
                queues.remove(queue)
    return arrival


def fed(records: list[RoundRecord]) -> TournamentRatings:
    ratings = TournamentRatings()
    for record in records:
        ratings.add_round(record)
    return ratings


def test_round_order_compares_stage_and_table_numbers_and_puts_other_tables_last() -> None:
    ids = ["T1", "s10t1", "s2t10", "s2t2", "s1t1", "T0", "s2t1"]
    assert sorted(ids, key=lambda t: round_order(t, 1)) == [
        "s1t1",
        "s2t1",
        "s2t2",
        "s2t10",
        "s10t1",
        "T0",
        "T1",
    ]
    assert round_order("s2t1", 9) < round_order("s2t1", 10) < round_order("s2t2", 1)


def test_interleaved_arrivals_give_the_same_ratings_once_settled(
    templates: list[RoundRecord],
) -> None:
    records = staged(templates)
    one, other = interleaved(records, random.Random(1)), interleaved(records, random.Random(2))
    assert one != other
    first, second = fed(one), fed(other)
    # the last stage is provisional, in arrival order: openskill's order shows
    assert first.live.to_dict() != second.live.to_dict()
    assert not first.settled
    first.settle()
    second.settle()
    assert first.settled
    assert first.live.to_dict() == second.live.to_dict()  # bit for bit
    assert first.live.to_dict() == Ratings.from_rounds(records).to_dict()  # canonical


def test_from_rounds_is_the_same_whatever_order_it_is_handed(
    templates: list[RoundRecord],
) -> None:
    records = staged(templates)
    shuffled = random.Random(5).sample(records, len(records))
    assert shuffled != records
    in_order = TournamentRatings.from_rounds(records)
    assert TournamentRatings.from_rounds(shuffled).live.to_dict() == in_order.live.to_dict()
    assert in_order.settled
    assert in_order.updates == len(records)  # each rated once
    assert in_order.live.to_dict() == Ratings.from_rounds(records).to_dict()


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), stages=st.integers(1, 4))
def test_any_interleaving_settles_to_the_canonical_ratings_rating_each_round_at_most_twice(
    templates: list[RoundRecord], seed: int, stages: int
) -> None:
    records = staged(templates, stages=stages, rounds=3)
    ratings = fed(interleaved(records, random.Random(seed)))
    ratings.settle()
    assert ratings.live.to_dict() == Ratings.from_rounds(records).to_dict()
    assert len(records) <= ratings.updates <= 2 * len(records)
    assert len(ratings) == len(records)


def test_rounds_arriving_in_canonical_order_are_rated_once(templates: list[RoundRecord]) -> None:
    records = staged(templates)
    ratings = fed(records)
    assert ratings.settled
    ratings.settle()  # nothing to do: it arrived in order
    assert ratings.updates == len(records)


def test_a_later_stage_settles_the_one_before(templates: list[RoundRecord]) -> None:
    records = staged(templates, stages=2)
    first_stage = [r for r in records if r.table.startswith("s1t")]
    reversed_first = list(reversed(first_stage))
    ratings = fed(reversed_first)
    assert not ratings.settled
    assert ratings.updates == len(first_stage)
    ratings.add_round(records[len(first_stage)])  # the second stage's first round
    assert ratings.updates == 2 * len(first_stage) + 1  # stage 1 again, then the new one
    expected = Ratings.from_rounds(records[: len(first_stage) + 1]).to_dict()
    assert ratings.settled
    assert ratings.live.to_dict() == expected


def test_the_live_view_moves_with_every_round(templates: list[RoundRecord]) -> None:
    ratings = TournamentRatings()
    seen = [ratings.live.to_dict()]
    for record in interleaved(staged(templates), random.Random(3)):
        ratings.add_round(record)
        seen.append(ratings.live.to_dict())
    assert all(before != after for before, after in itertools.pairwise(seen))


def test_a_round_of_a_stage_passed_rates_everything_again(templates: list[RoundRecord]) -> None:
    records = staged(templates, stages=3)
    late = records[2]  # a stage-1 round, after stage 3 began
    ratings = fed([r for r in records if r is not late])
    ratings.add_round(late)
    assert ratings.settled
    assert ratings.live.to_dict() == Ratings.from_rounds(records).to_dict()


def test_a_stage_settled_early_takes_more_rounds_of_that_stage(
    templates: list[RoundRecord],
) -> None:
    """settle() mid-stage (a session's end), then more of the same stage."""
    records = staged(templates, stages=1)
    ratings = fed(list(reversed(records[:5])))
    ratings.settle()
    for record in reversed(records[5:]):
        ratings.add_round(record)
    ratings.settle()
    assert ratings.live.to_dict() == Ratings.from_rounds(records).to_dict()


def test_a_copy_of_ratings_rates_on_alone() -> None:
    ratings = Ratings(mu=30.0)
    rate_ddz(ratings, "A", ("B", "C"), landlord_won=True)
    twin = ratings.copy()
    assert twin.to_dict() == ratings.to_dict()
    rate_ddz(twin, "A", ("B", "C"), landlord_won=False)
    assert twin.to_dict() != ratings.to_dict()
    assert ratings.rating("A").rounds == 1


def test_tournament_ratings_refuse_a_round_without_three_distinct_agents(
    templates: list[RoundRecord],
) -> None:
    record = dataclasses.replace(templates[0], players=("A", "A", "B"))
    ratings = TournamentRatings()
    with pytest.raises(ValueError, match="distinct"):
        ratings.add_round(record)
    assert len(ratings) == 0
