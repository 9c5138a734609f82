"""Calling an agent under a deadline that holds even against an agent that blocks.

asyncio can only interrupt a coroutine where it awaits: an agent that calls
``time.sleep`` or a blocking HTTP client holds the whole event loop, every table in the
process included, and no timer fires meanwhile. So the table runs each call itself, step
by step, on its own clock:

- The first step runs at once. Most calls (scripted bots) finish there and need no timer.
- A call that awaits is resumed under ``asyncio.timeout`` for the rest of its deadline.
- Every step is timed. The longest one is how long the agent held the event loop, and
  the whole call's time decides whether its reply came late, however it got there.

Whether an agent awaits is seen, never declared, so no class can inherit a promise not
to wait that it does not keep.
"""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Coroutine, Generator, Mapping
from contextlib import nullcontext
from types import CoroutineType
from typing import Any, TypeVar

from structlog.contextvars import bind_contextvars, reset_contextvars

from arena.errors import AgentReplyError
from arena.table.clock import Clock
from protocol import Message, ProtocolError, read_message

__all__ = [
    "CallTiming",
    "LogContext",
    "as_reply",
    "check_addressed",
    "resume_call",
    "run_call",
    "wire_name",
]

R = TypeVar("R", bound=Message)
"""The reply a request expects (any game's message)."""


def wire_name(model: type[Message]) -> str:
    """A message's name on the wire, its ``type`` (``PLAY_RESPONSE``), for errors."""
    field = model.model_fields.get("type")
    default = field.default if field is not None else None
    return default if isinstance(default, str) else model.__name__


class CallTiming:
    """Whether an agent call awaited, and the longest it held the event loop at once
    (from ``longest_started``: a garbage collection then may be what held it)."""

    __slots__ = ("awaited", "longest_started", "longest_step")

    def __init__(self) -> None:
        self.longest_step = 0.0
        self.longest_started = 0.0
        self.awaited = False

    def step(self, started: float, ended: float) -> None:
        """Note one synchronous step of the agent's code."""
        if ended - started > self.longest_step:
            self.longest_step = ended - started
            self.longest_started = started


class LogContext:
    """Binds log context (seat, agent) for a block and puts back exactly what was there.

    structlog's ``bound_contextvars`` copies the whole context to save it: at thousands
    of tables whose agents await, a noticeable share of each decision's time.
    """

    __slots__ = ("_context", "_tokens")

    def __init__(self, context: Mapping[str, object]) -> None:
        self._context = context

    def __enter__(self) -> None:
        self._tokens = bind_contextvars(**self._context)

    def __exit__(self, *_: object) -> None:
        reset_contextvars(**self._tokens)


async def run_call(
    call: object,
    *,
    timeout_s: float,
    clock: Clock,
    timing: CallTiming,
    log_context: Mapping[str, object] | None = None,
) -> Any:
    """Drive ``call`` (what ``agent.play(request)`` returned) to its result.

    Raises TimeoutError when a call that awaits overruns ``timeout_s``; the agent's own
    exceptions pass through. ``timing`` is filled in whatever happens; ``log_context`` is
    bound once the call awaits.
    """
    if type(call) is not CoroutineType:
        if not inspect.isawaitable(call):
            return call  # a plain method answered directly
        call = _as_coroutine(call)
    assert isinstance(call, Coroutine)
    now = clock.now
    start = timing.longest_started = now()
    try:
        pending = call.send(None)
    except StopIteration as done:
        timing.longest_step = now() - start
        return done.value
    except BaseException:
        timing.longest_step = now() - start
        raise
    return await resume_call(
        call,
        pending,
        start,
        timeout_s=timeout_s,
        clock=clock,
        timing=timing,
        log_context=log_context,
    )


async def resume_call(
    call: Any,
    pending: Any,
    started: float,
    *,
    timeout_s: float,
    clock: Clock,
    timing: CallTiming,
    log_context: Mapping[str, object] | None = None,
) -> Any:
    """Finish a call whose first step (begun at ``started``) awaited ``pending``.

    The rest runs under what is left of the deadline, each step timed; ``log_context``
    is bound meanwhile.
    """
    now = clock.now()
    timing.step(started, now)
    timing.awaited = True
    with LogContext(log_context) if log_context else nullcontext():
        async with asyncio.timeout(max(timeout_s - (now - started), 0.0)):
            return await _Resumed(call, pending, clock, timing)


async def _as_coroutine(awaitable: Any) -> Any:
    return await awaitable


