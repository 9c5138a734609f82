"""How a table runs decisions: deadlines, retries, stand-ins, forced passes, pacing."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["TableSettings", "seat_deadline"]


class TableSettings(BaseModel):
    """Per-table behaviour; every field can be set in the ``[table]`` config section.

    Strict: ``auto_pass = "yes"`` is an error, not True; a float takes an integer, not nan.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)

    decision_timeout_s: float = Field(default=30.0, gt=0, le=3600)
    """Deadline of one decision, unless the seat sets its own ``timeout_s``."""

    notify_timeout_s: float = Field(default=5.0, gt=0, le=3600)
    """How long the table waits for an agent to take a notification (DEAL, BOTTOM_CARDS,
    REPLY_REJECTED, ROUND_RESULT, MATCH_END), at most the seat's deadline: an HTTP agent
    that answers it late holds the table up this long, not a whole deadline."""

    max_retries: int = Field(default=2, ge=0, le=10)
    """How often a late, malformed or illegal reply is rejected and asked again."""

    max_failed_decisions: int = Field(default=3, ge=1, le=100)
    """Failed decisions in a row after which a scripted stand-in takes the seat."""

    standin: str | None = Field(default=None, min_length=1)
    """Agent type of the stand-in; None (the default): the game's own
    (``Game.stand_in``: Dou Dizhu's ``heuristic``), which the table puts here."""

    standin_for: Literal["round", "match"] = "round"
    """How long a stand-in seated after ``max_failed_decisions`` keeps the seat: to the
    end of the round, or of the match. An agent that says it cannot play again this match
    (a bad key, an unknown model) always keeps its stand-in to the end of the match."""

    auto_pass: bool = True
    """Pass for a player who cannot beat the trick, without asking (no tokens spent)."""

    stall_warning_s: float = Field(default=0.5, gt=0, le=3600)
    """An agent call that holds the event loop longer than this is named in a warning:
    while it blocks, every table in the process stands still (scripted bots take µs)."""

    pace_s: float = Field(default=0.0, ge=0, le=60)
    """Minimum seconds each action stays on screen (live shows); 0 = as fast as possible."""

    declaration_window_s: float | None = Field(default=None, gt=0, le=3600)
    """A window in which several seats are asked at once and every reply counts equally
    (Tractor's trump declaration): its length in seconds; None = ``decision_timeout_s``.
    A reply after it is a pass."""

    round_pause_s: float = Field(default=0.0, ge=0, le=600)
    """Seconds between a round's result and the next deal, so that a show's result card
    is read before the next round covers it; 0 = none (served, ``arena play --serve``
    and ``arena serve`` make it ``SHOW_ROUND_PAUSE_S`` unless the config sets it)."""


def seat_deadline(given: float | None, agent: object, settings: TableSettings) -> float:
    """A seat's deadline, at the table and in ``arena agent check``: its own
    ``timeout_s``, else its agent's preset (``decision_timeout_s``, a model seat's
    provider timeout), else the table's."""
    if given:
        return given
    preset = getattr(agent, "decision_timeout_s", None)
    if isinstance(preset, int | float) and not isinstance(preset, bool) and preset > 0:
        return float(preset)
    return settings.decision_timeout_s
