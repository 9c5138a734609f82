"""Tournaments of whichever game plays (issue 26): tables of the game's seat count, and
sides from the game, so schedules, ratings, duplicate seatings and the leaderboard are
not written for three seats. Games of four and six seats in two teams by seat parity
(``tests/fake_games.py``, as Tractor's) stand for the games to come."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from fake_games import FOUR, SIX, TeamResult, registered, team_record
from openskill.models import PlackettLuce

from arena.errors import ConfigError
from arena.games.base import Game, GameRules
from tournaments.config import TournamentConfig, parse_tournament_config
from tournaments.deals import Duplicate, seating_count, seatings
from tournaments.forfeits import StandinRounds, scored_round
from tournaments.leaderboard import Leaderboard
from tournaments.ratings import Ratings, TournamentRatings
from tournaments.runner import planned_rounds
from tournaments.schedule import (
    FinishedTable,
    ScheduleKind,
    Table,
    default_kind,
    default_stages,
    meetings,
    plan_stage,
    seat_counts,
)
from tournaments.store import TournamentStore, round_record, stored_seat_count
from tournaments.stored_check import result_problems

GAMES = pytest.mark.parametrize("game", [FOUR, SIX], ids=["four", "six"])


def roster(n: int) -> list[str]:
    return [f"agent{i:02}" for i in range(n)]


def played(kind: ScheduleKind, names: Sequence[str], stages: int, size: int) -> list[list[Table]]:
    """Stages planned one after another, each from those before it (made-up points)."""
    rng = random.Random(9)
    history: list[FinishedTable] = []
    planned = []
    for stage_no in range(1, stages + 1):
        tables = plan_stage(kind, stage_no, names, history, 11, size=size)
        planned.append(tables)
        for table in tables:
            points = tuple(rng.randint(-9, 9) for _ in table.players)
            history.append(FinishedTable(stage_no, table.players, points))
    return planned


# ─── schedules ───────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("game", "n"),
    [(FOUR, 4), (FOUR, 5), (FOUR, 6), (SIX, 6), (SIX, 7)],
    ids=["four-4", "four-5", "four-6", "six-6", "six-7"],
)
def test_a_round_robin_seats_tables_of_the_games_size_with_balanced_seats(
    game: Game, n: int
) -> None:
    size = game.seat_count()
    assert default_kind(n, size=size) is ScheduleKind.ROUND_ROBIN  # at most 20 tables
    names = roster(n)
    stages = played(ScheduleKind.ROUND_ROBIN, names, default_stages(n, size=size), size)
    tables = [table for stage in stages for table in stage]
    assert all(len(table.players) == size for table in tables)
    groups = Counter(frozenset(table.players) for table in tables)
    assert set(groups) == {frozenset(g) for g in itertools.combinations(names, size)}
    assert set(groups.values()) == {1}  # every group of the table's size once
    assert all(len({p for t in stage for p in t.players}) == size * len(stage) for stage in stages)
    counts = seat_counts(tables)
    assert all(len(c) == size for c in counts.values())
    assert max(max(c) - min(c) for c in counts.values()) <= 1


@GAMES
@pytest.mark.parametrize("n", [9, 14, 20])
def test_swiss_seats_tables_of_the_games_size_and_sits_out_the_rest(game: Game, n: int) -> None:
    size = game.seat_count()
    assert default_kind(n, size=size) is ScheduleKind.SWISS
    stages = played(ScheduleKind.SWISS, roster(n), 6, size)
    for stage in stages:
        assert len(stage) == n // size  # n % size sit out
        assert all(len(table.players) == size for table in stage)
        seated = [p for table in stage for p in table.players]
        assert len(seated) == len(set(seated))
    tables = [table for stage in stages for table in stage]
    counts = seat_counts(tables)
    assert max(max(c) - min(c) for c in counts.values()) <= 2
    played_counts = Counter(p for table in tables for p in table.players)
    assert max(played_counts.values()) - min(played_counts.values()) <= 1
    met = meetings(tables)
    pairs = [met.get(pair, 0) for pair in itertools.combinations(sorted(roster(n)), 2)]
    assert max(pairs) - min(pairs) <= 4  # six seats meet five others a table: many repeats


def test_a_roster_smaller_than_a_table_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 4 agents, not 3"):
        plan_stage(ScheduleKind.ROUND_ROBIN, 1, roster(3), [], 1, size=4)
    assert default_stages(4, size=4) == 1  # one table of four: one match
    assert default_stages(6, size=6) == 1


# ─── duplicate seatings ──────────────────────────────────────────────────────────────


@GAMES
def test_rotations_seat_each_player_once_in_each_seat_keeping_the_teams(game: Game) -> None:
    size = game.seat_count()
    players = tuple(roster(size))
    orders = seatings(players, Duplicate.ROTATIONS)
    assert len(orders) == seating_count(Duplicate.ROTATIONS, size) == size
    assert orders[0] == players
    for seat in range(size):
        assert sorted(order[seat] for order in orders) == sorted(players)

    def teams(order: tuple[str, ...]) -> set[frozenset[str]]:
        return {frozenset(order[0::2]), frozenset(order[1::2])}

    assert all(teams(order) == teams(players) for order in orders)  # partners stay partners


def test_all_is_every_order_of_a_table_of_four_rotations_first() -> None:
    orders = seatings(("A", "B", "C", "D"), Duplicate.ALL)
    assert len(orders) == len(set(orders)) == seating_count(Duplicate.ALL, 4) == 24
    assert orders[:4] == seatings(("A", "B", "C", "D"), Duplicate.ROTATIONS)


# ─── ratings: sides from the game ────────────────────────────────────────────────────


def model_of(ratings: Ratings) -> PlackettLuce:
    """openskill's model with the ratings' parameters: what they are checked against."""
    p = ratings.params
    return PlackettLuce(mu=p["mu"], sigma=p["sigma"], beta=p["beta"], tau=p["tau"])


def test_equal_teams_are_rated_team_against_team_without_the_side_seat() -> None:
    ratings = Ratings()
    model = model_of(ratings)
    ratings.rate_sides((("A", "C"), ("B", "D")))
    fresh = model.rating
    (a, c), (b, d) = model.rate([[fresh(), fresh()], [fresh(), fresh()]])
    for name, expected in zip("ACBD", (a, c, b, d), strict=True):
        assert (ratings.rating(name).mu, ratings.rating(name).sigma) == (
            expected.mu,
            expected.sigma,
        )
    assert ratings.side_seat == Ratings().side_seat  # no smaller side: the seat never plays
    assert ratings.side_seat.rounds == 0


def test_a_lone_side_is_joined_by_the_side_seat() -> None:
    ratings = Ratings()
    model = model_of(ratings)
    ratings.rate_sides((("B", "C", "D"), ("A",)))
    fresh = model.rating
    (b, c, d), (a, seat) = model.rate([[fresh(), fresh(), fresh()], [fresh(), fresh()]])
    assert [ratings.rating(n).mu for n in "ABCD"] == [a.mu, b.mu, c.mu, d.mu]
    assert (ratings.side_seat.mu, ratings.side_seat.rounds) == (seat.mu, 1)


def test_a_two_team_games_rounds_are_rated_from_its_sides() -> None:
    rounds = [
        team_record("s1t1", k, ("A", "B", "C", "D"), won_by_even=k % 3 != 0) for k in range(1, 9)
    ]
    by_game = TournamentRatings.from_rounds(rounds, game=FOUR).live
    by_hand = Ratings()
    for record in rounds:
        even, odd = ("A", "C"), ("B", "D")
        by_hand.rate_sides((even, odd) if 0 in record.result.winners else (odd, even))
    assert by_game.to_dict() == by_hand.to_dict()
    assert by_game.rating("A").mu > by_game.rating("B").mu  # A and C won more often
    assert by_game.rating("A") == by_game.rating("C")  # partners rise and fall together


# ─── the leaderboard ─────────────────────────────────────────────────────────────────


def test_a_team_games_board_credits_both_partners_and_has_no_smaller_side() -> None:
    names = ("A", "B", "C", "D")
    rounds = [team_record("s1t1", k, names, won_by_even=k != 3) for k in range(1, 5)]
    board = Leaderboard.from_rounds(rounds, names=names, game=FOUR)
    agents = {a["name"]: a for a in board.to_dict()["agents"]}
    assert agents["A"]["round_wins"] == agents["C"]["round_wins"] == 3
    assert agents["B"]["round_wins"] == agents["D"]["round_wins"] == 1
    assert agents["A"]["points"] == 4  # 3 wins and 1 loss of 2 points
    ddz_keys = {"landlord_rounds", "farmer_rounds", "springs", "bombs_played"}
    assert not ddz_keys & set(agents["A"])  # none of Dou Dizhu's figures
    assert list(agents["A"])[8:10] == ["round_wins", "faults"]
    assert board.to_dict()["landlord_seat"]["rounds"] == 0
    assert [a["name"] for a in board.to_dict()["agents"]][:2] == ["A", "C"]


class Levels:
    """A game's own figures, as Tractor's could be: levels gained by the winners."""

    keys = ("levels_gained", "rounds_declaring")
    headers = ("Levels", "Declared")

    def count(self, result: TeamResult, seat: int, won: bool) -> dict[str, int]:
        return {"levels_gained": 2 * won, "rounds_declaring": seat == 0}

    def cells(self, counts: Mapping[str, int]) -> tuple[str, ...]:
        return (str(counts["levels_gained"]), str(counts["rounds_declaring"]))


def test_a_games_own_figures_are_counted_listed_and_shown() -> None:
    game = dataclasses.replace(FOUR, leaderboard_stats=Levels)
    names = ("A", "B", "C", "D")
    rounds = [team_record("s1t1", k, names, won_by_even=k != 3) for k in range(1, 5)]
    board = Leaderboard.from_rounds(rounds, names=(*names, "E"), game=game)
    agents = {a["name"]: a for a in board.to_dict()["agents"]}
    assert list(agents["A"])[8:11] == ["round_wins", "levels_gained", "rounds_declaring"]
    assert (agents["A"]["levels_gained"], agents["B"]["levels_gained"]) == (6, 2)
    assert (agents["A"]["rounds_declaring"], agents["C"]["rounds_declaring"]) == (4, 0)
    assert agents["E"]["levels_gained"] == 0  # yet to play: zeros
    header = board.to_csv().splitlines()[0].split(",")
    assert header[header.index("round_wins") + 1] == "levels_gained"
    columns = [column.header for column in board.render().columns]
    assert columns[columns.index("Wins") + 1 : columns.index("Faults")] == ["Levels", "Declared"]
    row = {c.header: next(iter(c.cells)) for c in board.render().columns}
    assert (row["Agent"], row["Levels"], row["Declared"]) == ("A", "6", "4")


def test_a_games_figures_may_not_take_the_name_of_every_games() -> None:
    class Clashing(Levels):
        keys = ("levels_gained", "faults")

    with pytest.raises(ValueError, match=r"take the names of others: \['faults'\]"):
        Leaderboard(game=dataclasses.replace(FOUR, leaderboard_stats=Clashing))


def test_a_team_games_forfeit_loses_the_stakes_its_game_tells() -> None:
    game = dataclasses.replace(FOUR, forfeit_stake=lambda result: 10)
    names = ("A", "B", "C", "D")
    record = dataclasses.replace(
        team_record("s1t1", 1, names, won_by_even=True),
        stats=({"decisions": 4, "fell_back": 4}, {}, {}, {}),
    )
    scored = scored_round(record, StandinRounds.FORFEIT, game)
    assert scored.forfeited == (0,)
    assert scored.scores == (-10, -2, 2, -2)
    assert scored.winners == (2,)  # a forfeit is never a win
    board = Leaderboard.from_rounds([record], standin_rounds=StandinRounds.FORFEIT, game=game)
    agents = {a["name"]: a for a in board.to_dict()["agents"]}
    assert (agents["A"]["points"], agents["A"]["round_wins"], agents["A"]["forfeits"]) == (
        -10,
        0,
        1,
    )
    with pytest.raises(ValueError, match="no known stakes"):
        scored_round(record, StandinRounds.FORFEIT, FOUR)


def test_a_team_games_stored_rounds_read_back_and_check_by_player_only() -> None:
    names = ("A", "B", "C", "D")
    record = team_record("s1t1", 1, names, won_by_even=False)
    stored = json.loads(json.dumps(record.to_dict()))
    assert round_record(stored, FOUR) == record
    assert result_problems([(stored, record)], FOUR, GameRules()) == []
    edited = {**stored, "scores": {**stored["scores"], "A": 99}}
    (problem,) = result_problems([(edited, record)], FOUR, GameRules())
    assert problem.startswith("table s1t1 round 1: its scores by player ")
    checked = dataclasses.replace(FOUR, result_check=lambda stored, record, rules: ["odd"])
    assert result_problems([(stored, record)], checked, GameRules()) == ["table s1t1 round 1: odd"]


def test_a_team_games_duplicate_deal_compares_all_its_seatings() -> None:
    base = ("A", "B", "C", "D")
    rounds = [
        team_record(f"s1t1.{n}", 1, order, won_by_even=n != 2, stake=n)
        for n, order in enumerate(seatings(base, Duplicate.ROTATIONS), 1)
    ]
    board = Leaderboard.from_rounds(rounds, seatings=4, game=FOUR).to_dict()
    agents = {a["name"]: a for a in board["agents"]}
    assert {a["deals"] for a in agents.values()} == {1}  # complete after its 4 seatings
    assert sum(a["deal_points"] for a in agents.values()) == 0
    assert sum(a["matchpoints"] for a in agents.values()) == 6.0  # C(4, 2) comparisons


# ─── the tournament file and the store ───────────────────────────────────────────────


def cup(game: str, agents: int, **tournament: Any) -> dict[str, Any]:
    """A tournament file of ``game``: programs (they play any game), a stand-in that
    plays any game (the table's default, ``heuristic``, is Dou Dizhu's) and no forfeits
    (a forfeit's stakes are Dou Dizhu's)."""
    return {
        "game": game,
        "table": {"standin": "http"},
        "tournament": {"name": "Cup", "standin_rounds": "count", **tournament},
        "agents": [
            {"name": f"P{i}", "type": "subprocess", "options": {"command": ["true"]}}
            for i in range(agents)
        ],
    }


def test_a_tournament_file_names_its_game_and_plays_its_tables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with registered(monkeypatch):
        config = parse_tournament_config(cup("six", 13), source="cup.toml")
        assert (config.game, config.seat_count) == ("six", 6)
        assert config.schedule_kind is ScheduleKind.SWISS
        assert planned_rounds(config, seed=1) == 5 * 2 * 10  # 5 stages of 2 tables, 10 rounds
        four = parse_tournament_config(cup("four", 5), source="cup.toml")
        assert four.schedule_kind is ScheduleKind.ROUND_ROBIN
        assert planned_rounds(four, seed=1) == 5 * 10  # C(5, 4) tables


def test_dou_dizhu_is_the_default_game_and_the_store_records_it(tmp_path: Path) -> None:
    data = {"tournament": {"name": "Cup"}, "agents": [{"name": n} for n in "ABC"]}
    config = TournamentConfig.model_validate(data)
    assert (config.game, config.seat_count) == ("ddz", 3)
    with TournamentStore(tmp_path / "t.db") as store:
        tid = store.new_tournament("Cup", config, seed=1)
        row = store.tournament(tid)
        assert row.config["game"] == row.game == "ddz"
        assert stored_seat_count(row.config) == 3
        with pytest.raises(Exception, match="needs 3 players"):
            store.open_match(tid, stage="1", table_id="s1t1", players=["A", "B"], seed=1)
    old = {key: value for key, value in row.config.items() if key != "game"}
    assert stored_seat_count(old) == 3  # stored before tournaments named a game: Dou Dizhu


def test_the_store_opens_table_matches_of_the_games_size(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with registered(monkeypatch), TournamentStore(tmp_path / "t.db") as store:
        config = parse_tournament_config(cup("four", 4), source="cup.toml")
        tid = store.new_tournament("Cup", config, seed=1)
        assert store.tournament(tid).game == "four"
        players = ["P0", "P1", "P2", "P3"]
        match_id = store.open_match(tid, stage="1", table_id="s1t1", players=players, seed=1)
        assert store.match(match_id).players == tuple(players)
        with pytest.raises(Exception, match="needs 4 players"):
            store.open_match(tid, stage="1", table_id="s1t2", players=players[:3], seed=1)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (cup("four", 3), "cup.toml: agents: at least 4 agents needed, 3 given (4 seats seats 4"),
        (
            cup("six", 6, duplicate="all"),
            "cup.toml: tournament.duplicate: 'all' plays every order of 6 seats's 6 seats, "
            "720 seatings of each deal (at most 24); choose rotations (6 seatings)",
        ),
        (
            {**cup("four", 4), "tournament": {"name": "Cup"}},
            "cup.toml: tournament.standin_rounds: a forfeit scores a loss at the round's "
            "stakes, and 4 seats's stakes are not known",
        ),
        (
            cup("four", 5, format="daily"),
            "cup.toml: tournament.format: daily is one open-ended table match, for exactly "
            "4 agents",
        ),
        (cup("four", 4, stages=2), "cup.toml: tournament.stages: 2 stages with 4 agents"),
        (cup("chess", 4), "cup.toml: game: no game called 'chess'"),
    ],
    ids=["roster", "duplicate", "forfeit", "daily", "stages", "unknown"],
)
def test_a_game_whose_tables_the_tournament_cannot_fill_is_refused_saying_why(
    monkeypatch: pytest.MonkeyPatch, data: dict[str, Any], expected: str
) -> None:
    with registered(monkeypatch), pytest.raises(ConfigError) as raised:
        parse_tournament_config(data, source="cup.toml")
    assert expected in str(raised.value)


def test_six_seats_duplicate_rotations_is_six_seatings(monkeypatch: pytest.MonkeyPatch) -> None:
    with registered(monkeypatch):
        config = parse_tournament_config(
            cup("six", 6, duplicate="rotations", format="standard"), source="cup.toml"
        )
    assert planned_rounds(config, seed=1) == 1 * 10 * 6
    assert SIX.seat_count() == 6


def test_duplicate_deals_ask_the_game_to_fit_its_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """In duplicate mode the game makes its rules fit (every seating plays the same
    cards) or refuses them saying why; a game with nothing to fit plays them as given,
    and Dou Dizhu's redeals are refused as before."""
    with registered(monkeypatch):
        as_given = parse_tournament_config(cup("four", 4, duplicate="rotations"), source="cup.toml")
        assert as_given.rules == GameRules()
        with pytest.raises(ConfigError, match="this game deals each seating anew"):
            parse_tournament_config(cup("fussy", 4, duplicate="rotations"), source="cup.toml")
    ddz = {
        "tournament": {"name": "Cup", "duplicate": "rotations"},
        "rules": {"max_redeals": 2},
        "agents": [{"name": n} for n in "ABC"],
    }
    with pytest.raises(ConfigError, match=r"max_redeals = 2 with tournament\.duplicate"):
        parse_tournament_config(ddz, source="cup.toml")
    del ddz["rules"]
    assert dict(parse_tournament_config(ddz, source="cup.toml").rules)["max_redeals"] == 0
