"""Checking an agent before a match: a game's hard positions, each reply judged as the
table would.

For agent authors in Python::

    report = await check_agent(MyAgent(name="Me"), timeout_s=5)
    print(report.as_text())
    assert report.passed

``arena agent check CONFIG`` runs the same check on each seat of a config. The positions
and the judge are the game's (``Game.check_positions``, a :class:`CheckPositions`; Dou
Dizhu's are :mod:`arena.games.ddz.positions`); the runner here knows no game.

What an agent may report: an ``int`` attribute ``stale_replies`` (:data:`STALE_REPLIES`),
the lines it received that answered no request and threw away (a program's reply to a
notification, a second reply to one request, a line before any request). When it grows
during the check, the report fails with ``extra_lines``: in a match such a line can be
taken as the answer to the next request. ``SubprocessAgent`` keeps this count.
"""

from arena.testing.base import VERDICTS, CheckPositions, Judgement, Position, Situation, Verdict
from arena.testing.check import (
    LATE_GRACE_MAX_S,
    STALE_REPLIES,
    AgentCheckReport,
    PositionResult,
    check_agent,
    check_positions,
    stale_replies_of,
)

__all__ = [
    "LATE_GRACE_MAX_S",
    "STALE_REPLIES",
    "VERDICTS",
    "AgentCheckReport",
    "CheckPositions",
    "Judgement",
    "Position",
    "PositionResult",
    "Situation",
    "Verdict",
    "check_agent",
    "check_positions",
    "stale_replies_of",
]
