"""Checking an agent before a match: hard positions, each reply judged as the table would.

For agent authors in Python::

    report = await check_agent(MyAgent(name="Me"), timeout_s=5)
    print(report.as_text())
    assert report.passed

``arena agent check CONFIG`` runs the same check on each seat of a config.

What an agent may report: an ``int`` attribute ``stale_replies`` (:data:`STALE_REPLIES`),
the lines it received that answered no request and threw away (a program's reply to a
notification, a second reply to one request, a line before any request). When it grows
during the check, the report fails with ``extra_lines``: in a match such a line can be
taken as the answer to the next request. ``SubprocessAgent`` keeps this count.
"""

from arena.testing.capture import RequestCapture
from arena.testing.check import (
    LATE_GRACE_MAX_S,
    STALE_REPLIES,
    AgentCheckReport,
    PositionResult,
    check_agent,
    stale_replies_of,
)
from arena.testing.judge import VERDICTS, Judgement, Verdict, judge_reply
from arena.testing.positions import (
    MATCH_ID,
    POSITIONS,
    TABLE_ID,
    Position,
    Situation,
    position_named,
)

__all__ = [
    "LATE_GRACE_MAX_S",
    "MATCH_ID",
    "POSITIONS",
    "STALE_REPLIES",
    "TABLE_ID",
    "VERDICTS",
    "AgentCheckReport",
    "Judgement",
    "Position",
    "PositionResult",
    "RequestCapture",
    "Situation",
    "Verdict",
    "check_agent",
    "judge_reply",
    "position_named",
    "stale_replies_of",
]
