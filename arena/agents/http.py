"""A server as an agent: every message POSTed as JSON, a reply read from the body.

Each message the seat may see is one POST of the message's JSON to ``options.url``. A
notification's response body is ignored; a request's reply is the response body, read
up to a size cap and handed to the table unread, as every remote agent's reply is.

The HTTP stack is httpx, the one the openai and anthropic SDKs are built on, so the
arena keeps one. Each agent holds one client (one connection pool), TLS verification
always on and redirects never followed. Deadlines are the table's: a call the table
gives up on is cancelled, which closes its connection, so an answer that comes after
the deadline has nowhere to arrive and is never taken for the next request. httpx's own
timeout is only a backstop, longer than any deadline a table may set.

A bearer token is read from the environment variable ``options.token_env`` names, so
that it never sits in a config file; it goes into the ``Authorization`` header and
nowhere else (not into logs, error details, replays or the agent's repr). What the
server answers, a reply or an error page, has every known secret masked as it is read,
also where JSON escapes write one (:func:`arena.masking.mask_incoming`).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import urllib.request
from collections.abc import Mapping
from importlib import metadata
from typing import Any, Final

import httpx

from arena.agents.remote import RemoteAgent
from arena.errors import AgentReplyError, AgentStartError, ConfigError
from arena.masking import mask_incoming_bytes
from arena.secrets import register_secret, variable_name

__all__ = ["DEFAULT_MAX_RESPONSE_BYTES", "HttpAgent"]

DEFAULT_MAX_RESPONSE_BYTES: Final = 1 << 20
"""A reply is a few hundred bytes; 1 MiB leaves room for chatty comments, not floods."""

_EXCERPT_CHARS: Final = 200
"""How much of an error response's body an error detail quotes."""

_BACKSTOP: Final = httpx.Timeout(3600.0, connect=60.0)
"""httpx's own timeout: never shorter than the longest deadline a table may set (3600 s),
so the table's deadline is what ends a call; it only frees a connection nobody waits on."""

_PROBE_S: Final = 5.0
"""How long :meth:`HttpAgent.open` waits for a TCP connection to the server."""

_OWN_HEADERS: Final = frozenset({"authorization", "content-type", "content-length", "host"})
"""Headers the agent sets itself: ``options.headers`` may not replace them."""


def _user_agent() -> str:
    try:
        version = metadata.version("ddz-arena")
    except metadata.PackageNotFoundError:  # run from a source tree that is not installed
        version = "0+unknown"
    return f"ddz-arena/{version}"


class HttpAgent(RemoteAgent):
    """One connection pool per agent; a request's reply is the response body.

    Options (a seat's ``options`` table): ``url`` (required, ``http://`` or
    ``https://``), ``token_env`` (the name of an environment variable holding a bearer
    token), ``max_response_bytes`` (default 1 MiB), ``headers`` (extra headers, not for
    secrets).
    """

    def __init__(
        self,
        name: str,
        *,
        url: object = None,
        token_env: object = None,
        max_response_bytes: object = DEFAULT_MAX_RESPONSE_BYTES,
        headers: object = None,
        **options: Any,
    ) -> None:
        super().__init__(name, **options)
        self.url = _checked_url(url)
        self.where = _shown(self.url)
        """The URL as errors and logs name it: without its query, which may hold a key."""
        self.max_response_bytes = _checked_size(max_response_bytes)
        self._headers = {
            "Content-Type": "application/json; charset=utf-8",
            "Accept": "application/json",
            "Accept-Encoding": "identity",  # the size cap counts the bytes a reply has
            "User-Agent": _user_agent(),
            **_checked_headers(headers),
        }
        if token_env is not None:
            self._headers["Authorization"] = f"Bearer {_token(token_env)}"
        self._client: httpx.AsyncClient | None = None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, url={self.where!r})"

    async def open(self) -> None:
        """Create the connection pool, and check before the match that something listens
        at the URL's host and port: a server that is not running, or a wrong port, is
        an AgentStartError naming the seat, not a match of faults. (Only the TCP
        connection is tried, and not through a proxy: a message is the only thing the
        protocol lets the arena send.)"""
        self._pool()
        url = httpx.URL(self.url)
        if _proxied(url):
            return
        port = url.port or (443 if url.scheme == "https" else 80)
        try:
            async with asyncio.timeout(_PROBE_S):
                _, writer = await asyncio.open_connection(url.host, port)
        except (OSError, TimeoutError) as exc:
            why = _why_not_connected(exc)
            raise AgentStartError(f"cannot reach {self.where}: {why}") from exc
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()

    async def close(self) -> None:
        """Close the connection pool; a later message would open a new one."""
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    async def deliver(self, line: bytes) -> None:
        """POST a notification; the body is drained up to the cap and ignored, but an
        error status or an unreachable server raises (the table logs it)."""
        await self._post(line, reply=False)

    async def exchange(self, line: bytes, request_id: str | None) -> bytes:
        """POST a request and return the response body (``b""`` when it is empty)."""
        return await self._post(line, reply=True)

    def _pool(self) -> httpx.AsyncClient:
        if self._client is None:
            self._client = httpx.AsyncClient(
                headers=self._headers,
                timeout=_BACKSTOP,
                follow_redirects=False,
                verify=True,
            )
        return self._client

    async def _post(self, line: bytes, *, reply: bool) -> bytes:
        """One POST; its body when it is a reply. Cancellation (the table's deadline)
        leaves the ``async with``, which closes the response and its connection."""
        cap = self.max_response_bytes
        try:
            async with self._pool().stream("POST", self.url, content=line) as response:
                if not response.is_success:
                    excerpt, _ = await _read(response, 4 * _EXCERPT_CHARS, skip_long=False)
                    moved = " (redirects are not followed)" if response.is_redirect else ""
                    raise AgentReplyError(
                        "agent_error",
                        f"HTTP {response.status_code} from {self.where}{moved}: "
                        f"{_excerpt(excerpt)}",
                    )
                body, over = await _read(response, cap)
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
            raise AgentReplyError(
                "agent_error", f"cannot reach {self.where}: {_reason(exc)}"
            ) from exc
        except httpx.RequestError as exc:  # reached, but the exchange broke off
            raise AgentReplyError(
                "agent_error", f"the exchange with {self.where} failed: {_reason(exc)}"
            ) from exc
        if reply and over:
            raise AgentReplyError("truncated", f"the response body is over {cap} bytes")
        return body


