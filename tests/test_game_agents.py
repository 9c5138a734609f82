"""Agents serve the game they are seated at (issue 26): a model seat speaks the prompts
of the game whose rules it is given, the registry's ``human`` is the game's own seat, and
Dou Dizhu's bots still find ``BaseAgent`` where they always did.

The game here is a fake of four seats (``quad``, registered as a plugin would be), with
its own rules, request, prompts and scripted agent; the model seat answers it through a
real local fake provider (:mod:`fake_providers`).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final, Literal

import pytest
from fake_games import FOUR, plugged_in
from fake_providers import FakeOpenAI, Reply
from test_config import error_of, write

from arena.agents.base import answerer, games_played, plays
from arena.agents.llm.game_prompts import ModelPrompts
from arena.agents.llm.openai_seat import OpenAIAgent
from arena.agents.llm.texts import Prompt
from arena.agents.registry import agent_class, agent_types, check_agent_class, create_agent
from arena.errors import AgentReplyError, ConfigError
from arena.games import registry
from arena.games.base import Game, GameRules
from arena.games.ddz.agents.base import BaseAgent
from arena.games.ddz.agents.human import HumanAgent
from arena.games.registry import get_game
from protocol import Message

KEY: Final = "sk-quad-test-key"
KEY_ENV: Final = "QUAD_TEST_KEY"


class QuadRules(GameRules):
    """The fake game's rules: how many cards a hand holds."""

    hand: int = 5


class LeadRequest(Message):
    """The fake game's one request: lead a card."""

    type: Literal["LEAD_REQUEST"] = "LEAD_REQUEST"
    player_id: str
    hand: list[str]
    request_id: str | None = None
    match_id: str | None = None
    time_limit_ms: int = 5000


class LeadResponse(Message):
    type: Literal["LEAD_RESPONSE"] = "LEAD_RESPONSE"
    player_id: str
    card: str
    request_id: str | None = None


@dataclasses.dataclass(frozen=True)
class Read:
    """What a game's ``extract_reply`` returns: the reply, what was found, its repairs."""

    reply: Any
    found: Any = None
    repairs: tuple[str, ...] = ()


def _build_prompt(
    request: LeadRequest, *, language: str, persona: str | None, legal_moves: str, rules: Any
) -> Prompt:
    return Prompt(
        system=f"You play Quad ({language}, {QuadRules.of(rules).hand} cards a hand).",
        user=f'Your hand: {" ".join(request.hand)}. Lead one card as {{"card": ...}}.',
    )


def _extract_reply(text: str, request: LeadRequest, *, cut_off: bool = False) -> Read:
    try:
        card = json.loads(text)["card"]
    except (ValueError, KeyError, TypeError):
        raise AgentReplyError("unparsable", f"no card in {text!r}") from None
    reply = LeadResponse(player_id=request.player_id, card=card, request_id=request.request_id)
    return Read(reply)


QUAD_PROMPTS: Final = ModelPrompts(
    languages=("en", "fr"),
    legal_moves=("all",),
    build_prompt=_build_prompt,
    retry_text=lambda rejected, *, language: f"Refused: {rejected.detail}",
    decision_schema=lambda request, *, strict=True: ("lead", {"type": "object"}),
    extract_reply=_extract_reply,
)


class LeadAgent:
    """The fake game's scripted player: leads its first card."""

    games = ("quad",)

    def __init__(self, name: str, *, seed: int | None = None, rules: Any = None) -> None:
        self.name = name

    async def notify(self, message: Message) -> None:
        pass

    async def lead(self, request: LeadRequest) -> LeadResponse:
        return LeadResponse(
            player_id=request.player_id, card=request.hand[0], request_id=request.request_id
        )

    async def close(self) -> None:
        pass


QUAD: Final = dataclasses.replace(
    FOUR,
    name="quad",
    title="Quad (four seats)",
    rules=QuadRules,
    default_seats=(("North", "lead"), ("East", "lead")),
    requests={"LEAD_REQUEST": "lead"},
    scripted_agents={"lead": f"{__name__}:LeadAgent"},
    model_prompts=lambda: QUAD_PROMPTS,
    human_seat=None,
    stand_in="lead",
    agent_exports={},
)
"""A game of four seats that a model seat can play and a person cannot."""


class MuteRules(QuadRules):
    """The rules of the game without prompts (a game is known by its rules' class)."""


MUTE: Final = dataclasses.replace(
    QUAD, name="mute", title="Mute", rules=MuteRules, model_prompts=None
)
"""The same game, with no prompts for a model seat."""


