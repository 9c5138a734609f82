"""Legal move generation, checked against brute force.

The brute force is the definition of a legal play in docs/rules.md taken literally: every
sub-multiset of the hand's ranks that has a reading (leading), or that has a reading that
beats the trick (following: "legal if any of its readings beats the trick", docs/rules.md).
``legal_moves`` must give exactly those, one entry per rank multiset, with concrete cards
of the hand.

Card sets are written compactly by rank, as in test_combos.py: ``"333444+5+6"``.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator, Sequence
from itertools import product

import pytest
from cardtext import Reading, cs, reading
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.games.ddz.engine import (
    DECK,
    DEFAULT_RULES,
    PASS,
    Card,
    Combo,
    ComboType,
    Rules,
    beats,
    classify,
    is_forced_pass,
    legal_moves,
    legal_plays,
    readings,
)

T = ComboType

RULE_SETS = {
    "default": DEFAULT_RULES,
    "loose_wings": Rules(loose_wings=True),
    "four_with_pair": Rules(four_with_pair=True),
    "quadplex_as_bomb": Rules(quadplex_as_bomb=True),
    "all_variants": Rules(loose_wings=True, four_with_pair=True, quadplex_as_bomb=True),
}

Key = tuple[int, ...]


def key_of(cards: Sequence[Card]) -> Key:
    return tuple(sorted(c.rank for c in cards))


def trick(text: str, kind: ComboType, rules: Rules = DEFAULT_RULES) -> Combo:
    """The reading of ``text`` of the given type: a play to follow."""
    (combo,) = [c for c in readings(cs(text), rules) if c.type is kind][:1]
    return combo


# --- the brute force ---------------------------------------------------------------------

_READINGS: dict[tuple[str, Key], list[Combo]] = {}


def readings_of_key(key: Key, cards: list[Card], rules_name: str) -> list[Combo]:
    """readings() of a rank multiset; memoised, since suits never matter."""
    found = _READINGS.get((rules_name, key))
    if found is None:
        found = _READINGS[(rules_name, key)] = readings(cards, RULE_SETS[rules_name])
    return found


def sub_multisets(hand: Sequence[Card]) -> Iterator[tuple[Key, list[Card]]]:
    """Every non-empty sub-multiset of the hand's ranks, with cards of the hand."""
    by_rank: dict[int, list[Card]] = {}
    for c in hand:
        by_rank.setdefault(c.rank, []).append(c)
    ranks = sorted(by_rank)
    for take in product(*(range(len(by_rank[r]) + 1) for r in ranks)):
        cards = [c for r, k in zip(ranks, take, strict=True) for c in by_rank[r][:k]]
        if cards:
            yield key_of(cards), cards


class BruteForce:
    """Every playable sub-multiset of one hand under one rule set."""

    def __init__(self, hand: Sequence[Card], rules_name: str) -> None:
        self.rules = RULE_SETS[rules_name]
        self.playable = [
            (key, found)
            for key, cards in sub_multisets(hand)
            if (found := readings_of_key(key, cards, rules_name))
        ]

    def moves(self, last: Combo | None) -> set[Key]:
        if last is None:
            return {key for key, _ in self.playable}
        return {
            key for key, found in self.playable if any(beats(r, last, self.rules) for r in found)
        }

    def leads(self) -> set[tuple[Key, Reading | None]]:
        """Every lead: each reading of a set is a lead of its own (its hand_type)."""
        return {(key, reading(r)) for key, found in self.playable for r in found}


def leads_by_set(hand: Sequence[Card], rules: Rules) -> list[list[Combo]]:
    """legal_moves' leads, grouped by card set (ranks), in the order listed."""
    by_set: dict[Key, list[Combo]] = {}
    for move in legal_moves(hand, None, rules):
        by_set.setdefault(key_of(move.cards), []).append(move)
    return list(by_set.values())


def missing_leads(hand: Sequence[Card], rules_name: str, brute: BruteForce) -> list[str]:
    """Leads (a set in one reading) the brute force finds and legal_moves does not list."""
    listed = {(key_of(m.cards), reading(m)) for m in legal_moves(hand, None, RULE_SETS[rules_name])}
    missing = sorted(brute.leads() - listed, key=str)[:5]
    return (
        [f"[{rules_name}] {' '.join(c.text for c in hand)}: leads missing {missing}"]
        if missing
        else []
    )