async def _read(
    response: httpx.Response, cap: int, *, skip_long: bool = True
) -> tuple[bytes, bool]:
    """At most ``cap`` bytes of the body, read as they come, and whether there was more.

    A flood is cut off at the cap (the response is then closed with its connection,
    never read to its end); a declared length over the cap is not read at all, unless
    the start of the body is wanted (``skip_long=False``: an error page's excerpt).
    Secrets in it are masked before anything cuts or quotes it (:mod:`arena.masking`).
    """
    declared = response.headers.get("Content-Length", "")
    if skip_long and declared.isascii() and declared.isdigit() and int(declared) > cap:
        return b"", True
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return mask_incoming_bytes(b"".join(chunks))[:cap], True
    return mask_incoming_bytes(b"".join(chunks)), False


def _excerpt(body: bytes) -> str:
    text = " ".join(body.decode("utf-8", errors="replace").split())
    if len(text) > _EXCERPT_CHARS:
        text = text[: _EXCERPT_CHARS - 1] + "…"
    return text or "(empty body)"


def _reason(exc: httpx.RequestError) -> str:
    """What went wrong, in words: the exception's text, or its kind when it has none."""
    text = str(exc).strip()
    kind = type(exc).__name__
    return f"{kind}: {text}" if text else kind


def _why_not_connected(exc: OSError) -> str:
    """``Connection refused``, not asyncio's ``Connect call failed ('127.0.0.1', 8765)``."""
    if isinstance(exc, TimeoutError):
        return f"no answer within {_PROBE_S:g} s (is the host right?)"
    if isinstance(exc, socket.gaierror):
        return f"the host name does not resolve ({exc.strerror})"
    if exc.errno is not None and exc.errno > 0:
        return f"{os.strerror(exc.errno)} (is the agent's server running?)"
    return exc.strerror or str(exc) or type(exc).__name__


def _proxied(url: httpx.URL) -> bool:
    """Whether httpx would go through a proxy from the environment for this URL (as it
    does by default): the server itself is then not for the arena to probe."""
    proxies = urllib.request.getproxies()
    if not (proxies.get(url.scheme) or proxies.get("all")):
        return False
    return not urllib.request.proxy_bypass(url.host)


def _checked_url(url: object) -> str:
    if url is None:
        raise ConfigError("options.url is required (the server's address, http://...)")
    if not isinstance(url, str):
        raise ConfigError(f"options.url must be a string, got {type(url).__name__}")
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ConfigError(f"options.url is not a URL: {exc}") from None
    if parsed.userinfo:  # the URL itself is not shown: it holds a password
        raise ConfigError(
            "options.url must not hold a user name or password: put a token in an "
            "environment variable and name that variable in options.token_env"
        )
    if parsed.scheme not in ("http", "https") or not parsed.host:
        hint = f" (did you mean 'http://{url}'?)" if "://" not in url else ""
        raise ConfigError(
            f"options.url must start with http:// or https:// and name a host, got {url!r}{hint}"
        )
    return url


def _shown(url: str) -> str:
    return str(httpx.URL(url).copy_with(query=None, fragment=None))


def _checked_size(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ConfigError(
            f"options.max_response_bytes must be a positive whole number of bytes, got {value!r}"
        )
    return value


def _checked_headers(headers: object) -> dict[str, str]:
    if headers is None:
        return {}
    if not isinstance(headers, Mapping):
        raise ConfigError(
            f"options.headers must be a table of header names to values, "
            f"got {type(headers).__name__}"
        )
    checked: dict[str, str] = {}
    for key, value in headers.items():
        if not isinstance(key, str) or not isinstance(value, str):
            raise ConfigError(f"options.headers.{key}: names and values must be strings")
        if key.lower() in _OWN_HEADERS:
            why = (
                "a token goes in an environment variable named by options.token_env"
                if key.lower() == "authorization"
                else "the agent sets it"
            )
            raise ConfigError(f"options.headers.{key}: not allowed ({why})")
        if not _header_safe(key) or not _header_safe(value):
            raise ConfigError(f"options.headers.{key}: holds characters a header cannot carry")
        checked[key] = value
    return checked


def _token(token_env: object) -> str:
    """The bearer token from the environment, registered to be masked; errors name the
    variable, never the value."""
    token_env = variable_name(
        token_env, "options.token_env", example="ARENA_AGENT_TOKEN", secret="the token"
    )
    token = os.environ.get(token_env)
    if token is None:
        raise ConfigError(f"options.token_env: the environment variable {token_env!r} is not set")
    if not token:
        raise ConfigError(f"options.token_env: the environment variable {token_env!r} is empty")
    if not _header_safe(token):
        raise ConfigError(
            f"options.token_env: the environment variable {token_env!r} holds characters "
            "a header cannot carry (a newline?)"
        )
    register_secret(token, token_env)
    return token


def _header_safe(text: str) -> bool:
    """Printable ASCII only: what an HTTP header carries without being refused when sent
    (a refusal there could quote the value, a token's included)."""
    return text.isascii() and text.isprintable()
