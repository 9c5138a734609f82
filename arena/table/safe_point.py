"""The narrow handle a safe point gets: the round's gift hooks, and the facts a gift needs.

A safe point (the gifts layer's chance to act, between two turns) must not be able to
play for a seat, skip a turn or rewrite the history, so it never sees the table or the
round. It gets a :class:`SafePointHandle` instead, on the game's :class:`RoundAtSafePoint`
(a narrow view of its round the game's turns build for this moment): the effect hooks
every card game has (swap two cards, move one; each recorded in the round's history,
then announced and written to the replay by the table before the next turn), and
read-only facts that decide whether and where an effect may apply (each effect's
window): the phase, whose turn it is, whether that seat leads, the hand sizes, one per
seat of the table.

What only one game has (Dou Dizhu's viewer double, its landlord) is the game's own part
of the moment (:attr:`SafePointHandle.game_part`), which the game's gift operations
(:class:`GameGifts`, :attr:`arena.games.base.Game.gifts`) read and change.

:meth:`SafePointHandle.hand` is hidden information: the hooks move named cards, so a gift
picks them from a hand. What it picks is the replay's to keep; the public event says only
which seats and how many cards.

The table closes the handle when the safe point ends: a hook that kept it and used it
later, while an agent is deciding, gets an error instead of changing the cards.

Between two rounds a gift may change the next one (重新洗牌, or a game's own change such as
Dou Dizhu's 角色互换): a between-rounds hook gets a :class:`BetweenRoundsHandle` on the
round the match prepared (:class:`NextRound`), which can deal afresh from a seed derived
from the match seed, the round and the gift's id, or fix what the game lets a round fix
(:meth:`BetweenRoundsHandle.fix`). Each change is kept in the plan (and so in the
replay's round header and the round's record).

:meth:`SafePointHandle.cheer` hands a seat a short audience line, quoted in its next
request's ``audience`` (viewer chatter, never an instruction).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Protocol

from arena.errors import IllegalActionError

__all__ = [
    "AUDIENCE_LINES",
    "PHASE_BETWEEN_ROUNDS",
    "PHASE_OVER",
    "PHASE_PLAY",
    "BetweenRounds",
    "BetweenRoundsHandle",
    "GameGifts",
    "NextRound",
    "RoundAtSafePoint",
    "SafePoint",
    "SafePointHandle",
]

AUDIENCE_LINES: Final = 10
"""At most this many audience lines wait for a seat's next request (the protocol's cap);
an older one makes room for a newer."""
AUDIENCE_LINE_CHARS: Final = 100

PHASE_PLAY: Final = "play"
"""The phase in which cards are played (and may change hands): every game has it."""
PHASE_OVER: Final = "over"
"""The round is over: no effect applies any more."""
PHASE_BETWEEN_ROUNDS: Final = "between_rounds"
"""No round is being played: only the between-rounds effects apply."""


class RoundAtSafePoint(Protocol):
    """A game's round as a safe point may see and change it (Dou Dizhu:
    ``arena.games.ddz.gifts.DdzSafePoint``): built by the game's turns for one safe
    point, closed with it."""

    @property
    def phase(self) -> str:
        """The round's phase by name: :data:`PHASE_PLAY`, :data:`PHASE_OVER`, or a
        phase of the game's own before the play (Dou Dizhu: ``bidding``, ``doubling``)."""
        ...

    @property
    def to_act(self) -> int | None:
        """The seat whose turn comes next."""
        ...

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act leads a new trick (SWAP and ADD wait for this)."""
        ...

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand, one per seat of the table."""
        ...

    def hand(self, seat: int) -> tuple[Any, ...]:
        """One seat's cards (each with its ``text``)."""
        ...

    def swap_cards(self, seat_a: int, card_a: Any, seat_b: int, card_b: Any) -> None:
        """Exchange one card of ``seat_a`` with one of ``seat_b``, recorded in the history."""
        ...

    def transfer_card(self, source: int, target: int, moved: Any) -> None:
        """Move one card from ``source`` to ``target``, recorded in the history."""
        ...

    def close(self) -> None:
        """The safe point is over: from now on every read and hook raises."""
        ...


