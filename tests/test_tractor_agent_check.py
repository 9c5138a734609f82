"""``arena agent check`` for Tractor: hard positions, each reply judged by the engine.

Specification (issue 29): Tractor positions an agent must answer legally: follows that
must fill (pairs first, a tractor), a follow that may only be one play, a void with
points on the table, throws that stand and that fail, an overcall in a declaration
window (stronger only), a burial of exactly the kitty's count; each a real request
built from an engine state, each reply judged with the engine. The built-in players
pass; a program answering nonsense fails, each position naming the engine's reason.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from arena.cli import main
from arena.games.registry import get_game
from arena.games.tractor.agents.base import TractorAgent, read_play
from arena.games.tractor.agents.heuristic import HeuristicAgent
from arena.games.tractor.agents.scripted import RandomAgent
from arena.games.tractor.engine import (
    POINTS,
    TRUMP,
    Kind,
    card_ids,
    classify,
    faces_text,
    judge_throw,
    legal_follows,
    team_of,
)
from arena.games.tractor.messages import (
    BuryRequest,
    Deal,
    DeclareRequest,
    PlayRequest,
    PlayResponse,
    parse_message,
)
from arena.games.tractor.positions import CHECK, MATCH_ID, POSITIONS, listed, setup_of
from arena.testing import check_agent
from protocol import to_json

GAME = get_game("tractor")
NAMES = [p.name for p in POSITIONS]
PLAYS = [n for n in NAMES if n not in ("declare_first", "declare_overcall", "bury_points")]
PROGRAMS = Path(__file__).parent / "programs"


def faces(cards: Sequence[str] | Sequence[int]) -> str:
    """Cards (ids or ints) as sorted faces, to compare plays whatever the copies."""
    ints = [c if isinstance(c, int) else card_ids([c])[0] for c in cards]
    return " ".join(sorted(faces_text(ints).split()))


def reply(request: PlayRequest, cards: tuple[int, ...]) -> PlayResponse:
    from arena.games.tractor.engine import card_text

    return PlayResponse(
        player_id=request.player_id,
        cards=[card_text(c) for c in cards],
        request_id=request.request_id,
    )


# --- the positions are real, consistent game states ---------------------------------------


def test_the_game_names_its_positions_each_a_round_of_its_own() -> None:
    assert GAME.check_positions is not None
    assert GAME.check_positions() is CHECK
    assert [p.round_no for p in POSITIONS] == list(range(1, len(POSITIONS) + 1))
    assert [p.name for p in POSITIONS if p.retry] == ["retry_after_rejection"]


@pytest.mark.parametrize("name", NAMES)
def test_each_position_is_wire_json_for_the_agent_after_its_deal(name: str) -> None:
    situation = setup_of(name, "Me").situation
    request = situation.request
    assert parse_message(to_json(request)) == request  # valid on the wire, both ways
    assert (request.player_id, request.match_id, request.table_id) == ("Me", MATCH_ID, "check")
    assert request.round_no == CHECK.named(name).round_no
    deal = situation.notifications[0]
    assert isinstance(deal, Deal)
    assert (deal.player_id, deal.round_no) == ("Me", request.round_no)
    assert len(deal.hand) == 25
    if isinstance(request, PlayRequest):  # it has not played yet: its hand is as dealt
        assert faces(request.hand) == faces(deal.hand)
        assert [type(n).__name__ for n in situation.notifications[1:]] == [
            "TrumpCandidateMessage",
            "TrumpLockedMessage",
        ]


def test_the_follows_must_fill_pairs_and_tractors_first() -> None:
    for name, legal in (
        ("follow_pair", {"♥3 ♥3", "♥4 ♥4"}),
        ("follow_tractor", {"♥3 ♥3 ♥4 ♥4", "♥4 ♥4 ♥6 ♥6"}),
    ):
        seen = read_play(setup_of(name, "Me").situation.request)
        assert seen.lead is not None
        follows = legal_follows(seen.hand, seen.lead, seen.trump)
        assert follows is not None
        assert {faces(f) for f in follows} == legal, name


def test_a_throw_that_stood_is_followed_with_its_pair() -> None:
    request = setup_of("follow_throw", "Me").situation.request
    assert request.lead.kind == "THROW"
    assert request.follow.pairs == 1
    seen = read_play(request)
    assert seen.lead is not None
    follows = legal_follows(seen.hand, seen.lead, seen.trump)
    assert follows is not None
    assert {faces(f) for f in follows} == {"♣2 ♣2 ♣3", "♣2 ♣2 ♣9", "♣2 ♣2 ♣J"}


def test_short_of_the_suit_the_whole_suit_goes_with_any_others() -> None:
    request = setup_of("follow_short", "Me").situation.request
    assert (request.follow.held, request.follow.short, request.follow.count) == (2, True, 4)


def test_the_forced_follow_has_exactly_one_legal_play() -> None:
    seen = read_play(setup_of("forced_follow", "Me").situation.request)
    assert seen.lead is not None
    assert seen.lead.group == TRUMP
    follows = legal_follows(seen.hand, seen.lead, seen.trump)
    assert follows is not None
    assert [faces(f) for f in follows] == ["♠3 ♥5"]


def test_the_void_seat_is_last_with_twenty_points_an_opponent_winning() -> None:
    setup = setup_of("ruff_void", "Me")
    request = setup.situation.request
    assert request.follow.void
    assert len(request.trick) == 3
    assert sum(POINTS[c] for p in request.trick for c in card_ids(p.cards)) == 20
    winner = setup.round.trick[-1][0]  # ♣A, the last play so far, is the best
    assert team_of(winner) != team_of(setup.seat)


def test_the_throw_positions_stand_and_fail_as_they_claim() -> None:
    for name, throw, stands in (
        ("lead_throw_stands", "♥A ♥A ♥K ♥Q", True),
        ("lead_throw_stands", "♥A ♥A ♥K ♥Q ♥3", False),
        ("lead_throw_fails", "♣A ♣Q ♣Q", False),
    ):
        setup = setup_of(name, "Me")
        rnd = setup.round
        trump = rnd.trump
        assert trump is not None
        play = classify(rnd.resolve(setup.seat, throw.split()), trump)
        assert play.kind is Kind.THROW
        opponents = [h for s, h in enumerate(rnd.hands) if team_of(s) != team_of(setup.seat)]
        verdict = judge_throw(play, opponents, trump)
        assert (verdict is None) is stands, (name, throw)
    assert verdict is not None
    assert faces_text(verdict.punished.cards) == "♣A"  # the last: ♣A ♣Q ♣Q


def test_the_overcall_offers_only_stronger_declarations() -> None:
    situation = setup_of("declare_overcall", "Me").situation
    request = situation.request
    assert isinstance(request, DeclareRequest)
    assert request.candidate is not None
    assert request.candidate.strength == "level_single"
    assert [type(n).__name__ for n in situation.notifications] == ["Deal", "TrumpCandidateMessage"]
    offered = {(faces(o.cards), o.strength) for o in request.options}
    assert offered == {("♠2 ♠2", "level_pair"), ("小王", "small_joker")}


def test_the_burial_holds_the_kitty_with_its_points() -> None:
    request = setup_of("bury_points", "Me").situation.request
    assert isinstance(request, BuryRequest)
    assert (request.count, len(request.hand)) == (8, 33)
    assert {"♣K", "♠10", "♥5"} <= set(faces(request.kitty).split())


# --- the judge is the engine's word -------------------------------------------------------


@pytest.mark.parametrize("name", PLAYS)
def test_the_judge_allows_exactly_what_the_round_allows(name: str) -> None:
    """Oracle: the round itself (``Round.refusal``) on every follow the legal list gives
    and on random plays of the right count or not."""
    rng = random.Random(name)
    setup = setup_of(name, "Me")
    request, rnd, seat = setup.situation.request, setup.round, setup.seat
    hand = rnd.hands[seat]
    tries = [tuple(rng.sample(hand, rng.randint(1, 5))) for _ in range(60)]
    if rnd.lead is not None:
        tries += [tuple(rng.sample(hand, len(rnd.lead.cards))) for _ in range(60)]
        assert rnd.trump is not None
        listed_follows = legal_follows(hand, rnd.lead, rnd.trump) or []
        tries += listed_follows[:30]
    verdicts = set()
    for cards in tries:
        judged = CHECK.judge(request, reply(request, cards), None)
        allowed = rnd.refusal(seat, cards) is None
        assert (judged.verdict == "legal") is allowed, (cards, judged)
        if not allowed:
            assert judged.detail == rnd.refusal(seat, cards)
        verdicts.add(judged.verdict)
    assert verdicts == {"legal", "illegal"}


def test_the_judge_reads_faces_and_json_text_and_refuses_what_is_not_a_reply() -> None:
    request = setup_of("follow_pair", "Me").situation.request
    as_text = json.dumps(
        {"type": "PLAY_RESPONSE", "player_id": "Me", "cards": ["♥4", "H4"]}, ensure_ascii=False
    )
    assert CHECK.judge(request, as_text, None).verdict == "legal"
    wrong = CHECK.judge(request, '{"type": "DECLARE_RESPONSE", "player_id": "Me"}', None)
    assert wrong.verdict == "malformed"
    assert "expected a PLAY_RESPONSE" in wrong.detail
    other = CHECK.judge(request, {"type": "PLAY_RESPONSE", "player_id": "X", "cards": ["♥4"]}, None)
    assert other.verdict == "malformed"
    missing = CHECK.judge(
        request, {"type": "PLAY_RESPONSE", "player_id": "Me", "cards": ["♥K"]}, None
    )
    assert missing.verdict == "illegal"
    assert "no ♥K left in the hand" in missing.detail


def test_declarations_and_burials_are_judged_by_the_rules() -> None:
    overcall = setup_of("declare_overcall", "Me").situation.request
    base = {"type": "DECLARE_RESPONSE", "player_id": "Me"}
    same = CHECK.judge(overcall, {**base, "action": "DECLARE", "cards": ["♦2"]}, None)
    assert same.verdict == "illegal"
    assert "only a stronger declaration than ♣2 counts now" in same.detail
    stronger = CHECK.judge(overcall, {**base, "action": "DECLARE", "cards": ["小王"]}, None)
    assert (stronger.verdict, stronger.detail) == ("legal", "declares 小王 (small_joker: no trump)")
    no_level = CHECK.judge(overcall, {**base, "action": "DECLARE", "cards": ["♠3"]}, None)
    assert no_level.verdict == "illegal"
    assert "only a level card (2) or a joker declares" in no_level.detail
    assert CHECK.judge(overcall, {**base, "action": "PASS"}, None).detail == "pass"
    bury = setup_of("bury_points", "Me").situation.request
    short = CHECK.judge(bury, {"type": "BURY_RESPONSE", "player_id": "Me", "cards": ["♣K"]}, None)
    assert (short.verdict, short.detail) == ("illegal", "bury exactly 8 different cards")
    eight = bury.hand[:8]
    judged = CHECK.judge(bury, {"type": "BURY_RESPONSE", "player_id": "Me", "cards": eight}, None)
    assert judged.verdict == "legal"


def test_a_legal_play_is_played_on_the_positions_round_and_its_outcome_told() -> None:
    stands = setup_of("lead_throw_stands", "Me").situation.request
    thrown = CHECK.judge(stands, reply(stands, _faces(stands, "♥A ♥A ♥K ♥Q")), None)
    assert thrown.verdict == "legal"
    assert thrown.detail.endswith(": the throw stands")
    punished = CHECK.judge(stands, reply(stands, _faces(stands, "♥A ♥A ♥K ♥Q ♥3")), None)
    assert punished.verdict == "legal"  # a punished throw is a legal move
    assert "the throw does not stand (an opponent holds a higher single in ♥" in punished.detail
    ruff = setup_of("ruff_void", "Me").situation.request
    assert CHECK.judge(ruff, reply(ruff, _faces(ruff, "♠2")), None).detail.endswith(
        "takes the trick (20 points)"
    )


def _faces(request: PlayRequest, text: str) -> tuple[int, ...]:
    from arena.games.tractor.engine import resolve_cards

    return resolve_cards(text.split(), card_ids(request.hand))


def test_a_listing_agent_gets_the_legal_plays_of_its_position() -> None:
    forced = listed(setup_of("forced_follow", "Me").situation.request)
    assert isinstance(forced, PlayRequest)
    assert forced.legal_plays is not None
    assert [faces(p) for p in forced.legal_plays] == ["♠3 ♥5"]
    lead = listed(setup_of("lead_throw_fails", "Me").situation.request)
    assert isinstance(lead, PlayRequest)
    assert lead.legal_plays  # every single, pair and tractor (throws are legal, not listed)
    assert {len(p) for p in lead.legal_plays} == {1, 2}
    declare = setup_of("declare_first", "Me").situation.request
    assert listed(declare) is declare


# --- agents that pass, and what the heuristic makes of them ------------------------------


@pytest.mark.parametrize("cls", [HeuristicAgent, RandomAgent])
@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_the_builtin_agents_pass_every_position(cls: type[TractorAgent], seed: int) -> None:
    report = await check_agent(cls("Alpha", seed=seed), timeout_s=2.0, game=GAME)
    assert [r.position for r in report.results] == NAMES
    assert report.passed, report.as_text()
    assert (
        report.summary()
        == f"Alpha: passed: {len(NAMES)} of {len(NAMES)} positions legal and on time"
    )


async def test_the_heuristic_finds_the_right_answer_where_there_is_one() -> None:
    report = await check_agent(HeuristicAgent("Alpha", seed=1), timeout_s=2.0, game=GAME)
    detail = {r.position: r.detail for r in report.results}
    assert detail["declare_first"].startswith("declares ♥2 ♥2")  # eleven hearts
    assert detail["declare_overcall"].startswith("declares ♠2 ♠2")  # ten spades
    assert detail["bury_points"].endswith("(0 points)")
    assert detail["ruff_void"].endswith("takes the trick (20 points)")
    assert detail["feed_partner"].endswith("takes the trick (10 points)")
    assert detail["lead_throw_stands"].endswith("the throw stands")
    assert "does not stand" not in detail["lead_throw_fails"]
    assert "(♠3 ♥5)" in detail["forced_follow"] or "♥5, the single ♠3" in detail["forced_follow"]


class Nonsense(TractorAgent):
    """Answers every request with the first card of its hand."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        return PlayResponse(player_id=request.player_id, cards=request.hand[:1])


