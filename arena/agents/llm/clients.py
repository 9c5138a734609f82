"""One SDK client per provider, base URL and key, shared by every seat and table.

A client holds a connection pool; sixty tables of three model seats on one key want one
pool, not 180, and one limit on the calls in flight (a seat's ``concurrency`` option) so
that they cannot exhaust the key's rate limit together. Both belong to the event loop
that made them (an asyncio pool cannot serve another loop), so they are kept per loop.

Seats lease the shared entry when they open (or on their first call) and release it
when they close; the last release closes the client, so a finished ``arena play`` leaves
no open connection behind. :func:`close_clients` closes whatever is left in the running
loop (the process end, tests).
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Callable
from typing import Any

__all__ = ["Lease", "close_clients", "lease"]


class _Shared:
    """A client, its call slots and how many seats hold it."""

    __slots__ = ("client", "concurrency", "holders", "slots")

    def __init__(self, client: Any, concurrency: int) -> None:
        self.client = client
        self.concurrency = concurrency
        self.slots = asyncio.Semaphore(concurrency)
        self.holders = 0


_Key = tuple[str, str, str]
_SHARED: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[_Key, _Shared]] = (
    weakref.WeakKeyDictionary()
)


class Lease:
    """One seat's hold on a shared client: ``client`` to call, ``slots`` to wait for."""

    __slots__ = ("_key", "_loop", "_shared", "released")

    def __init__(self, loop: asyncio.AbstractEventLoop, key: _Key, shared: _Shared) -> None:
        self._loop = loop
        self._key = key
        self._shared = shared
        self.released = False

    @property
    def client(self) -> Any:
        return self._shared.client

    @property
    def slots(self) -> asyncio.Semaphore:
        """At most ``concurrency`` calls at once per provider, base URL and key."""
        return self._shared.slots

    @property
    def concurrency(self) -> int:
        """The limit the slots hold to (set by the first seat that leased the client)."""
        return self._shared.concurrency

    def valid_here(self) -> bool:
        """Held and made in the running loop (a seat moved to another loop leases anew)."""
        return not self.released and self._loop is asyncio.get_running_loop()

    async def release(self) -> None:
        """Give the client back; the last holder closes it."""
        if self.released:
            return
        self.released = True
        shared = self._shared
        shared.holders -= 1
        if shared.holders > 0:
            return
        found = _SHARED.get(self._loop, {})
        if found.get(self._key) is shared:
            del found[self._key]
        await shared.client.close()


def lease(api: str, base_url: str, key: str, make: Callable[[], Any], concurrency: int) -> Lease:
    """Hold the client for ``(api, base_url, key)`` in this loop, made by ``make`` on
    first use. The first seat to lease it sets the concurrency limit for all."""
    loop = asyncio.get_running_loop()
    found = _SHARED.setdefault(loop, {})
    shared = found.get((api, base_url, key))
    if shared is None:
        shared = found[(api, base_url, key)] = _Shared(make(), concurrency)
    shared.holders += 1
    return Lease(loop, (api, base_url, key), shared)


async def close_clients() -> None:
    """Close every shared client of the running loop, held or not (the process end)."""
    found = _SHARED.pop(asyncio.get_running_loop(), {})
    for shared in found.values():
        await shared.client.close()
