"""What the arena adds to a language model's decision, and how many model seats it runs.

(a) In process: building the prompt (``build_prompt``), reading the model's reply
    (``extract_reply``) and checking it with the engine (``judge_reply``), for the real
    BID, DOUBLE and PLAY requests of played matches. Goal: under 1 ms at the median.
(b) End to end through the real ``openai`` SDK: an ``openai`` seat (``OpenAIAgent``)
    asking a loopback server that answers at once, beside the bare SDK call with the same
    payload; the difference is the arena's own part.
(c) 60 tables of three ``openai`` seats against a loopback server that answers after
    1 s: decisions per second against the ideal (one seat per table thinks at a time, so
    60 a second). Goal: at least 90 %.
(d) Prompt size per request kind, language and ``legal_moves`` option, in characters and
    estimated tokens (``estimate_tokens``), the largest over every captured request.
    Goal: a PLAY prompt without the legal-move list under 1,500 tokens.

The server is this module run as ``--serve DELAY`` in a child process: a small asyncio
HTTP/1.1 server speaking Chat Completions that plays legal moves (it reads the request
from the prompt and asks the engine), so tables play real rounds. Being asyncio, it holds
any number of delayed requests at once without a thread each.

Run: ``.venv/bin/python -m benchmarks.bench_llm`` (about 1.5 minutes; ``--quick`` for a
smoke run). Figures are in ``benchmarks/README.md``; wall clock, so they move with load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Final, TypeAlias

from arena.agents.llm.openai_seat import OpenAIAgent, close_clients, reply_schema
from arena.games.ddz.agents.capture import RequestCapture
from arena.games.ddz.agents.reading import legal_for
from arena.games.ddz.agents.scripted import HeuristicAgent, RandomAgent
from arena.games.ddz.engine import DEFAULT_RULES, ComboType
from arena.games.ddz.judge import judge_reply
from arena.games.ddz.messages import (
    BidRequest,
    DoubleRequest,
    PlayRequest,
    parse_message,
)
from arena.games.ddz.prompts.extract import extract_reply
from arena.games.ddz.prompts.prompts import Language, LegalMoves, build_prompt
from arena.table import Table, TableSettings, play_match
from protocol import Message

AskRequest: TypeAlias = BidRequest | DoubleRequest | PlayRequest

KINDS: Final = ("BID_REQUEST", "DOUBLE_REQUEST", "PLAY_REQUEST")
TOKEN_GOAL: Final = 1500
"""A PLAY prompt without the legal-move list stays under this many estimated tokens."""
MODEL: Final = "bench-model"


# --- the model's side: what the loopback server answers --------------------------------


def decide(request: AskRequest) -> dict[str, Any]:
    """A legal decision, as a model in ``json_schema`` mode writes it (every key present).

    Bids the highest offered, never doubles; leads its longest move, follows with its
    lowest non-bomb move that beats the trick, else passes. Plain and fast, so that the
    server never holds a table up.
    """
    text: dict[str, Any] = {"comment": "看我的", "emotion": "thinking", "strategy_hint": None}
    if isinstance(request, BidRequest):
        return {"bid": max(request.available_bids), **text}
    if isinstance(request, DoubleRequest):
        return {"double": False, **text}
    moves = legal_for(request, DEFAULT_RULES)
    if request.is_free_play:
        move = max(moves, key=lambda m: (len(m.cards), -m.main_rank))
    else:
        beating = [m for m in moves if m.type not in (ComboType.BOMB, ComboType.ROCKET)]
        if not beating:
            return {"action": "PASS", "cards": [], "hand_type": None, **text}
        move = min(beating, key=lambda m: m.main_rank)
    return {"action": "PLAY", "cards": move.card_strings, "hand_type": move.type.value, **text}


def _request_in(body: dict[str, Any]) -> AskRequest:
    """The request message quoted in the conversation's first user message."""
    content = next(m["content"] for m in body["messages"] if m["role"] == "user")
    start = content.index('{"type":"')
    quoted, _ = json.JSONDecoder().raw_decode(content, start)
    request = parse_message(quoted)
    assert isinstance(request, BidRequest | DoubleRequest | PlayRequest)
    return request


