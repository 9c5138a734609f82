"""The in-process short cut: a table hands Python agents its legal moves, and takes back
a move it listed without re-reading the cards.

Specification: the issue's "checks every reply with the rules engine": the short cut must
accept exactly what the full check accepts. A listed move is one the engine itself listed
for this very hand and trick; anything else (an edited reply, a stale move, a combo the
engine never listed) goes through the full check. On the wire and in replays the messages
are the plain ones.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import structlog
from agents_for_tests import FakeAgent, ddz_turns, make_deal

from arena.errors import IllegalActionError
from arena.games.ddz.agents.inprocess import (
    ListedPlayRequest,
    MoveReply,
    attach_move,
    listed_moves,
    move_of,
)
from arena.games.ddz.agents.reading import hand_of, legal_for, play_reply, trick_of
from arena.games.ddz.agents.scripted import GreedyAgent, RandomAgent
from arena.games.ddz.engine import Combo, ComboType, Phase, Round, Rules, card, legal_moves
from arena.games.ddz.messages import PlayRecord, PlayRequest, PlayResponse, parse_message
from arena.table import Table, TableSettings
from protocol import to_json
from protocol._trusted import trusted, trusted_fields

CASUAL = Rules(scoring="casual")
DEAL = make_deal(seat0="♠3 ♠K ♥K 大王", seat1="♥3 ♠A 小王", seat2="♦3")


def playing(deal: Any = DEAL) -> Round:
    return Round(CASUAL, seed=1, deal=deal, landlord=0, call_score=1)


def shape(moves: Any) -> set[tuple[ComboType, int, tuple[str, ...]]]:
    return {(m.type, m.main_rank, tuple(c.text for c in m.cards)) for m in moves}


# ─── the engine side: Round.moves and plays of listed moves ─────────────────────────────


def test_the_listed_moves_are_the_legal_moves_of_the_seat_to_act() -> None:
    r = playing()
    assert shape(r.moves) == shape(legal_moves(r.hand(0)))
    assert r.moves is r.moves  # listed once per hand and trick
    r.play(0, [card("♠3")])
    assert shape(r.moves) == shape(legal_moves(r.hand(1), r.last_play))


def test_a_listed_move_is_played_as_it_is() -> None:
    r = playing()
    move = next(m for m in r.moves if m.type is ComboType.PAIR)
    assert r.play(0, move) is move
    assert r.last_play is move
    assert len(r.hand(0)) == 18


def test_a_combo_the_engine_did_not_list_gets_the_full_check() -> None:
    r = playing()
    r.moves  # noqa: B018 - list the landlord's moves first
    stolen = Combo(ComboType.SINGLE, 16, 1, (card("小王"),))  # seat 1 holds it
    with pytest.raises(IllegalActionError, match="not in seat 0's hand"):
        r.play(0, stolen)
    made_up = Combo(ComboType.PAIR, 13, 1, (card("♠K"), card("♠3")))  # not a pair
    with pytest.raises(IllegalActionError):
        r.play(0, made_up)
    assert len(r.hand(0)) == 20


def test_a_listed_move_under_another_hand_type_gets_the_full_check() -> None:
    r = playing()
    single = next(m for m in r.moves if m.type is ComboType.SINGLE)
    with pytest.raises(IllegalActionError):
        r.play(0, single, "PAIR")


def test_a_move_listed_before_a_gift_swap_is_checked_against_the_new_hand() -> None:
    r = playing()
    stale = next(m for m in r.moves if m.cards == (card("大王"),))
    r.swap_cards(0, "大王", 2, "♦3")
    assert card("大王") not in r.hand(0)
    assert not any(card("大王") in m.cards for m in r.moves)
    with pytest.raises(IllegalActionError, match="not in seat 0's hand"):
        r.play(0, stale)


def test_a_move_listed_for_one_seat_is_checked_for_another() -> None:
    r = playing()
    r.play(0, [card("♠3")])
    seat1_moves = r.moves
    r.pass_turn(1)
    beat_with_ace = next(m for m in seat1_moves if m.cards == (card("♠A"),))
    with pytest.raises(IllegalActionError, match="not in seat 2's hand"):
        r.play(2, beat_with_ace)


# ─── the message side ───────────────────────────────────────────────────────────────────


def recording_random(name: str, seed: int) -> FakeAgent:
    """Random play through a fake that keeps every message it got."""
    return FakeAgent(name, inner=RandomAgent(name, seed=seed))


async def test_a_table_lists_exactly_the_moves_the_request_allows() -> None:
    agents = [recording_random(f"R{i}", seed=i) for i in range(3)]
    table = Table(agents, settings=TableSettings(pace_s=0))
    for round_no in range(1, 6):
        await table.play_round(round_no, seed=round_no)
    requests = [r for a in agents for r in a.of_type(PlayRequest)]
    assert len(requests) > 50
    for request in requests:
        listed = listed_moves(request)
        assert listed is not None
        worked_out = legal_moves(hand_of(request), trick_of(request))
        assert shape(listed) == shape(worked_out)
        assert shape(legal_for(request)) == shape(worked_out)


async def test_a_listed_request_is_the_plain_message_on_the_wire() -> None:
    agents = [recording_random(f"R{i}", seed=i) for i in range(3)]
    table = Table(agents, settings=TableSettings(pace_s=0))
    await table.play_round(1, seed=4)
    request = agents[0].of_type(PlayRequest)[0]
    assert type(request) is ListedPlayRequest
    again = parse_message(to_json(request))
    assert type(again) is PlayRequest
    assert again == request
    assert request == again
    assert listed_moves(again) is None
    assert shape(legal_for(again)) == shape(legal_for(request))


def test_a_copied_request_works_its_moves_out_again() -> None:
    request = ListedPlayRequest.model_validate(
        {
            "player_id": "L",
            "hand": ["♠3", "♥3", "♠4"],
            "is_free_play": True,
            "last_play": None,
            "remaining_cards": {"L": 3, "F1": 17, "F2": 17},
            "role": "landlord",
        }
    )
    assert listed_moves(request) is None  # validated, never given moves
    copy = request.model_copy()
    assert listed_moves(copy) is None
    assert shape(legal_for(copy)) == shape(legal_moves(hand_of(request)))


def test_a_reply_keeps_its_move_only_while_its_cards_are_that_move() -> None:
    r = playing()
    move = next(m for m in r.moves if m.type is ComboType.PAIR)
    request = parse_message(
        to_json(
            PlayRequest(
                player_id="A",
                hand=[c.text for c in r.hand(0)],
                is_free_play=True,
                last_play=None,
                remaining_cards={"A": 20, "B": 17, "C": 17},
                role="landlord",
            )
        )
    )
    assert isinstance(request, PlayRequest)
    reply = play_reply(request, move)
    assert type(reply) is MoveReply
    assert move_of(reply) is move
    edited = reply.model_copy(update={"cards": ["♠3"]})
    assert move_of(edited) is None
    forged = trusted(MoveReply, player_id="A", action="PLAY", cards=["大王"], hand_type="SINGLE")
    attach_move(forged, move)
    assert move_of(forged) is None  # the cards say something else than the move
    assert move_of(PlayResponse(player_id="A", action="PLAY", cards=reply.cards)) is None


async def test_an_edited_in_process_reply_is_checked_in_full() -> None:
    def edit(request: PlayRequest, n: int) -> Any:
        if n != 1:
            return None
        listed = listed_moves(request)
        assert listed is not None
        reply = play_reply(request, listed[0])
        return reply.model_copy(update={"cards": ["小王"]})  # seat 1's card

    cheat = FakeAgent("Cheat", play=edit)
    table = Table(
        [cheat, FakeAgent("B"), FakeAgent("C")], rules=CASUAL, settings=TableSettings(pace_s=0)
    )
    await table.play_round(1, seed=1, deal=DEAL, landlord=0, call_score=1)
    assert table.faults("Cheat").illegal == 1
    [rejection] = cheat.rejections
    assert "小王" in rejection.detail


# ─── building messages without validation ───────────────────────────────────────────────


def test_trusted_messages_do_not_share_default_lists() -> None:
    a = trusted(PlayResponse, player_id="A", action="PASS")
    b = trusted(PlayResponse, player_id="B", action="PASS")
    assert a.cards == []
    assert a.cards is not b.cards
    assert a == PlayResponse(player_id="A", action="PASS")


def test_trusted_fields_equal_the_validated_message() -> None:
    fields = {"player": "A", "action": "PLAY", "type": ComboType.PAIR, "cards": ["♠3", "♥3"]}
    built = trusted_fields(PlayRecord, dict(fields))
    assert built == PlayRecord.model_validate(fields)
    assert built.model_fields_set == set(PlayRecord.model_fields)
    with pytest.raises(ValueError, match=r"missing fields \['cards'\]"):
        trusted_fields(PlayRecord, {"player": "A", "action": "PASS", "type": None})
    with pytest.raises(ValueError, match=r"unknown fields \['kards'\]"):
        trusted_fields(PlayRecord, {"player": "A", "action": "PASS", "type": None, "kards": []})


# ─── log context ────────────────────────────────────────────────────────────────────────


async def test_an_agent_that_waits_logs_with_its_seat_and_name_bound() -> None:
    contexts: dict[str, list[dict[str, Any]]] = {"A": [], "C": []}

    def look(name: str) -> Any:
        async def waiting(request: Any, n: int) -> None:
            await asyncio.sleep(0)  # it waits: from here on its seat and name are bound
            contexts[name].append(structlog.contextvars.get_contextvars())

        return waiting

    agents: list[Any] = [
        FakeAgent("A", play=look("A")),
        GreedyAgent("B"),
        FakeAgent("C", play=look("C")),
    ]
    table = Table(agents, rules=CASUAL, settings=TableSettings(pace_s=0))
    await table.play_round(1, seed=1, deal=DEAL, landlord=0, call_score=1)
    for seat, name in ((0, "A"), (2, "C")):
        assert contexts[name]
        for context in contexts[name]:
            assert context["seat"] == seat
            assert context["agent"] == name
            assert (context["table"], context["round"]) == ("t1", 1)
    assert "seat" not in structlog.contextvars.get_contextvars()
    rnd = ddz_turns(table).round
    assert rnd is not None
    assert rnd.phase is Phase.FINISHED
