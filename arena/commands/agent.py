"""``arena agent check CONFIG``: for agent authors, ask each seat's agent a fixed set of
hard positions of the config's game (:mod:`arena.testing`, ``Game.check_positions``) and
judge every reply as the table would."""

from __future__ import annotations

import argparse
import asyncio
import difflib
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.commands.human_seats import check_terminal_for_humans
from arena.commands.usage import UsageError
from arena.config import ArenaConfig, load_config
from arena.errors import ConfigError
from arena.logs import add_logging_flags
from arena.stopping import stop_on_sigterm

if TYPE_CHECKING:  # imported when used: the parser is built for every command
    from arena.testing import AgentCheckReport, PositionResult

__all__ = ["add_agent_command", "run_agent_command"]

_CHECK_EPILOG = """\
For each seat checked it prints a table, one line per position (position, verdict,
time, detail), then a summary line. Verdicts:
  legal      a usable reply the rules allow, on time
  illegal    well formed, but the rules forbid it (the detail says why)
  malformed  not the reply asked for: not JSON, a wrong field, another seat's
             player_id or another request's request_id; a model's empty,
             unreadable or cut-off answer (cut off: raise its max_tokens)
  late       a reply after the seat's deadline (its timeout_s, else a model
             preset's, else [table] decision_timeout_s): the check waits the
             deadline again (at most 10 s more) to say how late, then gives up
             ("no reply within ...")
  error      the agent raised, or its program or server failed
A program that writes lines answering no request (a reply to a notification, two
replies to one request, a line before any request) fails with "extra lines: ...".

Each position's line is printed as soon as it is judged (a model takes seconds a
call). Ctrl-C or SIGTERM stops the check: the lines so far stay, followed by
"interrupted after N of M positions" (M: the game's count of positions; with --json,
the document of what was judged, its "interrupted" saying the same); exit status 130
or 143.

Exit status: 0 when every position of every seat checked is legal and on time and no
line came extra; 1 when not; 2 for a usage or config error, or an agent that cannot
start.
"""