def completion(body: dict[str, Any]) -> dict[str, Any]:
    """A Chat Completions answer to ``body``, with usage fields."""
    text = json.dumps(decide(_request_in(body)), ensure_ascii=False)
    prompt_tokens = sum(len(m["content"]) for m in body["messages"]) // 2
    return {
        "id": "chatcmpl-bench",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", MODEL),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(text) // 3,
            "total_tokens": prompt_tokens + len(text) // 3,
        },
    }


async def _connection(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, delay: float
) -> None:
    """Keep-alive HTTP/1.1: one request at a time per connection, as the SDK sends them."""
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = 0
            for line in head.split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            body = json.loads(await reader.readexactly(length)) if length else {}
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                status, answer = b"200 OK", completion(body)
            except Exception as exc:  # a benchmark bug: say so to the client, keep serving
                status, answer = b"500 Internal Server Error", {"error": {"message": repr(exc)}}
            data = json.dumps(answer, ensure_ascii=False).encode()
            writer.write(
                b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\n"
                b"Content-Length: " + str(len(data)).encode() + b"\r\n\r\n" + data
            )
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    finally:
        writer.close()


async def serve(delay: float) -> None:
    """Serve on a free loopback port, printed as the first line of stdout."""
    server = await asyncio.start_server(
        lambda r, w: _connection(r, w, delay), "127.0.0.1", 0, backlog=1024
    )
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


class Server:
    """This module's server in a child process: ``async with Server(delay) as url``."""

    def __init__(self, delay: float) -> None:
        self.delay = delay
        self._process: asyncio.subprocess.Process | None = None

    async def __aenter__(self) -> str:
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "benchmarks.bench_llm",
            "--serve",
            str(self.delay),
            stdout=asyncio.subprocess.PIPE,
        )
        assert self._process.stdout is not None
        port = int(await asyncio.wait_for(self._process.stdout.readline(), 30))
        return f"http://127.0.0.1:{port}/v1"

    async def __aexit__(self, *exc: object) -> None:
        assert self._process is not None
        self._process.terminate()
        await self._process.wait()


# --- real requests ------------------------------------------------------------------------


NAMES: Final = ("GPT-4o-mini", "Claude", "DeepSeek")
"""The seat names of ``config/llm-match.toml``: every play in a prompt's history names its
player, so the names' length shows in the prompt sizes."""


async def captured_requests(matches: int) -> dict[str, list[AskRequest]]:
    """Every request of ``matches`` 3-round matches of heuristic bots (rounds played
    sensibly, as a model plays them) and of random bots (rounds run long: the largest
    histories, so the largest prompts), by the bots that played them."""
    found: dict[str, list[AskRequest]] = {"heuristic": [], "random": []}
    for seed in range(matches):
        for kind, bot in (("heuristic", HeuristicAgent), ("random", RandomAgent)):
            agents: list[Any] = [
                RequestCapture(bot(n, seed=seed * 3 + i), found[kind]) for i, n in enumerate(NAMES)
            ]
            await play_match(Table(agents, settings=TableSettings(pace_s=0)), rounds=3, seed=seed)
    return found


def _kind(request: AskRequest) -> str:
    return request.type


# --- (a) the arena's work per decision, in process ----------------------------------------


def arena_work(
    request: AskRequest, reply_text: str, *, language: Language, legal_moves: LegalMoves
) -> None:
    """What the arena does for one model decision besides waiting for the model."""
    build_prompt(request, language=language, legal_moves=legal_moves)
    extracted = extract_reply(reply_text, request)
    judgement = judge_reply(request, extracted.reply, DEFAULT_RULES)
    if judgement.verdict != "legal":
        raise AssertionError(f"the benchmark's own answer was refused: {judgement.detail}")


