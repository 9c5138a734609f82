"""Cards: the 54-card deck, canonical notation, and the lenient tokens agents may send.

Specification: docs/rules.md "Cards" and "Card notation on the wire"; docs/protocol.md "Cards".
"""

from __future__ import annotations

import copy
import pickle
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.errors import ArenaError, CardResolutionError, IllegalActionError
from arena.games.ddz.engine import DECK, Card, card, cards_of, resolve_cards
from protocol.cards import CardNotationError, parse_token

SUITS = ("♠", "♥", "♦", "♣")
RANK_NAMES = {
    3: "3",
    4: "4",
    5: "5",
    6: "6",
    7: "7",
    8: "8",
    9: "9",
    10: "10",
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
    15: "2",
}
SMALL_JOKER, BIG_JOKER = 16, 17

EXPECTED_CANONICAL = {suit + name for name in RANK_NAMES.values() for suit in SUITS} | {
    "小王",
    "大王",
}


def hand_of(*texts: str) -> tuple[Card, ...]:
    return tuple(card(text) for text in texts)


# --- the deck ---------------------------------------------------------------------------


def test_deck_has_54_distinct_cards() -> None:
    assert len(DECK) == 54
    assert len(set(DECK)) == 54
    assert len({c.id for c in DECK}) == 54


def test_deck_texts_are_exactly_the_canonical_strings() -> None:
    assert {c.text for c in DECK} == EXPECTED_CANONICAL
    assert len(EXPECTED_CANONICAL) == 54


def test_deck_has_four_of_each_rank_and_one_of_each_joker() -> None:
    counts = Counter(c.rank for c in DECK)
    assert counts == {**{rank: 4 for rank in range(3, 16)}, SMALL_JOKER: 1, BIG_JOKER: 1}


def test_card_ids_run_0_to_53_in_rank_order() -> None:
    assert [c.id for c in DECK] == list(range(54))
    ranks = [c.rank for c in DECK]
    assert ranks == sorted(ranks)


@pytest.mark.parametrize("c", DECK, ids=lambda c: c.text)
def test_card_text_is_suit_symbol_then_rank_name(c: Card) -> None:
    if c.rank >= SMALL_JOKER:
        assert c.suit is None
        assert c.text == ("小王" if c.rank == SMALL_JOKER else "大王")
    else:
        assert c.suit in SUITS
        assert c.text == f"{c.suit}{RANK_NAMES[c.rank]}"
    assert str(c) == c.text


@pytest.mark.parametrize("c", DECK, ids=lambda c: c.text)
def test_card_of_its_own_text_is_the_same_object(c: Card) -> None:
    assert card(c.text) is c


def test_cards_are_interned_and_survive_pickling_and_copying() -> None:
    for c in DECK:
        assert pickle.loads(pickle.dumps(c)) is c
        assert copy.deepcopy(c) is c
    with pytest.raises(TypeError):
        Card(0)


# --- card(): canonical strings only -----------------------------------------------------


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("♠3", 3, "♠"),
        ("♥4", 4, "♥"),
        ("♦9", 9, "♦"),
        ("♥10", 10, "♥"),
        ("♣J", 11, "♣"),
        ("♠Q", 12, "♠"),
        ("♥K", 13, "♥"),
        ("♦A", 14, "♦"),
        ("♣2", 15, "♣"),
        ("小王", SMALL_JOKER, None),
        ("大王", BIG_JOKER, None),
    ],
)
def test_card_parses_canonical_strings(text: str, rank: int, suit: str | None) -> None:
    c = card(text)
    assert (c.rank, c.suit, c.text) == (rank, suit, text)


def test_card_passes_a_card_through() -> None:
    c = DECK[17]
    assert card(c) is c


@pytest.mark.parametrize(
    "text",
    [
        "",
        "3",
        "♠1",
        "♠11",
        "♠0",
        "♠T",
        "♠a",
        "3♠",
        "S3",
        "10♥",
        "♠ 3",
        " ♠3",
        "♠3 ",
        "JOKER",
        "joker",
        "SJ",
        "🃏",
        "♠",
        "小王小王",
        "♤3",
    ],
)
def test_card_rejects_anything_but_a_canonical_string(text: str) -> None:
    with pytest.raises(ValueError, match="not a canonical card") as excinfo:
        card(text)
    assert isinstance(excinfo.value, CardNotationError)
    assert repr(text) in str(excinfo.value)


