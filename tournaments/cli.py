"""``arena tournament``: run, resume, show, list and export tournaments.

Every action takes ``--db PATH`` (default ``arena.db`` in the current folder), the
SQLite file the tournament lives in. ``run FILE`` plays the tournament file from the
start; ``resume ID`` goes on with one that was interrupted (Ctrl-C, a crash, ``kill
-9``); ``show ID`` prints its leaderboard, finished or not (``--json``: one document);
``list`` the tournaments in the file; ``export ID --csv|--json`` the leaderboard
(``--replay``: every round, for ``verify --from-file``); ``verify ID`` checks the deals
against the committed seeds and every move (``tournaments.verify``). With
``--mqtt [URL]`` a run publishes the leaderboard after every round, retained, on
``<prefix>/tournaments/<id>/leaderboard``. ``--workers N`` spreads the tables of
scripted and remote agents over N processes (:mod:`tournaments.workers`).

The parser is built for every ``arena`` command, so this module imports little at the
top; what a run needs is imported when it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from arena.errors import ArenaError, ConfigError
from arena.logs import Say, add_logging_flags, say
from arena.server.flags import add_server_flags, say_server
from tournaments.cli_errors import TournamentCommandError, sqlite_problem
from tournaments.lease import LeaseError, RunLease, shown_status

if TYPE_CHECKING:
    from collections.abc import Iterable

    from arena.server.wiring import ArenaServer
    from arena.table.records import RoundRecord
    from tournaments.config import TournamentConfig
    from tournaments.leaderboard import Leaderboard
    from tournaments.session import Session
    from tournaments.store import TournamentRow, TournamentStore

__all__ = ["add_tournament_command", "run_tournament_command"]

DEFAULT_DB: Final = Path("arena.db")
DEFAULT_BROKER: Final = "default"


def add_tournament_command(subparsers: argparse._SubParsersAction[Any]) -> None:
    """Add ``tournament`` and its actions to ``arena``'s commands."""
    command = subparsers.add_parser(
        "tournament",
        help="run a tournament between any number of agents: arena tournament run FILE",
        description="Tournaments: many agents, tables of the game's seats, a leaderboard, and "
        "nothing lost if the process dies (docs/tournaments.md).",
    )
    actions = command.add_subparsers(dest="tournament_action", required=True, metavar="ACTION")
    run = actions.add_parser("run", help="play a tournament file from the start")
    run.add_argument("file", type=Path, metavar="FILE", help="the tournament file (TOML)")
    resume = actions.add_parser("resume", help="go on with an interrupted tournament")
    resume.add_argument("tournament_id", metavar="ID")
    for playing in (run, resume):
        playing.add_argument(
            "--mqtt",
            nargs="?",
            const=DEFAULT_BROKER,
            metavar="URL",
            help="publish the leaderboard after every round, retained, and every table's "
            "events live, to an MQTT broker (default: the file's [mqtt] broker, "
            "127.0.0.1:1883)",
        )
        playing.add_argument(
            "--rounds",
            type=int,
            metavar="N",
            help="a daily tournament: play N more rounds this session, then stop, "
            "resumable (default: the file's session_rounds, else until Ctrl-C)",
        )
        playing.add_argument(
            "--workers",
            type=int,
            default=1,
            metavar="N",
            help="play the tables of scripted, subprocess and remote agents in N processes "
            "(this one the only writer; the same results as 1); model and human seats "
            "play in this process (default: 1, every table here)",
        )
        playing.add_argument(
            "--serve",
            action="store_true",
            help="serve the stream overlay with the leaderboard, the featured table, the "
            "controls (http://127.0.0.1:8750/overlay by default; docs/overlay.md)",
        )
        add_server_flags(playing)
        _add_gift_flags(playing)
    show = actions.add_parser("show", help="a tournament's leaderboard, finished or not")
    show.add_argument("tournament_id", metavar="ID")
    show.add_argument("--json", action="store_true", help="one JSON document on stdout")
    listing = actions.add_parser("list", help="the tournaments in the database")
    listing.add_argument("--json", action="store_true", help="one JSON document on stdout")
    export = actions.add_parser(
        "export", help="a tournament's leaderboard as CSV or JSON, or its rounds as a replay"
    )
    export.add_argument("tournament_id", metavar="ID")
    kind = export.add_mutually_exclusive_group(required=True)
    kind.add_argument("--csv", action="store_true", help="one row per agent")
    kind.add_argument("--json", action="store_true", help="one document")
    kind.add_argument(
        "--replay",
        action="store_true",
        help="every stored round as replay lines (JSON lines, hands included: for the "
        "organiser; `arena replay FILE` checks them)",
    )
    export.add_argument(
        "--table", metavar="TABLE", help="with --replay: one table match only (e.g. s2t1)"
    )
    finish = actions.add_parser(
        "finish",
        help="end a tournament for good (a daily series, or one you will not resume): "
        "its last seed is revealed, so every round can be verified",
    )
    finish.add_argument("tournament_id", metavar="ID")
    from tournaments.cli_verify import EXIT_STATUS_HELP

    verify = actions.add_parser(
        "verify",
        help="check that a tournament's deals came from its committed seeds and every move "
        "is legal (exit 0: verified; 1: something differs; 2: a mistake; 3: not "
        "verifiable yet)",
        epilog=EXIT_STATUS_HELP,
    )
    verify.add_argument("tournament_id", metavar="ID", nargs="?", help="a tournament in --db")
    verify.add_argument(
        "--from-file",
        type=Path,
        metavar="FILE",
        help="check a published export (arena tournament export ID --replay) instead",
    )
    for action in (run, resume, show, listing, export, finish, verify):
        action.add_argument(
            "--db",
            type=Path,
            default=DEFAULT_DB,
            metavar="PATH",
            help=f"the tournaments' SQLite file (default: {DEFAULT_DB} here)",
        )
        add_logging_flags(action, shown=False)


