"""Running the hard positions through one agent, timed as the table times it.

Each request goes through :func:`~arena.table.calls.run_call` under the seat's deadline,
on a real clock, exactly as a table calls an agent: a call that awaits is cancelled at
the deadline, and a reply that comes after it (from an agent that blocked) is late
however it got there. Notifications go out as the table sends them, under the same
deadline, and a failure there is logged, never fatal. An agent in another program (a
``subprocess`` or ``http`` seat) is called the same way: its methods return the reply's
text, which the judge reads as the table does.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.agents.base import Agent
from arena.engine import DEFAULT_RULES, Rules
from arena.errors import AgentReplyError
from arena.logs import get_logger
from arena.table.calls import CallTiming, Request, run_call
from arena.table.clock import Clock, MonotonicClock
from arena.testing.judge import Judgement, Verdict, judge_reply
from arena.testing.positions import POSITIONS, Position
from protocol import (
    REJECT_REASONS,
    Message,
    RejectReason,
    ReplyRejected,
)

__all__ = ["AgentCheckReport", "PositionResult", "check_agent"]

log = get_logger(__name__)

_REPLY_SHOWN = 300
"""Characters of a reply kept in the report: enough to see what came back."""

_METHODS = {"BID_REQUEST": "bid", "DOUBLE_REQUEST": "double", "PLAY_REQUEST": "play"}
"""The agent method that answers each request."""

_ON_PURPOSE = (
    "rejected on purpose by arena agent check, to see a retry: answer the same request again"
)


@dataclass(frozen=True, slots=True)
class PositionResult:
    """How an agent answered one position."""

    position: str
    request: str
    """The request's type: BID_REQUEST, DOUBLE_REQUEST or PLAY_REQUEST."""
    verdict: Verdict
    detail: str
    elapsed_s: float
    """From the call to its reply (or to the deadline, for a call cancelled there)."""
    reply: str | None
    """The reply as it came (JSON text, shortened), None when there was none."""

    @property
    def ok(self) -> bool:
        """Whether the answer was legal and on time."""
        return self.verdict == "legal"

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data (``arena agent check --json``)."""
        return {
            "position": self.position,
            "request": self.request,
            "verdict": self.verdict,
            "detail": self.detail,
            "elapsed_s": round(self.elapsed_s, 4),
            "reply": self.reply,
        }


@dataclass(frozen=True, slots=True)
class AgentCheckReport:
    """Every position's result for one agent; :attr:`passed` when all were legal."""

    agent: str
    timeout_s: float
    results: tuple[PositionResult, ...]

    @property
    def passed(self) -> bool:
        """Whether every position got a legal answer on time."""
        return all(result.ok for result in self.results)

    @property
    def failures(self) -> tuple[PositionResult, ...]:
        """The positions answered wrongly, late or not at all."""
        return tuple(result for result in self.results if not result.ok)

    def result(self, position: str) -> PositionResult:
        """The result of the position of that name (a KeyError if it was not asked)."""
        return {result.position: result for result in self.results}[position]

    def summary(self) -> str:
        """One line: ``passed: 12 of 12 positions legal and on time``, or what failed."""
        total = len(self.results)
        if self.passed:
            return f"{self.agent}: passed: {total} of {total} positions legal and on time"
        counts = Counter(result.verdict for result in self.failures)
        kinds = ", ".join(f"{verdict} {count}" for verdict, count in sorted(counts.items()))
        return f"{self.agent}: FAILED: {len(self.failures)} of {total} positions ({kinds})"

    def as_text(self) -> str:
        """A table for people: one line per position (name, verdict, time, detail), then
        the summary line."""
        width = max((len(result.position) for result in self.results), default=8)
        lines = [f"{'position':<{width}}  {'verdict':<9}  {'time':>7}  detail"]
        for result in self.results:
            lines.append(
                f"{result.position:<{width}}  {result.verdict:<9}  "
                f"{result.elapsed_s:>6.3f}s  {result.detail}"
            )
        lines.append(self.summary())
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``arena agent check --json``)."""
        return {
            "agent": self.agent,
            "timeout_s": self.timeout_s,
            "passed": self.passed,
            "results": [result.to_dict() for result in self.results],
        }


async def check_agent(
    agent: Agent,
    *,
    timeout_s: float,
    rules: Rules = DEFAULT_RULES,
    positions: Sequence[Position] = POSITIONS,
    clock: Clock | None = None,
) -> AgentCheckReport:
    """Ask ``agent`` every position once (the retry position twice) and judge each reply.

    ``timeout_s`` is the seat's deadline; ``rules`` decide which plays are legal (the
    positions themselves are the same under every rule variant). The agent is neither
    opened nor closed here: the caller owns its lifecycle.
    """
    clock = clock or MonotonicClock()
    results = []
    for position in positions:
        situation = position.build(agent.name, max(1, int(timeout_s * 1000)))
        for note in situation.notifications:
            await _notify(agent, note, timeout_s, clock)
        result = await _ask(agent, position, situation.request, timeout_s, clock, rules)
        if position.retry:
            await _notify(agent, _rejection(situation.request, result), timeout_s, clock)
            again = await _ask(agent, position, situation.request, timeout_s, clock, rules)
            first = f"first answer {result.verdict}, rejected"
            result = _with_detail(again, f"{again.detail} (retry; {first})")
        results.append(result)
    return AgentCheckReport(agent.name, timeout_s, tuple(results))


async def _ask(
    agent: Agent,
    position: Position,
    request: Request,
    timeout_s: float,
    clock: Clock,
    rules: Rules,
) -> PositionResult:
    """One request, timed and judged as the table would."""
    started = clock.now()
    reply: object = None
    try:
        call = getattr(agent, _METHODS[request.type])(request)
        reply = await run_call(call, timeout_s=timeout_s, clock=clock, timing=CallTiming())
    except TimeoutError:
        judgement = Judgement("late", f"no reply within the {timeout_s:g} s deadline")
    except AgentReplyError as exc:
        judgement = Judgement("error", f"{exc.category}: {exc.detail}")
    except Exception as exc:  # the agent's own bug, as the table counts it
        log.debug("agent_check_raised", agent=agent.name, position=position.name, exc_info=exc)
        judgement = Judgement("error", f"agent_error: {type(exc).__name__}: {exc}")
    else:
        elapsed = clock.now() - started
        if elapsed > timeout_s:
            late_by = elapsed - timeout_s
            judgement = Judgement(
                "late",
                f"the reply came after {elapsed:.2f} s, {late_by:.2f} s past the "
                f"{timeout_s:g} s deadline",
            )
        else:
            judgement = judge_reply(request, reply, rules)
    return PositionResult(
        position=position.name,
        request=request.type,
        verdict=judgement.verdict,
        detail=judgement.detail,
        elapsed_s=clock.now() - started,
        reply=_shown(reply),
    )


async def _notify(agent: Agent, message: Message, timeout_s: float, clock: Clock) -> None:
    """A notification, as the table sends it: under the deadline, a failure only logged."""
    try:
        await run_call(agent.notify(message), timeout_s=timeout_s, clock=clock, timing=CallTiming())
    except TimeoutError:
        log.warning("agent_notify_timed_out", agent=agent.name, message=message.type)
    except Exception as exc:
        log.warning("agent_notify_failed", agent=agent.name, message=message.type, error=repr(exc))


def _rejection(request: Request, first: PositionResult) -> ReplyRejected:
    """The REPLY_REJECTED for the retry position: the first answer's own fault if it had
    one, else a rejection on purpose, with one retry left."""
    reason: RejectReason = "illegal"
    detail = _ON_PURPOSE
    if not first.ok:
        detail = first.detail
        if first.verdict == "late":
            reason = "timeout"
        elif first.verdict in ("malformed", "error"):
            category = first.detail.partition(":")[0]
            reason = next((r for r in REJECT_REASONS if r == category), "unparsable")
    return ReplyRejected(
        player_id=request.player_id,
        request_type=request.type,
        request_id=request.request_id,
        reason=reason,
        detail=detail[:500],
        retries_left=1,
        match_id=request.match_id,
        table_id=request.table_id,
        round_no=request.round_no,
    )


def _with_detail(result: PositionResult, detail: str) -> PositionResult:
    return PositionResult(
        result.position, result.request, result.verdict, detail, result.elapsed_s, result.reply
    )


def _shown(reply: object) -> str | None:
    """The reply as text for the report: JSON for a message, its text for text."""
    if reply is None:
        return None
    if isinstance(reply, Message):
        text = reply.model_dump_json(exclude_none=True)
    elif isinstance(reply, bytes):
        text = reply.decode("utf-8", errors="replace")
    elif isinstance(reply, str):
        text = reply
    else:
        try:
            text = json.dumps(reply, ensure_ascii=False, default=repr)
        except (TypeError, ValueError):
            text = repr(reply)
    return text if len(text) <= _REPLY_SHOWN else text[:_REPLY_SHOWN] + "…"
