"""A program in any language as an agent: JSON lines on its stdin and stdout.

One process per seat per match, started without a shell in a session of its own (so
that closing it also ends the children an ``npm start`` leaves). Every message the seat
may see goes to its stdin as one line; a request's reply is the next line of its stdout
that answers it. What the program writes to stderr is logged with the seat named, a
bounded number of lines per process. Known secrets are masked in every line read, stdout
and stderr, before anything quotes or cuts it, also where JSON escapes write them
(:mod:`arena.masking`). The program gets the arena's environment without the variables
that hold secrets, unless ``options.pass_env`` names them (:mod:`arena.agents.program_env`).

Replies are matched as a sequential program gives them: each request attempt written
is owed one line. A line naming a ``request_id`` answers that request (every attempt of
it: a retry has the same id, so a program that echoes ids and skipped one reply lines
up at once); a line naming none answers the oldest attempt still owed, one attempt. So
a reply that comes after its deadline is discarded as stale (counted in
:attr:`SubprocessAgent.stale_replies`) even when the next request is already out, and
never taken for the next one. A late reply to an attempt may be taken as the answer to
the retry of the same request (the same question). A program that echoes no id and
skips a reply cannot be told from one a reply behind: each of its later decisions
times out once (its retry is answered). Owed attempts are never forgotten for being
old: a program that stalls for a minute and then answers in order lines up again.
A line naming a request that was written earlier but is no longer waited for is stale;
one naming a request never written is handed to the request waiting (the table refuses
it as unparsable: it answers another request).

A crash is a fault of the request waiting, seen when the program's stdout ends or its
own process exits (a child it started may hold stdout open: the program's process group
is then killed); the next message starts the program again (this round's notifications
that the game replays to a fresh program first, ``Game.replayed_notifications``), at
most ``max_restarts`` times. Every program's process group is killed when the arena
exits, whatever way it exits.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import os
import signal
from collections import deque
from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.agents.lines import LineSplitter, LineTooLong
from arena.agents.process_options import (
    command_option,
    cwd_option,
    env_option,
    find_program,
    int_option,
    seconds_option,
)
from arena.agents.program_env import pass_env_option, program_environment
from arena.agents.remote import RemoteAgent, reply_request_id
from arena.errors import AgentReplyError, AgentStartError
from arena.logs import get_logger
from arena.masking import mask_incoming, mask_incoming_bytes

__all__ = ["DEFAULT_MAX_LINE_BYTES", "SubprocessAgent", "kill_leftover_programs"]

log = get_logger(__name__)

DEFAULT_MAX_LINE_BYTES: Final = 1024 * 1024
"""A reply line longer than this is a ``truncated`` fault (a request is a few KB)."""

_READ_CHUNK: Final = 64 * 1024
_STDERR_LINE_BYTES: Final = 16 * 1024
_STDERR_TEXT_CHARS: Final = 1000
_STDERR_LOGGED_LINES: Final = 500
"""stderr lines logged per process; the rest are counted (a chatty program cannot
flood the log)."""
_STDERR_TAIL_LINES: Final = 20
_STDERR_HEAD_LINES: Final = 5
_DISCARDS_LOGGED: Final = 100
"""Discarded stdout lines logged per process (a program may print junk without end)."""
_MAX_OWED: Final = 1000
_MAX_WRITTEN: Final = 1000
"""Request ids remembered as written (a reply naming one is stale, not a wrong id)."""
_WATCH_S: Final = 0.25
"""How often a run checks that its program's own process still runs."""
_EXIT_WAIT_S: Final = 1.0
"""After its stdout ends, how long a program gets to exit before it is killed."""
_KILL_GRACE_S: Final = 1.0
_TERM: Final = int(signal.SIGTERM)
_KILL: Final = int(getattr(signal, "SIGKILL", signal.SIGTERM))  # no SIGKILL on Windows


_RUNNING: set[int] = set()
"""Process groups of the programs started and not yet reaped."""


def kill_leftover_programs() -> None:
    """At exit, kill every program still running: a second Ctrl-C during cleanup, or
    any path that skips close(), must not leave programs behind. Registered with
    :mod:`atexit`; a forked process that ends with ``os._exit`` (a tournament worker)
    calls it itself."""
    for group in list(_RUNNING):
        with contextlib.suppress(OSError):
            os.killpg(group, _KILL)
    _RUNNING.clear()