def _add_gift_flags(command: argparse.ArgumentParser) -> None:
    """``arena play``'s gift flags; a tournament's gifts are always ranked."""
    command.add_argument(
        "--gifts",
        action="store_true",
        help="take viewers' gifts, ranked (never a changed result): with --mqtt from "
        "<prefix>/gifts/in, where `arena gift send` and bridges publish (docs/gifts.md)",
    )
    command.add_argument(
        "--simulate-gifts",
        nargs="?",
        type=float,
        const=0.5,
        metavar="PER_SECOND",
        help="a simulated audience at each table while it plays (default rate: 0.5 a "
        "second); turns --gifts on",
    )
    command.add_argument(
        "--gift-file",
        type=Path,
        metavar="FILE",
        help="replay the gifts of a JSON-lines file with their timing (docs/gifts.md); "
        "turns --gifts on",
    )


def run_tournament_command(args: argparse.Namespace) -> int:
    """Run ``arena tournament ACTION`` as parsed; the exit status."""
    import sqlite3

    from tournaments.store import StoreError

    action = args.tournament_action
    if action == "run" and not args.file.is_file():
        raise TournamentCommandError(f"{args.file}: no such tournament file")
    if action == "verify":
        from tournaments.cli_verify import run_verify

        return run_verify(args)
    if action != "run" and not args.db.is_file():
        raise TournamentCommandError(f"{args.db}: no tournament database here (--db PATH)")
    try:
        if action in ("run", "resume"):
            return _play(args)
        if action == "finish":
            return _finish(args)
        return _read(args)
    except (StoreError, LeaseError) as exc:
        raise TournamentCommandError(str(exc)) from None
    except sqlite3.DatabaseError as exc:  # text that is no UTF-8, a damaged page ...
        raise TournamentCommandError(sqlite_problem(args.db, exc)) from None


