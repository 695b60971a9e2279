from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.knowledge.helpers import ADR_DIR
from tests.support.server import LiveServer, ServerFactory


@pytest.fixture(scope="module")
def kserver(live_server_factory: ServerFactory) -> Iterator[LiveServer]:
    with live_server_factory(MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR)) as s:
        yield s


@pytest.fixture
def kclient(kserver: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=kserver.url, timeout=60) as c:
        yield c
