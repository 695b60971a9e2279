"""Which database a request's reads go to, and the positions that make reading your writes safe.

With read replicas (``MEMLANE_DATABASE_READ_URLS``, store/postgres/replicas.py) a read request
is served by one hot standby chosen for the whole request, and everything else by the primary.
The choice is made once per request by the API (api/common/read_routing.py) and kept here, in
a context variable, where the store's read connections look for it (``routed_engine``): the
store itself stays one object, and no read method takes a routing argument. What is routed is
decided by who sets the choice, never by the statement: a request that writes never gets a
replica, so a read inside a write path stays on the primary, and the worker (which handles
no request) always reads the primary.

The choice only holds for the task that made it: a task started during the request (a
batched audit flush) reads and writes the primary.

**Positions.** A write's position is the primary's WAL position (``pg_current_wal_lsn()``)
read after its COMMIT; a standby has everything of that write once its replay position
(``pg_last_wal_replay_lsn()``) is at or past it. On the wire it is ``lsn:`` and sixteen
upper-case hex digits, so that two positions also compare as strings.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Literal, Protocol

ReadSource = Literal["replica", "primary"]
#: how a read that named a position was served (``memlane_read_after_total{outcome}``)
ReadAfterOutcome = Literal["replica", "replica_after_wait", "primary_fallback"]
ReplicaState = Literal["in_rotation", "lagging", "unreachable", "promoted"]

_POSITION = re.compile(r"lsn:([0-9A-Fa-f]{16})")
_LSN = re.compile(r"([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})")


def lsn_value(text: str) -> int:
    """PostgreSQL's text form of a WAL position (``16/B374D848``: the high and low 32 bits in
    hex) as one 64-bit number, which compares as the positions do."""
    match = _LSN.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a WAL position: {text!r}")
    return (int(match.group(1), 16) << 32) | int(match.group(2), 16)


def format_position(lsn: int) -> str:
    return f"lsn:{lsn:016X}"


def parse_position(text: str) -> int:
    """The number of a position as ``format_position`` writes it; ValueError otherwise."""
    match = _POSITION.fullmatch(text.strip())
    if match is None:
        raise ValueError("expected a position as sent in X-Memlane-Position (lsn: and 16 hex digits)")
    return int(match.group(1), 16)


@dataclass(frozen=True, slots=True)
class ReadChoice:
    """Where one request's reads go: a replica's engine and name, or the primary (``engine``
    None); ``outcome`` when the request named a position."""

    source: ReadSource
    engine: Any = None
    replica: str | None = None
    outcome: ReadAfterOutcome | None = None


@dataclass(frozen=True, slots=True)
class ReplicaHealth:
    name: str
    state: ReplicaState
    lag_ms: float | None


class ReadRouting(Protocol):
    """The read replicas of a PostgreSQL deployment (store/postgres/replicas.py's ``ReadRouter``)."""

    @property
    def has_replicas(self) -> bool: ...

    async def choose(self, position: int | None) -> ReadChoice:
        """A replica in rotation for a request's reads; with ``position``, one that has
        replayed that far (waiting a bounded time for one), else the primary."""
        ...

    async def primary_position(self) -> int | None:
        """The primary's current WAL position, or None when it cannot be read."""
        ...

    def report_failure(self, replica: str, error: BaseException) -> None:
        """A read on ``replica`` failed: out of rotation until a check finds it well."""
        ...

    def replicas(self) -> list[ReplicaHealth]: ...

    async def start(self) -> None: ...

    async def close(self) -> None: ...


@dataclass(slots=True)
class RequestReads:
    """One request's routing: the replica its reads go to (``engine`` None: the primary),
    whether it committed anything on the primary (then its response carries a position)."""

    task: asyncio.Task[Any] | None
    #: a read route (replicas may serve it): its own bookkeeping commits (an audit entry) give
    #: its response no position
    read_route: bool = False
    engine: Any = None
    replica: str | None = None
    source: ReadSource | None = None
    outcome: ReadAfterOutcome | None = None
    #: set after a replica failed mid-read: the retry reads the primary
    primary_only: bool = False
    wrote: bool = False

    def use(self, choice: ReadChoice) -> None:
        self.engine, self.replica, self.source, self.outcome = (
            choice.engine,
            choice.replica,
            choice.source,
            choice.outcome,
        )

    def fall_back_to_primary(self) -> None:
        self.engine, self.replica, self.source, self.primary_only = None, None, "primary", True


_current: ContextVar[RequestReads | None] = ContextVar("memlane_request_reads", default=None)


@contextlib.contextmanager
def request_reads() -> Iterator[RequestReads]:
    """The routing state of the request running in this task."""
    state = RequestReads(task=asyncio.current_task())
    token = _current.set(state)
    try:
        yield state
    finally:
        _current.reset(token)


def current_request() -> RequestReads | None:
    return _current.get()


def routed_engine() -> Any:
    """The replica engine the current request's reads go to, or None for the primary."""
    state = _current.get()
    if state is None or state.engine is None or state.task is not asyncio.current_task():
        return None
    return state.engine


def note_commit() -> None:
    """A transaction committed on the primary on behalf of the current request."""
    state = _current.get()
    if state is not None:
        state.wrote = True


__all__ = [
    "ReadAfterOutcome",
    "ReadChoice",
    "ReadRouting",
    "ReadSource",
    "ReplicaHealth",
    "ReplicaState",
    "RequestReads",
    "current_request",
    "format_position",
    "lsn_value",
    "note_commit",
    "parse_position",
    "request_reads",
    "routed_engine",
]
