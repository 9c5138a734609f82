"""Forfeits (issue 25): a round a seat did not play itself (a stand-in, or fallbacks,
made most of its decisions) is a loss at the round's stakes for that seat, never a win,
in every figure a tournament keeps: points, round wins, ratings, duplicate scores and a
best of five's length. ``standin_rounds = "count"`` keeps the table's scores."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from agents_for_tests import FaultyAgent

from arena.agents import Agent
from arena.games.ddz.agents.scripted import GreedyAgent, HeuristicAgent, RandomAgent
from arena.games.ddz.engine import Rules
from arena.games.ddz.stakes import stake as ddz_stake
from arena.table import RoundRecord, Table, play_match
from tournaments.forfeits import (
    StandinRounds,
    forfeit_reason,
    scored_round,
    stored_standin_rounds,
)
from tournaments.formats import Format, MatchLength
from tournaments.leaderboard import Leaderboard
from tournaments.ratings import TournamentRatings

FORFEIT, COUNT = StandinRounds.FORFEIT, StandinRounds.COUNT
FLO = 1
"""The seat of the agent that crashes on every play request."""


async def _play(rules: Rules, rounds: int, seed: int) -> list[RoundRecord]:
    agents: list[Agent] = [GreedyAgent("Ann"), FaultyAgent("Flo"), HeuristicAgent("Bob")]
    summary = await play_match(
        Table(agents, table_id="s1t1", rules=rules), rounds=rounds, seed=seed
    )
    return list(summary.rounds)


@pytest.fixture(scope="module")
def competition() -> list[RoundRecord]:
    """Real rounds, competition scoring (farmers double on their own), Flo failing."""
    return asyncio.run(_play(Rules.preset("competition"), 12, 3))


@pytest.fixture(scope="module")
def casual() -> list[RoundRecord]:
    return asyncio.run(_play(Rules.preset("casual"), 12, 4))


def with_figures(record: RoundRecord, seat: int, **figures: int) -> RoundRecord:
    """The record with the seat's decision figures replaced (the rest kept)."""
    stats = list(record.stats)
    stats[seat] = {**stats[seat], **figures}
    return dataclasses.replace(record, stats=(stats[0], stats[1], stats[2]))


def test_a_crashing_agent_forfeits_every_round_and_the_others_keep_their_results(
    competition: list[RoundRecord],
) -> None:
    won_anyway = 0
    for record in competition:
        result = record.result
        scored = scored_round(record, FORFEIT)
        assert scored.forfeits[FLO] in ("standin", "fallback")
        assert scored.forfeited == (FLO,)
        # the loss at the round's stakes: what the landlord's side plays for, both
        # farmers' stakes at their own exponents (per-farmer doubling), whatever the
        # seat: the most any seat could lose, so no other seat at the table scored less
        farmers = [seat for seat in range(3) if seat != result.landlord]
        stakes = sum(result.call_score * 2 ** result.exponents[f] for f in farmers)
        assert scored.scores[FLO] == -stakes
        assert scored.scores[FLO] <= min(result.scores)
        if result.landlord != FLO:  # a farmer forfeits more than its own stake
            assert -stakes < -abs(result.scores[FLO])
        won_anyway += result.scores[FLO] > 0
        for seat in (0, 2):  # the others keep their results, and their round wins
            assert scored.scores[seat] == result.scores[seat]
            assert (seat in scored.winners) == (seat in result.winners)
        assert FLO not in scored.winners  # a forfeit is never a win
    assert won_anyway  # the stand-in won some: those are what the forfeit takes away


def test_a_forfeiting_landlord_loses_both_farmers_stakes(competition: list[RoundRecord]) -> None:
    """The landlord forfeits what it would have paid had it lost: the sum of both
    farmers' stakes, each at that farmer's own exponent."""
    record = next(r for r in competition if r.result.landlord_won and FLO not in r.result.winners)
    landlord = record.result.landlord
    forfeited = with_figures(record, landlord, legal_first_try=1, standin_decisions=9)
    scored = scored_round(forfeited, FORFEIT)
    result = record.result
    farmers = [seat for seat in range(3) if seat != landlord]
    stakes = sum(result.call_score * 2 ** result.exponents[f] for f in farmers)
    assert scored.forfeits[landlord] == "standin"
    assert scored.scores[landlord] == -stakes == -result.scores[landlord]
    assert landlord not in scored.winners