def _play(args: argparse.Namespace) -> int:
    from tournaments.cli_live import (
        close_spectator_feed,
        run_gifts,
        spectator_feed,
        stop_gently_on_ctrl_c,
        table_feed,
    )
    from tournaments.config import load_tournament_config, parse_stored_config
    from tournaments.runner import check_agents, run_tournament
    from tournaments.store import TournamentStore

    _check_play_flags(args)
    say_line = _sayer(args.log_format)
    config = None
    if args.tournament_action == "run":
        config = load_tournament_config(args.file)
        try:
            check_agents(config)  # the runner checks too, but cannot name the file
        except ConfigError as exc:
            raise ConfigError(f"{args.file}: {exc}") from None
    if config is not None:  # a run's mistakes said before its database file is made
        _session_refusing_flags(args, config)
    with TournamentStore(args.db, create=config is not None) as store:
        if config is None:
            row = store.tournament(args.tournament_id)
            if row.status == "finished":
                raise TournamentCommandError(f"tournament {row.id} is finished: nothing to resume")
            settings = parse_stored_config(row.config, source=f"tournament {row.id}")
        else:
            settings = config
        publisher_settings = _broker(settings.mqtt, args.mqtt)
        session = _session_refusing_flags(args, settings)
        gifts = run_gifts(args, settings, publisher_settings, say_line)
        started: list[str] = []

        async def play() -> Any:
            from arena.sinks.health import SinkHealthBoard
            from arena.stopping import stop_on_sigterm
            from tournaments.epochs import seeds_document
            from tournaments.publish import LeaderboardPublisher

            stop_on_sigterm()  # as Ctrl-C at once: the agents closed, their programs ended

            publisher: LeaderboardPublisher | None = None
            view = RunView(log_format=args.log_format)
            feed = table_feed(publisher_settings, say_line)
            server = _arena_server(args, settings)
            if server is not None:
                if feed is not None:  # the pages name the run as the MQTT feed does
                    server.hub.reset(feed.run_id)
                await server.__aenter__()
                say_server(server, say_line, args.log_format)
                if settings.table.pace_s == 0:
                    say_line(
                        "server_unpaced",
                        "the tables are not paced ([table] pace_s = 0): the tournament will "
                        "be over long before a viewer sees a play; set pace_s (0.6 or so) "
                        "for a stream",
                        level="warning",
                    )
                if gifts is not None:  # TournamentGifts is the sources' inbox
                    from gifts.webhook import WebhookIntake

                    server.parts.gifts = WebhookIntake(gifts, secret=server.token or "")
            spectator = spectator_feed(settings, feed, say_line, server)
            # a sink that keeps failing is said in the MQTT status and on the overlay
            health = SinkHealthBoard({"mqtt": feed, "overlay": server and server.hub})
            if feed is not None:
                await feed.started()  # its worker up before the first event
            if spectator is not None:
                spectator.start()

            def start(tid: str, planned: int | None, played: int) -> None:
                nonlocal publisher
                started.append(tid)
                say_line(
                    "tournament_started",
                    f"tournament {tid} in {args.db}",
                    tournament=tid,
                    db=str(args.db),
                    planned_rounds=planned,
                    played_rounds=played,
                )
                _say_seed(say_line, seeds_document(store, tid))
                if publisher_settings is not None:
                    publisher = LeaderboardPublisher(
                        publisher_settings, tid, name=settings.tournament.name
                    )
                    publisher.seeds = seeds_document(store, tid)  # the commitment, at once
                    say_line(
                        "leaderboard_publishing",
                        f"leaderboard on {publisher.topic}",
                        topic=publisher.topic,
                    )
                if session.rounds is not None:
                    say_line(
                        "session_started",
                        f"a session of {session.rounds} rounds (then it stops, "
                        "resumable); Ctrl-C stops after the current round",
                        rounds=session.rounds,
                    )
                view.start(planned if session.rounds is None else played + session.rounds, played)

            def told(board: dict[str, Any]) -> None:
                if publisher is not None:
                    publisher.publish(board)
                if server is not None:
                    server.hub.set_leaderboard(board)
                view.update(board)

            stopping = stop_gently_on_ctrl_c(
                session,
                args.log_format,
                on_stop=None if server is None else server.control.release,
            )
            outcome: Literal["finished", "interrupted"] = "interrupted"
            try:
                run = await run_tournament(
                    store,
                    config,
                    tournament_id=getattr(args, "tournament_id", None),
                    on_leaderboard=told,
                    on_start=start,
                    session=session,
                    gifts=gifts,
                    sinks=tuple(s for s in (feed, server and server.hub) if s),
                    spectator=spectator,
                    workers=args.workers,
                    control=None if server is None else server.control,
                )
            except asyncio.CancelledError:
                if stopping.is_set():  # the second Ctrl-C: as a plain Ctrl-C would
                    raise KeyboardInterrupt from None
                raise
            else:
                outcome = "finished" if run.finished else "interrupted"
                if run.finished:
                    view.finished()
                return run
            finally:
                view.stop()
                if publisher is not None and not _stored(store, started[0]):
                    publisher.withdraw()  # removed unplayed: its agents could not start
                    await publisher.close()
                elif publisher is not None:  # the retained message says how it ended
                    publisher.seeds = seeds_document(store, started[0])  # revealed, if over
                    publisher.finish(outcome)
                    await publisher.close()
                if gifts is not None:
                    say_line("gifts_accounted", gifts.summary(), **gifts.counts())
                if spectator is not None:  # its last hands out before the MQTT sink closes
                    await close_spectator_feed(spectator, say_line)
                health.close()  # the final figures, before the status says offline
                if feed is not None:  # after the gifts' last outcomes
                    await feed.close()
                if server is not None:
                    await server.__aexit__(None, None, None)

        try:
            run = asyncio.run(play())
        except KeyboardInterrupt:
            if started:
                _say_resume(say_line, started[0], args.db, "interrupted")
            raise
        except asyncio.CancelledError as exc:  # SIGTERM: `arena` says "terminated", 143
            from arena.stopping import is_sigterm

            if started and is_sigterm(exc):
                _say_resume(say_line, started[0], args.db, "terminated")
            raise
        except ArenaError:  # a worker that died (--workers): every stored round kept
            if started and _stored(store, started[0]):  # not removed unplayed
                _say_resume(say_line, started[0], args.db, "interrupted")
            raise
        if not run.finished:
            why = "stopped after the current round" if session.stop_asked else "session over"
            _print_board(run.leaderboard, title=f"tournament {run.tournament_id}, {why}")
            _say_resume(say_line, run.tournament_id, args.db, why)
            return 130 if session.stop_asked else 0
        _print_board(run.leaderboard, title=f"tournament {run.tournament_id}, finished")
    return 0


