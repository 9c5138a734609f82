"""Errors raised on purpose by the arena.

ArenaError
 ├─ InvalidCardError       (also protocol's CardNotationError, a ValueError): text that
 │                         is not a canonical card, or a card listed twice
 ├─ SetupError             (also ValueError): a round or deal that cannot start as asked
 ├─ IllegalActionError     (also ValueError): the rules forbid this action now
 │   └─ CardResolutionError  a card token names no card of the player's hand
 ├─ AgentError             an agent failed to give a usable reply
 │   ├─ AgentReplyError    a reply the table cannot use (``category``: the reject
 │   │   │                 reason it is counted as: empty, unparsable, truncated ...)
 │   │   └─ AgentDownError  the agent cannot answer this decision, and asking again
 │   │       │             would fail the same way (a provider that kept failing to the
 │   │       │             deadline): the table falls back without its retries
 │   │       └─ AgentUnavailableError  the agent cannot play again this match (a bad
 │   │                     key, an unknown model, a spent budget, a human who left, a
 │   │                     provider down decision after decision): a stand-in takes the
 │   │                     seat for the rest of the match
 │   ├─ AgentStartError    an agent that cannot start before the match (a missing
 │   │                     program, one that exits at once)
 │   └─ AgentTimeoutError  (also TimeoutError)
 ├─ ConfigError            (also ValueError): names the file and the key
 ├─ ReplayError            (also ValueError; in ``arena.replay``): a replay that cannot be
 │   │                     read, or a recorded round the engine rejects
 │   ├─ RoundMismatch      a recorded round the engine disagrees with
 │   └─ RoundIncomplete    a round the replay ends inside
 ├─ MqttError              (``arena.sinks.mqtt_publisher``): a broker that cannot be
 │                         reached or spoke out of turn
 ├─ PacketError            (also ValueError; ``arena.sinks.mqtt_packets``)
 │   └─ MalformedPacket    bytes that are no MQTT packet
 ├─ UsageError             (in ``arena.cli``): a mistake on the command line
 │
 │  and in the packages above the arena:
 ├─ SignatureError         (also ValueError; ``gifts.signatures``): a webhook's signature
 ├─ PayloadError           (also ValueError; ``gifts.platforms``): a platform's gift payload
 ├─ GiftSendError          (``gifts.send``): ``arena gift send`` could not send
 │   └─ NoArenaError       no arena is online to take it
 ├─ StoreError             (``tournaments.store``): the store cannot do what was asked
 │   ├─ DamagedSeed        a stored seed that is no seed
 │   ├─ DamagedStore       a stored round that no longer reads back
 │   └─ RoundExists        a round stored already
 ├─ LeaseError             (``tournaments.lease``): the run cannot take its lease
 │   ├─ TournamentBusy     another process plays the tournament
 │   └─ LockFileError      the lock file cannot be opened or written
 ├─ TournamentCommandError (``tournaments.cli_errors``): a mistake in ``arena tournament``
 ├─ VerifyError            (also ValueError; ``tournaments.verify``): an export that
 │                         cannot be checked
 └─ WorkerError            (``tournaments.workers``): a worker process failed

Every error a command can meet derives from ArenaError, so ``arena`` says it in one line
(exit status 2) and never prints a traceback for it.

The table catches an agent's errors and counts them as faults (``arena.table.faults``);
they never end a match. Misuse by calling code raises the builtin Python would (a
``TypeError`` for a wrong kind of argument), and the protocol package keeps its own
``ProtocolError`` and ``CardNotationError`` (it never imports ``arena``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from protocol.cards import CardNotationError
from protocol.messages import REJECT_REASONS, RejectReason

__all__ = [
    "AgentDownError",
    "AgentError",
    "AgentReplyError",
    "AgentStartError",
    "AgentTimeoutError",
    "AgentUnavailableError",
    "ArenaError",
    "CardResolutionError",
    "ConfigError",
    "IllegalActionError",
    "InvalidCardError",
    "ReplyFault",
    "SetupError",
    "error_text",
    "raise_start_failures",
]


ReplyFault: TypeAlias = RejectReason
"""How an unusable reply is counted: the reason REPLY_REJECTED gives the agent."""


class ArenaError(Exception):
    """Base class for every error this project raises on purpose."""


class InvalidCardError(ArenaError, CardNotationError):
    """Text that is not one of the 54 canonical cards, or the same card listed twice.

    Also the protocol's :class:`~protocol.CardNotationError`, which is what the protocol
    itself raises for a token no notation can read.
    """


class SetupError(ArenaError, ValueError):
    """A round or a deal that cannot start as asked (no such seat, not the 54 cards)."""


class IllegalActionError(ArenaError, ValueError):
    """The rules do not allow this action in the current state; nothing was changed."""


class CardResolutionError(IllegalActionError):
    """A card token in a reply matches nothing in the player's hand."""

    def __init__(self, token: object, reason: str) -> None:
        super().__init__(f"card {token!r}: {reason}")
        self.token = token


class AgentError(ArenaError):
    """An agent failed to give a usable reply."""


class AgentReplyError(AgentError):
    """A reply the table cannot use; ``category`` is how the fault is counted."""

    def __init__(self, category: ReplyFault, detail: str) -> None:
        if category not in REJECT_REASONS:
            raise TypeError(f"unknown reply fault category {category!r}")  # mypy's arg-type
        super().__init__(f"{category} reply: {detail}")
        self.category: ReplyFault = category
        self.detail = detail


class AgentDownError(AgentReplyError):
    """The agent could not answer this decision, and asking it again now would only fail
    the same way: a model seat's provider kept failing (5xx, 429, no connection, no
    answer) until the decision's deadline left no time for another call. Counted as
    ``agent_error``; the table falls back at once instead of spending its retries (each
    with a whole deadline) on it."""

    def __init__(self, detail: str) -> None:
        super().__init__("agent_error", detail)


class AgentUnavailableError(AgentDownError):
    """The agent will fail every decision from now on, whatever it is asked: the provider
    refuses the key (401/403), knows no such model (404), rejects a parameter on every
    call (400), has been down for several decisions in a row, the seat's budget is spent,
    or a human seat's input ended (Ctrl-D). Counted as ``agent_error``; the table reports
    it once and seats the stand-in for the rest of the match."""


class AgentStartError(AgentError):
    """An agent could not start before the match (a program that is missing or exits at
    once, a server that cannot be reached): the message names the seat and why."""


def error_text(exc: BaseException) -> str:
    """An exception for a log line: an agent's unusable reply by its detail (it says what
    went wrong), anything else with its type, which its message may need."""
    if isinstance(exc, AgentReplyError):
        return exc.detail
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def raise_start_failures(failures: Sequence[BaseException]) -> None:
    """Raise what starting agents ran into, if anything: an unexpected exception as
    itself, else one :class:`AgentStartError` naming every seat that could not start."""
    if not failures:
        return
    for failure in failures:
        if not isinstance(failure, AgentStartError):
            raise failure
    raise AgentStartError("\n".join(str(f) for f in failures))


class AgentTimeoutError(AgentError, TimeoutError):
    """An agent did not answer before its deadline."""


class ConfigError(ArenaError, ValueError):
    """A configuration file or value is invalid; the message names the file and the key."""
