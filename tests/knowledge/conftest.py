from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import make_settings
from tests.knowledge.helpers import ADR_DIR
from tests.support.server import LiveServer


@pytest.fixture(scope="module")
def kserver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = tmp_path_factory.mktemp("knowledge")
    settings = make_settings(f"sqlite:///{data / 'memlane.db'}", MEMLANE_KNOWLEDGE_DIR=str(ADR_DIR))
    with LiveServer.start(settings) as s:
        yield s


@pytest.fixture
def kclient(kserver: LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=kserver.url, timeout=60) as c:
        yield c