class _Resumed:
    """The rest of a started coroutine, awaitable, with each step timed."""

    __slots__ = ("_call", "_clock", "_pending", "_timing")

    def __init__(
        self, call: Coroutine[Any, Any, Any], pending: Any, clock: Clock, timing: CallTiming
    ) -> None:
        self._call = call
        self._pending = pending
        self._clock = clock
        self._timing = timing

    def __await__(self) -> Generator[Any, Any, Any]:
        call, now, timing = self._call, self._clock.now, self._timing
        pending = self._pending
        while True:
            sent: Any = None
            error: BaseException | None = None
            try:
                sent = yield pending
            except GeneratorExit:
                call.close()
                raise
            except BaseException as exc:  # cancellation (the deadline) goes to the agent
                error = exc
            start = now()
            try:
                pending = call.send(sent) if error is None else call.throw(error)
            except StopIteration as done:
                return done.value
            finally:
                timing.step(start, now())


def as_reply(reply: object, expected: type[R]) -> R:
    """The reply as the message the request asked for.

    Raises :class:`AgentReplyError`: ``empty`` for nothing, ``unparsable`` for anything
    that is not that message. Text and dicts are read as JSON messages first: the path
    remote agents take.
    """
    if isinstance(reply, expected):
        return reply
    return _coerce(reply, expected)


def check_addressed(reply: Message, request: Message) -> None:
    """Refuse (``unparsable``) a reply naming another player or another request.

    A reply without a ``request_id`` is accepted: the protocol's own examples have none.
    Every game's requests and replies carry ``player_id`` and ``request_id``.
    """
    said, asked = reply.__dict__, request.__dict__
    if said["player_id"] != asked["player_id"]:
        raise AgentReplyError(
            "unparsable",
            f"player_id {said['player_id']!r} is not this seat's {asked['player_id']!r}",
        )
    answered = said["request_id"]
    if answered is not None and answered != asked["request_id"]:
        raise AgentReplyError(
            "unparsable",
            f"request_id {answered!r} answers another request, not {asked['request_id']!r}",
        )


def _coerce(reply: object, expected: type[R]) -> R:
    wanted = wire_name(expected)
    if reply is None:
        raise AgentReplyError("empty", f"expected a {wanted}, got nothing (None)")
    if isinstance(reply, str | bytes) and not reply.strip():
        raise AgentReplyError("empty", f"expected a {wanted}, got an empty reply")
    if isinstance(reply, Mapping) and not reply:
        raise AgentReplyError("empty", f"expected a {wanted}, got an empty object {{}}")
    from_text = isinstance(reply, str | bytes)
    if isinstance(reply, str | bytes):
        text = reply
        try:
            reply = json.loads(text)
        except RecursionError as exc:  # thousands of [ or {: no reply is that deep
            raise AgentReplyError(
                "unparsable", f"expected a {wanted} as JSON, got JSON nested too deeply"
            ) from exc
        except ValueError as exc:
            looks_like_json = text.lstrip()[:1] in ("{", b"{", "[", b"[")
            why = f"broken JSON: {exc}" if looks_like_json else "not JSON"
            raise AgentReplyError(
                "unparsable", f"expected a {wanted} as JSON, got {_quoted(text)} ({why})"
            ) from exc
    if isinstance(reply, Mapping):
        if "type" in reply and reply["type"] != wanted:
            raise AgentReplyError("unparsable", f"expected a {wanted}, got type {reply['type']!r}")
        try:
            return read_message(reply, {wanted: expected})
        except ProtocolError as exc:
            raise AgentReplyError("unparsable", f"expected a {wanted}: {exc}") from exc
    if isinstance(reply, Message):
        got = getattr(reply, "type", type(reply).__name__)
        raise AgentReplyError("unparsable", f"expected a {wanted}, got a {got}")
    if from_text:  # JSON, but no object: null, a number, a string, a list
        raise AgentReplyError("unparsable", f"expected a {wanted}, got {_json_kind(reply)}")
    raise AgentReplyError("unparsable", f"expected a {wanted}, got a Python {type(reply).__name__}")


def _json_kind(value: object) -> str:
    """What JSON that is no object holds, in JSON's words (for an agent in any language)."""
    if value is None or isinstance(value, bool):
        return f"JSON {json.dumps(value)}"
    kinds = {int: "number", float: "number", str: "string", list: "list"}
    return f"a JSON {kinds.get(type(value), type(value).__name__)}"


def _quoted(text: str | bytes, limit: int = 60) -> str:
    """The start of a reply that is not JSON, quoted: what the agent said, so its author
    sees the stray print or the prose at once."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    shown = text.strip()
    return repr(shown if len(shown) <= limit else shown[:limit] + "…")
