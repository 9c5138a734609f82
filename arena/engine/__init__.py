"""The Dou Dizhu rules engine: pure, synchronous, no I/O."""

from arena.engine.bidding import AuctionOutcome
from arena.engine.cards import (
    CARDS_BY_TEXT,
    DECK,
    Card,
    CardLike,
    card,
    cards_of,
    resolve_cards,
    sorted_cards,
)
from arena.engine.combos import (
    PASS,
    READING_ORDER,
    Combo,
    ComboType,
    beats,
    chain_length,
    classify,
    is_bomb_like,
    rank_counts,
    readings,
)
from arena.engine.moves import HandIndex, is_forced_pass, legal_moves, legal_plays
from arena.engine.records import (
    Action,
    BidAction,
    Deal,
    Dealt,
    DoubleAction,
    EffectApplied,
    LandlordChosen,
    PlayAction,
    RoundResult,
    TrickWon,
)
from arena.engine.round import Phase, Round
from arena.engine.rules import DEFAULT_RULES, Rules
from arena.engine.scoring import Settlement, settle

__all__ = [
    "CARDS_BY_TEXT",
    "DECK",
    "DEFAULT_RULES",
    "PASS",
    "READING_ORDER",
    "Action",
    "AuctionOutcome",
    "BidAction",
    "Card",
    "CardLike",
    "Combo",
    "ComboType",
    "Deal",
    "Dealt",
    "DoubleAction",
    "EffectApplied",
    "HandIndex",
    "LandlordChosen",
    "Phase",
    "PlayAction",
    "Round",
    "RoundResult",
    "Rules",
    "Settlement",
    "TrickWon",
    "beats",
    "card",
    "cards_of",
    "chain_length",
    "classify",
    "is_bomb_like",
    "is_forced_pass",
    "legal_moves",
    "legal_plays",
    "rank_counts",
    "readings",
    "resolve_cards",
    "settle",
    "sorted_cards",
]
