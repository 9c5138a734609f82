"""Which seat a gift is for, when the platform does not say.

A viewer rarely picks a seat in the platform's interface; they write it: "换牌给 Alpha",
"cheer for bob!". A gift without a ``target_seat`` goes to the player its message names
(the longest name found wins, ignoring case and width, so "Al" never beats "Alpha"); a
message naming none, or two at once, gets a seeded draw: the same match seed and gift
id always pick the same seat, so a replay or a tournament check picks it again.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from arena.table import derive_seed
from gifts.events import GiftEvent

__all__ = ["named_seat", "pick_target", "seeded_seat"]


def pick_target(gift: GiftEvent, players: Sequence[str], *, match_seed: int) -> int:
    """The gift's seat: the one it says, else the one its message names, else a draw
    among the table's seats (one per player)."""
    if gift.target_seat is not None:
        return gift.target_seat
    named = named_seat(gift.message, players)
    return named if named is not None else seeded_seat(gift, match_seed, len(players))


def named_seat(message: str, players: Sequence[str]) -> int | None:
    """The seat whose player the message names, if exactly one is named (the longest
    match first: a name inside another name is not a second name)."""
    text = _fold(message)
    if not text:
        return None
    found: list[tuple[int, int]] = []  # (seat, name length), longest first
    for seat in sorted(range(len(players)), key=lambda s: -len(players[s])):
        name = _fold(players[seat])
        if name and name in text:
            found.append((seat, len(name)))
            text = text.replace(name, " ")  # a shorter name inside it is not a second one
    return found[0][0] if len(found) == 1 else None


def seeded_seat(gift: GiftEvent, match_seed: int, seats: int) -> int:
    """One of ``seats`` seats, drawn from the match seed and the gift's platform and id:
    stable on every machine (the arena's :func:`~arena.table.derive_seed`, as the deals
    are)."""
    return derive_seed(match_seed, "target", gift.platform, gift.event_id) % seats


def _fold(text: str) -> str:
    """Case and width folded (Ａｌｐｈａ is Alpha), so a viewer's spelling still names a seat."""
    return unicodedata.normalize("NFKC", text).casefold()