def _arena_server(args: argparse.Namespace, settings: TournamentConfig) -> ArenaServer | None:
    """The overlay's server of ``--serve`` (not started), or None."""
    if not args.serve:
        return None
    from arena.server.wiring import ArenaServer
    from tournaments.schedule import table_place

    spectator = settings.spectator
    server = ArenaServer(
        settings.server,
        mode="tournament",
        host=args.host,
        port=args.port,
        seats=settings.agents,
        config_dir=args.file.parent if getattr(args, "file", None) is not None else None,
        spectator_delay_s=spectator.delay_s if spectator.enabled else None,
    )
    server.hub.describe_table = table_place  # the between screen: "next: stage 2, table 1"
    return server


def _sayer(log_format: str) -> Say:
    """How ``run`` and ``resume`` say a line on stderr: ``arena: ...`` (a warning's
    text after ``warning:``), or with ``--log-format json`` a JSON object like every
    log line, as ``arena play`` says its own."""

    def say_line(event: str, text: str, /, *, level: str = "info", **fields: Any) -> None:
        prefix = "warning: " if level == "warning" else ""
        say(log_format, event, f"{prefix}{text}", level=level, **fields)

    return say_line


def _check_play_flags(args: argparse.Namespace) -> None:
    """The numbers and files of ``run`` and ``resume``, each refused with its flag."""
    if args.workers != 1:
        from tournaments.workers import check_workers

        try:
            check_workers(args.workers)
        except ConfigError as exc:
            raise TournamentCommandError(str(exc)) from None
    if args.rounds is not None and args.rounds < 1:
        raise TournamentCommandError(f"--rounds: {args.rounds}: give 1 round or more")
    if args.serve and args.workers != 1:
        raise TournamentCommandError(
            f"--serve with --workers {args.workers}: the overlay shows, and its controls "
            "pause, the tables of this process; serve with --workers 1"
        )
    if args.simulate_gifts is not None and not 0 < args.simulate_gifts <= 1000:
        raise TournamentCommandError(
            f"--simulate-gifts: {args.simulate_gifts:g} gifts a second: give a rate above 0, "
            "at most 1000"
        )
    if args.gift_file is not None and not args.gift_file.is_file():
        raise TournamentCommandError(f"--gift-file: {args.gift_file}: no such file")