def test_casual_scoring_forfeits_2m_whichever_side_the_seat_sat_on(
    casual: list[RoundRecord],
) -> None:
    for record in casual:
        result = record.result
        stake = result.call_score * 2**result.common_exponent  # M: no doubling in casual
        assert result.landlord != FLO  # it never bids: a farmer, forfeiting 2M all the same
        assert scored_round(record, FORFEIT).scores[FLO] == -2 * stake
        landlord = result.landlord
        forfeited = with_figures(record, landlord, legal_first_try=1, standin_decisions=9)
        assert scored_round(forfeited, FORFEIT).scores[landlord] == -2 * stake


def test_an_agent_that_never_plays_ranks_below_every_agent_that_does() -> None:
    """The acceptance review's tournament: an agent that crashes on every message never
    bids (its fallback), so it only ever forfeits as a farmer; at a farmer's own stake it
    ranked above a random agent that played. At the round's stakes it cannot."""
    rounds: list[RoundRecord] = []
    for seed in range(4):
        agents: list[Agent] = [
            RandomAgent("Rand", seed=seed),
            FaultyAgent("Flo"),
            GreedyAgent("Ann"),
        ]
        rounds += asyncio.run(
            play_match(Table(agents, table_id=f"s{seed}t1"), rounds=8, seed=seed)
        ).rounds
    assert all(record.result.landlord != FLO for record in rounds)  # never landlord
    standings = Leaderboard.from_rounds(rounds, standin_rounds=FORFEIT).standings()
    assert standings[-1].name == "Flo"


def test_what_made_most_of_a_seats_decisions_is_the_forfeits_reason(
    competition: list[RoundRecord],
) -> None:
    record = competition[0]
    cases: list[tuple[dict[str, int], Any]] = [
        (dict(legal_first_try=5, legal_after_retry=0, fell_back=3, standin_decisions=2), None),
        (
            dict(legal_first_try=2, legal_after_retry=2, fell_back=4, standin_decisions=1),
            "fallback",
        ),
        (dict(legal_first_try=0, legal_after_retry=1, fell_back=3, standin_decisions=3), "standin"),
        (dict(legal_first_try=0, legal_after_retry=0, fell_back=0, standin_decisions=0), None),
    ]
    for figures, reason in cases:
        figures["decisions"] = figures["legal_first_try"] + figures["legal_after_retry"]
        figures["decisions"] += figures["fell_back"]
        assert forfeit_reason(with_figures(record, 0, **figures), 0) == reason, figures
    bare = dataclasses.replace(record, stats=({}, {}, {}), standins=(2,))  # no figures
    assert [forfeit_reason(bare, seat) for seat in range(3)] == [None, None, "standin"]


def test_count_keeps_every_round_as_the_table_scored_it(competition: list[RoundRecord]) -> None:
    for record in competition:
        scored = scored_round(record, COUNT)
        assert scored.scores == record.result.scores
        assert scored.winners == record.result.winners
        assert scored.forfeited == ()


def test_the_leaderboard_counts_forfeits_per_agent_in_every_figure(
    competition: list[RoundRecord],
) -> None:
    forfeit = Leaderboard.from_rounds(competition, standin_rounds=FORFEIT)
    count = Leaderboard.from_rounds(competition, standin_rounds=COUNT)
    flo = {a["name"]: a for a in forfeit.to_dict()["agents"]}["Flo"]
    counted = {a["name"]: a for a in count.to_dict()["agents"]}["Flo"]
    reasons = [scored_round(r, FORFEIT).forfeits[FLO] for r in competition]
    assert flo["forfeits"] == len(competition) == counted["rounds"]
    assert flo["forfeits_standin"] == reasons.count("standin") > 0
    assert flo["forfeits_fallback"] == reasons.count("fallback") > 0
    assert flo["points"] == -sum(ddz_stake(r.result) for r in competition)
    assert flo["round_wins"] == flo["farmer_wins"] == flo["landlord_wins"] == 0
    assert counted["round_wins"] > 0
    assert counted["forfeits"] == 0
    assert counted["points"] == sum(r.result.scores[FLO] for r in competition) > flo["points"]
    assert forfeit.to_dict()["standin_rounds"] == "forfeit"
    assert count.to_dict()["standin_rounds"] == "count"
    assert forfeit.standings()[-1].name == "Flo"
    assert flo["mu"] < counted["mu"]  # rated as having lost every round
    header = forfeit.to_csv().splitlines()[0].split(",")
    assert {"forfeits", "forfeits_standin", "forfeits_fallback"} <= set(header)
    assert "Forfeits" in [column.header for column in forfeit.render().columns]


