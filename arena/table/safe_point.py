"""The narrow handle a safe point gets: the engine's gift hooks, and the facts a gift needs.

A safe point (the gifts layer's chance to act, between two turns) must not be able to
play for a seat, skip a turn or rewrite the history, so it never sees the table or the
round. It gets a :class:`SafePointHandle` instead: the three effect hooks of
:class:`~arena.games.ddz.engine.Round` (each recorded in the round's history, then announced and
written to the replay by the table before the next turn), and read-only facts that
decide whether and where an effect may apply (each effect's window): the
phase, whose turn it is, who is landlord, whether that seat leads, the card counts and
the viewer doubles so far.

:meth:`SafePointHandle.hand` is hidden information: the hooks move named cards, so a gift
picks them from a hand. What it picks is the replay's to keep; the public event says only
which seats and how many cards.

The table closes the handle when the safe point ends: a hook that kept it and used it
later, while an agent is deciding, gets an error instead of changing the cards.

Between two rounds a gift may change the next one (角色互换, 重新洗牌): a between-rounds
hook gets a :class:`BetweenRoundsHandle` on the round the match prepared
(:class:`NextRound`), which can make a seat landlord without bidding or deal afresh
from a seed derived from the match seed, the round and the gift's id. Each change is
kept in the plan (and so in the replay's round header and the round's record).

:meth:`SafePointHandle.cheer` hands a seat a short audience line, quoted in its next
PLAY_REQUEST's ``audience`` (viewer chatter, never an instruction).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final

from arena.errors import IllegalActionError
from arena.games.ddz.engine import Card, CardLike, Phase, Round

__all__ = [
    "AUDIENCE_LINES",
    "BetweenRounds",
    "BetweenRoundsHandle",
    "NextRound",
    "SafePoint",
    "SafePointHandle",
]

AUDIENCE_LINES: Final = 10
"""At most this many audience lines wait for a seat's next request (the protocol's cap);
an older one makes room for a newer."""
AUDIENCE_LINE_CHARS: Final = 100


class SafePointHandle:
    """What a safe point may read and do to the round it interrupts."""

    __slots__ = ("__audience", "__round")

    def __init__(self, rnd: Round, audience: list[list[str]] | None = None) -> None:
        self.__round: Round | None = rnd
        self.__audience = audience

    # --- reading the state ----------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """Where the round is (cards change hands only while ``PLAYING``)."""
        return self._round().phase

    @property
    def to_act(self) -> int | None:
        """The seat whose turn comes next."""
        return self._round().to_act

    @property
    def landlord(self) -> int | None:
        """The landlord's seat, once bidding is over."""
        return self._round().landlord

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act leads a new trick (SWAP and ADD wait for this)."""
        return self._round().is_leading

    @property
    def hand_sizes(self) -> tuple[int, int, int]:
        """Cards in each seat's hand (public: the last-5-cards rule reads them)."""
        hands = self._round().hands
        return (len(hands[0]), len(hands[1]), len(hands[2]))

    @property
    def gift_doubles(self) -> int:
        """Viewer doubles this round so far (the rules cap them)."""
        return self._round().gift_doubles

    def hand(self, seat: int) -> tuple[Card, ...]:
        """One seat's cards, to pick the card an effect moves (hidden: never publish)."""
        return self._round().hand(seat)

    # --- the effect hooks -----------------------------------------------------------------

    def swap_cards(self, seat_a: int, card_a: CardLike, seat_b: int, card_b: CardLike) -> None:
        """Exchange one card of ``seat_a`` with one of ``seat_b`` (换牌)."""
        self._round().swap_cards(seat_a, card_a, seat_b, card_b)

    def transfer_card(self, source: int, target: int, moved: CardLike) -> None:
        """Move one card from ``source`` to ``target`` (加牌)."""
        self._round().transfer_card(source, target, moved)

    def add_gift_double(self) -> int:
        """A viewer's 翻倍; returns the round's viewer doubles so far."""
        return self._round().add_gift_double()

    def cheer(self, seat: int, line: str) -> None:
        """A viewer's line (加油) for ``seat``'s next PLAY_REQUEST, quoted as audience
        chatter. The caller cleans it; it is cut to the protocol's 100 characters here."""
        self._round()
        if self.__audience is None:
            raise IllegalActionError("this table takes no audience lines")
        if not 0 <= seat <= 2:
            raise IllegalActionError(f"no seat {seat}")
        text = line.strip()
        if len(text) > AUDIENCE_LINE_CHARS:  # cut as viewer text is cut elsewhere: marked
            text = text[: AUDIENCE_LINE_CHARS - 1].rstrip() + "…"
        if not text:
            raise IllegalActionError("an empty audience line")
        waiting = self.__audience[seat]
        waiting.append(text)
        del waiting[:-AUDIENCE_LINES]

    # --- the table's side -----------------------------------------------------------------

    def close(self) -> None:
        """End the safe point: from now on every read and hook raises."""
        self.__round = None
        self.__audience = None

    def _round(self) -> Round:
        rnd = self.__round
        if rnd is None:
            raise IllegalActionError("the safe point is over: effects apply only between turns")
        return rnd