@pytest.mark.parametrize("value", [None, 3, 3.0, b"\xe2\x99\xa03", ["♠3"]])
def test_card_rejects_non_strings(value: object) -> None:
    with pytest.raises(ValueError, match="not a canonical card"):
        card(value)  # type: ignore[arg-type]


def test_cards_of_accepts_strings_and_cards_mixed() -> None:
    assert cards_of(["♠3", DECK[1], "大王"]) == (DECK[0], DECK[1], DECK[53])


def test_cards_of_rejects_the_same_card_twice() -> None:
    with pytest.raises(ValueError, match="twice"):
        cards_of(["♠3", "♥3", "♠3"])


# --- parse_token: every accepted notation -----------------------------------------------


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        # rank only
        ("3", (3, None)),
        ("9", (9, None)),
        ("10", (10, None)),
        ("T", (10, None)),
        ("t", (10, None)),
        ("J", (11, None)),
        ("j", (11, None)),
        ("Q", (12, None)),
        ("q", (12, None)),
        ("K", (13, None)),
        ("k", (13, None)),
        ("A", (14, None)),
        ("a", (14, None)),
        ("2", (15, None)),
        (" 3 ", (3, None)),
        # canonical: suit symbol then rank
        ("♠3", (3, "♠")),
        ("♥10", (10, "♥")),
        ("♦J", (11, "♦")),
        ("♣2", (15, "♣")),
        # suit after rank
        ("3♠", (3, "♠")),
        ("10♥", (10, "♥")),
        ("A♣", (14, "♣")),
        # letter suits, either side, either case
        ("S3", (3, "♠")),
        ("s3", (3, "♠")),
        ("3s", (3, "♠")),
        ("3S", (3, "♠")),
        ("H10", (10, "♥")),
        ("10h", (10, "♥")),
        ("DQ", (12, "♦")),
        ("Kd", (13, "♦")),
        ("CA", (14, "♣")),
        ("2c", (15, "♣")),
        ("Th", (10, "♥")),
        ("JS", (11, "♠")),
        # jokers
        ("小王", (SMALL_JOKER, None)),
        ("大王", (BIG_JOKER, None)),
        ("SJ", (SMALL_JOKER, None)),
        ("sj", (SMALL_JOKER, None)),
        ("BJ", (BIG_JOKER, None)),
        ("bj", (BIG_JOKER, None)),
        ("small joker", (SMALL_JOKER, None)),
        ("Small Joker", (SMALL_JOKER, None)),
        ("big joker", (BIG_JOKER, None)),
        ("BIG JOKER", (BIG_JOKER, None)),
        ("black joker", (SMALL_JOKER, None)),
        ("red joker", (BIG_JOKER, None)),
        ("joker_small", (SMALL_JOKER, None)),
        ("JOKER_BIG", (BIG_JOKER, None)),
        ("small_joker", (SMALL_JOKER, None)),
    ],
)
def test_parse_token_reads_every_lenient_form(token: str, expected: tuple[int, str | None]) -> None:
    assert parse_token(token) == expected


def test_sj_is_the_small_joker_not_the_jack_of_spades() -> None:
    # Letter suits make "SJ" look like ♠J, but docs/rules.md names it the small joker.
    assert parse_token("SJ") == (SMALL_JOKER, None)
    assert parse_token("JS") == (11, "♠")
    assert parse_token("♠J") == (11, "♠")


@pytest.mark.parametrize("c", DECK, ids=lambda c: c.text)
def test_parse_token_reads_every_canonical_string(c: Card) -> None:
    assert parse_token(c.text) == (c.rank, c.suit)


@pytest.mark.parametrize(
    "token",
    [
        "",
        "   ",
        "1",
        "0",
        "11",
        "33",
        "B",
        "X",
        "joker",
        "JOKER",
        "♠",
        "♠1",
        "♠11",
        "3♠♠",
        "3♠4",
        "S",
        "medium joker",
        "王",
    ],
)
def test_parse_token_rejects_unreadable_tokens_naming_them(token: str) -> None:
    with pytest.raises(CardNotationError) as excinfo:
        parse_token(token)
    assert repr(token) in str(excinfo.value)
    assert excinfo.value.token == token


