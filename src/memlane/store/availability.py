"""Which database errors mean "not now" rather than "never", and the commit that must not pass.

A failover, a restart or a network cut reaches memlane as driver errors of many shapes: a
connection closed in the middle of a statement (asyncpg's ``ConnectionDoesNotExistError``),
a refused or timed-out connect, a server that is shutting down or still in recovery
(SQLSTATE 57P01-57P03), a write sent to a node that became a standby (25006
``read_only_sql_transaction``), no host of a ``target_session_attrs=read-write`` list being
writable yet. None of them is a bug, and the same request succeeds once the database is back.
``unavailable_reason`` names them in one place; the store raises them as the domain's
``StoreUnavailable`` (``install``: an engine ``handle_error`` hook, which also drops the
pool's connections, and a ``do_connect`` hook), and the API maps any that reach it another
way (a raw asyncpg read) to the same 503 with ``Retry-After`` (api/common/errors.py). The
pool recovers by itself: invalidated connections are replaced by new ones through the host
list, and the checkout hook of the PostgreSQL store discards connections the server closed.

**A cancelled synchronous commit.** With ``synchronous_commit`` on, a COMMIT on the primary
waits until the synchronous standby has flushed it. If that wait is cancelled
(``pg_cancel_backend``, a client's cancel request; not a ``statement_timeout``, whose timer
PostgreSQL stops before the commit waits) PostgreSQL keeps the local commit and answers
COMMIT as a success with only a WARNING ("canceling wait for synchronous replication due to user request"; DETAIL "The
transaction has already committed locally, but might not have been replicated to the
standby"). A failover right after would lose a write memlane had acknowledged.
``SyncRepCheckedConnection`` listens for that warning and turns such a COMMIT into
``CommitNotReplicated``, which answers 503: the write's fate is unknown to the caller, as it
is when a connection drops during COMMIT, and a retry is the client's call. memlane itself
sets no ``statement_timeout`` and no client-side command timeout (docs/operations.md "Failover").
"""

from __future__ import annotations

from typing import Any

import asyncpg
from sqlalchemy import event, exc
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.ext.asyncio import AsyncEngine

from memlane.domain.errors import StoreUnavailable

#: seconds a client is asked to wait: a promotion plus reconnect takes a few seconds
RETRY_AFTER_SEC = 1.0

#: SQLSTATEs (besides the connection class 08) that say the server cannot serve us now
_UNAVAILABLE_SQLSTATES = {
    "25006": "the database is read-only (a standby, or a primary that was demoted)",
    "57P01": "the database server is shutting down",
    "57P02": "the database server crashed",
    "57P03": "the database server is starting, shutting down or in recovery",
    "53300": "the database has no connection slot free",
    # a standby that reopened for reads at a point before it replayed CREATE DATABASE (seen by
    # bench/replicas.py when a standby restarts recovery); a wrong database name fails at start
    "3D000": "the database does not exist on this node yet (a standby still replaying)",
}
#: asyncpg's messages about a connection that is gone (InterfaceError, without SQLSTATE)
_CLOSED_MESSAGES = ("connection is closed", "connection was closed")
_BUSY_MESSAGE = "another operation is in progress"
#: the start of PostgreSQL's WARNING when a commit's wait for its synchronous standby is
#: cancelled (src/backend/replication/syncrep.c); the server's lc_messages must be English
SYNC_REP_CANCEL_WARNING = "canceling wait for synchronous replication"


class CommitNotReplicated(Exception):
    """A COMMIT that PostgreSQL reported done after cancelling its wait for the synchronous
    standby: committed on this node, perhaps not on the one that takes over."""


def unavailable_reason(error: BaseException) -> str | None:
    """Why ``error`` (or an error it was raised from) means the database cannot answer now,
    or ``None`` when it is some other failure."""
    for current in _chain(error):
        reason = _reason_of(current)
        if reason is not None:
            return reason
    return None


def as_store_unavailable(error: BaseException) -> StoreUnavailable | None:
    if isinstance(error, StoreUnavailable):
        return error
    reason = unavailable_reason(error)
    if reason is None:
        return None
    return StoreUnavailable(f"database unavailable: {reason}; retry shortly", retry_after=RETRY_AFTER_SEC)


