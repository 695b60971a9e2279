"""Database errors in the log, without the values of the statement that failed.

An erasure removes a subject from every table; it cannot reach a log file. So what is logged
about a failed statement must not quote what the statement carried:

* SQLAlchemy appends ``[parameters: ...]`` (the memory's text, its vector) to every error it
  wraps; the engines are created with ``hide_parameters=True`` (``ENGINE_OPTIONS``).
* The database's own message can quote values too: PostgreSQL's ``DETAIL: Failing row
  contains (...)`` (a check violation prints the whole row) or ``Key (...)=(...)``, and
  messages such as ``invalid input syntax for type json`` with the offending token; asyncpg's
  ``invalid input for query argument $3: 'text...'``; SQLite's ``fts5: syntax error near
  "..."`` or a trigger's ``RAISE`` message.

``describe_error`` names such an error by what carries no value: its class, its SQLSTATE or
SQLite error name, the constraint, table and column it names, and the statement's text (every
value is a bound parameter, never inlined). ``install_log_redaction`` puts that description in
place of the exception text in every log record, whichever logger writes it (memlane's,
uvicorn's "Exception in ASGI application", asyncio's), before any handler formats it.
Tracebacks keep their frames; only the exception lines change. It also drops the query string
from uvicorn's access log lines (``GET /api/v1/memories/query?query=...``), and the arguments
from aiosqlite's DEBUG trace of each call (``executing functools.partial(<execute>, sql,
params)``), which would print every statement's values at ``MEMLANE_LOG_LEVEL=debug``.
"""

from __future__ import annotations

import functools
import logging
import re
import threading
from typing import Any

from sqlalchemy.exc import StatementError

#: keyword arguments of every ``create_async_engine`` memlane makes
ENGINE_OPTIONS: dict[str, Any] = {"hide_parameters": True}

#: modules whose exceptions come from a database driver (SQLAlchemy's own wrappers of them
#: are its ``StatementError``s): their text may quote the values of a statement
DRIVER_MODULES = ("asyncpg", "sqlite3", "aiosqlite", "sqlalchemy.dialects", "sqlalchemy.connectors")
#: SQLSTATE classes whose primary message never quotes data: connection (08), transaction
#: rollback such as deadlocks (40), syntax and undefined objects (42, our own SQL), resources
#: (53), operator intervention such as statement timeouts (57), system (58)
_PLAIN_SQLSTATE_CLASSES = frozenset({"08", "40", "42", "53", "57", "58"})
_ARGUMENT = re.compile(r"^invalid input for query argument \$\d+")
_MAX_STATEMENT = 600


def is_database_error(exc: BaseException) -> bool:
    return isinstance(exc, StatementError) or type(exc).__module__.startswith(DRIVER_MODULES)


def describe_error(exc: BaseException) -> str:
    """``exc`` in one line without any value it may quote (see the module's docstring).
    Errors that are not the database's keep their own text."""
    name = f"{type(exc).__module__}.{type(exc).__qualname__}"
    if not is_database_error(exc):
        return f"{name}: {exc}"
    facts: list[str] = []
    sqlstate = getattr(exc, "sqlstate", None)
    if isinstance(sqlstate, str) and sqlstate:
        facts.append(f"SQLSTATE {sqlstate}")
    errorname = getattr(exc, "sqlite_errorname", None)
    if isinstance(errorname, str):
        facts.append(errorname)
    for attr in ("constraint_name", "table_name", "column_name", "data_type_name"):
        value = getattr(exc, attr, None)
        if isinstance(value, str) and value:
            facts.append(f"{attr.removesuffix('_name')} {value}")
    text = name + (f" ({', '.join(facts)})" if facts else "")
    message = str(exc.args[0]) if exc.args and isinstance(exc.args[0], str) else ""
    if isinstance(sqlstate, str) and sqlstate[:2] in _PLAIN_SQLSTATE_CLASSES:
        text += f": {message.splitlines()[0] if message else ''}"
    elif argument := _ARGUMENT.match(message):
        text += f": {argument.group(0)}"
    elif _client_state_error(exc) and message:
        text += f": {message}"
    statement = getattr(exc, "statement", None)
    if isinstance(statement, str) and statement:
        flat = " ".join(statement.split())
        text += f" [SQL: {flat[:_MAX_STATEMENT]}{'...' if len(flat) > _MAX_STATEMENT else ''}]"
    return text