def time_arena_work(
    requests: Sequence[AskRequest], *, language: Language, legal_moves: LegalMoves
) -> dict[str, list[float]]:
    """Seconds per decision, by request kind (and ``all``)."""
    texts = [json.dumps(decide(r), ensure_ascii=False) for r in requests]
    for request, text in zip(requests[:50], texts, strict=False):  # warm up: templates
        arena_work(request, text, language=language, legal_moves=legal_moves)
    times: dict[str, list[float]] = {kind: [] for kind in (*KINDS, "all")}
    for request, text in zip(requests, texts, strict=True):
        started = time.perf_counter()
        arena_work(request, text, language=language, legal_moves=legal_moves)
        elapsed = time.perf_counter() - started
        times[_kind(request)].append(elapsed)
        times["all"].append(elapsed)
    return times


# --- (b) end to end through the SDK, answered at once ---------------------------------------


async def _ask(agent: OpenAIAgent, request: AskRequest) -> object:
    return await agent.ask(request)


async def _timed(
    call: Callable[[AskRequest], Awaitable[object]], requests: Sequence[AskRequest]
) -> list[float]:
    times = []
    for request in requests:
        started = time.perf_counter()
        await call(request)
        times.append(time.perf_counter() - started)
    return times


async def end_to_end(requests: Sequence[AskRequest]) -> dict[str, list[float]]:
    """Seconds per decision through an ``openai`` seat, and through the bare SDK call with
    the very payload the seat sends (the prompt built beforehand)."""
    async with Server(0.0) as url:
        agent = OpenAIAgent("bench", model=MODEL, provider="vllm", base_url=url)
        await agent.open()

        async def seat(request: AskRequest) -> None:
            reply = await _ask(agent, request)
            take = getattr(agent, "take_report", None)
            if take is not None:
                take()
            judgement = judge_reply(request, reply, DEFAULT_RULES)
            if judgement.verdict != "legal":
                raise AssertionError(f"the server's answer was refused: {judgement.detail}")

        payloads: dict[int, Any] = {}
        for request in requests:
            prompt = agent.prompts.build_prompt(
                request, language=agent.language, legal_moves=agent.legal_moves
            )
            payloads[id(request)] = {
                "model": MODEL,
                "messages": [
                    {"role": "system", "content": prompt.system},
                    {"role": "user", "content": prompt.user},
                ],
                "response_format": reply_schema(agent.prompts.decision_schema(request)),
            }
        import openai

        client = openai.AsyncOpenAI(base_url=url, api_key="EMPTY", max_retries=0)

        async def bare(request: AskRequest) -> None:
            await client.chat.completions.create(**payloads[id(request)])

        try:
            await _timed(seat, requests[:50])  # warm up: connections, imports, caches
            await _timed(bare, requests[:50])
            # interleaved halves, so that a change of load hits both alike
            half = len(requests) // 2
            results: dict[str, list[float]] = {"seat": [], "bare SDK": []}
            for part in (requests[:half], requests[half:]):
                results["seat"] += await _timed(seat, part)
                results["bare SDK"] += await _timed(bare, part)
        finally:
            await client.close()
            await agent.close()
            await close_clients()
    return results


# --- (c) many tables of model seats, answered after a delay ---------------------------------


class _Counted(OpenAIAgent):
    """An ``openai`` seat that counts the decisions it returned (a subclass, not a mock:
    every call goes through the real SDK to the server)."""

    answered = 0

    async def ask(self, request: Message) -> Any:
        reply = await super().ask(request)
        _Counted.answered += 1
        return reply