if hasattr(os, "killpg"):
    atexit.register(kill_leftover_programs)


class _Run:
    """One start of the program: the process, its readers, the requests it owes."""

    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        self.pid = proc.pid
        self.owed: deque[str | None] = deque(maxlen=_MAX_OWED)
        """The request ids of attempts written and not yet answered, oldest first."""
        self.head: list[str] = []
        """Its first stderr lines: where a panic or a launcher's error says why."""
        self.tail: deque[str] = deque(maxlen=_STDERR_TAIL_LINES)
        self.stderr_seen = 0
        self.discards = 0
        self.stdout_lines = 0
        self.silence_noted = False
        self.closed_stdout = False
        """It closed its stdout but ran on, and was killed for it."""
        self.dead = False
        """Its stdout ended or a write failed: it answers nothing more."""
        self.quiet = True
        """No warning when it exits: it is starting (open says why) or being closed."""
        self.exit_code: int | None = None
        self.exit_reason = ""
        """Set once its end is known: how it ended and its last stderr lines."""
        self.readers: list[asyncio.Task[None]] = []
        """Its stdout reader, then its stderr reader."""
        self.watcher: asyncio.Task[None] | None = None


class SubprocessAgent(RemoteAgent):
    """One program per seat per match, one JSON message a line each way.

    Options (the seat's ``options`` in the config): ``command`` (required, a list: the
    program and its arguments, no shell), ``cwd``, ``env`` (added to the inherited
    environment, which holds no secret of the arena's), ``pass_env`` (names of the
    arena's variables holding secrets that the program gets all the same),
    ``max_line_bytes``, ``max_restarts``, ``startup_s`` (how long :meth:`open` watches
    for a program that exits at once), ``close_timeout_s``.
    """

    def __init__(
        self,
        name: str,
        *,
        command: Sequence[str] | None = None,
        cwd: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        pass_env: Sequence[str] | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        max_restarts: int = 3,
        startup_s: float = 0.3,
        close_timeout_s: float = 2.0,
        **options: Any,
    ) -> None:
        super().__init__(name, **options)
        self.command = command_option(command)
        self.cwd = cwd_option(cwd)
        self.env = {"PYTHONUNBUFFERED": "1", **env_option(env)}
        """What is added to the inherited environment. PYTHONUNBUFFERED: a Python program
        block-buffers a pipe, and its replies would never arrive."""
        self.pass_env = pass_env_option(pass_env)
        """The arena's variables holding secrets that the program gets all the same."""
        self.program = find_program(self.command[0], self.cwd, {**os.environ, **self.env})
        self.max_line_bytes = int_option("max_line_bytes", max_line_bytes, 256, 2**30)
        self.max_restarts = int_option("max_restarts", max_restarts, 0, 100)
        self.startup_s = seconds_option("startup_s", startup_s, allow_zero=True)
        self.close_timeout_s = seconds_option("close_timeout_s", close_timeout_s)
        self.restarts = 0
        """Times the program was started again after it died."""
        self.stale_replies = 0
        """stdout lines discarded: late replies, replies to other requests, unasked lines."""
        self.stderr_lines = 0
        """stderr lines the program wrote (logged or not)."""
        self._run: _Run | None = None
        self._started = False
        """Started at least once since open/close: a new start is then a restart."""
        self._deaths = 0
        self._last_exit = ""
        self._pending: tuple[str | None, asyncio.Future[bytes]] | None = None
        self._written: dict[str, None] = {}
        """The last request ids written, oldest first."""

    @property
    def pid(self) -> int | None:
        """The running program's process id (None when none runs)."""
        return self._run.pid if self._run is not None and not self._run.dead else None

    # --- lifecycle ----------------------------------------------------------------------

    async def open(self) -> None:
        """Start the program and watch it ``startup_s``: one that exits at once is an
        AgentStartError with its exit code and last stderr lines, before the match."""
        if self._run is not None:
            if not self._run.dead:
                return
            await self._stop(self._run)
        run = await self._spawn()
        self._run, self._started = run, True
        if self.startup_s > 0:
            done, _ = await asyncio.wait(run.readers[:1], timeout=self.startup_s)
            if done:
                self._run, self._started = None, False
                await self._stop(run)
                how = _how_it_ended(run.exit_code, at_once=True)
                raise AgentStartError(f"the program {how}{_stderr_text(run, start=True)}")
        run.quiet = False

    async def close(self) -> None:
        """End the program: EOF on its stdin, then SIGTERM, then SIGKILL to its group."""
        run, self._run, self._started = self._run, None, False
        if run is not None:
            await self._stop(run)

    # --- messages -----------------------------------------------------------------------

    async def deliver(self, line: bytes) -> None:
        """Write a notification; a program that cannot take it misses it (logged)."""
        try:
            run = await self._ready(line)
        except AgentReplyError as exc:
            log.debug("agent_notification_dropped", agent=self.name, reason=exc.detail)
            return
        if not await self._write(run, line):
            log.debug("agent_notification_dropped", agent=self.name, reason="the pipe broke")

    async def exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        """Write a request and wait for the line that answers it (the table's deadline
        cancels the wait; the program still owes that reply, and it is discarded).

        A program that ended with exit code 0 did not fail the request: it ended between
        two messages (after a ROUND_RESULT, say) and the request met it on its way out.
        It is started again and asked once more, a restart but no fault."""
        try:
            return await self._exchange(line, request_id)
        except AgentReplyError:
            run = self._run
            if run is None or not run.dead or run.exit_code != 0 or run.closed_stdout:
                raise
        log.info("agent_process_ended_cleanly", agent=self.name, table=self.table_id)
        return await self._exchange(line, request_id)

    async def _exchange(self, line: bytes, request_id: str | None) -> bytes | str:
        run = await self._ready(line)
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        pending = (request_id, future)
        self._pending = pending  # before the write: the reply may come at once
        run.owed.append(request_id)
        if request_id is not None:
            self._written.pop(request_id, None)
            self._written[request_id] = None
            if len(self._written) > _MAX_WRITTEN:
                del self._written[next(iter(self._written))]
        try:
            if not await self._write(run, line) or run.exit_reason:
                # it died: its stdout reader says how, and fails the request with that
                await asyncio.wait(run.readers[:1], timeout=_EXIT_WAIT_S * 2)
                if not future.done():
                    reason = run.exit_reason or "the program stopped reading its stdin"
                    future.set_exception(AgentReplyError("agent_error", reason))
            return await future
        except asyncio.CancelledError:  # the table's deadline
            if not run.stdout_lines and not run.silence_noted:
                run.silence_noted = True  # the usual cause, named once
                log.warning(
                    "agent_silent_on_stdout",
                    agent=self.name,
                    table=self.table_id,
                    pid=run.pid,
                    hint="the program has written no line on stdout yet: unless it is "
                    "only slow, does it flush stdout after each reply?",
                )
            raise
        finally:
            if self._pending is pending:
                self._pending = None
            if future.done() and not future.cancelled():
                future.exception()  # retrieved: no "never retrieved" noise after a cancel

    async def _ready(self, line: bytes) -> _Run:
        """The running program; started (again) if need be, with this round's replayed
        notifications (the game's) written first unless ``line`` is one of them.
        AgentReplyError (``agent_error``) when it cannot run."""
        run = self._run
        if run is not None and not run.dead:
            return run
        if run is not None:  # it died: let its reader finish saying how, then reap it
            await asyncio.wait(run.readers[:1], timeout=_EXIT_WAIT_S * 2)
            self._run = None
            await self._stop(run)
            self._deaths += 1
            self._last_exit = run.exit_reason or "the program stopped"
        restart = self._started
        if restart:
            if self.restarts >= self.max_restarts:
                raise AgentReplyError(
                    "agent_error",
                    f"{self._last_exit}; it crashed {_times(self._deaths)} and is not "
                    f"restarted again (max_restarts = {self.max_restarts})",
                )
            self.restarts += 1
            log.warning(
                "agent_process_restarted",
                agent=self.name,
                table=self.table_id,
                restarts=self.restarts,
                max_restarts=self.max_restarts,
            )
        self._started = True
        try:
            run = await self._spawn()
        except AgentStartError as exc:
            self._deaths += 1
            self._last_exit = str(exc)
            log.warning("agent_process_start_failed", agent=self.name, reason=str(exc))
            raise AgentReplyError("agent_error", str(exc)) from exc
        self._run = run
        run.quiet = False
        if restart:
            for earlier in self.round_messages:
                if earlier is not line and not await self._write(run, earlier):
                    break
        return run

    async def _write(self, run: _Run, line: bytes) -> bool:
        """Write one line; False if the program is gone (it is then marked dead)."""
        stdin = run.proc.stdin
        if run.dead or stdin is None:
            return False
        try:
            stdin.write(line + b"\n")
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            run.dead = True
            return False
        return True

    # --- reading ------------------------------------------------------------------------

    async def _read_stdout(self, run: _Run) -> None:
        stream = run.proc.stdout
        assert stream is not None
        splitter = LineSplitter(self.max_line_bytes)
        try:
            while True:
                data = await stream.read(_READ_CHUNK)
                for item in splitter.feed(data) if data else splitter.end():
                    self._take(run, item)
                if not data:
                    break
        except Exception:  # a request must never wait on a reader that is gone
            log.exception("agent_stdout_reader_failed", agent=self.name, pid=run.pid)
        await self._ended(run)

    def _take(self, run: _Run, item: bytes | LineTooLong) -> None:
        """Route one stdout line: the answer to the request waiting, or discarded."""
        run.stdout_lines += 1
        if isinstance(item, bytes):
            item = mask_incoming_bytes(item)
        pending = self._pending
        if pending is not None and (pending[1].done() or run is not self._run):
            pending = None
        named = reply_request_id(item) if isinstance(item, bytes) else None
        waiting_for = None if pending is None else pending[0]
        owner: str | None
        why = "late"
        if named is not None and named in self._written:
            owner = named
            if named in run.owed:
                _drop_owed(run, named)  # it answers every attempt of that request
            else:
                why = "its request was answered or given up already"
        elif named is not None and pending is not None:
            # it names no request ever sent: an answer all the same (the table refuses it)
            _pop_owed(run)
            owner = waiting_for
        elif named is not None:
            owner, why = named, "it names no request that was sent, and none is waiting"
        elif run.owed:
            owner = _pop_owed(run)  # a sequential program answers in order
        elif pending is not None:
            owner = waiting_for
        else:
            owner, why = None, "nothing was asked"
        if pending is None or owner != waiting_for:
            self._discard(run, item, owner, waiting_for, why)
            return
        if isinstance(item, LineTooLong):
            pending[1].set_exception(
                AgentReplyError(
                    "truncated",
                    f"a line longer than {item.limit} bytes (max_line_bytes); the rest of "
                    "it up to its newline was dropped",
                )
            )
        else:
            pending[1].set_result(item)

    def _discard(
        self,
        run: _Run,
        item: bytes | LineTooLong,
        answers: str | None,
        waiting_for: str | None,
        why: str,
    ) -> None:
        self.stale_replies += 1
        run.discards += 1
        if run.discards <= _DISCARDS_LOGGED:
            text = (
                item[:200].decode("utf-8", "replace")
                if isinstance(item, bytes)
                else f"[a line over {item.limit} bytes]"
            )
            log.info(
                "stale_reply_discarded",
                agent=self.name,
                table=self.table_id,
                pid=run.pid,
                why=why,
                answers=answers,
                waiting_for=waiting_for,
                line=text,
            )

    async def _read_stderr(self, run: _Run) -> None:
        stream = run.proc.stderr
        assert stream is not None
        splitter = LineSplitter(_STDERR_LINE_BYTES)
        while True:
            data = await stream.read(_READ_CHUNK)
            for item in splitter.feed(data) if data else splitter.end():
                self._stderr_line(run, item)
            if not data:
                break
        if run.stderr_seen > _STDERR_LOGGED_LINES:
            log.info(
                "agent_stderr_summary",
                agent=self.name,
                pid=run.pid,
                lines=run.stderr_seen,
                not_logged=run.stderr_seen - _STDERR_LOGGED_LINES,
            )

    def _stderr_line(self, run: _Run, item: bytes | LineTooLong) -> None:
        if isinstance(item, bytes):
            text = mask_incoming(item.decode("utf-8", "replace"))
        else:
            text = f"[a line over {item.limit} bytes, not kept]"
        if len(text) > _STDERR_TEXT_CHARS:
            text = text[:_STDERR_TEXT_CHARS] + "…"
        run.tail.append(text)
        if len(run.head) < _STDERR_HEAD_LINES:
            run.head.append(text)
        run.stderr_seen += 1
        self.stderr_lines += 1
        if run.stderr_seen <= _STDERR_LOGGED_LINES:
            log.info("agent_stderr", agent=self.name, table=self.table_id, pid=run.pid, line=text)
        elif run.stderr_seen == _STDERR_LOGGED_LINES + 1:
            log.warning(
                "agent_stderr_suppressed",
                agent=self.name,
                pid=run.pid,
                logged=_STDERR_LOGGED_LINES,
                hint="its further stderr lines are counted, not logged",
            )

    async def _ended(self, run: _Run) -> None:
        """Its stdout ended: the program is gone. Say how, and fail the request waiting."""
        run.dead = True
        proc = run.proc
        if not await _exited_within(proc, _EXIT_WAIT_S) and proc.returncode is None:
            run.closed_stdout = True  # it closed its stdout but runs on
            _signal_group(run, _KILL)
            await _exited_within(proc, _EXIT_WAIT_S)
        await asyncio.wait(run.readers[1:], timeout=0.5)  # its last stderr lines
        run.exit_code = proc.returncode
        how = (
            "closed its stdout (so it was stopped)"
            if run.closed_stdout
            else _how_it_ended(run.exit_code)
        )
        run.exit_reason = f"the program {how}{_stderr_text(run)}"
        pending = self._pending
        if pending is not None and not pending[1].done() and run is self._run:
            pending[1].set_exception(AgentReplyError("agent_error", run.exit_reason))
        if not run.quiet:
            log.warning(
                "agent_process_exited",
                agent=self.name,
                table=self.table_id,
                pid=run.pid,
                code=run.exit_code,
                how=how,
                stderr_tail=list(run.tail)[-5:],
            )

    # --- processes ----------------------------------------------------------------------

    async def _spawn(self) -> _Run:
        try:
            proc = await asyncio.create_subprocess_exec(
                self.program,
                *self.command[1:],
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                cwd=self.cwd,
                env=program_environment(self.env, self.pass_env),  # decided now: see there
                start_new_session=True,
            )
        except PermissionError as exc:
            raise AgentStartError(
                f"cannot run {self.program!r}: permission denied ({exc.strerror})"
            ) from exc
        except FileNotFoundError as exc:
            raise AgentStartError(
                f"cannot run {self.program!r} in {self.cwd!r}: {exc.strerror}"
            ) from exc
        except OSError as exc:
            raise AgentStartError(f"cannot run {self.program!r}: {exc}") from exc
        if hasattr(os, "killpg"):
            _RUNNING.add(proc.pid)
        run = _Run(proc)
        # the readers outlive the call that started them: no table or round context
        run.readers = [
            asyncio.create_task(self._read_stdout(run), context=contextvars.Context()),
            asyncio.create_task(self._read_stderr(run), context=contextvars.Context()),
        ]
        run.watcher = asyncio.create_task(self._watch(run), context=contextvars.Context())
        log.info(
            "agent_process_started",
            agent=self.name,
            table=self.table_id,
            pid=run.pid,
            command=self.command,
        )
        return run

    async def _watch(self, run: _Run) -> None:
        """Until its stdout ends, check that the program's own process runs: asyncio
        sees an end only once every pipe is closed, and a child left behind may hold
        stdout open. When the program has exited, its process group is killed, so its
        stdout ends and the crash is handled as any other (:meth:`_ended`)."""
        reader = run.readers[0]
        while not reader.done():
            await asyncio.wait([reader], timeout=_WATCH_S)
            if run.proc.returncode is not None and not reader.done():
                await asyncio.wait([reader], timeout=0.1)  # its stdout ends with it
                if not reader.done():
                    _signal_group(run, _KILL)  # its leftover children hold the pipes
                return

    async def _stop(self, run: _Run) -> None:
        """End one run: EOF, ``close_timeout_s``, SIGTERM, a grace, SIGKILL; whatever is
        left of its process group is killed, its readers cancelled. Cancelled (the
        table's deadline), it kills at once."""
        run.quiet = True
        run.dead = True
        proc = run.proc
        try:
            if proc.stdin is not None and not proc.stdin.is_closing():
                proc.stdin.close()
            if not await _exited_within(proc, self.close_timeout_s):
                _signal_group(run, _TERM)
                if not await _exited_within(proc, min(_KILL_GRACE_S, self.close_timeout_s)):
                    _signal_group(run, _KILL)
                    if not await _exited_within(proc, _EXIT_WAIT_S * 5):
                        log.warning("agent_process_not_reaped", agent=self.name, pid=run.pid)
            _signal_group(run, _KILL)  # children it left behind
        except asyncio.CancelledError:
            _signal_group(run, _KILL)
            raise
        finally:
            tasks = [*run.readers, *([run.watcher] if run.watcher is not None else [])]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            # Done, they are dropped: a cancelled task keeps its exception, whose frames
            # hold this run, which held the task (a cycle left to the garbage collector).
            run.readers, run.watcher = [], None
            if proc.returncode is not None:
                _RUNNING.discard(run.pid)  # reaped, and its group killed
            transport = getattr(proc, "_transport", None)  # closed already, unless a
            if transport is not None:  # stray process still holds a pipe
                transport.close()