class SafePointHandle:
    """What a safe point may read and do to the round it interrupts."""

    __slots__ = ("__audience", "__round")

    def __init__(self, rnd: RoundAtSafePoint, audience: list[list[str]] | None = None) -> None:
        self.__round: RoundAtSafePoint | None = rnd
        self.__audience = audience

    # --- reading the state ----------------------------------------------------------------

    @property
    def phase(self) -> str:
        """Where the round is (cards change hands only in :data:`PHASE_PLAY`)."""
        return self._round().phase

    @property
    def to_act(self) -> int | None:
        """The seat whose turn comes next."""
        return self._round().to_act

    @property
    def is_leading(self) -> bool:
        """Whether the seat to act leads a new trick (SWAP and ADD wait for this)."""
        return self._round().is_leading

    @property
    def seats(self) -> int:
        """How many seats the table has."""
        return len(self._round().hand_sizes)

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand (public: the last-cards rule reads them)."""
        return tuple(self._round().hand_sizes)

    @property
    def game_part(self) -> Any:
        """The game's own part of the moment (Dou Dizhu: its landlord, its viewer
        doubles and the hook that adds one), for the game's gift operations."""
        return self._round()

    def hand(self, seat: int) -> tuple[Any, ...]:
        """One seat's cards, to pick the card an effect moves (hidden: never publish)."""
        return self._round().hand(seat)

    # --- the effect hooks -----------------------------------------------------------------

    def swap_cards(self, seat_a: int, card_a: Any, seat_b: int, card_b: Any) -> None:
        """Exchange one card of ``seat_a`` with one of ``seat_b`` (换牌)."""
        self._round().swap_cards(seat_a, card_a, seat_b, card_b)

    def transfer_card(self, source: int, target: int, moved: Any) -> None:
        """Move one card from ``source`` to ``target`` (加牌)."""
        self._round().transfer_card(source, target, moved)

    def cheer(self, seat: int, line: str) -> None:
        """A viewer's line (加油) for ``seat``'s next request, quoted as audience
        chatter. The caller cleans it; it is cut to the protocol's 100 characters here."""
        seats = self.seats
        if self.__audience is None:
            raise IllegalActionError("this table takes no audience lines")
        if not 0 <= seat < seats:
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
        rnd, self.__round = self.__round, None
        self.__audience = None
        if rnd is not None:
            rnd.close()

    def _round(self) -> RoundAtSafePoint:
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
    fixed: dict[str, Any] = field(default_factory=dict)
    """What the round fixes instead of drawing it from the seed: the game's
    ``play_round`` keywords (Dou Dizhu: ``first_bidder``, ``landlord``, ``call_score``),
    set by the game's plan (:attr:`arena.games.base.Game.round_plan`) and by gifts."""
    changes: list[dict[str, Any]] = field(default_factory=list)
    """What gifts changed, in order (the replay's header keeps it): ``{"effect":
    "RESHUFFLE", "gift": id, "prepared_seed", "seed"}``, or a game's own (Dou Dizhu:
    ``{"effect": "ROLE_SWAP", "gift": id, "seat", "call_score"}``)."""

    @property
    def effects(self) -> tuple[str, ...]:
        """The effects that changed it, in order (the round record marks them)."""
        return tuple(str(change["effect"]) for change in self.changes)


class BetweenRoundsHandle:
    """What a between-rounds hook may read and change of the next round (see the module)."""

    __slots__ = ("_last", "_open", "_plan", "_reseed", "_seats")

    def __init__(
        self,
        plan: NextRound,
        *,
        reseed: Callable[[str], int],
        seats: int,
        last: Mapping[str, Any] | None = None,
    ) -> None:
        self._plan = plan
        self._reseed = reseed
        """A reshuffled deal's seed from the gift's id (the match derives it)."""
        self._seats = seats
        self._last = MappingProxyType(dict(last or {}))
        self._open = True

    @property
    def round_no(self) -> int:
        """The round about to be played."""
        return self._plan_open()._plan.round_no

    @property
    def seats(self) -> int:
        """How many seats the table has."""
        return self._plan_open()._seats

    @property
    def last(self) -> Mapping[str, Any]:
        """What the game tells of the previous round (Dou Dizhu: its ``landlord`` and
        ``call_score``; empty before the first)."""
        return self._plan_open()._last

    @property
    def fixed(self) -> Mapping[str, Any]:
        """What the next round fixes so far (:attr:`NextRound.fixed`), read-only."""
        return MappingProxyType(self._plan_open()._plan.fixed)

    @property
    def reshuffled(self) -> bool:
        """Whether the next deal was already thrown away and dealt afresh."""
        return any(c["effect"] == "RESHUFFLE" for c in self._plan_open()._plan.changes)

    def fix(self, change: Mapping[str, Any], **values: Any) -> None:
        """A gift's change of the next round (the game's gift operations call it): the
        ``values`` the round will be played with, and ``change`` kept in order in the
        plan (its ``effect``, its ``gift``, what it set)."""
        plan = self._plan_open()._plan
        plan.fixed.update(values)
        plan.changes.append(dict(change))

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


class GameGifts(Protocol):
    """A game's own gift operations (:attr:`arena.games.base.Game.gifts`; Dou Dizhu:
    ``arena.games.ddz.gifts.DdzGifts``): the effects only its rules give a meaning to,
    and the refusals its rules make. The gifts layer routes, queues and accounts; what
    an effect of the game does to a round, the game says here."""

    @property
    def effects(self) -> frozenset[str]:
        """The effects the game applies itself (Dou Dizhu: ``DOUBLE``, ``ROLE_SWAP``)."""
        ...

    @property
    def declined(self) -> Mapping[str, str]:
        """The effects the game does not offer (those left out of
        :attr:`arena.games.base.Game.gift_effects`), each with why, in words a viewer
        reads: a gift for one is rejected ``not_offered: <game>: <why>`` (Tractor:
        ``DOUBLE``, "Tractor has no stakes to double: ..."). Empty for a game that
        offers them all."""
        ...

    def refusals(self, handle: SafePointHandle) -> Mapping[str, str]:
        """The effects the game's rules refuse at this moment, each with the reason a
        viewer is told (Dou Dizhu: ``DOUBLE`` ``double_cap`` once the round has its
        cap of viewer doubles)."""
        ...

    def apply(
        self, effect: str, handle: SafePointHandle, *, target: int | None, gift_id: str
    ) -> None:
        """Apply one of :attr:`effects` at a safe point, or raise IllegalActionError
        saying why not (the round is never left half-changed)."""
        ...

    def apply_between_rounds(
        self, effect: str, handle: BetweenRoundsHandle, *, target: int | None, gift_id: str
    ) -> None:
        """Apply one of :attr:`effects` between rounds (through
        :meth:`BetweenRoundsHandle.fix`), or raise IllegalActionError."""
        ...