async def many_tables(
    tables: int, delay: float, seconds: float, options: dict[str, Any]
) -> tuple[float, float, dict[str, int]]:
    """Decisions per second over ``seconds`` once every table is under way, the ideal,
    and the tables' faults (every one a sign that the arena, not the model, held up)."""
    async with Server(delay) as url:
        boards = []
        for t in range(tables):
            agents = [
                _Counted(f"M{i}", model=MODEL, provider="vllm", base_url=url, **options)
                for i in range(3)
            ]
            settings = TableSettings(pace_s=0.0, auto_pass=True, decision_timeout_s=30.0)
            boards.append(Table(agents, table_id=f"t{t + 1}", settings=settings))
        await asyncio.gather(*(b.open() for b in boards))
        _Counted.answered = 0
        tasks = [
            asyncio.create_task(play_match(b, rounds=1000, seed=t)) for t, b in enumerate(boards)
        ]
        try:
            await asyncio.sleep(2 * delay + 1)  # every table past its first decisions
            before = _Counted.answered
            started = time.perf_counter()
            await asyncio.sleep(seconds)
            elapsed = time.perf_counter() - started
            decided = _Counted.answered - before
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await asyncio.gather(*(b.close() for b in boards))
            await close_clients()
    faults: dict[str, int] = {}
    for board in boards:
        for seat_faults in _faults_of(board):
            for category, count in seat_faults.items():
                faults[category] = faults.get(category, 0) + count
    return decided / elapsed, tables / delay, faults


def _faults_of(board: Table) -> list[dict[str, int]]:
    """Each seat's fault counts this match (the table's own record)."""
    return [board.faults(seat).to_dict() for seat in range(3)]


# --- (d) prompt sizes -------------------------------------------------------------------------


def prompt_sizes(
    requests: Sequence[AskRequest],
) -> list[tuple[str, str, str, int, int, float]]:
    """(kind, language, legal_moves, max chars, max tokens, mean tokens) per combination."""
    rows: list[tuple[str, str, str, int, int, float]] = []
    for kind in KINDS:
        of_kind = [r for r in requests if r.type == kind]
        if not of_kind:  # the random bots' requests are plays only
            continue
        options: tuple[LegalMoves, ...] = (
            ("none", "summary", "full") if kind == "PLAY_REQUEST" else ("none",)
        )
        for language in ("zh", "en"):
            for legal in options:
                prompts = [build_prompt(r, language=language, legal_moves=legal) for r in of_kind]
                rows.append(
                    (
                        kind,
                        language,
                        legal if kind == "PLAY_REQUEST" else "-",
                        max(p.chars for p in prompts),
                        max(p.tokens for p in prompts),
                        statistics.fmean(p.tokens for p in prompts),
                    )
                )
    return rows


# --- report ---------------------------------------------------------------------------------------


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms"


def _p95(times: Sequence[float]) -> float:
    return statistics.quantiles(times, n=20)[18]


def _row(cells: Sequence[object], widths: Sequence[int]) -> str:
    return "  ".join(f"{c!s:<{w}}" for c, w in zip(cells, widths, strict=False)).rstrip()


def report_arena_work(requests: Sequence[AskRequest]) -> float:
    widths = (34, 8, 12, 12)
    print(_row(["(a) in process, per decision", "count", "median", "p95"], widths))
    overall = 0.0
    for language, legal in (("zh", "none"), ("en", "none"), ("zh", "full")):
        times = time_arena_work(requests, language=language, legal_moves=legal)  # type: ignore[arg-type]
        for kind, samples in times.items():
            label = f"{kind} {language}, legal_moves={legal}"
            print(
                _row(
                    [label, len(samples), _ms(statistics.median(samples)), _ms(_p95(samples))],
                    widths,
                )
            )
            if (language, legal, kind) == ("zh", "none", "all"):
                overall = statistics.median(samples)
    verdict = "PASS" if overall < 1e-3 else "MISS"
    print(f"goal: median < 1 ms (zh, none, all kinds): {_ms(overall)} {verdict}\n")
    return overall


def report_end_to_end(requests: Sequence[AskRequest], arena_median: float) -> None:
    results = asyncio.run(end_to_end(requests))
    widths = (34, 8, 12, 12)
    print(_row(["(b) through the SDK, instant server", "count", "median", "p95"], widths))
    for label, samples in results.items():
        print(
            _row([label, len(samples), _ms(statistics.median(samples)), _ms(_p95(samples))], widths)
        )
    seat, bare = (statistics.median(results[k]) for k in ("seat", "bare SDK"))
    print(
        f"the arena's own part: {_ms(seat - bare)} a decision (seat - bare SDK), "
        f"{(seat - bare) / seat:.0%} of it; in-process work alone {_ms(arena_median)}\n"
    )