@pytest.mark.parametrize("token", [None, 3, 10.0, ["3"]])
def test_parse_token_rejects_non_strings(token: object) -> None:
    with pytest.raises(ValueError, match="string"):
        parse_token(token)


# --- resolve_cards: lenient tokens against the player's own hand ------------------------

HAND = hand_of("♠3", "♥3", "♥5", "♦10", "♣J", "♣Q", "♦K", "♥A", "♠2", "小王", "大王")


@pytest.mark.parametrize(
    ("token", "expected"),
    [
        ("♠3", "♠3"),
        ("3♠", "♠3"),
        ("S3", "♠3"),
        ("s3", "♠3"),
        ("3s", "♠3"),
        ("3S", "♠3"),
        ("♥3", "♥3"),
        ("h3", "♥3"),
        ("3H", "♥3"),
        ("5", "♥5"),
        ("10", "♦10"),
        ("T", "♦10"),
        ("t", "♦10"),
        ("10d", "♦10"),
        ("J", "♣J"),
        ("j", "♣J"),
        ("Q", "♣Q"),
        ("q", "♣Q"),
        ("K", "♦K"),
        ("A", "♥A"),
        ("a", "♥A"),
        ("2", "♠2"),
        ("♠2", "♠2"),
        ("小王", "小王"),
        ("大王", "大王"),
        ("SJ", "小王"),
        ("BJ", "大王"),
        ("small joker", "小王"),
        ("big joker", "大王"),
        ("black joker", "小王"),
        ("red joker", "大王"),
    ],
)
def test_a_lenient_token_resolves_to_the_card_of_the_hand(token: str, expected: str) -> None:
    (resolved,) = resolve_cards([token], HAND)
    assert resolved is card(expected)
    assert resolved in HAND


def test_a_rank_only_token_resolves_to_some_card_of_that_rank_in_the_hand() -> None:
    (resolved,) = resolve_cards(["3"], HAND)
    assert resolved in (card("♠3"), card("♥3"))


def test_resolving_a_whole_reply_keeps_the_token_order() -> None:
    tokens = ["大王", "10", "♠3", "a", "SJ"]
    resolved = resolve_cards(tokens, HAND)
    assert [c.text for c in resolved] == ["大王", "♦10", "♠3", "♥A", "小王"]


def test_resolve_accepts_card_objects() -> None:
    resolved = resolve_cards([card("♣J"), "♥5", card("大王")], HAND)
    assert resolved == (card("♣J"), card("♥5"), card("大王"))


def test_resolving_no_tokens_gives_no_cards() -> None:
    assert resolve_cards([], HAND) == ()


@pytest.mark.parametrize(
    "token",
    [
        "4",  # no 4 in the hand
        "9",
        "♠5",  # the hand has ♥5, not ♠5
        "5s",
        "C10",
        "♦3",
        "JH",
        "♥2",
        "2h",
    ],
)
def test_a_token_matching_nothing_in_the_hand_raises_naming_it(token: str) -> None:
    with pytest.raises(CardResolutionError) as excinfo:
        resolve_cards(["♠3", token], HAND)
    assert excinfo.value.token == token
    assert repr(token) in str(excinfo.value)


@pytest.mark.parametrize("token", ["小王", "大王", "SJ", "BJ", "small joker", "red joker"])
def test_a_joker_not_in_the_hand_raises_naming_it(token: str) -> None:
    hand = hand_of("♠3", "♥4", "♦5")
    with pytest.raises(CardResolutionError) as excinfo:
        resolve_cards([token], hand)
    assert excinfo.value.token == token
    assert repr(token) in str(excinfo.value)


@pytest.mark.parametrize("token", ["X", "1", "joker", "", "♠11", "33"])
def test_an_unreadable_token_raises_naming_it(token: str) -> None:
    with pytest.raises(CardResolutionError) as excinfo:
        resolve_cards(["♠3", token], HAND)
    assert excinfo.value.token == token
    assert repr(token) in str(excinfo.value)


def test_a_resolution_error_is_an_illegal_action_and_a_value_error() -> None:
    with pytest.raises(CardResolutionError) as excinfo:
        resolve_cards(["4"], HAND)
    assert isinstance(excinfo.value, IllegalActionError)
    assert isinstance(excinfo.value, ArenaError)
    assert isinstance(excinfo.value, ValueError)