def problems(
    hand: Sequence[Card], last: Combo | None, rules_name: str, expected: set[Key]
) -> list[str]:
    """Everything wrong with legal_moves(hand, last) compared with the brute force."""
    rules = RULE_SETS[rules_name]
    where = f"[{rules_name}] hand {' '.join(sorted(c.text for c in hand))} / last {last}"
    moves = legal_moves(hand, last, rules)
    keys = [key_of(m.cards) for m in moves]
    out: list[str] = []
    if set(keys) != expected:
        missing = sorted(expected - set(keys))[:5]
        extra = [str(m) for m in moves if key_of(m.cards) not in expected][:5]
        out.append(f"{where}: missing {missing}, extra {extra}")
    # Following, one entry per set (any reading that beats will do); leading, one per
    # reading of a set (each is a different lead).
    entries = (
        keys if last is not None else [(k, reading(m)) for k, m in zip(keys, moves, strict=True)]
    )
    dupes = [k for k, n in Counter(entries).items() if n > 1]
    if dupes:
        out.append(f"{where}: duplicate entries {dupes[:5]}")
    in_hand = set(hand)
    for move in moves:
        if len(set(move.cards)) != len(move.cards) or not set(move.cards) <= in_hand:
            out.append(f"{where}: {move} uses cards not in the hand")
        found = [(r.type, r.main_rank, r.length) for r in readings(move.cards, rules)]
        if (move.type, move.main_rank, move.length) not in found:
            out.append(f"{where}: {move} is not a reading of its cards ({found})")
        if not beats(move, last, rules):
            out.append(f"{where}: {move} does not beat the trick")
    return out


# --- tricks to follow --------------------------------------------------------------------

TRICKS: list[tuple[str, ComboType]] = [
    ("3", T.SINGLE),
    ("9", T.SINGLE),
    ("2", T.SINGLE),
    ("小王", T.SINGLE),
    ("33", T.PAIR),
    ("88", T.PAIR),
    ("333", T.TRIPLE),
    ("777", T.TRIPLE),
    ("333+4", T.TRIPLE_WITH_SINGLE),
    ("666+2", T.TRIPLE_WITH_SINGLE),
    ("333+44", T.TRIPLE_WITH_PAIR),
    ("777+33", T.TRIPLE_WITH_PAIR),
    ("34567", T.STRAIGHT),
    ("56789", T.STRAIGHT),
    ("345678", T.STRAIGHT),
    ("334455", T.STRAIGHT_PAIR),
    ("556677", T.STRAIGHT_PAIR),
    ("33445566", T.STRAIGHT_PAIR),
    ("333444", T.AIRPLANE),
    ("555666", T.AIRPLANE),
    ("333444555", T.AIRPLANE),
    ("333444+5+6", T.AIRPLANE_WITH_SINGLES),
    ("555666+3+4", T.AIRPLANE_WITH_SINGLES),
    ("333444+55+66", T.AIRPLANE_WITH_PAIRS),
    ("3333+5+6", T.FOUR_WITH_TWO_SINGLES),
    ("6666+3+4", T.FOUR_WITH_TWO_SINGLES),
    ("3333+55+66", T.FOUR_WITH_TWO_PAIRS),
    ("3333", T.BOMB),
    ("8888", T.BOMB),
    ("小王大王", T.ROCKET),
]
VARIANT_TRICKS: dict[str, list[tuple[str, ComboType]]] = {
    "loose_wings": [
        ("333444+55", T.AIRPLANE_WITH_SINGLES),
        ("333444555+666", T.AIRPLANE_WITH_SINGLES),  # reads as main 6 and main 5
    ],
    "four_with_pair": [("3333+55", T.FOUR_WITH_TWO_SINGLES)],
}
VARIANT_TRICKS["all_variants"] = VARIANT_TRICKS["loose_wings"] + VARIANT_TRICKS["four_with_pair"]


def tricks_for(rules_name: str) -> list[Combo]:
    rules = RULE_SETS[rules_name]
    texts = TRICKS + VARIANT_TRICKS.get(rules_name, [])
    found = [c for text, kind in texts for c in readings(cs(text), rules) if c.type is kind]
    return found


