"""MEMLANE_DATABASE_URL in libpq's spelling, host lists included, reaches asyncpg intact."""

from __future__ import annotations

import pytest
from sqlalchemy.dialects.postgresql.asyncpg import dialect as asyncpg_dialect
from sqlalchemy.engine import make_url
from sqlalchemy.engine.interfaces import Dialect

from memlane.store.urls import async_url


def connect_args(url: str) -> dict[str, object]:
    """What SQLAlchemy's asyncpg dialect hands to ``asyncpg.connect`` for ``url``."""
    # SQLAlchemy's dialect classes carry no annotations; the call is the library's own
    dialect: Dialect = asyncpg_dialect()  # type: ignore[no-untyped-call]
    _, kwargs = dialect.create_connect_args(make_url(async_url(url)))
    return dict(kwargs)


def test_a_libpq_host_list_with_target_session_attrs_reaches_asyncpg_as_lists() -> None:
    args = connect_args("postgresql://u:p@host1:5432,host2:5433/db?target_session_attrs=read-write")
    assert args == {
        "user": "u",
        "password": "p",
        "database": "db",
        "host": ["host1", "host2"],
        "port": [5432, 5433],
        "target_session_attrs": "read-write",
    }


def test_hosts_without_a_port_get_postgres_default_port() -> None:
    args = connect_args("postgres://u@a,b:6000,c/db")
    assert args["host"] == ["a", "b", "c"]
    assert args["port"] == [5432, 6000, 5432]


def test_other_parameters_and_escaped_passwords_survive_the_rewrite() -> None:
    args = connect_args("postgresql://u:p%40ss@h1:1,h2:2/db?sslmode=require&target_session_attrs=primary")
    assert args["password"] == "p@ss"
    assert args["ssl"] == "require"
    assert args["target_session_attrs"] == "primary"


def test_a_host_list_without_a_database_keeps_the_default_database() -> None:
    args = connect_args("postgresql://u@h1:1,h2:2")
    assert "database" not in args
    assert args["host"] == ["h1", "h2"]


def test_a_single_host_url_is_left_as_it_was() -> None:
    assert async_url("postgresql://u:p@h:5433/db") == "postgresql+asyncpg://u:p@h:5433/db"
    assert connect_args("postgresql://u:p@h:5433/db")["port"] == 5433


def test_sqlalchemy_spelling_of_a_host_list_still_works() -> None:
    args = connect_args("postgresql://u@/db?host=h1:1&host=h2:2&target_session_attrs=read-write")
    assert args["host"] == ["h1", "h2"]


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("postgresql://u@h1:1,h2:x/db", "port 'x'"),
        ("postgresql://u@h1:1,,h2/db", "empty host"),
        ("postgresql://u@[::1]:1,h2:2/db", "IPv6"),
        ("postgresql://u@h1:1,h2:2/db?host=h3:3", "both"),
    ],
)
def test_a_malformed_host_list_is_refused_naming_the_setting(url: str, words: str) -> None:
    with pytest.raises(ValueError, match="MEMLANE_DATABASE_URL") as err:
        async_url(url)
    assert words in str(err.value)
