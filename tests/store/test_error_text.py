"""Database errors are logged by class, error code and constraint, never by the values they
quote. Each error here is a real one, raised by the driver or the database for a value that
holds a secret; the log line written for it must name the failure and not the secret."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import sys
from typing import Any

import pytest

from memlane.store.error_text import describe_error, holds_database_error, loggable, redact_record

SECRET = "PatientAllergicToPenicillin7731"  # one word: PostgreSQL quotes one JSON token


def logged(exc: BaseException, *, as_arg: bool = False) -> str:
    """The text a standard formatter writes for ``exc`` logged with ``log.exception`` (or as
    a ``%s`` argument), after the record is redacted as the record factory does."""
    try:
        raise exc
    except BaseException:
        record = logging.LogRecord(
            "memlane.test", logging.ERROR, __file__, 1, "failed: %s", (exc,) if as_arg else ("x",), sys.exc_info()
        )
    redact_record(record)
    return logging.Formatter().format(record)


def test_a_keyword_syntax_error_of_sqlite_is_logged_without_the_query() -> None:
    db = sqlite3.connect(":memory:")
    db.execute("CREATE VIRTUAL TABLE docs USING fts5(body)")
    with pytest.raises(sqlite3.OperationalError) as raised:
        # a word before a colon names a column: "no such column: <the word>"
        db.execute("SELECT * FROM docs WHERE docs MATCH ?", (f"{SECRET}:fever",)).fetchall()
    assert SECRET in str(raised.value), "the driver's own text quotes the query"
    for text in (describe_error(raised.value), loggable(raised.value), logged(raised.value)):
        assert SECRET not in text and "SQLITE_ERROR" in text and "OperationalError" in text


def test_errors_that_are_not_the_databases_keep_their_message() -> None:
    exc = ValueError("limit must be positive")
    assert not holds_database_error(exc) and loggable(exc) == "ValueError: limit must be positive"
    assert "limit must be positive" in logged(exc)


@pytest.mark.postgres
def test_postgresql_and_asyncpg_errors_are_logged_without_the_values(request: pytest.FixtureRequest) -> None:
    from tests.support.pg import fresh_database_url

    url = fresh_database_url(request)
    errors = asyncio.run(_postgres_errors(url))
    by_kind = {type(e).__name__: e for e in errors}
    # the drivers' own texts quote the secret: what the redaction is for
    assert all(SECRET in str(e) for e in errors), [str(e) for e in errors]
    assert set(by_kind) == {"DataError", "InvalidTextRepresentationError", "UniqueViolationError"}
    expected = {
        "DataError": "invalid input for query argument $1",
        "InvalidTextRepresentationError": "SQLSTATE 22P02",
        "UniqueViolationError": "constraint notes_pkey",
    }
    for kind, exc in by_kind.items():
        for text in (describe_error(exc), logged(exc), logged(exc, as_arg=True)):
            assert SECRET not in text, (kind, text)
            assert expected[kind] in text, (kind, text)


async def _postgres_errors(url: str) -> list[Any]:
    import asyncpg

    conn = await asyncpg.connect(url)
    out: list[Any] = []
    try:
        await conn.execute("CREATE TABLE notes (body text PRIMARY KEY)")
        await conn.execute("INSERT INTO notes VALUES ($1)", SECRET)
        for sql, arg in (
            ("SELECT $1::int", SECRET),  # asyncpg refuses the argument itself
            ("SELECT $1::text::jsonb", f'{{"a": {SECRET}}}'),  # DETAIL: Token "..." is invalid
            ("INSERT INTO notes VALUES ($1)", SECRET),  # DETAIL: Key (body)=(...) already exists
        ):
            try:
                await conn.execute(sql, arg)
            except (asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
                out.append(exc)
    finally:
        await conn.close()
    return out