def test_the_tricks_cover_every_type() -> None:
    assert {c.type for c in tricks_for("default")} == set(ComboType) - {T.PASS}


# --- random hands against the brute force ------------------------------------------------

HANDS_PER_CHUNK = 25
CHUNKS = 12  # 300 hands per rule set


def random_hands(seed: int) -> list[list[Card]]:
    """Hands of 8-12 cards: half from the whole deck, half dense (few ranks, many repeats)."""
    rng = random.Random(seed)
    hands = []
    for i in range(HANDS_PER_CHUNK):
        size = rng.randint(8, 12)
        if i % 2:
            first = rng.randint(3, 10)
            ranks = {*range(first, first + rng.randint(3, 5)), *rng.sample([15, 16, 17], 2)}
            pool = [c for c in DECK if c.rank in ranks]
        else:
            pool = list(DECK)
        hands.append(rng.sample(pool, min(size, len(pool))))
    return hands


def test_the_random_hands_hold_every_type() -> None:
    # Otherwise the comparison below would prove little about the rarer shapes.
    held: Counter[ComboType] = Counter()
    for chunk in range(CHUNKS):
        for hand in random_hands(1000 + chunk):
            held.update({c.type for c in legal_moves(hand, None)})
    assert set(held) == set(ComboType) - {T.PASS}
    assert min(held.values()) >= 5


@pytest.mark.parametrize("chunk", range(CHUNKS))
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_legal_moves_match_brute_force_on_random_hands(rules_name: str, chunk: int) -> None:
    tricks = tricks_for(rules_name)
    rng = random.Random(chunk)
    found: list[str] = []
    for hand in random_hands(1000 + chunk):
        brute = BruteForce(hand, rules_name)
        found += problems(hand, None, rules_name, brute.moves(None))
        found += missing_leads(hand, rules_name, brute)
        # Also follow a few of this hand's own leads, to reach every reachable shape.
        own = [c for _, found_readings in brute.playable for c in found_readings]
        for last in [*tricks, *rng.sample(own, min(6, len(own)))]:
            found += problems(hand, last, rules_name, brute.moves(last))
    assert found[:10] == []


@pytest.mark.parametrize("chunk", range(4))
@pytest.mark.parametrize("rules_name", RULE_SETS)
def test_a_set_leads_in_each_reading_the_preferred_first(rules_name: str, chunk: int) -> None:
    # Leading, a reply's hand_type picks the reading, and without one the engine takes
    # the first (docs/rules.md): the list holds each, the preferred one first.
    rules = RULE_SETS[rules_name]
    for hand in random_hands(2000 + chunk):
        for moves in leads_by_set(hand, rules):
            assert [reading(m) for m in moves] == [
                reading(r) for r in readings(moves[0].cards, rules)
            ]
            assert reading(moves[0]) == reading(classify(moves[0].cards, rules))


# --- hand-made 20-card hands -------------------------------------------------------------

BIG_HANDS = [
    "33334444555566667777",  # bombs and airplanes everywhere
    "333444555666777+88+99+小王",  # a five-triple airplane
    "3344556677+8888+2222+小王大王",  # straight pairs, bombs, the rocket
    "AAAA 2222 KKKK 小王 大王 333 444",  # high bombs, rocket, wings
    "345678910JQKA+333+444+55",  # a 12-card straight inside bombs
    "888999 10 10 10 JJJ+QQ+KK+A+2+33",  # a four-triple airplane, high wings
]


@pytest.mark.parametrize("rules_name", ["default", "all_variants"])
@pytest.mark.parametrize("text", BIG_HANDS)
def test_legal_moves_match_brute_force_on_20_card_hands(text: str, rules_name: str) -> None:
    hand = cs(text)
    assert len(hand) == 20
    brute = BruteForce(hand, rules_name)
    found = problems(hand, None, rules_name, brute.moves(None))
    found += missing_leads(hand, rules_name, brute)
    for last in tricks_for(rules_name):
        found += problems(hand, last, rules_name, brute.moves(last))
    assert found[:10] == []


