"""What a recorded Tractor round must show of what the engine did besides the seats'
actions: the event announcing each (a trump candidate, a deal step, trump locked, the
kitty taken, a trick won), and the round's end (the score, each seat's score, the gifts
that touched it, a match end the rules allow). The replay check's expectations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from arena.games.tractor.engine import (
    Event,
    KittyTaken,
    Round,
    RoundEnded,
    StepRevealed,
    TractorRules,
    TrickWon,
    TrumpCandidate,
    TrumpLocked,
    match_winner,
)
from arena.games.tractor.replay_diff import difference
from arena.games.tractor.result import TractorResult
from arena.games.tractor.views import STRENGTH_NAMES, ids, suit_letter
from arena.replay_round import Mismatch, RecordedRound

__all__ = ["ANNOUNCED_BY", "announcement", "gift_marks", "recorded_result", "result_agrees"]

ANNOUNCED_BY: Final[Mapping[type, str]] = {
    TrumpCandidate: "trump_candidate",
    StepRevealed: "deal_step",
    TrumpLocked: "trump_locked",
    KittyTaken: "kitty_taken",
    TrickWon: "trick_won",
    RoundEnded: "round_result",
}
"""The event that announces each thing the engine does besides the seats' actions."""


def announcement(rnd: Round, made: Event) -> tuple[int | None, dict[str, Any]]:
    """The seat and data of the event announcing ``made``, just done in ``rnd`` (a
    round's end: its seat only, the data is :func:`result_agrees`'s)."""
    if isinstance(made, TrumpCandidate):
        best = made.declaration
        return best.seat, {
            "window": made.window,
            "cards": ids(best.cards),
            "strength": STRENGTH_NAMES[best.strength],
            "suit": suit_letter(best.suit),
        }
    if isinstance(made, StepRevealed):
        counts = [len(rnd.revealed(s)) for s in range(rnd.players)]
        return None, {"step": made.step, "cards": counts}
    if isinstance(made, TrumpLocked):
        return made.banker, {
            "level": made.level,
            "trump_suit": suit_letter(made.suit),
            "declarer": made.declarer,
            "banker": made.banker,
            "kitty_count": len(rnd.kitty),
        }
    if isinstance(made, KittyTaken):
        return made.banker, {"count": made.count}
    if isinstance(made, TrickWon):
        return made.seat, {
            "trick": made.trick,
            "points": made.points,
            "counted": made.counted,
            "defender_points": rnd.trick_points,
        }
    assert isinstance(made, RoundEnded)
    return made.score.next_banker, {}


def result_agrees(
    what: str,
    record: Mapping[str, Any],
    rnd: Round,
    recorded: RecordedRound,
    gifts: list[str],
) -> None:
    """A round's record (its round_end summary, its round_result event) shows the
    finished engine round's score, each seat's score, the ``gifts`` that touched it, and
    a match end the rules allow: a team at the level rule's end, or a round limit."""
    score = rnd.result
    assert score is not None
    shown = record["result"]
    result = TractorResult(
        score=score,
        players=rnd.players,
        kitty=rnd.buried,
        match_over=shown["match_over"],
        winner_team=shown["winner_team"],
    )
    found = difference(shown, result.to_dict(), "result")
    if found is None:
        players = list(recorded.header["players"])
        expected = {
            "table": recorded.table,
            "round_no": recorded.round,
            "players": players,
            "scores": dict(zip(players, result.scores, strict=True)),
            "gifts": gifts,
        }
        found = difference({k: record.get(k) for k in expected}, expected)
    if found is not None:
        raise Mismatch(f"{what}: {found}")
    _match_end_agrees(what, result, rnd.rules)


def _match_end_agrees(what: str, result: TractorResult, rules: TractorRules) -> None:
    level_winner = match_winner(result.score, rules)
    if level_winner is not None:
        if not result.match_over or result.winner_team != level_winner:
            raise Mismatch(
                f"{what}: team {level_winner} won the match by the level rule, but it says "
                f"match_over {result.match_over}, winner_team {result.winner_team!r}"
            )
    elif result.match_over and rules.round_limit is None:
        raise Mismatch(f"{what}: the match is said over, but no team won it")
    elif not result.match_over and result.winner_team is not None:
        raise Mismatch(f"{what}: winner_team {result.winner_team!r} of a match not over")


def gift_marks(header: Mapping[str, Any]) -> list[str]:
    """The gifts a round's record must mark before its own swaps: its between-rounds
    changes (the header's ``gift_changes``), in order."""
    changes = header.get("gift_changes") or []
    if type(changes) is not list or not all(type(c) is dict for c in changes):
        raise Mismatch(f"the round_start line's gift_changes is {changes!r}")
    return [str(change["effect"]) for change in changes]


def recorded_result(recorded: RecordedRound) -> tuple[dict[str, Any] | None, str]:
    """The result the round's end shows (the round_end summary's, else the
    round_result event's; None when neither is there), and which line shows it."""
    for number, line in recorded.lines:
        if line["kind"] == "round_end":
            return line["summary"]["result"], f"the round_end line (line {number})"
    for number, line in recorded.lines:
        if line["kind"] == "event" and line["event"]["type"] == "round_result":
            return line["event"]["data"]["result"], f"the round_result event (line {number})"
    return None, "nothing"
