"""Each seat's decisions in a recorded round, whatever the game: its request, the
reply, the rejection, and the one reply an action used (a replay check's bookkeeping).

The table asks a seat, takes its reply or none (a timeout), sends REPLY_REJECTED when it
could not use it and asks again under the same ``request_id`` while retries are left; a
window that asks every seat at once (Tractor's declaring) has several seats' attempts
open together. An action's event then shows the one reply used, or says ``fallback``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from arena.replay_round import Mismatch

__all__ = ["Attempt", "Attempts"]


@dataclass
class Attempt:
    """One request to a seat and what became of it."""

    line: int
    request: dict[str, Any]
    reply: dict[str, Any] | None = None
    reply_line: int = 0
    late: bool = False
    rejected: bool = False

    @property
    def usable(self) -> dict[str, Any] | None:
        """The reply, when it came in time and was not rejected (yet)."""
        return None if self.late or self.rejected else self.reply


class Attempts:
    """The open attempt of each seat of one round (``players``: the seats' names;
    ``reply_to``: each request's reply type, the game's)."""

    def __init__(self, players: list[str], reply_to: Mapping[str, str]) -> None:
        self.players = players
        self.reply_to = reply_to
        self.open: dict[int, Attempt] = {}
        self.used_line = 0
        """The line of the last reply an action used."""

    def __iter__(self) -> Iterator[tuple[int, Attempt]]:
        """The seats asked whose action is still to come, with their attempts."""
        return iter(self.open.items())

    def asked(self, seat: int, message: dict[str, Any], line: int) -> None:
        """A request to ``seat``: its first, or the same one again after a rejection."""
        kind, what = message["type"], f"{message['type']} to seat {seat}"
        previous = self.open.get(seat)
        if previous is not None:
            if not previous.rejected:
                raise Mismatch(
                    f"a new {kind} to seat {seat} while the attempt at line {previous.line} "
                    "was neither followed by an action nor rejected"
                )
            if message.get("request_id") != previous.request.get("request_id"):
                raise Mismatch(
                    f"{what} asks again under request_id {message.get('request_id')!r}, "
                    f"not {previous.request.get('request_id')!r} (line {previous.line})"
                )
        self.open[seat] = Attempt(line, message)

    def rejected(self, seat: int, message: dict[str, Any]) -> None:
        """REPLY_REJECTED to ``seat``: its open attempt's reply was not used."""
        attempt = self.open.get(seat)
        if (
            attempt is None
            or attempt.rejected
            or message.get("request_id") != attempt.request.get("request_id")
        ):
            raise Mismatch(
                f"REPLY_REJECTED to seat {seat} for request {message.get('request_id')!r} "
                "follows no open request of that seat"
            )
        attempt.rejected = True

    def replied(self, seat: int, message: dict[str, Any], line: int, *, late: bool) -> None:
        """A reply from ``seat``; a late one to no open attempt is a stale answer."""
        attempt = self.open.get(seat)
        if attempt is None or attempt.rejected or attempt.reply is not None:
            if late:
                return  # a stale answer to an earlier request: recorded, never used
            raise Mismatch(f"a reply from seat {seat} that answers no open request")
        attempt.reply, attempt.reply_line, attempt.late = message, line, late

    def pending_reply(self, seat: int) -> Attempt | None:
        """``seat``'s open attempt when it holds a reply that may still be used."""
        attempt = self.open.get(seat)
        return attempt if attempt is not None and attempt.usable is not None else None

    def used(
        self, request: str, seat: int, *, fallback: bool, unasked: bool = False
    ) -> dict[str, Any] | None:
        """The reply an action of ``seat`` used (None for a fallback), checked against the
        attempt it ends. ``unasked``: a fallback may come without a request (a declaration
        window that closed before the seat was asked)."""
        attempt = self.open.pop(seat, None)
        if attempt is None:
            if fallback and unasked:
                return None
            raise Mismatch(f"no {request} was sent to seat {seat} for it")
        if attempt.request["type"] != request:
            raise Mismatch(f"it answers the {attempt.request['type']} at line {attempt.line}")
        if fallback:
            if not attempt.rejected:
                raise Mismatch(
                    f"it says fallback, but the attempt at line {attempt.line} was not rejected"
                )
            return None
        reply = attempt.usable
        if reply is None:
            why = (
                "no reply"
                if attempt.reply is None
                else f"the reply at line {attempt.reply_line} came late"
                if attempt.late
                else f"the reply at line {attempt.reply_line} was rejected"
            )
            raise Mismatch(f"it says no fallback, yet {why}")
        at = f"the reply at line {attempt.reply_line}"
        self.used_line = attempt.reply_line
        wanted = self.reply_to[request]
        if reply.get("type") != wanted:
            shown = reply.get("type") or f"a {reply.get('python_type', 'non-message')}"
            raise Mismatch(f"{at} is {shown}, not a {wanted}")
        if reply.get("player_id") != self.players[seat]:
            raise Mismatch(
                f"{at} comes from {reply.get('player_id')!r}, not {self.players[seat]!r}"
            )
        request_id = reply.get("request_id")
        if request_id is not None and request_id != attempt.request.get("request_id"):
            raise Mismatch(f"{at} answers request {request_id!r}, not the one asked")
        return reply
