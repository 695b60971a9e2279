"""The store suites run on a third backend: PostgreSQL with every tenant table hash-partitioned
by ``tenant_id``, where each statement the test made memlane send must stay in one partition
(tests/support/partitions.py, docs/testing.md)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.backends import STORE_BACKENDS
from tests.support.partitions import StatementLog, outside_one_partition, report
from tests.support.pg import run_sync


@pytest.fixture(params=STORE_BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(autouse=True)
def statements_stay_in_one_partition(request: pytest.FixtureRequest) -> Iterator[None]:
    """On the partitioned backend: every statement sent during the test is planned again
    with its arguments, and one that reads or changes more than one partition of a tenant
    table fails the test unless the allow-list names its sender with a reason."""
    if "backend" not in request.fixturenames or request.getfixturevalue("backend") != "postgres-partitioned":
        yield
        return
    url: str = request.getfixturevalue("db_url")
    with StatementLog() as log:
        yield
    spread = run_sync(outside_one_partition(url, log.sent))
    assert not spread, "statements not pruned to one tenant partition:\n" + "\n".join(report(spread))
