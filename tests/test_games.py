"""The game seam: a game is found by name, a config plays one, and a seat's agent must
play it (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_config import error_of, write

from arena.agents.base import plays
from arena.agents.http import HttpAgent
from arena.agents.process import SubprocessAgent
from arena.config import ArenaConfig, default_seats, load_config
from arena.errors import ConfigError
from arena.games.base import Game, GameRules
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.engine import Rules
from arena.games.registry import get_game, known_games
from arena.table import Table


def test_dou_dizhu_is_a_game_of_three_seats_with_its_own_rules_and_requests() -> None:
    game = get_game("ddz")
    assert game.seat_count() == 3
    assert game.rules is Rules
    assert game.default_rules() == Rules()
    assert dict(game.requests) == {
        "BID_REQUEST": "bid",
        "DOUBLE_REQUEST": "double",
        "PLAY_REQUEST": "play",
    }
    assert "RESHUFFLE" in game.gift_effects
    assert known_games()[0] == "ddz"


def test_an_unknown_game_is_an_error_naming_the_games_there_are(tmp_path: Path) -> None:
    with pytest.raises(
        ConfigError, match="no game called 'chess': the arena plays 'ddz', 'tractor'"
    ):
        get_game("chess")
    path = write(tmp_path, 'game = "chess"\n')
    assert (
        error_of(path) == f"{path}: game: no game called 'chess': the arena plays 'ddz', 'tractor'"
    )


def test_a_config_plays_dou_dizhu_unless_it_says_otherwise(tmp_path: Path) -> None:
    assert ArenaConfig().game == "ddz"
    config = load_config(write(tmp_path, 'game = "ddz"\n[rules]\nscoring = "casual"\n'))
    assert config.game_info is get_game("ddz")
    assert Rules.of(config.rules).scoring == "casual"
    assert config.model_dump(mode="json")["rules"]["scoring"] == "casual"  # not {}
    assert [seat.name for seat in config.seats] == ["Alpha", "Beta", "Gamma"]


def test_a_games_rules_are_read_by_its_own_model(tmp_path: Path) -> None:
    path = write(tmp_path, "[rules]\nscorng = 1\n")
    assert error_of(path) == f"{path}: rules.scorng: unknown key; did you mean 'scoring'?"


def test_rules_of_a_game_are_not_taken_for_anothers() -> None:
    class OtherRules(GameRules):
        players: int = 4

    with pytest.raises(TypeError, match="OtherRules are not Rules"):
        Rules.of(OtherRules())
    with pytest.raises(TypeError, match="are not ddz rules"):
        get_game("ddz").parse_rules(OtherRules())


def test_default_seats_repeat_with_a_number_for_a_bigger_table() -> None:
    six = Game(
        name="six",
        title="six seats",
        rules=GameRules,
        seats=lambda rules: 6,
        default_seats=(("North", "random"), ("East", "random"), ("South", "random")),
        requests={},
        gift_effects=frozenset(),
        sides=lambda result: ((0, 2, 4), (1, 3, 5)),
        turns=lambda game, table, rules, listing: get_game("ddz").turns(
            game, table, rules, listing
        ),
        console=lambda: get_game("ddz").console(),
        spectator_table=lambda feed, table: get_game("ddz").spectator_table(feed, table),
        public_state=lambda table, **ids: get_game("ddz").public_state(table, **ids),
    )
    names = [seat.name for seat in default_seats(six, six.seat_count())]
    assert names == ["North", "East", "South", "North 2", "East 2", "South 2"]


def test_agents_say_which_games_they_play() -> None:
    ddz = get_game("ddz")
    assert plays(HeuristicAgent, ddz)  # today's BaseAgent subclasses: Dou Dizhu
    assert plays(SubprocessAgent, ddz)
    assert SubprocessAgent.games is None
    assert plays(HttpAgent, ddz)
    assert HttpAgent.games is None

    class Duck:  # says nothing, has the methods: plays the game of those methods
        name = "duck"

        async def bid(self) -> None: ...
        async def double(self) -> None: ...
        async def play(self) -> None: ...

    class OtherOnly(BaseAgent):
        games = ("tractor",)

    assert plays(Duck, ddz)
    assert not plays(OtherOnly, ddz)
    assert not plays(object(), ddz)


def test_a_seat_whose_agent_plays_another_game_is_a_config_error_naming_it(
    tmp_path: Path,
) -> None:
    text = (
        '[[seats]]\nname = "A"\n'
        '[[seats]]\nname = "B"\ntype = "agents_for_tests:OtherGameBot"\n'
        '[[seats]]\nname = "C"\n'
    )
    path = write(tmp_path, text)
    assert error_of(path) == (
        f"{path}: seats.1.type (seat 'B'): agent type 'agents_for_tests:OtherGameBot' "
        "(OtherGameBot) does not play 斗地主 (Dou Dizhu) (game = 'ddz'): it plays tractor"
    )


def test_a_table_refuses_an_agent_that_does_not_play_its_game() -> None:
    from agents_for_tests import OtherGameBot

    agents = [HeuristicAgent("A"), OtherGameBot("B"), HeuristicAgent("C")]
    with pytest.raises(ConfigError, match=r"seat 1 \('B'\): .* does not play 斗地主"):
        Table(agents)
    with pytest.raises(ConfigError, match=r"a table of 斗地主 .* needs 3 agents, got 2"):
        Table(agents[:1] + agents[2:])


def test_a_dou_dizhu_rounds_sides_are_the_landlord_against_the_farmers() -> None:
    from arena.games.ddz.engine import Round

    ddz = get_game("ddz")
    for seed in range(20):
        rnd = Round(Rules(), seed=seed)
        while rnd.result is None:
            seat = rnd.to_act
            assert seat is not None
            if rnd.phase.value == "bidding":
                rnd.bid(seat, max(rnd.legal_bids()))
            elif rnd.phase.value == "doubling":
                rnd.double(seat, False)
            else:
                rnd.play(seat, rnd.legal_moves()[0]) if rnd.is_leading else rnd.pass_turn(seat)
        result = rnd.result
        winners, losers = ddz.sides(result)
        assert result.winner_seat in winners
        assert sorted((*winners, *losers)) == [0, 1, 2]
        assert (result.landlord,) == (winners if result.landlord_won else losers)


def test_a_feed_folds_each_table_by_its_events_game() -> None:
    """The public snapshot a late subscriber gets is the game's own, chosen by the
    events' ``game`` (Dou Dizhu's has its landlord and bottom cards)."""
    from arena.events import Event
    from arena.games.ddz.public_state import PublicTableState
    from arena.sinks.public_state import PublicState, new_table_state

    feed = PublicState("run-1")
    started = Event("match_started", "t1", 0, 1, data={"players": ["A", "B", "C"]}, game="ddz")
    state = feed.apply(started)
    assert isinstance(state, PublicTableState)
    assert state.snapshot()["seats"][0]["player"] == "A"
    assert "landlord" in state.snapshot()
    with pytest.raises(ConfigError, match="no game called 'chess'"):
        new_table_state("t2", run_id="run-1", game="chess")


async def test_a_transport_answers_any_games_request_with_ask() -> None:
    """A program or an HTTP service carries any game's messages: a request of a game it
    has no method for goes through ``ask``, sent as JSON, its reply's text unread."""
    import json
    from typing import Literal

    from arena.agents.base import answerer
    from arena.agents.registry import interface_of
    from arena.agents.remote import RemoteAgent
    from protocol import Message

    class DeclareRequest(Message):
        type: Literal["DECLARE_REQUEST"] = "DECLARE_REQUEST"
        player_id: str
        request_id: str | None = None
        table_id: str | None = None

    class Wire(RemoteAgent):
        def __init__(self, name: str) -> None:
            super().__init__(name)
            self.sent: list[tuple[bytes, str | None]] = []

        async def deliver(self, line: bytes) -> None:
            self.sent.append((line, None))

        async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
            self.sent.append((line, request_id))
            return '{"type": "DECLARE_RESPONSE"}'

    agent = Wire("A")
    answer = answerer(agent, "declare")
    assert answer == agent.ask
    reply = await answer(DeclareRequest(player_id="A", request_id="t1-1-1", table_id="t1"))
    assert reply == '{"type": "DECLARE_RESPONSE"}'
    [(line, request_id)] = agent.sent
    assert json.loads(line)["type"] == "DECLARE_REQUEST"
    assert request_id == "t1-1-1"
    assert agent.table_id == "t1"
    assert interface_of(Wire) == ("notify", "ask", "close")
    assert interface_of(HeuristicAgent) == ("notify", "bid", "double", "play", "close")


