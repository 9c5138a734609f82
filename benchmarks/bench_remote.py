"""Added time per decision of a seat outside the process: a subprocess and an HTTP server.

The agents answer at once (a PASS naming the request), so what is measured is the
arena's side of the message path and the operating system's: writing the request as
JSON, the pipe or the loopback socket, the program reading it and answering, and the
table reading the reply with the protocol's models (``as_reply``). The same decisions
are timed for an in-process agent that answers at once, for reference: the difference is
what a remote seat adds to each decision. The requests are real PLAY_REQUESTs from a
played match (hand, history and all).

Run: ``.venv/bin/python -m benchmarks.bench_remote [--decisions 2000]``. Figures are in
``benchmarks/README.md``; they are wall-clock times, so run on a quiet machine.
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

from arena.agents.http import HttpAgent
from arena.agents.process import SubprocessAgent
from arena.games.ddz.agents.scripted import HeuristicAgent
from arena.games.ddz.messages import PlayRequest, PlayResponse
from arena.table import Table, play_match
from arena.table.calls import as_reply

_ANSWER = (
    "import json, sys\n"
    "def answer(line):\n"
    "    m = json.loads(line)\n"
    "    if not m['type'].endswith('_REQUEST'):\n"
    "        return None\n"
    "    return json.dumps({'type': 'PLAY_RESPONSE', 'player_id': m['player_id'],\n"
    "                       'action': 'PASS', 'request_id': m['request_id']})\n"
)

_STDIO_PROGRAM = (
    _ANSWER + "for line in sys.stdin:\n"
    "    reply = answer(line)\n"
    "    if reply is not None:\n"
    "        sys.stdout.write(reply + '\\n'); sys.stdout.flush()\n"
)

_HTTP_PROGRAM = _ANSWER + (
    "from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer\n"
    "class Handler(BaseHTTPRequestHandler):\n"
    "    protocol_version = 'HTTP/1.1'\n"
    "    disable_nagle_algorithm = True\n"
    "    def do_POST(self):\n"
    "        body = self.rfile.read(int(self.headers['Content-Length']))\n"
    "        reply = (answer(body) or '').encode()\n"
    "        self.send_response(200 if reply else 204)\n"
    "        self.send_header('Content-Length', str(len(reply)))\n"
    "        self.end_headers()\n"
    "        self.wfile.write(reply)\n"
    "    def log_message(self, *args):\n"
    "        pass\n"
    "ThreadingHTTPServer(('127.0.0.1', int(sys.argv[1])), Handler).serve_forever()\n"
)


class _Capturing(HeuristicAgent):
    """A scripted bot that keeps every PLAY_REQUEST it is asked."""

    def __init__(self, name: str, requests: list[PlayRequest]) -> None:
        super().__init__(name, seed=1)
        self.requests = requests

    async def play(self, request: PlayRequest) -> PlayResponse:
        self.requests.append(request)
        return await super().play(request)


class _Instant:
    """An in-process agent that answers at once: the reference."""

    async def play(self, request: PlayRequest) -> PlayResponse:
        return PlayResponse(
            player_id=request.player_id, action="PASS", request_id=request.request_id
        )


async def _requests(wanted: int) -> list[PlayRequest]:
    requests: list[PlayRequest] = []
    seed = 0
    while len(requests) < wanted:
        agents = [_Capturing(name, requests) for name in ("A", "B", "C")]
        await play_match(Table(agents), rounds=5, seed=seed)
        seed += 1
    return requests[:wanted]


async def _time(
    ask: Callable[[PlayRequest], Awaitable[Any]], requests: list[PlayRequest]
) -> list[float]:
    times = []
    for request in requests:
        started = time.perf_counter()
        as_reply(await ask(request), PlayResponse)
        times.append(time.perf_counter() - started)
    return times


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def _wait_for_port(port: int) -> None:
    for _ in range(200):
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            await asyncio.sleep(0.025)
            continue
        writer.close()
        await writer.wait_closed()
        return
    raise RuntimeError(f"the benchmark's HTTP server did not listen on port {port}")


async def measure(decisions: int) -> dict[str, list[float]]:
    """Seconds per decision for each kind of seat, over the same requests."""
    requests = await _requests(decisions)
    results = {"in-process": await _time(_Instant().play, requests)}

    process = SubprocessAgent("A", command=[sys.executable, "-c", _STDIO_PROGRAM])
    await process.open()
    try:
        await _time(process.ask, requests[:50])  # warm up
        results["subprocess"] = await _time(process.ask, requests)
    finally:
        await process.close()

    port = _free_port()
    server = await asyncio.create_subprocess_exec(sys.executable, "-c", _HTTP_PROGRAM, str(port))
    try:
        await _wait_for_port(port)
        http = HttpAgent("A", url=f"http://127.0.0.1:{port}/")
        await http.open()
        try:
            await _time(http.ask, requests[:50])
            results["http"] = await _time(http.ask, requests)
        finally:
            await http.close()
    finally:
        server.terminate()
        await server.wait()
    return results


def _report(results: dict[str, list[float]]) -> None:
    base = statistics.median(results["in-process"])
    print(f"{'seat':<12}{'median':>12}{'p99':>12}{'added (median)':>18}")
    for kind, times in results.items():
        median = statistics.median(times)
        p99 = statistics.quantiles(times, n=100)[98]
        added = "" if kind == "in-process" else f"{(median - base) * 1e3:.3f} ms"
        print(f"{kind:<12}{median * 1e3:>9.3f} ms{p99 * 1e3:>9.3f} ms{added:>18}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=2000)
    args = parser.parse_args()
    results = asyncio.run(measure(args.decisions))
    print(f"{args.decisions} PLAY_REQUESTs each, answered at once (wall clock)")
    _report(results)


if __name__ == "__main__":
    main()