async def test_an_agent_answering_nonsense_fails_and_each_position_says_why() -> None:
    report = await check_agent(Nonsense("Pat"), timeout_s=2.0, game=GAME)
    assert not report.passed
    verdicts = {r.position: (r.verdict, r.detail) for r in report.results}
    assert verdicts["follow_pair"] == ("illegal", "play 2 cards, as many as the lead")
    assert verdicts["forced_follow"] == ("illegal", "play 2 cards, as many as the lead")
    assert verdicts["declare_first"] == ("legal", "pass")  # the base class passes
    assert verdicts["lead_throw_stands"][0] == "legal"  # any single may lead


# --- the command ------------------------------------------------------------------------


def tractor_config(folder: Path, seats: list[tuple[str, str, str]]) -> Path:
    """A config of a Tractor table (``seats``: name, type, an options line or "")."""
    text = 'game = "tractor"\n[table]\ndecision_timeout_s = 2\n'
    for name, kind, options in seats:
        text += f'[[seats]]\nname = "{name}"\ntype = "{kind}"\n{options}'
    path = folder / "arena.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_command_passes_the_builtin_players(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    kinds = ["heuristic", "random", "heuristic", "random"]
    config = tractor_config(tmp_path, [(f"P{i}", k, "") for i, k in enumerate(kinds)])
    assert main(["agent", "check", str(config)]) == 0
    out = capsys.readouterr().out
    for seat in range(4):
        assert f"P{seat}: passed: 13 of 13 positions legal and on time" in out
    for name in NAMES:
        assert name in out
    assert out.rstrip().endswith("passed: all 4 seats")


def test_a_program_answering_nonsense_fails_with_the_engines_reasons(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    command = json.dumps([sys.executable, str(PROGRAMS / "tractor_nonsense.py")])
    program = ("Prog", "subprocess", f"options = {{ command = {command} }}\n")
    others = [(f"P{i}", "heuristic", "") for i in range(3)]
    config = tractor_config(tmp_path, [program, *others])
    assert main(["agent", "check", str(config), "--seat", "Prog", "--json"]) == 1
    (seat,) = json.loads(capsys.readouterr().out)["seats"]
    assert seat["passed"] is False
    results = {r["position"]: r for r in seat["results"]}
    assert (results["declare_first"]["verdict"], results["declare_first"]["detail"]) == (
        "illegal",
        "only a level card (2) or a joker declares",
    )
    assert results["bury_points"]["detail"] == "bury exactly 8 different cards"
    for name in ("follow_pair", "follow_tractor", "follow_throw", "forced_follow"):
        assert results[name]["verdict"] == "illegal", name
        assert "as many as the lead" in results[name]["detail"]
    assert results["follow_pair"]["reply"].startswith('{"type": "PLAY_RESPONSE"')
    assert all(r["verdict"] in ("legal", "illegal") for r in seat["results"])