def test_a_game_named_in_the_wrong_case_is_offered_the_right_name(tmp_path: Path) -> None:
    path = write(tmp_path, 'game = "DDZ"\n')
    assert error_of(path) == (
        f"{path}: game: no game called 'DDZ' (did you mean 'ddz'?): "
        "the arena plays 'ddz', 'tractor'"
    )


async def test_a_match_ends_by_the_games_own_rule_before_its_count_of_rounds() -> None:
    """How rounds add up to a match is the game's: Dou Dizhu plays the rounds it is
    given; a game with a rule of its own (Tractor: a team passes A) ends when it says."""
    from dataclasses import replace

    from arena.errors import SetupError
    from arena.games.ddz.agents.scripted import GreedyAgent
    from arena.table import play_match

    ddz = get_game("ddz")
    assert not ddz.ends_by_itself
    short = replace(ddz, match_over=lambda records: len(records) >= 2)
    assert short.ends_by_itself

    def table(game: Game) -> Table:
        return Table([GreedyAgent(n) for n in "ABC"], game=game)

    assert len((await play_match(table(short), rounds=5, seed=3)).rounds) == 2
    assert len((await play_match(table(short), rounds=None, seed=3)).rounds) == 2
    assert len((await play_match(table(ddz), rounds=3, seed=3)).rounds) == 3
    with pytest.raises(SetupError, match="needs goes_on"):
        await play_match(table(ddz), rounds=None, seed=3)


def test_an_agent_knows_its_game_by_the_rules_it_is_given() -> None:
    """A program's seat keeps the notifications its game says a restarted program needs
    again (Dou Dizhu's DEAL and BOTTOM_CARDS), knowing the game by its rules."""
    from arena.games.registry import game_of_rules

    assert game_of_rules(Rules(scoring="casual")) is get_game("ddz")
    assert game_of_rules(object()) is get_game("ddz")  # the default game
    assert get_game("ddz").replayed_notifications == ("DEAL", "BOTTOM_CARDS")