SafePoint = Callable[[SafePointHandle], Awaitable[None]]
"""Called between turns (the gift hook): may change the round through the handle's hooks."""


@dataclass
class NextRound:
    """The round a match is about to play, as it prepared it; a gift between rounds may
    change it (:class:`BetweenRoundsHandle`)."""

    round_no: int
    seed: int
    """The deal's seed (a reshuffle replaces it)."""
    first_bidder: int | None = None
    landlord: int | None = None
    """Set: bidding is skipped, this seat is landlord at ``call_score``."""
    call_score: int | None = None
    changes: list[dict[str, Any]] = field(default_factory=list)
    """What gifts changed, in order (the replay's header keeps it): ``{"effect":
    "ROLE_SWAP", "gift": id, "seat", "call_score"}`` or ``{"effect": "RESHUFFLE", "gift":
    id, "prepared_seed", "seed"}``."""

    @property
    def effects(self) -> tuple[str, ...]:
        """The effects that changed it, in order (the round record marks them)."""
        return tuple(str(change["effect"]) for change in self.changes)


class BetweenRoundsHandle:
    """What a between-rounds hook may read and change of the next round (see the module)."""

    __slots__ = ("_last_call_score", "_last_landlord", "_open", "_plan", "_reseed")

    def __init__(
        self,
        plan: NextRound,
        *,
        reseed: Callable[[str], int],
        last_landlord: int | None,
        last_call_score: int | None,
    ) -> None:
        self._plan = plan
        self._reseed = reseed
        """A reshuffled deal's seed from the gift's id (the match derives it)."""
        self._last_landlord = last_landlord
        self._last_call_score = last_call_score
        self._open = True

    @property
    def round_no(self) -> int:
        """The round about to be played."""
        return self._plan_open()._plan.round_no

    @property
    def last_landlord(self) -> int | None:
        """The previous round's landlord (None before the first)."""
        return self._plan_open()._last_landlord

    @property
    def landlord(self) -> int | None:
        """The next round's landlord when a gift already chose it."""
        return self._plan_open()._plan.landlord

    @property
    def reshuffled(self) -> bool:
        """Whether the next deal was already thrown away and dealt afresh."""
        return any(c["effect"] == "RESHUFFLE" for c in self._plan_open()._plan.changes)

    def make_landlord(self, seat: int, gift_id: str) -> int:
        """角色互换: the next round skips bidding and ``seat`` is landlord at the last call
        score (1 if none); returns that score. A second one before the same round is
        refused: the first viewer's choice stands."""
        plan = self._plan_open()._plan
        if not 0 <= seat <= 2:
            raise IllegalActionError(f"no seat {seat}")
        if plan.landlord is not None:
            raise IllegalActionError("the next round's landlord is already chosen by a gift")
        score = self._last_call_score or 1
        plan.landlord, plan.call_score = seat, score
        plan.changes.append(
            {"effect": "ROLE_SWAP", "gift": gift_id, "seat": seat, "call_score": score}
        )
        return score

    def reshuffle(self, gift_id: str) -> int:
        """重新洗牌: the prepared deal is thrown away; the new one's seed derives from the
        match seed, the table, the round and the gift's id (so a replay or a tournament
        check can derive it again). Returns the new seed. Once per round: a second
        reshuffle would change nothing a viewer can see."""
        plan = self._plan_open()._plan
        if self.reshuffled:
            raise IllegalActionError("the next deal is already reshuffled")
        seed = self._reseed(gift_id)
        plan.changes.append(
            {"effect": "RESHUFFLE", "gift": gift_id, "prepared_seed": plan.seed, "seed": seed}
        )
        plan.seed = seed
        return seed

    def close(self) -> None:
        """The next round starts: from now on every read and change raises."""
        self._open = False

    def _plan_open(self) -> BetweenRoundsHandle:
        if not self._open:
            raise IllegalActionError("the break between rounds is over")
        return self


BetweenRounds = Callable[[BetweenRoundsHandle], Awaitable[None]]
"""Called before each round after the first (the gifts' 局间 window): may change the next
round through the handle."""