def _stored(store: TournamentStore, tid: str) -> bool:
    """Whether the tournament is (still) in the store: a new one whose agents could not
    start is removed unplayed (tournaments.runner)."""
    return store.has_tournament(tid)


def _say_resume(say_line: Say, tid: str, db: Path, why: str) -> None:
    command = f"arena tournament resume {tid} --db {db}"
    say_line(
        "tournament_resumable",
        f"tournament {tid} {why}; go on with: {command}",
        tournament=tid,
        why=why,
        resume=command,
    )


def _say_seed(say_line: Say, seeds: dict[str, Any]) -> None:
    """What a run says of its seed as it starts: the commitment its deals are checked
    against, or that a small seed makes it unverifiable."""
    epoch = seeds["epochs"][-1]
    if not epoch["verifiable"]:
        say_line(
            "tournament_seed",
            "seed: not verifiable, the file's small seed could have been chosen (give no "
            "seed, or 128 bits, for deals anyone can check)",
            verifiable=False,
            epoch=epoch["epoch"],
        )
        return
    say_line(
        "tournament_seed",
        f"seed committed: sha256 {epoch['commitment']} (epoch {epoch['epoch']}; revealed "
        "when the tournament ends, or a daily's next session starts; checked by `arena "
        "tournament verify`)",
        verifiable=True,
        epoch=epoch["epoch"],
        commitment=epoch["commitment"],
    )


