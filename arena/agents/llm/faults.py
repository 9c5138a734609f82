"""Provider faults: which to retry inside the decision's deadline, which end the seat.

A provider answers an error in three kinds, and each gets one treatment:

- **Passing** (429, 408, 409, 5xx, 529, a connection that failed, no answer in time):
  retried with exponential backoff and jitter, or after the provider's ``Retry-After`` /
  ``retry-after-ms``, but only while the decision's deadline leaves time for the wait.
  A wait longer than what is left gives up at once (:class:`GaveUp`), saying so ("rate
  limited ... retry after 30 s"), instead of sleeping into the table's cancel. The seat
  raises :class:`~arena.errors.AgentDownError`: the table falls back without asking
  again, and a seat whose decisions fail so several times in a row is benched.
- **Permanent** (the provider will answer the same to every call): 401 and 403 (the
  key), 404 (an unknown model or a wrong base URL), and a 400 about a parameter, see
  :func:`is_permanent`. The seat raises :class:`~arena.errors.AgentUnavailableError`;
  the table reports it once and seats the stand-in for the rest of the match.
- **Other** (a 400 about this call's content, a 413, a 422): an ``agent_error`` for this
  attempt; the table's own retry asks again.

SDK clients are built with ``max_retries=0``, and each call is given the time left of
the decision as its timeout: the retries and the waiting are ours, because only we know
the deadline. Nothing here imports an SDK: each seat turns its SDK's exception
into a :class:`ProviderFault` with :func:`fault_from_sdk`.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Final, TypeVar

__all__ = [
    "MAX_CONNECTION_RETRIES",
    "MAX_PROVIDER_RETRIES",
    "GaveUp",
    "ProviderFault",
    "backoff_s",
    "describe",
    "describe_gave_up",
    "fault_from_sdk",
    "is_permanent",
    "parse_retry_after",
    "with_retries",
]

T = TypeVar("T")

MAX_PROVIDER_RETRIES: Final = 8
"""Retries of one call at most, whatever time is left: a 120 s deadline should not
hammer a provider that is down."""
MAX_CONNECTION_RETRIES: Final = 2
"""Retries of a call that could not connect: a server that is not running (a local one
not started) refuses at once, and waiting out the whole deadline would not start it."""
_BASE_S: Final = 0.25
_CAP_S: Final = 8.0
_PASSING: Final = frozenset({408, 409, 429})
_KEY_STATUSES: Final = frozenset({401, 403, 404})
_MAX_ERROR_TEXT: Final = 200
_CONTENT_PARAMS: Final = frozenset({"messages", "input", "prompt", "system", "contents"})
_PARAMETER_WORDS: Final = re.compile(
    r"\bunsupported\b|(?:is|are) not supported"
    r"|not supported (?:with|by|for)|does not support|doesn't support"
    r"|unknown (?:parameter|argument|field)|unrecognized (?:request )?(?:parameter|argument|field)"
    r"|extra (?:inputs|fields) (?:are )?not permitted|invalid (?:parameter|value) for",
    re.IGNORECASE,
)


class ProviderFault(Exception):
    """A provider's error answer (``status``) or a failed connection (``status`` None),
    in SDK-neutral words, with nothing of the request in it (no key)."""

    def __init__(
        self,
        status: int | None,
        message: str,
        *,
        param: str | None = None,
        code: str | None = None,
        retry_after_s: float | None = None,
        timed_out: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code
        self.retry_after_s = retry_after_s
        self.timed_out = timed_out

    @property
    def passing(self) -> bool:
        """Worth another try: a rate limit, an overloaded or failing server, no connection."""
        return self.status is None or self.status in _PASSING or self.status >= 500

    @property
    def permanent(self) -> bool:
        """The provider will answer every call the same way (:func:`is_permanent`)."""
        return self.status is not None and is_permanent(
            self.status, self.message, self.param, self.code
        )


class GaveUp(Exception):
    """A passing fault that the deadline leaves no time to wait out."""

    def __init__(self, fault: ProviderFault, wait_s: float, left_s: float, retries: int) -> None:
        super().__init__(fault.message)
        self.fault = fault
        self.wait_s = wait_s
        self.left_s = left_s
        self.retries = retries


def is_permanent(status: int, message: str, param: str | None, code: str | None) -> bool:
    """Whether the provider will give every call of this seat the same error.

    401/403/404 always. A 400 when it names a request parameter (OpenAI's ``param``)
    other than the conversation itself (``messages``: a prompt too long this time is not
    a prompt too long every time), when its ``code`` says ``unsupported_*`` or
    ``invalid_parameter*``, or when its text says something is unsupported or a parameter
    unknown ("Unsupported parameter: 'temperature'", Anthropic's "temperature:
    unsupported", "does not support", "Extra inputs are not permitted", ...). Any other
    400 (a prompt too long this time, a malformed message) counts for its attempt only:
    the table's retry asks again, and the seat is not benched on a guess.
    """
    if status in _KEY_STATUSES:
        return True
    if status != 400:
        return False
    if param and param.split(".")[0].split("[")[0] not in _CONTENT_PARAMS:
        return True
    if code and (code.startswith("unsupported") or code.startswith("invalid_parameter")):
        return True
    return _PARAMETER_WORDS.search(message) is not None


def parse_retry_after(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait from ``retry-after-ms`` (OpenAI, Anthropic), else ``Retry-After``
    (seconds, or an HTTP date); None when neither is there or readable."""
    millis = headers.get("retry-after-ms")
    if millis is not None:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def backoff_s(retry: int, rng: random.Random) -> float:
    """The wait before retry number ``retry`` (0-based): 0.25 s doubling up to 8 s, the
    second half of each random ("equal jitter": never zero, spread across tables)."""
    ceiling: float = min(_CAP_S, _BASE_S * 2.0**retry)
    return ceiling / 2 + rng.uniform(0, ceiling / 2)


def fault_from_sdk(
    exc: BaseException, status_error: type[Any], connection_error: type[Any]
) -> ProviderFault | None:
    """The SDK's exception (openai's or anthropic's, which share a shape) as a fault;
    None for anything else. The SDK's exception holds the request, headers and key
    included: only the status, the provider's message and its fields are kept."""
    if isinstance(exc, status_error):
        body = exc.body
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            body = body["error"]
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, str) or not message:
            # the SDK's own words repeat the status: "Error code: 500 - <body>"
            message = re.sub(r"^Error code: \d+(?: - )?", "", str(exc.message))
        param = body.get("param") if isinstance(body, dict) else None
        code = body.get("code") if isinstance(body, dict) else None
        return ProviderFault(
            int(exc.status_code),
            " ".join(message.split()),
            param=param if isinstance(param, str) else None,
            code=code if isinstance(code, str) else None,
            retry_after_s=parse_retry_after(exc.response.headers),
        )
    if isinstance(exc, connection_error):
        timed_out = "timeout" in type(exc).__name__.lower()
        return ProviderFault(None, "timed out" if timed_out else str(exc), timed_out=timed_out)
    return None


async def with_retries(
    attempt: Callable[[], Awaitable[T]],
    *,
    deadline: float,
    on_retry: Callable[[ProviderFault, float], None],
    rng: random.Random,
    now: Callable[[], float] | None = None,
    keep_s: float = 0.0,
) -> T:
    """Call ``attempt`` until it answers, retrying passing faults while the deadline
    (a ``loop.time()`` instant) leaves room for the wait.

    Raises the fault itself when it is not passing, :class:`GaveUp` when waiting would
    run past the deadline or the retries are used up. ``on_retry(fault, wait_s)`` is
    told of each retry before its wait. ``keep_s``: the time a call needs left after the
    wait to be worth sending (the seat sends none with less).
    """
    clock = now or asyncio.get_running_loop().time
    retries = 0
    while True:
        try:
            return await attempt()
        except ProviderFault as fault:
            if not fault.passing:
                raise
            wait = fault.retry_after_s
            if wait is None:
                wait = backoff_s(retries, rng)
            left = deadline - clock() - keep_s
            most = MAX_CONNECTION_RETRIES if fault.status is None else MAX_PROVIDER_RETRIES
            if wait >= left or retries >= most:
                raise GaveUp(fault, wait, max(left, 0.0), retries) from None
            on_retry(fault, wait)
            retries += 1
            await asyncio.sleep(wait)


def describe(
    fault: ProviderFault,
    *,
    provider: str,
    model: str,
    base_url: str,
    key_variable: str | None,
    api: str = "openai",
) -> str:
    """``openai model 'gpt-x': HTTP 400 <message> (param: temperature)``; a refused key
    names its variable (a local preset's placeholder key says the server wants a real
    one); a 404 names base_url, the usual culprit; a failed connection names the URL.
    Never a key (the seat has scrubbed the message)."""
    if fault.timed_out:  # connected, perhaps, but no answer came in time
        return f"{provider} model {model!r} at {base_url}: {fault.message}"
    if fault.status is None:
        return f"cannot reach {provider} at {base_url}: {fault.message}"
    message = fault.message
    if len(message) > _MAX_ERROR_TEXT:
        message = message[: _MAX_ERROR_TEXT - 1] + "…"
    extra = ""
    if fault.status == 400 and fault.param:
        extra = f" (param: {fault.param})"
    elif fault.status in (401, 403) and key_variable is not None:
        extra = f" (the key in {key_variable})"
    elif fault.status == 401:  # a local preset sent its placeholder key
        extra = " (the server wants a key: set options.api_key_env to the variable holding it)"
    elif fault.status == 404:
        extra = f" at {base_url} ({_NOT_FOUND_HINT.get(api, _NOT_FOUND_HINT['openai'])})"
    said = f" {message}" if message else ""
    return f"{provider} model {model!r}: HTTP {fault.status}{said}{extra}"


_NOT_FOUND_HINT: Final = {
    "openai": "is base_url right? most OpenAI-compatible servers end in /v1; "
    "or the model name is unknown",
    "anthropic": "is base_url right? the Anthropic SDK adds /v1/messages itself; "
    "or the model name is unknown",
}


def describe_gave_up(
    gave_up: GaveUp,
    *,
    provider: str,
    model: str,
    base_url: str,
    key_variable: str | None,
    api: str = "openai",
) -> str:
    """Why the retries stopped: ``rate limited by openai (HTTP 429): retry after 30 s,
    more than the 4.2 s left of the decision`` (the provider's Retry-After), ``... the
    next retry would wait 1.3 s, more than ...`` (the arena's backoff), ``openai model
    'm' at <url>: no answer within 7.6 s`` (a call that used the decision's time), or the
    last fault and ``gave up after 2 retries``."""
    fault = gave_up.fault
    retries = gave_up.retries
    tried = f" after {retries} {'retry' if retries == 1 else 'retries'}" if retries else ""
    if fault.status == 429:
        why = f"rate limited by {provider} (HTTP 429)"
    else:
        where = describe(
            fault,
            provider=provider,
            model=model,
            base_url=base_url,
            key_variable=key_variable,
            api=api,
        )
        why = where.rstrip(". ")  # the SDK's "Connection error." ends in a full stop
    if gave_up.wait_s < gave_up.left_s:
        return f"{why}; gave up{tried}"
    if fault.timed_out:  # the call had the decision's time: none is left to wait
        return f"{why}{tried}"
    left = f"more than the {gave_up.left_s:.3g} s left of the decision"
    if fault.retry_after_s is not None:  # the provider's own Retry-After
        return f"{why}{tried}: retry after {gave_up.wait_s:.3g} s, {left}"
    return f"{why}{tried}: the next retry would wait {gave_up.wait_s:.3g} s, {left}"