@pytest.fixture
def games(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``quad`` and ``mute`` found by name, as a plugin's games would be."""
    plugins = {**registry._plugins(), "quad": f"{__name__}:QUAD", "mute": f"{__name__}:MUTE"}
    with plugged_in(monkeypatch, plugins):
        yield


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAI(api_key=KEY, default=Reply(text='{"card": "7♠"}')) as fake:
        yield fake


def model_seat(server: FakeOpenAI, game: Game, rules: GameRules) -> Any:
    options = {
        "model": "gpt-test",
        "base_url": server.base_url,
        "api_key_env": KEY_ENV,
        "structured": "none",
    }
    return create_agent("openai", "Model", rules=rules, options=options, game=game)


# ─── the model seat ─────────────────────────────────────────────────────────────────────


async def test_a_model_seat_speaks_the_prompts_of_the_game_it_is_seated_at(
    games: None, server: FakeOpenAI
) -> None:
    agent = model_seat(server, QUAD, QuadRules(hand=4))
    assert agent.game is QUAD
    assert agent.prompts is QUAD_PROMPTS
    assert (agent.language, agent.legal_moves) == ("en", "all")  # the game's first choices
    assert not hasattr(agent, "play")  # one neutral method answers every request
    request = LeadRequest(player_id="Model", hand=["7♠", "2♥"], request_id="t1-1-1")
    reply = await answerer(agent, QUAD.requests[request.type])(request)
    assert reply == LeadResponse(player_id="Model", card="7♠", request_id="t1-1-1")
    [sent] = server.requests
    messages = sent.body["messages"]
    assert messages[0]["content"] == "You play Quad (en, 4 cards a hand)."
    assert "Your hand: 7♠ 2♥" in messages[1]["content"]


async def test_a_model_seat_at_dou_dizhu_still_speaks_dou_dizhus_prompts(
    server: FakeOpenAI,
) -> None:
    ddz = get_game("ddz")
    agent = model_seat(server, ddz, ddz.default_rules())
    assert agent.game is ddz
    assert ddz.model_prompts is not None
    assert agent.prompts is ddz.model_prompts()
    assert (agent.language, agent.legal_moves) == ("zh", "none")


def test_a_model_seat_plays_every_game_with_prompts_and_no_other(games: None) -> None:
    assert plays(OpenAIAgent, QUAD)
    assert plays(OpenAIAgent, get_game("ddz"))
    assert not plays(OpenAIAgent, MUTE)
    assert "quad" in games_played(OpenAIAgent).split(", ")
    assert "mute" not in games_played(OpenAIAgent).split(", ")
    with pytest.raises(ConfigError) as caught:
        check_agent_class("openai", MUTE)
    assert str(caught.value) == (
        f"agent type 'openai' (OpenAIAgent) does not play Mute (game = 'mute'): it plays "
        f"{games_played(OpenAIAgent)}"
    )


def test_a_model_seat_at_a_game_without_prompts_is_a_config_error_naming_the_seat(
    games: None, server: FakeOpenAI
) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent(
            "openai",
            "Model",
            rules=MuteRules(),
            options={"model": "gpt-test", "api_key_env": KEY_ENV},
            seat_key="seats.2",
            game=MUTE,
        )
    assert str(caught.value).startswith("seats.2.type (seat 'Model'): openai does not play Mute")


# ─── the registry: the game's own agents ───────────────────────────────────────────────


def test_the_registry_offers_each_game_its_own_agents(games: None) -> None:
    assert "lead" in agent_types(QUAD)
    assert "heuristic" not in agent_types(QUAD)
    assert "human" not in agent_types(QUAD)
    assert {"subprocess", "http", "openai", "anthropic"} <= set(agent_types(QUAD))
    assert agent_class("lead", QUAD) is LeadAgent
    assert agent_class("human", get_game("ddz")) is HumanAgent


def test_a_table_stands_in_with_its_games_own_agent_unless_the_settings_name_one() -> None:
    """``[table] standin`` unset: the game's stand-in, written into the table's settings
    (the replay header dumps them: Dou Dizhu's still say ``heuristic``); set: that one."""
    from arena.games.ddz.agents.scripted import GreedyAgent
    from arena.table import Table
    from arena.table.settings import TableSettings

    ddz = get_game("ddz")
    assert ddz.stand_in == "heuristic"
    assert ddz.stand_in in ddz.scripted_agents
    assert TableSettings().standin is None

    def seated(game: Game, settings: TableSettings | None = None) -> Table:
        agents = [GreedyAgent(name) for name in ("A", "B", "C")]
        return Table(agents, game=game, settings=settings)

    assert seated(ddz).settings.standin == "heuristic"
    assert seated(dataclasses.replace(ddz, stand_in="random")).settings.standin == "random"
    named = seated(ddz, TableSettings(standin="greedy"))
    assert named.settings.standin == "greedy"
    named.settings = TableSettings()  # settings given later take the game's too
    assert named.settings.standin == "heuristic"
    assert seated(dataclasses.replace(ddz, stand_in=None)).settings.standin is None


def test_human_at_a_game_without_a_human_seat_is_an_error_naming_the_seat(games: None) -> None:
    with pytest.raises(ConfigError) as caught:
        create_agent("human", "Me", seat_key="seats.3", game=QUAD)
    assert str(caught.value) == (
        "seats.3.type (seat 'Me'): agent type 'human': Quad (four seats) (game = 'quad') "
        "has no seat for a person at the terminal"
    )


def test_a_config_of_a_game_without_a_human_seat_refuses_human_naming_the_seat(
    games: None, tmp_path: Path
) -> None:
    seats = "".join(
        f'[[seats]]\nname = "{name}"\ntype = "{kind}"\n'
        for name, kind in (("N", "lead"), ("E", "lead"), ("S", "human"), ("W", "lead"))
    )
    path = write(tmp_path, f'game = "quad"\n[table]\nstandin = "lead"\n{seats}')
    assert error_of(path) == (
        f"{path}: seats.2.type (seat 'S'): agent type 'human': Quad (four seats) "
        "(game = 'quad') has no seat for a person at the terminal"
    )


def test_human_is_still_dou_dizhus_terminal_seat(tmp_path: Path) -> None:
    seats = "".join(
        f'[[seats]]\nname = "{name}"\ntype = "{kind}"\n'
        for name, kind in (("A", "heuristic"), ("Me", "human"), ("C", "heuristic"))
    )
    from arena.config import load_config

    config = load_config(write(tmp_path, seats))
    assert config.seats[1].type == "human"
    agent = create_agent("human", "Me", game=config.game_info)
    assert isinstance(agent, HumanAgent)
    assert plays(agent, get_game("ddz"))


# ─── Dou Dizhu's bots find BaseAgent where they always did ─────────────────────────────


def test_dou_dizhus_agents_are_still_found_under_their_old_names() -> None:
    import arena.agents
    import arena.agents.base
    import arena.agents.human
    from arena.games.ddz.agents import base, human

    assert arena.agents.BaseAgent is BaseAgent
    assert arena.agents.base.BaseAgent is BaseAgent
    assert arena.agents.base.DdzAgent is base.DdzAgent
    assert arena.agents.HumanAgent is HumanAgent
    assert arena.agents.human.HumanAgent is HumanAgent
    assert arena.agents.human.parse_human_move is human.parse_human_move
    with pytest.raises(AttributeError, match="has no attribute 'NoSuchAgent'"):
        arena.agents.base.NoSuchAgent  # noqa: B018


def test_the_agents_interface_loads_no_game() -> None:
    """``arena.agents`` and its base, human and model modules import no game: a bot's
    old ``from arena.agents import BaseAgent`` loads Dou Dizhu only when it asks."""
    code = (
        "import sys\n"
        "import arena.agents, arena.agents.base, arena.agents.human, arena.agents.llm.seat\n"
        "print(sorted(m for m in sys.modules if m.startswith('arena.games.ddz')))\n"
        "from arena.agents import BaseAgent\n"
        "print(BaseAgent.__module__)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.split("\n")[:2] == ["[]", "arena.games.ddz.agents.base"]


# ─── a model seat's decisions in a replay of another game ──────────────────────────────


def test_a_replays_decisions_pair_with_the_requests_of_the_headers_game(games: None) -> None:
    """``arena replay --decisions`` pairs an attempt with the request it answered: a
    request of the game the round's header names (``Game.requests``)."""
    from arena.replay_decisions import decisions_in
    from arena.replay_round import RecordedRound

    def decision(request_id: str) -> dict[str, Any]:
        return {
            "kind": "decision",
            "seat": 1,
            "request_id": request_id,
            "attempt": 0,
            "outcome": "accepted",
            "detail": None,
            "report": {},
        }

    def request(type_: str, request_id: str) -> dict[str, Any]:
        message = {"type": type_, "player_id": "E", "request_id": request_id}
        return {"kind": "message", "dir": "to_agent", "seat": 1, "message": message}

    lines = [
        request("LEAD_REQUEST", "r1"),
        decision("r1"),
        request("PLAY_REQUEST", "r2"),  # not a request of this game
        decision("r2"),
    ]
    players = ["N", "E", "S", "W"]

    def recorded(game: str) -> RecordedRound:
        return RecordedRound(
            "t1",
            1,
            {"game": game, "players": players},
            decisions=[line for line in lines if line["kind"] == "decision"],
            lines=list(enumerate(lines, start=2)),
        )

    quad = decisions_in([recorded("quad")])
    assert [(d.request_type, d.request_id) for d in quad] == [("LEAD_REQUEST", "r1"), (None, "r2")]
    assert quad[0].player == "E"
    unknown = decisions_in([recorded("some-game-not-installed")])  # named as requests are
    assert [d.request_type for d in unknown] == ["LEAD_REQUEST", "PLAY_REQUEST"]
