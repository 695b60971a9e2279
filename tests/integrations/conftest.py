"""One real memlane server (SQLite, hashing embedder, no LLM) with API-key auth on, shared by
the framework integrations' tests: each test works in scopes, namespaces or sessions of its
own, so they never see each other's memories."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import make_settings
from tests.support.server import LiveServer

API_KEY = "k-integrations"
KEYS = {API_KEY: {"tenant_id": "frameworks", "agent_id": "agent-1", "user_id": "user-1"}}


@pytest.fixture(scope="package")
def memlane_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    data = tmp_path_factory.mktemp("integrations")
    settings = make_settings(
        f"sqlite:///{data / 'memlane.db'}",
        MEMORY_AUTH_MODE="api_key",
        MEMORY_API_KEYS_JSON=json.dumps(KEYS),
    )
    with LiveServer.start(settings) as server:
        yield server