def add_agent_command(commands: argparse._SubParsersAction[Any], summary: str) -> None:
    """Add ``agent`` (with its one action, ``check``) to ``arena``'s commands; ``summary``
    is its line in the list."""
    agent = commands.add_parser("agent", help=summary, description="Commands for agent authors.")
    actions = agent.add_subparsers(dest="action", required=True, metavar="ACTION")
    check = actions.add_parser(
        "check",
        help="ask each seat's agent a fixed set of hard positions and judge every reply",
        description="Build each seat's agent as 'arena play' does, ask it the config's "
        "game's fixed set of hard positions (one request each, and a rejection and "
        "retry) under the seat's deadline, and judge each reply as the table would.",
        epilog=_CHECK_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    check.add_argument("config", type=Path, metavar="CONFIG", help="TOML config file")
    check.add_argument("--seat", metavar="NAME", help="check only this seat (default: every seat)")
    check.add_argument(
        "--json", action="store_true", help="print one JSON report on stdout instead of tables"
    )
    add_logging_flags(check)


def run_agent_command(args: argparse.Namespace) -> int:
    """``arena agent check``: build the seats' agents, check each, report; 0 when all pass."""
    from arena.table.settings import seat_deadline

    config = load_config(args.config)
    seats = list(enumerate(config.seats))
    if args.seat is not None:
        seats = [(index, seat) for index, seat in seats if seat.name == args.seat]
        if not seats:
            names = [seat.name for seat in config.seats]
            close = difflib.get_close_matches(args.seat, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise UsageError(
                f"--seat {args.seat!r}: no such seat in {args.config}{hint}; "
                f"seats: {', '.join(names)}"
            )
    check_terminal_for_humans(seats, str(args.config))
    agents = _checked_agents(args.config, config, [index for index, _ in seats])
    deadlines = [
        seat_deadline(seat.effective_timeout_s, agent, config.table)
        for (_, seat), agent in zip(seats, agents, strict=True)
    ]

    from arena.testing.check import check_positions, column_header, result_line

    positions = check_positions(config.game_info).positions
    width = max(len(position.name) for position in positions)  # known before any is judged
    judged: list[PositionResult] = []  # the seat being checked: its verdicts so far

    def show(result: PositionResult) -> None:
        judged.append(result)
        if not args.json:
            print(result_line(result, width), flush=True)

    async def run() -> list[AgentCheckReport]:
        stop_on_sigterm()
        reports = []
        try:
            for (index, seat), agent, timeout in zip(seats, agents, deadlines, strict=True):
                judged.clear()
                if not args.json:  # at once: a model takes seconds a position
                    print(f"== seat {index}: {seat.name} ({seat.type}), deadline {timeout:g} s")
                    print(column_header(width), flush=True)
                report = await _check_seat(agent, index, timeout, config, show)
                reports.append(report)
                if not args.json:
                    print("\n".join(report.closing_lines()), flush=True)
        except (asyncio.CancelledError, KeyboardInterrupt):
            # the verdicts already paid for stay on screen (or in the JSON), then it stops
            _interrupted(args, seats, reports, judged, deadlines[len(reports)], len(positions))
            raise
        finally:
            await asyncio.gather(*map(_close_quietly, agents, deadlines))
        return reports

    reports = asyncio.run(run())
    passed = all(report.passed for report in reports)
    if args.json:
        print(
            json.dumps(_check_document(args, seats, reports, passed), ensure_ascii=False, indent=2)
        )
    elif len(reports) > 1:
        failed = [report.agent for report in reports if not report.passed]
        if failed:
            print(f"FAILED: {len(failed)} of {len(reports)} seats ({', '.join(failed)})")
        else:
            print(f"passed: all {len(reports)} seats")
    return 0 if passed else 1


def _check_document(
    args: argparse.Namespace,
    seats: Sequence[tuple[int, Any]],
    reports: Sequence[AgentCheckReport],
    passed: bool,
) -> dict[str, Any]:
    """``arena agent check --json``'s document (the seats checked, in order)."""
    return {
        "config": str(args.config),
        "passed": passed,
        "seats": [
            {"seat": index, "type": seat.type, **report.to_dict()}
            for (index, seat), report in zip(seats, reports, strict=False)
        ],
    }


def _interrupted(
    args: argparse.Namespace,
    seats: Sequence[tuple[int, Any]],
    reports: list[AgentCheckReport],
    judged: list[PositionResult],
    timeout_s: float,
    total: int,
) -> None:
    """Ctrl-C or SIGTERM during a check: say how far the seat being checked got (its
    verdicts so far are already on screen, of ``total`` positions), or print the JSON of
    what was judged."""
    from arena.testing import AgentCheckReport

    index, seat = seats[len(reports)]
    so_far = f"interrupted after {len(judged)} of {total} positions"
    if not args.json:
        print(f"{seat.name}: {so_far}", flush=True)
        return
    partial = [*reports, AgentCheckReport(seat.name, timeout_s, tuple(judged))]
    document = _check_document(args, seats, partial, False)
    document["interrupted"] = f"seat {index} ({seat.name}): {so_far}"
    print(json.dumps(document, ensure_ascii=False, indent=2), flush=True)


def _checked_agents(source: Path, config: ArenaConfig, indexes: list[int]) -> list[Any]:
    """The seats' agents, built exactly as ``arena play`` builds table t1's, every one
    before any is checked: a seat's mistake names the file, the key and the seat."""
    from arena.agents.registry import create_agent
    from arena.table import derive_seed

    seed = config.match.seed if config.match.seed is not None else 0
    agents = []
    for index in indexes:
        seat = config.seats[index]
        try:
            agent = create_agent(
                seat.type,
                seat.name,
                seed=derive_seed(seed, "t1", "seat", index),
                rules=config.rules,
                options=dict(seat.options),
                seat_key=f"seats.{index}",
                game=config.game_info,
            )
        except ConfigError as exc:
            raise ConfigError(f"{source}: {exc}") from exc
        agents.append(agent)
    return agents


async def _check_seat(
    agent: Any,
    index: int,
    timeout_s: float,
    config: ArenaConfig,
    on_result: Callable[[PositionResult], None],
) -> AgentCheckReport:
    """Start the agent (as a table does: AgentStartError names the seat), then check it."""
    from arena.agents.lifecycle import open_agent
    from arena.testing import check_agent, stale_replies_of

    before = stale_replies_of(agent)  # lines a program writes as it starts count as extra
    await open_agent(agent, f"seat {index} ({agent.name!r})")
    return await check_agent(
        agent,
        timeout_s=timeout_s,
        notify_timeout_s=config.table.notify_timeout_s,
        game=config.game_info,
        rules=config.rules,
        stale_replies_before=before,
        on_result=on_result,
    )


async def _close_quietly(agent: Any, timeout_s: float) -> None:
    """Close an agent as a table does (a failure is logged, not raised)."""
    from arena.agents.lifecycle import close_agent

    await close_agent(agent, timeout_s, agent=getattr(agent, "name", None))