def _client_state_error(exc: BaseException) -> bool:
    """asyncpg's own errors about the connection's state ("another operation is in
    progress", "connection was closed"): no SQLSTATE, no values. Its DataError (a bad
    argument) quotes the argument, and is not one of them."""
    return (
        type(exc).__module__.startswith("asyncpg")
        and getattr(exc, "sqlstate", None) is None
        and not isinstance(exc, ValueError)
    )


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in out:
        out.append(current)
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)
    return out


def holds_database_error(exc: BaseException) -> bool:
    return any(is_database_error(e) for e in _chain(exc))


def loggable(exc: BaseException) -> str:
    """``type: message`` for a log line or a stored job error; a database error (or one
    raised from it) by ``describe_error`` of each, outermost first."""
    if not holds_database_error(exc):
        return f"{type(exc).__name__}: {exc}"
    return " <- ".join(describe_error(e) for e in _chain(exc))


class RedactedError(Exception):
    """Stands in a log record for an exception of a database error's chain: its message is
    ``describe_error`` of the original, its traceback the original's."""


def _redacted(exc: BaseException, memo: dict[int, BaseException]) -> BaseException:
    if id(exc) in memo:
        return memo[id(exc)]
    clone = RedactedError(describe_error(exc)).with_traceback(exc.__traceback__)
    memo[id(exc)] = clone
    if exc.__cause__ is not None:
        clone.__cause__ = _redacted(exc.__cause__, memo)
    if exc.__context__ is not None:
        clone.__context__ = _redacted(exc.__context__, memo)
    clone.__suppress_context__ = exc.__suppress_context__
    return clone


def redact_record(record: logging.LogRecord) -> None:
    """Make ``record`` safe to format: database errors in its exception, its arguments or
    its message are replaced by their descriptions."""
    exc_info = record.exc_info
    if isinstance(exc_info, tuple) and exc_info[1] is not None and holds_database_error(exc_info[1]):
        clone = _redacted(exc_info[1], {})
        record.exc_info = (type(clone), clone, clone.__traceback__)
        record.exc_text = None
    if isinstance(record.msg, BaseException) and holds_database_error(record.msg):
        record.msg = loggable(record.msg)
    if isinstance(record.args, tuple) and any(isinstance(a, BaseException) for a in record.args):
        record.args = tuple(
            loggable(a) if isinstance(a, BaseException) and holds_database_error(a) else a for a in record.args
        )
    if record.name == "aiosqlite" and isinstance(record.args, tuple):
        # its DEBUG trace prints each call it runs, a statement's parameters included
        record.args = tuple(_call_name(a) for a in record.args)
    if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) >= 3:
        # (client, method, path with query, http version, status): the query string may be a
        # question someone asked (GET /api/v1/memories/query?query=...)
        args = list(record.args)
        if isinstance(args[2], str):
            args[2] = args[2].split("?", 1)[0]
        record.args = tuple(args)


def _call_name(value: Any) -> Any:
    """What aiosqlite runs (``functools.partial(cursor.execute, sql, params)``), by name only."""
    if isinstance(value, functools.partial):
        value = value.func
    if callable(value):
        return getattr(value, "__qualname__", type(value).__qualname__)
    return loggable(value) if isinstance(value, BaseException) else value


_install_lock = threading.Lock()
_installed = False


def install_log_redaction() -> None:
    """Wrap the process's log record factory (once) so every record is redacted as it is
    made, before any handler or formatter, memlane's or not, sees it."""
    global _installed
    with _install_lock:
        if _installed:
            return
        previous = logging.getLogRecordFactory()

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            record = previous(*args, **kwargs)
            redact_record(record)
            return record

        logging.setLogRecordFactory(factory)
        _installed = True


__all__ = [
    "ENGINE_OPTIONS",
    "RedactedError",
    "describe_error",
    "holds_database_error",
    "install_log_redaction",
    "is_database_error",
    "loggable",
    "redact_record",
]
