"""Fake language-model providers: real HTTP servers on loopback for the real SDKs.

``FakeOpenAI`` speaks OpenAI Chat Completions (``POST /v1/chat/completions``) and
``FakeAnthropic`` the Anthropic Messages API (``POST /v1/messages``), with the usage
fields and error bodies of each, so tests point ``openai.AsyncOpenAI`` /
``anthropic.AsyncAnthropic`` at them through ``base_url`` and exercise the SDKs' own
parsing and exceptions, not a mock. Each test scripts what the server does next
(``server.script(Reply(text=...), Fault(429, retry_after="2"), Raw(b"<html>...", "text/html"),
...)``: a reply, an error in the provider's format, any body at all); when the script
is used up, ``respond`` (a function of the request) or ``default`` answers. Every request
is recorded with its headers and JSON body, so a test can check the key arrived and
which model and parameters were sent.

The server runs in a thread (``http.server.ThreadingHTTPServer``), so it answers while
the test's event loop awaits the SDK; a delayed reply waits on an event that ``close()``
sets, so closing never hangs on a slow script.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, ClassVar, Self

import pytest

from arena.agents.llm.clients import close_clients

__all__ = [
    "FakeAnthropic",
    "FakeOpenAI",
    "FakeProvider",
    "Fault",
    "Raw",
    "RecordedRequest",
    "Reply",
    "ToolCall",
    "answer",
    "legal_answer",
    "legal_model",
    "request_in",
    "tool_name",
]

JsonObject = dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """A function/tool call in a reply: OpenAI ``tool_calls``, Anthropic ``tool_use``."""

    name: str
    arguments: JsonObject
    raw_arguments: str | None = None
    """OpenAI only: the arguments string exactly as sent (e.g. broken JSON)."""


@dataclass(frozen=True)
class Reply:
    """A successful completion (HTTP 200)."""

    text: str | None = None
    tool_call: ToolCall | None = None
    reasoning: str | None = None
    """OpenAI: ``message.reasoning_content`` (DeepSeek's field); Anthropic: a thinking block."""
    finish: str | None = None
    """finish_reason / stop_reason; default "stop"/"end_turn" ("tool_calls"/"tool_use")."""
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    reasoning_tokens: int = 0
    usage: JsonObject | None = None
    """The usage block exactly as sent, instead of the computed one (e.g. a partial one)."""
    refusal: str | None = None
    """OpenAI only: ``message.refusal`` (a model declining to answer)."""
    delay_s: float = 0.0


@dataclass(frozen=True)
class Raw:
    """Any HTTP answer, byte for byte: a web page or a JSON of another shape at a wrong URL."""

    body: bytes
    content_type: str = "application/json"
    status: int = 200
    delay_s: float = 0.0


@dataclass(frozen=True)
class Fault:
    """An error answer in the provider's own body format."""

    status: int
    message: str | None = None
    param: str | None = None
    """OpenAI's ``error.param`` (for 400: the unsupported parameter)."""
    code: str | None = None
    retry_after: str | None = None
    """The Retry-After header, as text (seconds)."""
    retry_after_ms: str | None = None
    """The retry-after-ms header (OpenAI and Anthropic send it besides Retry-After)."""
    delay_s: float = 0.0


Behaviour = Reply | Fault | Raw


@dataclass
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Lower-cased names."""
    body: JsonObject
    raw: bytes = field(repr=False)

    @property
    def model(self) -> str | None:
        value = self.body.get("model")
        return value if isinstance(value, str) else None


class _Stopping(Exception):
    """The server is closing while a delayed reply waits."""


class FakeProvider:
    """Shared machinery: the HTTP server, the script, the record. Use a subclass."""

    path: ClassVar[str]
    required: ClassVar[tuple[str, ...]] = ("model", "messages")
    bad_key_message: ClassVar[str] = "Incorrect API key provided."

    def __init__(
        self,
        *,
        api_key: str | None = "test-key",
        unsupported: Iterable[str] = (),
        default: Behaviour | None = None,
        respond: Callable[[RecordedRequest], Behaviour] | None = None,
    ) -> None:
        """``api_key``: the key the server expects (None: any); ``unsupported``: body
        parameters answered with a 400 naming them, every time (as a provider does for a
        parameter the model does not take)."""
        self.api_key = api_key
        self.unsupported = frozenset(unsupported)
        self.default: Behaviour = default if default is not None else Reply(text="ok")
        self.respond = respond
        self.requests: list[RecordedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        """The most requests the server was answering at once."""
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._ids = itertools.count(1)
        self._connections: set[socket.socket] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._server.block_on_close = False
        self._thread: threading.Thread | None = None

    # --- life cycle -------------------------------------------------------------------

    @property
    def port(self) -> int:
        return int(self._server.server_address[1])

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        """What the SDK takes as ``base_url``."""
        raise NotImplementedError

    def start(self) -> Self:
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"{type(self).__name__}:{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving, release delayed replies, drop open connections."""
        self._stopping.set()
        if self._thread is not None:
            self._server.shutdown()
            self._thread.join(timeout=5)
        self._server.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- script -----------------------------------------------------------------------

    def script(self, *behaviours: Behaviour) -> None:
        """Queue what the next requests get, in order."""
        with self._lock:
            self._script.extend(behaviours)

    @property
    def pending(self) -> int:
        """Scripted behaviours not used yet."""
        with self._lock:
            return len(self._script)

    def _next(self, request: RecordedRequest) -> Behaviour:
        with self._lock:
            if self._script:
                return self._script.popleft()
        if self.respond is not None:
            return self.respond(request)
        return self.default

    # --- wire format: the subclasses ---------------------------------------------------

    def _key_of(self, headers: dict[str, str]) -> str | None:
        raise NotImplementedError

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> JsonObject:
        raise NotImplementedError

    def _error_body(self, fault: Fault) -> JsonObject:
        raise NotImplementedError

    def _extra_headers(self) -> dict[str, str]:
        return {}

    # --- one request ------------------------------------------------------------------

    def _answer(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> Fault | Raw | tuple[int, JsonObject]:
        """What to send back: a Fault, a Raw answer, or (200, body)."""
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = None
        record = RecordedRequest(method, path, headers, body if isinstance(body, dict) else {}, raw)
        with self._lock:
            self.requests.append(record)
        if method != "POST" or path != self.path:
            return Fault(404, f"no such endpoint: {method} {path}", code="not_found")
        if self.api_key is not None and self._key_of(headers) != self.api_key:
            return Fault(401, self.bad_key_message, code="invalid_api_key")
        if not isinstance(body, dict):
            return Fault(400, "the request body is not a JSON object", code="invalid_json")
        for name in self.required:
            if name not in body:
                return Fault(400, f"{name}: Field required", param=name)
        if body.get("stream"):
            return Fault(400, "this fake does not stream", param="stream")
        for name in sorted(self.unsupported):
            if name in body:
                message = f"Unsupported parameter: '{name}' is not supported with this model."
                return Fault(400, message, param=name, code="unsupported_parameter")
        behaviour = self._next(record)
        with self._lock:
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            if behaviour.delay_s > 0 and self._stopping.wait(behaviour.delay_s):
                raise _Stopping
        finally:
            with self._lock:
                self.in_flight -= 1
        if isinstance(behaviour, (Fault, Raw)):
            return behaviour
        return 200, self._reply_body(record, behaviour)

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            timeout = 30  # an idle keep-alive connection is dropped after this
            # headers and body go out in two writes: without TCP_NODELAY the body waits
            # for the client's delayed ACK, about 40 ms a call on loopback
            disable_nagle_algorithm = True

            def setup(self) -> None:
                super().setup()
                with fake._lock:
                    fake._connections.add(self.connection)

            def finish(self) -> None:
                with fake._lock:
                    fake._connections.discard(self.connection)
                with contextlib.suppress(OSError):
                    super().finish()

            def do_POST(self) -> None:
                self._handle("POST")

            def do_GET(self) -> None:
                self._handle("GET")

            def _handle(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                headers = {k.lower(): v for k, v in self.headers.items()}
                try:
                    outcome = fake._answer(method, self.path, headers, raw)
                except _Stopping:
                    self.close_connection = True
                    return
                extra = fake._extra_headers()
                content_type = "application/json"
                if isinstance(outcome, Raw):
                    status, data = outcome.status, outcome.body
                    content_type = outcome.content_type
                elif isinstance(outcome, Fault):
                    status, body = outcome.status, fake._error_body(outcome)
                    data = _encoded(body)
                    if outcome.retry_after is not None:
                        extra["Retry-After"] = outcome.retry_after
                    if outcome.retry_after_ms is not None:
                        extra["retry-after-ms"] = outcome.retry_after_ms
                else:
                    status, body = outcome
                    data = _encoded(body)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", content_type)
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in extra.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client gave up (its timeout) before the reply
                    self.close_connection = True

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the record of requests is the log."""

        return Handler

    def _usage_numbers(
        self, request: RecordedRequest, reply: Reply, out_text: str
    ) -> tuple[int, int]:
        """Tokens in and out: the reply's own, else about 4 characters a token."""
        prompt = reply.prompt_tokens
        if prompt is None:
            prompt = max(1, len(json.dumps(request.body.get("messages"))) // 4)
        completion = reply.completion_tokens
        if completion is None:
            completion = max(1, len(out_text) // 4) + reply.reasoning_tokens
        return prompt, completion


def _encoded(body: JsonObject) -> bytes:
    """A body as UTF-8 JSON; text holding a lone surrogate with it escaped (``\\ud83d``),
    as a provider sends a model's half of an emoji."""
    try:
        return json.dumps(body, ensure_ascii=False).encode()
    except UnicodeEncodeError:
        return json.dumps(body).encode()


# OpenAI's error types by status (https://platform.openai.com/docs/guides/error-codes).
_OPENAI_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "invalid_request_error",
    404: "invalid_request_error",
    429: "requests",
    500: "server_error",
    503: "server_error",
}


class FakeOpenAI(FakeProvider):
    """OpenAI Chat Completions: ``POST /v1/chat/completions``, key as a bearer token."""

    path = "/v1/chat/completions"

    @property
    def base_url(self) -> str:
        return f"{self.root}/v1"

    def _key_of(self, headers: dict[str, str]) -> str | None:
        auth = headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None

    def _extra_headers(self) -> dict[str, str]:
        return {"x-request-id": f"req_{next(self._ids)}"}

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> JsonObject:
        message: JsonObject = {
            "role": "assistant",
            "content": reply.text,
            "refusal": reply.refusal,
        }
        finish = reply.finish or "stop"
        out_text = reply.text or ""
        if reply.tool_call is not None:
            call = reply.tool_call
            arguments = call.raw_arguments
            if arguments is None:
                arguments = json.dumps(call.arguments, ensure_ascii=False)
            message["tool_calls"] = [
                {
                    "id": f"call_{next(self._ids)}",
                    "type": "function",
                    "function": {"name": call.name, "arguments": arguments},
                }
            ]
            finish = reply.finish or "tool_calls"
            out_text += arguments
        if reply.reasoning is not None:
            message["reasoning_content"] = reply.reasoning
        prompt, completion = self._usage_numbers(request, reply, out_text)
        return {
            "id": f"chatcmpl-{next(self._ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model or "unknown",
            "system_fingerprint": "fp_fake",
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": finish}
            ],
            "usage": reply.usage
            if reply.usage is not None
            else {
                "prompt_tokens": prompt,
                "completion_tokens": completion,
                "total_tokens": prompt + completion,
                "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
            },
        }

    def _error_body(self, fault: Fault) -> JsonObject:
        return {
            "error": {
                "message": fault.message or f"fake error {fault.status}",
                "type": _OPENAI_ERROR_TYPES.get(fault.status, "server_error"),
                "param": fault.param,
                "code": fault.code,
            }
        }


# Anthropic's error types by status (https://docs.anthropic.com/en/api/errors).
_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}


class FakeAnthropic(FakeProvider):
    """Anthropic Messages: ``POST /v1/messages``, key in ``x-api-key`` or a bearer token."""

    path = "/v1/messages"
    required = ("model", "messages", "max_tokens")
    bad_key_message = "invalid x-api-key"

    @property
    def base_url(self) -> str:
        return self.root  # the SDK appends /v1/messages

    def _key_of(self, headers: dict[str, str]) -> str | None:
        # The API documents x-api-key; SDK 2.x sends the key as a bearer token instead.
        if "x-api-key" in headers:
            return headers["x-api-key"]
        auth = headers.get("authorization", "")
        return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None

    def _extra_headers(self) -> dict[str, str]:
        return {"request-id": f"req_{next(self._ids)}"}

    def _reply_body(self, request: RecordedRequest, reply: Reply) -> JsonObject:
        content: list[JsonObject] = []
        out_text = ""
        if reply.reasoning is not None:
            content.append(
                {"type": "thinking", "thinking": reply.reasoning, "signature": "fake-signature"}
            )
            out_text += reply.reasoning
        if reply.text is not None:
            content.append({"type": "text", "text": reply.text})
            out_text += reply.text
        stop = reply.finish or "end_turn"
        if reply.tool_call is not None:
            content.append(
                {
                    "type": "tool_use",
                    "id": f"toolu_{next(self._ids)}",
                    "name": reply.tool_call.name,
                    "input": reply.tool_call.arguments,
                }
            )
            out_text += json.dumps(reply.tool_call.arguments)
            stop = reply.finish or "tool_use"
        prompt, completion = self._usage_numbers(request, reply, out_text)
        return {
            "id": f"msg_{next(self._ids)}",
            "type": "message",
            "role": "assistant",
            "model": request.model or "unknown",
            "content": content,
            "stop_reason": stop,
            "stop_sequence": None,
            "usage": reply.usage
            if reply.usage is not None
            else {"input_tokens": prompt, "output_tokens": completion},
        }

    def _error_body(self, fault: Fault) -> JsonObject:
        message = fault.message or f"fake error {fault.status}"
        return {
            "type": "error",
            "error": {
                "type": _ANTHROPIC_ERROR_TYPES.get(fault.status, "api_error"),
                "message": message,
            },
        }


# --- a model that plays legally ----------------------------------------------------------
# For tests of model seats: the fake reads the request JSON the prompt quotes and answers
# a legal decision, as text or as the tool call the request forces.


def request_in(recorded: RecordedRequest) -> JsonObject:
    """The request message the prompt quotes (the first user message holds it)."""
    for message in recorded.body["messages"]:
        text = message.get("content")
        if message["role"] != "user" or not isinstance(text, str):
            continue
        for kind in ("PLAY_REQUEST", "BID_REQUEST", "DOUBLE_REQUEST"):
            start = text.find(f'{{"type":"{kind}"')
            if start >= 0:
                found, _ = json.JSONDecoder().raw_decode(text[start:])
                assert isinstance(found, dict)
                return found
    raise AssertionError("no request JSON in the prompt")


def legal_answer(request: JsonObject) -> JsonObject:
    """A legal decision: lowest bid, no double, PASS when following, lowest single leading."""
    from arena.games.ddz.engine import CARDS_BY_TEXT
    from arena.games.ddz.messages import BidRequest, DoubleRequest, PlayRequest, parse_message

    message = parse_message(request)
    if isinstance(message, BidRequest):
        offered = message.available_bids
        return {"bid": 0 if 0 in offered else min(offered)}
    if isinstance(message, DoubleRequest):
        return {"double": False}
    assert isinstance(message, PlayRequest)
    if not message.is_free_play:
        return {"action": "PASS"}
    lowest = min(message.hand, key=lambda card: CARDS_BY_TEXT[card].rank)
    return {"action": "PLAY", "cards": [lowest], "hand_type": "SINGLE"}


def tool_name(recorded: RecordedRequest) -> str | None:
    """The name of the (first) tool the request offers, in either wire format."""
    tools = recorded.body.get("tools")
    if not tools:
        return None
    first = tools[0]
    name = first.get("name") or first.get("function", {}).get("name")
    return name if isinstance(name, str) else None


def answer(recorded: RecordedRequest, decision: JsonObject, **reply: Any) -> Reply:
    """``decision`` as the request wants it: a call of its tool, else JSON text."""
    name = tool_name(recorded)
    if name is not None:
        return Reply(tool_call=ToolCall(name, decision), **reply)
    return Reply(text=json.dumps(decision, ensure_ascii=False), **reply)


def legal_model(recorded: RecordedRequest) -> Reply:
    """A ``respond`` function: a legal decision for whatever the prompt asks."""
    return answer(recorded, legal_answer(request_in(recorded)))


@pytest.fixture(autouse=True)
async def shared_clients() -> AsyncIterator[None]:
    """Close the SDK clients model seats share in the test's event loop, after each test
    (a test module imports this fixture to have it)."""
    yield
    await close_clients()
