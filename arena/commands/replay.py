"""``arena replay FILE``: print a recorded match and re-check every move through the
rules engine; ``--compare`` says whether two recordings are the same match, and
``--decisions`` shows what each model seat was asked, said and cost."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.commands.usage import UsageError
from arena.logs import add_logging_flags, say

if TYPE_CHECKING:  # imported when used: the parser is built for every command
    from arena.replay import RecordedRound

__all__ = ["add_replay_command", "run_replay_command"]

_EPILOG = """\
Each round ends in one verdict line:
  ✓  every message and move agrees with the engine, and the scores match
  ✗  the round disagrees with itself or the engine (the line and what differs)
  …  the replay ends inside the round (the recording was cut off): the lines
     it has are checked, but the round cannot be verified

Exit status: 0 when every round verifies; 1 when any round fails or the replay is
incomplete; 2 when the file cannot be read or is no replay.

--decisions shows, for each decision of a model seat in file order, the table,
round, seat and request, then each attempt: its outcome (accepted, or the
rejection's category and detail), tokens, cost and latency, the prompt as sent
(a seat's system prompt once, a retry's conversation from where it grows, unless
--full), the reasoning, the raw reply and what the table parsed from it. It ends
with a count. The text counts attempts from 1 (attempt 1 is the first call);
--json prints the same as one JSON document, whose 0-based "attempt" is the
replay's own (the first call is attempt 0). It exits 0, 1 when the replay holds
no model decisions, 2 when it cannot be read.

--compare OTHER checks determinism: two recordings of the same seed with the same
scripted agents differ only in the timing fields (t_ms, elapsed_ms). It prints
"same match" and exits 0, or names the first differing line in each file (table,
round, key) and exits 1. Each table's lines are compared in order, since tables
playing at once may interleave differently.
"""


def add_replay_command(commands: argparse._SubParsersAction[Any], summary: str) -> None:
    """Add ``replay`` to ``arena``'s commands; ``summary`` is its line in the list."""
    replay = commands.add_parser(
        "replay",
        help=summary,
        description="Print each round of a replay and re-check it through the rules engine:\n"
        "every message and every event, and that they agree with each other.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    replay.add_argument("file", type=Path)
    replay.add_argument("--quiet", action="store_true", help="only the verdict per round")
    instead = replay.add_mutually_exclusive_group()
    instead.add_argument(
        "--compare",
        type=Path,
        metavar="OTHER",
        help="instead: say whether OTHER records the same match (timing fields aside)",
    )
    instead.add_argument(
        "--decisions",
        action="store_true",
        help="instead: show each model decision (prompt, raw reply, reasoning, what was "
        "parsed, why it was rejected, tokens, cost, latency)",
    )
    replay.add_argument(
        "--full",
        action="store_true",
        help="with --decisions: repeat each system prompt and each retry's whole conversation",
    )
    replay.add_argument(
        "--json",
        action="store_true",
        help="with --decisions: print one JSON document on stdout instead",
    )
    add_logging_flags(replay)


def run_replay_command(args: argparse.Namespace) -> int:
    """Check the replay round by round (or compare it, or show its decisions)."""
    from arena.replay import ReplayError, RoundIncomplete, load_replay, verify_round

    if not args.decisions:
        for flag in ("full", "json"):
            if getattr(args, flag):
                raise UsageError(f"--{flag} goes with --decisions (see arena replay --help)")
    if args.compare is not None:
        return _compare(args.file, args.compare)
    if args.decisions:
        return _decisions(args)
    replay = load_replay(args.file)
    if not replay.rounds:
        raise ReplayError(f"{args.file}: no rounds in this replay")
    verified = failed = incomplete = 0
    last: dict[str, tuple[int, Any]] = {}
    """Each table's last verified round: its number and engine round."""
    for recorded in replay.rounds:
        if not args.quiet:
            _print_round(recorded)
        where = f"table {recorded.table} round {recorded.round}"
        before = last.pop(recorded.table, None)
        try:
            played = verify_round(recorded)
        except RoundIncomplete as exc:
            incomplete += 1
            print(f"… {exc}")
            continue
        except ReplayError as exc:
            failed += 1
            print(f"✗ {exc}")
            continue
        last[recorded.table] = (recorded.round, played)
        problem = _carried_problem(recorded, before)
        if problem is not None:
            failed += 1
            print(f"✗ {where}: {problem}")
        else:
            verified += 1
            print(f"✓ {where}: every move legal, messages agree, scores match")
    for note in replay.notes:
        incomplete += 1
        print(f"… {note}")
    if failed or incomplete:
        counts = f"{verified} round(s) verified, {failed} failed, {incomplete} incomplete"
        say(
            args.log_format,
            "replay_not_verified",
            f"{args.file}: {counts}",
            level="warning",
            verified=verified,
            failed=failed,
            incomplete=incomplete,
        )
        return 1
    return 0


def _carried_problem(recorded: RecordedRound, before: tuple[int, Any] | None) -> str | None:
    """What a round's header says against the round before it at its table, when the
    game carries something over (Tractor's levels and banker); None when it agrees, or
    when there is no round just before it (a match's first)."""
    from arena.games.registry import DEFAULT_GAME, get_game

    if before is None or before[0] != recorded.round - 1:
        return None
    game = get_game(recorded.header.get("game", DEFAULT_GAME))
    if game.carried_over is None:
        return None
    return game.carried_over(before[1], recorded.header)


def _print_round(recorded: RecordedRound) -> None:
    """The round's public events as the console shows them, a model's figures after
    each of its actions (best effort: a line that cannot be shown is skipped here and
    reported by the check)."""
    from arena.events import Event
    from arena.games.registry import DEFAULT_GAME
    from arena.sinks.console import EventLines

    print(f"== table {recorded.table}, round {recorded.round}, seed {recorded.header['seed']}")
    lines = EventLines(None)
    game = recorded.header.get("game", DEFAULT_GAME)  # a replay's events leave it to the header
    for raw in recorded.events:
        try:
            shown = lines.lines(Event(**{"game": game, **raw}))
        except (KeyError, TypeError, ValueError, AttributeError):
            continue
        for line in shown:
            print(line)
    for line in lines.closing_lines():  # what was folded away (repeated gift refusals)
        print(line)


def _decisions(args: argparse.Namespace) -> int:
    """``arena replay --decisions``: what each model seat was asked, said and cost."""
    from arena.replay import ReplayError, load_replay
    from arena.replay_decisions import decisions_in, describe_decisions

    replay = load_replay(args.file)
    if not replay.rounds:
        raise ReplayError(f"{args.file}: no rounds in this replay")
    decisions = decisions_in(replay.rounds)
    if args.json:
        document = {
            "replay": str(args.file),
            "rounds": len(replay.rounds),
            "decisions": [decision.to_dict() for decision in decisions],
            "notes": replay.notes,
        }
        print(json.dumps(document, ensure_ascii=False, indent=2))
    if not decisions:
        rounds = len(replay.rounds)
        played = f"its {rounds} rounds were" if rounds != 1 else "its one round was"
        say(
            args.log_format,
            "no_model_decisions",
            f"no model decisions in {args.file}: {played} played by seats that do not "
            "report their calls (only model seats do)",
            level="warning",
            path=str(args.file),
            rounds=rounds,
        )
        return 1
    if not args.json:
        for line in describe_decisions(decisions, source=str(args.file), full=args.full):
            print(line)
        for note in replay.notes:
            print(f"… {note}")
    return 0


def _compare(first: Path, second: Path) -> int:
    from arena.replay import compare_replays

    difference = compare_replays(first, second)
    if difference is None:
        print(f"same match: {first} and {second} differ only in timing fields")
        return 0
    print(f"different: {difference}")
    return 1
