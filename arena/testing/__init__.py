"""Checking an agent before a match: hard positions, each reply judged as the table would.

For agent authors in Python::

    report = await check_agent(MyAgent(name="Me"), timeout_s=5)
    print(report.as_text())
    assert report.passed

``arena agent check CONFIG`` runs the same check on each seat of a config.
"""

from arena.testing.check import AgentCheckReport, PositionResult, check_agent
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
    "MATCH_ID",
    "POSITIONS",
    "TABLE_ID",
    "VERDICTS",
    "AgentCheckReport",
    "Judgement",
    "Position",
    "PositionResult",
    "Situation",
    "Verdict",
    "check_agent",
    "judge_reply",
    "position_named",
]
