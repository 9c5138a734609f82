"""The model-seat benchmark's own parts: its server plays legal moves, and an ``openai``
seat talks to it through the real SDK.

If the server answered illegally, the benchmark's tables would spend their time on
rejections and retries and measure that instead of the arena; these tests keep it honest.
"""

from __future__ import annotations

import json

from arena.games.ddz.judge import judge_reply
from arena.games.ddz.prompts.extract import extract_reply
from arena.games.ddz.prompts.prompts import build_prompt
from benchmarks.bench_llm import (
    Server,
    captured_requests,
    completion,
    end_to_end,
    prompt_sizes,
)


async def test_the_server_answers_every_captured_request_legally() -> None:
    found = await captured_requests(1)
    requests = [r for kind in found.values() for r in kind]
    assert {r.type for r in requests} == {"BID_REQUEST", "DOUBLE_REQUEST", "PLAY_REQUEST"}
    for request in requests:
        prompt = build_prompt(request, language="en")
        body = {
            "model": "m",
            "messages": [
                {"role": "system", "content": prompt.system},
                {"role": "user", "content": prompt.user},
            ],
        }
        answer = completion(body)
        text = answer["choices"][0]["message"]["content"]
        assert answer["usage"]["prompt_tokens"] > 0
        reply = extract_reply(text, request).reply
        judgement = judge_reply(request, reply)
        assert judgement.verdict == "legal", (json.loads(text), judgement.detail)


async def test_a_seat_decides_through_the_sdk_against_the_server() -> None:
    found = await captured_requests(1)
    requests = found["heuristic"][:60]
    times = await end_to_end(requests)  # raises if any answer is refused
    assert len(times["seat"]) == len(times["bare SDK"]) == len(requests)
    assert all(0 < t < 5 for t in times["seat"])


async def test_the_server_starts_and_stops() -> None:
    server = Server(0.0)
    async with server as url:
        assert url.startswith("http://127.0.0.1:")
        assert url.endswith("/v1")
    assert server._process is not None
    assert server._process.returncode is not None  # ended, not left running


async def test_prompt_sizes_cover_every_kind_language_and_listing() -> None:
    found = await captured_requests(1)
    rows = prompt_sizes(found["heuristic"])
    kinds = {(kind, language, legal) for kind, language, legal, *_ in rows}
    assert ("PLAY_REQUEST", "zh", "full") in kinds
    assert ("BID_REQUEST", "en", "-") in kinds
    assert len(rows) == 2 * (1 + 1 + 3)
    for _, _, _, chars, tokens, mean in rows:
        assert chars > tokens >= mean > 0