def _pop_owed(run: _Run) -> str | None:
    """Take the oldest attempt owed, for a line that names no request; its request id.

    Only that attempt: a program answers every line it reads, so after a late reply
    taken for the retry of its request, the retry's own reply is still to come (were it
    forgotten, that reply would be taken for the next request, and every later one
    would answer the request before)."""
    return run.owed.popleft() if run.owed else None


def _drop_owed(run: _Run, request_id: str) -> None:
    """The request is answered: none of its attempts is owed a line any more."""
    kept = [owed for owed in run.owed if owed != request_id]
    run.owed.clear()
    run.owed.extend(kept)


async def _exited_within(proc: asyncio.subprocess.Process, seconds: float) -> bool:
    """Whether the process ended (and its pipes closed) within ``seconds``."""
    try:
        async with asyncio.timeout(seconds):
            await proc.wait()
    except TimeoutError:
        return False
    return True


def _signal_group(run: _Run, sig: int) -> None:
    """Signal the program's process group (its session: the program and its children);
    where there are no process groups (Windows), the program alone."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(run.pid, sig)
        elif run.proc.returncode is None and sig == _KILL:
            run.proc.kill()
        elif run.proc.returncode is None:
            run.proc.terminate()


def _how_it_ended(code: int | None, *, at_once: bool = False) -> str:
    when = " at once" if at_once else ""
    if code is None:
        return f"closed its stdout{when}"
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = str(-code)
        return f"was killed by signal {name}{when}"
    return f"exited{when} with code {code}"


def _stderr_text(run: _Run, *, start: bool = False) -> str:
    """The program's stderr for a message, its first lines and its last: a Python
    traceback ends with why, a Rust panic or Node's "Cannot find module" begins with it.
    A program that failed to start gets more of it than a crash's rejection, whose
    detail an agent receives (at most 500 characters)."""
    seen = run.stderr_seen
    if not seen:
        return "; it wrote nothing to stderr" if start else " (nothing on stderr)"
    head_n, tail_n, budget = (5, 5, 900) if start else (2, 3, 300)
    if seen <= head_n + tail_n:
        lines = list(run.tail)[-seen:]  # all of them: the tail holds more than this
    else:
        lines = [*run.head[:head_n], "…", *list(run.tail)[-tail_n:]]
    width = max(60, budget // len(lines))
    shown = " | ".join(line if len(line) <= width else line[: width - 1] + "…" for line in lines)
    return f"; its stderr: {shown}" if start else f" (stderr: {shown})"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