@pytest.mark.parametrize(
    ("hand", "last", "expected"),
    [
        # Leading: every combination, one per rank multiset.
        ("3", None, {"3"}),
        ("33", None, {"3", "33"}),
        ("小王大王", None, {"小王", "大王", "小王大王"}),
        ("3334", None, {"3", "4", "33", "333", "333+4"}),
        ("33334", None, {"3", "4", "33", "333", "333+4", "3333"}),
        # Following: the same type and length, higher; or a bomb; or the rocket.
        ("3456789", ("34567", T.STRAIGHT), {"45678", "56789"}),
        ("4455667", ("334455", T.STRAIGHT_PAIR), {"445566"}),
        ("44556677", ("334455", T.STRAIGHT_PAIR), {"445566", "556677"}),
        ("5555+2+小王", ("AA", T.PAIR), {"5555"}),
        ("5555+小王大王", ("2", T.SINGLE), {"小王", "大王", "5555", "小王大王"}),
        ("5555+小王大王", ("4444", T.BOMB), {"5555", "小王大王"}),
        ("5555+小王大王", ("6666", T.BOMB), {"小王大王"}),
        ("5555+小王大王+AA", ("小王大王", T.ROCKET), set()),
        ("4444+5+6", ("3333+7+8", T.FOUR_WITH_TWO_SINGLES), {"4444+5+6", "4444"}),
        ("4444+55+66", ("3333+7+8", T.FOUR_WITH_TWO_SINGLES), {"4444+5+6", "4444"}),
        (
            "444555+6+7+88",
            ("333444+5+6", T.AIRPLANE_WITH_SINGLES),
            {"444555+6+7", "444555+6+8", "444555+7+8"},
        ),
        ("444555+66+77", ("333444+88+99", T.AIRPLANE_WITH_PAIRS), {"444555+66+77"}),
    ],
)
def test_small_hands_by_hand(
    hand: str, last: tuple[str, ComboType] | None, expected: set[str]
) -> None:
    trick_combo = None if last is None else trick(*last)
    moves = legal_moves(cs(hand), trick_combo)
    got = {key_of(m.cards) for m in moves}
    assert got == {key_of(cs(text)) for text in expected}
    assert len(moves) == len(got)


QUADPLEX = RULE_SETS["quadplex_as_bomb"]


@pytest.mark.parametrize(
    ("hand", "last", "expected"),
    [
        # A quadplex is a bomb of its quad's rank: it beats ordinary plays ...
        ("5555+3+6", ("4", T.SINGLE), {"5", "6", "5555", "5555+3+6"}),
        ("5555+33", ("22", T.PAIR), {"5555"}),  # 33 is no quadplex kicker by default
        # ... and bombs and quadplexes of a lower rank, once each ...
        ("5555+3+6", ("4444", T.BOMB), {"5555", "5555+3+6"}),
        ("5555+33+66", ("4444", T.BOMB), {"5555", "5555+3+6", "5555+33+66"}),
        ("5555+3+6", ("4444+7+8", T.FOUR_WITH_TWO_SINGLES), {"5555", "5555+3+6"}),
        ("5555+33+66", ("4444+7+8", T.FOUR_WITH_TWO_SINGLES), {"5555", "5555+3+6", "5555+33+66"}),
        # ... but never a bomb or quadplex of a higher rank.
        ("3333+5+6", ("4444", T.BOMB), set()),
        ("3333+55+66", ("4444", T.BOMB), set()),
        ("3333+5+6", ("4444+7+8", T.FOUR_WITH_TWO_SINGLES), set()),
        ("3333+55+66+小王大王", ("4444", T.BOMB), {"小王大王"}),
    ],
)
def test_quadplex_as_bomb_by_hand(
    hand: str, last: tuple[str, ComboType], expected: set[str]
) -> None:
    moves = legal_moves(cs(hand), trick(*last), QUADPLEX)
    got = [key_of(m.cards) for m in moves]
    assert sorted(got) == sorted({key_of(cs(text)) for text in expected})