def test_rank_only_tokens_never_pick_the_same_card_twice() -> None:
    hand = hand_of("♠7", "♥7", "♦7", "♣8")
    resolved = resolve_cards(["7", "7", "7"], hand)
    assert len(set(resolved)) == 3
    assert set(resolved) == set(hand_of("♠7", "♥7", "♦7"))


def test_more_rank_only_tokens_than_cards_of_that_rank_raises() -> None:
    hand = hand_of("♠7", "♥7", "♣8")
    with pytest.raises(CardResolutionError) as excinfo:
        resolve_cards(["7", "7", "7"], hand)
    assert excinfo.value.token == "7"


@pytest.mark.parametrize(
    "tokens",
    [["3", "♠3"], ["♠3", "3"], ["3", "S3"], ["3s", "3"], ["3", "3♠"]],
)
def test_rank_only_and_suited_tokens_mix_in_either_order(tokens: list[str]) -> None:
    resolved = resolve_cards(tokens, HAND)
    suited_at = next(i for i, t in enumerate(tokens) if t != "3")
    assert resolved[suited_at] is card("♠3")
    assert resolved[1 - suited_at] is card("♥3")


@pytest.mark.parametrize(
    "tokens",
    [["3", "3", "♠3"], ["3", "♠3", "3"], ["♠3", "3", "3"], ["3", "♥3", "♦3"], ["♦3", "3", "♥3"]],
)
def test_rank_only_tokens_take_the_cards_suited_tokens_leave(tokens: list[str]) -> None:
    hand = hand_of("♠3", "♥3", "♦3", "♣4")
    resolved = resolve_cards(tokens, hand)
    assert set(resolved) == set(hand_of("♠3", "♥3", "♦3"))
    for token, c in zip(tokens, resolved, strict=True):
        if token != "3":
            assert c is card(token)


def test_a_rank_only_token_fails_when_suited_tokens_took_every_card_of_its_rank() -> None:
    hand = hand_of("♠3", "♥4")
    for tokens in (["3", "♠3"], ["♠3", "3"]):
        with pytest.raises(CardResolutionError) as excinfo:
            resolve_cards(tokens, hand)
        assert excinfo.value.token == "3"


@pytest.mark.parametrize("tokens", [["♠3", "♠3"], ["♠3", "S3"], ["3s", "♠3"], ["小王", "SJ"]])
def test_the_same_card_named_twice_raises(tokens: list[str]) -> None:
    with pytest.raises(CardResolutionError):
        resolve_cards(tokens, HAND)


_SUIT_LETTER = {"♠": "S", "♥": "H", "♦": "D", "♣": "C"}
_JOKER_NAMES = {
    SMALL_JOKER: ["小王", "SJ", "small joker", "black joker"],
    BIG_JOKER: ["大王", "BJ", "big joker", "red joker"],
}


def _token_forms(c: Card) -> list[tuple[str, bool]]:
    """Ways an agent might write this card, and whether the form names its suit."""
    if c.suit is None:
        return [(name, True) for name in _JOKER_NAMES[c.rank]]
    name = RANK_NAMES[c.rank]
    letter = _SUIT_LETTER[c.suit]
    forms = [
        (name, False),
        (name.lower(), False),
        (c.text, True),
        (name + c.suit, True),
        (name + letter.lower(), True),
    ]
    if letter + name != "SJ":  # "SJ" is the small joker (docs/rules.md), not ♠J
        forms.append((letter + name, True))
    return forms


@given(data=st.data())
def test_any_mix_of_token_forms_resolves_to_the_played_ranks(data: st.DataObject) -> None:
    hand = data.draw(st.lists(st.sampled_from(DECK), min_size=1, max_size=20, unique=True))
    played = data.draw(st.lists(st.sampled_from(hand), min_size=1, unique=True))
    forms = [data.draw(st.sampled_from(_token_forms(c))) for c in played]
    order = data.draw(st.permutations(range(len(played))))
    tokens = [forms[i][0] for i in order]

    resolved = resolve_cards(tokens, hand)

    assert len(resolved) == len(played)
    assert len(set(resolved)) == len(resolved)
    assert set(resolved) <= set(hand)
    assert Counter(c.rank for c in resolved) == Counter(c.rank for c in played)
    for position, i in enumerate(order):
        if forms[i][1]:
            assert resolved[position] is played[i]