def report_many_tables(tables: int, delay: float, seconds: float, options: dict[str, Any]) -> None:
    rate, ideal, faults = asyncio.run(many_tables(tables, delay, seconds, options))
    share = rate / ideal
    verdict = "PASS" if share >= 0.9 else "MISS"
    shown = ", ".join(f"{k} {v}" for k, v in sorted(faults.items()) if v) or "none"
    seats = options or "preset defaults"
    print(f"(c) {tables} tables x 3 openai seats ({seats}), server answers after {delay:g} s")
    print(
        f"decisions per second {rate:.1f}, ideal {ideal:.1f}: {share:.0%} (goal >= 90%: {verdict})"
    )
    print(f"faults at the tables: {shown}\n")


def report_prompt_sizes(requests: Sequence[AskRequest], source: str) -> None:
    widths = (16, 4, 12, 10, 11, 12)
    counts = ", ".join(f"{n} {k}s" for k in KINDS if (n := sum(1 for r in requests if r.type == k)))
    print(f"(d) prompt sizes (system + user text), largest over the {source} {counts}")
    print(
        _row(["request", "lang", "legal_moves", "max chars", "max tokens", "mean tokens"], widths)
    )
    worst = 0
    for kind, language, legal, chars, tokens, mean in prompt_sizes(requests):
        print(_row([kind, language, legal, f"{chars:,}", f"{tokens:,}", f"{mean:,.0f}"], widths))
        if kind == "PLAY_REQUEST" and legal == "none":
            worst = max(worst, tokens)
    verdict = "PASS" if worst < TOKEN_GOAL else "MISS"
    print(f"goal: PLAY without legal moves < {TOKEN_GOAL:,} tokens: {worst:,} {verdict}")
    history = max(len(r.play_history) for r in requests if isinstance(r, PlayRequest))
    print(f"longest play history: {history} turns\n")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--serve", type=float, metavar="DELAY", help=argparse.SUPPRESS)
    parser.add_argument("--matches", type=int, default=40, help="scripted matches to capture")
    parser.add_argument("--decisions", type=int, default=1000, help="(b): decisions timed")
    parser.add_argument("--tables", type=int, default=60)
    parser.add_argument("--delay", type=float, default=1.0, help="(c): server delay, s")
    parser.add_argument("--seconds", type=float, default=30.0, help="(c): measured window")
    parser.add_argument("--concurrency", type=int, help="(c): the seats' concurrency option")
    parser.add_argument("--only", choices=("a", "b", "c", "d"), action="append")
    parser.add_argument("--quick", action="store_true", help="a smoke run of a few seconds")
    args = parser.parse_args(argv)
    if args.serve is not None:
        asyncio.run(serve(args.serve))
        return 0
    if args.quick:
        args.matches, args.decisions, args.tables, args.seconds = 3, 100, 6, 3.0
    parts = set(args.only or "abcd")
    started = time.perf_counter()
    by_bots = asyncio.run(captured_requests(args.matches))
    requests = [r for found in by_bots.values() for r in found]
    print(
        f"Model-seat benchmark, Python {sys.version.split()[0]}: {len(requests)} requests "
        f"from {2 * args.matches} scripted matches\n"
    )
    arena_median = report_arena_work(requests) if parts & {"a", "b"} else 0.0
    if "b" in parts:
        step = max(1, len(requests) // args.decisions)
        report_end_to_end(requests[::step][: args.decisions], arena_median)
    if "c" in parts:
        options = {} if args.concurrency is None else {"concurrency": args.concurrency}
        report_many_tables(args.tables, args.delay, args.seconds, options)
    if "d" in parts:
        for source, found in by_bots.items():
            report_prompt_sizes(found, f"{source} bots'")
    print(f"Total run time {time.perf_counter() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