class RunView:
    """A run's progress: on a terminal a bar with an ETA above the top of the
    leaderboard, redrawn after every round; otherwise a line at every tenth of the
    rounds planned (every 50 rounds when open-ended), naming the leader. With
    ``--log-format json`` never a bar: each line is a JSON object, as every stderr line."""

    def __init__(self, console: Any = None, *, log_format: str = "console") -> None:
        from rich.console import Console

        self.console = console or Console(stderr=True)
        self.log_format = log_format
        self.live: Any = None
        self.progress: Any = None
        self.task: Any = None
        self.planned: int | None = None
        self.played = 0
        self._said = 0

    def start(self, planned: int | None, played: int) -> None:
        """Rounds planned (None: open-ended) and already played (a resumed run)."""
        self.planned, self.played, self._said = planned, played, played
        if not self.console.is_terminal or self.log_format == "json":
            return
        from rich.live import Live
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

        self.progress = Progress(
            "rounds",
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=self.console,
        )
        self.task = self.progress.add_task("rounds", total=planned, completed=played)
        self.live = Live(self.progress, console=self.console, refresh_per_second=4)
        self.live.start()

    def update(self, board: dict[str, Any]) -> None:
        """The leaderboard after a round."""
        self.played = int(board["rounds"])
        if self.live is not None:
            from rich.console import Group
            from rich.table import Table

            self.progress.update(self.task, completed=self.played)
            top = Table("#", "Agent", "Pts/Rd", "Pts", "Rating", box=None)
            for agent in board["agents"][:5]:
                top.add_row(
                    str(agent["rank"]),
                    agent["name"],
                    _per_round(agent["points_per_round"]),
                    str(agent["points"]),
                    f"{agent['mu']:.1f} ± {agent['sigma']:.1f}",
                )
            self.live.update(Group(self.progress, top))
            return
        step = max(self.planned // 10, 1) if self.planned else 50
        crossed = self.played // step > self._said // step or self.played == self.planned
        if crossed and self.played != self._said:  # not again for the same rounds
            self._said = self.played
            leader = board["agents"][0]
            of = f"/{self.planned}" if self.planned else ""
            text = (
                f"{self.played}{of} rounds; leader {leader['name']} "
                f"({_per_round(leader['points_per_round'])} a round)"
            )
            if self.log_format == "json":
                say(
                    "json",
                    "tournament_progress",
                    text,
                    rounds=self.played,
                    planned_rounds=self.planned,
                    leader=leader["name"],
                    leader_points_per_round=leader["points_per_round"],
                )
                return
            self.console.print(f"arena: {text}", highlight=False)

    def finished(self) -> None:
        """The tournament is over: the bar full, though fewer rounds were played than
        planned (a ``quick`` match may end after 3)."""
        if self.live is not None:
            self.progress.update(self.task, total=self.played, completed=self.played)

    def stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None


def _broker(mqtt: Any, url: str | None) -> Any:
    """The broker to publish the leaderboard to: none without ``--mqtt`` (unless the
    file's ``[mqtt]`` is enabled), the file's, or the URL's."""
    if url is None:
        return mqtt if mqtt.enabled else None
    if url == DEFAULT_BROKER:
        return mqtt
    from arena.config import MqttSettings
    from arena.sinks.mqtt import broker_from_url

    try:
        return MqttSettings.model_validate({**mqtt.model_dump(), **broker_from_url(url)})
    except ConfigError as exc:
        raise TournamentCommandError(f"--mqtt: {exc}") from None


def _session_refusing_flags(args: argparse.Namespace, settings: TournamentConfig) -> Session:
    """The run's session, once the flags that do not go with this tournament are refused
    (``--rounds`` on a fixed length; gifts with workers or duplicate mode), before
    gifts say they start."""
    from tournaments.session import Session

    rounds = args.rounds if args.rounds is not None else settings.tournament.session_rounds
    session = Session(rounds)
    if session.rounds is not None and settings.tournament.format != "daily":
        raise TournamentCommandError(
            f"--rounds: only a daily tournament has sessions; this one is "
            f"{settings.tournament.format}, with a fixed length"
        )
    asked = args.gifts or args.simulate_gifts is not None or args.gift_file is not None
    if args.workers > 1:
        from tournaments.workers import refuse_with_workers

        wanted = asked or bool(settings.gifts.get("enabled", False))
        refuse_with_workers(args.workers, gifts=wanted, spectator=False)  # that: at the run
    if asked and settings.tournament.duplicate != "off":
        raise TournamentCommandError(
            "--gifts, --simulate-gifts, --gift-file: not with tournament.duplicate: a "
            "viewer's gift or cheer could carry a deal from one seating to the next"
        )
    return session


def _finish(args: argparse.Namespace) -> int:
    """Mark a tournament finished (refused while a run plays it): its seeds are
    revealed and it can no longer be resumed."""
    from tournaments.cli_verify import seed_lines
    from tournaments.epochs import seeds_document
    from tournaments.store import TournamentStore

    with TournamentStore(args.db, create=False) as store:
        row = store.tournament(args.tournament_id)
        if row.status == "finished":
            raise TournamentCommandError(f"tournament {row.id} is finished already")
        with RunLease(store.path, row.id):  # or TournamentBusy: a run is playing it
            store.mark_tournament(row.id, "finished")
        print(f"tournament {row.id} ({row.name}) finished after {store.round_count(row.id)} rounds")
        print("\n".join(seed_lines(seeds_document(store, row.id))))
        print(f"check it: arena tournament verify {row.id} --db {args.db}")
    return 0


def _read(args: argparse.Namespace) -> int:
    from tournaments.store import TournamentStore

    with TournamentStore.for_reading(args.db) as store:
        if args.tournament_action == "list":
            return _list(store, as_json=args.json)
        row = store.tournament(args.tournament_id)
        if args.tournament_action == "export" and args.replay:
            return _export_replay(store, row, args.table)
        if args.tournament_action == "export" and args.table is not None:
            raise TournamentCommandError("--table goes with --replay")
        from tournaments.epochs import seeds_document
        from tournaments.store import stored_game, stored_round_record

        stored = store.rounds(row.id)
        game = stored_game(row.config)
        records = [stored_round_record(data, store.path, game) for data in stored]
        board = _board(row, records)
        problems = _result_problems(row, zip(stored, records, strict=True))
        status = shown_status(store, row)
        seeds = seeds_document(store, row.id)
        document = {
            "tournament": row.id,
            "name": row.name,
            "status": status,
            **board.to_dict(),
            "tables": _tables(store, row.id, status),
            "seeds": seeds,
            "result_problems": problems,
        }
        showing = args.tournament_action == "show"
        if showing and not args.json:
            _print_board(board, title=f"tournament {row.id} ({row.name}), {status}")
            from tournaments.cli_verify import seed_lines

            print("\n".join(seed_lines(seeds)))
            if not problems:
                print(
                    "results: every round's stored scores follow from its stored settlement "
                    "(every move and deal, and the decision figures that make forfeits: "
                    f"arena tournament verify {row.id})"
                )
        elif showing or args.json:
            print(json.dumps(document, ensure_ascii=False, indent=2 if showing else None))
        else:
            sys.stdout.write(board.to_csv())
        return _say_result_problems(problems, row.id, args)


def _result_problems(
    row: TournamentRow, rounds: Iterable[tuple[dict[str, Any], RoundRecord]]
) -> list[str]:
    """What the stored results say against themselves (tournaments.stored_check)."""
    from pydantic import ValidationError

    from tournaments.store import stored_game
    from tournaments.stored_check import result_problems

    game = stored_game(row.config)
    try:
        rules = game.parse_rules(row.config.get("rules", {}))
    except ValidationError as exc:
        return [f"the stored rules do not read back ({exc.errors()[0]['msg']}): not checked"]
    return result_problems(rounds, game, rules)


def _say_result_problems(problems: list[str], tid: str, args: argparse.Namespace) -> int:
    """Each problem on stderr and what to do, exit status 1; 0 when there are none."""
    if not problems:
        return 0
    said = _sayer(args.log_format)
    for problem in problems:
        said("stored_result_differs", problem, level="warning", tournament=tid)
    command = f"arena tournament verify {tid} --db {args.db}"
    said(
        "stored_results_differ",
        f"{len(problems)} problem(s) in the stored results: the file was changed or "
        f"damaged, and the leaderboard counts them as stored; the full check, every move "
        f"and deal: {command}",
        level="warning",
        tournament=tid,
        problems=len(problems),
        verify=command,
    )
    return 1


def _tables(store: TournamentStore, tid: str, status: str) -> list[dict[str, Any]]:
    """The table matches played or under way: who sat where, and how far each got (what
    a schedule's balance is checked from). In a tournament no process plays, a table
    match stored as running is ``interrupted``, as the tournament is."""
    return [
        {
            "stage": int(match.stage),
            "table": match.table_id,
            "players": list(match.players),
            "status": "interrupted"
            if match.status == "running" and status != "running"
            else match.status,
            "rounds": store.last_round(match.id),
        }
        for match in store.table_matches(tid)
    ]


def _export_replay(store: TournamentStore, row: TournamentRow, table: str | None) -> int:
    """The stored rounds as one replay file on stdout, table after table, after the
    tournament line verification needs (tournaments.export)."""
    from tournaments.export import export_lines

    tid = row.id
    matches = [m for m in store.table_matches(tid) if table is None or m.table_id == table]
    if not matches:
        known = ", ".join(m.table_id for m in store.table_matches(tid)) or "none yet"
        raise TournamentCommandError(
            f"tournament {tid} has no table {table!r} (its tables: {known})"
            if table is not None
            else f"tournament {tid} has no rounds stored yet"
        )
    out = sys.stdout.buffer
    for line in export_lines(store, row, shown_status(store, row), matches):
        out.write(line)
    out.flush()
    return 0


def _board(row: TournamentRow, records: list[RoundRecord]) -> Leaderboard:
    """The tournament's leaderboard from its stored rounds, counted by its own rule."""
    from tournaments.deals import Duplicate, seating_count
    from tournaments.forfeits import stored_standin_rounds
    from tournaments.leaderboard import Leaderboard
    from tournaments.store import stored_game, stored_seat_count

    roster = [agent["name"] for agent in row.config.get("agents", ())]
    duplicate = Duplicate(row.config.get("tournament", {}).get("duplicate", "off"))
    return Leaderboard.from_rounds(
        records,
        names=roster,
        seatings=seating_count(duplicate, stored_seat_count(row.config)),
        standin_rounds=stored_standin_rounds(row.config),
        game=stored_game(row.config),
    )


def _list(store: TournamentStore, *, as_json: bool) -> int:
    rows = store.tournaments()
    if as_json:
        listed = [
            {
                "id": row.id,
                "name": row.name,
                "status": shown_status(store, row),
                "created_at": row.created_at,
                "finished_at": row.finished_at,
                "rounds": store.round_count(row.id),
            }
            for row in rows
        ]
        print(json.dumps({"tournaments": listed}, ensure_ascii=False, indent=2))
        return 0
    if not rows:
        print(f"no tournaments in {store.path}")
    for row in rows:
        print(f"{row.id}  {shown_status(store, row):<11}  {row.created_at}  {row.name}")
    return 0


def _print_board(board: Leaderboard, *, title: str) -> None:
    from rich.console import Console

    wide = None if sys.stdout.isatty() else 200  # a file or a pipe: every column whole
    console = Console(width=wide)
    if console.width >= 150:
        console.print(title, board.render())
        return
    from rich.table import Table  # a narrow terminal: the columns that matter most

    table = Table(
        "#", "Agent", "Pts/Rd", "Pts", "Rds", "Rating (μ ± σ)", "Wins", "Forfeits", title=title
    )
    duplicate = board.seatings > 1
    if duplicate:
        table.add_column("MP/Deal")
    for agent in board.to_dict()["agents"]:
        table.add_row(
            str(agent["rank"]),
            agent["name"],
            _per_round(agent["points_per_round"]),
            str(agent["points"]),
            str(agent["rounds"]),
            f"{agent['mu']:.1f} ± {agent['sigma']:.1f}",
            str(agent["round_wins"]),
            str(agent["forfeits"]),
            *((_per_round(agent["matchpoints_per_deal"]),) if duplicate else ()),
        )
    console.print(table)
    console.print("(every column: a wider terminal, or --json / export --csv)", style="dim")


def _per_round(points: float | None) -> str:
    """Points per round as shown; ``-`` for an agent yet to play."""
    return "-" if points is None else f"{points:.2f}"