def test_a_forfeiting_winner_is_rated_as_having_lost_and_the_others_as_it_went(
    competition: list[RoundRecord],
) -> None:
    record = next(r for r in competition if r.result.landlord_won and FLO not in r.result.winners)
    landlord = record.result.landlord
    played = with_figures(record, FLO, legal_first_try=9, fell_back=0, standin_decisions=0)
    played = with_figures(played, landlord, legal_first_try=0, standin_decisions=9)
    rated = TournamentRatings.from_rounds([played], standin_rounds=FORFEIT).live
    as_counted = TournamentRatings.from_rounds([played], standin_rounds=COUNT).live
    names = record.players
    assert rated.rating(names[landlord]).mu < 25.0 < as_counted.rating(names[landlord]).mu
    for seat in range(3):
        if seat != landlord:  # the farmers lost, and are rated so either way
            assert rated.rating(names[seat]) == as_counted.rating(names[seat])
    assert rated.side_seat == as_counted.side_seat  # the landlord's side did win
    assert scored_round(played, FORFEIT).forfeited == (landlord,)


def test_a_duplicate_deal_compares_the_forfeit_scores(competition: list[RoundRecord]) -> None:
    """Three seatings of one deal (the same agents): the deal totals are the points the
    tournament counts, each forfeit a loss."""
    deal = [
        dataclasses.replace(record, table=f"s1t1.{n}", round_no=1)
        for n, record in enumerate(competition[:3], start=1)
    ]
    board = Leaderboard.from_rounds(deal, seatings=3, standin_rounds=FORFEIT)
    agents = {a["name"]: a for a in board.to_dict()["agents"]}
    for name in ("Ann", "Flo", "Bob"):
        seat = deal[0].players.index(name)
        assert agents[name]["deal_points"] == sum(
            scored_round(r, FORFEIT).scores[seat] for r in deal
        )
    assert agents["Flo"]["deal_points"] == -sum(ddz_stake(r.result) for r in deal)
    counted = Leaderboard.from_rounds(deal, seatings=3, standin_rounds=COUNT).to_dict()
    flo_counted = {a["name"]: a for a in counted["agents"]}["Flo"]
    assert flo_counted["deal_points"] > agents["Flo"]["deal_points"]  # a win taken away


def test_a_best_of_five_is_not_ended_by_a_forfeiting_agents_wins(
    competition: list[RoundRecord],
) -> None:
    """Flo's side won three rounds, twice with Ann and once with Bob: Flo's three wins
    end the match only if the stand-in's wins count."""
    with_ann = [r for r in competition if r.result.winners == (0, FLO)]
    with_bob = [r for r in competition if r.result.winners == (FLO, 2)]
    rounds = [*with_ann[:2], with_bob[0]]
    assert len(rounds) == 3
    assert not MatchLength.of(Format.QUICK, standin_rounds=COUNT).goes_on_after(rounds)
    assert MatchLength.of(Format.QUICK, standin_rounds=FORFEIT).goes_on_after(rounds)
    assert not MatchLength.of(Format.QUICK, standin_rounds=FORFEIT).goes_on_after(
        competition[:5]  # five rounds end it anyway
    )


def test_a_stored_config_without_the_setting_counts_as_it_was_played() -> None:
    assert stored_standin_rounds({"tournament": {"name": "old"}}) is COUNT
    assert stored_standin_rounds({"tournament": {"standin_rounds": "forfeit"}}) is FORFEIT