def _reason_of(error: BaseException) -> str | None:
    if isinstance(error, CommitNotReplicated):
        return "a commit was not confirmed by the synchronous standby"
    if isinstance(error, exc.TimeoutError):
        return "no database connection became free in time"
    if isinstance(error, exc.DBAPIError) and error.connection_invalidated:
        return "the connection to the database was lost"
    sqlstate = getattr(error, "sqlstate", None)
    if isinstance(sqlstate, str):
        if sqlstate.startswith("08"):
            return "the connection to the database was lost"
        if sqlstate in _UNAVAILABLE_SQLSTATES:
            return _UNAVAILABLE_SQLSTATES[sqlstate]
    if isinstance(error, asyncpg.exceptions.TargetServerAttributeNotMatched):
        return "no database host is writable yet (target_session_attrs)"
    if isinstance(error, asyncpg.exceptions.InterfaceError) and any(m in str(error) for m in _CLOSED_MESSAGES):
        return "the connection to the database was lost"
    if isinstance(error, asyncpg.exceptions.InternalClientError) or (
        isinstance(error, asyncpg.exceptions.InterfaceError) and _BUSY_MESSAGE in str(error)
    ):
        # a connection left mid-operation when its server went away ("cannot switch to
        # state ...; another operation is in progress"); it is invalidated, the next one is fresh
        return "a database connection was broken by the switch"
    if isinstance(error, ConnectionError):
        return "the database refused or dropped the connection"
    if isinstance(error, OSError) and _raised_in_driver(error):
        # name resolution, unreachable network, connect timeouts of asyncpg.connect
        return "the database could not be reached"
    return None


def _raised_in_driver(error: BaseException) -> bool:
    tb = error.__traceback__
    while tb is not None:
        if "asyncpg" in tb.tb_frame.f_code.co_filename:
            return True
        tb = tb.tb_next
    return False


def _chain(error: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in out:
        out.append(current)
        orig = getattr(current, "orig", None)
        if isinstance(orig, BaseException) and orig not in out:
            out.append(orig)
        current = current.__cause__ or current.__context__
    return out


def install(engine: AsyncEngine) -> None:
    """Raise ``StoreUnavailable`` in place of the driver errors above, for every statement
    and connect of ``engine``. SQLAlchemy still invalidates the connection of a disconnect
    (its pool then opens a fresh one, which is how a lone primary's URL recovers)."""

    @event.listens_for(engine.sync_engine, "handle_error")
    def _unavailable(context: ExceptionContext) -> None:
        mapped = as_store_unavailable(context.original_exception)
        if mapped is not None:
            # treated as a disconnect: SQLAlchemy drops this connection and every pooled one
            # opened before it, which may all point at a node that is no longer the primary
            # (a read-only error leaves the connection open); new ones go through the host list
            context.is_disconnect = True
            raise mapped from context.original_exception

    @event.listens_for(engine.sync_engine, "do_connect")
    def _connect(dialect: Any, _record: Any, cargs: Any, cparams: Any) -> Any:
        # asyncpg's connect errors (a refused connection is an OSError) are not the DBAPI's,
        # so handle_error never sees them
        try:
            return dialect.connect(*cargs, **cparams)
        except Exception as error:
            mapped = as_store_unavailable(error)
            if mapped is None:
                raise
            raise mapped from error


class SyncRepCheckedConnection(asyncpg.Connection):  # type: ignore[misc]
    """asyncpg's connection, with a COMMIT whose synchronous-replication wait was cancelled
    raising ``CommitNotReplicated`` instead of returning (see the module's docstring).

    asyncpg hands a server's NOTICE/WARNING to log listeners with ``loop.call_soon`` while it
    reads the reply, before the COMMIT's own result wakes its caller, so the flag is set by
    the time ``execute`` returns."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._sync_rep_cancelled = False
        self.add_log_listener(self._watch_sync_rep)

    def _watch_sync_rep(self, _conn: Any, message: Any) -> None:
        if str(getattr(message, "message", "")).startswith(SYNC_REP_CANCEL_WARNING):
            self._sync_rep_cancelled = True

    async def execute(self, query: str, *args: Any, timeout: float | None = None) -> str:
        self._sync_rep_cancelled = False
        result: str = await super().execute(query, *args, timeout=timeout)
        if self._sync_rep_cancelled and query.strip().rstrip(";").upper() in ("COMMIT", "END", "COMMIT PREPARED"):
            raise CommitNotReplicated(
                "COMMIT returned after its wait for the synchronous standby was cancelled: "
                "committed locally, perhaps not replicated"
            )
        return result


#: the exception types a database failure can reach the API as, when it did not pass ``install``'s
#: hooks; the API maps those ``as_store_unavailable`` recognises (the others stay 500s)
DRIVER_ERROR_TYPES: tuple[type[Exception], ...] = (
    OSError,
    exc.SQLAlchemyError,
    asyncpg.PostgresError,
    asyncpg.InterfaceError,
    asyncpg.exceptions.InternalClientError,
    CommitNotReplicated,
)

__all__ = [
    "DRIVER_ERROR_TYPES",
    "RETRY_AFTER_SEC",
    "CommitNotReplicated",
    "SyncRepCheckedConnection",
    "as_store_unavailable",
    "install",
    "unavailable_reason",
]
