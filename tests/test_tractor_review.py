"""An independent review of the Tractor engine against tractor-shengji-rules.md (§) and
its DECISIONS: hand-made positions, one rule per test, named in the test's name.

Card power and suit groups, pairs and tractors, throws, following, the trick's winner,
throws that do not stand, declaring, the kitty and what each seat sees, scoring, levels
and the match's end.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from tractor_cards import cards, deal

from arena.errors import IllegalActionError
from arena.games.tractor.engine import (
    TRUMP,
    Declaring,
    Kind,
    Match,
    Phase,
    Play,
    Round,
    RoundScore,
    Strength,
    ThrowPunished,
    TractorRules,
    Trump,
    TrumpLocked,
    check_follow,
    classify,
    declaration_of,
    follow_rule,
    judge_throw,
    match_winner,
    resolve_cards,
    seat_view,
    settle,
    trick_winner,
    trump_context,
)
from arena.games.tractor.engine.cards import faces_text

LEVEL_7_SPADES = trump_context(7, 0)
LEVEL_5_SPADES = trump_context(5, 0)


def plays(texts: Sequence[str], trump: Trump) -> list[Play]:
    """Each text classified, every card a distinct copy (a trick's plays in order)."""
    taken: list[int] = []
    found = []
    for text in texts:
        played = cards(text, taken=taken)
        taken += played
        found.append(classify(played, trump))
    return found


def winner(texts: Sequence[str], trump: Trump = LEVEL_5_SPADES) -> int:
    return trick_winner(plays(texts, trump))


def follow(hand_text: str, lead_text: str, play_text: str, trump: Trump) -> str | None:
    hand = cards(hand_text)
    lead = classify(cards(lead_text, taken=hand), trump)
    return check_follow(hand, resolve_cards(play_text.split(), hand), lead, trump)


def verdict(throw_text: str, opponents: Sequence[str], trump: Trump) -> str | None:
    """The punished play's faces, or None when the throw stands."""
    throw = cards(throw_text)
    taken = list(throw)
    hands = []
    for text in opponents:
        hands.append(cards(text, taken=taken))
        taken += hands[-1]
    judged = judge_throw(classify(throw, trump), hands, trump)
    return None if judged is None else faces_text(judged.punished.cards)


# --- card power and suit groups (DECISIONS "Winning a trick", §5) -------------------------


def test_trump_order_jokers_trump_level_card_other_level_cards_equal_then_suit_a_down() -> None:
    trump = LEVEL_7_SPADES
    order = [
        "大王",
        "小王",
        "♠7",
        "♥7",
        "♠A",
        "♠K",
        "♠Q",
        "♠J",
        "♠10",
        "♠9",
        "♠8",
        "♠6",
        "♠5",
        "♠4",
        "♠3",
        "♠2",
    ]
    powers = [trump.power[cards(face)[0]] for face in order]
    assert powers == sorted(powers, reverse=True)
    assert len(set(powers)) == len(powers)
    level_cards = {trump.power[c] for c in cards("♥7 ♦7 ♣7")}
    assert len(level_cards) == 1  # the other suits' level cards are equal


def test_no_trump_has_the_jokers_over_the_level_cards_all_equal_and_nothing_else() -> None:
    trump = trump_context(7, None)
    assert [c for c in range(108) if trump.is_trump(c)] == sorted(
        cards("♠7 ♥7 ♦7 ♣7 小王 大王") + cards("♠7 ♥7 ♦7 ♣7 小王 大王", taken=range(54))
    )
    big, small, spade, heart = (trump.power[cards(f)[0]] for f in ("大王", "小王", "♠7", "♥7"))
    assert big > small > spade == heart


def test_level_cards_of_the_other_suits_are_trumps_not_their_suit() -> None:
    trump = LEVEL_7_SPADES
    assert trump.group[cards("♦7")[0]] == TRUMP
    # a hand whose only ♦ is the ♦7 is void in ♦: it may play anything
    assert follow("♦7 ♣3", "♦A", "♣3", trump) is None
    assert winner(["♦A", "♦7", "♦K", "♦2"], trump) == 1  # and its ♦7 ruffs


# --- pairs, tractors, throws (§6, DECISIONS "Patterns") ----------------------------------


def test_a_pair_is_two_copies_of_one_card_never_two_suits_nor_two_jokers() -> None:
    trump = LEVEL_7_SPADES
    assert classify(cards("♥7 ♥7"), trump).kind is Kind.PAIR
    assert classify(cards("小王 小王"), trump).kind is Kind.PAIR
    assert classify(cards("♥7 ♦7"), trump).kind is Kind.THROW
    assert classify(cards("♠7 ♥7"), trump).kind is Kind.THROW
    assert classify(cards("小王 大王"), trump).kind is Kind.THROW


@pytest.mark.parametrize(
    ("level", "text"),
    [
        (5, "♥4 ♥4 ♥6 ♥6"),  # the level rank is removed from the sequence
        (2, "♥3 ♥3 ♥4 ♥4"),
        (14, "♥K ♥K ♥Q ♥Q"),  # at level A the K tops a chain
        (13, "♥Q ♥Q ♥A ♥A"),  # at level K the Q and the A are consecutive
        (2, "♥K ♥K ♥A ♥A"),
    ],
)
def test_a_tractor_is_consecutive_pairs_in_2_to_a_with_the_level_rank_removed(
    level: int, text: str
) -> None:
    assert classify(cards(text), trump_context(level, 0)).kind is Kind.TRACTOR


def test_a_tractor_never_wraps_from_a_to_2() -> None:
    assert classify(cards("♥A ♥A ♥2 ♥2"), trump_context(5, 0)).kind is Kind.THROW
    assert classify(cards("♥A ♥A ♥3 ♥3"), trump_context(2, 0)).kind is Kind.THROW


@pytest.mark.parametrize(
    "text",
    [
        "小王 小王 大王 大王",  # jokers never chain
        "♥7 ♥7 ♠7 ♠7",  # level cards never chain, with each other
        "♠A ♠A ♥7 ♥7",  # nor with the trump suit's A
        "♠7 ♠7 小王 小王",
    ],
)
def test_level_cards_and_jokers_are_never_part_of_a_tractor(text: str) -> None:
    play = classify(cards(text), LEVEL_7_SPADES)
    assert play.kind is Kind.THROW
    assert play.shape == (1, 1)


def test_the_trump_suit_forms_tractors_across_the_level_gap() -> None:
    assert classify(cards("♠8 ♠8 ♠9 ♠9"), LEVEL_7_SPADES).kind is Kind.TRACTOR
    assert classify(cards("♠6 ♠6 ♠8 ♠8"), LEVEL_7_SPADES).kind is Kind.TRACTOR
    assert classify(cards("♠5 ♠5 ♠6 ♠6 ♠8 ♠8"), LEVEL_7_SPADES).shape == (3,)


def test_two_cards_that_are_not_a_pair_are_a_throw_of_two_singles() -> None:
    play = classify(cards("♠A ♠K"), trump_context(7, 1))
    assert play.kind is Kind.THROW
    assert play.shape == (0, 0)


def test_a_lead_of_two_suit_groups_is_refused() -> None:
    hands = deal({0: "♥A ♥K ♣3"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury([c for c in round_.hands[0] if c not in cards("♥A ♥K ♣3")][-8:])
    with pytest.raises(IllegalActionError, match="one suit group"):
        round_.play(0, cards("♥A ♣3"))
    assert round_.to_act == 0


# --- following (§7, DECISIONS "Following") -------------------------------------------------


def test_follow_a_pair_held_only_inside_a_tractor_is_a_pair() -> None:
    hand = "♥3 ♥3 ♥4 ♥4 ♥9 ♥J"
    assert follow(hand, "♥A ♥A", "♥9 ♥J", LEVEL_7_SPADES) == "you hold a pair in ♥: play a pair"
    assert follow(hand, "♥A ♥A", "♥4 ♥4", LEVEL_7_SPADES) is None


def test_follow_the_longest_tractor_up_to_the_leads_length_then_pairs_then_singles() -> None:
    trump = LEVEL_7_SPADES
    hand = "♥2 ♥2 ♥3 ♥3 ♥4 ♥4 ♥9 ♥9 ♥J ♥Q"
    lead = "♥10 ♥10 ♥K ♥K ♥A ♥A"  # pair + tractor of two: (2, 1)
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥9 ♥9", trump) is None
    assert follow(hand, lead, "♥3 ♥3 ♥4 ♥4 ♥2 ♥2", trump) is None  # a run of 3 gives 3 pairs
    refused = follow(hand, lead, "♥2 ♥2 ♥9 ♥9 ♥J ♥Q", trump)
    assert refused is not None
    assert refused.startswith("you hold a tractor of 2 pairs in ♥")
    refused = follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥J ♥Q", trump)
    assert refused == "you hold 3 pairs in ♥: play 3 pairs"


def test_follow_a_tractor_of_three_with_a_shorter_tractor_then_a_pair() -> None:
    trump = LEVEL_7_SPADES
    hand = "♥2 ♥2 ♥3 ♥3 ♥9 ♥9 ♥J ♥Q ♥K"
    lead = "♥4 ♥4 ♥5 ♥5 ♥6 ♥6"
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥9 ♥9", trump) is None
    assert follow(hand, lead, "♥2 ♥2 ♥9 ♥9 ♥J ♥Q", trump) is not None


def test_follow_while_the_group_lasts_plays_no_other_card() -> None:
    trump = LEVEL_7_SPADES
    refused = follow("♥3 ♥4 ♥5 ♣3", "♥A ♥A", "♥3 ♣3", trump)
    assert refused == "you hold 3 ♥ cards: play 2 of them and nothing else"
    assert follow("♥3 ♣3 ♣4", "♥A ♥A", "♥3 ♣4", trump) is None
    assert follow("♥3 ♣3 ♣4", "♥A ♥A", "♣3 ♣4", trump) is not None


def test_follow_void_in_the_leads_group_plays_any_cards() -> None:
    assert follow("♣3 ♣9 小王", "♥A ♥A", "♣9 小王", LEVEL_7_SPADES) is None


def test_follow_the_short_refusal_counts_its_other_cards_in_good_english() -> None:
    refused = follow("♥3 ♥4 ♣3 ♣4", "♥J ♥J ♥Q", "♥3 ♣3 ♣4", LEVEL_7_SPADES)
    assert refused == "you hold 2 ♥ cards: play all 2 of your ♥ cards, then any 1 other card"
    refused = follow("♥3 ♣3 ♣4", "♥J ♥J", "♣3 ♣4", LEVEL_7_SPADES)
    assert refused == "you hold 1 ♥ card: play your ♥ card, then any 1 other card"
    hand = cards("♥3 ♥4 ♣3")
    assert follow_rule(hand, classify(cards("♥J"), LEVEL_7_SPADES), LEVEL_7_SPADES).describe() == (
        "play 1 ♥ card"
    )
    assert follow_rule(hand, classify(cards("♦J"), LEVEL_7_SPADES), LEVEL_7_SPADES).describe() == (
        "you have no ♦: play any 1 card"
    )


def test_follow_a_throw_part_by_part_its_tractors_then_its_pairs() -> None:
    trump = LEVEL_7_SPADES
    hand = "♥2 ♥2 ♥3 ♥3 ♥5 ♥5 ♥9 ♥6 ♥Q ♥K"
    lead = "♥10 ♥10 ♥J ♥J ♥A ♥A ♥8"  # tractor of 2, pair, single
    assert classify(cards(lead), trump).shape == (2, 1, 0)
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥5 ♥5 ♥9", trump) is None
    assert follow(hand, lead, "♥2 ♥2 ♥3 ♥3 ♥9 ♥6 ♥Q", trump) == (
        "you hold 3 pairs in ♥: play 3 pairs"
    )
    refused = follow(hand, lead, "♥2 ♥2 ♥5 ♥5 ♥9 ♥6 ♥Q", trump)
    assert refused is not None
    assert refused.startswith("you hold a tractor of 2 pairs in ♥")


# --- winning a trick (§8, DECISIONS "Winning a trick") -------------------------------------


def test_trick_equal_plays_go_to_the_earlier() -> None:
    assert winner(["♥9", "♥9", "♥3", "♥2"]) == 0
    assert winner(["♥A", "♥5", "♦5", "♣5"]) == 1  # level cards of other suits are equal
    assert winner(["♥A", "♥5", "♦5", "♠5"]) == 3  # the trump suit's level card is higher


def test_trick_another_suit_never_wins_however_high() -> None:
    assert winner(["♥2", "♣A", "♦A", "♥3"]) == 3


def test_trick_a_ruff_needs_the_void_lead_shape_exactly() -> None:
    assert winner(["♥9 ♥9", "♠2 ♠2", "♥3 ♥3", "♣2 ♣2"]) == 1
    assert winner(["♥9 ♥9", "♥5 ♦5", "♥3 ♥3", "♣2 ♣2"]) == 0  # two level cards: no pair
    assert winner(["♥9 ♥9", "小王 大王", "♥3 ♥3", "♣2 ♣2"]) == 0


def test_trick_a_higher_ruff_overruffs_and_an_equal_one_does_not() -> None:
    assert winner(["♥9 ♥9", "♠2 ♠2", "♠3 ♠3", "♥A ♥A"]) == 2
    assert winner(["♥9", "♦5", "♣5", "♥A"]) == 1  # equal ruffs: the earlier
    assert winner(["♥9", "♦5", "♠5", "♥A"]) == 2


def test_trick_a_trump_lead_is_won_by_the_highest_trump_of_its_shape() -> None:
    assert winner(["♠3 ♠3", "♥5 ♥5", "♦5 ♦5", "♠5 ♠5"]) == 3
    assert winner(["♠3 ♠3 ♠4 ♠4", "♠6 ♠6 ♠7 ♠7", "小王 小王 大王 大王", "♠2 ♠2 ♠A ♠A"]) == 1


def test_trick_a_throw_is_beaten_only_if_every_part_is_strictly_higher() -> None:
    lead = "♥Q ♥Q ♥3"
    assert winner([lead, "♠2 ♠2 ♠7", "♠3 ♠3 ♠8", "♣2 ♣3 ♣4"]) == 2
    assert winner([lead, "♠3 ♠3 ♠8", "♠4 ♠4 ♠8", "♣2 ♣3 ♣4"]) == 1  # single equal
    assert winner([lead, "♠3 ♠3 ♠8", "♠2 ♠2 ♠9", "♣2 ♣3 ♣4"]) == 1  # pair lower


# --- throws that do not stand (§9, DECISIONS "Throws that do not stand") --------------------


def test_throw_fails_only_for_a_strictly_higher_part_of_the_same_kind() -> None:
    trump = LEVEL_5_SPADES
    assert verdict("♥A ♥A ♥K", ["♥Q ♥Q ♥J"], trump) is None
    assert verdict("♥A ♥K", ["♥A"], trump) == "♥K"  # the other ♥A beats the single ♥K
    assert verdict("♥A ♥A ♥K", ["♥K"], trump) is None  # an equal single is not higher
    assert verdict("♥Q ♥Q ♥A ♥A", ["♥K ♥K"], trump) == "♥Q ♥Q"
    assert verdict("♥A ♥K", ["♠2 ♠2 大王"], trump) is None  # a ruff does not count
    assert verdict("♥7 ♥A", ["♥K ♥K"], trump) == "♥7"  # a pair holds higher singles too


def test_throw_a_tractor_falls_only_to_a_tractor_at_least_as_long_with_a_higher_top() -> None:
    trump = LEVEL_5_SPADES
    throw = "♥9 ♥9 ♥10 ♥10 ♥A ♥A"
    assert verdict(throw, ["♥J ♥J ♥K ♥K"], trump) is None
    assert verdict(throw, ["♥J ♥J ♥Q ♥Q"], trump) == "♥A ♥A"
    assert verdict(throw, ["♥6 ♥6 ♥7 ♥7 ♥8 ♥8"], trump) is None  # longer but lower
    long_throw = "♥6 ♥6 ♥7 ♥7 ♥8 ♥8 ♥A"
    assert verdict(long_throw, ["♥J ♥J ♥Q ♥Q"], trump) is None  # higher but shorter


def test_throw_in_trumps_is_judged_by_trump_power() -> None:
    trump = LEVEL_5_SPADES
    assert verdict("♠A ♠A 小王", ["大王"], trump) == "小王"
    assert verdict("♠A ♠A ♥5", ["♦5"], trump) is None  # an equal level card
    assert verdict("♠A ♠A ♥5", ["♠5"], trump) == "♥5"
    assert verdict("♠K ♠K ♥5", ["♦5 ♦5"], trump) == "♥5"  # lowest single, not the pair


def test_throw_punished_to_lowest_single_else_pair_else_tractor() -> None:
    trump = LEVEL_5_SPADES
    assert verdict("♥Q ♥Q ♥A", ["♥K ♥K"], trump) == "♥A"  # literal: the single
    assert verdict("♥Q ♥Q ♥A ♥A ♥7 ♥7", ["♥K ♥K"], trump) == "♥7 ♥7"
    assert verdict("♥2 ♥2 ♥3 ♥3 ♥9 ♥9 ♥10 ♥10", ["♥J ♥J ♥Q ♥Q"], trump) == "♥3 ♥3 ♥2 ♥2"


def test_throw_a_partners_cards_never_make_it_fail_in_a_round() -> None:
    hands = deal({0: "♥Q ♥Q ♥A", 2: "♥K ♥K ♥A", 1: "♥3", 3: "♥4"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    round_.declare({})
    round_.bury([c for c in round_.hands[0] if c not in cards("♥Q ♥Q ♥A")][-8:])
    events = round_.play(0, cards("♥Q ♥Q ♥A"))
    assert not any(isinstance(e, ThrowPunished) for e in events)
    assert round_.lead is not None
    assert round_.lead.kind is Kind.THROW


def test_throw_punished_in_a_round_reports_and_returns_the_rest_without_a_refusal() -> None:
    hands = deal({0: "♥Q ♥Q ♥A ♥7", 1: "♥K ♥K", 2: "♥3", 3: "♥4"}, avoid_rank=2)
    round_ = Round(seed=1, deal=hands, banker=0)
    round_.declare({})
    throw = cards("♥Q ♥Q ♥A ♥7")
    round_.bury([c for c in round_.hands[0] if c not in throw][-8:])
    assert round_.refusal(0, throw) is None  # a legal move, with a consequence
    events = round_.play(0, throw)
    punished = [e for e in events if isinstance(e, ThrowPunished)]
    assert len(punished) == 1
    assert punished[0].original == throw
    assert faces_text(punished[0].punished) == "♥7"
    assert "higher pair" in punished[0].reason
    assert "seat" not in punished[0].reason
    assert set(cards("♥Q ♥Q ♥A")) <= set(round_.hands[0])
    assert len(round_.hands[0]) == 24
    assert round_.to_act == 1
    assert round_.lead is not None
    assert round_.lead.kind is Kind.SINGLE


# --- declaring (§4, DECISIONS "Declaring trump") --------------------------------------------


def test_declaring_strength_pair_bj_pair_sj_bj_sj_level_pair_level_single() -> None:
    order = ["♥2", "♥2 ♥2", "小王", "大王", "小王 小王", "大王 大王"]
    made = [declaration_of(0, cards(t), 2) for t in order]
    assert [getattr(d, "strength", None) for d in made] == list(Strength)


def test_declaring_a_level_pair_must_be_one_suit_and_needs_the_level_rank() -> None:
    assert isinstance(declaration_of(0, cards("♥2 ♦2"), 2), str)
    assert isinstance(declaration_of(0, cards("♥3 ♥3"), 2), str)
    assert isinstance(declaration_of(0, cards("小王 大王"), 2), str)
    jokers = declaration_of(0, cards("小王 小王"), 2)
    assert not isinstance(jokers, str)
    assert jokers.suit is None


def test_declaring_ties_go_to_the_seat_nearest_after_the_previous_banker_never_the_faster() -> None:
    for after, expected in ((0, 1), (1, 3), (3, 1)):
        for order in ((1, 3), (3, 1)):
            window = Declaring(4, tie_after=after)
            offers = {1: declaration_of(1, cards("♥2"), 2), 3: declaration_of(3, cards("♠2"), 2)}
            replies = {s: offers[s] for s in order}
            best = window.window({s: d for s, d in replies.items() if not isinstance(d, str)})
            assert best is not None
            assert best.seat == expected


def test_declaring_equal_never_overturns_reinforcing_and_a_big_joker_pair_locks() -> None:
    window = Declaring(4, tie_after=0)
    single = declaration_of(1, cards("♥2"), 2)
    pair = declaration_of(1, cards("♥2 ♥2"), 2)
    other = declaration_of(3, cards("♠2"), 2)
    jokers = declaration_of(2, cards("大王 大王"), 2)
    assert not isinstance(single, str)
    assert not isinstance(pair, str)
    assert not isinstance(other, str)
    assert not isinstance(jokers, str)
    window.window({1: single})
    with pytest.raises(ValueError, match="only a stronger declaration"):
        window.window({3: other})
    assert window.window({1: pair}) == pair  # the same seat reinforces
    assert not window.locked
    assert window.window({2: jokers}) == jokers
    assert window.locked  # nothing can overcall it


def test_declaring_nobody_is_no_trump_and_a_first_banker_drawn_from_the_seed() -> None:
    bankers = set()
    for seed in range(12):
        round_ = Round(seed=seed)
        round_.declare({})
        assert round_.trump is not None
        assert round_.trump.suit is None
        assert round_.banker is not None
        bankers.add(round_.banker)
    assert len(bankers) > 1


def test_declaring_the_first_banker_is_the_seat_whose_declaration_locked() -> None:
    hands = deal({1: "♥2", 3: "小王"})
    round_ = Round(seed=5, deal=hands)
    round_.declare({1: hands[1][:1]})
    round_.declare({3: hands[3][:1]})
    events = round_.declare({})
    locked = [e for e in events if isinstance(e, TrumpLocked)]
    assert round_.banker == 3
    assert locked
    assert round_.trump is not None
    assert round_.trump.suit is None


# --- the kitty and what each seat sees (§10, DECISIONS "Kitty") -----------------------------


@pytest.mark.parametrize(("players", "hand", "kitty"), [(4, 25, 8), (6, 16, 12)])
def test_kitty_default_size_and_the_banker_buries_as_many_of_any_cards(
    players: int, hand: int, kitty: int
) -> None:
    rules = TractorRules.model_validate({"players": players})
    round_ = Round(rules, seed=2, banker=0)
    assert [len(h) for h in round_.hands] == [hand] * players
    assert len(round_.kitty) == kitty
    round_.declare({})
    assert len(round_.hands[0]) == hand + kitty
    assert seat_view(round_, 0).kitty == round_.kitty
    assert all(seat_view(round_, s).kitty is None for s in range(1, players))
    trumps = [c for c in round_.hands[0] if round_.trump and round_.trump.is_trump(c)]
    points_first = sorted(round_.hands[0], key=lambda c: (c not in trumps, c))[:kitty]
    round_.bury(points_first)  # trumps and points may be buried
    assert seat_view(round_, 1).buried is None
    assert seat_view(round_, 0).buried == tuple(points_first)


# --- scoring and levels (§11, §12, DECISIONS "Scoring and levels") ---------------------------


def score(
    *,
    players: int = 4,
    banker: int = 0,
    levels: tuple[int, int] = (2, 2),
    trick_points: int = 0,
    kitty_points: int = 0,
    last_winner: int = 0,
    last_lead: Kind = Kind.SINGLE,
) -> RoundScore:
    return settle(
        players=players,
        banker=banker,
        levels=levels,
        trick_points=trick_points,
        kitty_points=kitty_points,
        last_winner=last_winner,
        last_lead=last_lead,
    )


def test_kill_doubles_or_quadruples_by_the_last_leads_kind_only_for_defenders() -> None:
    assert score(kitty_points=20, last_winner=1).defender_points == 40
    assert score(kitty_points=20, last_winner=1, last_lead=Kind.TRACTOR).defender_points == 80
    assert score(kitty_points=20, last_winner=3, last_lead=Kind.PAIR).defender_points == 80
    assert score(kitty_points=20, last_winner=2, last_lead=Kind.PAIR).defender_points == 0


@pytest.mark.parametrize(
    ("points", "team", "delta"),
    [(0, 0, 1), (75, 0, 1), (80, 1, 1), (115, 1, 1), (120, 1, 2), (155, 1, 2), (160, 1, 3)],
)
def test_level_thresholds_160_120_80_else_the_bankers_go_up_one(
    points: int, team: int, delta: int
) -> None:
    result = score(trick_points=points, last_winner=0)
    assert result.up_team == team
    assert result.delta == delta


def test_next_banker_defender_who_took_the_last_trick_else_the_next_defender() -> None:
    assert score(trick_points=80, last_winner=3).next_banker == 3
    assert score(trick_points=80, last_winner=2).next_banker == 1
    assert score(players=6, banker=4, trick_points=80, last_winner=2).next_banker == 5
    assert score(trick_points=40, banker=2, last_winner=3).next_banker == 2


def test_levels_stop_at_a_and_reaching_a_ends_the_match() -> None:
    result = score(levels=(12, 13), banker=1, trick_points=0, last_winner=1)
    assert result.levels_after == (12, 14)
    assert result.delta == 1
    assert match_winner(result, TractorRules()) == 1
    assert match_winner(result, TractorRules(play_through=True)) is None
    at_a = score(levels=(14, 10), banker=0, trick_points=75, last_winner=1)
    assert match_winner(at_a, TractorRules(play_through=True)) == 0
    lost = score(levels=(14, 10), banker=0, trick_points=80, last_winner=1)
    assert match_winner(lost, TractorRules(play_through=True)) is None


def test_a_round_limit_goes_to_the_higher_level_then_the_points_else_a_draw() -> None:
    match = Match(TractorRules(round_limit=1), seed=3)
    match.levels, match.points = (5, 5), [40, 40]
    assert match._leader() is None
    match.points = [40, 45]
    assert match._leader() == 1
    match.levels = (6, 5)
    assert match._leader() == 0


def test_the_lead_request_states_the_punishment_as_the_rules_do() -> None:
    """§9: the lowest single, else the lowest pair, else the lowest tractor (not the
    lowest part: ♥Q ♥Q ♥A is played as ♥A)."""
    round_ = Round(seed=4, banker=0)
    round_.declare({})
    round_.bury(round_.hands[0][:8])
    said = round_.requirement(0)
    assert "lowest single, else its lowest pair, else its lowest tractor" in said
    assert "higher single, pair or tractor" in said


def test_trick_no_trump_level_pairs_of_two_suits_tie_and_the_earlier_wins() -> None:
    no_trump = trump_context(5, None)
    assert winner(["♥5 ♥5", "♠5 ♠5", "小王 小王", "♦5 ♦5"], no_trump) == 2
    assert winner(["♥5 ♥5", "♠5 ♠5", "♣5 ♣5", "♦5 ♦5"], no_trump) == 0


def test_declaring_ties_in_a_later_round_go_after_the_previous_rounds_banker() -> None:
    match = Match(TractorRules(), seed=11)
    first = match.new_round()
    first.declare({})
    assert first.banker is not None
    first.bury(first.fallback())
    while first.phase is not Phase.FINISHED:
        seat = first.to_act
        assert seat is not None
        first.play(seat, first.fallback())
    match.record(first)
    assert match.new_round().declaring.tie_after == first.banker