def test_an_ambiguous_set_follows_with_whichever_reading_beats() -> None:
    # docs/rules.md: following, a set is legal if any of its readings beats the trick.
    loose = RULE_SETS["loose_wings"]
    hand = cs("333444555666")  # AIRPLANE 3-6, or 4-6 + 333, or 3-5 + 666
    lead = legal_moves(hand, None, loose)
    whole = [m for m in lead if len(m.cards) == 12]
    assert [reading(m) for m in whole] == [  # leading: each reading is a lead of its own
        (T.AIRPLANE, 6, 4),  # the first reading first: what a lead without hand_type is
        (T.AIRPLANE_WITH_SINGLES, 6, 3),
        (T.AIRPLANE_WITH_SINGLES, 5, 3),
    ]

    on_main_5 = trick("333444555+7+8+9", T.AIRPLANE_WITH_SINGLES)
    (follow,) = [m for m in legal_moves(hand, on_main_5, loose) if len(m.cards) == 12]
    assert reading(follow) == (T.AIRPLANE_WITH_SINGLES, 6, 3)

    on_main_6 = trick("444555666+7+8+9", T.AIRPLANE_WITH_SINGLES)
    assert legal_moves(hand, on_main_6, loose) == []

    on_plane = trick("333444555666", T.AIRPLANE)
    assert legal_moves(hand, on_plane, loose) == []


def test_legal_plays_add_pass_only_when_following() -> None:
    hand = cs("3456789+22")
    leads = legal_plays(hand, None)
    assert PASS not in leads
    assert leads == legal_moves(hand, None)
    follows = legal_plays(hand, trick("A", T.SINGLE))
    assert follows.count(PASS) == 1
    assert [m for m in follows if m != PASS] == legal_moves(hand, trick("A", T.SINGLE))
    assert legal_plays(hand, trick("小王大王", T.ROCKET)) == [PASS]


def test_a_forced_pass_is_when_nothing_beats_the_trick() -> None:
    hand = cs("3456789+22")
    assert not is_forced_pass(hand, None)
    assert not is_forced_pass(hand, trick("A", T.SINGLE))
    assert is_forced_pass(hand, trick("小王", T.SINGLE))
    assert is_forced_pass(hand, trick("3333", T.BOMB))


def test_legal_moves_accept_canonical_strings() -> None:
    by_text = legal_moves(["♠3", "♥3", "♦3", "♣4"], None)
    by_card = legal_moves(cs("3334"), None)
    assert {key_of(m.cards) for m in by_text} == {key_of(m.cards) for m in by_card}


# --- properties --------------------------------------------------------------------------

rule_sets = st.builds(
    Rules, loose_wings=st.booleans(), four_with_pair=st.booleans(), quadplex_as_bomb=st.booleans()
)


@st.composite
def deals(draw: st.DrawFn) -> tuple[list[Card], list[Card]]:
    """Two disjoint hands of up to 20 cards: ours, and the one that led the trick."""
    cards = draw(st.permutations(DECK))
    ours = draw(st.integers(1, 20))
    theirs = draw(st.integers(1, 20))
    return list(cards[:ours]), list(cards[ours : ours + theirs])


@settings(max_examples=150, deadline=None)
@given(deal=deals(), rules=rule_sets, data=st.data())
def test_every_generated_move_classifies_and_beats_the_trick(
    deal: tuple[list[Card], list[Card]], rules: Rules, data: st.DataObject
) -> None:
    hand, other = deal
    last = data.draw(st.sampled_from(legal_moves(other, None, rules)))
    moves = legal_moves(hand, last, rules)
    keys = [key_of(m.cards) for m in moves]
    assert len(keys) == len(set(keys))
    for move in moves:
        assert set(move.cards) <= set(hand)
        assert len(set(move.cards)) == len(move.cards)
        found = [(r.type, r.main_rank, r.length) for r in readings(move.cards, rules)]
        assert (move.type, move.main_rank, move.length) in found
        assert beats(move, last, rules)


@settings(max_examples=100, deadline=None)
@given(deal=deals(), rules=rule_sets)
def test_every_lead_classifies(deal: tuple[list[Card], list[Card]], rules: Rules) -> None:
    hand, _ = deal
    moves = legal_moves(hand, None, rules)
    leads = [(key_of(m.cards), reading(m)) for m in moves]
    assert len(leads) == len(set(leads))  # a set once in each of its readings
    assert len(moves) >= len({c.rank for c in hand})  # at least every single
    for move in moves:
        assert set(move.cards) <= set(hand)
        assert reading(move) in [reading(r) for r in readings(move.cards, rules)]
    for same_set in leads_by_set(hand, rules):
        assert reading(same_set[0]) == reading(classify(same_set[0].cards, rules))
