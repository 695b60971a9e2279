"""Read replicas at the HTTP edge: which requests read a replica, and the headers of
read-your-writes (docs/operations.md "Read replicas").

* Every request runs inside ``routed`` (the route class of every router calls it). A
  request that committed anything on the primary answers, when successful,
  ``X-Memlane-Position``: the primary's WAL position read after its commits (PostgreSQL only).
* A read route declares ``RoutedRead`` (recall, search, query, get, browse, the UI pages, the
  layers' reads, the tools' search). With replicas configured it picks one replica for the
  whole request (store/read_routing.py keeps the choice where the store's read connections
  find it), and answers ``X-Memlane-Read-Source: replica|primary``. A client that sends back
  a position as ``X-Memlane-Read-After`` is served by a replica that has replayed that far, or
  one that gets there within ``MEMLANE_READ_AFTER_WAIT_MS``, or else by the primary.
* A replica that fails mid-read is reported out of rotation and the request runs once more,
  on the primary: the caller never sees the replica's failure.

Routes without ``RoutedRead`` (writes, job status, admin) read the primary; a request that
writes never reads a replica, so reads inside a write path see what the write sees.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from fastapi import Depends, Request, Response

from memlane.api.common.deps import get_services
from memlane.domain.errors import InvalidRequest, StoreUnavailable
from memlane.metrics import READ_AFTER, READS
from memlane.store import read_routing
from memlane.store.availability import DRIVER_ERROR_TYPES
from memlane.store.read_routing import RequestReads

log = logging.getLogger(__name__)

POSITION_HEADER = "X-Memlane-Position"
READ_AFTER_HEADER = "X-Memlane-Read-After"
READ_SOURCE_HEADER = "X-Memlane-Read-Source"
#: ``scope`` key of headers for whatever response the request ends with, an error rendered by
#: the exception handlers included; the edge middleware (edge_middleware.py) adds them
EXTRA_HEADERS = "memlane.response_headers"


async def route_reads(request: Request) -> None:
    """Router or route dependency of the reads a replica may serve (see the module)."""
    state = read_routing.current_request()
    raw = request.headers.get(READ_AFTER_HEADER)
    try:
        position = read_routing.parse_position(raw) if raw is not None else None
    except ValueError as exc:
        raise InvalidRequest(f"{READ_AFTER_HEADER}: {exc}", details={"field": READ_AFTER_HEADER}) from None
    if state is not None:
        state.read_route = True
    router = getattr(get_services(request), "reads", None)
    if state is None or router is None or not router.has_replicas or state.source is not None:
        # no replicas, or the route's second run after a replica failed (already on the primary)
        return
    state.use(await router.choose(position))


#: ``dependencies=[RoutedRead]`` on a read route or router: it needs no value, only to run first
RoutedRead = Depends(route_reads)


async def routed(request: Request, run: Callable[[], Awaitable[Response]]) -> Response:
    """Run one request's handler (``run``) with its routing state; retry once on the primary
    when its replica failed; add the position and read-source headers."""
    with read_routing.request_reads() as state:
        try:
            try:
                response = await run()
            except Exception as error:
                if state.replica is None or not _database_failure(error):
                    raise
                _fall_back(request, state, error)
                response = await run()
            else:
                if state.replica is not None and response.status_code == 503:
                    # a page that renders its own errors (the UI's fragments) caught the failure
                    _fall_back(request, state, StoreUnavailable("the read replica answered 503"))
                    response = await run()
        finally:
            _count_read(request, state)
        await _add_position(request, state, response)
        return response


def _fall_back(request: Request, state: RequestReads, error: BaseException) -> None:
    replica = state.replica or ""
    log.warning("%s %s: read replica %s failed (%s); retrying on the primary", request.method, request.url.path,
                replica, type(error).__name__)  # fmt: skip
    router = get_services(request).reads
    if router is not None:
        router.report_failure(replica, error)
    state.fall_back_to_primary()


def _count_read(request: Request, state: RequestReads) -> None:
    """Count a routed read, and say where it was served: on any answer, an error included
    (a 404 from a replica is worth telling from one of the primary), so through the edge
    middleware, which adds it to whatever response the request ends with."""
    if state.source is None:
        return
    request.scope.setdefault(EXTRA_HEADERS, {})[READ_SOURCE_HEADER] = state.source
    READS.labels(state.source).inc()
    if state.outcome is not None:
        READ_AFTER.labels("primary_fallback" if state.primary_only else state.outcome).inc()


async def _add_position(request: Request, state: RequestReads, response: Response) -> None:
    if state.wrote and not state.read_route and 200 <= response.status_code < 300:
        router = get_services(request).reads
        position = await router.primary_position() if router is not None else None
        if position is not None:
            response.headers[POSITION_HEADER] = read_routing.format_position(position)


def _database_failure(error: BaseException) -> bool:
    """Whether ``error`` came from the database (a replica that went away, a standby's
    recovery conflict), anywhere in its chain or group."""
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        current = pending.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, (StoreUnavailable, *DRIVER_ERROR_TYPES)):
            return True
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                pending.append(linked)
    return False


__all__ = ["POSITION_HEADER", "READ_AFTER_HEADER", "READ_SOURCE_HEADER", "RoutedRead", "routed"]
