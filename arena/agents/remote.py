"""The message path of agents outside this process: JSON out, JSON text back.

A program in another language, a server, and (later) a language model all sit behind the
same :class:`~arena.agents.base.Agent` interface as a scripted bot. The seat sends every
message its agent may see, serialised exactly as ``arena schema`` describes (every
field, ``null`` included, with the match, table and round it belongs to), and returns a
request's reply as the text that came back, unread: the table reads it with the
protocol's own models, records it as it came, and counts what is wrong with it, as it
does for any agent. Deadlines, rejections, retries, fallbacks and stand-ins stay the
table's. Nothing here knows the game: a second game spoken in JSON messages takes the
same path.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import Any, ClassVar

import orjson

from arena.agents.base import AgentBase
from arena.errors import ConfigError
from arena.games.base import GameRules
from arena.games.registry import game_of_rules
from protocol import Message

__all__ = ["RemoteAgent", "reply_request_id", "wire_bytes"]


def wire_bytes(message: Message) -> bytes:
    """A message as one line of compact UTF-8 JSON, every field written (``null`` too),
    in the order ``arena schema`` lists them (``type`` first), no newline inside.

    (The table builds messages from merged parts, so their own field order varies; a
    person reading an agent's input should not have to hunt for ``type``.)
    """
    dumped = message.model_dump(mode="json")
    return orjson.dumps({name: dumped[name] for name in type(message).model_fields})


def reply_request_id(reply: bytes | str) -> str | None:
    """The ``request_id`` a reply names, or None when it names none (or is not JSON):
    how a stream tells a stale reply from the answer it waits for."""
    try:
        data = orjson.loads(reply)
    except orjson.JSONDecodeError:
        return None
    if isinstance(data, dict):
        answered = data.get("request_id")
        if isinstance(answered, str):
            return answered
    return None


class RemoteAgent(AgentBase):
    """Base of the agents that speak JSON to something outside this process.

    A subclass only moves bytes: :meth:`deliver` sends a notification, :meth:`exchange`
    sends a request and returns the reply's text. It raises
    :class:`~arena.errors.AgentReplyError` for what went wrong on its side (``truncated``
    for a reply over its size cap, ``agent_error`` for a program that died or a server
    that failed); the table counts it and asks again, as for any agent.
    """

    games: ClassVar[tuple[str, ...] | None] = None
    """Any game: the transport moves each message as JSON, whatever game it is from."""

    def __init__(
        self,
        name: str,
        *,
        seed: int | None = None,
        rules: GameRules | None = None,
        legal_moves: object = False,
        **options: Any,
    ) -> None:
        super().__init__(name, seed=seed, rules=rules, **options)
        if not isinstance(legal_moves, bool):
            raise ConfigError(f"options.legal_moves must be true or false, got {legal_moves!r}")
        self.wants_legal_moves = legal_moves
        """``options.legal_moves``: every PLAY_REQUEST lists the seat's legal moves (the
        table writes them: ``arena.agents.base.lists_legal_moves``)."""
        replayed = game_of_rules(self.rules).replayed_notifications
        self._replayed = frozenset(replayed)
        self._round_opener = replayed[0] if replayed else None
        self.round_messages: list[bytes] = []
        """This round's notifications that a program restarted mid-round needs again, as
        sent (its game's ``replayed_notifications``, the first of them opening a round);
        the requests carry the rest."""
        self.table_id: str | None = None
        """The table of the last message sent (every message names it): for log lines,
        where several tables' seats share a name."""

    async def notify(self, message: Message) -> None:
        """Send a notification (a deal, REPLY_REJECTED, results, ...); no reply."""
        line = wire_bytes(message)
        self.table_id = getattr(message, "table_id", None) or self.table_id
        kind = message.type
        if kind in self._replayed:
            if kind == self._round_opener:
                self.round_messages = []
            self.round_messages.append(line)
        await self.deliver(line)

    async def ask(self, request: Message) -> bytes | str:
        """Send any game's request; the reply's text, unread (the table reads it as the
        reply its request expects, and checks it like any agent's)."""
        asked = request.__dict__
        self.table_id = asked.get("table_id") or self.table_id
        return await self.exchange(wire_bytes(request), asked.get("request_id"))

    @abstractmethod
    async def deliver(self, line: bytes) -> None:
        """Send one notification; whatever comes back is ignored."""

    @abstractmethod
    async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        """Send one request and return its reply's text (bytes or str, unread)."""
