"""A database that cannot answer now is a 503 with Retry-After on every surface, never a 500.

The errors are classified in one place (store/availability.py); the real test turns a live
server's PostgreSQL database read-only and drops its connections, as a failover that leaves
memlane on a demoted node would, then turns it back.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import asyncpg
import httpx
import pytest
from sqlalchemy import exc as sa_exc

from memlane.domain.errors import StoreUnavailable
from memlane.store.availability import CommitNotReplicated, as_store_unavailable, unavailable_reason
from tests.support.pg import fresh_database_url, run_sync
from tests.support.server import LiveServer
from tests.support.settings import make_settings

TENANT = "acme"
SCOPE = "ro"


# --- which errors are "not now" --------------------------------------------------------------
def _raised_from(outer: Exception, inner: BaseException) -> Exception:
    try:
        raise outer from inner
    except Exception as error:
        return error


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation"),
        asyncpg.exceptions.ReadOnlySQLTransactionError("cannot execute INSERT in a read-only transaction"),
        asyncpg.exceptions.CannotConnectNowError("the database system is in recovery mode"),
        asyncpg.exceptions.AdminShutdownError("terminating connection due to administrator command"),
        asyncpg.exceptions.TargetServerAttributeNotMatched("None of the hosts match"),
        asyncpg.exceptions.InvalidCatalogNameError('database "memlane" does not exist'),
        asyncpg.exceptions.InterfaceError("cannot perform operation: connection is closed"),
        asyncpg.exceptions.InterfaceError("cannot perform operation: another operation is in progress"),
        asyncpg.exceptions.InternalClientError("cannot switch to state 12; another operation (2) is in progress"),
        ConnectionRefusedError(111, "Connect call failed"),
        CommitNotReplicated("committed locally"),
        sa_exc.TimeoutError("QueuePool limit of size 3 overflow 0 reached"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_failover_errors_are_store_unavailable_also_when_wrapped(error: BaseException) -> None:
    assert unavailable_reason(error) is not None
    wrapped = _raised_from(sa_exc.OperationalError("INSERT ...", {}, Exception("adapted")), error)
    mapped = as_store_unavailable(wrapped)
    assert isinstance(mapped, StoreUnavailable)
    assert mapped.status == 503 and mapped.retry_after >= 1 and mapped.retryable is True


@pytest.mark.parametrize(
    "error",
    [
        asyncpg.exceptions.UniqueViolationError("duplicate key"),
        asyncpg.exceptions.UndefinedTableError("relation does not exist"),
        ValueError("bad"),
        OSError(2, "No such file or directory"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_other_failures_stay_what_they_are(error: BaseException) -> None:
    assert unavailable_reason(error) is None


# --- a live server on a database that turns read-only -----------------------------------------
async def _admin(url: str, *statements: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        for stmt in statements:
            await conn.execute(stmt)
    finally:
        await conn.close()


def _set_read_only(admin_url: str, database: str, read_only: bool) -> None:
    setting = "SET default_transaction_read_only = on" if read_only else "RESET default_transaction_read_only"
    run_sync(
        _admin(
            admin_url,
            f'ALTER DATABASE "{database}" {setting}',
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{database}' "
            "AND pid <> pg_backend_pid()",
        )
    )


@pytest.fixture
def pg_server(request: pytest.FixtureRequest) -> Iterator[tuple[LiveServer, str, str]]:
    """A live server, its database's URL, and the maintenance database's (to change it)."""
    url = fresh_database_url(request)
    admin_url = request.getfixturevalue("pg_cluster").admin_url
    with LiveServer.start(make_settings(url, MEMLANE_DB_POOL_SIZE=2)) as server:
        yield server, url, admin_url


def _graph_write(client: httpx.Client, title: str) -> httpx.Response:
    body = {
        "tenant_id": TENANT,
        "scope": SCOPE,
        "input_text": title,
        "nodes": [{"type": "event", "title": title, "memory_lane": "shared"}],
    }
    return client.post("/v1/memory/write", json=body)


def _surfaces(client: httpx.Client, n: int) -> dict[str, httpx.Response]:
    return {
        "graph": _graph_write(client, f"harbour log {n}"),
        "conversation": client.post(
            "/api/v1/memories",
            json={
                "app_id": "app-ro",
                "user_id": "u1",
                "messages": [{"role": "user", "content": f"the harbour log {n}", "timestamp": "2024-03-01T10:00:00Z"}],
            },
        ),
        "tools": client.post(
            "/v1/tools/memory_add",
            json={"content": f"harbour log {n}"},
            headers={"X-Tenant-Id": TENANT, "X-Agent-Id": "agent-a", "X-User-Id": "user-1"},
        ),
    }


def _envelope_code(surface: str, body: dict[str, Any]) -> object:
    return {"graph": body.get("error"), "conversation": "detail" in body, "tools": body.get("errorCode")}[surface]


@pytest.mark.postgres
def test_writes_to_a_read_only_database_answer_503_with_retry_after_and_recover(
    pg_server: tuple[LiveServer, str, str],
) -> None:
    server, db_url, admin_url = pg_server
    database = urlsplit(db_url).path.lstrip("/")
    with httpx.Client(base_url=server.url, timeout=30) as client:
        assert _graph_write(client, "before").status_code == 200

        _set_read_only(admin_url, database, True)
        for n in range(2):
            for surface, r in _surfaces(client, n).items():
                assert r.status_code == 503, (surface, r.status_code, r.text)
                assert int(r.headers["retry-after"]) >= 1, surface
                assert _envelope_code(surface, r.json()) in ("store_unavailable", True, "PROVIDER_ERROR"), r.text

        _set_read_only(admin_url, database, False)
        deadline = time.monotonic() + 30
        while True:
            r = _graph_write(client, "after")
            if r.status_code == 200:
                break
            assert r.status_code == 503 and "retry-after" in r.headers, r.text
            assert time.monotonic() < deadline, "writes did not come back"
            time.sleep(0.2)
